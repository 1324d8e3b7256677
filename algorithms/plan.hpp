// A plan: which algorithm string (algorithm_spec.hpp) `auto` runs at which size, made ahead
// of time (by ddlplan from simulations, or by a tool from the contention-aware model over its
// sweep's sizes) and consulted by `auto` instead of the cost model. Plan files are JSON
// (planner/plan_file.hpp); this is the in-memory form, pure.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "algorithms/collective.hpp"

namespace ddl {

struct PlanEntry {
  std::size_t min_bytes = 0;  // inclusive
  std::size_t max_bytes = 0;  // inclusive
  std::string algorithm;      // an algorithm string
  bool operator==(const PlanEntry&) const = default;
};

struct Plan {
  int ranks = 0;                   // the world the plan was made for
  std::vector<PlanEntry> entries;  // ascending, disjoint
  // Whose auto runs it: the allreduce's (plan files are), or another collective's
  // (collective_auto.cpp; the simulator's contention-aware picks for a sweep).
  Collective collective = Collective::allreduce;

  // Throws InvalidArgument (naming the entry) unless ranks >= 1, there is at least one entry,
  // min <= max in each, the entries ascend without overlap and each algorithm string parses
  // to an algorithm of `collective` other than its auto.
  void validate() const;
  // The entry for `bytes`: the one containing it; in a gap or beyond the ends, the one below
  // (the first below them all). Requires a validated plan.
  const PlanEntry& entry_for(std::size_t bytes) const;
};

// Consecutive sizes with the same algorithm merged into one entry: `choices[i]` for sizes[i]
// (ascending); each entry spans from its first size to its last.
Plan plan_from_choices(int ranks, const std::vector<std::size_t>& sizes,
                       const std::vector<std::string>& choices,
                       Collective collective = Collective::allreduce);

}  // namespace ddl
