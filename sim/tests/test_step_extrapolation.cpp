// Step extrapolation (sim/step_extrapolation.hpp): where it is used, it says so and stays within
// its stated error of the full simulation; where it must not be used (--exact, --check, --trace)
// every step is played.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <fstream>

#include "child_process.hpp"

using namespace ddl::test;

namespace {

constexpr const char* kNote = "step extrapolation: ";

// cluster_128.xml: any pair two 10 GB/s, 1 us links apart, memory at --memory-bandwidth.
constexpr double kAlpha = 2e-6, kBeta = 1e-10, kGamma = 3.0 / 100e9;

ChildResult simulate(const std::string& args) {
  const ChildResult r = run_child(ddlsim() + " " + args);
  INFO(args << "\nstderr: " << r.err);
  REQUIRE(r.exit_code == 0);
  return r;
}

// time_us of the csv's one row per size, keyed by size.
std::map<std::string, double> times(const std::string& csv) {
  std::map<std::string, double> t;
  for (const auto& row : parse_csv(csv)) t[row.at("size")] = std::stod(row.at("time_us"));
  return t;
}

}  // namespace

TEST_CASE("a 128-rank ring on a contention-free cluster is extrapolated to its closed form",
          "[sim][scale][extrapolation]") {
  // Every step of the ring takes alpha + S/p beta (+ S/p gamma reducing): the pace is steady
  // from the first step, so the steps not played cost exactly what they would have.
  const std::string args = "--platform " + fixture("cluster_128.xml") +
                           " --algo ring --segment 0 --memory-bandwidth 100e9 -b 1M -e 16M -f 16";
  const ChildResult table = simulate(args);
  CHECK(table.out.find(kNote) != std::string::npos);
  const auto fast = times(simulate(args + " --format csv").out);
  const auto exact = times(simulate(args + " --format csv --exact").out);
  REQUIRE(fast.size() == 2);
  for (double s : {1048576.0, 16777216.0}) {
    const std::string key = std::to_string(static_cast<long>(s));
    const double p = 128,
                 expected = 2 * (p - 1) * (kAlpha + s / p * kBeta) + (p - 1) * s / p * kGamma;
    INFO("size " << s);
    CHECK(std::abs(exact.at(key) * 1e-6 - expected) <= 1e-12);
    CHECK(std::abs(fast.at(key) - exact.at(key)) <= 2e-6);  // the csv's 1 ps, a few roundings
  }
}

TEST_CASE("on s822lc_64 the extrapolated ring is within 0.5 % of every step played",
          "[sim][scale][extrapolation]") {
  // Shared HCAs and switch hops: ranks settle into the slowest link's pace after a few dozen
  // steps, and a ring's skew between ranks is not kept (sim/README.md: measured within 0.002 %).
  const std::string args =
      "--platform " + platform("s822lc_64.xml") + " --algo ring -b 1M -e 64M -f 64 --format csv";
  const auto fast = times(simulate(args).out);
  const auto exact = times(simulate(args + " --exact").out);
  REQUIRE(fast.size() == 2);
  for (const auto& [size, t] : exact) {
    INFO("size " << size << ": extrapolated " << fast.at(size) << " us, exact " << t << " us");
    CHECK(std::abs(fast.at(size) - t) <= 0.005 * t);
    CHECK(fast.at(size) != t);  // it was extrapolated, not played in full
  }
}

TEST_CASE("a ring its ranks enter apart is played in full", "[sim][scale][extrapolation]") {
  // Under compute jitter the ranks start each gradient bucket's ring at their own time: the
  // first blocks then show ranks waiting on each other, not the ring's pace, so the run is not
  // ended early and the iteration is the full simulation's to the digit. Without jitter the same
  // rings are entered together and extrapolated. (Without the rule, a jittered 256-GPU ring
  // iteration came out 10.6 % slower than --exact.)
  const std::string args =
      "--platform " + platform("s822lc_32.xml") + " --workload resnet50 --algo ring";
  const auto iteration = [&](const std::string& extra) {
    const auto rows = parse_csv(simulate(args + " --format csv" + extra).out);
    REQUIRE(rows.size() == 1);
    return rows[0].at("iter_ms");
  };
  CHECK(iteration(" --jitter 0.05") == iteration(" --jitter 0.05 --exact"));
  CHECK(simulate(args + " --jitter 0.05").out.find(kNote) == std::string::npos);
  CHECK(simulate(args).out.find(kNote) != std::string::npos);
}

TEST_CASE("with exact, check or trace every step is played", "[sim][scale][extrapolation]") {
  const std::string base = "--platform " + fixture("cluster_128.xml") +
                           " --algo ring --memory-bandwidth 100e9 -b 1M -e 1M";
  CHECK(simulate(base + " --exact").out.find(kNote) == std::string::npos);
  const ChildResult checked = simulate(base + " --check");
  CHECK(checked.out.find(kNote) == std::string::npos);
  const auto rows = parse_csv(simulate(base + " --check --format csv").out);
  REQUIRE(rows.size() == 1);
  CHECK(rows[0].at("wrong") == "0");
  // The trace has every send: 2 (p - 1) per rank.
  const std::string trace = (std::filesystem::temp_directory_path() /
                             ("ddl_extrapolation_" + std::to_string(getpid()) + ".csv"))
                                .string();
  const ChildResult traced = simulate(base + " --trace " + trace);
  CHECK(traced.out.find(kNote) == std::string::npos);
  std::ifstream in(trace);
  std::size_t sends = 0;
  for (std::string line; std::getline(in, line);)
    if (line.find(",send,") != std::string::npos) ++sends;
  std::filesystem::remove(trace);
  CHECK(sends == 128u * 2u * 127u);
}
