// Reference element-wise kernels on host memory, for every dtype and op. The loopback
// communicator, the simulator's payload mode and the MPI host path all reduce with these, so
// "exact" means the same thing everywhere. float16 and bfloat16 compute in float and round to
// nearest even; integers wrap on overflow (as two's complement hardware does) instead of UB.
#pragma once

#include <cstddef>
#include <cstdint>

#include "algorithms/types.hpp"

namespace ddl {

// inout[i] = inout[i] (op) in[i] for count elements. op must not be avg.
void host_reduce(void* inout, const void* in, std::size_t count, DType type, ReduceOp op);
// inout[i] /= divisor, computed in double and rounded to the dtype (integers truncate).
void host_divide(void* inout, std::size_t count, DType type, std::size_t divisor);

float half_to_float(std::uint16_t h);
std::uint16_t float_to_half(float f);  // round to nearest even; overflow -> inf; NaN kept
float bfloat16_to_float(std::uint16_t b);
std::uint16_t float_to_bfloat16(float f);  // round to nearest even; NaN kept

// Element i of a buffer as double, and the reverse (rounded to the dtype): for filling test
// patterns and checking results in any dtype.
double load_as_double(const void* data, std::size_t index, DType type);
void store_from_double(void* data, std::size_t index, DType type, double value);

}  // namespace ddl
