// The loopback communicator itself and the fault-injecting wrapper: matching, errors, timeouts,
// and several different collectives back to back on one communicator.
#include <catch2/catch.hpp>
#include <vector>

#include "algorithms/check_pattern.hpp"
#include "algorithms/registry.hpp"
#include "loopback/fault_injecting_communicator.hpp"
#include "loopback/loopback_communicator.hpp"

using namespace ddl;
using namespace std::chrono_literals;

TEST_CASE("messages match by peer and tag, FIFO per tag", "[loopback]") {
  run_ranks(2, [](Communicator& c) {
    int a = 1, b = 2, x = 0, y = 0;
    if (c.rank() == 0) {
      Request s1 = c.isend(1, {&a, sizeof a}, 7);
      Request s2 = c.isend(1, {&b, sizeof b}, 8);
      c.wait(s2);  // completes once rank 1 posts tag 8, though tag 7 is still unreceived
      c.wait(s1);
    } else {
      Request r2 = c.irecv(0, {&y, sizeof y}, 8);
      c.wait(r2);
      Request r1 = c.irecv(0, {&x, sizeof x}, 7);
      c.wait(r1);
      REQUIRE(x == 1);
      REQUIRE(y == 2);
    }
  });
}

TEST_CASE("a size mismatch names both sides", "[loopback][errors]") {
  CHECK_THROWS_WITH(
      run_ranks(2,
                [](Communicator& c) {
                  std::int64_t v = 0;
                  Request r = c.rank() == 0 ? c.isend(1, {&v, 8}, 3) : c.irecv(0, {&v, 4}, 3);
                  c.wait(r);
                }),
      Catch::Contains("sent 8 bytes") && Catch::Contains("receive of 4") &&
          Catch::Contains("tag 3"));
}

TEST_CASE("invalid peers are errors", "[loopback][errors]") {
  CHECK_THROWS_WITH(run_ranks(2, [](Communicator& c) { c.isend(5, {}, 0); }),
                    Catch::Contains("invalid peer 5"));
}

TEST_CASE("a dropped message makes its receiver time out naming peer and tag",
          "[loopback][faults]") {
  const Algorithm& ring = find_algorithm("ring");
  CHECK_THROWS_WITH(
      run_ranks(
          3,
          [&](Communicator& inner) {
            FaultInjectingCommunicator::Faults faults;
            if (inner.rank() == 1) faults.drop_peer = 2;  // ring: 1 sends to 2 with tag 0
            FaultInjectingCommunicator comm(inner, faults);
            std::vector<float> buf(30, 1.0f);
            ring.run(comm, {buf.data(), buf.size() * 4}, DType::float32, ReduceOp::sum, {});
          },
          0.3s),
      Catch::Contains("rank 2") && Catch::Contains("recv from peer 1 tag 0") &&
          Catch::Contains("timed out"));
}

TEST_CASE("wait_any returns whichever request completes first", "[loopback]") {
  run_ranks(2, [](Communicator& c) {
    int a = 1, b = 2, x = 0, y = 0, ack = 0;
    if (c.rank() == 0) {
      Request s = c.isend(1, {&b, sizeof b}, 8);
      c.wait(s);
      Request acked = c.irecv(1, {&ack, sizeof ack}, 9);  // tag 7 only once rank 1 has had 8
      c.wait(acked);
      Request s7 = c.isend(1, {&a, sizeof a}, 7);
      c.wait(s7);
    } else {
      Request rs[] = {c.irecv(0, {&x, sizeof x}, 7), c.irecv(0, {&y, sizeof y}, 8)};
      CHECK(c.wait_any(rs) == 1);
      CHECK(y == 2);
      CHECK(rs[1].id == 0);
      CHECK(rs[0].pending());
      Request acking = c.isend(0, {&ack, sizeof ack}, 9);
      c.wait(acking);
      CHECK(c.wait_any(rs) == 0);
      CHECK(x == 1);
    }
  });
}

TEST_CASE("wait_any times out naming every request it waited for", "[loopback][errors]") {
  CHECK_THROWS_WITH(
      run_ranks(
          2,
          [](Communicator& c) {
            if (c.rank() == 0) return;
            int x = 0, y = 0;
            Request rs[] = {c.irecv(0, {&x, sizeof x}, 7), c.irecv(0, {&y, sizeof y}, 8)};
            c.wait_any(rs);
          },
          0.2s),
      Catch::Contains("rank 1") && Catch::Contains("tag 7") && Catch::Contains("tag 8") &&
          Catch::Contains("completed after"));
}

TEST_CASE("a rank that stops during a pipelined ddl is named within the timeout",
          "[loopback][faults]") {
  const Algorithm& ddl = find_algorithm("ddl");
  Options opts;
  opts.dims = Dims({2, 2});
  opts.chunks = 3;
  CHECK_THROWS_WITH(
      run_ranks(
          4,
          [&](Communicator& inner) {
            FaultInjectingCommunicator::Faults faults;
            if (inner.rank() == 3) faults.drop_peer = 2;  // its first send, in the node (2x2)
            FaultInjectingCommunicator comm(inner, faults);
            std::vector<float> buf(300, 1.0f);
            ddl.run(comm, {buf.data(), buf.size() * 4}, DType::float32, ReduceOp::sum, opts);
          },
          0.3s),
      // Rank 2 waits for it, rank 1 for what rank 3 sends it next: either names rank 3.
      Catch::Contains("peer 3") && Catch::Contains("completed after"));
}

TEST_CASE("delayed sends still give exact results", "[loopback][faults]") {
  const Algorithm& ddl = find_algorithm("ddl");
  std::vector<std::size_t> wrong(4, 1);
  run_ranks(4, [&](Communicator& inner) {
    FaultInjectingCommunicator::Faults faults;
    if (inner.rank() == 3) faults.send_delay = 2ms;
    FaultInjectingCommunicator comm(inner, faults);
    std::vector<float> buf(1001);
    fill_input(buf.data(), buf.size(), DType::float32, ReduceOp::sum, Collective::allreduce,
               comm.rank(), 4, 0);
    Options opts;
    opts.dims = Dims::parse("2x2");
    opts.rings = 2;
    ddl.run(comm, {buf.data(), buf.size() * 4}, DType::float32, ReduceOp::sum, opts);
    wrong[static_cast<std::size_t>(comm.rank())] =
        check_output(buf.data(), buf.size(), DType::float32, ReduceOp::sum, Collective::allreduce,
                     comm.rank(), 4, 0)
            .wrong;
  });
  CHECK(wrong == std::vector<std::size_t>(4, 0));
}

TEST_CASE("different collectives back to back on one communicator", "[loopback]") {
  const int p = 6;
  std::vector<std::size_t> wrong(p, 1);
  run_ranks(p, [&](Communicator& comm) {
    std::size_t bad = 0;
    for (int round = 0; round < 2; ++round)
      for (const Algorithm& algo : algorithms()) {
        // loopback's threads have no switch that reduces, nor a library of their own
        if (algo.needs_in_switch || algo.needs_native_library) continue;
        const DType t = round ? DType::bfloat16 : DType::int32;
        std::vector<std::int32_t> buf(517);
        fill_input(buf.data(), 517, t, ReduceOp::sum, algo.collective, comm.rank(), p, 1);
        Options opts;
        opts.root = 1;
        opts.dims = algo.name == "ddl" || algo.name == "hier" ? Dims::parse("3x2") : Dims{};
        algo.run(comm, {buf.data(), 517 * dtype_size(t)}, t, ReduceOp::sum, opts);
        bad += check_output(buf.data(), 517, t, ReduceOp::sum, algo.collective, comm.rank(), p, 1)
                   .wrong;
      }
    wrong[static_cast<std::size_t>(comm.rank())] = bad;
  });
  CHECK(wrong == std::vector<std::size_t>(p, 0));
}

TEST_CASE("scratch memory is pooled, not reallocated", "[loopback]") {
  run_ranks(1, [](Communicator& c) {
    MutView a = c.acquire_scratch(1000);
    c.release_scratch(a);
    MutView b = c.acquire_scratch(500);
    CHECK(b.data == a.data);  // the released buffer is reused
    MutView d = c.acquire_scratch(500);
    CHECK(d.data != b.data);  // one in use is never handed out twice
    c.release_scratch(b);
    c.release_scratch(d);
  });
}
