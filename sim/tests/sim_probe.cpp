// Test driver: loads a platform the way ddlsim does and prints what the tests check about it.
//   sim_probe [--hostfile FILE] PLATFORM ...   ranks from FILE (a platform without ddl_rank)
//   sim_probe PLATFORM hosts          one "rank host" line per GPU
//   sim_probe PLATFORM route SRC DST  the link names of the route from rank SRC to rank DST
//   sim_probe PLATFORM latency SRC DST   that route's latency in seconds
//   sim_probe PLATFORM costs [DIMS [FOOTPRINT]]   "dim alpha beta" per dimension, then "gamma g"
//                                    (with FOOTPRINT bytes: one ring block's, as the model column)
#include <cstdlib>
#include <iostream>
#include <simgrid/s4u.hpp>

#include "algorithms/error.hpp"
#include "sim/platform.hpp"
#include "sim/platform_costs.hpp"

int main(int argc, char** argv) {
  try {
    ddl::sim::PlatformChoice choice;
    if (argc > 2 && std::string(argv[1]) == "--hostfile") {
      choice.hostfile = argv[2];
      argv[2] = argv[0];
      argv += 2;
      argc -= 2;
    }
    if (argc < 3)
      throw ddl::InvalidArgument(
          "usage: sim_probe [--hostfile FILE] PLATFORM hosts|route SRC DST|latency SRC DST|costs "
          "[DIMS]");
    simgrid::s4u::Engine& engine = ddl::sim::start_engine(argv[0]);
    const ddl::sim::Platform platform = ddl::sim::load_platform(engine, argv[1], choice);
    const std::string what = argv[2];
    std::cout.precision(17);
    if (what == "hosts") {
      for (int r = 0; r < platform.ranks(); ++r)
        std::cout << r << ' ' << platform.gpus[static_cast<std::size_t>(r)]->get_name() << '\n';
    } else if ((what == "route" || what == "latency") && argc == 5) {
      std::vector<simgrid::s4u::Link*> links;
      double latency = 0;
      platform.gpus.at(std::stoul(argv[3]))
          ->route_to(platform.gpus.at(std::stoul(argv[4])), links, &latency);
      if (what == "latency") std::cout << latency;
      for (std::size_t i = 0; what == "route" && i < links.size(); ++i)
        std::cout << (i ? " " : "") << links[i]->get_name();
      std::cout << '\n';
    } else if (what == "costs") {
      const std::optional<ddl::Dims> dims =
          argc > 3 ? std::optional<ddl::Dims>(ddl::Dims::parse(argv[3])) : std::nullopt;
      const double footprint = argc > 4 ? std::stod(argv[4]) : 0.0;
      const ddl::CostParams c =
          ddl::sim::platform_costs(platform, ddl::sim::choose_dims(platform, dims), footprint);
      for (std::size_t d = 0; d < c.per_dim.size(); ++d)
        std::cout << d << ' ' << c.per_dim[d].alpha << ' ' << c.per_dim[d].beta << '\n';
      std::cout << "gamma " << c.gamma << '\n';
    } else {
      throw ddl::InvalidArgument("unknown probe '" + what + "'");
    }
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "sim_probe: " << e.what() << '\n';
    return 1;
  }
}
