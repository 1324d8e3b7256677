// Step extrapolation in the simulator: its StepPacing (algorithms/step_pacing.hpp, step_runs.hpp).
//
// In timing-only mode, a run of at least kMinRun alike steps of a ring or of ddl (every rank
// runs the same runs) is played until the ranks share a steady pace, and its remaining steps then
// cost that pace each, without a message. After kWarmup steps each rank times blocks of kBlock
// steps; the *pace* of a block is the slowest rank's mean step time in it (lockstep: the ranks
// settle to the slowest link's pace, which travels around a ring one rank per step). At the end
// of each block from the third on, the run is ended when the two blocks before agree within
// kTolerance and every rank has timed both; the first rank there decides and every other rank
// reads that decision at the same step, so all ranks skip the same steps and no message is left
// unmatched. A 256-GPU ring plays about 64 of its 255 steps per phase.
//
// Only runs the ranks enter together are ended early: the last rank must have begun the run
// within one block's time (kBlock steps at the pace) of the first. Ranks that enter apart (a
// training iteration's buckets under compute jitter) wait on each other through the first
// blocks, which two blocks in a row can show as a steady but too slow pace: a 256-GPU ring in a
// ResNet-50 iteration with jitter CV 0.02 came out 10.6 % slow before this rule.
//
// Never in payload mode (skipped steps would carry data), on platforms with
// ddl_peer_read_factors (a receive's cost depends on which bytes the skipped steps sent), under a
// trace (it shows every operation) or with --exact.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "algorithms/step_pacing.hpp"

namespace ddl::sim {

inline constexpr std::size_t kMinRun = 64;
inline constexpr std::size_t kWarmup = 8;
inline constexpr std::size_t kBlock = 8;
inline constexpr double kTolerance = 1e-3;

// What was extrapolated, over every rank of every case since the platform was loaded.
struct ExtrapolationStats {
  std::size_t runs = 0;           // rank-runs ended early
  std::size_t skipped_steps = 0;  // steps not played, summed over ranks
  std::size_t played_steps = 0;   // steps played of the runs ended early, summed over ranks
};

// The tables' note saying that steps were extrapolated and how many; empty when none were.
inline std::string extrapolation_note(const ExtrapolationStats& x) {
  if (x.runs == 0) return {};
  return "step extrapolation: " + std::to_string(x.skipped_steps) + " of " +
         std::to_string(x.skipped_steps + x.played_steps) +
         " steps of long runs of alike steps not played but costed at their settled pace "
         "(summed over ranks; --exact plays every step)";
}

// The ranks' common record of one run (the n-th run of every rank).
struct RunRecord {
  enum class Decision : std::uint8_t { open, go_on, end };
  std::vector<double> pace;       // per block: the slowest rank's mean step time so far
  std::vector<int> timed;         // per block: ranks that have timed it
  std::vector<Decision> decided;  // per block end
  double end_pace = 0;            // seconds per skipped step, once decided `end`
  double first_start = 0;         // when the first and the last rank began the run
  double last_start = 0;
  int started = 0;   // ranks that have begun it
  int finished = 0;  // ranks done with the run: the record goes at the last
};

// Every rank's communicator of one simulation shares one (SimWorld). Actors run one at a time.
struct RunRecords {
  std::unordered_map<std::size_t, RunRecord> runs;
};

// One rank's pacing (SimCommunicator::step_pacing(), offered only where the platform allows
// it, in timing-only mode): a run ended early sleeps the rank for its remaining steps at the
// common pace.
class SimStepPacing : public StepPacing {
 public:
  SimStepPacing(RunRecords& runs, ExtrapolationStats& stats, int rank, int ranks)
      : runs_(runs), stats_(stats), rank_(rank), ranks_(ranks) {}
  void begin_alike_run(std::size_t length) override;
  bool alike_step_done(std::size_t left) override;

 private:
  // The run of alike steps this rank is in.
  struct AlikeRun {
    bool active = false;
    std::size_t id = 0;      // the n-th run of every rank
    std::size_t played = 0;  // steps played so far
    double block_start = 0;  // when the block being timed began
  };
  void finish_run(RunRecord& record);

  RunRecords& runs_;
  ExtrapolationStats& stats_;
  const int rank_;
  const int ranks_;
  AlikeRun run_;
  std::size_t next_run_id_ = 0;
};

}  // namespace ddl::sim
