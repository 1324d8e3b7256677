// all-to-all-v over MPI (algorithms/alltoallv.hpp): both algorithms exact for every dtype on
// layouts with empty blocks, gaps and reversed receive order, the counts' agreement passing on
// matching counts and refusing mismatched ones on every rank with the same text.
#include <mpi.h>

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "algorithms/alltoallv.hpp"
#include "algorithms/tests/alltoallv_pattern.hpp"
#include "real/mpi/mpi_communicator.hpp"

using namespace ddl;

TEST_CASE("alltoallv over MPI: exact for every dtype and layout", "[mpi][alltoallv]") {
  MpiCommunicator comm(MPI_COMM_WORLD, 30);
  const int p = comm.size(), r = comm.rank();
  Options opts;
  opts.dims = p % 2 == 0 ? Dims({2, p / 2}) : Dims::flat(p);  // hier: 2 ranks a "node"
  for (AlltoallvAlgorithm a :
       {AlltoallvAlgorithm::pairwise, AlltoallvAlgorithm::linear, AlltoallvAlgorithm::hier})
    for (DType type : all_dtypes())
      for (std::size_t most : {std::size_t{0}, std::size_t{5}, std::size_t{100003}}) {
        const test::RankLayout l = test::alltoallv_layout(p, r, most, 3);
        const std::vector<std::byte> in = test::alltoallv_input(l, r, type);
        std::vector<std::byte> out = test::alltoallv_output(l, type);
        agree_on_alltoallv_counts(comm, l.send.counts, l.recv.counts, Options{});
        alltoallv(comm, ConstView{in.data(), in.size()}, l.send, MutView{out.data(), out.size()},
                  l.recv, type, opts, a);
        INFO(to_string(a) << " " << to_string(type) << " most " << most);
        CHECK(test::alltoallv_wrong(out, l, r, type) == "");
      }
}

TEST_CASE("alltoallv over MPI: mismatched counts are refused on every rank alike",
          "[mpi][alltoallv]") {
  MpiCommunicator comm(MPI_COMM_WORLD, 30);
  const int p = comm.size(), r = comm.rank();
  if (p < 2) return;
  const auto n = static_cast<std::size_t>(p);
  std::vector<std::size_t> send(n, 4), recv(n, 4);
  if (r == p - 1) send[0] = 6;  // the last rank sends rank 0 more than it expects
  CHECK_THROWS_MATCHES(agree_on_alltoallv_counts(comm, send, recv, Options{}), RanksDisagree,
                       Catch::Matchers::Message("ranks disagree on the all-to-all-v counts: rank " +
                                                std::to_string(p - 1) +
                                                " sends 6 elements to rank 0, which receives 4"));
}
