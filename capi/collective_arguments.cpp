#include "capi/collective_arguments.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string_view>
#include <utility>

#include "algorithms/algorithm_spec.hpp"
#include "algorithms/error.hpp"

namespace ddl::capi {

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

namespace {

// A dtype value outside ddl_dtype_t, as every call says it.
std::string not_a_dtype(int value) {
  return "dtype " + std::to_string(value) +
         " is not a ddl_dtype_t (DDL_FLOAT32 .. DDL_INT64 are 0 .. 5)";
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

// The algorithm of `collective` named by an algorithm string's first field, or nullptr.
const ddl::Algorithm* find_of(ddl::Collective collective, std::string_view spec) {
  const std::string_view name = spec.substr(0, spec.find(':'));
  for (const ddl::Algorithm& a : ddl::algorithms())
    if (a.collective == collective && a.name == name) return &a;
  return nullptr;
}

std::string names_of(ddl::Collective collective) {
  std::string list;
  for (const std::string& n : ddl::algorithm_names(collective))
    list += (list.empty() ? "" : ", ") + n;
  return list;
}

Prepared refused(ddl_result_t code, std::string what) {
  Prepared p;
  p.code = code;
  p.what = std::move(what);
  return p;
}

// The collective of a ddl_collective_t value; nothing outside the enum.
std::optional<ddl::Collective> to_collective(int v) {
  const auto all = ddl::all_collectives();
  if (v < 0 || static_cast<std::size_t>(v) >= all.size()) return std::nullopt;
  return all[static_cast<std::size_t>(v)];  // ddl_collective_t follows ddl::Collective's order
}

}  // namespace

Prepared prepare(const ddl::Dims& dims, bool out_of_place, const void* sendbuf, void* buf,
                 std::size_t count, int dtype_value, int op_value, const CallKind& call) {
  const std::optional<ddl::Collective> collective = to_collective(call.collective);
  if (!collective)
    return refused(DDL_ERROR_INVALID_ARGUMENT,
                   "collective " + std::to_string(call.collective) +
                       " is not a ddl_collective_t (DDL_ALLREDUCE .. DDL_SENDRECV are 0 .. 8)");
  if (call.algorithm == nullptr && !call.default_algorithm)
    return refused(DDL_ERROR_NULL_POINTER, "algorithm is NULL");
  const std::string fallback = *collective == ddl::Collective::allreduce
                                   ? "auto"
                                   : ddl::algorithm_names(*collective).front();
  const char* algorithm = call.algorithm ? call.algorithm : fallback.c_str();
  Prepared p;
  const std::optional<ddl::DType> dtype = to_dtype(dtype_value);
  if (!dtype) return refused(DDL_ERROR_BAD_DTYPE, not_a_dtype(dtype_value));
  const std::optional<ddl::ReduceOp> op = to_op(op_value);
  if (!op)
    return refused(DDL_ERROR_BAD_OP, "op " + std::to_string(op_value) +
                                         " is not a ddl_op_t (DDL_SUM .. DDL_AVG are 0 .. 4)");
  p.algo = find_of(*collective, algorithm);
  if (p.algo == nullptr)
    return refused(DDL_ERROR_UNKNOWN_ALGORITHM, "unknown algorithm '" + std::string(algorithm) +
                                                    "' (" +
                                                    std::string(ddl::to_string(*collective)) +
                                                    " algorithms: " + names_of(*collective) + ")");
  if (call.root < 0 || call.root >= dims.rank_count())
    return refused(DDL_ERROR_INVALID_ARGUMENT, "root " + std::to_string(call.root) +
                                                   " is not a rank of the communicator (0 .. " +
                                                   std::to_string(dims.rank_count() - 1) + ")");
  // The rest of the string (algorithms/algorithm_spec.hpp: dims, methods, rings=, segment=,
  // order=) overrides the communicator's defaults for this call only.
  try {
    ddl::Options defaults;
    defaults.dims = dims;
    defaults.root = call.root;
    p.options = ddl::parse_algorithm_spec(algorithm).apply(defaults);
  } catch (const ddl::InvalidArgument& e) {
    return refused(DDL_ERROR_INVALID_ARGUMENT, e.what());
  }
  const std::size_t element = ddl::dtype_size(*dtype);
  if (count > std::numeric_limits<std::size_t>::max() / element)
    return refused(DDL_ERROR_COUNT_OVERFLOW,
                   "count " + std::to_string(count) + " of " + std::string(ddl::to_string(*dtype)) +
                       " (" + std::to_string(element) + " bytes each) overflows size_t");
  p.bytes = count * element;
  if (count > 0 && out_of_place && sendbuf == nullptr)
    return refused(DDL_ERROR_NULL_POINTER, "sendbuf is NULL");
  if (count > 0 && buf == nullptr)
    return refused(DDL_ERROR_NULL_POINTER, out_of_place ? "recvbuf is NULL" : "buf is NULL");
  if (out_of_place && sendbuf != buf && p.bytes > 0) {
    const auto s = reinterpret_cast<std::uintptr_t>(sendbuf);
    const auto r = reinterpret_cast<std::uintptr_t>(buf);
    if (s < r + p.bytes && r < s + p.bytes)
      return refused(DDL_ERROR_INVALID_ARGUMENT,
                     "sendbuf and recvbuf overlap without being the same buffer");
  }
  p.dtype = *dtype;
  p.op = *op;
  return p;
}

PreparedAlltoallv prepare_alltoallv(int ranks, int rank, const void* sendbuf,
                                    const std::size_t* send_counts, const std::size_t* send_displs,
                                    const void* recvbuf, const std::size_t* recv_counts,
                                    const std::size_t* recv_displs, int dtype_value,
                                    const char* algorithm) {
  PreparedAlltoallv p;
  auto refused = [&](ddl_result_t code, std::string what) {
    p.code = code;
    p.what = std::move(what);
    return p;
  };
  const std::optional<ddl::DType> dtype = to_dtype(dtype_value);
  if (!dtype) return refused(DDL_ERROR_BAD_DTYPE, not_a_dtype(dtype_value));
  p.dtype = *dtype;
  try {
    p.algorithm = ddl::parse_alltoallv_algorithm(algorithm ? algorithm : "alltoallv_pairwise");
  } catch (const ddl::InvalidArgument& e) {
    return refused(DDL_ERROR_UNKNOWN_ALGORITHM, e.what());
  }
  const std::pair<const char*, const std::size_t*> arrays[] = {{"send_counts", send_counts},
                                                               {"send_displs", send_displs},
                                                               {"recv_counts", recv_counts},
                                                               {"recv_displs", recv_displs}};
  for (const auto& [name, array] : arrays)
    if (array == nullptr) return refused(DDL_ERROR_NULL_POINTER, std::string(name) + " is NULL");
  const auto n = static_cast<std::size_t>(ranks);
  p.send = {{send_counts, send_counts + n}, {send_displs, send_displs + n}};
  p.recv = {{recv_counts, recv_counts + n}, {recv_displs, recv_displs + n}};
  // A buffer's extent: the end of its furthest range, in bytes, unless that overflows size_t.
  const std::size_t element = ddl::dtype_size(*dtype);
  auto extent = [&](const ddl::AlltoallvLayout& l, const char* side,
                    std::size_t& bytes) -> std::optional<std::string> {
    std::size_t end = 0;
    for (std::size_t j = 0; j < n; ++j) {
      if (l.counts[j] == 0) continue;
      if (l.displs[j] > std::numeric_limits<std::size_t>::max() / element - l.counts[j])
        return std::string(side) + " range for rank " + std::to_string(j) + " (displacement " +
               std::to_string(l.displs[j]) + ", count " + std::to_string(l.counts[j]) + " of " +
               std::string(ddl::to_string(*dtype)) + ") overflows size_t";
      end = std::max(end, l.displs[j] + l.counts[j]);
    }
    bytes = end * element;
    return std::nullopt;
  };
  if (auto bad = extent(p.send, "the send", p.input_bytes))
    return refused(DDL_ERROR_COUNT_OVERFLOW, *bad);
  if (auto bad = extent(p.recv, "the receive", p.output_bytes))
    return refused(DDL_ERROR_COUNT_OVERFLOW, *bad);
  if (p.input_bytes > 0 && sendbuf == nullptr)
    return refused(DDL_ERROR_NULL_POINTER, "sendbuf is NULL");
  if (p.output_bytes > 0 && recvbuf == nullptr)
    return refused(DDL_ERROR_NULL_POINTER, "recvbuf is NULL");
  try {
    ddl::check_alltoallv_layout(ranks, rank, p.send, p.input_bytes / element, p.recv,
                                p.output_bytes / element);
  } catch (const ddl::InvalidArgument& e) {
    return refused(DDL_ERROR_INVALID_ARGUMENT, e.what());
  }
  const auto s = reinterpret_cast<std::uintptr_t>(sendbuf);
  const auto r = reinterpret_cast<std::uintptr_t>(recvbuf);
  if (p.input_bytes > 0 && p.output_bytes > 0 && s < r + p.output_bytes && r < s + p.input_bytes)
    return refused(
        DDL_ERROR_INVALID_ARGUMENT,
        "sendbuf and recvbuf overlap (all-to-all-v reads one buffer and writes another)");
  return p;
}

}  // namespace ddl::capi
