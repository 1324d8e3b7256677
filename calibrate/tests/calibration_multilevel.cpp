// Multi-level platforms in the simulator: per-class factor tables give each link class its own
// times (sim/tests/multilevel_8.xml, hand-computed), hosts without ddl_node keep the class-less
// tables, malformed places are refused, and the platform calibration writes for several nodes
// costs every pattern as its model predicts. One simulation per process (sim_pingpong).
#include <catch2/catch.hpp>
#include <cstdio>
#include <fstream>
#include <regex>
#include <sstream>

#include "calibrate/network_model.hpp"
#include "calibrate/platform_model.hpp"
#include "calibrate/platform_xml.hpp"
#include "sim/tests/child_process.hpp"

using namespace ddl;
using namespace ddl::calibrate;
using namespace ddl::test;

namespace {

const std::string kFixture = std::string(DDL_SIM_TESTS) + "/multilevel_8.xml";

std::string read(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string temp_file(const std::string& text) {
  char path[] = "/tmp/ddl_multilevel_XXXXXX";
  const int fd = mkstemp(path);
  REQUIRE(fd >= 0);
  close(fd);
  std::ofstream(path) << text;
  return path;
}

// Seconds per size of `args` (pattern, peer) on `xml`, from sim_pingpong.
std::vector<double> simulate(const std::string& xml, const std::string& args,
                             const std::vector<double>& sizes) {
  std::string command = std::string(DDL_SIM_PINGPONG) + " " + xml + " " + args;
  for (double s : sizes) command += " " + std::to_string(static_cast<std::size_t>(s));
  const ChildResult r = run_child(command);
  INFO(command << "\n" << r.err);
  REQUIRE(r.exit_code == 0);
  std::vector<double> seconds;
  for (const std::string& line : split(r.out, '\n'))
    seconds.push_back(std::stod(split(line, ' ').at(1)));
  REQUIRE(seconds.size() == sizes.size());
  return seconds;
}

ChildResult load(const std::string& text) {
  const std::string xml = temp_file(text);
  const ChildResult r = run_child(std::string(DDL_SIM_PINGPONG) + " " + xml + " 8");
  std::remove(xml.c_str());
  return r;
}

std::string replace_first(std::string text, const std::string& from, const std::string& to) {
  const std::size_t at = text.find(from);
  REQUIRE(at != std::string::npos);
  return text.replace(at, from.size(), to);
}

constexpr double kSmall = 65536, kLarge = 4 << 20;

}  // namespace

TEST_CASE("per-class factors give each link class its own times", "[calibrate][sim]") {
  const std::vector<double> sizes{kSmall, kLarge};
  const auto node = simulate(kFixture, "--peer 1", sizes);
  const auto leaf = simulate(kFixture, "--peer 2", sizes);
  const auto spine = simulate(kFixture, "--peer 4", sizes);
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    const double n = sizes[i];
    INFO(n << " B");
    // Node: the class-less latency factor (x2 of 2 us), its own bandwidth factor (x1 of 10 GB/s).
    CHECK(node[i] == Approx(2 * 2e-6 + n / 10e9).epsilon(1e-9));
    // Leaf: its own tables, x1 / x0.5 below 1 MiB, x3 / x0.25 from it (10 us, 1 GB/s).
    CHECK(leaf[i] ==
          Approx(n < 1048576 ? 10e-6 + n / 0.5e9 : 3 * 10e-6 + n / 0.25e9).epsilon(1e-9));
    // Spine: no tables of its own, the class-less ones (30 us, 1 GB/s).
    CHECK(spine[i] == Approx(2 * 30e-6 + n / 0.5e9).epsilon(1e-9));
  }
}

TEST_CASE("without ddl_node and ddl_leaf every message takes the class-less factors",
          "[calibrate][sim]") {
  std::string text = read(kFixture);
  text =
      std::regex_replace(text, std::regex("<prop id=\"ddl_(node|leaf)\" value=\"[0-9]+\"/>"), "");
  text = std::regex_replace(
      text, std::regex("    <prop id=\"ddl_(node|leaf)_(lat|bw)_factors\"[^\n]*\n"), "");
  const std::string xml = temp_file(text);
  const std::vector<double> sizes{kSmall, kLarge};
  const auto node = simulate(xml, "--peer 1", sizes), leaf = simulate(xml, "--peer 2", sizes),
             spine = simulate(xml, "--peer 4", sizes);
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    const double n = sizes[i];
    CHECK(node[i] == Approx(2 * 2e-6 + n / 5e9).epsilon(1e-9));
    CHECK(leaf[i] == Approx(2 * 10e-6 + n / 0.5e9).epsilon(1e-9));
    CHECK(spine[i] == Approx(2 * 30e-6 + n / 0.5e9).epsilon(1e-9));
  }
  std::remove(xml.c_str());
}

TEST_CASE("malformed places and class factors without places are refused", "[calibrate][sim]") {
  const std::string good = read(kFixture);
  REQUIRE(load(good).exit_code == 0);
  const auto refused = [](const std::string& text, const std::string& message) {
    const ChildResult r = load(text);
    INFO(r.err);
    CHECK(r.exit_code != 0);
    CHECK(r.err.find(message) != std::string::npos);
  };
  const std::string no_places =
      std::regex_replace(good, std::regex("<prop id=\"ddl_(node|leaf)\" value=\"[0-9]+\"/>"), "");
  refused(no_places, "ddl_node_bw_factors needs GPU hosts with ddl_node and ddl_leaf");
  refused(replace_first(good, "<prop id=\"ddl_leaf\" value=\"1\"/>", ""),
          "host 'gpu4' has ddl_node but no ddl_leaf");
  refused(
      std::regex_replace(
          good,
          std::regex("<prop id=\"ddl_node\" value=\"3\"/><prop id=\"ddl_leaf\" value=\"1\"/>"), ""),
      "6 of 8 GPU hosts carry ddl_node and ddl_leaf: all of them or none must");
  refused(replace_first(good, "<prop id=\"ddl_node\" value=\"0\"/>",
                        "<prop id=\"ddl_node\" value=\"x\"/>"),
          "host 'gpu0': ddl_node 'x' is not a non-negative integer");
  refused(replace_first(good, "0:1;1048576:3", "0:1;8=3"),
          "ddl_leaf_lat_factors property: factors '0:1;8=3': '8=3' is not BYTES:FACTOR");
}

TEST_CASE(
    "the platform calibration writes for several nodes costs each pattern as its model predicts",
    "[calibrate][sim]") {
  // Inside a node: two size ranges, a bus of 1.5 lone flows' worth. Between nodes: the fit of
  // test_network_model's first case (NIC 44 MB/s, an uplink of half a NIC's rate).
  const std::vector<Segment> lone{{0, 2e-6, 1 / 5e9}, {1 << 20, 10e-6, 1 / 10e9}};
  PlatformModel m = model_from_pingpong(8, lone, 16 << 20, 30e9);
  m.bus_bandwidth = 1.5 * m.host_bandwidth;
  const Topology t{2, 2, 2};
  std::vector<NetworkPoint> points;
  for (double n : {1048576.0, 4194304.0}) {
    points.push_back({LinkClass::leaf, n, 30e-6 + n / 22e6, 2, 0});
    points.push_back({LinkClass::spine, n, 50e-6 + n / 10e6, 1, 2});
  }
  m.network = fit_network(
      t,
      {{LinkClass::leaf, {{0, 30e-6, 1 / 40e6}, {1 << 20, 100e-6, 1 / 45e6}}, 4 << 20, {}},
       {LinkClass::spine, {{0, 50e-6, 1 / 20e6}}, 4 << 20, {}}},
      points);
  const std::string xml = temp_file(platform_xml(m, {}));
  const std::vector<double> sizes{kSmall, kLarge};
  struct Case {
    std::string args;
    LinkClass c;
    int per_nic, per_uplink;
  };
  for (const Case& k : std::vector<Case>{{"--peer 2", LinkClass::leaf, 1, 0},
                                         {"--peer 4", LinkClass::spine, 1, 1},
                                         {"--pattern nic_one_way", LinkClass::leaf, 2, 0},
                                         {"--pattern nic_bidirectional", LinkClass::leaf, 2, 0},
                                         {"--pattern uplink", LinkClass::spine, 1, 2}}) {
    const std::vector<double> simulated = simulate(xml, k.args, sizes);
    for (std::size_t i = 0; i < sizes.size(); ++i) {
      INFO(k.args << " " << sizes[i] << " B");
      CHECK(simulated[i] ==
            Approx(predict(*m.network, {k.c, sizes[i], 0, k.per_nic, k.per_uplink})).epsilon(0.01));
    }
  }
  // Inside a node as on one node: the ping-pong's fit, two flows within the bus.
  const std::vector<double> pingpong = simulate(xml, "--peer 1", sizes),
                            exchange = simulate(xml, "--pattern bidirectional", sizes);
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    CHECK(pingpong[i] == Approx(evaluate(lone, sizes[i])).epsilon(0.01));
    CHECK(exchange[i] == Approx(predict(m, {sizes[i], 0, 2, 1})).epsilon(0.01));
  }
  std::remove(xml.c_str());
}

TEST_CASE("a NIC slower both ways: the written duplex link costs each NIC pattern as predicted",
          "[calibrate][sim]") {
  // Leaf 30 us + n / 40 MB/s; spine 50 us + n / 20 MB/s. Flows one way at the split NIC's share;
  // both ways 1.6x slower in transfer: duplex factor 1.25 (from 2 flows on, and at 4 with G = 2).
  const std::vector<Segment> inside{{0, 2e-6, 1 / 5e9}, {1 << 20, 10e-6, 1 / 10e9}};
  const std::vector<ClassPingpong> lone{{LinkClass::leaf, {{0, 30e-6, 1 / 40e6}}, 4 << 20, {}},
                                        {LinkClass::spine, {{0, 50e-6, 1 / 20e6}}, 4 << 20, {}}};
  const std::vector<double> sizes{kSmall, kLarge};
  for (const int g : {1, 2}) {
    const Topology t{g, 2, 2};
    std::vector<NetworkPoint> points;
    for (double n : {1048576.0, 4194304.0}) {
      points.push_back({LinkClass::leaf, n, 30e-6 + g * n / 40e6, g, 0, g});
      points.push_back({LinkClass::leaf, n, 30e-6 + 1.6 * g * n / 40e6, g, 0, 2 * g});
      points.push_back({LinkClass::spine, n, 50e-6 + n / 10e6, 1, 2, 1});
    }
    PlatformModel m = model_from_pingpong(t.ranks(), inside, 16 << 20, 30e9);
    m.network = fit_network(t, lone, points);
    REQUIRE_FALSE(m.network->duplex_by_flows.empty());
    CHECK(m.network->duplex_by_flows.back().factor == Approx(1.25).epsilon(1e-9));
    const std::string xml = temp_file(platform_xml(m, {}));
    struct Case {
      std::string args;
      NetworkPoint point;  // bytes and seconds unset
    };
    for (const Case& k :
         std::vector<Case>{{"--peer " + std::to_string(g), {LinkClass::leaf, 0, 0, 1, 0, 1}},
                           {"--peer " + std::to_string(2 * g), {LinkClass::spine, 0, 0, 1, 1, 1}},
                           {"--pattern nic_one_way", {LinkClass::leaf, 0, 0, g, 0, g}},
                           {"--pattern nic_bidirectional", {LinkClass::leaf, 0, 0, g, 0, 2 * g}},
                           {"--pattern uplink", {LinkClass::spine, 0, 0, 1, 2, 1}}}) {
      const std::vector<double> simulated = simulate(xml, k.args, sizes);
      for (std::size_t i = 0; i < sizes.size(); ++i) {
        NetworkPoint p = k.point;
        p.bytes = sizes[i];
        INFO("G " << g << " " << k.args << " " << sizes[i] << " B");
        CHECK(simulated[i] == Approx(predict(*m.network, p)).epsilon(0.01));
      }
    }
    // Both ways at 4 MB: the measured 1.6x, not the split NIC's 1x.
    NetworkPoint both{LinkClass::leaf, kLarge, 0, g, 0, 2 * g};
    CHECK(predict(*m.network, both) == Approx(30e-6 + 1.6 * g * kLarge / 40e6).epsilon(1e-9));
    std::remove(xml.c_str());
  }
}

TEST_CASE("one pair both ways: the written pair links cost each NIC pattern as predicted",
          "[calibrate][sim]") {
  // G = 2, one leaf of 2 nodes, lone flow 30 us + n / 40 MB/s. Two pairs crossing a NIC as fast
  // as alone, two each way 1.6x two one way, one pair both ways 2x alone (pair factor 1).
  const std::vector<Segment> inside{{0, 2e-6, 1 / 5e9}, {1 << 20, 10e-6, 1 / 10e9}};
  const std::vector<ClassPingpong> lone{{LinkClass::leaf, {{0, 30e-6, 1 / 40e6}}, 4 << 20, {}}};
  const Topology t{2, 2, 1};
  std::vector<NetworkPoint> points;
  for (double n : {1048576.0, 4194304.0}) {
    points.push_back({LinkClass::leaf, n, 30e-6 + 2 * n / 40e6, 2, 0, 2, 1});
    points.push_back({LinkClass::leaf, n, 30e-6 + n / 40e6, 1, 0, 2, 1});
    points.push_back({LinkClass::leaf, n, 30e-6 + 3.2 * n / 40e6, 2, 0, 4, 2});
    points.push_back({LinkClass::leaf, n, 30e-6 + 2 * n / 40e6, 1, 0, 2, 2});
  }
  PlatformModel m = model_from_pingpong(t.ranks(), inside, 16 << 20, 30e9);
  m.network = fit_network(t, lone, points);
  REQUIRE(m.network->pair_factor == Approx(1).epsilon(1e-9));
  const std::string xml = temp_file(platform_xml(m, {}));
  const std::vector<double> sizes{kSmall, kLarge};
  struct Case {
    std::string args;
    NetworkPoint point;  // bytes and seconds unset
  };
  for (const Case& k :
       std::vector<Case>{{"--peer 2", {LinkClass::leaf, 0, 0, 1, 0, 1, 1}},
                         {"--pattern nic_one_way", {LinkClass::leaf, 0, 0, 2, 0, 2, 1}},
                         {"--pattern nic_crossed", {LinkClass::leaf, 0, 0, 1, 0, 2, 1}},
                         {"--pattern nic_exchange", {LinkClass::leaf, 0, 0, 1, 0, 2, 2}},
                         {"--pattern nic_bidirectional", {LinkClass::leaf, 0, 0, 2, 0, 4, 2}}}) {
    const std::vector<double> simulated = simulate(xml, k.args, sizes);
    for (std::size_t i = 0; i < sizes.size(); ++i) {
      NetworkPoint p = k.point;
      p.bytes = sizes[i];
      INFO(k.args << " " << sizes[i] << " B");
      CHECK(simulated[i] == Approx(predict(*m.network, p)).epsilon(0.01));
    }
  }
  // At 4 MB: the exchange 2x a lone flow, two pairs crossing 1x.
  CHECK(predict(*m.network, {LinkClass::leaf, kLarge, 0, 1, 0, 2, 2}) ==
        Approx(30e-6 + 2 * kLarge / 40e6).epsilon(1e-9));
  CHECK(predict(*m.network, {LinkClass::leaf, kLarge, 0, 1, 0, 2, 1}) ==
        Approx(30e-6 + kLarge / 40e6).epsilon(1e-9));
  std::remove(xml.c_str());
}

TEST_CASE(
    "rails: the platform calibration writes for two NICs per node costs each pattern as its "
    "model predicts",
    "[calibrate][sim]") {
  // 2 nodes of 4 ranks on 2 rails (slot s on NIC s mod 2, one group): same rail leaf 30 us +
  // n / 40 MB/s, across rails spine 50 us + n / 20 MB/s; two flows per NIC at its share, the
  // uplink pattern (rail 0 to rail 1) at half a lone spine flow's rate.
  const std::vector<Segment> inside{{0, 2e-6, 1 / 5e9}, {1 << 20, 10e-6, 1 / 10e9}};
  const Topology t{4, 2, 1, 2};
  std::vector<NetworkPoint> points;
  for (double n : {1048576.0, 4194304.0}) {
    points.push_back({LinkClass::leaf, n, 30e-6 + 2 * n / 40e6, 2, 0});
    points.push_back({LinkClass::spine, n, 50e-6 + n / 10e6, 1, 2});
  }
  PlatformModel m = model_from_pingpong(t.ranks(), inside, 16 << 20, 30e9);
  m.network = fit_network(t,
                          {{LinkClass::leaf, {{0, 30e-6, 1 / 40e6}}, 4 << 20, {}},
                           {LinkClass::spine, {{0, 50e-6, 1 / 20e6}}, 4 << 20, {}}},
                          points);
  REQUIRE(m.network->uplink_bandwidth > 0);
  const std::string xml = temp_file(platform_xml(m, {}));
  const std::vector<double> sizes{kSmall, kLarge};
  struct Case {
    std::string args;
    LinkClass c;
    int per_nic, per_uplink;
  };
  REQUIRE(t.pingpong_peer(LinkClass::spine) == 5);
  for (const Case& k : std::vector<Case>{{"--peer 4", LinkClass::leaf, 1, 0},
                                         {"--peer 5", LinkClass::spine, 1, 1},
                                         {"--pattern nic_one_way", LinkClass::leaf, 2, 0},
                                         {"--pattern nic_crossed", LinkClass::leaf, 1, 0},
                                         {"--pattern uplink", LinkClass::spine, 1, 2},
                                         {"--pattern uplink_crossed", LinkClass::spine, 1, 1}}) {
    const std::vector<double> simulated = simulate(xml, k.args, sizes);
    for (std::size_t i = 0; i < sizes.size(); ++i) {
      INFO(k.args << " " << sizes[i] << " B");
      CHECK(simulated[i] ==
            Approx(predict(*m.network, {k.c, sizes[i], 0, k.per_nic, k.per_uplink})).epsilon(0.01));
    }
  }
  std::remove(xml.c_str());
}
