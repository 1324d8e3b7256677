// The prices of an LLM step's communication on a platform, for the step timeline
// (workloads/llm/step_timeline.hpp): each distinct collective of the step (group kind,
// collective, bytes) timed with every group of that kind running it at once, and each distinct
// pipeline message (bytes) with every rank of every stage but the last sending one to its peer in
// the next stage at once. So a price holds the contention of its own kind on the platform's links:
// the 64 tensor-parallel allreduces of 512 GPUs inside their nodes, the data-parallel reductions
// of every tensor rank sharing the rails. The cases one after another in one simulation, every
// rank leaving a barrier together before each, or each in a simulation of its own beside the
// others; a case's price is the slowest rank's time in it.
// Timing-only; the collectives run the algorithms of PlayOptions, as play_step runs them.
#pragma once

#include <cstddef>
#include <map>
#include <tuple>
#include <vector>

#include "sim/platform.hpp"
#include "workloads/llm/step_player.hpp"

namespace ddl::sim {

class CommPrices {
 public:
  // The cases of `ops` (their communication ops; compute ops are left out).
  void add_cases(const std::vector<llm::Op>& ops);
  // Seconds of a communication op whose case was added and priced; std::out_of_range otherwise.
  double of(const llm::Op& op) const;
  std::size_t cases() const { return seconds_.size(); }

 private:
  friend CommPrices price_communication(const Platform&, const llm::ParallelLayout&, CommPrices,
                                        const llm::PlayOptions&, std::size_t, double);
  // (op kind, group kind, collective, bytes); a message's group and collective are unused.
  using Key = std::tuple<int, int, int, std::size_t>;
  static Key key(const llm::Op& op);
  std::map<Key, double> seconds_;
};

// Prices every case of `cases` on `platform` (its ranks the layout's GPUs). `parallel` <= 1: all
// in one run of this process's engine (once per process); else each case in a child process of
// its own (sim/isolated.hpp), `parallel` at once, each given `timeout_s` seconds.
CommPrices price_communication(const Platform& platform, const llm::ParallelLayout& layout,
                               CommPrices cases, const llm::PlayOptions& play,
                               std::size_t parallel = 1, double timeout_s = 0);

}  // namespace ddl::sim
