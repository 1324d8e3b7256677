// Runs of alike steps (algorithms/step_runs.hpp) and the executor's side of step extrapolation:
// which steps form runs, and that a backend ending a run early stops every rank at the same step
// with no message left unmatched, while a backend that does not extrapolate plays every step.
#include <atomic>
#include <catch2/catch.hpp>
#include <vector>

#include "algorithms/allreduce_ddl.hpp"
#include "algorithms/collectives.hpp"
#include "algorithms/forwarding_communicator.hpp"
#include "algorithms/halving_doubling_steps.hpp"
#include "algorithms/ring_steps.hpp"
#include "algorithms/step_pacing.hpp"
#include "algorithms/step_runs.hpp"
#include "loopback/loopback_communicator.hpp"

using namespace ddl;

namespace {

std::vector<StepRun> runs_of(const Schedule& s, std::size_t elem = 4) {
  return alike_runs(std::span(&s, 1), elem);
}

// Ends every announced run of at least `min_run` steps once `play` of its steps are played; its
// answer depends on nothing but the step count, so every rank stops at the same step.
class EndingEarly : public ForwardingCommunicator, public StepPacing {
 public:
  EndingEarly(Communicator& inner, std::size_t min_run, std::size_t play)
      : ForwardingCommunicator(inner), min_run_(min_run), play_(play) {}
  StepPacing* step_pacing() override { return this; }
  void begin_alike_run(std::size_t length) override {
    runs.push_back(length);
    played_ = 0;
    active_ = length >= min_run_;
  }
  bool alike_step_done(std::size_t left) override {
    ++played_;
    if (!active_ || left == 0 || played_ < play_) return false;
    skipped += left;
    active_ = false;
    return true;
  }
  Request isend(int peer, ConstView data, int tag) override {
    ++sends;
    return inner_.isend(peer, data, tag);
  }
  std::vector<std::size_t> runs;  // announced run lengths
  std::size_t skipped = 0, sends = 0;

 private:
  const std::size_t min_run_, play_;
  std::size_t played_ = 0;
  bool active_ = false;
};

}  // namespace

TEST_CASE("a ring's reduce-scatter is one run, blocks one element apart included", "[step_runs]") {
  for (int g : {2, 3, 9, 70}) {
    Group group = world_group(g, 1);
    // 4 * g + 3 elements: blocks of 4 and 5 elements, one element apart.
    const Schedule s = ring_reduce_scatter(group, {0, 4u * (4u * g + 3u)}, 4, -1);
    CHECK(runs_of(s) == std::vector<StepRun>{{0, static_cast<std::size_t>(g - 1)}});
  }
}

TEST_CASE("sizes more than one element apart, other peers, empty transfers break runs",
          "[step_runs]") {
  const Step a{{{1, 0, 400}}, {{2, 0, 400}}, true};
  Step wider = a, other_peer = a, empty = a, copy_only = a;
  wider.sends[0].bytes = 408;  // two 4-byte elements more
  other_peer.recvs[0].peer = 3;
  empty.sends[0].bytes = 0;
  copy_only.reduce = false;
  CHECK(alike(a, a, 4));
  Step one_more = a;
  one_more.recvs[0].bytes = 404;
  CHECK(alike(a, one_more, 4));
  CHECK_FALSE(alike(a, wider, 4));
  CHECK(alike(a, wider, 8));  // one 8-byte element
  CHECK_FALSE(alike(a, other_peer, 4));
  CHECK_FALSE(alike(a, empty, 4));
  CHECK_FALSE(alike(a, copy_only, 4));
  CHECK(runs_of({a, a, wider, wider, a}) == std::vector<StepRun>{{0, 2}, {2, 4}, {4, 5}});
  // Side by side: a schedule that has no step where another has one breaks the run.
  const std::vector<Schedule> two{{a, a, a}, {a, a}};
  CHECK(alike_runs(two, 4) == std::vector<StepRun>{{0, 2}, {2, 3}});
}

TEST_CASE("ddl's runs are its dimensions' phases and halving-doubling's single steps",
          "[step_runs]") {
  // 4x8 grid, ring in both dimensions: 3 + 7 reduce-scatter steps, then 7 + 3 allgather steps.
  const auto ddl = ddl_schedules(Dims({4, 8}), 5, 4096, 4, Options{});
  CHECK(alike_runs(ddl, 4) == std::vector<StepRun>{{0, 3}, {3, 10}, {10, 17}, {17, 20}});
  const Schedule hd = hd_reduce_scatter(world_group(16, 3), {0, 4096}, 4, -1, HdOrder::near);
  CHECK(runs_of(hd) == std::vector<StepRun>{{0, 1}, {1, 2}, {2, 3}, {3, 4}});
}

TEST_CASE("a run ended early stops every rank at the same step and without it the ring is exact",
          "[step_runs]") {
  const int p = 70;  // 69 steps per phase: runs of 69 steps
  const Algorithm& ring = find_algorithm("ring");
  std::vector<std::size_t> sends(p), skipped(p);
  std::vector<std::vector<std::size_t>> runs(p);
  run_ranks(p, [&](Communicator& inner) {
    EndingEarly comm(inner, 64, 10);
    std::vector<float> buf(4 * p, 1.0f);
    ring.run(comm, MutView{buf.data(), buf.size() * 4}, DType::float32, ReduceOp::sum, {});
    const auto r = static_cast<std::size_t>(comm.rank());
    sends[r] = comm.sends;
    skipped[r] = comm.skipped;
    runs[r] = comm.runs;
  });
  for (int r = 0; r < p; ++r) {
    INFO("rank " << r);
    CHECK(runs[r] ==
          std::vector<std::size_t>{69, 69});  // each phase announced once, windows or not
    CHECK(sends[r] == 20);                    // 10 steps of each phase
    CHECK(skipped[r] == 2 * 59);
  }
  // Without extrapolation (the loopback backend itself) every step is played: exact sums.
  // Checked after the threads: Catch's assertions are not thread-safe.
  std::atomic<std::size_t> wrong{0};
  run_ranks(p, [&](Communicator& comm) {
    std::vector<float> buf(4 * p, 1.0f);
    ring.run(comm, MutView{buf.data(), buf.size() * 4}, DType::float32, ReduceOp::sum, {});
    for (float x : buf) wrong += x == static_cast<float>(p) ? 0 : 1;
  });
  CHECK(wrong == 0);
}

TEST_CASE("algorithms whose ranks differ in their runs are never extrapolated", "[step_runs]") {
  // dbtree's and hier's ranks have different steps: an extrapolating backend is not asked.
  for (const char* name : {"dbtree", "hier", "rhd"}) {
    const Algorithm& algo = find_algorithm(name);
    std::atomic<std::size_t> announced{0}, wrong{0};
    run_ranks(8, [&](Communicator& inner) {
      EndingEarly comm(inner, 1, 1);
      std::vector<float> buf(4096, 1.0f);
      Options opts;
      opts.dims = Dims({2, 4});
      algo.run(comm, MutView{buf.data(), buf.size() * 4}, DType::float32, ReduceOp::sum, opts);
      announced += comm.runs.size();
      for (float x : buf) wrong += x == 8.0f ? 0 : 1;
    });
    INFO(name);
    CHECK(announced == 0);
    CHECK(wrong == 0);
  }
}
