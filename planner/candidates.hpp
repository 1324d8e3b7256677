// What the planner searches: every allreduce algorithm string worth pricing for a world of
// `ranks` ranks. Pure (no backend), so the space is tested alone.
#pragma once

#include <string>
#include <vector>

namespace ddl {

struct SearchSpace {
  int max_dims = 4;              // ddl's grids: every ordered factorization into <= max_dims
  std::vector<int> rings{1, 2};  // ddl's ring counts (above 1 only for grids of >= 2 dims)
  bool both_orders = true;       // halving-doubling near-first and far-first
};

// ring, rhd (both orders), dbtree, hier (on the tool's grid), and ddl over every factorization
// x per-dimension method (hd only on power-of-two extents) x rings x order (where hd occurs),
// as canonical algorithm strings; no duplicates.
std::vector<std::string> candidate_algorithms(int ranks, const SearchSpace& space);

// The variants of one candidate that `space` adds to its base form (rings 1, near-first): the
// same algorithm with each other ring count (ddl on >= 2 dims) and far-first (where
// halving-doubling occurs), alone and combined. The planner prices the base space first and
// only the variants of what survives, since rings and order refine a grid and method choice.
std::vector<std::string> candidate_variants(const std::string& algo, const SearchSpace& space);

}  // namespace ddl
