// Platforms without ddl properties (a SimGrid <cluster>, a hand-written zone): they load, their
// ranks follow the host order or a hostfile, local work takes --memory-bandwidth, --cfg reaches
// SimGrid; and every platform SimGrid 3.32 would abort or crash on is one ddl message instead.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <fstream>

#include "child_process.hpp"

using namespace ddl::test;

namespace {

// cluster_16.xml: any pair two 10 GB/s, 1 us links apart.
constexpr double kAlpha = 2e-6, kBeta = 1e-10, kGamma = 3.0 / 100e9;

std::map<std::string, double> simulate(const std::string& args) {
  const ChildResult r = run_child(ddlsim() + " --format csv " + args);
  INFO(args << "\nstderr: " << r.err);
  REQUIRE(r.exit_code == 0);
  std::map<std::string, double> times;
  for (const auto& row : parse_csv(r.out))
    times[row.at("algo") + "/" + row.at("size")] = std::stod(row.at("time_us")) * 1e-6;
  return times;
}

// A hostfile removed when the test case ends, failed or not.
struct Hostfile {
  std::string path;
  Hostfile(const std::string& name, const std::string& text)
      : path("/tmp/ddl_sim_test_" + std::to_string(getpid()) + "_" + name) {
    std::ofstream(path) << text;
  }
  ~Hostfile() { std::remove(path.c_str()); }
  Hostfile(const Hostfile&) = delete;
  Hostfile& operator=(const Hostfile&) = delete;
};

std::string probe_hosts(const std::string& args) {
  const ChildResult r = run_child(probe() + " " + args + " hosts");
  INFO(args << "\nstderr: " << r.err);
  REQUIRE(r.exit_code == 0);
  return r.out;
}

// One message on stderr, exit 1: ddl's own refusal, not SimGrid's abort (134) or crash (139).
void check_refused(const std::string& args, const std::string& message) {
  const ChildResult r = run_child(ddlsim() + " -b 1K -e 1K " + args);
  INFO(args << "\nstderr: " << r.err);
  CHECK(r.exit_code == 1);
  CHECK(r.out.empty());
  CHECK(split(r.err, '\n').size() == 1);
  CHECK(r.err.find(message) != std::string::npos);
}

}  // namespace

TEST_CASE("a plain <cluster>: ring allreduce is the alpha-beta-gamma closed form", "[sim][plain]") {
  // Whole transfers (--segment 0): each of the 2(p-1) steps moves S/p bytes on its own two
  // links, each of the p-1 reduce-scatter steps reduces S/p bytes. Every flow of a step starts
  // and ends together, so SimGrid rounds nothing: the csv's 1 ps resolution is the tolerance
  // (measured: equal to every printed digit).
  const auto t = simulate("--platform " + fixture("cluster_16.xml") +
                          " --algo ring --segment 0 --memory-bandwidth 100e9 -b 1M -e 16M -f 16");
  REQUIRE(t.size() == 2);
  for (double s : {1048576.0, 16777216.0}) {
    const double p = 16,
                 expected = 2 * (p - 1) * (kAlpha + s / p * kBeta) + (p - 1) * s / p * kGamma;
    INFO("size " << s);
    CHECK(std::abs(t.at("ring/" + std::to_string(static_cast<long>(s))) - expected) <= 1e-12);
  }
}

TEST_CASE("without a hostfile the ranks take SimGrid's host order by name", "[sim][plain]") {
  // Declared b, a, c; node-10 sorts before node-2.
  CHECK(probe_hosts(fixture("plain_zone.xml")) == "0 a\n1 b\n2 c\n");
  const std::string cluster = probe_hosts(fixture("cluster_16.xml"));
  CHECK(cluster.rfind("0 node-0\n1 node-1\n2 node-10\n3 node-11\n", 0) == 0);
  CHECK(cluster.find("15 node-9\n") != std::string::npos);
}

TEST_CASE("a hostfile sets the rank order and ranks per host and so the dims", "[sim][plain]") {
  const Hostfile order_file("order", "c\n# a comment\n\n  a  \nb\n");
  CHECK(probe_hosts("--hostfile " + order_file.path + " " + fixture("plain_zone.xml")) ==
        "0 c\n1 a\n2 b\n");
  const Hostfile two_file("two", "c:2\na:2\nb:2\n");
  CHECK(probe_hosts("--hostfile " + two_file.path + " " + fixture("plain_zone.xml")) ==
        "0 c\n1 c\n2 a\n3 a\n4 b\n5 b\n");
  const ChildResult r = run_child(ddlsim() + " -b 1K -e 1K --platform " +
                                  fixture("plain_zone.xml") + " --hostfile " + two_file.path);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("6 GPUs, dims 2x3") != std::string::npos);
  const Hostfile uneven_file("uneven", "c:2\na\n");
  const ChildResult u = run_child(ddlsim() + " -b 1K -e 1K --platform " +
                                  fixture("plain_zone.xml") + " --hostfile " + uneven_file.path);
  REQUIRE(u.exit_code == 0);
  CHECK(u.out.find("3 GPUs, dims 3,") != std::string::npos);
}

TEST_CASE("local work takes the memory-bandwidth flag or else 3.35 TB/s", "[sim][plain]") {
  const auto gamma_line = [](const std::string& extra) {
    const ChildResult r =
        run_child(ddlsim() + " -b 1K -e 1K --platform " + fixture("cluster_16.xml") + extra);
    REQUIRE(r.exit_code == 0);
    return r.out;
  };
  CHECK(gamma_line("").find("gamma 1116.666667 GB/s") != std::string::npos);  // 3.35e12 / 3
  CHECK(gamma_line(" --memory-bandwidth 300GBps").find("gamma 100.000000 GB/s") !=
        std::string::npos);
}

TEST_CASE("cfg options reach SimGrid: LV08 instead of CM02 changes the time", "[sim][plain]") {
  const std::string args = "--platform " + fixture("cluster_16.xml") +
                           " --algo ring --segment 0 --memory-bandwidth 100e9 -b 16M -e 16M";
  const double cm02 = simulate(args).at("ring/16777216");
  // The default is CM02 already: saying so changes nothing.
  CHECK(simulate(args + " --cfg network/model:CM02").at("ring/16777216") == cm02);
  // LV08 multiplies latencies by 13.01 and bandwidths by 0.97 (and adds ACK cross-traffic).
  CHECK(simulate(args + " --cfg network/model:LV08").at("ring/16777216") > cm02 * 1.03);
  CHECK(simulate(args + " --cfg network/latency-factor:2").at("ring/16777216") ==
        Approx(cm02 + 30 * kAlpha).epsilon(1e-9));
}

TEST_CASE("bad cfg, hostfile and memory-bandwidth flags are one message each", "[sim][plain]") {
  const std::string cluster = " --platform " + fixture("cluster_16.xml");
  check_refused(cluster + " --cfg network/model", "bad --cfg 'network/model': give name:value");
  check_refused(cluster + " --cfg nonsense:1", "bad --cfg 'nonsense:1': Bad config key: nonsense");
  check_refused(cluster + " --cfg network/model:Foo",
                "bad --cfg 'network/model:Foo': network/model takes CM02, LV08, SMPI, IB");
  check_refused(cluster + " --cfg network/crosstraffic:2",
                "bad --cfg 'network/crosstraffic:2': not a boolean");
  check_refused(cluster + " --memory-bandwidth 0", "bad --memory-bandwidth '0'");
  check_refused(cluster + " --memory-bandwidth fast", "bad --memory-bandwidth 'fast'");
  check_refused(" --platform " + fixture("star_8.xml") + " --memory-bandwidth 1e9",
                "every GPU host of platform file");
  const Hostfile missing_file("missing", "node-0\nnode-99\n");
  check_refused(cluster + " --hostfile " + missing_file.path,
                "line 2: host 'node-99' is not in platform file");
  const Hostfile zero_file("zero", "node-0:0\n");
  check_refused(cluster + " --hostfile " + zero_file.path,
                "line 1 'node-0:0': '0' is not a rank count");
  const Hostfile empty_file("empty", "# nothing\n\n");
  check_refused(cluster + " --hostfile " + empty_file.path, "names no host");
  check_refused(cluster + " --hostfile /nonexistent/hosts",
                "cannot read --hostfile '/nonexistent/hosts': No such file or directory");
  check_refused(" --platform " + fixture("star_8.xml") + " --hostfile " + missing_file.path,
                "places its ranks itself (hosts with ddl_rank)");
}

TEST_CASE("every platform SimGrid would abort on is one ddl message, never exit 134",
          "[sim][plain]") {
  const std::pair<const char*, const char*> cases[] = {
      {"bad_bw_zero.xml", "link 'ab': bandwidth '0GBps' is not a finite number > 0"},
      {"bad_bw_negative.xml", "link 'ab': bandwidth '-10GBps' is not a finite number > 0"},
      {"bad_bw_nan.xml", "link 'ab': bandwidth 'NaN' is not a finite number > 0"},
      {"bad_bw_inf.xml", "link 'ab': bandwidth 'infGBps' is not a finite number > 0"},
      {"bad_bw_text.xml", "link 'ab': bandwidth 'fast' is not a bandwidth"},
      {"bad_latency_negative.xml", "link 'ab': latency '-1us' is not a finite number >= 0"},
      {"bad_latency_nan.xml", "link 'ab': latency 'nan' is not a finite number >= 0"},
      {"bad_speed_zero.xml", "host 'a': speed '0f' is not a finite number > 0"},
      {"bad_cluster_bw.xml", "cluster 'c': bw '0Bps' is not a finite number > 0"},
      {"bad_duplicate_route.xml",
       "route from 'b' to 'a' in zone 'z': a route from 'b' to 'a' is "
       "already declared"},
      {"bad_no_route_full.xml", "zone 'z' (routing Full) has no route from 'a' to 'c'"},
      {"bad_no_route_floyd.xml",
       "zone 'z' (routing Floyd): its routes lead from 'a' to 'c' nowhere"},
      {"bad_no_route_dijkstra.xml",
       "zone 'z' (routing Dijkstra): its routes lead from 'a' to 'c' "
       "nowhere"},
      {"bad_no_zone_route.xml", "zone 'root' (routing Full) has no route from 'left' to 'right'"},
      {"bad_routing.xml", "zone 'z': routing 'Star' is not one SimGrid 3.32 knows"},
      {"bad_none_zone.xml", "'a' is in zone 'z' with routing=\"None\""},
      {"no_hosts.xml", "has no hosts"},
  };
  for (const auto& [file, message] : cases) check_refused("--platform " + fixture(file), message);
}

TEST_CASE("every shipped platform and good fixture passes ddl's checks", "[sim][plain]") {
  // The checks refuse nothing that runs: each file loads and lists its ranks.
  std::size_t files = 0;
  for (const std::string& dir : {std::string(DDL_PLATFORMS), std::string(DDL_SIM_FIXTURES)})
    for (const auto& entry : std::filesystem::directory_iterator(dir)) {
      const std::string name = entry.path().filename().string();
      if (entry.path().extension() != ".xml" || name.rfind("bad_", 0) == 0 ||
          name.find("_bad_") != std::string::npos || name == "malformed.xml" ||
          name == "no_hosts.xml")
        continue;
      const ChildResult r = run_child(probe() + " " + entry.path().string() + " hosts");
      INFO(name << ": " << r.err);
      CHECK(r.exit_code == 0);
      CHECK(r.out.rfind("0 ", 0) == 0);
      ++files;
    }
  CHECK(files == 38);
}
