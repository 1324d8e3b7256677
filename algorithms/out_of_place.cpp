#include "algorithms/out_of_place.hpp"

#include <span>

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

}  // namespace ddl
