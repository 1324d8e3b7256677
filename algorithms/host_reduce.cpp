#include "algorithms/host_reduce.hpp"

#include <algorithm>
#include <bit>
#include <cstring>
#include <type_traits>

#include "algorithms/error.hpp"

namespace ddl {

float half_to_float(std::uint16_t h) {
  const std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000u) << 16;
  const std::uint32_t exp = (h >> 10) & 0x1fu, mant = h & 0x3ffu;
  if (exp == 0) {
    // Zero or subnormal: mant * 2^-24 is exact in float.
    const float magnitude = static_cast<float>(mant) * 5.9604644775390625e-8f;
    return std::bit_cast<float>(sign | std::bit_cast<std::uint32_t>(magnitude));
  }
  if (exp == 31) return std::bit_cast<float>(sign | 0x7f800000u | (mant << 13));
  return std::bit_cast<float>(sign | ((exp + 112) << 23) | (mant << 13));
}

std::uint16_t float_to_half(float f) {
  // Round-to-nearest-even conversion after F. Giesen's float_to_half_fast3_rtne.
  std::uint32_t x = std::bit_cast<std::uint32_t>(f);
  const std::uint32_t sign = x & 0x80000000u;
  x ^= sign;
  std::uint32_t out;
  if (x >= (127u + 16u) << 23) {
    out = x > 0x7f800000u ? 0x7e00u : 0x7c00u;  // NaN stays NaN, too large -> inf
  } else if (x < 113u << 23) {
    // Subnormal or zero: let the FPU round by adding a magic number whose ulp is 2^-24.
    const std::uint32_t magic = ((127u - 15u) + (23u - 10u) + 1u) << 23;
    out =
        std::bit_cast<std::uint32_t>(std::bit_cast<float>(x) + std::bit_cast<float>(magic)) - magic;
  } else {
    const std::uint32_t mant_odd = (x >> 13) & 1u;
    x += (static_cast<std::uint32_t>(15 - 127) << 23) + 0xfffu + mant_odd;
    out = x >> 13;
  }
  return static_cast<std::uint16_t>(out | (sign >> 16));
}

float bfloat16_to_float(std::uint16_t b) {
  return std::bit_cast<float>(static_cast<std::uint32_t>(b) << 16);
}

std::uint16_t float_to_bfloat16(float f) {
  std::uint32_t x = std::bit_cast<std::uint32_t>(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) return static_cast<std::uint16_t>((x >> 16) | 0x40u);
  x += 0x7fffu + ((x >> 16) & 1u);
  return static_cast<std::uint16_t>(x >> 16);
}

namespace {

template <typename T>
T apply(T a, T b, ReduceOp op) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;  // wrap instead of signed-overflow UB
    switch (op) {
      case ReduceOp::sum: return static_cast<T>(static_cast<U>(a) + static_cast<U>(b));
      case ReduceOp::prod: return static_cast<T>(static_cast<U>(a) * static_cast<U>(b));
      default: break;
    }
  } else {
    switch (op) {
      case ReduceOp::sum: return a + b;
      case ReduceOp::prod: return a * b;
      default: break;
    }
  }
  return op == ReduceOp::min ? std::min(a, b) : std::max(a, b);
}

// The op is hoisted out of the loop so each instantiation is a plain vectorisable loop.
template <typename T, ReduceOp Op>
void reduce_loop(T* __restrict a, const T* __restrict b, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) a[i] = apply(a[i], b[i], Op);
}

template <typename T>
void reduce_native(void* inout, const void* in, std::size_t n, ReduceOp op) {
  T* a = static_cast<T*>(inout);
  const T* b = static_cast<const T*>(in);
  switch (op) {
    case ReduceOp::sum: return reduce_loop<T, ReduceOp::sum>(a, b, n);
    case ReduceOp::prod: return reduce_loop<T, ReduceOp::prod>(a, b, n);
    case ReduceOp::min: return reduce_loop<T, ReduceOp::min>(a, b, n);
    case ReduceOp::max: return reduce_loop<T, ReduceOp::max>(a, b, n);
    case ReduceOp::avg: break;
  }
  throw InvalidArgument("host_reduce: avg is reduced as sum, then divided");
}

template <float (*ToFloat)(std::uint16_t), std::uint16_t (*FromFloat)(float)>
void reduce_16bit(void* inout, const void* in, std::size_t n, ReduceOp op) {
  DDL_CHECK(op != ReduceOp::avg, "host_reduce: avg is reduced as sum, then divided");
  auto* a = static_cast<std::uint16_t*>(inout);
  const auto* b = static_cast<const std::uint16_t*>(in);
  for (std::size_t i = 0; i < n; ++i) a[i] = FromFloat(apply(ToFloat(a[i]), ToFloat(b[i]), op));
}

}  // namespace

void host_reduce(void* inout, const void* in, std::size_t count, DType type, ReduceOp op) {
  if (count == 0) return;
  switch (type) {
    case DType::float32: return reduce_native<float>(inout, in, count, op);
    case DType::float64: return reduce_native<double>(inout, in, count, op);
    case DType::int32: return reduce_native<std::int32_t>(inout, in, count, op);
    case DType::int64: return reduce_native<std::int64_t>(inout, in, count, op);
    case DType::float16: return reduce_16bit<half_to_float, float_to_half>(inout, in, count, op);
    case DType::bfloat16:
      return reduce_16bit<bfloat16_to_float, float_to_bfloat16>(inout, in, count, op);
  }
}

double load_as_double(const void* data, std::size_t i, DType type) {
  switch (type) {
    case DType::float32: return static_cast<const float*>(data)[i];
    case DType::float64: return static_cast<const double*>(data)[i];
    case DType::int32: return static_cast<const std::int32_t*>(data)[i];
    case DType::int64: return static_cast<double>(static_cast<const std::int64_t*>(data)[i]);
    case DType::float16: return half_to_float(static_cast<const std::uint16_t*>(data)[i]);
    case DType::bfloat16: return bfloat16_to_float(static_cast<const std::uint16_t*>(data)[i]);
  }
  return 0;
}

void store_from_double(void* data, std::size_t i, DType type, double v) {
  switch (type) {
    case DType::float32: static_cast<float*>(data)[i] = static_cast<float>(v); return;
    case DType::float64: static_cast<double*>(data)[i] = v; return;
    case DType::int32: static_cast<std::int32_t*>(data)[i] = static_cast<std::int32_t>(v); return;
    case DType::int64: static_cast<std::int64_t*>(data)[i] = static_cast<std::int64_t>(v); return;
    case DType::float16:
      static_cast<std::uint16_t*>(data)[i] = float_to_half(static_cast<float>(v));
      return;
    case DType::bfloat16:
      static_cast<std::uint16_t*>(data)[i] = float_to_bfloat16(static_cast<float>(v));
      return;
  }
}

void host_divide(void* inout, std::size_t count, DType type, std::size_t divisor) {
  DDL_CHECK(divisor > 0, "divide by zero contributors");
  const double d = static_cast<double>(divisor);
  if (type == DType::int64) {  // exact for the whole int64 range, unlike a trip through double
    auto* p = static_cast<std::int64_t*>(inout);
    for (std::size_t i = 0; i < count; ++i) p[i] /= static_cast<std::int64_t>(divisor);
    return;
  }
  for (std::size_t i = 0; i < count; ++i)
    store_from_double(inout, i, type, load_as_double(inout, i, type) / d);
}

}  // namespace ddl
