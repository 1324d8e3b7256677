// direct: its chunking, its one-sided copies on the loopback backend (threads share memory),
// where it refuses to run, and how the model and `auto` weigh it. Its exactness over ranks,
// counts, dtypes, ops and segment sizes is in test_algorithms.cpp's matrices with every other
// algorithm.
#include <atomic>
#include <catch2/catch.hpp>
#include <exception>
#include <string>
#include <vector>

#include "algorithms/allreduce_direct.hpp"
#include "algorithms/cost_model.hpp"
#include "algorithms/error.hpp"
#include "algorithms/forwarding_communicator.hpp"
#include "loopback/fault_injecting_communicator.hpp"
#include "loopback/loopback_communicator.hpp"

using namespace ddl;
using namespace std::chrono_literals;

TEST_CASE("direct cuts a block into whole-element chunks with a shorter last one", "[direct]") {
  CHECK(direct_chunks({100, 10}, 4, 4) == std::vector<Block>{{100, 4}, {104, 4}, {108, 2}});
  // A chunk size that is no whole number of elements is rounded down, to one element at least.
  CHECK(direct_chunks({0, 12}, 6, 4) == std::vector<Block>{{0, 4}, {4, 4}, {8, 4}});
  CHECK(direct_chunks({0, 16}, 2, 8) == std::vector<Block>{{0, 8}, {8, 8}});
  CHECK(direct_chunks({7, 0}, 4, 4).empty());
  // 0: the default chunk.
  const std::vector<Block> chunks = direct_chunks({0, 3 * kDirectChunkBytes + 4}, 0, 4);
  REQUIRE(chunks.size() == 4);
  CHECK(chunks[2] == Block{2 * kDirectChunkBytes, kDirectChunkBytes});
  CHECK(chunks[3] == Block{3 * kDirectChunkBytes, 4});
}

namespace {

// The message of what `call` throws, or "" (ranks are threads: Catch's checks stay on the main
// thread, so each rank records what it saw).
template <class Call>
std::string thrown(Call&& call) {
  try {
    call();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

struct Seen {
  bool shares_peer = false, shares_self = true;
  unsigned char got[3] = {};
  std::string outside_get, outside_put;
  unsigned char first = 0;
};

}  // namespace

TEST_CASE("loopback get and put copy byte ranges of a peer's buffer", "[direct][loopback]") {
  std::vector<Seen> seen(2);
  run_ranks(2, [&](Communicator& comm) {
    Seen& me = seen[static_cast<std::size_t>(comm.rank())];
    OneSided& shared = *comm.one_sided();  // threads of one process: always there
    std::vector<unsigned char> mine(8, static_cast<unsigned char>(10 * (comm.rank() + 1)));
    const MemoryHandle h = shared.handle({mine.data(), mine.size()});
    MemoryHandle theirs;
    const int peer = 1 - comm.rank();
    Request r[2] = {comm.irecv(peer, {&theirs, sizeof theirs}, 0),
                    comm.isend(peer, {&h, sizeof h}, 0)};
    comm.wait_all(r);
    me.shares_peer = shared.shares_memory_with(peer);
    me.shares_self = shared.shares_memory_with(comm.rank());
    shared.get(peer, theirs, 5, {me.got, 3});
    me.outside_get = thrown([&] { shared.get(peer, theirs, 6, {me.got, 3}); });
    me.outside_put = thrown([&] { shared.put(peer, theirs, 9, {me.got, 0}); });
    // Rank 0 writes into rank 1's first byte, then both meet again before rank 1 reads it.
    if (comm.rank() == 0) {
      const unsigned char seven = 7;
      shared.put(1, theirs, 0, {&seven, 1});
    }
    unsigned char token = 0;
    Request s[2] = {comm.irecv(peer, {&token, 1}, 1), comm.isend(peer, {&token, 1}, 1)};
    comm.wait_all(s);
    me.first = mine[0];
  });
  for (int rank : {0, 1}) {
    const Seen& me = seen[static_cast<std::size_t>(rank)];
    const int peer = 1 - rank;
    INFO("rank " << rank);
    CHECK(me.shares_peer);
    CHECK_FALSE(me.shares_self);
    CHECK(me.got[0] == 10 * (peer + 1));
    CHECK(me.got[2] == 10 * (peer + 1));
    CHECK(me.outside_get ==
          "get: bytes [6, 9) are outside peer " + std::to_string(peer) + "'s buffer of 8 bytes");
    CHECK(me.outside_put ==
          "put: bytes [9, 9) are outside peer " + std::to_string(peer) + "'s buffer of 8 bytes");
  }
  CHECK(seen[0].first == 10);
  CHECK(seen[1].first == 7);
}

namespace {

// Ranks 0..split-1 and split.. as two nodes: get/put reach only the ranks of one's own.
class TwoNodes : public ForwardingCommunicator {
 public:
  TwoNodes(Communicator& inner, int split)
      : ForwardingCommunicator(inner), nodes_(*inner.one_sided(), inner.rank(), split) {}
  OneSided* one_sided() override { return &nodes_; }

 private:
  class Nodes : public ForwardingOneSided {
   public:
    Nodes(OneSided& inner, int rank, int split)
        : ForwardingOneSided(inner), rank_(rank), split_(split) {}
    bool shares_memory_with(int peer) const override {
      return (peer < split_) == (rank_ < split_) && inner_.shares_memory_with(peer);
    }

   private:
    int rank_, split_;
  };
  Nodes nodes_;
};

// A backend without one-sided access (the CUDA backend's case).
class NoOneSided : public ForwardingCommunicator {
 public:
  using ForwardingCommunicator::ForwardingCommunicator;
  OneSided* one_sided() override { return nullptr; }
};

// Counts the one-sided copies: which algorithm auto ran shows in them.
class CountingGets : public ForwardingCommunicator {
 public:
  CountingGets(Communicator& inner, std::atomic<int>& gets)
      : ForwardingCommunicator(inner), counting_(*inner.one_sided(), gets) {}
  OneSided* one_sided() override { return &counting_; }

 private:
  class Counting : public ForwardingOneSided {
   public:
    Counting(OneSided& inner, std::atomic<int>& gets) : ForwardingOneSided(inner), gets_(gets) {}
    void get(int peer, const MemoryHandle& remote, std::size_t offset, MutView local) override {
      ++gets_;
      inner_.get(peer, remote, offset, local);
    }

   private:
    std::atomic<int>& gets_;
  };
  Counting counting_;
};

}  // namespace

TEST_CASE("direct refuses ranks that do not all share memory and names a pair", "[direct]") {
  std::vector<float> data(16, 1.0f);
  CHECK_THROWS_WITH(run_ranks(4,
                              [&](Communicator& comm) {
                                TwoNodes nodes(comm, 2);
                                std::vector<float> buf(data);
                                find_algorithm("direct").run(nodes, {buf.data(), 64},
                                                             DType::float32, ReduceOp::sum, {});
                              }),
                    Catch::Matches("direct: ranks [0-3] and [0-3] do not share memory \\(direct "
                                   "runs among the ranks of one node\\)"));
}

TEST_CASE("without one-sided access direct refuses alike, auto passes it over, one rank runs",
          "[direct]") {
  CHECK_THROWS_WITH(run_ranks(2,
                              [&](Communicator& comm) {
                                NoOneSided plain(comm);
                                std::vector<float> buf(16, 1.0f);
                                find_algorithm("direct").run(plain, {buf.data(), 64},
                                                             DType::float32, ReduceOp::sum, {});
                              }),
                    Catch::Matches("direct: ranks [01] and [01] do not share memory \\(direct "
                                   "runs among the ranks of one node\\)"));
  // 1 MB on 4 ranks that share memory is direct's (the auto test below); without access auto
  // runs another (direct would throw as above) and the sums are exact.
  std::atomic<int> shared{0}, wrong{0};
  run_ranks(4, [&](Communicator& comm) {
    NoOneSided plain(comm);
    shared += shares_memory_with_all(plain) ? 1 : 0;
    std::vector<float> buf((std::size_t{1} << 20) / sizeof(float), 1.0f);
    find_algorithm("auto").run(plain, {buf.data(), buf.size() * 4}, DType::float32, ReduceOp::sum,
                               {});
    for (float x : buf) wrong += x == 4.0f ? 0 : 1;
  });
  CHECK(shared == 0);
  CHECK(wrong == 0);
  // One rank has no peer to share with: direct returns at once, and so does auto.
  run_ranks(1, [&](Communicator& comm) {
    NoOneSided plain(comm);
    std::vector<float> buf(16, 1.0f);
    find_algorithm("direct").run(plain, {buf.data(), 64}, DType::float32, ReduceOp::sum, {});
    find_algorithm("auto").run(plain, {buf.data(), 64}, DType::float32, ReduceOp::sum, {});
    for (float x : buf) wrong += x == 1.0f ? 0 : 1;
  });
  CHECK(wrong == 0);
}

TEST_CASE(
    "direct is priced by its two handshakes and ring's bytes and weighed on shared memory only",
    "[direct][cost]") {
  const Options o;
  for (int p : {2, 3, 8}) {
    const Dims flat = Dims::flat(p);
    CostParams c = uniform_costs(flat);
    for (std::size_t bytes : {std::size_t{8}, std::size_t{1} << 20}) {
      INFO(p << " ranks, " << bytes << " bytes");
      // 2 α + 2 (p-1)/p S β + (p-1)/p S γ, with α 1 us, β 0.1 ns/B, γ 0.01 ns/B.
      const double s = static_cast<double>(bytes), q = p;
      const double expected = 2e-6 + 2 * (q - 1) / q * s * 1e-10 + (q - 1) / q * s * 1e-11;
      CHECK(model_time("direct", flat, c, bytes, o) == Approx(expected).epsilon(1e-12));
    }
    // Without shared memory auto never takes it, however cheap the model finds it.
    CHECK(best_allreduce(flat, c, std::size_t{1} << 28, o) != "direct");
    mark_shared_memory(c);
    CHECK(best_allreduce(flat, c, std::size_t{1} << 28, o) == "direct");
  }
  // At 2 ranks it ties with ring at every size, and the tie goes to direct (the earlier entry);
  // below about 200 KB rd's single exchange is cheaper (α < S γ / 2).
  CostParams two = uniform_costs(Dims::flat(2));
  mark_shared_memory(two);
  CHECK(model_time("direct", Dims::flat(2), two, 1 << 20, o) ==
        Approx(model_time("ring", Dims::flat(2), two, 1 << 20, o)).epsilon(1e-12));
  CHECK(best_allreduce(Dims::flat(2), two, std::size_t{1} << 20, o) == "direct");
  CHECK(best_allreduce(Dims::flat(2), two, std::size_t{64} << 10, o) == "rd");
}

TEST_CASE("messages from the eager limit on pay one more alpha, and direct's handshakes do not",
          "[direct][cost]") {
  const Options o;
  const Dims two = Dims::flat(2);
  CostParams c = uniform_costs(two);
  mark_shared_memory(c, 4096);
  // rd at 2 ranks is one exchange of S bytes: α + S β + S γ, its α doubled from 4096 bytes.
  for (const auto& [bytes, alphas] :
       {std::pair{std::size_t{2048}, 1.0}, std::pair{std::size_t{4095}, 1.0},
        std::pair{std::size_t{4096}, 2.0}, std::pair{std::size_t{64} << 10, 2.0}}) {
    INFO(bytes << " bytes");
    const double s = static_cast<double>(bytes);
    CHECK(model_time("rd", two, c, bytes, o) ==
          Approx(alphas * 1e-6 + s * 1e-10 + s * 1e-11).epsilon(1e-12));
    CHECK(model_time("direct", two, c, bytes, o) ==
          Approx(2e-6 + s * 1e-10 + s / 2 * 1e-11).epsilon(1e-12));
  }
  CHECK(best_allreduce(two, c, 2048, o) == "rd");
  CHECK(best_allreduce(two, c, 4096, o) == "direct");
  CHECK(best_allreduce(two, c, std::size_t{64} << 10, o) == "direct");
  // Eager up to 16 KB: at 16 KB ring's two 8 KB steps go eagerly and tie with direct; the tie
  // goes to direct although the two formulas round apart.
  mark_shared_memory(c, 16384);
  CHECK(model_time("ring", two, c, 16384, o) ==
        Approx(model_time("direct", two, c, 16384, o)).epsilon(1e-12));
  CHECK(best_allreduce(two, c, 8192, o) == "rd");
  CHECK(best_allreduce(two, c, 16384, o) == "direct");
}

TEST_CASE("auto runs direct where the ranks share memory and the size is large", "[direct]") {
  for (const auto& [ranks, bytes, direct] :
       {std::tuple{4, std::size_t{1} << 20, true}, std::tuple{2, std::size_t{8}, false}}) {
    INFO(ranks << " ranks, " << bytes << " bytes");
    std::atomic<int> gets{0};
    std::vector<float> first(static_cast<std::size_t>(ranks));
    run_ranks(ranks, [&](Communicator& comm) {
      CountingGets counting(comm, gets);
      std::vector<float> buf(bytes / sizeof(float), 1.0f);
      find_algorithm("auto").run(counting, {buf.data(), bytes}, DType::float32, ReduceOp::sum, {});
      first[static_cast<std::size_t>(comm.rank())] = buf.front();
    });
    CHECK(first == std::vector<float>(static_cast<std::size_t>(ranks), static_cast<float>(ranks)));
    CHECK((gets > 0) == direct);
  }
}

TEST_CASE("a lost closing handshake ends in a timeout naming the peer, not a hang", "[direct]") {
  // Rank 0's second message to rank 1 (tag 0) is its "done": rank 1 must not return while rank 0
  // might still write into its buffer, so it waits, and the wait is bounded.
  CHECK_THROWS_WITH(run_ranks(
                        2,
                        [&](Communicator& inner) {
                          FaultInjectingCommunicator::Faults faults;
                          if (inner.rank() == 0) {
                            faults.drop_peer = 1;
                            faults.drop_nth = 1;
                          }
                          FaultInjectingCommunicator comm(inner, faults);
                          std::vector<float> buf(64, 1.0f);
                          find_algorithm("direct").run(comm, {buf.data(), 256}, DType::float32,
                                                       ReduceOp::sum, {});
                        },
                        0.3s),
                    Catch::Contains("rank 1") &&
                        Catch::Contains("recv from peer 0 tag 0 (1 bytes)") &&
                        Catch::Contains("timed out"));
}
