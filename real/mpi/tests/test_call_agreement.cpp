// Call signatures (pure text) and the ranks' agreement on them before a call's data moves
// (call_agreement.hpp); direct's own check of its peers' buffer sizes.
#include <mpi.h>

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "algorithms/collectives.hpp"
#include "real/mpi/call_agreement.hpp"
#include "real/mpi/call_signature.hpp"
#include "real/mpi/mpi_communicator.hpp"

using namespace ddl;

TEST_CASE("a call signature names every field that shapes the schedule", "[signature]") {
  Options o;
  o.dims = Dims({2, 3});
  o.methods = {IntraMethod::ring, IntraMethod::halving_doubling};
  o.rings = 2;
  o.segment_bytes = 4096;
  o.hd_order = HdOrder::far;
  o.root = 5;
  const std::string text = call_signature(1000, DType::float64, ReduceOp::max, "ddl", o);
  CHECK(text ==
        "count=1000;dtype=double;op=max;algorithm=ddl;dims=2x3;methods=ring,hd;rings=2;"
        "segment=4096;order=far;root=5");
  CHECK(format_call_signature(parse_call_signature(text)) == text);
  CHECK(parse_call_signature("").empty());
  CHECK(parse_call_signature("a==b;c=")[0].value == "=b");
}

TEST_CASE("the difference of two signatures names each differing field", "[signature]") {
  const std::string a = "count=1000;dtype=float;op=sum;methods=";
  CHECK(describe_call_difference(a, 1, a, 0).empty());
  CHECK(describe_call_difference("count=1000000;dtype=float;op=sum;methods=", 1, a, 0) ==
        "rank 1 has count 1000000, rank 0 has count 1000");
  CHECK(describe_call_difference("count=8;dtype=float;op=max;methods=ring", 3, a, 0) ==
        "rank 3 has count 8 and op max and methods ring, rank 0 has count 1000 and op sum and "
        "methods (none)");
  CHECK(describe_call_difference("count=1000;dtype=float;op=sum;rings=2", 2, a, 0) ==
        "rank 2 has no methods and rings 2, rank 0 has methods (none) and no rings");
  CHECK(describe_call_difference("dtype=float;count=1000;op=sum;methods=", 1, a, 0) ==
        "rank 1 has 'dtype=float;count=1000;op=sum;methods=', rank 0 has '" + a +
            "' (the same fields in another order)");
}

TEST_CASE("a text that is no signature is refused naming the bad part", "[signature]") {
  CHECK_THROWS_WITH(parse_call_signature("count=1;op"),
                    "bad call signature: 'op' is not name=value (in 'count=1;op')");
  CHECK_THROWS_WITH(parse_call_signature("=1"),
                    "bad call signature: '=1' is not name=value (in '=1')");
  CHECK_THROWS_WITH(parse_call_signature("a=1;a=2"),
                    "bad call signature: field 'a' given twice (in 'a=1;a=2')");
  CHECK_THROWS_AS(describe_call_difference("x", 1, "a=1", 0), InvalidArgument);
}

TEST_CASE("every rank learns that the last rank's call differs", "[mpi]") {
  MpiCommunicator comm(MPI_COMM_WORLD, 30);
  const int p = comm.size(), last = p - 1;
  const bool odd = comm.rank() == last && p > 1;
  const Options o;
  LocalArguments mine;
  mine.canonical = call_signature(4, DType::float32, ReduceOp::sum, "ring", o);
  agree_on_call(comm, mine);  // every rank alike: returns
  if (p == 1) return;
  mine.canonical = call_signature(odd ? 1000000 : 1000, DType::float32, ReduceOp::sum, "ring", o);
  CHECK_THROWS_MATCHES(agree_on_call(comm, mine), RanksDisagree,
                       Catch::Message("ranks disagree on the call: rank " + std::to_string(last) +
                                      " has count 1000000, rank 0 has count 1000"));

  // A rank that could not make the call returns (it reports its own error); the others throw.
  LocalArguments refused = mine;
  if (odd) refused.error = "op 7 is not an op";
  const auto agree = [&] { agree_on_call(comm, refused); };
  if (odd)
    CHECK_NOTHROW(agree());
  else
    CHECK_THROWS_WITH(agree(), "ranks disagree on the call: rank " + std::to_string(last) +
                                   " could not make the call: op 7 is not an op");
  // Every rank refused alike: nothing to add, every rank returns.
  refused.error = "op 7 is not an op";
  CHECK_NOTHROW(agree());
}

TEST_CASE("direct refuses peers whose buffers differ in size, on every rank", "[mpi]") {
  MpiCommunicator comm(MPI_COMM_WORLD, 30);
  const int p = comm.size();
  bool shared = true;
  for (int r = 0; r < p; ++r) shared = shared && (r == comm.rank() || comm.shares_memory_with(r));
  if (p == 1 || !shared) return;
  const bool odd = comm.rank() == p - 1;
  std::vector<float> x(odd ? 1000000 : 1000);
  CHECK_THROWS_MATCHES(
      allreduce_direct(comm, {x.data(), x.size() * sizeof(float)}, DType::float32, ReduceOp::sum,
                       Options{}),
      InvalidArgument,
      Catch::Message(odd ? "direct: rank 0's buffer is 4000 bytes, rank " + std::to_string(p - 1) +
                               "'s 4000000 (every rank must reduce the "
                               "same count of the same dtype)"
                         : "direct: rank " + std::to_string(p - 1) +
                               "'s buffer is 4000000 bytes, rank " + std::to_string(comm.rank()) +
                               "'s 4000 (every rank must reduce the same count of the same "
                               "dtype)"));
}
