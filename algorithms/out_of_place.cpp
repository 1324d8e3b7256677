#include "algorithms/out_of_place.hpp"

#include <span>

#include "algorithms/schedule_cost.hpp"

namespace ddl {

void run_out_of_place(Communicator& comm, MutView buffer, std::size_t input_bytes, DType type,
                      const Schedule& schedule, std::size_t segment_bytes, int tag_base) {
  Scratch input(comm, input_bytes);
  comm.copy(input.view(), buffer.slice(0, input_bytes));
  ExecOptions options{segment_bytes, tag_base};
  options.send_from = input.view();
  execute(comm, buffer, type, ReduceOp::sum, std::span(&schedule, 1), options);
}

double local_copy_cost(const CostParams& params, std::size_t bytes) {
  return 2.0 / 3.0 * params.gamma * static_cast<double>(bytes);
}

std::size_t alltoall_block_bytes(std::size_t count, int ranks, std::size_t elem_size) {
  return count / static_cast<std::size_t>(ranks) * elem_size;
}

void run_alltoall(Communicator& comm, MutView buf, DType type, const Options& opts,
                  AlltoallSteps steps) {
  const int p = comm.size();
  const std::size_t block = alltoall_block_bytes(element_count(buf, type), p, dtype_size(type));
  if (p == 1 || block == 0) return;
  run_out_of_place(comm, buf, block * static_cast<std::size_t>(p), type,
                   steps(p, comm.rank(), block), opts.segment_bytes, opts.tag_base);
}

double alltoall_cost(const CostQuery& q, AlltoallSteps steps) {
  const int p = q.dims.rank_count();
  const std::size_t block = q.bytes / static_cast<std::size_t>(p);
  if (p == 1 || block == 0) return 0;
  return price_schedules(q, [&](int r) { return std::vector<Schedule>{steps(p, r, block)}; }) +
         local_copy_cost(q.params, block * static_cast<std::size_t>(p));
}

}  // namespace ddl
