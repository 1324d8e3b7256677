// allgather_hier: hier's allgather (allreduce_hier.cpp's vocabulary), the mirror of
// reduce_scatter_hier: every member hands its block to the node's leader in one step, the L
// leaders ring-allgather their nodes' shares (node k's share: its members' blocks of
// partition(S, p), contiguous), then each leader broadcasts the whole buffer inside its node
// (pipelined chain). Only the leaders' ring crosses the network, with S/L per step.
//
// Cost (c chunks, α0/β0 inside the node, α1/β1 between leaders):
//   α0 + (g - 1) S/p β0                                     the leader's gather    (g >= 2)
// + (L - 1)(α1 + S/L β1)                                    ring among the leaders
// + (g - 2 + c)(α0 + S/c β0)                                in-node chain broadcast (g >= 2)
#include "algorithms/collectives.hpp"
#include "algorithms/hier_steps.hpp"
#include "algorithms/ring_steps.hpp"
#include "algorithms/schedule_cost.hpp"
#include "algorithms/tree_steps.hpp"

namespace ddl {

namespace {

Schedule allgather_hier_steps(const Dims& dims, int rank, std::size_t count, std::size_t elem_size,
                              std::size_t chunk_bytes) {
  const Group node = hier_node(dims, rank), leaders = hier_leaders(dims, rank);
  const std::vector<Block> blocks =
      partition(count, static_cast<std::size_t>(dims.rank_count()), elem_size);
  Schedule s;
  if (node.size() > 1) s.push_back(hier_leader_step(node, rank, blocks, true));
  if (leaders.size() > 1) {
    if (node.me == 0) {
      const Schedule ring = ring_allgather(leaders, hier_node_blocks(dims, count, elem_size),
                                           hier_leaders_dimension(dims));
      s.insert(s.end(), ring.begin(), ring.end());
    } else {
      s.resize(s.size() + static_cast<std::size_t>(leaders.size() - 1));
    }
  }
  const Schedule bc =
      chain_broadcast(node, 0, Block{0, count * elem_size}, elem_size, chunk_bytes, 0);
  s.insert(s.end(), bc.begin(), bc.end());
  return s;
}

}  // namespace

void allgather_hier(Communicator& comm, MutView buf, DType type, ReduceOp op, const Options& opts) {
  (void)op;  // nothing is reduced
  const std::size_t count = element_count(buf, type);
  const Dims dims = effective_dims(opts, comm.size());
  if (comm.size() == 1 || count == 0) return;
  const Schedule s =
      allgather_hier_steps(dims, comm.rank(), count, dtype_size(type), opts.segment_bytes);
  execute(comm, buf, type, ReduceOp::sum, std::span(&s, 1), {opts.segment_bytes, opts.tag_base});
}

double allgather_hier_cost(const CostQuery& q) {
  const Dims grid = algorithm_grid(q);
  return price_schedules(q, [&](int r) {
    return std::vector<Schedule>{
        allgather_hier_steps(grid, r, q.bytes, 1, q.options.segment_bytes)};
  });
}

}  // namespace ddl
