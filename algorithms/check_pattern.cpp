#include "algorithms/check_pattern.hpp"

#include <vector>

#include "algorithms/host_reduce.hpp"
#include "algorithms/schedule.hpp"

namespace ddl {

namespace {
static_assert(104 % 4 == 0 && 104 % 8 == 0 && 104 % 13 == 0, "pattern period");
// A value no correct output contains, for bytes a collective must overwrite.
constexpr double kPoison = -99;

// The value of element i round-tripped through the dtype (what a buffer actually holds).
double as_stored(double v, DType type) {
  unsigned char tmp[8];
  store_from_double(tmp, 0, type, v);
  return load_as_double(tmp, 0, type);
}
}  // namespace

double pattern_value(int rank, std::size_t i, ReduceOp op) {
  const std::size_t k = static_cast<std::size_t>(rank) + i;
  switch (op) {
    case ReduceOp::prod: return k % 8 == 0 ? 2 : 1;  // <= 2^8 for 64 ranks: exact everywhere
    case ReduceOp::min:
    case ReduceOp::max:
      return static_cast<double>((static_cast<std::size_t>(rank) * 7 + i) % 13) - 6;
    case ReduceOp::sum:
    case ReduceOp::avg: break;
  }
  return static_cast<double>(k % 4 + 1);  // sum <= 256 for 64 ranks: exact in bfloat16
}

double expected_allreduce(int ranks, std::size_t i, ReduceOp op, DType type) {
  double acc = pattern_value(0, i, op);
  for (int r = 1; r < ranks; ++r) {
    const double v = pattern_value(r, i, op);
    switch (op) {
      case ReduceOp::sum:
      case ReduceOp::avg: acc += v; break;
      case ReduceOp::prod: acc *= v; break;
      case ReduceOp::min: acc = v < acc ? v : acc; break;
      case ReduceOp::max: acc = v > acc ? v : acc; break;
    }
  }
  if (op != ReduceOp::avg) return as_stored(acc, type);
  unsigned char tmp[8];
  store_from_double(tmp, 0, type, acc);
  host_divide(tmp, 1, type, static_cast<std::size_t>(ranks));
  return load_as_double(tmp, 0, type);
}

namespace {
Block block_of(std::size_t count, DType type, int rank, int ranks) {
  return partition(count, static_cast<std::size_t>(ranks),
                   dtype_size(type))[static_cast<std::size_t>(rank)];
}
}  // namespace

void fill_input(void* data, std::size_t count, DType type, ReduceOp op, Collective collective,
                int rank, int ranks, int root) {
  const std::size_t elem = dtype_size(type);
  const Block mine = block_of(count, type, rank, ranks);
  for (std::size_t i = 0; i < count; ++i) {
    double v = pattern_value(rank, i, op);
    if (collective == Collective::allgather) {
      const bool in_mine = i * elem >= mine.offset && i * elem < mine.offset + mine.bytes;
      v = in_mine ? pattern_value(rank, i, op) : kPoison;
    } else if (collective == Collective::broadcast) {
      v = rank == root ? pattern_value(root, i, op) : kPoison;
    }
    store_from_double(data, i, type, v);
  }
}

CheckResult check_output(const void* data, std::size_t count, DType type, ReduceOp op,
                         Collective collective, int rank, int ranks, int root) {
  const std::size_t elem = dtype_size(type);
  CheckResult result{0, count, 0, 0};
  std::size_t begin = 0, end = count;
  if (collective == Collective::reduce_scatter) {
    const Block mine = block_of(count, type, rank, ranks);
    begin = mine.offset / elem;
    end = begin + mine.bytes / elem;
  }
  // Every pattern repeats with period 104 = lcm(4, 8, 13) in i: compute each expected once.
  constexpr std::size_t kPeriod = 104;
  std::vector<double> reduced(kPeriod);
  if (collective == Collective::allreduce || collective == Collective::reduce_scatter)
    for (std::size_t k = 0; k < kPeriod; ++k) reduced[k] = expected_allreduce(ranks, k, op, type);
  const std::vector<Block> blocks = partition(count, static_cast<std::size_t>(ranks), elem);
  std::size_t owner = 0;  // allgather: the rank whose block holds element i
  for (std::size_t i = begin; i < end; ++i) {
    double expected = 0;
    switch (collective) {
      case Collective::allreduce:
      case Collective::reduce_scatter: expected = reduced[i % kPeriod]; break;
      case Collective::allgather:
        while (i * elem >= blocks[owner].offset + blocks[owner].bytes) ++owner;
        expected = as_stored(pattern_value(static_cast<int>(owner), i, op), type);
        break;
      case Collective::broadcast: expected = as_stored(pattern_value(root, i, op), type); break;
    }
    const double got = load_as_double(data, i, type);
    if (got != expected) {
      if (result.wrong == 0) result = {0, i, got, expected};
      ++result.wrong;
    }
  }
  return result;
}

}  // namespace ddl
