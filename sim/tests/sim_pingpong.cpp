// Test driver: simulated ping-pong between ranks 0 and 1 of a platform, through SimCommunicator
// (the messages ddlsim's algorithms send), one simulation per process.
//   sim_pingpong PLATFORM BYTES...   one "bytes one_way_seconds" line per size
// One-way time = round trip / 2, as ddlcalibrate measures it; calibration tests compare the two.
#include <iostream>
#include <simgrid/s4u.hpp>
#include <string>
#include <vector>

#include "algorithms/error.hpp"
#include "harness/sizes.hpp"
#include "sim/platform.hpp"
#include "sim/sim_communicator.hpp"

namespace {

struct Shared {
  ddl::sim::SimWorld world;
  std::vector<std::size_t> sizes;
  std::vector<double> one_way;
};

void rank_main(Shared* sh, int rank) {
  ddl::sim::SimCommunicator comm(sh->world, rank);
  const int peer = 1 - rank;
  for (std::size_t bytes : sh->sizes) {
    const ddl::MutView view{nullptr, bytes};
    const double start = comm.now();
    ddl::Request r;
    if (rank == 0) {
      r = comm.isend(peer, view, 0);
      comm.wait(r);
      r = comm.irecv(peer, view, 0);
      comm.wait(r);
      sh->one_way.push_back((comm.now() - start) / 2);
    } else {
      r = comm.irecv(peer, view, 0);
      comm.wait(r);
      r = comm.isend(peer, view, 0);
      comm.wait(r);
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  try {
    if (argc < 3) throw ddl::InvalidArgument("usage: sim_pingpong PLATFORM BYTES...");
    simgrid::s4u::Engine& engine = ddl::sim::start_engine(argv[0]);
    const ddl::sim::Platform platform = ddl::sim::load_platform(engine, argv[1]);
    if (platform.ranks() < 2) throw ddl::InvalidArgument("platform '" + platform.file + "' has fewer than 2 GPUs");
    Shared sh{ddl::sim::SimWorld{&platform, false}, {}, {}};
    for (int i = 2; i < argc; ++i) sh.sizes.push_back(ddl::harness::parse_size(argv[i]));
    for (int r = 0; r < 2; ++r)
      simgrid::s4u::Actor::create("rank" + std::to_string(r), platform.gpus[static_cast<std::size_t>(r)], rank_main,
                                  &sh, r);
    engine.run();
    std::cout.precision(17);
    for (std::size_t i = 0; i < sh.sizes.size(); ++i) std::cout << sh.sizes[i] << ' ' << sh.one_way.at(i) << '\n';
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "sim_pingpong: " << e.what() << '\n';
    return 1;
  }
}
