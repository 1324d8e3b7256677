#include "sim/step_extrapolation.hpp"

#include <algorithm>
#include <cmath>
#include <simgrid/Exception.hpp>
#include <simgrid/s4u.hpp>

#include "algorithms/error.hpp"

namespace ddl::sim {

namespace {

double now() {
  return simgrid::s4u::Engine::get_clock();
}

}  // namespace

void SimStepPacing::begin_alike_run(std::size_t length) {
  run_ = AlikeRun{length >= kMinRun, next_run_id_++, 0, 0};
  if (!run_.active) return;
  RunRecord& record = runs_.runs[run_.id];
  const double t = now();
  record.first_start = record.started == 0 ? t : std::min(record.first_start, t);
  record.last_start = record.started == 0 ? t : std::max(record.last_start, t);
  ++record.started;
}

void SimStepPacing::finish_run(RunRecord& record) {
  run_.active = false;
  if (++record.finished == ranks_) runs_.runs.erase(run_.id);
}

bool SimStepPacing::alike_step_done(std::size_t left) {
  if (!run_.active) return false;
  RunRecord& record = runs_.runs[run_.id];
  ++run_.played;
  if (left == 0) {
    finish_run(record);
    return false;
  }
  if (run_.played < kWarmup) return false;
  if (run_.played == kWarmup || (run_.played - kWarmup) % kBlock != 0) {
    if (run_.played == kWarmup) run_.block_start = now();
    return false;
  }
  // A block ends: add this rank's mean step time to the common record.
  const std::size_t block = (run_.played - kWarmup) / kBlock - 1;
  const double mean = (now() - run_.block_start) / static_cast<double>(kBlock);
  run_.block_start = now();
  if (record.pace.size() <= block) {
    record.pace.resize(block + 1, 0.0);
    record.timed.resize(block + 1, 0);
    record.decided.resize(block + 1, RunRecord::Decision::open);
  }
  record.pace[block] = std::max(record.pace[block], mean);
  ++record.timed[block];
  if (block < 2) return false;
  // The first rank to end this block decides for all, from the two latest blocks every rank
  // has timed (ranks may be more than a block apart): they must agree.
  RunRecord::Decision& decision = record.decided[block];
  if (decision == RunRecord::Decision::open) {
    std::size_t j = block - 1;
    while (j > 0 && record.timed[j] < ranks_) --j;
    const bool together = record.started == ranks_ &&
                          record.last_start - record.first_start <= kBlock * record.pace[j];
    const bool steady =
        j > 0 && record.timed[j] == ranks_ && together &&
        std::abs(record.pace[j] - record.pace[j - 1]) <= kTolerance * record.pace[j];
    decision = steady ? RunRecord::Decision::end : RunRecord::Decision::go_on;
    if (steady) record.end_pace = record.pace[j];
  }
  if (decision != RunRecord::Decision::end) return false;
  ++stats_.runs;
  stats_.skipped_steps += left;
  stats_.played_steps += run_.played;
  const double seconds = static_cast<double>(left) * record.end_pace;
  finish_run(record);
  try {
    simgrid::s4u::this_actor::sleep_for(seconds);
  } catch (const simgrid::Exception& e) {
    throw BackendError("rank " + std::to_string(rank_) + ": extrapolated steps: " + e.what());
  }
  return true;
}

}  // namespace ddl::sim
