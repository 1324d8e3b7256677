// The checks of tensor_checks.hpp: torch's tensors and ReduceOps against what ddl's C API takes.
#include "python/c10d/tensor_checks.hpp"

#include <sstream>

namespace ddl::c10d_backend {

std::optional<ddl_dtype_t> to_ddl_dtype(at::ScalarType type) {
  switch (type) {
    case at::kFloat: return DDL_FLOAT32;
    case at::kDouble: return DDL_FLOAT64;
    case at::kHalf: return DDL_FLOAT16;
    case at::kBFloat16: return DDL_BFLOAT16;
    case at::kInt: return DDL_INT32;
    case at::kLong: return DDL_INT64;
    default: return std::nullopt;
  }
}

std::optional<ddl_op_t> to_ddl_op(const c10d::ReduceOp& op) {
  switch (op.op_) {
    case c10d::ReduceOp::SUM: return DDL_SUM;
    case c10d::ReduceOp::PRODUCT: return DDL_PROD;
    case c10d::ReduceOp::MIN: return DDL_MIN;
    case c10d::ReduceOp::MAX: return DDL_MAX;
    case c10d::ReduceOp::AVG: return DDL_AVG;
    default: return std::nullopt;
  }
}

std::string op_name(const c10d::ReduceOp& op) {
  switch (op.op_) {
    case c10d::ReduceOp::SUM: return "SUM";
    case c10d::ReduceOp::AVG: return "AVG";
    case c10d::ReduceOp::PRODUCT: return "PRODUCT";
    case c10d::ReduceOp::MIN: return "MIN";
    case c10d::ReduceOp::MAX: return "MAX";
    case c10d::ReduceOp::BAND: return "BAND";
    case c10d::ReduceOp::BOR: return "BOR";
    case c10d::ReduceOp::BXOR: return "BXOR";
    case c10d::ReduceOp::PREMUL_SUM: return "PREMUL_SUM";
    default: return "ReduceOp " + std::to_string(static_cast<int>(op.op_));
  }
}

std::optional<std::string> check_tensor(const at::Tensor& t, const std::string& what) {
  if (!t.defined()) return what + " is undefined";
  if (!t.device().is_cpu())
    return what + " is on " + t.device().str() + "; the ddl backend works on CPU tensors only";
  if (t.layout() != at::kStrided) {
    std::ostringstream layout;
    layout << t.layout();
    return what + " has layout " + layout.str() + "; the ddl backend takes dense tensors";
  }
  if (!t.is_contiguous()) {
    std::ostringstream shape;
    shape << "shape " << t.sizes() << ", strides " << t.strides();
    return what + " is not contiguous (" + shape.str() +
           "); the ddl backend works in place on contiguous tensors (pass t.contiguous())";
  }
  if (!to_ddl_dtype(t.scalar_type()))
    return what + " has dtype " + std::string(c10::toString(t.scalar_type())) +
           "; the ddl backend takes Float, Double, Half, BFloat16, Int and Long";
  return std::nullopt;
}

std::optional<std::string> check_like(const at::Tensor& t, const at::Tensor& reference,
                                      const std::string& what, const std::string& reference_what) {
  if (auto bad = check_tensor(t, what)) return bad;
  if (t.scalar_type() != reference.scalar_type())
    return what + " has dtype " + std::string(c10::toString(t.scalar_type())) + ", " +
           reference_what + " has " + std::string(c10::toString(reference.scalar_type()));
  if (t.numel() != reference.numel())
    return what + " has " + std::to_string(t.numel()) + " elements, " + reference_what + " has " +
           std::to_string(reference.numel()) + " (the ddl backend moves equal blocks)";
  return std::nullopt;
}

std::optional<std::string> check_list(const std::vector<at::Tensor>& list, int count,
                                      const at::Tensor& reference, const std::string& what,
                                      const std::string& reference_what) {
  if (list.size() != static_cast<std::size_t>(count))
    return what + ": " + std::to_string(list.size()) + " tensors, expected " +
           std::to_string(count) + " (one per rank of the group)";
  for (std::size_t i = 0; i < list.size(); ++i)
    if (auto bad =
            check_like(list[i], reference,
                       what.substr(0, what.size() - 1) + " " + std::to_string(i), reference_what))
      return bad;
  return std::nullopt;
}

std::optional<std::string> check_single(std::size_t tensors) {
  if (tensors == 1) return std::nullopt;
  return "the ddl backend takes one tensor per process and call, got " + std::to_string(tensors) +
         " (torch's multi-tensor form is for several GPUs per process)";
}

}  // namespace ddl::c10d_backend
