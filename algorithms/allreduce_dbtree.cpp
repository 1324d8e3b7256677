// dbtree: NCCL-style pipelined double binary tree allreduce.
//
// Vocabulary: two binary trees span all p ranks; the buffer is split into two *halves*
// (partition(count, 2)), tree h carries half h. Each half is cut into c *chunks*
// (Options::segment_bytes each, or by default min(8, half / 64 KiB) chunks, at least one).
// Chunks flow up a tree, every interior node reducing its children's chunk into its own, and
// flow back down from the root as soon as the root has them: at a *step* a node receives (and
// reduces) chunk k from its children while it sends chunk k-1 to its parent, receives chunk
// k' from its parent and sends chunk k'-1 to its children. Up and down traffic go the two
// directions of each link, so they overlap instead of running as two phases.
//
// Trees (NCCL's construction): tree 0 is the in-order binary tree rooted at 0 (odd ranks are
// leaves, even ranks interior); tree 1 is its mirror r -> p-1-r for even p or its shift
// r -> r+1 for odd p, so (apart from rank 0 when p is odd) every rank is interior in one tree
// and a leaf in the other, and no rank forwards more than one tree's traffic. Both trees have
// height H = ceil(log2 p).
//
// Schedules: a Step reduces all or none of its receives, so each tree is two schedules (up:
// reducing; down: plain), four in all, run together by the executor.
//
// Cost (lockstep, every step pays its largest transfer S/(2c)):
//   (c + 2H - 1) (α + S/(2c) β) + (c + H - 1) (S/c) γ
// (an interior node reduces two children's chunks per up step; for p = 2 the root has one
// child, so S/(2c)). When a rank's transfers share
// one link, a step moves up to four chunks each way per rank (parent and two children in its
// interior tree, parent in its leaf tree), so β's term is (c + 2H - 1) 2S/c β: 2 S β as c grows,
// like the ring, with 2H + c - 1 steps instead of 2(p - 1).
#include "algorithms/allreduce_dbtree.hpp"

#include <algorithm>

#include "algorithms/collectives.hpp"
#include "algorithms/schedule_cost.hpp"

namespace ddl {

int BinaryTree::height() const {
  return depth.empty() ? 0 : *std::max_element(depth.begin(), depth.end());
}

namespace {

// Fill children and depth from parent.
void link(BinaryTree& tree) {
  const std::size_t p = tree.parent.size();
  tree.children.assign(p, {});
  tree.depth.assign(p, 0);
  for (std::size_t r = 0; r < p; ++r)
    if (tree.parent[r] >= 0)
      tree.children[static_cast<std::size_t>(tree.parent[r])].push_back(static_cast<int>(r));
  for (std::size_t r = 0; r < p; ++r)
    for (int up = tree.parent[r]; up >= 0; up = tree.parent[static_cast<std::size_t>(up)])
      ++tree.depth[r];
}

// The tree of `base` with every rank renamed by `rename` (a permutation of 0..p-1).
template <typename Rename>
BinaryTree renamed(const BinaryTree& base, Rename rename) {
  BinaryTree tree;
  const int p = static_cast<int>(base.parent.size());
  tree.root = rename(base.root);
  tree.parent.assign(base.parent.size(), -1);
  for (int r = 0; r < p; ++r) {
    const int up = base.parent[static_cast<std::size_t>(r)];
    tree.parent[static_cast<std::size_t>(rename(r))] = up < 0 ? -1 : rename(up);
  }
  link(tree);
  return tree;
}

}  // namespace

BinaryTree nccl_btree(int ranks) {
  DDL_CHECK(ranks >= 1, "a tree needs at least one rank");
  BinaryTree tree;
  tree.parent.assign(static_cast<std::size_t>(ranks), -1);
  // A rank's parent has a higher lowest set bit (0 is the root): xx01[0] -> xx10[0], or
  // xx00[0] when xx10[0] is out of range; xx11[0] -> xx10[0].
  for (int r = 1; r < ranks; ++r) {
    const int bit = r & -r;
    int up = (r ^ bit) | (bit << 1);
    if (up >= ranks) up = r ^ bit;
    tree.parent[static_cast<std::size_t>(r)] = up;
  }
  link(tree);
  return tree;
}

std::array<BinaryTree, 2> double_binary_tree(int ranks) {
  const BinaryTree first = nccl_btree(ranks);
  if (ranks % 2 == 0) return {first, renamed(first, [ranks](int r) { return ranks - 1 - r; })};
  return {first, renamed(first, [ranks](int r) { return (r + 1) % ranks; })};
}

std::vector<Block> dbtree_chunks(Block half, std::size_t elem_size, std::size_t chunk_bytes) {
  DDL_CHECK(elem_size > 0 && half.bytes % elem_size == 0, "half is not a whole number of elements");
  const std::size_t elements = half.bytes / elem_size;
  if (elements == 0) return {};
  std::size_t chunks;
  if (chunk_bytes > 0) {
    const std::size_t per_chunk = std::max<std::size_t>(1, chunk_bytes / elem_size);
    chunks = (elements + per_chunk - 1) / per_chunk;
  } else {
    chunks = std::clamp<std::size_t>(half.bytes / kDbtreeMinChunkBytes, 1, kDbtreeChunks);
  }
  return partition(half, std::min(chunks, elements), elem_size);
}

std::array<Schedule, 2> tree_allreduce_steps(const BinaryTree& tree, int rank,
                                             const std::vector<Block>& chunks) {
  DDL_CHECK(rank >= 0 && static_cast<std::size_t>(rank) < tree.parent.size(),
            "tree rank out of range");
  const int height = tree.height();
  const int c = static_cast<int>(chunks.size());
  std::array<Schedule, 2> flow;  // {up, down}
  if (c == 0 || height == 0) return flow;
  const std::size_t steps = static_cast<std::size_t>(c + 2 * height - 1);
  const auto me = static_cast<std::size_t>(rank);
  const int d = tree.depth[me], parent = tree.parent[me];
  flow[0].resize(steps);
  flow[1].resize(steps);
  for (Step& s : flow[0]) s = Step{{}, {}, true, "tree_reduce", -1};
  for (Step& s : flow[1]) s = Step{{}, {}, false, "tree_broadcast", -1};
  auto at = [](Schedule& s, int t) -> Step& { return s[static_cast<std::size_t>(t)]; };
  for (int k = 0; k < c; ++k) {
    const Block& b = chunks[static_cast<std::size_t>(k)];
    if (parent >= 0) {
      at(flow[0], k + height - d).sends.push_back({parent, b.offset, b.bytes});
      at(flow[1], k + height + d - 1).recvs.push_back({parent, b.offset, b.bytes});
    }
    for (const int child : tree.children[me]) {
      at(flow[0], k + height - d - 1).recvs.push_back({child, b.offset, b.bytes});
      at(flow[1], k + height + d).sends.push_back({child, b.offset, b.bytes});
    }
  }
  return flow;
}

std::vector<Schedule> dbtree_schedules(int ranks, int rank, std::size_t count,
                                       std::size_t elem_size, std::size_t chunk_bytes) {
  const std::array<BinaryTree, 2> trees = double_binary_tree(ranks);
  const std::vector<Block> halves = partition(count, 2, elem_size);
  std::vector<Schedule> schedules;
  for (std::size_t h = 0; h < 2; ++h) {
    std::array<Schedule, 2> flow =
        tree_allreduce_steps(trees[h], rank, dbtree_chunks(halves[h], elem_size, chunk_bytes));
    schedules.push_back(std::move(flow[0]));
    schedules.push_back(std::move(flow[1]));
  }
  return schedules;
}

void allreduce_dbtree(Communicator& comm, MutView buf, DType type, ReduceOp op,
                      const Options& opts) {
  const std::size_t count = element_count(buf, type);
  if (comm.size() == 1 || buf.bytes == 0) return;
  const std::vector<Schedule> schedules =
      dbtree_schedules(comm.size(), comm.rank(), count, dtype_size(type), opts.segment_bytes);
  // The chunks are the pipeline's segments already: the executor need not cut them again.
  execute(comm, buf, type, reduction_op(op), schedules, {0, opts.tag_base});
  finish_average(comm, buf, type, op, static_cast<std::size_t>(comm.size()));
}

double allreduce_dbtree_cost(const CostQuery& q) {
  const int p = q.dims.rank_count();
  return price_schedules(
      q, [&](int r) { return dbtree_schedules(p, r, q.bytes, 1, q.options.segment_bytes); });
}

}  // namespace ddl
