// What the planner searches: every allreduce algorithm string worth pricing for a world of
// `ranks` ranks. Pure (no backend), so the space is tested alone.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace ddl {

struct SearchSpace {
  int max_dims = 4;              // ddl's grids: every ordered factorization into <= max_dims
  std::vector<int> rings{1, 2};  // ddl's ring counts (above 1 only for grids of >= 2 dims)
  bool both_orders = true;       // halving-doubling near-first and far-first
};

// ring, rhd (both orders), dbtree, hier (on the tool's grid), and ddl over every factorization
// x per-dimension method (hd only on power-of-two extents above 2) x rings x order (where hd
// occurs), as canonical algorithm strings; no duplicates.
std::vector<std::string> candidate_algorithms(int ranks, const SearchSpace& space);

// The variants of one candidate that `space` adds to its base form (rings 1, near-first): the
// same algorithm with each other ring count (ddl on >= 2 dims) and far-first (where
// halving-doubling occurs), alone and combined. The planner prices the base space first and
// only the variants of what survives, since rings and order refine a grid and method choice.
std::vector<std::string> candidate_variants(const std::string& algo, const SearchSpace& space);

// How many of a size's candidates, priced by the model in ascending order, are simulated: the
// best `confirm`, and those priced within kModelTie of the `confirm`-th, at most kMaxConfirm in
// all. The model prices many candidates alike (latency-bound sizes, grids that differ only where
// the slowest link does not see it) where the simulation still tells them apart by a few %
// (`ddl:4x16:ring,hd` on s822lc_16 at 256 KB: priced 1.1 % above rhd, simulated 2.6 % below).
constexpr double kModelTie = 0.02;
constexpr std::size_t kMaxConfirm = 50;
std::size_t confirmed_count(const std::vector<double>& ascending_prices, std::size_t confirm);

}  // namespace ddl
