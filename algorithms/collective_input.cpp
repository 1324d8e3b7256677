#include "algorithms/collective_input.hpp"

#include "algorithms/error.hpp"

namespace ddl {

Block collective_input(Collective c, std::size_t count, DType type, int rank, int ranks, int root) {
  const std::size_t elem = dtype_size(type);
  const Block whole{0, count * elem};
  switch (c) {
    case Collective::allreduce:
    case Collective::reduce_scatter:
    case Collective::alltoall:
    case Collective::reduce:
    case Collective::sendrecv: return whole;
    case Collective::allgather:
    case Collective::gather:
      return partition(count, static_cast<std::size_t>(ranks),
                       elem)[static_cast<std::size_t>(rank)];
    case Collective::broadcast:
    case Collective::scatter: return rank == root ? whole : Block{};
  }
  throw InvalidArgument("collective_input: unknown collective");
}

void run_out_of_place_call(Communicator& comm, const Algorithm& algo, ConstView input,
                           MutView output, DType type, ReduceOp op, const Options& options) {
  DDL_CHECK(input.bytes == output.bytes, "out-of-place call: input and output sizes differ");
  const Block in = collective_input(algo.collective, element_count(output, type), type, comm.rank(),
                                    comm.size(), options.root);
  if (in.bytes > 0) comm.copy(output.slice(in.offset, in.bytes), input.slice(in.offset, in.bytes));
  algo.run(comm, output, type, op, options);
}

}  // namespace ddl
