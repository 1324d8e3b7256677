#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <string>
#include <type_traits>

#include "algorithms/error.hpp"
#include "real/cuda/cuda_kernels.hpp"

namespace ddl::cuda {

void check(cudaError_t code, const char* what) {
  if (code != cudaSuccess) throw BackendError(std::string(what) + ": " + cudaGetErrorString(code));
}

namespace {

// Storage type -> arithmetic: native types compute as themselves, 16-bit floats in float.
template <typename T>
struct Arith {
  using type = T;
  __device__ static T load(T v) { return v; }
  __device__ static T store(T v) { return v; }
};
template <>
struct Arith<__half> {
  using type = float;
  __device__ static float load(__half v) { return __half2float(v); }
  __device__ static __half store(float v) { return __float2half_rn(v); }
};
template <>
struct Arith<__nv_bfloat16> {
  using type = float;
  __device__ static float load(__nv_bfloat16 v) { return __bfloat162float(v); }
  __device__ static __nv_bfloat16 store(float v) { return __float2bfloat16_rn(v); }
};

template <ReduceOp Op, typename A>
__device__ A apply(A a, A b) {
  if constexpr (Op == ReduceOp::min)
    return b < a ? b : a;  // std::min
  else if constexpr (Op == ReduceOp::max)
    return a < b ? b : a;  // std::max
  else if constexpr (std::is_integral_v<A>) {
    using U = std::make_unsigned_t<A>;  // wrap, as host_reduce does
    return Op == ReduceOp::sum ? A(U(a) + U(b)) : A(U(a) * U(b));
  } else {
    return Op == ReduceOp::sum ? a + b : a * b;
  }
}

template <typename T, ReduceOp Op>
__device__ T combine(T a, T b) {
  using AR = Arith<T>;
  return AR::store(apply<Op>(AR::load(a), AR::load(b)));
}

// Each thread handles 16-byte vectors (one 128-bit load per operand) when both pointers are
// 16-byte aligned, which is what keeps the kernel at memory bandwidth; the tail and unaligned
// views take the element loop.
template <typename T, ReduceOp Op>
__global__ void reduce_kernel(T* __restrict__ a, const T* __restrict__ b, std::size_t n, bool vec) {
  constexpr std::size_t kPer = 16 / sizeof(T);
  const std::size_t stride = std::size_t(blockDim.x) * gridDim.x;
  std::size_t tid = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  std::size_t done = 0;
  if (vec) {
    const std::size_t vectors = n / kPer;
    for (std::size_t v = tid; v < vectors; v += stride) {
      uint4 x = reinterpret_cast<const uint4*>(a)[v];
      const uint4 y = reinterpret_cast<const uint4*>(b)[v];
      T* xs = reinterpret_cast<T*>(&x);
      const T* ys = reinterpret_cast<const T*>(&y);
#pragma unroll
      for (std::size_t k = 0; k < kPer; ++k) xs[k] = combine<T, Op>(xs[k], ys[k]);
      reinterpret_cast<uint4*>(a)[v] = x;
    }
    done = vectors * kPer;
  }
  for (std::size_t i = done + tid; i < n; i += stride) a[i] = combine<T, Op>(a[i], b[i]);
}

template <typename T>
__global__ void divide_kernel(T* a, std::size_t n, std::size_t divisor) {
  const std::size_t stride = std::size_t(blockDim.x) * gridDim.x;
  const double d = double(divisor);
  for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    if constexpr (std::is_same_v<T, std::int64_t>) {
      a[i] = a[i] / static_cast<std::int64_t>(divisor);  // exact, as host_divide
    } else {
      // Double, then the dtype's rounding (16-bit floats via float, as store_from_double).
      const double q = double(Arith<T>::load(a[i])) / d;
      if constexpr (std::is_same_v<T, __half> || std::is_same_v<T, __nv_bfloat16>)
        a[i] = Arith<T>::store(float(q));
      else
        a[i] = T(q);
    }
  }
}

constexpr int kThreads = 256;

unsigned blocks_for(std::size_t work) {
  // Enough blocks to fill any current GPU; the grid-stride loops cover the rest.
  const std::size_t b = (work + kThreads - 1) / kThreads;
  return static_cast<unsigned>(b < 4096 ? (b == 0 ? 1 : b) : 4096);
}

template <typename T>
void launch_reduce(void* inout, const void* in, std::size_t n, ReduceOp op, cudaStream_t s) {
  auto* a = static_cast<T*>(inout);
  const auto* b = static_cast<const T*>(in);
  const bool vec =
      (reinterpret_cast<std::uintptr_t>(a) | reinterpret_cast<std::uintptr_t>(b)) % 16 == 0;
  const unsigned grid = blocks_for(vec ? n / (16 / sizeof(T)) + 1 : n);
  switch (op) {
    case ReduceOp::sum:
      reduce_kernel<T, ReduceOp::sum><<<grid, kThreads, 0, s>>>(a, b, n, vec);
      break;
    case ReduceOp::prod:
      reduce_kernel<T, ReduceOp::prod><<<grid, kThreads, 0, s>>>(a, b, n, vec);
      break;
    case ReduceOp::min:
      reduce_kernel<T, ReduceOp::min><<<grid, kThreads, 0, s>>>(a, b, n, vec);
      break;
    case ReduceOp::max:
      reduce_kernel<T, ReduceOp::max><<<grid, kThreads, 0, s>>>(a, b, n, vec);
      break;
    case ReduceOp::avg: throw InvalidArgument("cuda reduce: avg is reduced as sum, then divided");
  }
  check(cudaGetLastError(), "reduce kernel launch");
}

template <typename T>
void launch_divide(void* inout, std::size_t n, std::size_t divisor, cudaStream_t s) {
  divide_kernel<T><<<blocks_for(n), kThreads, 0, s>>>(static_cast<T*>(inout), n, divisor);
  check(cudaGetLastError(), "divide kernel launch");
}

}  // namespace

void reduce(void* inout, const void* in, std::size_t count, DType type, ReduceOp op,
            cudaStream_t s) {
  if (count == 0) return;
  switch (type) {
    case DType::float32: return launch_reduce<float>(inout, in, count, op, s);
    case DType::float64: return launch_reduce<double>(inout, in, count, op, s);
    case DType::float16: return launch_reduce<__half>(inout, in, count, op, s);
    case DType::bfloat16: return launch_reduce<__nv_bfloat16>(inout, in, count, op, s);
    case DType::int32: return launch_reduce<std::int32_t>(inout, in, count, op, s);
    case DType::int64: return launch_reduce<std::int64_t>(inout, in, count, op, s);
  }
}

void divide(void* inout, std::size_t count, DType type, std::size_t divisor, cudaStream_t s) {
  DDL_CHECK(divisor > 0, "divide by zero contributors");
  if (count == 0) return;
  switch (type) {
    case DType::float32: return launch_divide<float>(inout, count, divisor, s);
    case DType::float64: return launch_divide<double>(inout, count, divisor, s);
    case DType::float16: return launch_divide<__half>(inout, count, divisor, s);
    case DType::bfloat16: return launch_divide<__nv_bfloat16>(inout, count, divisor, s);
    case DType::int32: return launch_divide<std::int32_t>(inout, count, divisor, s);
    case DType::int64: return launch_divide<std::int64_t>(inout, count, divisor, s);
  }
}

}  // namespace ddl::cuda
