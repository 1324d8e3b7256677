#include "algorithms/ring_steps.hpp"

#include <algorithm>

namespace ddl {

namespace {

Transfer block_transfer(const std::vector<Block>& blocks, const Group& group, int index, int peer) {
  const int g = group.size();
  const Block& b = blocks[static_cast<std::size_t>(((index % g) + g) % g)];
  return {peer, b.offset, b.bytes};
}

Schedule ring_steps(const Group& group, const std::vector<Block>& blocks, int dimension,
                    bool reduce_scatter, StepWindow window) {
  const int g = group.size(), i = group.me;
  Schedule steps;
  if (g <= 1) return steps;
  const int next = group.at(i + 1), prev = group.at(i - 1);
  // Reduce-scatter at step s sends block i-s-1; allgather sends block i-s (its own first).
  const int lead = reduce_scatter ? 1 : 0;
  const std::size_t total = static_cast<std::size_t>(g - 1);
  const std::size_t first = std::min(window.first, total);
  const std::size_t last = first + std::min(window.count, total - first);
  for (int s = static_cast<int>(first); s < static_cast<int>(last); ++s) {
    Step step;
    step.sends.push_back(block_transfer(blocks, group, i - s - lead, next));
    step.recvs.push_back(block_transfer(blocks, group, i - s - lead - 1, prev));
    step.reduce = reduce_scatter;
    step.phase = reduce_scatter ? "reduce_scatter" : "allgather";
    step.dimension = dimension;
    steps.push_back(std::move(step));
  }
  return steps;
}

Schedule ring_steps(const Group& group, Block range, std::size_t elem_size, int dimension,
                    bool reduce_scatter, StepWindow window) {
  if (group.size() <= 1) return {};
  return ring_steps(group, partition(range, static_cast<std::size_t>(group.size()), elem_size),
                    dimension, reduce_scatter, window);
}

}  // namespace

Schedule ring_reduce_scatter(const Group& group, Block range, std::size_t elem_size, int dimension,
                             StepWindow window) {
  return ring_steps(group, range, elem_size, dimension, true, window);
}

Schedule ring_allgather(const Group& group, Block range, std::size_t elem_size, int dimension,
                        StepWindow window) {
  return ring_steps(group, range, elem_size, dimension, false, window);
}

Schedule ring_reduce_scatter(const Group& group, const std::vector<Block>& blocks, int dimension) {
  return ring_steps(group, blocks, dimension, true, {});
}

Schedule ring_allgather(const Group& group, const std::vector<Block>& blocks, int dimension) {
  return ring_steps(group, blocks, dimension, false, {});
}

void run_ring(Communicator& comm, MutView buffer, DType type, ReduceOp op, const Group& group,
              Block range, bool reduce_scatter, const ExecOptions& options) {
  const RingLane lane{group, range};
  run_rings(comm, buffer, type, op, std::span(&lane, 1), reduce_scatter, options);
}

void run_rings(Communicator& comm, MutView buffer, DType type, ReduceOp op,
               std::span<const RingLane> lanes, bool reduce_scatter, const ExecOptions& options) {
  const std::size_t elem = dtype_size(type);
  std::size_t total = 0;
  // Every member's steps are one run (same peers, blocks within one element) when every block
  // of every lane holds an element: an empty block sends no message, so with fewer elements than
  // members the steps are not alike and every step is played. Uniform when every group is the
  // whole communicator.
  bool uniform = true;
  for (const RingLane& lane : lanes) {
    const auto g = static_cast<std::size_t>(lane.group.size());
    total = std::max(total, g > 1 ? g - 1 : 0);
    uniform = uniform && lane.group.size() == comm.size() && lane.range.bytes / elem >= g;
  }
  ExecOptions exec = options;
  // Lockstep makes consecutive windows equivalent to one long schedule. A window is built only
  // when it is reached: a run the backend ends early is never built in full.
  constexpr std::size_t kWindowSteps = 64;
  std::vector<Schedule> window(lanes.size());
  for (std::size_t first = 0; first < total; first += kWindowSteps) {
    std::size_t steps = 0;
    for (std::size_t j = 0; j < lanes.size(); ++j) {
      window[j] = ring_steps(lanes[j].group, lanes[j].range, elem, -1, reduce_scatter,
                             {first, kWindowSteps});
      steps = std::max(steps, window[j].size());
    }
    exec.uniform_runs.reset();
    if (uniform) exec.uniform_runs = UniformRuns{first, total - first - steps};
    if (execute(comm, buffer, type, op, window, exec)) return;
  }
}

}  // namespace ddl
