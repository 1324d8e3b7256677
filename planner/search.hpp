// The planner's search as stages, each callable alone (ddlplan calls them in this order):
//   1. shortlist: every base candidate priced at a few anchor sizes; the best `keep` at each,
//      with their variants, and the every-size names (candidates.hpp) make the shortlist;
//   2. confirmation_trials: the shortlist priced at every size; per size the best `confirm`
//      (and those priced within kModelTie) and the plain α-β-γ argmin are to be simulated;
//   3. simulate_pending: what is not simulated yet, through a Simulator (simulate.hpp's
//      child processes, or ddlplan's share of them under mpirun);
//   4. add_segment_variants, then simulate_pending again: segment sizes on each size's fastest
//      kSegmentBases (the model does not see the executor's segments);
//   5. choose_plan: per size the fastest simulated, as a plan file with its evidence.
#pragma once

#include <cstddef>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "planner/candidates.hpp"
#include "planner/plan_file.hpp"
#include "planner/pricing.hpp"
#include "planner/simulate.hpp"

namespace ddl::planner {

// Simulated times this close count as a tie (the simulation is deterministic: no noise).
constexpr double kTie = 0.001;
// Per size, the fastest simulated candidates whose segmented variants are simulated too.
constexpr std::size_t kSegmentBases = 2;

// One size's candidates to simulate: their model prices (us) and, once simulated, their times
// (s), in the same order; `simulated_s` is shorter while some are still to be simulated.
struct SizeTrial {
  std::size_t bytes = 0;
  std::vector<std::string> algorithms;
  std::vector<double> model_us;
  std::vector<double> simulated_s;
  std::string alpha_beta;  // the plain α-β-γ argmin, among `algorithms`
};

// The simulated times (s) of each job's algorithms, in order.
using Simulator =
    std::function<std::vector<std::vector<double>>(const std::vector<SimulationJob>& jobs)>;

// Four sizes spread over `sizes` (ascending; fewer when they coincide): the rankings at
// neighbouring sizes differ little, latency-bound at one end, bandwidth-bound at the other.
std::vector<std::size_t> anchor_sizes(const std::vector<std::size_t>& sizes);

// Stage 1. `priced(bytes)` is called after each anchor.
std::set<std::string> shortlist(const Pricing& pricing, const std::vector<std::string>& candidates,
                                const std::vector<std::size_t>& anchors, std::size_t keep,
                                const SearchSpace& space,
                                const std::function<void(std::size_t bytes)>& priced = {});

// Stage 2: one trial per size, nothing simulated yet.
std::vector<SizeTrial> confirmation_trials(const Pricing& pricing,
                                           const std::set<std::string>& shortlisted,
                                           const std::vector<std::size_t>& sizes,
                                           std::size_t confirm);

// The algorithms of each trial still to simulate, one job per such size.
std::vector<SimulationJob> pending_jobs(const std::vector<SizeTrial>& trials);
// Stages 3 and 4: simulates the pending algorithms and records their times.
void simulate_pending(std::vector<SizeTrial>& trials, const Simulator& simulate);

// Stage 4: the segmented variants of each simulated trial's fastest kSegmentBases join it,
// priced, to be simulated; returns how many joined.
std::size_t add_segment_variants(std::vector<SizeTrial>& trials, const Pricing& pricing,
                                 const SearchSpace& space);

// Stage 5: per size the fastest simulated; within kTie of it the shortest string (then the
// alphabetically first) wins: at latency-bound sizes many grids tie with rhd, and a plan that flips
// between equals at every size reads worse. `candidates`: how many the model priced (the
// evidence). Every trial must be simulated. The plan file's platform and dims are the caller's;
// its plan is `collective`'s.
PlanFile choose_plan(const std::vector<SizeTrial>& trials, int ranks, std::size_t candidates,
                     Collective collective = Collective::allreduce);

}  // namespace ddl::planner
