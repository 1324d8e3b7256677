// Test data whose exact result is known in any reduction order: every rank contributes small
// integers, so sums, products, minima and maxima are exact in every dtype (float16 and
// bfloat16 included) for up to 64 ranks. Shared by the unit tests and by the tools' --check,
// so "#wrong" means the same thing everywhere.
#pragma once

#include <cstddef>

#include "algorithms/registry.hpp"
#include "algorithms/types.hpp"

namespace ddl {

// Value that `rank` contributes at element i when reducing with op.
double pattern_value(int rank, std::size_t i, ReduceOp op);
// The exact allreduce result at element i over `ranks` ranks (avg divided as host_divide does).
double expected_allreduce(int ranks, std::size_t i, ReduceOp op, DType type);

// Fill `count` elements with rank's input for `collective` (allgather and gather: only this
// rank's block holds data, the rest is poisoned; broadcast and scatter: the root holds the data,
// others are poisoned; alltoall: each block tells its sender and receiver apart).
void fill_input(void* data, std::size_t count, DType type, ReduceOp op, Collective collective,
                int rank, int ranks, int root);
// Every element poisoned: an out-of-place call's output before the call, so bytes the call
// should have written and did not are counted wrong.
void fill_poison(void* data, std::size_t count, DType type);
// Elements of rank's output that differ from the exact result (reduce_scatter and scatter: only
// rank's block is checked; reduce and gather: only the root's buffer). Returns the count and the
// first wrong index (or count if none).
struct CheckResult {
  std::size_t wrong = 0;
  std::size_t first_wrong = 0;
  double got = 0, expected = 0;  // at first_wrong
};
CheckResult check_output(const void* data, std::size_t count, DType type, ReduceOp op,
                         Collective collective, int rank, int ranks, int root);

}  // namespace ddl
