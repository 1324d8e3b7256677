#include "algorithms/types.hpp"

#include "algorithms/error.hpp"

namespace ddl {

std::size_t dtype_size(DType t) {
  switch (t) {
    case DType::float32: return 4;
    case DType::float64: return 8;
    case DType::float16: return 2;
    case DType::bfloat16: return 2;
    case DType::int32: return 4;
    case DType::int64: return 8;
  }
  throw InvalidArgument("unknown dtype");
}

std::string_view to_string(DType t) {
  switch (t) {
    case DType::float32: return "float";
    case DType::float64: return "double";
    case DType::float16: return "half";
    case DType::bfloat16: return "bfloat16";
    case DType::int32: return "int32";
    case DType::int64: return "int64";
  }
  return "?";
}

std::string_view to_string(ReduceOp op) {
  switch (op) {
    case ReduceOp::sum: return "sum";
    case ReduceOp::prod: return "prod";
    case ReduceOp::min: return "min";
    case ReduceOp::max: return "max";
    case ReduceOp::avg: return "avg";
  }
  return "?";
}

DType parse_dtype(std::string_view n) {
  if (n == "float" || n == "float32" || n == "fp32") return DType::float32;
  if (n == "double" || n == "float64" || n == "fp64") return DType::float64;
  if (n == "half" || n == "float16" || n == "fp16") return DType::float16;
  if (n == "bfloat16" || n == "bf16") return DType::bfloat16;
  if (n == "int32" || n == "int") return DType::int32;
  if (n == "int64") return DType::int64;
  throw InvalidArgument("unknown data type '" + std::string(n) +
                        "' (expected float, double, half, bfloat16, int32 or int64)");
}

ReduceOp parse_reduce_op(std::string_view n) {
  if (n == "sum") return ReduceOp::sum;
  if (n == "prod") return ReduceOp::prod;
  if (n == "min") return ReduceOp::min;
  if (n == "max") return ReduceOp::max;
  if (n == "avg") return ReduceOp::avg;
  throw InvalidArgument("unknown reduction op '" + std::string(n) +
                        "' (expected sum, prod, min, max or avg)");
}

const std::vector<DType>& all_dtypes() {
  static const std::vector<DType> v = {DType::float32,  DType::float64, DType::float16,
                                       DType::bfloat16, DType::int32,   DType::int64};
  return v;
}

const std::vector<ReduceOp>& all_reduce_ops() {
  static const std::vector<ReduceOp> v = {ReduceOp::sum, ReduceOp::prod, ReduceOp::min,
                                          ReduceOp::max, ReduceOp::avg};
  return v;
}

}  // namespace ddl
