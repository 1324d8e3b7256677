// ddlsim --trace: the file holds exactly the operations of the schedule that ran (the same
// expectation the loopback and MPI backends are held to), in simulated time, and ddltrace turns
// it into Chrome trace JSON.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>

#include "child_process.hpp"
#include "harness/tests/ring_trace_check.hpp"
#include "harness/trace.hpp"

using namespace ddl::test;
using ddl::harness::TraceEvent;

namespace {

std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() /
          ("ddl_sim_" + std::to_string(getpid()) + "_" + name))
      .string();
}

void check_trace_rejected(const std::string& args, const std::string& names) {
  check_rejected_command(ddlsim() + " --platform " + fixture("star_8.xml") + " -b 1K -e 1K " + args,
                         names);
}

}  // namespace

TEST_CASE("ddlsim --trace: ring on 8 ranks, event by event, in simulated time", "[sim][trace]") {
  const std::string path = temp_path("ring.csv");
  const ChildResult r = run_child(ddlsim() + " --platform " + fixture("star_8.xml") +
                                  " --algo ring -b 1K -e 1K --format csv --trace " + path);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const std::vector<TraceEvent> events = ddl::harness::read_trace_file(path);
  std::remove(path.c_str());
  const std::vector<std::string> problems = ring_trace_problems(events, 8, 1024, sizeof(float));
  for (const std::string& p : problems) UNSCOPED_INFO(p);
  CHECK(problems.empty());
  CHECK(events.size() == 8 * 5 * 7);
  // Simulated time: the collective's span in the trace is the time ddlsim reports.
  double first = INFINITY, last = 0;
  for (const TraceEvent& e : events) {
    first = std::min(first, e.start_us);
    last = std::max(last, e.end_us);
  }
  const auto rows = parse_csv(r.out);
  REQUIRE(rows.size() == 1);
  CHECK(last - first == Approx(std::stod(rows[0].at("time_us"))).epsilon(1e-3));
}

TEST_CASE("ddlsim --trace jsonl holds every case and iteration, and ddltrace exports it",
          "[sim][trace]") {
  const std::string path = temp_path("sweep.jsonl"), chrome = temp_path("sweep.json");
  const ChildResult r = run_child(ddlsim() + " --platform " + fixture("star_8.xml") +
                                  " --algo ring,ddl -b 1K -e 2K -n 2 -w 1 --trace " + path);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const std::vector<TraceEvent> events = ddl::harness::read_trace_file(path);
  std::set<std::tuple<std::string, std::size_t, int>> runs;
  std::vector<TraceEvent> ring_1k;
  for (const TraceEvent& e : events) {
    runs.insert({e.algo, e.size, e.iteration});
    if (e.algo == "ring" && e.size == 1024 && e.iteration == 0) ring_1k.push_back(e);
  }
  CHECK(runs.size() == 2 * 2 * 3);  // algorithms x sizes x (warm-up + timed iterations)
  CHECK(runs.count({"ddl", 2048, -1}) == 1);
  CHECK(ring_trace_problems(ring_1k, 8, 1024, sizeof(float)).empty());

  const ChildResult x = run_child(std::string(DDL_DDLTRACE) + " " + path + " --chrome " + chrome);
  INFO(x.err);
  REQUIRE(x.exit_code == 0);
  std::ifstream in(chrome);
  const nlohmann::json j = nlohmann::json::parse(in);
  std::size_t slices = 0, processes = 0;
  for (const auto& e : j.at("traceEvents")) {
    if (e.at("ph") == "X") ++slices;
    if (e.at("name") == "process_name") ++processes;
  }
  CHECK(slices == events.size());
  CHECK(processes == 8);
  std::remove(path.c_str());
  std::remove(chrome.c_str());
}

TEST_CASE("ddlsim --trace: a bad path or extension is one clear message", "[sim][trace]") {
  check_trace_rejected("--trace /nonexistent-dir/t.csv",
                       "cannot write trace file '/nonexistent-dir/t.csv'");
  check_trace_rejected("--trace " + temp_path("t.txt"), "must end in .csv or .jsonl");
  check_trace_rejected("--trace " + temp_path("t.csv") + " --workload resnet50",
                       "--trace records collective sweeps");
  CHECK_FALSE(std::filesystem::exists(temp_path("t.csv")));
}

TEST_CASE("ddltrace: bad input is one clear message", "[sim][trace]") {
  const ChildResult r = run_child(std::string(DDL_DDLTRACE) + " /nonexistent.csv --chrome -");
  CHECK(r.exit_code != 0);
  CHECK(r.err.find("cannot read trace file '/nonexistent.csv'") != std::string::npos);
  const ChildResult none = run_child(std::string(DDL_DDLTRACE) + " x.csv");
  CHECK(none.exit_code != 0);
  CHECK(none.err.find("give --chrome") != std::string::npos);
}
