// ring: bandwidth-optimal allreduce over all p ranks in rank order.
//
// A reduce-scatter (p-1 steps: each rank sends one block of S/p bytes to its successor and
// reduces the block it receives) followed by an allgather (p-1 steps, no reduction). With
// segmenting, each block transfer is split into segments whose reductions overlap the rest.
// With channels = C (channels.hpp) C such rings run side by side on S/C each, channel c in an
// order that leaves every node through its own GPU's NIC: a node's C NICs carry the rings
// where one ring crosses one NIC.
//
// Cost: 2(p-1) α + 2 (p-1)/p S β + (p-1)/p S γ, where α, β belong to the slowest link the
// ring crosses (every step waits for its slowest transfer). With C channels each link class's
// β is that of the C routes sharing it: between nodes a NIC's, not a node's C-th of one.
#include "algorithms/channels.hpp"
#include "algorithms/collectives.hpp"
#include "algorithms/ring_steps.hpp"
#include "algorithms/schedule_cost.hpp"

namespace ddl {

void allreduce_ring(Communicator& comm, MutView buf, DType type, ReduceOp op, const Options& opts) {
  const std::size_t count = element_count(buf, type);
  // Nodes are the grid's innermost dimension; one channel is the ring in rank order whatever
  // the grid, so the grid is read only for more.
  const int node = opts.channels > 1 ? effective_dims(opts, comm.size()).extent(0) : comm.size();
  const std::vector<RingLane> lanes =
      channel_lanes(comm.size(), node, opts.channels, comm.rank(), count, dtype_size(type));
  if (comm.size() == 1 || buf.bytes == 0) return;
  const ExecOptions exec{opts.segment_bytes, opts.tag_base};
  run_rings(comm, buf, type, reduction_op(op), lanes, true, exec);
  run_rings(comm, buf, type, reduction_op(op), lanes, false, exec);
  finish_average(comm, buf, type, op, static_cast<std::size_t>(comm.size()));
}

double allreduce_ring_cost(const CostQuery& q) {
  const int p = q.dims.rank_count();
  const int node = q.options.channels > 1 ? algorithm_grid(q).extent(0) : p;
  return price_schedules(q, [&](int r) {
    std::vector<Schedule> channels;
    for (const RingLane& lane : channel_lanes(p, node, q.options.channels, r, q.bytes, 1)) {
      Schedule s = ring_reduce_scatter(lane.group, lane.range, 1, -1);
      const Schedule ag = ring_allgather(lane.group, lane.range, 1, -1);
      s.insert(s.end(), ag.begin(), ag.end());
      channels.push_back(std::move(s));
    }
    return channels;
  });
}

}  // namespace ddl
