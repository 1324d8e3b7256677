// The platform file (calibrate/platform_xml.hpp): one node exactly as ddlcalibrate has always
// written it (flat_2.xml was written by the code before calibration had classes), several
// nodes with the nominal platform's names, routes and properties.
#include <catch2/catch.hpp>
#include <fstream>
#include <regex>
#include <sstream>

#include "calibrate/platform_xml.hpp"

using namespace ddl;
using namespace ddl::calibrate;

namespace {

const std::vector<Segment> kLone{{0, 2e-6, 1 / 5e9}, {1 << 20, 10e-6, 1 / 10e9}};

// A node's shared memory whose bus carries 1.5 lone flows' worth with 2 flows, 1.25 with 4.
PlatformModel node_model(int ranks) {
  PlatformModel m = model_from_pingpong(ranks, kLone, 16 << 20, 30e9);
  std::vector<ContendedPoint> pts;
  for (double bytes : {262144.0, 4194304.0}) {
    const Segment& r = kLone[bytes < (1 << 20) ? 0 : 1];
    const double transfer = bytes * r.seconds_per_byte;
    pts.push_back({bytes, r.latency_s + transfer / 0.75, 2, 1});
    pts.push_back({bytes, r.latency_s + transfer / 0.3125, 4, 2});
  }
  choose_capacities(m, pts);
  m.memory_factors = "0:1;16384:0.5";
  m.peer_read_factors = "0:1;65536:1.4";
  return m;
}

// Leaf: 30 us + n / 40 MB/s; spine 50 us + n / 20 MB/s; NIC 50 MB/s, uplink 25 MB/s.
NetworkModel network(const Topology& t) {
  NetworkModel n;
  n.topology = t;
  n.nic_bandwidth = 50e6;
  n.nic_latency = 15e-6;
  n.classes.push_back({LinkClass::leaf, {{0, 30e-6, 1 / 40e6}}, 30e-6, 50e6});
  if (t.leaf_switches() > 1) {
    n.uplink_bandwidth = 25e6;
    n.uplink_latency = 10e-6;
    n.classes.push_back({LinkClass::spine, {{0, 50e-6, 1 / 20e6}}, 50e-6, 25e6});
  }
  return n;
}

bool has(const std::string& text, const std::string& line) {
  return text.find(line) != std::string::npos;
}

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

}  // namespace

TEST_CASE("one node: the flat platform, byte for byte as before", "[calibrate]") {
  std::ifstream in(std::string(DDL_CALIBRATE_FIXTURES) + "/flat_2.xml");
  REQUIRE(in);
  std::stringstream expected;
  expected << in.rdbuf();
  CHECK(platform_xml(node_model(2), {"origin --x", "memory note"}) == expected.str());
  const MessageFactors f = message_factors(kLone, 2e-6, 1e10);
  CHECK(f.latency == "0:1;1048576:5");
  CHECK(f.bandwidth == "0:0.5;1048576:1");
}

TEST_CASE("two leaves of two nodes of two ranks: names, routes and properties", "[calibrate]") {
  PlatformModel m = node_model(8);
  m.network = network(Topology{2, 2, 2});
  const std::string x = platform_xml(m, {});
  CHECK(has(x, "<prop id=\"ddl_dims\" value=\"2x2x2\"/>"));
  CHECK(has(x, "<prop id=\"ddl_gpus\" value=\"8\"/>"));
  // Every class its own factors, relative to its own route; no class-less table.
  CHECK(has(x, "<prop id=\"ddl_node_lat_factors\" value=\"0:1;1048576:5\"/>"));
  CHECK(has(x, "<prop id=\"ddl_node_bw_factors\" value=\"0:0.5;1048576:1\"/>"));
  CHECK(has(x, "<prop id=\"ddl_leaf_lat_factors\" value=\"0:1\"/>"));
  CHECK(has(x, "<prop id=\"ddl_leaf_bw_factors\" value=\"0:0.8\"/>"));
  CHECK(has(x, "<prop id=\"ddl_spine_lat_factors\" value=\"0:1\"/>"));
  CHECK(has(x, "<prop id=\"ddl_spine_bw_factors\" value=\"0:0.8\"/>"));
  CHECK_FALSE(has(x, "\"ddl_lat_factors\""));
  CHECK_FALSE(has(x, "\"ddl_bw_factors\""));
  CHECK(has(x, "<prop id=\"ddl_memory_factors\" value=\"0:1;16384:0.5\"/>"));
  CHECK(has(x, "<prop id=\"ddl_peer_read_factors\" value=\"0:1;65536:1.4\"/>"));
  CHECK(has(
      x,
      "<host id=\"gpu5\" speed=\"1Gf\"><prop id=\"ddl_rank\" value=\"5\"/><prop id=\"ddl_node\" "
      "value=\"2\"/><prop id=\"ddl_leaf\" value=\"1\"/><prop id=\"memory_bandwidth\" "
      "value=\"3e+10\"/></host>"));
  CHECK(count(x, "<host ") == 8);
  // Links: a rank's copies, a node's shared memory (the bus, per flow count), NIC, uplink.
  CHECK(has(x,
            "<link id=\"gpu7-link\" bandwidth=\"1e+10Bps\" latency=\"1e-06s\" "
            "sharing_policy=\"SPLITDUPLEX\"/>"));
  CHECK(has(
      x, "<link id=\"n3-shm\" bandwidth=\"1.5e+10Bps\" latency=\"0s\" sharing_policy=\"SHARED\">"));
  CHECK(count(x, "<prop id=\"ddl_capacity_by_flows\" value=\"2:1;4:0.833333333\"/>") == 4);
  CHECK(has(x,
            "<link id=\"n3-nic\" bandwidth=\"50000000Bps\" latency=\"1.5e-05s\" "
            "sharing_policy=\"SPLITDUPLEX\"/>"));
  CHECK(has(x,
            "<link id=\"leaf1-up\" bandwidth=\"25000000Bps\" latency=\"1e-05s\" "
            "sharing_policy=\"SPLITDUPLEX\"/>"));
  CHECK(count(x, "<link id=") == 8 + 4 + 4 + 2);
  CHECK_FALSE(has(x, "id=\"bus\""));
  CHECK_FALSE(has(x, "<router"));
  // Routes: one per ordered pair, by class.
  CHECK(count(x, "<route ") == 8 * 7);
  CHECK(has(x,
            "<route src=\"gpu7\" dst=\"gpu6\" symmetrical=\"NO\"><link_ctn id=\"gpu7-link\" "
            "direction=\"UP\"/>"
            "<link_ctn id=\"n3-shm\"/><link_ctn id=\"gpu6-link\" direction=\"DOWN\"/></route>"));
  CHECK(has(x,
            "<route src=\"gpu1\" dst=\"gpu2\" symmetrical=\"NO\"><link_ctn id=\"n0-nic\" "
            "direction=\"UP\"/>"
            "<link_ctn id=\"n1-nic\" direction=\"DOWN\"/></route>"));
  CHECK(has(
      x,
      "<route src=\"gpu6\" dst=\"gpu1\" symmetrical=\"NO\"><link_ctn id=\"n3-nic\" "
      "direction=\"UP\"/>"
      "<link_ctn id=\"leaf1-up\" direction=\"UP\"/><link_ctn id=\"leaf0-up\" direction=\"DOWN\"/>"
      "<link_ctn id=\"n0-nic\" direction=\"DOWN\"/></route>"));
}

TEST_CASE("one leaf: no uplinks, no spine class, dims without the leaves", "[calibrate]") {
  PlatformModel m = node_model(4);
  m.network = network(Topology{2, 2, 1});
  const std::string x = platform_xml(m, {});
  CHECK(has(x, "<prop id=\"ddl_dims\" value=\"2x2\"/>"));
  CHECK(has(x, "ddl_leaf_bw_factors"));
  CHECK_FALSE(has(x, "ddl_spine"));
  CHECK_FALSE(has(x, "-up\""));
  CHECK(count(x, "<route ") == 4 * 3);
  CHECK(has(
      x,
      "<host id=\"gpu3\" speed=\"1Gf\"><prop id=\"ddl_rank\" value=\"3\"/><prop id=\"ddl_node\" "
      "value=\"1\"/><prop id=\"ddl_leaf\" value=\"0\"/>"));
  m.ranks = 6;
  CHECK_THROWS_WITH(platform_xml(m, {}), "calibration: a topology of 4 ranks on a platform of 6");
}

TEST_CASE("a NIC slower both ways: n<i>-duplex, its capacity by flows, routes through it",
          "[calibrate]") {
  PlatformModel m = node_model(8);
  m.network = network(Topology{2, 2, 2});
  const std::string plain = platform_xml(m, {});
  CHECK_FALSE(has(plain, "-duplex"));
  m.network->duplex_by_flows = {{2, 1.25}, {4, 1.25}};
  const std::string x = platform_xml(m, {});
  CHECK(has(x,
            "<link id=\"n2-duplex\" bandwidth=\"50000000Bps\" latency=\"0s\" "
            "sharing_policy=\"SHARED\">"));
  CHECK(count(x, "<prop id=\"ddl_capacity_by_flows\" value=\"2:1.25;4:1.25\"/>") == 4);
  CHECK(count(x, "-duplex\" bandwidth") == 4);
  CHECK(count(x, "<link id=") == 8 + 4 + 4 + 4 + 2);
  // Same node: untouched; between nodes: after the source's NIC, before the destination's.
  CHECK(has(x,
            "<route src=\"gpu7\" dst=\"gpu6\" symmetrical=\"NO\"><link_ctn id=\"gpu7-link\" "
            "direction=\"UP\"/><link_ctn id=\"n3-shm\"/><link_ctn id=\"gpu6-link\" "
            "direction=\"DOWN\"/></route>"));
  CHECK(has(x,
            "<route src=\"gpu1\" dst=\"gpu2\" symmetrical=\"NO\"><link_ctn id=\"n0-nic\" "
            "direction=\"UP\"/><link_ctn id=\"n0-duplex\"/><link_ctn id=\"n1-duplex\"/>"
            "<link_ctn id=\"n1-nic\" direction=\"DOWN\"/></route>"));
  CHECK(has(x,
            "<route src=\"gpu6\" dst=\"gpu1\" symmetrical=\"NO\"><link_ctn id=\"n3-nic\" "
            "direction=\"UP\"/><link_ctn id=\"n3-duplex\"/><link_ctn id=\"leaf1-up\" "
            "direction=\"UP\"/><link_ctn id=\"leaf0-up\" direction=\"DOWN\"/><link_ctn "
            "id=\"n0-duplex\"/><link_ctn id=\"n0-nic\" direction=\"DOWN\"/></route>"));
  CHECK(count(x, "-duplex\"/>") == 2 * (8 * 7 - 4 * 2));
  // Everything else as without it.
  std::string stripped = std::regex_replace(
      x, std::regex("    <link id=\"n[0-9]+-duplex\"[^\n]*\n[^\n]*\n    </link>\n"), "");
  stripped = std::regex_replace(stripped, std::regex("<link_ctn id=\"n[0-9]+-duplex\"/>"), "");
  CHECK(stripped == plain);
}

TEST_CASE("one pair of ranks both ways: pair<a>-<b> per pair of nodes apart, both routes",
          "[calibrate]") {
  PlatformModel m = node_model(8);
  m.network = network(Topology{2, 2, 2});
  const std::string plain = platform_xml(m, {});
  CHECK_FALSE(has(plain, "pair"));
  m.network->pair_factor = 1.5;
  const std::string x = platform_xml(m, {});
  // NIC 50 MB/s x 1.5; one link per pair of ranks on different nodes: 8 x 6 / 2.
  CHECK(has(x,
            "<link id=\"pair1-6\" bandwidth=\"75000000Bps\" latency=\"0s\" "
            "sharing_policy=\"SHARED\"/>"));
  CHECK(count(x, "<link id=\"pair") == 24);
  CHECK_FALSE(has(x, "<link id=\"pair0-1\""));  // same node
  // Both directions of a pair cross its link, after the source's NIC.
  CHECK(has(x,
            "<route src=\"gpu1\" dst=\"gpu6\" symmetrical=\"NO\"><link_ctn id=\"n0-nic\" "
            "direction=\"UP\"/><link_ctn id=\"pair1-6\"/><link_ctn id=\"leaf0-up\""));
  CHECK(has(x,
            "<route src=\"gpu6\" dst=\"gpu1\" symmetrical=\"NO\"><link_ctn id=\"n3-nic\" "
            "direction=\"UP\"/><link_ctn id=\"pair1-6\"/><link_ctn id=\"leaf1-up\""));
  CHECK(count(x, "<link_ctn id=\"pair") == 8 * 7 - 4 * 2);
  std::string stripped = std::regex_replace(x, std::regex("    <link id=\"pair[^\n]*\n"), "");
  stripped = std::regex_replace(stripped, std::regex("<link_ctn id=\"pair[0-9]+-[0-9]+\"/>"), "");
  CHECK(stripped == plain);
}

TEST_CASE("rails: two NICs per node in one group: NIC and uplink names, routes, leaves",
          "[calibrate]") {
  PlatformModel m = node_model(4);
  m.network = network(Topology{2, 2, 1, 2});
  const std::string x = platform_xml(m, {});
  CHECK(has(x, "<prop id=\"ddl_dims\" value=\"2x2\"/>"));
  CHECK(has(x, "<prop id=\"ddl_spine_bw_factors\" value=\"0:0.8\"/>"));
  // ddl_leaf: the leaf of the host's own NIC (rail 1 for slot 1).
  CHECK(has(x,
            "<host id=\"gpu3\" speed=\"1Gf\"><prop id=\"ddl_rank\" value=\"3\"/><prop "
            "id=\"ddl_node\" value=\"1\"/><prop id=\"ddl_leaf\" value=\"1\"/>"));
  CHECK(has(x,
            "<host id=\"gpu2\" speed=\"1Gf\"><prop id=\"ddl_rank\" value=\"2\"/><prop "
            "id=\"ddl_node\" value=\"1\"/><prop id=\"ddl_leaf\" value=\"0\"/>"));
  // Each NIC with the calibrated figures; one uplink per leaf (rail).
  for (const char* nic : {"n0-nic0", "n0-nic1", "n1-nic0", "n1-nic1"})
    CHECK(has(x, std::string("<link id=\"") + nic +
                     "\" bandwidth=\"50000000Bps\" latency=\"1.5e-05s\" "
                     "sharing_policy=\"SPLITDUPLEX\"/>"));
  CHECK(has(x,
            "<link id=\"leaf0-up\" bandwidth=\"25000000Bps\" latency=\"1e-05s\" "
            "sharing_policy=\"SPLITDUPLEX\"/>"));
  CHECK(has(x, "<link id=\"leaf1-up\""));
  CHECK_FALSE(has(x, "<link id=\"n0-nic\""));
  CHECK_FALSE(has(x, "<link id=\"leaf2-up\""));
  CHECK(count(x, "<link id=") == 4 + 2 + 4 + 2);
  CHECK(count(x, "<route ") == 4 * 3);
  // Same rail: NIC to NIC.
  CHECK(has(x,
            "<route src=\"gpu0\" dst=\"gpu2\" symmetrical=\"NO\"><link_ctn id=\"n0-nic0\" "
            "direction=\"UP\"/><link_ctn id=\"n1-nic0\" direction=\"DOWN\"/></route>"));
  CHECK(has(x,
            "<route src=\"gpu3\" dst=\"gpu1\" symmetrical=\"NO\"><link_ctn id=\"n1-nic1\" "
            "direction=\"UP\"/><link_ctn id=\"n0-nic1\" direction=\"DOWN\"/></route>"));
  // Across rails: the two leaves' uplinks.
  CHECK(has(x,
            "<route src=\"gpu0\" dst=\"gpu3\" symmetrical=\"NO\"><link_ctn id=\"n0-nic0\" "
            "direction=\"UP\"/><link_ctn id=\"leaf0-up\" direction=\"UP\"/><link_ctn "
            "id=\"leaf1-up\" direction=\"DOWN\"/><link_ctn id=\"n1-nic1\" "
            "direction=\"DOWN\"/></route>"));
  CHECK(has(x,
            "<route src=\"gpu2\" dst=\"gpu1\" symmetrical=\"NO\"><link_ctn id=\"n1-nic0\" "
            "direction=\"UP\"/><link_ctn id=\"leaf0-up\" direction=\"UP\"/><link_ctn "
            "id=\"leaf1-up\" direction=\"DOWN\"/><link_ctn id=\"n0-nic1\" "
            "direction=\"DOWN\"/></route>"));
  // Inside a node: shared memory as before.
  CHECK(has(x,
            "<route src=\"gpu1\" dst=\"gpu0\" symmetrical=\"NO\"><link_ctn id=\"gpu1-link\" "
            "direction=\"UP\"/><link_ctn id=\"n0-shm\"/><link_ctn id=\"gpu0-link\" "
            "direction=\"DOWN\"/></route>"));
}

TEST_CASE("rails: a duplex link per NIC, crossed next to that NIC", "[calibrate]") {
  PlatformModel m = node_model(8);
  m.network = network(Topology{2, 2, 2, 2});
  m.network->duplex_by_flows = {{2, 1.2}};
  const std::string x = platform_xml(m, {});
  for (int j = 0; j < 4; ++j) CHECK(has(x, "<link id=\"leaf" + std::to_string(j) + "-up\""));
  CHECK_FALSE(has(x, "<link id=\"leaf4-up\""));
  // 8 links (4 nodes x 2 NICs), and two in each of the 48 routes between nodes.
  for (const char* d : {"n0-duplex0", "n0-duplex1", "n3-duplex0", "n3-duplex1"})
    CHECK(has(x, std::string("<link id=\"") + d + "\""));
  CHECK_FALSE(has(x, "<link id=\"n0-duplex\""));
  CHECK(count(x, "-duplex") == 8 + 48 * 2);
  // gpu1 (node 0, rail 1) to gpu6 (node 3, group 1, rail 0): leaf 1's uplink up, leaf 2's down.
  CHECK(has(x,
            "<route src=\"gpu1\" dst=\"gpu6\" symmetrical=\"NO\"><link_ctn id=\"n0-nic1\" "
            "direction=\"UP\"/><link_ctn id=\"n0-duplex1\"/><link_ctn id=\"leaf1-up\" "
            "direction=\"UP\"/><link_ctn id=\"leaf2-up\" direction=\"DOWN\"/><link_ctn "
            "id=\"n3-duplex0\"/><link_ctn id=\"n3-nic0\" direction=\"DOWN\"/></route>"));
  // gpu5 (node 2, group 1, rail 1) to gpu7 (node 3, rail 1): the same leaf 3.
  CHECK(has(x,
            "<route src=\"gpu5\" dst=\"gpu7\" symmetrical=\"NO\"><link_ctn id=\"n2-nic1\" "
            "direction=\"UP\"/><link_ctn id=\"n2-duplex1\"/><link_ctn id=\"n3-duplex1\"/>"
            "<link_ctn id=\"n3-nic1\" direction=\"DOWN\"/></route>"));
}

TEST_CASE("an uplink slower both ways: leaf<j>-duplex per leaf, crossed by routes between leaves",
          "[calibrate]") {
  PlatformModel m = node_model(4);
  m.network = network(Topology{2, 2, 1, 2});
  const std::string plain = platform_xml(m, {});
  CHECK_FALSE(has(plain, "leaf0-duplex"));
  m.network->uplink_duplex_factor = 1.5;
  const std::string x = platform_xml(m, {});
  // NIC 50 MB/s x 1.5, one per leaf (rail), both directions shared.
  CHECK(has(x,
            "<link id=\"leaf0-duplex\" bandwidth=\"75000000Bps\" latency=\"0s\" "
            "sharing_policy=\"SHARED\"/>"));
  CHECK(has(x, "<link id=\"leaf1-duplex\""));
  CHECK_FALSE(has(x, "<link id=\"leaf2-duplex\""));
  // Across rails: both leaves' duplex links between their uplinks, in both directions.
  CHECK(has(x,
            "<route src=\"gpu0\" dst=\"gpu3\" symmetrical=\"NO\"><link_ctn id=\"n0-nic0\" "
            "direction=\"UP\"/><link_ctn id=\"leaf0-up\" direction=\"UP\"/><link_ctn "
            "id=\"leaf0-duplex\"/><link_ctn id=\"leaf1-duplex\"/><link_ctn id=\"leaf1-up\" "
            "direction=\"DOWN\"/><link_ctn id=\"n1-nic1\" direction=\"DOWN\"/></route>"));
  CHECK(has(x,
            "<route src=\"gpu3\" dst=\"gpu0\" symmetrical=\"NO\"><link_ctn id=\"n1-nic1\" "
            "direction=\"UP\"/><link_ctn id=\"leaf1-up\" direction=\"UP\"/><link_ctn "
            "id=\"leaf1-duplex\"/><link_ctn id=\"leaf0-duplex\"/><link_ctn id=\"leaf0-up\" "
            "direction=\"DOWN\"/><link_ctn id=\"n0-nic0\" direction=\"DOWN\"/></route>"));
  // Only the 4 routes between rails (0 and 3, 1 and 2, both ways) cross them, each with both
  // uplinks and both duplex links; same rail and same node do not.
  CHECK(count(x, "<link_ctn id=\"leaf") == 4 * 4);
  std::string stripped =
      std::regex_replace(x, std::regex("    <link id=\"leaf[0-9]+-duplex\"[^\n]*\n"), "");
  stripped = std::regex_replace(stripped, std::regex("<link_ctn id=\"leaf[0-9]+-duplex\"/>"), "");
  CHECK(stripped == plain);
}
