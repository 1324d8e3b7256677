// ddlcalibrate end to end (MPI): --combine writes the platform of the launches' medians, a
// launch into peer-read buffers says so, and the outputs are protected: refused before any
// work when they are an input, each other or unwritable, written beside and renamed.
#include <sys/stat.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "calibrate/platform_xml.hpp"
#include "calibrate/report.hpp"
#include "calibrate/tests/synthetic.hpp"
#include "sim/tests/child_process.hpp"

using namespace ddl;
using namespace ddl::calibrate;
using namespace ddl::calibrate::test;
using namespace ddl::test;

TEST_CASE("ddlcalibrate --combine writes the platform of the launches' medians", "[calibrate]") {
  const std::string dir = temp_dir();
  const std::vector<double> scales{1.0, 3.0, 1.2};
  std::string files;
  for (std::size_t i = 0; i < scales.size(); ++i) {
    write_report(launch(scales[i]), dir + "/launch" + std::to_string(i) + ".json");
    files += " " + dir + "/launch" + std::to_string(i) + ".json";
  }
  const ChildResult r = run_child(std::string(DDL_CALIBRATE) + " --combine" + files + " --output " +
                                  dir + "/all.xml");
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("median over 3 launches") != std::string::npos);
  std::ifstream in(dir + "/all.json");
  const nlohmann::ordered_json report = nlohmann::ordered_json::parse(in);
  CHECK(report.at("launches") == 3);
  // The same platform as fitting the launch with the median scale (1.2) in-process, except
  // for the spreads, which are over launches.
  const Calibration expected = fit_measurements(
      combine({launch(1.0), launch(3.0), launch(1.2)}, {"a", "b", "c"}), 0.03, "x");
  CHECK(report.at("messages")[2].at("pingpong").at("median_s").get<double>() ==
        expected.report["messages"][2]["pingpong"]["median_s"].get<double>());
  std::ifstream xml(dir + "/all.xml");
  const std::string platform((std::istreambuf_iterator<char>(xml)),
                             std::istreambuf_iterator<char>());
  CHECK(platform.find(platform_xml(expected.model, {})
                          .substr(platform_xml(expected.model, {}).find("<platform"))) !=
        std::string::npos);
  CHECK(platform.find("median over 3 launches") != std::string::npos);

  // Bad inputs: one message naming the problem, exit status 2, no platform written.
  const std::string tool = std::string(DDL_CALIBRATE) + " --output " + dir + "/bad.xml";
  for (const auto& [args, message] : std::vector<std::pair<std::string, std::string>>{
           {" --combine " + dir + "/missing.json",
            "cannot read calibration report '" + dir + "/missing.json'"},
           {" --combine" + files + " --reps 5", "--reps sets what is measured; with --combine"},
           {" --combine" + files + " --receive-buffers peer-read",
            "--receive-buffers sets what is measured"},
           {" --combine" + files + " --nics 2", "--nics sets what is measured; with --combine"},
           {" --receive-buffers theirs",
            "--receive-buffers: receive buffers 'theirs' is not own or peer-read"},
           {" --combine " + dir + "/all.json " + dir + "/launch0.json",
            "already combines launches"},
           {" --combine " + dir + "/bad.json",
            "output " + dir + "/bad.json is the same file as input " + dir + "/bad.json"}}) {
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
  // An output that cannot be written: refused before reading, one message, exit status 2.
  const ChildResult unwritable = run_child(std::string(DDL_CALIBRATE) + " --combine" + files +
                                           " --output " + dir + "/no/such/dir/x.xml");
  CHECK(unwritable.exit_code == 2);
  CHECK(unwritable.err.find("ddlcalibrate: cannot write " + dir + "/no/such/dir/x.xml: directory " +
                            dir + "/no/such/dir: No such file or directory") != std::string::npos);
  CHECK(unwritable.err.find("MPI_ABORT") == std::string::npos);
  // A report with the peer-read exchange, refitted: the summary shows it beside the exchange.
  write_report(launch(1.0, {0.9, 1.4, 1.1}), dir + "/peer.json");
  const ChildResult peer = run_child(std::string(DDL_CALIBRATE) + " --combine " + dir +
                                     "/peer.json --output " + dir + "/peer_refit.xml");
  CHECK(peer.exit_code == 0);
  CHECK(peer.out.find("bidir_peer_read_us") != std::string::npos);
  std::filesystem::remove_all(dir);
}

TEST_CASE("a calibration into peer-read receive buffers says so in its report and summary",
          "[calibrate][mpi]") {
  const std::string dir = temp_dir();
  const ChildResult r = run_child(
      std::string(DDL_MPIRUN) + " -np 2 " + DDL_CALIBRATE + " --output " + dir +
      "/peer.xml --reps 3 -b 1K -e 64K -f 8 --reduce-bytes 4K --receive-buffers peer-read");
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("messages received into peer-read buffers") != std::string::npos);
  std::ifstream in(dir + "/peer.json");
  const Measurements m = read_report(nlohmann::ordered_json::parse(in), "peer.json");
  CHECK(m.receive_buffers == "peer-read");
  CHECK(m.by_size_operands == "received");  // the reduce sweep times what a ring step brought in
  CHECK(m.messages.size() == 3);            // 1K, 8K, 64K
  // Every pattern already lands in peer-read buffers: no second exchange, no factors.
  CHECK_FALSE(m.messages[0].bidirectional_peer_read);
  std::ifstream xml(dir + "/peer.xml");
  const std::string platform((std::istreambuf_iterator<char>(xml)),
                             std::istreambuf_iterator<char>());
  CHECK(platform.find("ddl_peer_read_factors") == std::string::npos);
  std::filesystem::remove_all(dir);
}

namespace {

// Lines of ddlcalibrate's own (mpirun adds its banner when a job exits non-zero).
std::size_t said(const std::string& err) {
  std::size_t n = 0;
  for (const std::string& line : split(err, '\n')) n += line.rfind("ddlcalibrate: ", 0) == 0;
  return n;
}

std::string contents(const std::string& path) {
  std::ifstream in(path);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

}  // namespace

TEST_CASE("outputs that are an input or each other are refused, compared as files", "[calibrate]") {
  const std::string dir = temp_dir();
  write_report(launch(1.0), dir + "/r.json");
  const std::string tool = std::string(DDL_CALIBRATE) + " --combine " + dir + "/r.json";
  for (const auto& [args, message] : std::vector<std::pair<std::string, std::string>>{
           // The platform over the report it is fitted from, spelled another way.
           {" --output " + dir + "/./r.json",
            "output " + dir + "/./r.json is the same file as input " + dir + "/r.json"},
           {" --output " + dir + "/p.xml --report " + dir + "/../" +
                std::filesystem::path(dir).filename().string() + "/r.json",
            "is the same file as input " + dir + "/r.json"},
           // Both outputs one file: the report would overwrite the platform.
           {" --output " + dir + "/p.xml --report " + dir + "/p.xml",
            "outputs " + dir + "/p.xml and " + dir + "/p.xml are the same file"},
           {" --output " + dir + "/p.xml --report " + dir + "//./p.xml",
            "outputs " + dir + "/p.xml and " + dir + "//./p.xml are the same file"}}) {
    const ChildResult r = run_child(tool + args);
    INFO(args << ": " << r.err);
    CHECK(r.exit_code == 2);
    CHECK(r.err.find(message) != std::string::npos);
  }
  CHECK(contents(dir + "/r.json").find("\"ranks\": 2") != std::string::npos);  // untouched
  CHECK_FALSE(std::filesystem::exists(dir + "/p.xml"));
  std::filesystem::remove_all(dir);
}

TEST_CASE("outputs are replaced whole by rename, never rewritten in place", "[calibrate]") {
  const std::string dir = temp_dir();
  write_report(launch(1.0), dir + "/r.json");
  // The old platform is also reachable through a hard link: writing the file in place would
  // change what the link shows; a rename leaves it as it was.
  std::ofstream(dir + "/p.xml") << "previous platform\n";
  std::filesystem::create_hard_link(dir + "/p.xml", dir + "/kept.xml");
  const ChildResult r = run_child(std::string(DDL_CALIBRATE) + " --combine " + dir +
                                  "/r.json --output " + dir + "/p.xml --report " + dir + "/p.json");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(contents(dir + "/kept.xml") == "previous platform\n");
  CHECK(contents(dir + "/p.xml").rfind("<?xml", 0) == 0);
  // Nothing but the outputs is left beside them.
  std::vector<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(dir))
    names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  CHECK(names == std::vector<std::string>{"kept.xml", "p.json", "p.xml", "r.json"});
  std::filesystem::remove_all(dir);
}

TEST_CASE("a launch refuses unwritable or clashing outputs before it measures",
          "[calibrate][mpi]") {
  const std::string dir = temp_dir();
  std::ofstream(dir + "/kept.xml") << "previous platform\n";
  const std::string launch_cmd = std::string(DDL_MPIRUN) + " -np 2 " + DDL_CALIBRATE;
  for (const auto& [args, message] : std::vector<std::pair<std::string, std::string>>{
           {" --output " + dir + "/kept.xml --report " + dir + "/no/such/r.json",
            "ddlcalibrate: cannot write " + dir + "/no/such/r.json: directory " + dir +
                "/no/such: No such file"},
           {" --output " + dir + "/kept.xml --report " + dir + "/./kept.xml",
            "ddlcalibrate: outputs " + dir + "/kept.xml and " + dir +
                "/./kept.xml are the same file"}}) {
    // The default sweep (8 B .. 64 MB, 15 reps) would take minutes: a refusal comes first.
    const ChildResult r = run_child(launch_cmd + args);
    INFO(args << ": " << r.err);
    CHECK(r.exit_code == 2);
    CHECK(r.err.find(message) != std::string::npos);
    CHECK(r.err.find("one-way") == std::string::npos);  // nothing was measured
    CHECK(said(r.err) == 1);                            // once, by rank 0
    CHECK(contents(dir + "/kept.xml") == "previous platform\n");
  }
  std::filesystem::remove_all(dir);
}

TEST_CASE("a launch's bad flags are one message", "[calibrate][mpi]") {
  const std::string launch_cmd =
      std::string(DDL_MPIRUN) + " -np 2 " + DDL_CALIBRATE + " --output /tmp/x.xml";
  for (const auto& [args, message] : std::vector<std::pair<std::string, std::string>>{
           {" --timeout 0",
            "ddlcalibrate: --timeout must be a positive number of seconds, got '0'"},
           {" --timeout inf", "ddlcalibrate: --timeout must be a finite number of seconds"},
           {" --nodes-per-leaf 0", "ddlcalibrate: bad --nodes-per-leaf '0'"},
           {" --network-maxbytes 1Q", "ddlcalibrate: bad size '1Q'"},
           {" --nodes-per-leaf 2",
            "--nodes-per-leaf 2 does not divide the 1 node(s) into whole leaves"},
           {" --nics 0", "ddlcalibrate: bad --nics '0'"},
           {" --nics 3", "--nics 3 does not divide the 2 ranks per node"},
           {" --nics 2", "--nics 2 needs at least 2 nodes (rails connect nodes)"}}) {
    const ChildResult r = run_child(launch_cmd + args);
    INFO(args << ": " << r.err);
    CHECK(r.exit_code == 2);
    CHECK(r.err.find(message) != std::string::npos);
    CHECK(said(r.err) == 1);
  }
}
