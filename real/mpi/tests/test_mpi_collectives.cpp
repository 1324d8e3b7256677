// Every registered algorithm over MPI: every dims factorization that fits the world, counts
// 0, 1, odd and 16 MB, every dtype, exact results. Inputs are the shared check pattern
// (algorithms/check_pattern.hpp): small integers, exact in any reduction order and dtype.
#include <mpi.h>

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "algorithms/check_pattern.hpp"
#include "algorithms/registry.hpp"
#include "real/mpi/mpi_communicator.hpp"

using namespace ddl;

namespace {

// Fills the input for `a` with the shared check pattern, runs it, and returns how many
// elements of this rank's defined output differ from the exact result.
std::size_t run_and_count_wrong(MpiCommunicator& comm, const Algorithm& a, std::size_t count,
                                DType type, ReduceOp op, const Options& opts) {
  // Kept between runs: fresh 16 MB vectors would pay their page faults every time.
  static std::vector<std::byte> buf;
  buf.resize(count * dtype_size(type));
  fill_input(buf.data(), count, type, op, a.collective, comm.rank(), comm.size(), opts.root);
  a.run(comm, {buf.data(), buf.size()}, type, op, opts);
  return check_output(buf.data(), count, type, op, a.collective, comm.rank(), comm.size(),
                      opts.root)
      .wrong;
}

// None for the in-switch algorithms, which MPI cannot run (their refusal is tested below); one
// for native, which has no grid.
std::vector<Dims> dims_for(const Algorithm& a, int p) {
  if (a.needs_in_switch) return {};
  if (a.collective != Collective::allreduce || a.needs_native_library) return {Dims::flat(p)};
  return factorizations(p, 3);
}

}  // namespace

TEST_CASE("every algorithm is exact on counts 0, 1, p+1 and odd, every dtype and op", "[mpi]") {
  MpiCommunicator comm(MPI_COMM_WORLD, 30);
  const int p = comm.size();
  const std::vector<ReduceOp> sum_only = {ReduceOp::sum};
  for (const Algorithm& a : algorithms())
    for (const Dims& dims : dims_for(a, p))
      for (std::size_t count :
           {std::size_t{0}, std::size_t{1}, std::size_t(p + 1), std::size_t{1001}})
        for (DType type : all_dtypes()) {
          if (a.needs_native_library && !comm.native_supports(type)) continue;  // tested below
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
}

TEST_CASE("every algorithm is exact on 16 MB, ring and ddl in every dtype", "[mpi]") {
  MpiCommunicator comm(MPI_COMM_WORLD, 60);
  const int p = comm.size();
  for (const Algorithm& a : algorithms()) {
    if (a.needs_in_switch) continue;
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

TEST_CASE("ring's channels and ddl's pipelined chunks are exact on every grid", "[mpi]") {
  MpiCommunicator comm(MPI_COMM_WORLD, 30);
  const int p = comm.size();
  for (const Dims& dims : factorizations(p, 3))
    for (const char* name : {"ring", "ddl"})
      for (int n : {2, 3})
        for (std::size_t count : {std::size_t{0}, std::size_t(p + 1), std::size_t{100003}}) {
          Options opts;
          opts.dims = dims;
          (std::string(name) == "ring" ? opts.channels : opts.chunks) = n;
          opts.segment_bytes = count > 1000 ? 4096 : 0;
          INFO(name << " dims " << dims.to_string() << " channels/chunks " << n << " count "
                    << count);
          CHECK(run_and_count_wrong(comm, find_algorithm(name), count, DType::float32,
                                    ReduceOp::avg, opts) == 0);
        }
}
