// What the planner searches: every algorithm string of a collective worth pricing for a world
// of `ranks` ranks, taken from the registry (algorithms/registry.hpp): each algorithm's PlanRole
// says whether it is a candidate and whether its grids are searched, its SpecField bits which
// variants it has. Pure (no backend), so the space is tested alone.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "algorithms/collective.hpp"
#include "algorithms/dims.hpp"

namespace ddl {

struct SearchSpace {
  int max_dims = 4;              // grids: every ordered factorization into <= max_dims
  std::vector<int> rings{1, 2};  // ring counts (above 1 only for grids of >= 2 dims)
  bool both_orders = true;       // halving-doubling near-first and far-first
  // Channel counts above 1 (kSpecChannels: ring); the tools give a node's GPU count, so each
  // channel leaves a node through its own NIC (algorithms/channels.hpp).
  std::vector<int> channels{};
  // Chunk counts above 1 (kSpecChunks: ddl pipelined, on its own grid of >= 2 dims).
  std::vector<int> chunks{4, 16};
  // Segment sizes (Options::segment_bytes) tried on the best simulated candidates of a size.
  std::vector<std::size_t> segments{std::size_t{64} << 10, std::size_t{256} << 10,
                                    std::size_t{1} << 20, std::size_t{4} << 20};
};

// In registry order: the name of every kPlanPlain algorithm of `collective`, then their
// variants, then every kPlanGrids one over every factorization x per-dimension method (hd only on
// power-of-two extents above 2: on 2 ranks it is ring's one exchange of halves) x rings x order
// (where hd occurs), as canonical algorithm strings; no duplicates. On one rank every allreduce
// returns at once: the first candidate alone.
std::vector<std::string> candidate_algorithms(int ranks, const SearchSpace& space,
                                              Collective collective = Collective::allreduce);

// The variants of one candidate that `space` adds to its base form (rings 1, near-first): the
// same algorithm with each other ring count (kSpecRings, on its own grid of >= 2 dims) and
// far-first (kSpecOrder, where halving-doubling occurs), alone and combined; and each channel
// count (kSpecChannels) and chunk count (kSpecChunks, on a grid of >= 2 dims) alone. The planner
// prices the base space first and only the variants of what survives, since rings and order refine
// a grid and method choice.
std::vector<std::string> candidate_variants(const std::string& algo, const SearchSpace& space);

// The names priced at every size whatever the anchors ranked (kPlanEverySize), in registry order.
std::vector<std::string> every_size_candidates(Collective collective = Collective::allreduce);

// An upper bound of the largest transfer one rank makes in `algo`'s allreduce of `bytes` on the
// machine grid `grid`: the algorithm's registered TransferFn with the string's fields applied,
// or the whole buffer for an algorithm that registers none.
std::size_t largest_transfer(const std::string& algo, const Dims& grid, std::size_t bytes);

// Segment sizes tried per candidate: the largest ones below its largest transfer. The executor
// keeps two segments in flight, so a few segments already hide most of a transfer's reduction,
// while every further one adds a message (and simulation time: 64 KB segments of ddl's 64 MB
// pieces at 256 ranks took minutes).
constexpr std::size_t kSegmentVariants = 2;

// The segmented variants of `algo` at `bytes`: `algo` with the kSegmentVariants largest of
// space.segments below its largest transfer (a segment at least that large cuts nothing),
// ascending; none when `algo` names a segment already. The model does not price the
// executor's segments (every transfer cut and pipelined against its reduction: the same
// schedule), so segment sizes are settled by simulation, on the best few candidates a size's
// first simulation found.
std::vector<std::string> segment_variants(const std::string& algo, const Dims& grid,
                                          std::size_t bytes, const SearchSpace& space);

// How many of a size's candidates, priced by the model in ascending order, are simulated: the
// best `confirm`, and those priced within kModelTie of the `confirm`-th, at most kMaxConfirm in
// all. The model prices many candidates alike (latency-bound sizes, grids that differ only where
// the slowest link does not see it) where the simulation still tells them apart by a few %
// (`ddl:4x16:ring,hd` on s822lc_16 at 256 KB: priced 1.1 % above rhd, simulated 2.6 % below).
constexpr double kModelTie = 0.02;
constexpr std::size_t kMaxConfirm = 50;
std::size_t confirmed_count(const std::vector<double>& ascending_prices, std::size_t confirm);

}  // namespace ddl
