// What the ddl torch.distributed backend accepts from torch: the checks of a call's tensors and
// the mapping of torch's dtypes and ReduceOps onto the C API's (ddl.h). Each check returns the
// refusal's text, or nothing, so the caller can keep the ranks in step before it raises
// (process_group_ddl.cpp, ProcessGroupDDL::refuse).
#pragma once

#include <ATen/ATen.h>
#include <ddl.h>

#include <cstddef>
#include <optional>
#include <string>
#include <torch/csrc/distributed/c10d/Types.hpp>
#include <vector>

namespace ddl::c10d_backend {

// The C API's element type for a torch dtype, or nothing (float32, float64, float16, bfloat16,
// int32 and int64 are ddl's types).
std::optional<ddl_dtype_t> to_ddl_dtype(at::ScalarType type);

// The C API's op for a torch ReduceOp, or nothing (SUM, PRODUCT, MIN, MAX and AVG are ddl's).
std::optional<ddl_op_t> to_ddl_op(const c10d::ReduceOp& op);

// "SUM", "BAND", ...: a ReduceOp as the user wrote it.
std::string op_name(const c10d::ReduceOp& op);

// Why `t` cannot be used by the backend (`what` names it in the message: "the tensor",
// "output tensor 2"), or nothing: it must be defined, on the CPU, dense, contiguous and of one of
// ddl's element types.
std::optional<std::string> check_tensor(const at::Tensor& t, const std::string& what);

// Why `t` cannot stand beside `reference` (named `reference_what`) in one call: check_tensor's
// reasons, or another dtype or element count (ddl moves equal blocks). Nothing when it can.
std::optional<std::string> check_like(const at::Tensor& t, const at::Tensor& reference,
                                      const std::string& what, const std::string& reference_what);

// Why a list of tensors (`what`: "output tensors") is not `count` tensors like `reference`, or
// nothing.
std::optional<std::string> check_list(const std::vector<at::Tensor>& list, int count,
                                      const at::Tensor& reference, const std::string& what,
                                      const std::string& reference_what);

// Why torch's per-process tensor list (one tensor per device in torch's API) is not exactly one
// tensor, or nothing.
std::optional<std::string> check_single(std::size_t tensors);

}  // namespace ddl::c10d_backend
