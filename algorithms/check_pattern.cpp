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

// alltoall: what rank `from` sends rank `to` at index k of the block, told apart by sender and
// receiver (17 and 5 are prime to 97 > 64 ranks) and exact in every dtype (<= 97).
double alltoall_value(int from, int to, std::size_t k) {
  return static_cast<double>(
             (static_cast<std::size_t>(from) * 17 + static_cast<std::size_t>(to) * 5 + k) % 97) +
         1;
}

// alltoall's input or output of `rank` at element i: blocks of count / ranks elements, the rest
// of the count not sent (its pattern_value both before and after).
double alltoall_element(int rank, int ranks, std::size_t count, std::size_t i, ReduceOp op,
                        bool output) {
  const std::size_t b = count / static_cast<std::size_t>(ranks);
  if (b == 0 || i >= b * static_cast<std::size_t>(ranks)) return pattern_value(rank, i, op);
  const int j = static_cast<int>(i / b);
  return output ? alltoall_value(j, rank, i % b) : alltoall_value(rank, j, i % b);
}

bool in_block(Block b, std::size_t i, std::size_t elem) {
  return i * elem >= b.offset && i * elem < b.offset + b.bytes;
}
}  // namespace

void fill_input(void* data, std::size_t count, DType type, ReduceOp op, Collective collective,
                int rank, int ranks, int root) {
  const std::size_t elem = dtype_size(type);
  const Block mine = block_of(count, type, rank, ranks);
  for (std::size_t i = 0; i < count; ++i) {
    double v = pattern_value(rank, i, op);
    switch (collective) {
      case Collective::allgather:
      case Collective::gather: v = in_block(mine, i, elem) ? v : kPoison; break;
      case Collective::broadcast:
      case Collective::scatter: v = rank == root ? v : kPoison; break;
      case Collective::alltoall: v = alltoall_element(rank, ranks, count, i, op, false); break;
      case Collective::allreduce:
      case Collective::reduce_scatter:
      case Collective::reduce:
      case Collective::sendrecv: break;
    }
    store_from_double(data, i, type, v);
  }
}

void fill_poison(void* data, std::size_t count, DType type) {
  for (std::size_t i = 0; i < count; ++i) store_from_double(data, i, type, kPoison);
}

CheckResult check_output(const void* data, std::size_t count, DType type, ReduceOp op,
                         Collective collective, int rank, int ranks, int root) {
  const std::size_t elem = dtype_size(type);
  CheckResult result{0, count, 0, 0};
  std::size_t begin = 0, end = count;
  if (collective == Collective::reduce_scatter || collective == Collective::scatter) {
    const Block mine = block_of(count, type, rank, ranks);
    begin = mine.offset / elem;
    end = begin + mine.bytes / elem;
  }
  const bool rooted = collective == Collective::reduce || collective == Collective::gather;
  if (rooted && rank != root) end = 0;  // only the root's buffer is defined
  // Every pattern repeats with period 104 = lcm(4, 8, 13) in i: compute each expected once.
  constexpr std::size_t kPeriod = 104;
  std::vector<double> reduced(kPeriod);
  if (collective == Collective::allreduce || collective == Collective::reduce_scatter ||
      collective == Collective::reduce)
    for (std::size_t k = 0; k < kPeriod; ++k) reduced[k] = expected_allreduce(ranks, k, op, type);
  const std::vector<Block> blocks = partition(count, static_cast<std::size_t>(ranks), elem);
  std::size_t owner = 0;  // allgather: the rank whose block holds element i
  for (std::size_t i = begin; i < end; ++i) {
    double expected = 0;
    switch (collective) {
      case Collective::allreduce:
      case Collective::reduce_scatter:
      case Collective::reduce: expected = reduced[i % kPeriod]; break;
      case Collective::allgather:
      case Collective::gather:
        while (i * elem >= blocks[owner].offset + blocks[owner].bytes) ++owner;
        expected = as_stored(pattern_value(static_cast<int>(owner), i, op), type);
        break;
      case Collective::broadcast:
      case Collective::scatter: expected = as_stored(pattern_value(root, i, op), type); break;
      case Collective::alltoall:
        expected = as_stored(alltoall_element(rank, ranks, count, i, op, true), type);
        break;
      case Collective::sendrecv:
        expected = as_stored(pattern_value((rank + ranks - 1) % ranks, i, op), type);
        break;
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
