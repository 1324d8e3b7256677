// The C API (ddl.h) over the MPI backend. Every entry point checks its arguments (a collective
// call's in collective_arguments.hpp, then agreed across the ranks), runs the C++
// underneath inside one guard that turns each ddl error type into its code and keeps the
// message for ddl_last_error_message(), and returns: no exception crosses the C boundary.
#include "ddl.h"

#include <cmath>
#include <cstring>
#include <exception>
#include <new>
#include <optional>
#include <sstream>
#include <string>

#include "algorithms/error.hpp"
#include "algorithms/registry.hpp"
#include "algorithms/types.hpp"
#include "capi/collective_arguments.hpp"
#include "real/mpi/bounded_mpi.hpp"
#include "real/mpi/call_agreement.hpp"
#include "real/mpi/call_signature.hpp"
#include "real/mpi/mpi_communicator.hpp"
#include "real/mpi/mpi_error.hpp"
#include "real/mpi/node_grid.hpp"

struct ddl_comm {
  explicit ddl_comm(MPI_Comm comm, double timeout_s = ddl::MpiCommunicator::kDefaultTimeout)
      : mpi(comm, timeout_s), dims(ddl::node_layout(mpi.comm(), mpi.timeout()).dims) {}
  ddl::MpiCommunicator mpi;
  // The grid `ddl` and `hier` follow: ranks per node x nodes, read once at creation.
  ddl::Dims dims;
};

namespace {

// The message of this thread's last failure. message_ptr points into it, or at a literal when
// the message itself could not be allocated.
thread_local std::string message;
thread_local const char* message_ptr = "";

ddl_result_t fail(ddl_result_t code, const char* function, const char* what) noexcept {
  try {
    message = std::string(function) + ": " + what;
    message_ptr = message.c_str();
  } catch (...) {
    message_ptr = "ddl: out of memory while recording an error";
  }
  return code;
}

ddl_result_t fail(ddl_result_t code, const char* function, const std::string& what) noexcept {
  return fail(code, function, what.c_str());
}

// Runs `body` (returning a ddl_result_t) and maps whatever it throws to a code.
template <class Body>
ddl_result_t guarded(const char* function, Body&& body) noexcept {
  try {
    return body();
  } catch (const ddl::Timeout& e) {
    return fail(DDL_ERROR_TIMEOUT, function, e.what());
  } catch (const ddl::RanksDisagree& e) {
    return fail(DDL_ERROR_RANKS_DISAGREE, function, e.what());
  } catch (const ddl::BackendError& e) {
    return fail(DDL_ERROR_MPI, function, e.what());
  } catch (const ddl::InvalidArgument& e) {
    return fail(DDL_ERROR_INVALID_ARGUMENT, function, e.what());
  } catch (const std::bad_alloc&) {
    return fail(DDL_ERROR_OUT_OF_MEMORY, function, "out of memory");
  } catch (const std::exception& e) {
    return fail(DDL_ERROR_INTERNAL, function, e.what());
  } catch (...) {
    return fail(DDL_ERROR_INTERNAL, function, "unknown exception");
  }
}

// The caller's enum value as an int, read from its bytes: a C caller may pass any int, and
// loading an out-of-range value through the C++ enum type would be undefined.
template <class Enum>
int raw_value(const Enum* e) {
  static_assert(sizeof(Enum) == sizeof(int));
  int v = 0;
  std::memcpy(&v, e, sizeof v);
  return v;
}

// 0.5 as "0.5", infinity as "inf": what the caller would have written.
std::string number_text(double v) {
  std::ostringstream s;
  s << v;
  return s.str();
}

// Checks the arguments, agrees on the call with every other rank (call_agreement.hpp: a rank
// whose arguments were refused takes part too, so the others learn why instead of waiting for
// it), then runs the collective in place on `buf`. Out of place (`out_of_place`), `sendbuf` is
// copied into `buf` first unless it is `buf`.
ddl_result_t collective(const char* function, ddl_comm_t comm, bool out_of_place,
                        const void* sendbuf, void* buf, std::size_t count, int dtype_value,
                        int op_value, const ddl::capi::CallKind& call) {
  if (comm == nullptr) return fail(DDL_ERROR_NULL_POINTER, function, "comm is NULL");
  const ddl::capi::Prepared p = ddl::capi::prepare(comm->dims, out_of_place, sendbuf, buf, count,
                                                   dtype_value, op_value, call);
  ddl::LocalArguments local;
  if (p.code != DDL_SUCCESS)
    local.error = p.what;
  else
    local.canonical = ddl::call_signature(count, p.dtype, p.op, p.algo->name, p.options);
  const ddl_result_t agreed = guarded(function, [&] {
    ddl::agree_on_call(comm->mpi, local);
    return DDL_SUCCESS;
  });
  if (agreed != DDL_SUCCESS) return agreed;
  if (p.code != DDL_SUCCESS) return fail(p.code, function, p.what);
  return guarded(function, [&] {
    if (out_of_place && sendbuf != buf && p.bytes > 0) std::memcpy(buf, sendbuf, p.bytes);
    p.algo->run(comm->mpi, ddl::MutView{buf, p.bytes}, p.dtype, p.op, p.options);
    return DDL_SUCCESS;
  });
}

}  // namespace

extern "C" {

ddl_result_t ddl_comm_create(MPI_Comm comm, ddl_comm_t* out) {
  constexpr const char* function = "ddl_comm_create";
  if (out == nullptr) return fail(DDL_ERROR_NULL_POINTER, function, "out is NULL");
  *out = nullptr;
  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  if (!initialized || finalized)
    return fail(
        DDL_ERROR_INVALID_ARGUMENT, function,
        finalized ? "MPI is already finalised" : "MPI is not initialised (call MPI_Init first)");
  if (comm == MPI_COMM_NULL)
    return fail(DDL_ERROR_INVALID_ARGUMENT, function, "comm is MPI_COMM_NULL");
  return guarded(function, [&] {
    *out = new ddl_comm(comm);
    return DDL_SUCCESS;
  });
}

ddl_result_t ddl_comm_destroy(ddl_comm_t comm) {
  delete comm;  // ~MpiCommunicator releases pending requests and frees the duplicate; no throw
  return DDL_SUCCESS;
}

ddl_result_t ddl_comm_rank(ddl_comm_t comm, int* rank) {
  if (comm == nullptr) return fail(DDL_ERROR_NULL_POINTER, "ddl_comm_rank", "comm is NULL");
  if (rank == nullptr) return fail(DDL_ERROR_NULL_POINTER, "ddl_comm_rank", "rank is NULL");
  *rank = comm->mpi.rank();
  return DDL_SUCCESS;
}

ddl_result_t ddl_comm_size(ddl_comm_t comm, int* size) {
  if (comm == nullptr) return fail(DDL_ERROR_NULL_POINTER, "ddl_comm_size", "comm is NULL");
  if (size == nullptr) return fail(DDL_ERROR_NULL_POINTER, "ddl_comm_size", "size is NULL");
  *size = comm->mpi.size();
  return DDL_SUCCESS;
}

ddl_result_t ddl_comm_set_timeout(ddl_comm_t comm, double seconds) {
  constexpr const char* function = "ddl_comm_set_timeout";
  if (comm == nullptr) return fail(DDL_ERROR_NULL_POINTER, function, "comm is NULL");
  return guarded(function, [&] {
    if (!std::isfinite(seconds) || !(seconds > 0))
      return fail(DDL_ERROR_INVALID_ARGUMENT, function,
                  "timeout must be a finite number of seconds > 0, got " + number_text(seconds));
    comm->mpi.set_timeout(seconds);
    return DDL_SUCCESS;
  });
}

ddl_result_t ddl_allreduce_inplace(ddl_comm_t comm, void* buf, size_t count, ddl_dtype_t dtype,
                                   ddl_op_t op, const char* algorithm) {
  const int t = raw_value(&dtype), o = raw_value(&op);
  // Guarded as a whole: even building a message may throw (bad_alloc).
  return guarded("ddl_allreduce_inplace", [&] {
    return collective("ddl_allreduce_inplace", comm, false, nullptr, buf, count, t, o,
                      {DDL_ALLREDUCE, 0, algorithm});
  });
}

ddl_result_t ddl_allreduce(ddl_comm_t comm, const void* sendbuf, void* recvbuf, size_t count,
                           ddl_dtype_t dtype, ddl_op_t op, const char* algorithm) {
  const int t = raw_value(&dtype), o = raw_value(&op);
  return guarded("ddl_allreduce", [&] {
    return collective("ddl_allreduce", comm, true, sendbuf, recvbuf, count, t, o,
                      {DDL_ALLREDUCE, 0, algorithm});
  });
}

ddl_result_t ddl_collective_inplace(ddl_comm_t comm, ddl_collective_t coll, void* buf, size_t count,
                                    ddl_dtype_t dtype, ddl_op_t op, int root,
                                    const char* algorithm) {
  constexpr const char* function = "ddl_collective_inplace";
  const int c = raw_value(&coll), t = raw_value(&dtype), o = raw_value(&op);
  return guarded(function, [&] {
    return collective(function, comm, false, nullptr, buf, count, t, o, {c, root, algorithm, true});
  });
}

ddl_result_t ddl_alltoallv(ddl_comm_t comm, const void* sendbuf, const size_t* send_counts,
                           const size_t* send_displs, void* recvbuf, const size_t* recv_counts,
                           const size_t* recv_displs, ddl_dtype_t dtype, const char* algorithm) {
  constexpr const char* function = "ddl_alltoallv";
  if (comm == nullptr) return fail(DDL_ERROR_NULL_POINTER, function, "comm is NULL");
  const int t = raw_value(&dtype);
  return guarded(function, [&] {
    const ddl::capi::PreparedAlltoallv p =
        ddl::capi::prepare_alltoallv(comm->mpi.size(), comm->mpi.rank(), sendbuf, send_counts,
                                     send_displs, recvbuf, recv_counts, recv_displs, t, algorithm);
    // First the call (a refused rank takes part, so the others learn why), then the counts.
    ddl::LocalArguments local;
    if (p.code != DDL_SUCCESS)
      local.error = p.what;
    else
      local.canonical = ddl::call_signature(0, p.dtype, ddl::ReduceOp::sum,
                                            ddl::to_string(p.algorithm), ddl::Options{});
    ddl::agree_on_call(comm->mpi, local);
    if (p.code != DDL_SUCCESS) return fail(p.code, function, p.what);
    ddl::agree_on_alltoallv_counts(comm->mpi, p.send.counts, p.recv.counts, ddl::Options{});
    ddl::alltoallv(comm->mpi, ddl::ConstView{sendbuf, p.input_bytes}, p.send,
                   ddl::MutView{recvbuf, p.output_bytes}, p.recv, p.dtype, ddl::Options{},
                   p.algorithm);
    return DDL_SUCCESS;
  });
}

ddl_result_t ddl_comm_split(ddl_comm_t comm, int color, int key, ddl_comm_t* out) {
  constexpr const char* function = "ddl_comm_split";
  if (comm == nullptr) return fail(DDL_ERROR_NULL_POINTER, function, "comm is NULL");
  if (out == nullptr) return fail(DDL_ERROR_NULL_POINTER, function, "out is NULL");
  *out = nullptr;
  return guarded(function, [&] {
    MPI_Comm part = MPI_COMM_NULL;
    {
      const ddl::WatchdogGuard guard(comm->mpi.timeout(), "MPI_Comm_split (ddl_comm_split)");
      ddl::check_mpi(
          MPI_Comm_split(comm->mpi.comm(), color < 0 ? MPI_UNDEFINED : color, key, &part),
          "MPI_Comm_split");
    }
    if (part == MPI_COMM_NULL) return DDL_SUCCESS;  // a negative color: in no group
    // The group's communicator works on its own duplicate, with its own node grid (ranks per
    // node x nodes of its members: ddl and hier follow the group's place in the machine) and the
    // parent's timeout.
    try {
      *out = new ddl_comm(part, comm->mpi.timeout());
    } catch (...) {
      MPI_Comm_free(&part);
      throw;
    }
    MPI_Comm_free(&part);
    return DDL_SUCCESS;
  });
}

size_t ddl_dtype_size(ddl_dtype_t dtype) {
  const std::optional<ddl::DType> t = ddl::capi::to_dtype(raw_value(&dtype));
  return t ? ddl::dtype_size(*t) : 0;
}

const char* ddl_result_string(ddl_result_t result) {
  switch (raw_value(&result)) {
    case DDL_SUCCESS: return "DDL_SUCCESS";
    case DDL_ERROR_NULL_POINTER: return "DDL_ERROR_NULL_POINTER";
    case DDL_ERROR_BAD_DTYPE: return "DDL_ERROR_BAD_DTYPE";
    case DDL_ERROR_BAD_OP: return "DDL_ERROR_BAD_OP";
    case DDL_ERROR_UNKNOWN_ALGORITHM: return "DDL_ERROR_UNKNOWN_ALGORITHM";
    case DDL_ERROR_COUNT_OVERFLOW: return "DDL_ERROR_COUNT_OVERFLOW";
    case DDL_ERROR_INVALID_ARGUMENT: return "DDL_ERROR_INVALID_ARGUMENT";
    case DDL_ERROR_TIMEOUT: return "DDL_ERROR_TIMEOUT";
    case DDL_ERROR_MPI: return "DDL_ERROR_MPI";
    case DDL_ERROR_OUT_OF_MEMORY: return "DDL_ERROR_OUT_OF_MEMORY";
    case DDL_ERROR_INTERNAL: return "DDL_ERROR_INTERNAL";
    case DDL_ERROR_RANKS_DISAGREE: return "DDL_ERROR_RANKS_DISAGREE";
    default: return "unknown ddl_result_t";
  }
}

const char* ddl_last_error_message(void) {
  return message_ptr;
}

}  // extern "C"
