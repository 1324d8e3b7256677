// The C API (ddl.h) over the MPI backend. Every entry point checks its arguments, runs the C++
// underneath inside one guard that turns each ddl error type into its code and keeps the
// message for ddl_last_error_message(), and returns: no exception crosses the C boundary.
#include "ddl.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <exception>
#include <limits>
#include <new>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>

#include "algorithms/algorithm_spec.hpp"
#include "algorithms/error.hpp"
#include "algorithms/registry.hpp"
#include "algorithms/types.hpp"
#include "real/mpi_communicator.hpp"
#include "real/node_grid.hpp"

struct ddl_comm {
  explicit ddl_comm(MPI_Comm comm)
      : mpi(comm), dims(ddl::node_layout(mpi.comm(), mpi.timeout()).dims) {}
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

std::optional<ddl::DType> to_dtype(int v) {
  switch (v) {
    case DDL_FLOAT32: return ddl::DType::float32;
    case DDL_FLOAT64: return ddl::DType::float64;
    case DDL_FLOAT16: return ddl::DType::float16;
    case DDL_BFLOAT16: return ddl::DType::bfloat16;
    case DDL_INT32: return ddl::DType::int32;
    case DDL_INT64: return ddl::DType::int64;
    default: return std::nullopt;
  }
}

std::optional<ddl::ReduceOp> to_op(int v) {
  switch (v) {
    case DDL_SUM: return ddl::ReduceOp::sum;
    case DDL_PROD: return ddl::ReduceOp::prod;
    case DDL_MIN: return ddl::ReduceOp::min;
    case DDL_MAX: return ddl::ReduceOp::max;
    case DDL_AVG: return ddl::ReduceOp::avg;
    default: return std::nullopt;
  }
}

// The allreduce algorithm named by an algorithm string's first field, or nullptr.
const ddl::Algorithm* find_allreduce(std::string_view spec) {
  const std::string_view name = spec.substr(0, spec.find(':'));
  for (const ddl::Algorithm& a : ddl::algorithms())
    if (a.collective == ddl::Collective::allreduce && a.name == name) return &a;
  return nullptr;
}

// 0.5 as "0.5", infinity as "inf": what the caller would have written.
std::string number_text(double v) {
  std::ostringstream s;
  s << v;
  return s.str();
}

std::string allreduce_names() {
  std::string list;
  for (const std::string& n : ddl::algorithm_names(ddl::Collective::allreduce))
    list += (list.empty() ? "" : ", ") + n;
  return list;
}

// Validates every argument of an allreduce, then runs it in place on `buf`. Out of place
// (`out_of_place`), `sendbuf` is copied into `buf` first unless it is `buf`.
ddl_result_t allreduce(const char* function, ddl_comm_t comm, bool out_of_place,
                       const void* sendbuf, void* buf, std::size_t count, int dtype_value,
                       int op_value, const char* algorithm) {
  if (comm == nullptr) return fail(DDL_ERROR_NULL_POINTER, function, "comm is NULL");
  if (algorithm == nullptr) return fail(DDL_ERROR_NULL_POINTER, function, "algorithm is NULL");
  const std::optional<ddl::DType> dtype = to_dtype(dtype_value);
  if (!dtype)
    return fail(DDL_ERROR_BAD_DTYPE, function,
                "dtype " + std::to_string(dtype_value) +
                    " is not a ddl_dtype_t (DDL_FLOAT32 .. DDL_INT64 are 0 .. 5)");
  const std::optional<ddl::ReduceOp> op = to_op(op_value);
  if (!op)
    return fail(
        DDL_ERROR_BAD_OP, function,
        "op " + std::to_string(op_value) + " is not a ddl_op_t (DDL_SUM .. DDL_AVG are 0 .. 4)");
  const ddl::Algorithm* algo = find_allreduce(algorithm);
  if (algo == nullptr)
    return fail(DDL_ERROR_UNKNOWN_ALGORITHM, function,
                "unknown algorithm '" + std::string(algorithm) +
                    "' (allreduce algorithms: " + allreduce_names() + ")");
  // The rest of the string (algorithms/algorithm_spec.hpp: dims, methods, rings=, segment=,
  // order=) overrides the communicator's defaults for this call only.
  ddl::Options options;
  const ddl_result_t parsed = guarded(function, [&] {
    options.dims = comm->dims;
    options = ddl::parse_algorithm_spec(algorithm).apply(options);
    return DDL_SUCCESS;
  });
  if (parsed != DDL_SUCCESS) return parsed;
  const std::size_t element = ddl::dtype_size(*dtype);
  if (count > std::numeric_limits<std::size_t>::max() / element)
    return fail(DDL_ERROR_COUNT_OVERFLOW, function,
                "count " + std::to_string(count) + " of " + std::string(ddl::to_string(*dtype)) +
                    " (" + std::to_string(element) + " bytes each) overflows size_t");
  const std::size_t bytes = count * element;
  if (count > 0 && out_of_place && sendbuf == nullptr)
    return fail(DDL_ERROR_NULL_POINTER, function, "sendbuf is NULL");
  if (count > 0 && buf == nullptr)
    return fail(DDL_ERROR_NULL_POINTER, function, out_of_place ? "recvbuf is NULL" : "buf is NULL");
  if (out_of_place && sendbuf != buf && bytes > 0) {
    const auto s = reinterpret_cast<std::uintptr_t>(sendbuf);
    const auto r = reinterpret_cast<std::uintptr_t>(buf);
    if (s < r + bytes && r < s + bytes)
      return fail(DDL_ERROR_INVALID_ARGUMENT, function,
                  "sendbuf and recvbuf overlap without being the same buffer");
  }
  return guarded(function, [&] {
    if (out_of_place && sendbuf != buf && bytes > 0) std::memcpy(buf, sendbuf, bytes);
    algo->run(comm->mpi, ddl::MutView{buf, bytes}, *dtype, *op, options);
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
    return allreduce("ddl_allreduce_inplace", comm, false, nullptr, buf, count, t, o, algorithm);
  });
}

ddl_result_t ddl_allreduce(ddl_comm_t comm, const void* sendbuf, void* recvbuf, size_t count,
                           ddl_dtype_t dtype, ddl_op_t op, const char* algorithm) {
  const int t = raw_value(&dtype), o = raw_value(&op);
  return guarded("ddl_allreduce", [&] {
    return allreduce("ddl_allreduce", comm, true, sendbuf, recvbuf, count, t, o, algorithm);
  });
}

size_t ddl_dtype_size(ddl_dtype_t dtype) {
  const std::optional<ddl::DType> t = to_dtype(raw_value(&dtype));
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
    default: return "unknown ddl_result_t";
  }
}

const char* ddl_last_error_message(void) {
  return message_ptr;
}

}  // extern "C"
