// Test driver: the message patterns ddlcalibrate measures, simulated on a platform through
// SimCommunicator (the messages ddlsim's algorithms send), one simulation per process.
//   sim_pingpong PLATFORM [--pattern NAME] BYTES...   one "bytes seconds" line per size
// NAME as in real/calibrate_measure.hpp: pingpong (default; one-way time = round trip / 2, as
// ddlcalibrate measures it), bidirectional (ranks 0 and 1 exchange at once), pairs (every
// (2i, 2i+1) exchanges at once), two_each_way (ranks 0 and 1 send each other two messages at
// once), ring (every rank sends to r+1, receives from r-1); the time of
// an exchange is the slowest taking-part rank's. Calibration tests compare these with the
// measurements and with the calibrator's own prediction of contention.
#include <algorithm>
#include <cstring>
#include <iostream>
#include <simgrid/s4u.hpp>
#include <string>
#include <vector>

#include "algorithms/error.hpp"
#include "harness/sizes.hpp"
#include "sim/platform.hpp"
#include "sim/sim_communicator.hpp"

namespace {

enum class Pattern { pingpong, bidirectional, two_each_way, pairs, ring };

Pattern parse_pattern(const std::string& name) {
  if (name == "pingpong") return Pattern::pingpong;
  if (name == "bidirectional") return Pattern::bidirectional;
  if (name == "two_each_way") return Pattern::two_each_way;
  if (name == "pairs") return Pattern::pairs;
  if (name == "ring") return Pattern::ring;
  throw ddl::InvalidArgument("unknown pattern '" + name + "' (pingpong, bidirectional, two_each_way, pairs, ring)");
}

struct Shared {
  ddl::sim::SimWorld world;
  Pattern pattern;
  std::vector<std::size_t> sizes;
  std::vector<double> seconds;  // per size, max over ranks
  simgrid::s4u::BarrierPtr barrier;
};

// One message of the pattern for this rank (mirrors ddlcalibrate's step()).
void step(ddl::sim::SimCommunicator& comm, Pattern pattern, std::size_t bytes) {
  const int r = comm.rank(), p = comm.size();
  const ddl::MutView view{nullptr, bytes};
  ddl::Request rq[2];
  switch (pattern) {
    case Pattern::pingpong:
      if (r == 0) {
        rq[0] = comm.isend(1, view, 0);
        comm.wait(rq[0]);
        rq[1] = comm.irecv(1, view, 0);
        comm.wait(rq[1]);
      } else if (r == 1) {
        rq[1] = comm.irecv(0, view, 0);
        comm.wait(rq[1]);
        rq[0] = comm.isend(0, view, 0);
        comm.wait(rq[0]);
      }
      return;
    case Pattern::two_each_way: {
      if (r >= 2) return;
      ddl::Request four[4] = {comm.irecv(r ^ 1, view, 0), comm.irecv(r ^ 1, view, 1), comm.isend(r ^ 1, view, 0),
                              comm.isend(r ^ 1, view, 1)};
      comm.wait_all(four);
      return;
    }
    case Pattern::bidirectional:
    case Pattern::pairs:
      if (pattern == Pattern::bidirectional ? r >= 2 : (r ^ 1) >= p) return;
      rq[1] = comm.irecv(r ^ 1, view, 0);
      rq[0] = comm.isend(r ^ 1, view, 0);
      comm.wait_all(rq);
      return;
    case Pattern::ring:
      rq[1] = comm.irecv((r + p - 1) % p, view, 0);
      rq[0] = comm.isend((r + 1) % p, view, 0);
      comm.wait_all(rq);
      return;
  }
}

void rank_main(Shared* sh, int rank) {
  ddl::sim::SimCommunicator comm(sh->world, rank);
  for (std::size_t i = 0; i < sh->sizes.size(); ++i) {
    sh->barrier->wait();
    const double start = comm.now();
    step(comm, sh->pattern, sh->sizes[i]);
    double t = comm.now() - start;
    if (sh->pattern == Pattern::pingpong) t /= 2;
    sh->seconds[i] = std::max(sh->seconds[i], t);
  }
}

}  // namespace

int main(int argc, char** argv) {
  try {
    if (argc < 3) throw ddl::InvalidArgument("usage: sim_pingpong PLATFORM [--pattern NAME] BYTES...");
    int first = 2;
    Pattern pattern = Pattern::pingpong;
    if (std::strcmp(argv[2], "--pattern") == 0) {
      if (argc < 5) throw ddl::InvalidArgument("usage: sim_pingpong PLATFORM [--pattern NAME] BYTES...");
      pattern = parse_pattern(argv[3]);
      first = 4;
    }
    simgrid::s4u::Engine& engine = ddl::sim::start_engine(argv[0]);
    const ddl::sim::Platform platform = ddl::sim::load_platform(engine, argv[1]);
    if (platform.ranks() < 2) throw ddl::InvalidArgument("platform '" + platform.file + "' has fewer than 2 GPUs");
    Shared sh{ddl::sim::SimWorld{&platform, false}, pattern, {}, {}, {}};
    for (int i = first; i < argc; ++i) sh.sizes.push_back(ddl::harness::parse_size(argv[i]));
    sh.seconds.assign(sh.sizes.size(), 0.0);
    sh.barrier = simgrid::s4u::Barrier::create(static_cast<unsigned>(platform.ranks()));
    for (int r = 0; r < platform.ranks(); ++r)
      simgrid::s4u::Actor::create("rank" + std::to_string(r), platform.gpus[static_cast<std::size_t>(r)], rank_main,
                                  &sh, r);
    engine.run();
    std::cout.precision(17);
    for (std::size_t i = 0; i < sh.sizes.size(); ++i) std::cout << sh.sizes[i] << ' ' << sh.seconds[i] << '\n';
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "sim_pingpong: " << e.what() << '\n';
    return 1;
  }
}
