// hier: Horovod-style hierarchical allreduce: reduce inside the node to its leader, ring
// allreduce among the leaders, broadcast inside the node from the leader.
//
// Vocabulary: with dims = effective_dims(opts, p) = d1 x d2 x ..., a *node* is one group of
// dimension 0 (d1 = g ranks, the GPUs of one machine) and its *leader* is the member with
// coordinate 0 in that dimension; the L = p / g leaders (every rank with coordinate 0 in
// dimension 0, ordered by rank) form one ring whatever the outer dimensions are. dims = {p}
// is one node: hier degenerates to reduce + broadcast inside it; dims = 1 x p makes every rank
// a leader: hier is the plain ring. A *chunk* is the unit of the in-node chains
// (Options::segment_bytes, else kDefaultChainChunks chunks; see chain_chunks()); a *block* is
// the leaders' ring unit, S/L bytes; *segments* split every transfer inside the executor.
//
// In-node method: a pipelined chain, not a binomial tree. For g = 4 and c = 8 chunks the chain
// reduce costs 10 (α0 + S/8 (β0 + γ)) against the tree's 2 (α0 + S (β0 + γ)): the chain wins
// once S > 10.7 α0 / (β0 + γ), about 2 MB on NVLink (α0 = 5 us, 40 GB/s, γ = 1/244 GB/s), and
// gradient buckets are larger. On a Minsky node the chain 0-1-2-3 also crosses the X-bus with
// one flow per direction, where the tree's second step sends 0->2 and 1->3 across it at once.
//
// Phases in one schedule, one execute() call, one tag (opts.tag_base): each rank posts its
// transfers in schedule order, and per ordered pair (sender, receiver) both sides list the same
// transfers in the same order, so FIFO matching per (peer, tag) pairs them correctly across
// phases. (No pair even occurs in two phases in the same direction: in-node reduce flows toward
// the leader, broadcast away from it, and the ring joins ranks of different nodes.) Non-leaders
// carry empty steps during the ring, which keeps all ranks in lockstep.
//
// Cost (c chunks, α0/β0 inside the node, α2/β2 the slowest link between leaders):
//   (g - 2 + c)(α0 + S/c (β0 + γ))                   in-node chain reduce      (g >= 2)
// + 2 (L-1)(α2 + S/L β2) + (L-1)/L S γ               ring among the leaders
// + (g - 2 + c)(α0 + S/c β0)                         in-node chain broadcast   (g >= 2)
// avg is reduced as sum and divided by p once at the end.
#include "algorithms/collectives.hpp"
#include "algorithms/hier_steps.hpp"
#include "algorithms/ring_steps.hpp"
#include "algorithms/schedule_cost.hpp"
#include "algorithms/tree_steps.hpp"

namespace ddl {

Group hier_node(const Dims& dims, int rank) {
  return Group{dims.group(rank, 0), dims.coords(rank)[0]};
}

Group hier_leaders(const Dims& dims, int rank) {
  const int g = dims.extent(0);
  Group leaders{{}, rank / g};
  for (int r = 0; r < dims.rank_count(); r += g) leaders.ranks.push_back(r);
  return leaders;
}

int hier_leaders_dimension(const Dims& dims) {
  int found = -1;
  for (int d = 1; d < dims.count(); ++d) {
    if (dims.extent(d) == 1) continue;
    if (found != -1) return -1;
    found = d;
  }
  return found;
}

std::vector<Block> hier_node_blocks(const Dims& dims, std::size_t count, std::size_t elem_size) {
  const int g = dims.extent(0), p = dims.rank_count();
  const std::vector<Block> blocks = partition(count, static_cast<std::size_t>(p), elem_size);
  std::vector<Block> nodes;
  for (int first = 0; first < p; first += g) {
    const Block& last = blocks[static_cast<std::size_t>(first + g - 1)];
    const std::size_t begin = blocks[static_cast<std::size_t>(first)].offset;
    nodes.push_back({begin, last.offset + last.bytes - begin});
  }
  return nodes;
}

Step hier_leader_step(const Group& node, int rank, const std::vector<Block>& blocks,
                      bool to_leader) {
  Step step;
  step.phase = to_leader ? "gather" : "scatter";
  step.dimension = 0;
  auto transfer = [&](int member) {
    const Block& b = blocks[static_cast<std::size_t>(member)];
    return Transfer{member, b.offset, b.bytes};
  };
  if (node.me == 0) {
    for (int k = 1; k < node.size(); ++k)
      (to_leader ? step.recvs : step.sends).push_back(transfer(node.at(k)));
  } else {
    Transfer mine = transfer(rank);
    mine.peer = node.at(0);
    (to_leader ? step.sends : step.recvs).push_back(mine);
  }
  return step;
}

Schedule hier_allreduce(const Dims& dims, int rank, Block range, std::size_t elem_size,
                        std::size_t chunk_bytes) {
  const Group node = hier_node(dims, rank);
  const Group leaders = hier_leaders(dims, rank);
  Schedule s = chain_reduce(node, 0, range, elem_size, chunk_bytes, 0);
  if (leaders.size() > 1 && range.bytes > 0) {
    if (node.me == 0) {
      const int dim = hier_leaders_dimension(dims);
      const Schedule rs = ring_reduce_scatter(leaders, range, elem_size, dim);
      const Schedule ag = ring_allgather(leaders, range, elem_size, dim);
      s.insert(s.end(), rs.begin(), rs.end());
      s.insert(s.end(), ag.begin(), ag.end());
    } else {
      s.resize(s.size() + 2 * static_cast<std::size_t>(leaders.size() - 1));
    }
  }
  const Schedule bc = chain_broadcast(node, 0, range, elem_size, chunk_bytes, 0);
  s.insert(s.end(), bc.begin(), bc.end());
  return s;
}

void allreduce_hier(Communicator& comm, MutView buf, DType type, ReduceOp op, const Options& opts) {
  element_count(buf, type);
  const Dims dims = effective_dims(opts, comm.size());
  if (comm.size() == 1 || buf.bytes == 0) return;
  const Schedule s =
      hier_allreduce(dims, comm.rank(), Block{0, buf.bytes}, dtype_size(type), opts.segment_bytes);
  execute(comm, buf, type, reduction_op(op), std::span(&s, 1), {opts.segment_bytes, opts.tag_base});
  finish_average(comm, buf, type, op, static_cast<std::size_t>(comm.size()));
}

double allreduce_hier_cost(const CostQuery& q) {
  const Dims grid = algorithm_grid(q);
  return price_schedules(q, [&](int r) {
    return std::vector<Schedule>{
        hier_allreduce(grid, r, Block{0, q.bytes}, 1, q.options.segment_bytes)};
  });
}

}  // namespace ddl
