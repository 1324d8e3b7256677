// Non-blocking collectives (algorithms/nonblocking.hpp) on threads: one rank's collectives on
// its tensor-, data-parallel and world communicators in flight at once, each exact; collectives
// started on one communicator run in the order started; a collective's error comes back from
// its handle.
#include <catch2/catch.hpp>
#include <memory>
#include <string>
#include <vector>

#include "algorithms/check_pattern.hpp"
#include "algorithms/nonblocking.hpp"
#include "algorithms/registry.hpp"
#include "algorithms/thread_streams.hpp"
#include "loopback/loopback_communicator.hpp"
#include "loopback/tests/rank_notes.hpp"

using namespace ddl;
using ddl::test::Notes;

namespace {

// A buffer of the check pattern for `algo` on `comm`, and whether it holds the result.
struct Checked {
  const Algorithm& algo;
  Communicator& comm;
  std::vector<float> buf;
  Options options;

  Checked(const char* name, Communicator& c, std::size_t count, int root = 0)
      : algo(find_algorithm(name)), comm(c), buf(count) {
    options.root = root;
    fill_input(buf.data(), count, DType::float32, ReduceOp::sum, algo.collective, comm.rank(),
               comm.size(), root);
  }
  MutView view() { return {buf.data(), buf.size() * sizeof(float)}; }
  CollectiveHandle start(NonBlocking& nb) {
    return nb.start(comm, algo, view(), DType::float32, ReduceOp::sum, options);
  }
  bool exact() const {
    return check_output(buf.data(), buf.size(), DType::float32, ReduceOp::sum, algo.collective,
                        comm.rank(), comm.size(), options.root)
               .wrong == 0;
  }
};

}  // namespace

TEST_CASE("non-blocking: TP DP and world collectives of every rank in flight at once are exact",
          "[loopback][nonblocking]") {
  // 8 ranks, TP 2 (consecutive) x DP 4 (strided): an allreduce in each TP pair, an all-to-all and
  // a reduce-scatter in each DP group, a broadcast over the world, all started before any wait.
  Notes notes(8);
  run_ranks(8, [&](Communicator& world) {
    const std::unique_ptr<Communicator> tp = world.split(world.rank() / 2, world.rank());
    const std::unique_ptr<Communicator> dp = world.split(world.rank() % 2, world.rank());
    // A second communicator over the DP ranks: a stream of its own beside dp's.
    const std::unique_ptr<Communicator> dp2 = world.split(world.rank() % 2, world.rank());
    ThreadLauncher threads;
    NonBlocking nb(threads);
    Checked a("ring", *tp, 1001), b("alltoall_pairwise", *dp, 4 * 257 + 3),
        c("reduce_scatter", *dp2, 4099), d("broadcast_binomial", world, 777, 5);
    std::vector<CollectiveHandle> handles = {a.start(nb), b.start(nb), c.start(nb), d.start(nb)};
    for (CollectiveHandle& h : handles) h.wait();
    for (CollectiveHandle& h : handles) EXPECT(h.test());
    EXPECT(a.exact());
    EXPECT(b.exact());
    EXPECT(c.exact());
    EXPECT(d.exact());
  });
  notes.check();
}

TEST_CASE("non-blocking: collectives started on one communicator run in the order started",
          "[loopback][nonblocking]") {
  Notes notes(4);
  run_ranks(4, [&](Communicator& world) {
    ThreadLauncher threads;
    NonBlocking nb(threads);
    // The same buffer twice: an allreduce, then an allgather of its result; order matters.
    Checked first("rhd", world, 1024);
    CollectiveHandle h1 = first.start(nb);
    CollectiveHandle h2 = nb.start(world, find_algorithm("allgather"), first.view(), DType::float32,
                                   ReduceOp::sum, Options{});
    h2.wait();
    EXPECT(h1.test());
    EXPECT(h2.start_time() >= h1.end_time());
    // Every block was rank r's allreduced block r, gathered: the allreduce's result everywhere.
    EXPECT(first.exact());
  });
  notes.check();
}

TEST_CASE(
    "non-blocking: a collective's error comes back from its handle, and from those queued "
    "behind it",
    "[loopback][nonblocking]") {
  Notes notes(3);
  run_ranks(3, [&](Communicator& world) {
    ThreadLauncher threads;
    NonBlocking nb(threads);
    std::vector<float> buf(10);
    // 6 bytes of float32: not a whole number of elements, on every rank alike.
    CollectiveHandle bad = nb.start(world, find_algorithm("ring"), {buf.data(), 6}, DType::float32,
                                    ReduceOp::sum, Options{});
    CollectiveHandle after = nb.start(world, find_algorithm("ring"), {buf.data(), 40},
                                      DType::float32, ReduceOp::sum, Options{});
    std::string error;
    try {
      bad.wait();
    } catch (const InvalidArgument& e) {
      error = e.what();
    }
    EXPECT(error.find("whole number") != std::string::npos);
    bool rethrown = false;
    try {
      after.wait();
    } catch (const InvalidArgument&) {
      rethrown = true;
    }
    EXPECT(rethrown);
  });
  notes.check();
}
