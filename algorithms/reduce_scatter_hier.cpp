// reduce_scatter_hier: hier's reduce-scatter (allreduce_hier.cpp's vocabulary): reduce the whole
// buffer inside the node to its leader (pipelined chain), ring reduce-scatter among the L
// leaders over their nodes' shares (node k's share: its members' blocks of partition(S, p),
// contiguous), then each leader hands its members their blocks in one step. For machines whose
// nodes reach the network through one port: only the leaders' ring crosses it, with S/L each.
//
// Cost (c chunks, α0/β0 inside the node, α1/β1 between leaders):
//   (g - 2 + c)(α0 + S/c (β0 + γ))                         in-node chain reduce   (g >= 2)
// + (L - 1)(α1 + S/L (β1 + γ))                              ring among the leaders
// + α0 + (g - 1) S/p β0                                     the leader's scatter   (g >= 2)
#include "algorithms/collectives.hpp"
#include "algorithms/hier_steps.hpp"
#include "algorithms/ring_steps.hpp"
#include "algorithms/schedule_cost.hpp"
#include "algorithms/tree_steps.hpp"

namespace ddl {

namespace {

Schedule reduce_scatter_hier_steps(const Dims& dims, int rank, std::size_t count,
                                   std::size_t elem_size, std::size_t chunk_bytes) {
  const Group node = hier_node(dims, rank), leaders = hier_leaders(dims, rank);
  const std::vector<Block> blocks =
      partition(count, static_cast<std::size_t>(dims.rank_count()), elem_size);
  Schedule s = chain_reduce(node, 0, Block{0, count * elem_size}, elem_size, chunk_bytes, 0);
  if (leaders.size() > 1) {
    if (node.me == 0) {
      const Schedule ring = ring_reduce_scatter(leaders, hier_node_blocks(dims, count, elem_size),
                                                hier_leaders_dimension(dims));
      s.insert(s.end(), ring.begin(), ring.end());
    } else {
      s.resize(s.size() + static_cast<std::size_t>(leaders.size() - 1));
    }
  }
  if (node.size() > 1) s.push_back(hier_leader_step(node, rank, blocks, false));
  return s;
}

}  // namespace

void reduce_scatter_hier(Communicator& comm, MutView buf, DType type, ReduceOp op,
                         const Options& opts) {
  const std::size_t count = element_count(buf, type), elem = dtype_size(type);
  const Dims dims = effective_dims(opts, comm.size());
  if (comm.size() == 1 || count == 0) return;
  const Schedule s = reduce_scatter_hier_steps(dims, comm.rank(), count, elem, opts.segment_bytes);
  execute(comm, buf, type, reduction_op(op), std::span(&s, 1), {opts.segment_bytes, opts.tag_base});
  const Block mine = partition(count, static_cast<std::size_t>(comm.size()),
                               elem)[static_cast<std::size_t>(comm.rank())];
  finish_average(comm, buf.slice(mine.offset, mine.bytes), type, op,
                 static_cast<std::size_t>(comm.size()));
}

double reduce_scatter_hier_cost(const CostQuery& q) {
  const Dims grid = algorithm_grid(q);
  return price_schedules(q, [&](int r) {
    return std::vector<Schedule>{
        reduce_scatter_hier_steps(grid, r, q.bytes, 1, q.options.segment_bytes)};
  });
}

}  // namespace ddl
