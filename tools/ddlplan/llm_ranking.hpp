// ddlplan --workload's report: each predicted layout's figures, the ranking's table (the best
// rows by step time) and its CSV (every row).
#pragma once

#include <cstddef>
#include <ostream>
#include <string>
#include <vector>

#include "workloads/llm/layout.hpp"
#include "workloads/llm/step_player.hpp"

namespace ddl::planner {

struct RankedLayout {
  llm::ParallelLayout layout;
  double step_s = 0, tokens_per_s = 0, mfu = 0;  // mfu: a fraction
  // The slowest stage's (its first rank's): compute and exposed time by cause.
  std::size_t slowest_stage = 0;
  double compute_s = 0, exposed_pp_s = 0, exposed_tp_s = 0, exposed_dp_s = 0, exposed_ep_s = 0;
  double memory_bytes = 0;  // a GPU of the fullest stage
};

// A prediction's figures as its child process sends them back: the step, its slowest stage, that
// stage's compute and exposed pp, tp, dp and ep seconds; and the RankedLayout filled from them
// (tokens/s, MFU and memory are the parent's: they need no simulation).
inline constexpr std::size_t kPredictionValues = 7;
std::vector<double> prediction_values(const std::vector<llm::PlayedStep>& stages);
void read_prediction(const std::vector<double>& values, RankedLayout& into);

// The best `top` rows (sorted already): layout, step_s, tokens_per_s, mfu_%, the slowest
// stage, its compute and exposed seconds, the fullest stage's memory in GB.
void print_ranking(std::ostream& out, const std::vector<RankedLayout>& rows, std::size_t top);

// Every row, with a header row; the layout quoted (it holds commas). All or nothing.
void write_ranking_csv(const std::string& path, const std::vector<RankedLayout>& rows);

}  // namespace ddl::planner
