// Element types and reduction operators, with the names nccl-tests uses on the command line.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace ddl {

enum class DType { float32, float64, float16, bfloat16, int32, int64 };
enum class ReduceOp { sum, prod, min, max, avg };

std::size_t dtype_size(DType t);
std::string_view to_string(DType t);      // "float", "double", "half", "bfloat16", "int32", "int64"
std::string_view to_string(ReduceOp op);  // "sum", "prod", "min", "max", "avg"

// Accept nccl-tests names and the obvious aliases (float32, fp16, bf16, ...);
// throw InvalidArgument quoting the input otherwise.
DType parse_dtype(std::string_view name);
ReduceOp parse_reduce_op(std::string_view name);

const std::vector<DType>& all_dtypes();
const std::vector<ReduceOp>& all_reduce_ops();

}  // namespace ddl
