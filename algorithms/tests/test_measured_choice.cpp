// auto's choice from measurement (measured_choice.hpp): the pure choice with the library's
// margin, and the probe on loopback ranks under a clock that counts messages, so each
// candidate's "time" is known exactly beforehand.
#include <algorithm>
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "algorithms/forwarding_communicator.hpp"
#include "algorithms/measured_choice.hpp"
#include "loopback/loopback_communicator.hpp"

namespace {

using ddl::Communicator;

// A clock that advances by (rank + 1) at every message this rank sends, and stands still
// otherwise: a candidate's time is its sends times (rank + 1), and the maximum over ranks of p
// ranks is its sends times p.
class SendCountingClock : public ddl::ForwardingCommunicator {
 public:
  using ForwardingCommunicator::ForwardingCommunicator;
  double now() override { return ticks_; }
  ddl::Request isend(int peer, ddl::ConstView data, int tag) override {
    ticks_ += rank() + 1;
    return inner_.isend(peer, data, tag);
  }

 private:
  double ticks_ = 0;
};

}  // namespace

TEST_CASE("measured choice: the fastest, ties to the earlier, the library kept within its margin",
          "[measured]") {
  const std::vector<std::string> with_library = {"ring", "rd", "native"};
  // 2.05 is within 5 % of 2: the library keeps it; 2.0 is not within 5 % of 1.8; a tie between
  // ring and rd goes to ring, the earlier.
  CHECK(ddl::choose_measured(with_library, {{3, 2, 2.05}, {3, 1.8, 2.0}, {1, 1, 5}}, 0.05) ==
        std::vector<std::string>{"native", "rd", "ring"});
  CHECK(ddl::choose_measured(with_library, {{3, 1.8, 2.0}}, 0.2) ==
        std::vector<std::string>{"native"});
  CHECK(ddl::choose_measured({"ring", "rd"}, {{2, 2}, {2, 1}}, 0.05) ==
        std::vector<std::string>{"ring", "rd"});
  CHECK_THROWS_WITH(ddl::choose_measured({"ring", "rd"}, {{2}}, 0.05),
                    Catch::Contains("a size has 1 times for 2 candidates"));
}

TEST_CASE("measured choice: the probe times every candidate, agrees on the slowest rank and plans",
          "[measured][loopback]") {
  // On 4 ranks, one 1 KB or 4 KB allreduce (unsegmented): ring sends 2 (p-1) = 6 messages a
  // rank, recursive doubling log2 p = 2; the slowest rank (rank 3) counts 4 ticks a send.
  constexpr int p = 4;
  std::vector<ddl::MeasuredChoice> seen(p);
  ddl::run_ranks(p, [&](Communicator& inner) {
    SendCountingClock comm(inner);
    ddl::ProbeSpec spec;
    spec.grid = ddl::Dims::flat(p);
    spec.candidates = {"ring", "rd"};
    spec.sizes = {1024, 4096};
    spec.repetitions = 3;
    spec.batch = 2;
    seen[static_cast<std::size_t>(comm.rank())] = ddl::measure_choice(comm, spec);
  });
  for (const ddl::MeasuredChoice& m : seen) {
    REQUIRE(m.sizes.size() == 2);
    for (const ddl::MeasuredSize& s : m.sizes) {
      CHECK(s.seconds == std::vector<double>{6.0 * p, 2.0 * p});
      CHECK(s.chosen == "rd");
    }
    CHECK(m.sizes[0].bytes == 1024);
    CHECK(m.sizes[1].bytes == 4096);
    CHECK(m.plan.ranks == p);
    CHECK(m.plan.entries == std::vector<ddl::PlanEntry>{{1024, 4096, "rd"}});
  }
}

TEST_CASE("measured choice: the candidates are what these ranks can run", "[measured][loopback]") {
  // Asserted on the main thread: Catch's assertions are not thread-safe.
  std::vector<std::vector<std::string>> seen(4);
  ddl::run_ranks(4, [&](Communicator& comm) {
    seen[static_cast<std::size_t>(comm.rank())] =
        ddl::probe_candidates(comm, ddl::Dims::parse("2x2"));
  });
  for (const std::vector<std::string>& names : seen) {
    // Loopback's threads share memory (direct is in) and have neither switches that reduce nor
    // a library of their own; auto picks among the others and is never one.
    for (const char* in : {"direct", "ring", "ddl", "rhd", "rd", "dbtree", "hier"})
      CHECK(std::find(names.begin(), names.end(), in) != names.end());
    for (const char* out : {"auto", "nvls", "sharp", "nvls_sharp", "native"})
      CHECK(std::find(names.begin(), names.end(), out) == names.end());
  }
}

TEST_CASE("measured choice: a bad probe is refused by name", "[measured]") {
  ddl::run_ranks(1, [](Communicator& comm) {
    ddl::ProbeSpec spec;
    spec.grid = ddl::Dims::flat(1);
    CHECK_THROWS_WITH(ddl::measure_choice(comm, spec), Catch::Contains("no candidate algorithms"));
    spec.candidates = {"ring"};
    CHECK_THROWS_WITH(ddl::measure_choice(comm, spec), Catch::Contains("no sizes to measure"));
    spec.sizes = {4096, 1024};
    CHECK_THROWS_WITH(ddl::measure_choice(comm, spec), Catch::Contains("1024 follows 4096"));
    spec.sizes = {1022};
    CHECK_THROWS_WITH(ddl::measure_choice(comm, spec),
                      Catch::Contains("1022 is not a whole number of float32 elements"));
    spec.sizes = {1024};
    spec.batch = 0;
    CHECK_THROWS_WITH(ddl::measure_choice(comm, spec), Catch::Contains("at least 1"));
  });
}

TEST_CASE("native: refused by name where the backend has no library", "[measured][loopback]") {
  // run_ranks rethrows a rank's exception on the main thread, where Catch asserts.
  CHECK_THROWS_WITH(ddl::run_ranks(2,
                                   [](Communicator& comm) {
                                     std::vector<float> data(8, 1.0f);
                                     ddl::find_algorithm("native").run(comm, {data.data(), 32},
                                                                       ddl::DType::float32,
                                                                       ddl::ReduceOp::sum, {});
                                   }),
                    Catch::Contains("native: this backend has no collective library"));
}
