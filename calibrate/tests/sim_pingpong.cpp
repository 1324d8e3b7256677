// Test driver: the message patterns ddlcalibrate measures (calibrate/patterns.hpp, the same
// flows), simulated on a platform through SimCommunicator (the messages ddlsim's algorithms
// send), one simulation per process.
//   sim_pingpong PLATFORM [--pattern NAME] [--peer R] BYTES...   one "bytes seconds" line per size
// pingpong (default) runs between rank 0 and rank R (default 1) and prints the one-way time
// (round trip / 2, as ddlcalibrate measures it); any other pattern prints its step's time, the
// slowest taking-part rank's. The topology the patterns need comes from the platform: G ranks
// per node, K nodes per leaf from its hosts' ddl_node / ddl_leaf (without them: one node).
// With rails (ddl_leaf differs within node 0) M is the number of leaves node 0 reaches.
#include <algorithm>
#include <cstring>
#include <iostream>
#include <set>
#include <simgrid/s4u.hpp>
#include <string>
#include <vector>

#include "algorithms/error.hpp"
#include "calibrate/patterns.hpp"
#include "harness/sizes.hpp"
#include "sim/platform.hpp"
#include "sim/sim_communicator.hpp"

namespace {

using ddl::calibrate::Flow;
using ddl::calibrate::Pattern;

struct Shared {
  ddl::sim::SimWorld world;
  std::vector<std::vector<Flow>> steps;  // run in order: a ping-pong is there and back
  bool halve = false;                    // pingpong: one way
  std::vector<std::size_t> sizes;
  std::vector<double> seconds;  // per size, max over ranks
  simgrid::s4u::BarrierPtr barrier;
};

ddl::calibrate::Topology topology_of(const ddl::sim::Platform& p) {
  if (p.places.empty()) return {p.ranks(), 1, 1};
  const auto on = [&](auto&& pred) {
    return static_cast<int>(std::count_if(p.places.begin(), p.places.end(), pred));
  };
  const int g = on([](const ddl::sim::HostPlace& h) { return h.node == 0; });
  // Rails: node 0's ranks sit on as many leaves as the node has NICs (slot s on leaf s mod M).
  std::set<int> node0_leaves;
  for (int r = 0; r < g; ++r) node0_leaves.insert(p.places[static_cast<std::size_t>(r)].leaf);
  const int nics = static_cast<int>(node0_leaves.size());
  int k = 0;
  for (int node = 0; node * g < p.ranks(); ++node)
    if (p.places[static_cast<std::size_t>(node * g)].leaf == 0) ++k;
  return {g, k, p.ranks() / g / k, nics};
}

void rank_main(Shared* sh, int rank) {
  ddl::sim::SimCommunicator comm(sh->world, rank);
  for (std::size_t i = 0; i < sh->sizes.size(); ++i) {
    sh->barrier->wait();
    const double start = comm.now();
    bool mine = false;
    for (const std::vector<Flow>& step : sh->steps) {
      const ddl::calibrate::RankFlows f = ddl::calibrate::flows_of_rank(step, rank);
      const ddl::MutView view{nullptr, sh->sizes[i]};
      std::vector<ddl::Request> rq;
      for (const auto& in : f.in) rq.push_back(comm.irecv(in.peer, view, in.tag_offset));
      for (const auto& out : f.out) rq.push_back(comm.isend(out.peer, view, out.tag_offset));
      comm.wait_all(rq);
      mine = mine || !f.empty();
    }
    if (!mine) continue;
    double t = comm.now() - start;
    if (sh->halve) t /= 2;
    sh->seconds[i] = std::max(sh->seconds[i], t);
  }
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const char* usage = "usage: sim_pingpong PLATFORM [--pattern NAME] [--peer R] BYTES...";
    if (argc < 3) throw ddl::InvalidArgument(usage);
    int first = 2, peer = 1;
    Pattern pattern = Pattern::pingpong;
    while (first + 1 < argc && argv[first][0] == '-') {
      if (std::strcmp(argv[first], "--pattern") == 0)
        pattern = ddl::calibrate::parse_pattern(argv[first + 1]);
      else if (std::strcmp(argv[first], "--peer") == 0)
        peer = std::stoi(argv[first + 1]);
      else
        throw ddl::InvalidArgument(usage);
      first += 2;
    }
    if (first >= argc) throw ddl::InvalidArgument(usage);
    simgrid::s4u::Engine& engine = ddl::sim::start_engine(argv[0]);
    const ddl::sim::Platform platform = ddl::sim::load_platform(engine, argv[1]);
    if (platform.ranks() < 2)
      throw ddl::InvalidArgument("platform '" + platform.file + "' has fewer than 2 GPUs");
    if (peer < 1 || peer >= platform.ranks())
      throw ddl::InvalidArgument("--peer must be a rank other than 0");
    Shared sh{ddl::sim::SimWorld{&platform, false}, {}, pattern == Pattern::pingpong, {}, {}, {}};
    if (pattern == Pattern::pingpong)
      sh.steps = {{{0, peer}}, {{peer, 0}}};
    else
      sh.steps = {ddl::calibrate::pattern_flows(pattern, topology_of(platform))};
    for (int i = first; i < argc; ++i) sh.sizes.push_back(ddl::harness::parse_size(argv[i]));
    sh.seconds.assign(sh.sizes.size(), 0.0);
    sh.barrier = simgrid::s4u::Barrier::create(static_cast<unsigned>(platform.ranks()));
    for (int r = 0; r < platform.ranks(); ++r)
      simgrid::s4u::Actor::create("rank" + std::to_string(r),
                                  platform.gpus[static_cast<std::size_t>(r)], rank_main, &sh, r);
    engine.run();
    std::cout.precision(17);
    for (std::size_t i = 0; i < sh.sizes.size(); ++i)
      std::cout << sh.sizes[i] << ' ' << sh.seconds[i] << '\n';
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "sim_pingpong: " << e.what() << '\n';
    return 1;
  }
}
