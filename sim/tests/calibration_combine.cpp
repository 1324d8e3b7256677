// Calibration over several launches: reports read back exactly, launches combine into each
// point's median, and ddlcalibrate --combine writes the platform of the combination (or one
// clear message for reports that cannot be combined). Synthetic measurements, so every
// expected value is exact. Plus the peer-read exchange (ddl_peer_read_factors) and the
// plumbing of --receive-buffers peer-read.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "algorithms/error.hpp"
#include "child_process.hpp"
#include "real/calibrate_report.hpp"

using namespace ddl;
using namespace ddl::calibrate;
using namespace ddl::test;

namespace {

Spread around(double median) { return {median, 0.5 * median, 1.5 * median, 0.9 * median, 1.1 * median}; }

LocalTimes local(std::size_t bytes, double seconds) { return {bytes, around(seconds), around(1.25 * seconds)}; }

// One launch of 2 ranks: ping-pong 1 us + n / (10 GB/s) times `scale`, an exchange 1.5x
// that, float reduce at 10 GB/s / `scale` (result bytes), copy at 20 GB/s. With `peer_read`
// (one per size), the exchange into peer-read buffers takes that many times the exchange.
Measurements launch(double scale, const std::vector<double>& peer_read = {}) {
  Measurements m;
  m.ranks = 2;
  m.reps = 5;
  m.patterns = {{"bidirectional", 2, 1}};
  for (std::size_t bytes : {1024, 65536, 1 << 20}) {
    const double pp = scale * (1e-6 + static_cast<double>(bytes) / 10e9);
    m.messages.push_back({bytes, around(pp), {around(1.5 * pp)}, std::nullopt});
    if (!peer_read.empty()) m.messages.back().bidirectional_peer_read = around(peer_read.at(m.messages.size() - 1) * 1.5 * pp);
  }
  m.reduce = {{"float", local(1 << 20, scale * (1 << 20) / 10e9)}, {"double", local(1 << 20, 2e-4)}};
  m.reduce_float_by_size = {local(4096, scale * 4096 / 20e9), local(8192, scale * 8192 / 10e9)};
  m.copy = local(1 << 20, (1 << 20) / 20e9);
  return m;
}

std::string temp_dir() {
  char dir_template[] = "/tmp/ddl_combine_XXXXXX";
  REQUIRE(mkdtemp(dir_template) != nullptr);
  return dir_template;
}

// Writes `m`'s report (as ddlcalibrate writes it) to `path`.
void write_report(const Measurements& m, const std::string& path) {
  std::ofstream(path) << fit_measurements(m, 0.03, path + ".xml").report.dump(1) << "\n";
}

}  // namespace

TEST_CASE("a calibration report reads back to the measurements it was written from", "[calibrate]") {
  const Measurements m = launch(1.0);
  const Measurements back = read_report(fit_measurements(m, 0.03, "p.xml").report, "r.json");
  CHECK(back.ranks == 2);
  CHECK(back.reps == 5);
  CHECK(back.launches == 1);
  CHECK(back.receive_buffers == "own");
  CHECK(back.by_size_operands == "received");
  REQUIRE(back.patterns.size() == 1);
  CHECK(back.patterns[0].name == "bidirectional");
  CHECK(back.patterns[0].flows == 2);
  REQUIRE(back.messages.size() == m.messages.size());
  for (std::size_t i = 0; i < m.messages.size(); ++i) {
    CHECK(back.messages[i].bytes == m.messages[i].bytes);
    CHECK(back.messages[i].pingpong.median == m.messages[i].pingpong.median);
    CHECK(back.messages[i].pingpong.q3 == m.messages[i].pingpong.q3);
    CHECK(back.messages[i].patterns.at(0).median == m.messages[i].patterns[0].median);
  }
  REQUIRE(back.reduce.size() == 2);
  CHECK(back.reduce[1].first == "double");
  CHECK(back.reduce[1].second.all_ranks.median == m.reduce[1].second.all_ranks.median);
  CHECK(back.reduce_float_by_size.at(1).alone.median == m.reduce_float_by_size[1].alone.median);
  CHECK(back.copy.all_ranks.max == m.copy.all_ranks.max);
  // Refitting the read-back measurements gives the same platform.
  CHECK(fit_measurements(back, 0.03, "p.xml").model.bw_factors == fit_measurements(m, 0.03, "p.xml").model.bw_factors);
}

TEST_CASE("combining launches takes every point's median over them", "[calibrate]") {
  const Measurements c = combine({launch(1.0), launch(3.0), launch(1.2)}, {"a.json", "b.json", "c.json"});
  CHECK(c.launches == 3);
  CHECK(c.sources == std::vector<std::string>{"a.json", "b.json", "c.json"});
  const double pp = 1e-6 + 65536 / 10e9;  // launch(1.0)'s 64 KB ping-pong
  CHECK(c.messages[1].pingpong.median == Approx(1.2 * pp).epsilon(1e-12));
  CHECK(c.messages[1].pingpong.min == Approx(pp).epsilon(1e-12));
  CHECK(c.messages[1].pingpong.max == Approx(3.0 * pp).epsilon(1e-12));
  CHECK(c.messages[1].patterns[0].median == Approx(1.5 * 1.2 * pp).epsilon(1e-12));
  CHECK(c.reduce[0].second.alone.median == Approx(1.2 * (1 << 20) / 10e9).epsilon(1e-12));
  CHECK(c.reduce[1].second.alone.median == Approx(2e-4).epsilon(1e-12));
  CHECK(c.reduce_float_by_size[0].all_ranks.median == Approx(1.25 * 1.2 * 4096 / 20e9).epsilon(1e-12));
  CHECK(c.copy.alone.median == Approx((1 << 20) / 20e9).epsilon(1e-12));
  // The memory bandwidth follows the combined float reduce: 3 x 10 GB/s / 1.2 / 1.25.
  CHECK(fit_measurements(c, 0.03, "p.xml").model.memory_bandwidth == Approx(3 * 10e9 / 1.2 / 1.25).epsilon(1e-9));
  // One launch is returned as it is.
  CHECK(combine({launch(2.0)}, {"a.json"}).messages[0].pingpong.q1 == launch(2.0).messages[0].pingpong.q1);
}

TEST_CASE("launches of different commands are not combined", "[calibrate]") {
  Measurements other_sizes = launch(1.0);
  other_sizes.messages.pop_back();
  CHECK_THROWS_WITH(combine({launch(1.0), other_sizes}, {"a.json", "b.json"}),
                    Catch::Contains("'a.json' and 'b.json' differ in message sizes"));
  Measurements other_ranks = launch(1.0);
  other_ranks.ranks = 4;
  CHECK_THROWS_WITH(combine({launch(1.0), other_ranks}, {"a.json", "b.json"}), Catch::Contains("differ in ranks"));
  Measurements other_receive = launch(1.0);
  other_receive.receive_buffers = "peer-read";
  CHECK_THROWS_WITH(combine({launch(1.0), other_receive}, {"a.json", "b.json"}), Catch::Contains("differ in receive buffers"));
  Measurements hot = launch(1.0);
  hot.by_size_operands = "hot";
  CHECK_THROWS_WITH(
      combine({launch(1.0), hot}, {"a.json", "b.json"}),
      Catch::Contains("differ in the operands of the reduce sweep (hot or received)"));
  Measurements other_reduce = launch(1.0);
  other_reduce.copy.bytes = 4096;
  CHECK_THROWS_WITH(combine({launch(1.0), other_reduce}, {"a.json", "b.json"}), Catch::Contains("differ in local timings"));
  const Measurements twice = combine({launch(1.0), launch(2.0)}, {"a.json", "b.json"});
  CHECK_THROWS_WITH(combine({twice, launch(1.0)}, {"ab.json", "c.json"}),
                    Catch::Contains("'ab.json' already combines launches"));
  nlohmann::ordered_json broken = fit_measurements(launch(1.0), 0.03, "p.xml").report;
  broken["messages"][1].erase("pingpong");
  CHECK_THROWS_WITH(read_report(broken, "r.json"), Catch::Contains("calibration report 'r.json' is malformed"));
}

TEST_CASE("the reduce sweep's factors sit at the footprint of the collective step it times",
          "[calibrate]") {
  // launch(1.0): the sweep times 4 KiB and 8 KiB (factors 2 and 1, 1 and 1 once smoothed over
  // neighbours). A reduce of n received operands is the step of a collective over 2n bytes, so
  // its factor is written at 2n (the first from 0); a hot one's at n.
  CHECK(fit_measurements(launch(1.0), 0.03, "p.xml").model.memory_factors == "0:1;16384:1");
  Measurements hot = launch(1.0);
  hot.by_size_operands = "hot";
  CHECK(fit_measurements(hot, 0.03, "p.xml").model.memory_factors == "0:1;8192:1");
  // Reports from before the field existed timed hot operands.
  nlohmann::ordered_json old = fit_measurements(hot, 0.03, "p.xml").report;
  CHECK(old.at("reduce_float_by_size_operands") == "hot");
  old.erase("reduce_float_by_size_operands");
  CHECK(read_report(old, "old.json").by_size_operands == "hot");
}

TEST_CASE("platform notes stay well-formed XML comments", "[calibrate]") {
  const Calibration c = fit_measurements(launch(1.0), 0.03, "p.xml");
  const std::string xml = platform_xml(c.model, {"report: /tmp/a--b/r.json", "ends in -", "x---y"});
  CHECK(xml.find("<!-- report: /tmp/a- -b/r.json -->") != std::string::npos);
  CHECK(xml.find("<!-- ends in -  -->") != std::string::npos);
  CHECK(xml.find("<!-- x- - -y -->") != std::string::npos);
  // Inside every comment: no "--", and no "-" just before its end.
  for (std::size_t open = xml.find("<!--"); open != std::string::npos; open = xml.find("<!--", open + 4)) {
    const std::size_t close = xml.find("-->", open + 4);
    REQUIRE(close != std::string::npos);
    const std::string inner = xml.substr(open + 4, close - open - 4);
    INFO(inner);
    CHECK(inner.find("--") == std::string::npos);
    CHECK((inner.empty() || inner.back() != '-'));
  }
}

TEST_CASE("the peer-read exchange reads back, combines and becomes ddl_peer_read_factors", "[calibrate]") {
  const Measurements m = launch(1.0, {0.9, 1.4, 1.1});
  const Calibration c = fit_measurements(m, 0.03, "p.xml");
  // Ratio to the bidirectional exchange per size, from threshold 0; below 1 written as 1.
  CHECK(c.model.peer_read_factors == "0:1;65536:1.4;1048576:1.1");
  CHECK(c.report["messages"][0]["bidirectional_peer_read"]["ratio"].get<double>() == Approx(0.9).epsilon(1e-12));
  CHECK(c.report["messages"][0]["bidirectional_peer_read"]["peer_read_factor"].get<double>() == 1.0);
  CHECK(platform_xml(c.model, {}).find("<prop id=\"ddl_peer_read_factors\" value=\"0:1;65536:1.4;1048576:1.1\"/>") !=
        std::string::npos);
  CHECK(summary_text(m, c, "r.json").find("bidir_peer_read_us") != std::string::npos);
  const Measurements back = read_report(c.report, "r.json");
  for (std::size_t i = 0; i < m.messages.size(); ++i) {
    REQUIRE(back.messages[i].bidirectional_peer_read);
    CHECK(back.messages[i].bidirectional_peer_read->median == m.messages[i].bidirectional_peer_read->median);
    CHECK(back.messages[i].bidirectional_peer_read->q1 == m.messages[i].bidirectional_peer_read->q1);
  }
  // Over launches: each point's median (64 KB: 1.0 x 1.4, 3.0 x 2.0 and 1.2 x 1.2 the exchange).
  const Measurements three = combine({launch(1.0, {1, 1.4, 1}), launch(3.0, {1, 2.0, 1}), launch(1.2, {1, 1.2, 1})},
                                     {"a.json", "b.json", "c.json"});
  const double exchange = 1.5 * (1e-6 + 65536 / 10e9);
  CHECK(three.messages[1].bidirectional_peer_read->median == Approx(1.2 * 1.2 * exchange).epsilon(1e-12));
  CHECK(three.messages[1].bidirectional_peer_read->max == Approx(3.0 * 2.0 * exchange).epsilon(1e-12));
  // Without the measurement, no factors and no property.
  const Calibration plain = fit_measurements(launch(1.0), 0.03, "p.xml");
  CHECK(plain.model.peer_read_factors.empty());
  CHECK(platform_xml(plain.model, {}).find("ddl_peer_read_factors") == std::string::npos);
  CHECK_FALSE(read_report(plain.report, "r.json").messages[0].bidirectional_peer_read);
  // Launches with and without it are not combined; a report with it on some rows only is malformed.
  CHECK_THROWS_WITH(combine({launch(1.0), m}, {"a.json", "b.json"}),
                    Catch::Contains("differ in whether the peer-read exchange was measured"));
  nlohmann::ordered_json partial = c.report;
  partial["messages"][1].erase("bidirectional_peer_read");
  CHECK_THROWS_WITH(read_report(partial, "r.json"), Catch::Contains("only some message rows have bidirectional_peer_read"));
}

TEST_CASE("ddlcalibrate --combine writes the platform of the launches' medians", "[calibrate]") {
  const std::string dir = temp_dir();
  const std::vector<double> scales{1.0, 3.0, 1.2};
  std::string files;
  for (std::size_t i = 0; i < scales.size(); ++i) {
    write_report(launch(scales[i]), dir + "/launch" + std::to_string(i) + ".json");
    files += " " + dir + "/launch" + std::to_string(i) + ".json";
  }
  const ChildResult r = run_child(std::string(DDL_CALIBRATE) + " --combine" + files + " --output " + dir + "/all.xml");
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("median over 3 launches") != std::string::npos);
  std::ifstream in(dir + "/all.json");
  const nlohmann::ordered_json report = nlohmann::ordered_json::parse(in);
  CHECK(report.at("launches") == 3);
  // The same platform as fitting the launch with the median scale (1.2) in-process, except
  // for the spreads, which are over launches.
  const Calibration expected = fit_measurements(combine({launch(1.0), launch(3.0), launch(1.2)}, {"a", "b", "c"}), 0.03, "x");
  CHECK(report.at("messages")[2].at("pingpong").at("median_s").get<double>() == expected.report["messages"][2]["pingpong"]["median_s"].get<double>());
  std::ifstream xml(dir + "/all.xml");
  const std::string platform((std::istreambuf_iterator<char>(xml)), std::istreambuf_iterator<char>());
  CHECK(platform.find(expected.model.bw_factors) != std::string::npos);
  CHECK(platform.find("median over 3 launches") != std::string::npos);

  // Bad inputs: one message naming the problem, exit status 2, no platform written.
  const std::string tool = std::string(DDL_CALIBRATE) + " --output " + dir + "/bad.xml";
  for (const auto& [args, message] : std::vector<std::pair<std::string, std::string>>{
           {" --combine " + dir + "/missing.json", "'" + dir + "/missing.json' cannot be read"},
           {" --combine" + files + " --reps 5", "--reps sets what is measured; with --combine"},
           {" --combine" + files + " --receive-buffers peer-read", "--receive-buffers sets what is measured"},
           {" --receive-buffers theirs", "--receive-buffers: receive buffers 'theirs' is not own or peer-read"},
           {" --combine " + dir + "/all.json " + dir + "/launch0.json", "already combines launches"},
           {" --combine " + dir + "/bad.json", "would overwrite its input"}}) {
    const ChildResult bad = run_child(tool + args);
    INFO(args << ": " << bad.err);
    CHECK(bad.exit_code == 2);
    CHECK(bad.err.find(message) != std::string::npos);
  }
  std::ofstream(dir + "/text.json") << "not json\n";
  const ChildResult text = run_child(tool + " --combine " + dir + "/text.json");
  CHECK(text.exit_code == 2);
  CHECK(text.err.find("'" + dir + "/text.json' is not JSON") != std::string::npos);
  CHECK(!std::ifstream(dir + "/bad.xml"));
  // An output that cannot be written: one message, exit status 1, no MPI abort.
  const ChildResult unwritable =
      run_child(std::string(DDL_CALIBRATE) + " --combine" + files + " --output " + dir + "/no/such/dir/x.xml");
  CHECK(unwritable.exit_code == 1);
  CHECK(unwritable.err.find("cannot write '" + dir + "/no/such/dir/x.xml'") != std::string::npos);
  CHECK(unwritable.err.find("MPI_ABORT") == std::string::npos);
  std::filesystem::remove_all(dir);
}

TEST_CASE("a calibration into peer-read receive buffers says so in its report and summary", "[calibrate][mpi]") {
  const std::string dir = temp_dir();
  const ChildResult r = run_child(std::string(DDL_MPIRUN) + " -np 2 " + DDL_CALIBRATE + " --output " + dir +
                                  "/peer.xml --reps 3 -b 1K -e 64K -f 8 --reduce-bytes 4K --receive-buffers peer-read");
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("messages received into peer-read buffers") != std::string::npos);
  std::ifstream in(dir + "/peer.json");
  const Measurements m = read_report(nlohmann::ordered_json::parse(in), "peer.json");
  CHECK(m.receive_buffers == "peer-read");
  CHECK(m.by_size_operands == "received");  // the reduce sweep times what a ring step brought in
  CHECK(m.messages.size() == 3);  // 1K, 8K, 64K
  // Every pattern already lands in peer-read buffers: no second exchange, no factors.
  CHECK_FALSE(m.messages[0].bidirectional_peer_read);
  std::ifstream xml(dir + "/peer.xml");
  const std::string platform((std::istreambuf_iterator<char>(xml)), std::istreambuf_iterator<char>());
  CHECK(platform.find("ddl_peer_read_factors") == std::string::npos);
  std::filesystem::remove_all(dir);
}
