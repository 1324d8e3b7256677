// native: the backend's own allreduce library (native_library.hpp), MPI_Allreduce under the MPI
// backend. Not one of ddl's schedules: it is here so that the same sweep, the same checks and
// `auto` weigh ddl's algorithms against the library the ranks already have, and so auto can
// choose the library where it is the faster (Open MPI's shared-memory allreduce of a few KB on
// 4 ranks beats every ddl schedule on a 2-core machine).
//
// Cost: not priced (+inf): the model describes ddl's schedules, not the library's internals,
// so the cost model's argmin never picks it; auto picks it only from a measurement
// (measured_choice.hpp) on a backend that has it.
#include <limits>

#include "algorithms/collectives.hpp"
#include "algorithms/native_library.hpp"
#include "algorithms/schedule.hpp"

namespace ddl {

void allreduce_native(Communicator& comm, MutView buf, DType type, ReduceOp op, const Options&) {
  element_count(buf, type);
  NativeLibrary* library = comm.native_library();
  if (library == nullptr)
    throw InvalidArgument(
        "native: this backend has no collective library of its own (native is MPI_Allreduce on "
        "the MPI backend: ddlrun, or the library over MPI)");
  if (!library->native_supports(type))
    throw InvalidArgument("native: " + library->native_name() + " has no " +
                          std::string(to_string(type)) + " reduction");
  if (comm.size() == 1 || buf.bytes == 0) return;
  library->native_allreduce(buf, type, reduction_op(op));
  finish_average(comm, buf, type, op, static_cast<std::size_t>(comm.size()));
}

double allreduce_native_cost(const CostQuery&) {
  return std::numeric_limits<double>::infinity();
}

}  // namespace ddl
