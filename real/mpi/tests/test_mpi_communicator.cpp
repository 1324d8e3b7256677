// The MPI communicator's own contract: point-to-point matching, sizes, local kernels, scratch
// reuse, and the failure paths (timeout, size mismatch, bad peer or tag) as clear errors.
#include <mpi.h>

#include <catch2/catch.hpp>
#include <cstdint>
#include <vector>

#include "algorithms/error.hpp"
#include "algorithms/host_reduce.hpp"
#include "real/mpi/mpi_communicator.hpp"

using namespace ddl;

namespace {
void barrier() {
  MPI_Barrier(MPI_COMM_WORLD);
}
}  // namespace

TEST_CASE("messages between neighbours arrive intact, in order per tag", "[mpi]") {
  MpiCommunicator comm(MPI_COMM_WORLD, 30);
  const int p = comm.size(), r = comm.rank();
  const int next = (r + 1) % p, prev = (r + p - 1) % p;
  std::vector<std::int32_t> out1(1000, r), out2(1000, r + 100), in1(1000, -1), in2(1000, -1);
  Request rs[4] = {comm.irecv(prev, {in1.data(), 4000}, 3), comm.irecv(prev, {in2.data(), 4000}, 3),
                   comm.isend(next, ConstView{out1.data(), 4000}, 3),
                   comm.isend(next, ConstView{out2.data(), 4000}, 3)};
  comm.wait_all(rs);
  CHECK(in1 == std::vector<std::int32_t>(1000, prev));
  CHECK(in2 == std::vector<std::int32_t>(1000, prev + 100));
  for (const Request& q : rs) CHECK_FALSE(q.pending());
  barrier();
}

TEST_CASE("zero-byte messages match like any other", "[mpi]") {
  MpiCommunicator comm(MPI_COMM_WORLD, 30);
  const int p = comm.size(), r = comm.rank();
  Request rs[2] = {comm.irecv((r + p - 1) % p, {}, 0), comm.isend((r + 1) % p, ConstView{}, 0)};
  comm.wait_all(rs);
  CHECK_FALSE(rs[0].pending());
  barrier();
}

TEST_CASE("reduce, copy and divide run host_reduce's kernels", "[mpi]") {
  MpiCommunicator comm(MPI_COMM_WORLD, 30);
  std::vector<std::uint16_t> a(5), b(5);
  for (int i = 0; i < 5; ++i) {
    a[i] = float_to_half(1.0f + i);
    b[i] = float_to_half(0.5f);
  }
  comm.reduce({a.data(), 10}, ConstView{b.data(), 10}, DType::float16, ReduceOp::sum);
  CHECK(half_to_float(a[4]) == 5.5f);
  std::vector<double> d = {3, 9}, e(2);
  comm.divide({d.data(), 16}, DType::float64, 3);
  CHECK(d == std::vector<double>{1, 3});
  comm.copy({e.data(), 16}, ConstView{d.data(), 16});
  CHECK(e == d);
  CHECK_THROWS_AS(
      comm.reduce({a.data(), 10}, ConstView{b.data(), 8}, DType::float16, ReduceOp::sum),
      InvalidArgument);
}

TEST_CASE("scratch is allocated once and reused", "[mpi]") {
  MpiCommunicator comm(MPI_COMM_WORLD, 30);
  MutView first = comm.acquire_scratch(1 << 20);
  comm.release_scratch(first);
  MutView again = comm.acquire_scratch(1000);
  CHECK(again.data == first.data);
  CHECK(again.bytes == 1000);
  MutView other = comm.acquire_scratch(1000);
  CHECK(other.data != again.data);
  comm.release_scratch(other);
  comm.release_scratch(again);
  CHECK(comm.acquire_scratch(0).data == nullptr);
  int local = 0;
  CHECK_THROWS_AS(comm.release_scratch({&local, 4}), InvalidArgument);
}

TEST_CASE("an unmatched receive times out naming rank, peer, tag and operation", "[mpi]") {
  MpiCommunicator comm(MPI_COMM_WORLD, 0.2);
  if (comm.size() >= 2 && comm.rank() == 1) {
    std::vector<char> buf(64);
    Request r = comm.irecv(0, {buf.data(), buf.size()}, 42);
    try {
      comm.wait(r);
      FAIL("the wait returned although nothing was sent");
    } catch (const Timeout& e) {
      CHECK(std::string(e.what()) ==
            "rank 1: timed out after 0.2 s waiting for recv from peer 0 tag 42 (64 bytes)");
    }
  }
  barrier();
}

TEST_CASE("send and receive sizes must match", "[mpi]") {
  MpiCommunicator comm(MPI_COMM_WORLD, 30);
  if (comm.size() < 2) return;
  std::vector<char> small(8), large(16);
  if (comm.rank() == 0) {
    Request s = comm.isend(1, ConstView{small.data(), 8}, 5);
    comm.wait(s);
    s = comm.isend(1, ConstView{large.data(), 16}, 6);
    comm.wait(s);
  } else if (comm.rank() == 1) {
    Request r = comm.irecv(0, {large.data(), 16}, 5);
    CHECK_THROWS_WITH(comm.wait(r), Catch::Contains("recv from peer 0 tag 5 (16 bytes): peer sent "
                                                    "8 bytes where 16 were expected"));
    r = comm.irecv(0, {small.data(), 8}, 6);
    CHECK_THROWS_WITH(comm.wait(r), Catch::Contains("MPI_Test, rank 1, recv from peer 0 tag 6"));
  }
  barrier();
}

TEST_CASE("a peer outside the world or a tag outside MPI's range is refused", "[mpi]") {
  MpiCommunicator comm(MPI_COMM_WORLD, 30);
  char c = 0;
  CHECK_THROWS_WITH(comm.isend(comm.size(), ConstView{&c, 1}, 0),
                    Catch::Contains("peer " + std::to_string(comm.size()) + " is not in [0, "));
  CHECK_THROWS_WITH(comm.irecv(-1, {&c, 1}, 0), Catch::Contains("peer -1 is not in"));
  CHECK_THROWS_WITH(comm.irecv(0, {&c, 1}, -3), Catch::Contains("tag -3 is outside MPI's range"));
  CHECK_THROWS_AS(MpiCommunicator(MPI_COMM_WORLD, 0), InvalidArgument);
}

TEST_CASE("compute requests complete after their duration", "[mpi]") {
  MpiCommunicator comm(MPI_COMM_WORLD, 30);
  const double start = comm.now();
  Request r = comm.compute(0.01);
  CHECK(r.pending());
  comm.wait(r);
  CHECK(comm.now() - start >= 0.01);
}

TEST_CASE("get and put reach the node's ranks through cross-memory attach", "[mpi][direct]") {
  MpiCommunicator comm(MPI_COMM_WORLD, 30);
  const int p = comm.size(), r = comm.rank();
  if (p == 1) {
    CHECK_FALSE(comm.shares_memory_with(0));  // not with itself
    return;
  }
  const int next = (r + 1) % p, prev = (r + p - 1) % p;
  // Every rank of these tests runs on this machine, which allows the kernel's cross-memory attach.
  CHECK(comm.shares_memory_with(next));
  CHECK_FALSE(comm.shares_memory_with(r));
  CHECK_FALSE(comm.shares_memory_with(p));
  std::vector<std::int32_t> mine(64, 1000 * r);
  const MemoryHandle h = comm.handle({mine.data(), 256});
  MemoryHandle of_next;
  Request rs[2] = {comm.irecv(next, {&of_next, sizeof of_next}, 5),
                   comm.isend(prev, ConstView{&h, sizeof h}, 5)};
  comm.wait_all(rs);
  std::vector<std::int32_t> got(4, -1);
  comm.get(next, of_next, 8, {got.data(), 16});
  CHECK(got == std::vector<std::int32_t>(4, 1000 * next));
  // Into next's elements 60..63; next reads them after the barrier below.
  const std::vector<std::int32_t> mark(4, -r);
  comm.put(next, of_next, 240, ConstView{mark.data(), 16});
  CHECK_THROWS_WITH(
      comm.get(next, of_next, 250, {got.data(), 16}),
      "get: bytes [250, 266) are outside peer " + std::to_string(next) + "'s buffer of 256 bytes");
  MemoryHandle forged = of_next;
  forged.owner += 1;
  CHECK_THROWS_WITH(comm.put(next, forged, 0, ConstView{mark.data(), 4}),
                    "put: the handle is not one of rank " + std::to_string(next) + "'s buffers");
  barrier();
  CHECK(mine[60] == -prev);
  CHECK(mine[63] == -prev);
  CHECK(mine[59] == 1000 * r);
  barrier();
}
