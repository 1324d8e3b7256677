// Traces: the file formats read back exactly what was written, the decorator records one
// known schedule (ring on 3 loopback ranks) event by event, and the Chrome export is what
// Perfetto needs (one process per rank, no overlapping slices on one track).
#include <catch2/catch.hpp>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "algorithms/error.hpp"
#include "algorithms/registry.hpp"
#include "harness/tests/ring_trace_check.hpp"
#include "harness/trace.hpp"
#include "harness/tracing_communicator.hpp"
#include "loopback/loopback_communicator.hpp"

using namespace ddl;
using namespace ddl::harness;

namespace {

std::vector<TraceEvent> awkward_events() {
  std::vector<TraceEvent> v;
  TraceEvent a;
  a.algo = "ring";
  a.size = std::size_t{1} << 40;
  a.iteration = -2;
  a.rank = 3;
  a.kind = TraceKind::send;
  a.peer = 4;
  a.bytes = 5000000007;
  a.tag = 17;
  a.phase = "reduce_scatter";
  a.dimension = 2;
  a.start_us = 0.1;
  a.end_us = 123456789.123456789;
  v.push_back(a);
  TraceEvent b = a;
  b.kind = TraceKind::reduce;
  b.peer = -1;
  b.tag = -1;
  b.phase = "";
  b.dimension = -1;
  b.start_us = 1e-300;
  b.end_us = 2.0 / 3.0;
  v.push_back(b);
  for (TraceKind k : {TraceKind::recv, TraceKind::copy, TraceKind::divide, TraceKind::compute}) {
    b.kind = k;
    b.iteration += 1;
    b.end_us *= 3.7;
    v.push_back(b);
  }
  return v;
}

std::vector<TraceEvent> round_trip(const std::vector<TraceEvent>& events, TraceFormat format) {
  std::stringstream s;
  write_trace_header(s, format);
  write_trace_events(s, format, events);
  return read_trace(s, format, "memory");
}

// Ring allreduce of `bytes` on p loopback ranks, each rank traced; events in rank order.
std::vector<TraceEvent> traced_ring(int p, std::size_t bytes) {
  std::vector<std::vector<TraceEvent>> per_rank(static_cast<std::size_t>(p));
  run_ranks(p, [&](Communicator& c) {
    std::vector<float> data(bytes / sizeof(float), 1.0f);
    TracingCommunicator traced(c);
    traced.set_context("ring", bytes, 0);
    find_algorithm("ring").run(traced, {data.data(), bytes}, DType::float32, ReduceOp::sum,
                               Options{});
    per_rank[static_cast<std::size_t>(c.rank())] = traced.take_events();
  });
  std::vector<TraceEvent> all;
  for (auto& v : per_rank) all.insert(all.end(), v.begin(), v.end());
  return all;
}

}  // namespace

TEST_CASE("trace csv and jsonl read back exactly what was written", "[trace]") {
  const std::vector<TraceEvent> events = awkward_events();
  CHECK(round_trip(events, TraceFormat::csv) == events);
  CHECK(round_trip(events, TraceFormat::jsonl) == events);
  CHECK(round_trip({}, TraceFormat::csv).empty());
}

TEST_CASE("trace csv header is exact", "[trace]") {
  CHECK(trace_csv_header() ==
        "algo,size,iteration,rank,kind,peer,bytes,tag,phase,dim,start_us,end_us");
  std::stringstream s;
  write_trace_events(s, TraceFormat::csv, {awkward_events()[1]});
  CHECK(s.str() ==
        "ring,1099511627776,-2,3,reduce,-1,5000000007,-1,,-1,1e-300,0.6666666666666666\n");
}

TEST_CASE("trace format follows the extension", "[trace]") {
  CHECK(trace_format_for("a/b.csv") == TraceFormat::csv);
  CHECK(trace_format_for("t.jsonl") == TraceFormat::jsonl);
  for (const char* bad : {"t.json", "t.CSV", "trace", ".csv"})
    CHECK_THROWS_WITH(trace_format_for(bad),
                      Catch::Contains("must end in .csv or .jsonl") && Catch::Contains(bad));
}

TEST_CASE("malformed traces are rejected naming the line", "[trace]") {
  auto read = [](const std::string& text, TraceFormat f) {
    std::istringstream in(text);
    return read_trace(in, f, "t");
  };
  const std::string header = trace_csv_header() + "\n";
  CHECK_THROWS_WITH(read("rank,kind\n", TraceFormat::csv),
                    Catch::Contains("t:1: expected the header"));
  CHECK_THROWS_WITH(read(header + "ring,8,0,0,send,1,8,0,,-1,0,1\nring,8,0,x,send,1,8,0,,-1,0,1\n",
                         TraceFormat::csv),
                    Catch::Contains("t:3: bad rank 'x'"));
  CHECK_THROWS_WITH(read(header + "ring,8,0,0,sent,1,8,0,,-1,0,1\n", TraceFormat::csv),
                    Catch::Contains("t:2: unknown trace event kind 'sent'"));
  CHECK_THROWS_WITH(read(header + "ring,8,0,0,send,1\n", TraceFormat::csv),
                    Catch::Contains("t:2: expected 12 columns"));
  CHECK_THROWS_WITH(read("{\"algo\":\"ring\"}\n", TraceFormat::jsonl),
                    Catch::Contains("t:1: missing field 'size'"));
  CHECK_THROWS_WITH(read("{nope\n", TraceFormat::jsonl), Catch::Contains("t:1:"));
}

TEST_CASE("a csv trace with CR LF line ends and a byte-order mark reads as the plain one",
          "[trace]") {
  const std::string plain = trace_csv_header() + "\nring,8,0,0,send,1,8,0,allgather,-1,0,1\n" +
                            "ring,8,0,1,recv,0,8,0,allgather,-1,0,2\n";
  std::string windows = "\xEF\xBB\xBF";
  for (char c : plain) windows += c == '\n' ? std::string("\r\n") : std::string(1, c);
  std::istringstream a(plain), b(windows);
  const std::vector<TraceEvent> expected = read_trace(a, TraceFormat::csv, "plain");
  REQUIRE(expected.size() == 2);
  CHECK(read_trace(b, TraceFormat::csv, "windows") == expected);
}

TEST_CASE("names with a comma cannot go into a csv trace", "[trace]") {
  std::vector<TraceEvent> events = awkward_events();
  events[0].phase = "a,b";
  std::ostringstream out;
  CHECK_THROWS_AS(write_trace_events(out, TraceFormat::csv, events), InvalidArgument);
}

TEST_CASE("a trace file in a missing directory fails before the run", "[trace]") {
  CHECK_THROWS_WITH(TraceFile("/nonexistent-dir/t.csv"),
                    Catch::Contains("cannot write trace file '/nonexistent-dir/t.csv'"));
  CHECK_THROWS_WITH(TraceFile("t.txt"), Catch::Contains("must end in .csv or .jsonl"));
}

TEST_CASE("trace file written and read back through the file system", "[trace]") {
  const std::string path =
      (std::filesystem::temp_directory_path() / "ddl_trace_test.jsonl").string();
  TraceFile file(path);
  write_trace_header(file.stream(), file.format());
  write_trace_events(file.stream(), file.format(), awkward_events());
  file.close();
  CHECK(read_trace_file(path) == awkward_events());
  std::filesystem::remove(path);
}

TEST_CASE("the decorator records ring on 3 loopback ranks event by event", "[trace]") {
  const std::vector<TraceEvent> events = traced_ring(3, 1024);
  const std::vector<std::string> problems =
      ddl::test::ring_trace_problems(events, 3, 1024, sizeof(float));
  for (const std::string& p : problems) UNSCOPED_INFO(p);
  CHECK(problems.empty());
  CHECK(events.size() == 3 * 5 * 2);  // per rank: 2(p-1) sends, 2(p-1) recvs, p-1 reduces
}

TEST_CASE("the ring checker notices a wrong trace", "[trace]") {
  std::vector<TraceEvent> events = traced_ring(3, 1024);
  events[1].peer = 0;
  CHECK_FALSE(ddl::test::ring_trace_problems(events, 3, 1024, sizeof(float)).empty());
  events = traced_ring(3, 1024);
  events.pop_back();
  CHECK_FALSE(ddl::test::ring_trace_problems(events, 3, 1024, sizeof(float)).empty());
}

TEST_CASE("compute is recorded and wait_all ends open events", "[trace]") {
  run_ranks(2, [](Communicator& c) {
    TracingCommunicator t(c, 5.0);
    t.set_context("x", 8, 1);
    t.set_phase("p", 0);
    float v[2] = {1, 2}, w[2] = {0, 0};
    Request rs[2] = {t.irecv(1 - c.rank(), {w, 8}, 3), t.isend(1 - c.rank(), {v, 8}, 3)};
    Request work = t.compute(0);
    t.wait_all(rs);
    t.wait(work);
    const std::vector<TraceEvent> e = t.take_events();
    REQUIRE(e.size() == 3);
    CHECK(e[0].kind == TraceKind::recv);
    CHECK(e[1].kind == TraceKind::send);
    CHECK(e[2].kind == TraceKind::compute);
    for (const TraceEvent& x : e) {
      CHECK(x.phase == "p");
      CHECK(x.dimension == 0);
      CHECK(x.iteration == 1);
      CHECK(x.end_us >= x.start_us);
      CHECK(x.start_us >= 5e6);  // the clock offset is applied
    }
  });
}

TEST_CASE("chrome export: every event once, one process per rank, no overlap within a track",
          "[trace]") {
  const std::vector<TraceEvent> events = traced_ring(3, 1024);
  std::ostringstream out;
  write_chrome_trace(out, events);
  const nlohmann::json j = nlohmann::json::parse(out.str());
  std::size_t slices = 0;
  std::map<int, std::string> process_names;
  std::map<std::pair<int, int>, std::vector<std::pair<double, double>>> tracks;
  for (const auto& e : j.at("traceEvents")) {
    if (e.at("ph") == "X") {
      ++slices;
      const double ts = e.at("ts"), dur = e.at("dur");
      tracks[{e.at("pid"), e.at("tid")}].push_back({ts, ts + dur});
      CHECK(e.at("args").contains("peer"));
      CHECK(e.at("args").contains("bytes"));
    } else if (e.at("name") == "process_name") {
      process_names[e.at("pid")] = e.at("args").at("name");
    }
  }
  CHECK(slices == events.size());
  CHECK(process_names == std::map<int, std::string>{{0, "rank 0"}, {1, "rank 1"}, {2, "rank 2"}});
  for (auto& [track, spans] : tracks) {
    std::sort(spans.begin(), spans.end());
    for (std::size_t i = 1; i < spans.size(); ++i) CHECK(spans[i].first >= spans[i - 1].second);
  }
}
