// Plan files: a plan (algorithms/plan.hpp) as JSON, written by ddlplan and read by ddlsim and
// ddlrun for `--algo auto --plan FILE`:
//
//   {"format": "ddl-plan", "version": 1, "platform": "platforms/s822lc_64.xml", "ranks": 256,
//    "dims": "4x8x8", "collective": "allreduce",
//    "entries": [{"min_bytes": 8, "max_bytes": 262144, "algorithm": "rhd"}, ...],
//    "evidence": [{"bytes": 8, "algorithm": "rhd", "simulated_us": 20.1, "model_us": 20.1,
//                  "alpha_beta_us": 19.8, "candidates": 123, "simulated": 3}, ...]}
//
// `entries` is what auto uses: size ranges (inclusive) -> algorithm string, of `collective`
// (its auto reads the plan; absent in older files: allreduce). `evidence` records,
// per planned size, what the choice rests on; readers ignore it.
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "algorithms/plan.hpp"

namespace ddl {

struct PlanEvidence {
  std::size_t bytes = 0;
  std::string algorithm;       // the chosen one
  double simulated_us = 0;     // its simulated time
  double model_us = 0;         // its contention-aware price
  std::string alpha_beta;      // the plain α-β-γ model's argmin over the registered algorithms
  double alpha_beta_us = 0;    // that algorithm's simulated time (-1: not simulated)
  std::size_t candidates = 0;  // priced by the model
  std::size_t simulated = 0;   // confirmed by simulation
  // A measured plan's (real/mpi/measured_plan_cache.hpp): each candidate's time at this size on
  // the machine, in microseconds; empty for a simulated plan (and then not written).
  std::vector<std::pair<std::string, double>> measured_us;
};

struct PlanFile {
  std::string platform;
  std::string dims;
  Plan plan;
  std::vector<PlanEvidence> evidence;
};

// Throws InvalidArgument "plan file 'PATH': ..." naming the field for unreadable files, bad
// JSON, a missing or mistyped field, another format or version, or a plan that does not
// validate (Plan::validate).
PlanFile read_plan_file(const std::string& path);
// Writes atomically (harness/output_file.hpp).
void write_plan_file(const std::string& path, const PlanFile& file);

}  // namespace ddl
