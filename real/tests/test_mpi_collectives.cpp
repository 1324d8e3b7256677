// Every registered algorithm over MPI: every dims factorization that fits the world, counts
// 0, 1, odd and 16 MB, every dtype, exact results. Inputs are small integers, so every
// reduction order gives the same bits in every dtype (float16 and bfloat16 included).
#include <mpi.h>

#include <catch2/catch.hpp>
#include <cstring>
#include <string>
#include <vector>

#include "algorithms/host_reduce.hpp"
#include "algorithms/registry.hpp"
#include "algorithms/schedule.hpp"
#include "real/mpi_communicator.hpp"

using namespace ddl;

namespace {

// 1..3: sums stay below 13 and products below 82 over 4 ranks, exact even in bfloat16.
// Period 3 in the index, so whole buffers are filled by copying one tile.
double input(int rank, std::size_t i) { return 1.0 + static_cast<double>((i + rank) % 3); }

double expected_value(int p, std::size_t i, ReduceOp op) {
  double acc = input(0, i);
  for (int r = 1; r < p; ++r) {
    const double v = input(r, i);
    switch (op) {
      case ReduceOp::sum:
      case ReduceOp::avg: acc += v; break;
      case ReduceOp::prod: acc *= v; break;
      case ReduceOp::min: acc = std::min(acc, v); break;
      case ReduceOp::max: acc = std::max(acc, v); break;
    }
  }
  return op == ReduceOp::avg ? acc / p : acc;
}

// Elements [lo, hi) of buf get value(i), which must have period 3 in i: one tile is written,
// then the filled prefix is copied onto the rest, doubling (16 MB in a few milliseconds).
template <typename Value>
void fill(std::vector<std::byte>& buf, DType type, std::size_t lo, std::size_t hi, Value value) {
  const std::size_t elem = dtype_size(type);
  std::byte* base = buf.data() + lo * elem;
  const std::size_t total = (hi - lo) * elem;
  for (std::size_t k = 0; k < 3 && lo + k < hi; ++k) store_from_double(base, k, type, value(lo + k));
  for (std::size_t done = std::min(total, 3 * elem); done < total;) {
    const std::size_t n = std::min(done / (3 * elem) * (3 * elem), total - done);
    std::memcpy(base + done, base, n);
    done += n;
  }
}

// Fills the input for `a`, runs it, and returns how many elements differ from the expected
// bytes (only the elements the collective defines are compared).
std::size_t run_and_count_wrong(MpiCommunicator& comm, const Algorithm& a, std::size_t count,
                                DType type, ReduceOp op, const Options& opts) {
  const int p = comm.size(), r = comm.rank();
  const std::size_t elem = dtype_size(type);
  // Kept between runs: fresh 16 MB vectors would pay their page faults every time.
  static std::vector<std::byte> buf, want;
  buf.resize(count * elem);
  want.resize(count * elem);
  const std::vector<Block> blocks = partition(count, static_cast<std::size_t>(p), 1);
  std::size_t lo = 0, hi = count;  // the range the collective defines on this rank
  switch (a.collective) {
    case Collective::allgather:
      fill(buf, type, 0, count, [](std::size_t) { return -7.0; });
      for (int b = 0; b < p; ++b) {
        const std::size_t first = blocks[b].offset, last = first + blocks[b].bytes;
        fill(want, type, first, last, [b](std::size_t i) { return input(b, i); });
        if (b == r) fill(buf, type, first, last, [r](std::size_t i) { return input(r, i); });
      }
      break;
    case Collective::broadcast:
      fill(buf, type, 0, count, [r](std::size_t i) { return input(r, i); });
      fill(want, type, 0, count, [&](std::size_t i) { return input(opts.root, i); });
      break;
    default:
      fill(buf, type, 0, count, [r](std::size_t i) { return input(r, i); });
      fill(want, type, 0, count, [&](std::size_t i) { return expected_value(p, i, op); });
      if (a.collective == Collective::reduce_scatter) {
        lo = blocks[r].offset;
        hi = lo + blocks[r].bytes;
      }
  }
  a.run(comm, {buf.data(), buf.size()}, type, op, opts);
  if (std::memcmp(buf.data() + lo * elem, want.data() + lo * elem, (hi - lo) * elem) == 0) return 0;
  std::size_t wrong = 0;
  for (std::size_t i = lo; i < hi; ++i)
    if (std::memcmp(buf.data() + i * elem, want.data() + i * elem, elem) != 0) ++wrong;
  return wrong;
}

std::vector<Dims> dims_for(const Algorithm& a, int p) {
  if (a.collective != Collective::allreduce) return {Dims::flat(p)};
  return factorizations(p, 3);
}

}  // namespace

TEST_CASE("every algorithm is exact on counts 0, 1, p+1 and odd, every dtype and op", "[mpi]") {
  MpiCommunicator comm(MPI_COMM_WORLD, 30);
  const int p = comm.size();
  const std::vector<ReduceOp> sum_only = {ReduceOp::sum};
  for (const Algorithm& a : algorithms())
    for (const Dims& dims : dims_for(a, p))
      for (std::size_t count : {std::size_t{0}, std::size_t{1}, std::size_t(p + 1), std::size_t{1001}})
        for (DType type : all_dtypes())
          // Every op on the odd count; the others check the edges of the partition with sum.
          for (ReduceOp op : count == 1001 ? all_reduce_ops() : sum_only) {
            Options opts;
            opts.dims = dims;
            opts.root = p - 1;
            opts.segment_bytes = 256;
            INFO(a.name << " dims " << dims.to_string() << " count " << count << " "
                        << to_string(type) << " " << to_string(op));
            CHECK(run_and_count_wrong(comm, a, count, type, op, opts) == 0);
          }
}

TEST_CASE("every algorithm is exact on 16 MB; ring and ddl in every dtype", "[mpi]") {
  MpiCommunicator comm(MPI_COMM_WORLD, 60);
  const int p = comm.size();
  for (const Algorithm& a : algorithms()) {
    const bool all_types = a.name == "ring" || a.name == "ddl";
    // ddl on its most-dimensional grid, everything else flat: one 16 MB run each keeps the
    // test at a few seconds on two cores.
    const std::vector<Dims> grids = dims_for(a, p);
    const Dims dims = a.name == "ddl" ? grids.back() : Dims::flat(p);
    for (DType type : all_dtypes()) {
      if (!all_types && type != DType::float32) continue;
      Options opts;
      opts.dims = dims;
      opts.root = p - 1;
      opts.segment_bytes = 1 << 20;
      const std::size_t count = (std::size_t{16} << 20) / dtype_size(type);
      INFO(a.name << " dims " << dims.to_string() << " 16 MB " << to_string(type));
      CHECK(run_and_count_wrong(comm, a, count, type, ReduceOp::sum, opts) == 0);
    }
  }
}
