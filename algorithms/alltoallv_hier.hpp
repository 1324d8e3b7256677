// alltoallv_hier: the two-level all-to-all-v of mixture-of-experts layers across nodes, with a
// count per peer (alltoall_hier.cpp's two phases for blocks of any length).
//
// Vocabulary: the grid g x N (Options::dims: g = its innermost extent, the GPUs of a node),
// rank r = l + g n (local index l on node n); rank (x, m) = x + g m. Rank (l, n):
//   counts:  one step in the node: it tells each member (x, n) how many elements it sends to
//            (x, m) for every node m (N counts), and learns the same from each member; with
//            them every receive below has its length (its own receive counts give the rest);
//   phase 1: g-1 pairwise steps in the node; at step k it sends (l+k, n) its blocks for
//            (l+k, m), every m, straight from its input, one message each, and receives
//            (l-k, n)'s blocks for (l, m) into its staging buffer (member-major: [x][m]);
//            its own blocks for (l, m) are copied there;
//   phase 2: N-1 pairwise steps on the rail; at step k it sends (l, n+k) the g staged blocks for
//            it and receives (l, n-k)'s g blocks, each straight into its place in the output;
//            the staged blocks for its own node are copied out.
// Messages per rank: g-1 + (g-1)N in the node, (N-1)g on the rail, where pairwise sends p-1
// that all cross the network but g-1: the network carries the same bytes in N-1 steps instead
// of p-g, each step one rail peer's g blocks back to back.
//
// Cost: α_0 + (g-1)(α_0 + N B β_0) + (N-1)(α_1 + g B β_1) + 2/3 γ (the staging copies), B a
// block, each step priced at its longest as the schedules are.
#pragma once

#include <cstddef>
#include <utility>
#include <vector>

#include "algorithms/alltoallv.hpp"

namespace ddl {

// Rank r's phases once the counts are known: `from_node[x][m]` = elements node member (x, n)
// sends rank (l, m) (row l: this rank's own send counts).
struct AlltoallvHierPlan {
  Schedule phase1;  // sends read the input, receives write the staging buffer
  Schedule phase2;  // sends read the staging buffer, receives write the output
  // Local copies (byte ranges): input -> staging before phase 1, staging -> output after it.
  std::vector<std::pair<Block, Block>> stage, unstage;
  std::size_t staging_bytes = 0;
};
AlltoallvHierPlan alltoallv_hier_plan(int g, int p, int r, const AlltoallvLayout& send,
                                      const AlltoallvLayout& recv,
                                      const std::vector<std::vector<std::size_t>>& from_node,
                                      std::size_t elem_size);

// Runs it (alltoallv() with AlltoallvAlgorithm::hier): the counts' step, then the phases.
// `every_send_counts` (rank q's send counts at [q]): where the caller knows them, they stand in
// for the values the counts' step delivers (its messages are still sent): the simulator's
// timing-only mode moves no payload.
void alltoallv_hier(Communicator& comm, ConstView input, const AlltoallvLayout& send,
                    MutView output, const AlltoallvLayout& recv, DType type, const Options& opts,
                    const EverySendCounts* every_send_counts);

// Its price on the query's network (alltoallv_cost with AlltoallvAlgorithm::hier).
double alltoallv_hier_cost(const CostQuery& q, std::size_t elem_size,
                           const AlltoallvLayouts& layouts);

}  // namespace ddl
