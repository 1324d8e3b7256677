// Element-wise kernels on GPU memory for every dtype and op, with host_reduce's semantics:
// float16 and bfloat16 compute in float and round to nearest even, integers wrap, min/max pick
// as std::min/std::max do, divide computes in double and rounds to the dtype. Launches are
// asynchronous on `stream`; CUDA errors come back as ddl::BackendError.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

#include "algorithms/types.hpp"

namespace ddl::cuda {

// inout[i] = inout[i] (op) in[i]; op must not be avg.
void reduce(void* inout, const void* in, std::size_t count, DType type, ReduceOp op,
            cudaStream_t stream);
// inout[i] /= divisor.
void divide(void* inout, std::size_t count, DType type, std::size_t divisor, cudaStream_t stream);

// Throws BackendError("<what>: <cudaGetErrorString>") unless code is cudaSuccess: the one
// place CUDA error codes become ddl errors.
void check(cudaError_t code, const char* what);

}  // namespace ddl::cuda
