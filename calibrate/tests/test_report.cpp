// Calibration over several launches: reports read back exactly, launches combine into each
// point's median (or one clear message for reports that cannot be combined), the fit's memory
// and peer-read factors, and the platform's notes. Synthetic measurements (synthetic.hpp), so
// every expected value is exact.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "algorithms/error.hpp"
#include "calibrate/platform_xml.hpp"
#include "calibrate/report.hpp"
#include "synthetic.hpp"

using namespace ddl;
using namespace ddl::calibrate;
using namespace ddl::calibrate::test;

TEST_CASE("a calibration report reads back to the measurements it was written from",
          "[calibrate]") {
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
  CHECK(platform_xml(fit_measurements(back, 0.03, "p.xml").model, {}) ==
        platform_xml(fit_measurements(m, 0.03, "p.xml").model, {}));
}

TEST_CASE("combining launches takes every point's median over them", "[calibrate]") {
  const Measurements c =
      combine({launch(1.0), launch(3.0), launch(1.2)}, {"a.json", "b.json", "c.json"});
  CHECK(c.launches == 3);
  CHECK(c.sources == std::vector<std::string>{"a.json", "b.json", "c.json"});
  const double pp = 1e-6 + 65536 / 10e9;  // launch(1.0)'s 64 KB ping-pong
  CHECK(c.messages[1].pingpong.median == Approx(1.2 * pp).epsilon(1e-12));
  CHECK(c.messages[1].pingpong.min == Approx(pp).epsilon(1e-12));
  CHECK(c.messages[1].pingpong.max == Approx(3.0 * pp).epsilon(1e-12));
  CHECK(c.messages[1].patterns[0].median == Approx(1.5 * 1.2 * pp).epsilon(1e-12));
  CHECK(c.reduce[0].second.alone.median == Approx(1.2 * (1 << 20) / 10e9).epsilon(1e-12));
  CHECK(c.reduce[1].second.alone.median == Approx(2e-4).epsilon(1e-12));
  CHECK(c.reduce_float_by_size[0].all_ranks.median ==
        Approx(1.25 * 1.2 * 4096 / 20e9).epsilon(1e-12));
  CHECK(c.copy.alone.median == Approx((1 << 20) / 20e9).epsilon(1e-12));
  // The memory bandwidth follows the combined float reduce: 3 x 10 GB/s / 1.2 / 1.25.
  CHECK(fit_measurements(c, 0.03, "p.xml").model.memory_bandwidth ==
        Approx(3 * 10e9 / 1.2 / 1.25).epsilon(1e-9));
  // One launch is returned as it is.
  CHECK(combine({launch(2.0)}, {"a.json"}).messages[0].pingpong.q1 ==
        launch(2.0).messages[0].pingpong.q1);
}

TEST_CASE("launches of different commands are not combined", "[calibrate]") {
  Measurements other_sizes = launch(1.0);
  other_sizes.messages.pop_back();
  CHECK_THROWS_WITH(combine({launch(1.0), other_sizes}, {"a.json", "b.json"}),
                    Catch::Contains("'a.json' and 'b.json' differ in message sizes"));
  Measurements other_ranks = launch(1.0);
  other_ranks.ranks = 4;
  CHECK_THROWS_WITH(combine({launch(1.0), other_ranks}, {"a.json", "b.json"}),
                    Catch::Contains("differ in ranks"));
  Measurements other_receive = launch(1.0);
  other_receive.receive_buffers = "peer-read";
  CHECK_THROWS_WITH(combine({launch(1.0), other_receive}, {"a.json", "b.json"}),
                    Catch::Contains("differ in receive buffers"));
  Measurements hot = launch(1.0);
  hot.by_size_operands = "hot";
  CHECK_THROWS_WITH(
      combine({launch(1.0), hot}, {"a.json", "b.json"}),
      Catch::Contains("differ in the operands of the reduce sweep (hot or received)"));
  Measurements other_reduce = launch(1.0);
  other_reduce.copy.bytes = 4096;
  CHECK_THROWS_WITH(combine({launch(1.0), other_reduce}, {"a.json", "b.json"}),
                    Catch::Contains("differ in local timings"));
  const Measurements twice = combine({launch(1.0), launch(2.0)}, {"a.json", "b.json"});
  CHECK_THROWS_WITH(combine({twice, launch(1.0)}, {"ab.json", "c.json"}),
                    Catch::Contains("'ab.json' already combines launches"));
  nlohmann::ordered_json broken = fit_measurements(launch(1.0), 0.03, "p.xml").report;
  broken["messages"][1].erase("pingpong");
  CHECK_THROWS_WITH(read_report(broken, "r.json"),
                    Catch::Contains("calibration report 'r.json' is malformed"));
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
  for (std::size_t open = xml.find("<!--"); open != std::string::npos;
       open = xml.find("<!--", open + 4)) {
    const std::size_t close = xml.find("-->", open + 4);
    REQUIRE(close != std::string::npos);
    const std::string inner = xml.substr(open + 4, close - open - 4);
    INFO(inner);
    CHECK(inner.find("--") == std::string::npos);
    CHECK((inner.empty() || inner.back() != '-'));
  }
}

TEST_CASE("the peer-read exchange reads back, combines and becomes ddl_peer_read_factors",
          "[calibrate]") {
  const Measurements m = launch(1.0, {0.9, 1.4, 1.1});
  const Calibration c = fit_measurements(m, 0.03, "p.xml");
  // Ratio to the bidirectional exchange per size, from threshold 0; below 1 written as 1.
  CHECK(c.model.peer_read_factors == "0:1;65536:1.4;1048576:1.1");
  CHECK(c.report["messages"][0]["bidirectional_peer_read"]["ratio"].get<double>() ==
        Approx(0.9).epsilon(1e-12));
  CHECK(c.report["messages"][0]["bidirectional_peer_read"]["peer_read_factor"].get<double>() ==
        1.0);
  CHECK(platform_xml(c.model, {})
            .find("<prop id=\"ddl_peer_read_factors\" value=\"0:1;65536:1.4;1048576:1.1\"/>") !=
        std::string::npos);
  const Measurements back = read_report(c.report, "r.json");
  for (std::size_t i = 0; i < m.messages.size(); ++i) {
    REQUIRE(back.messages[i].bidirectional_peer_read);
    CHECK(back.messages[i].bidirectional_peer_read->median ==
          m.messages[i].bidirectional_peer_read->median);
    CHECK(back.messages[i].bidirectional_peer_read->q1 ==
          m.messages[i].bidirectional_peer_read->q1);
  }
  // Over launches: each point's median (64 KB: 1.0 x 1.4, 3.0 x 2.0 and 1.2 x 1.2 the exchange).
  const Measurements three =
      combine({launch(1.0, {1, 1.4, 1}), launch(3.0, {1, 2.0, 1}), launch(1.2, {1, 1.2, 1})},
              {"a.json", "b.json", "c.json"});
  const double exchange = 1.5 * (1e-6 + 65536 / 10e9);
  CHECK(three.messages[1].bidirectional_peer_read->median ==
        Approx(1.2 * 1.2 * exchange).epsilon(1e-12));
  CHECK(three.messages[1].bidirectional_peer_read->max ==
        Approx(3.0 * 2.0 * exchange).epsilon(1e-12));
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
  CHECK_THROWS_WITH(read_report(partial, "r.json"),
                    Catch::Contains("only some message rows have bidirectional_peer_read"));
}

namespace {

// Two nodes of two ranks (one leaf): ping-pong between them 30 us + n / 40 MB/s, two flows one
// way at the split NIC's share, two each way `slowdown` times slower in transfer.
Measurements two_nodes(double slowdown) {
  Measurements m = launch(1.0);
  m.ranks = 4;
  m.topology = Topology{2, 2, 1};
  ClassMessages c;
  c.link_class = LinkClass::leaf;
  c.patterns = {{"nic_one_way", 2, 0}, {"nic_bidirectional", 2, 0}};
  for (std::size_t bytes : {1024, 65536, 1 << 20, 4 << 20}) {
    const double n = static_cast<double>(bytes);
    c.messages.push_back({bytes,
                          around(30e-6 + n / 40e6),
                          {around(30e-6 + 2 * n / 40e6), around(30e-6 + slowdown * 2 * n / 40e6)},
                          std::nullopt});
  }
  m.network = {c};
  return m;
}

}  // namespace

TEST_CASE("the duplex link is fitted from a report's NIC patterns both ways", "[calibrate]") {
  const Calibration c = fit_measurements(two_nodes(1.6), 0.03, "p.xml");
  REQUIRE(c.model.network);
  const std::vector<DuplexFactor>& d = c.model.network->duplex_by_flows;
  REQUIRE(d.size() == 2);
  CHECK(d[0].flows == 2);
  CHECK(d[0].factor == Approx(1.25).epsilon(1e-9));
  CHECK(d[1].flows == 4);
  CHECK(d[1].factor == Approx(1.25).epsilon(1e-9));
  // The model column of both patterns: about 0 where transfer dominates.
  for (const auto& row : c.report["network"]["leaf"]["messages"]) {
    if (row["bytes"].get<std::size_t>() < 65536) continue;
    CHECK(row["nic_one_way"]["model_error_pct"].get<double>() == Approx(0).margin(1e-6));
    CHECK(row["nic_bidirectional"]["model_error_pct"].get<double>() == Approx(0).margin(1e-6));
    CHECK(row["nic_bidirectional"]["flows_per_duplex"] == 4);
    CHECK(row["nic_one_way"]["flows_per_duplex"] == 2);
  }
  CHECK(c.report["platform"]["duplex_by_flows"].size() == 2);
  // Refitting the report (ddlcalibrate --combine) gives the same platform, duplex included.
  const std::string xml = platform_xml(c.model, {});
  CHECK(xml.find("<link id=\"n1-duplex\"") != std::string::npos);
  CHECK(platform_xml(fit_measurements(read_report(c.report, "r.json"), 0.03, "p.xml").model, {}) ==
        xml);
  // No slowdown both ways: no duplex link, nothing about it in the report.
  const Calibration plain = fit_measurements(two_nodes(1.0), 0.03, "p.xml");
  CHECK(plain.model.network->duplex_by_flows.empty());
  CHECK(platform_xml(plain.model, {}).find("-duplex") == std::string::npos);
  CHECK_FALSE(plain.report["platform"].contains("duplex_by_flows"));
}

namespace {

// Two nodes of two ranks on two rails (one group): slot s uses NIC s, so node 0 to node 1 on a
// rail is leaf (30 us + n / 40 MB/s) and across rails spine (50 us + n / 40 MB/s), whose uplink
// pattern (one flow per node, rail 0 to rail 1) takes twice a lone flow: two NICs' flows share
// an uplink of one NIC's capacity.
Measurements rails() {
  Measurements m = launch(1.0);
  m.ranks = 4;
  m.topology = Topology{2, 2, 1, 2};
  const std::vector<std::size_t> sizes{1024, 65536, 1 << 20, 4 << 20};
  ClassMessages leaf;
  leaf.link_class = LinkClass::leaf;
  leaf.patterns = {{"nic_one_way", 1, 0}, {"nic_bidirectional", 1, 0}};
  ClassMessages spine;
  spine.link_class = LinkClass::spine;
  spine.patterns = {{"uplink", 1, 2}};
  for (std::size_t bytes : sizes) {
    const double n = static_cast<double>(bytes);
    leaf.messages.push_back({bytes,
                             around(30e-6 + n / 40e6),
                             {around(30e-6 + n / 40e6), around(30e-6 + n / 40e6)},
                             std::nullopt});
    spine.messages.push_back(
        {bytes, around(50e-6 + n / 40e6), {around(50e-6 + 2 * n / 40e6)}, std::nullopt});
  }
  m.network = {leaf, spine};
  return m;
}

}  // namespace

TEST_CASE("rails: the report keeps the NIC count, and reports without it have one NIC",
          "[calibrate]") {
  const Calibration c = fit_measurements(rails(), 0.03, "p.xml");
  CHECK(c.report["topology"]["nics"] == 2);
  const Measurements back = read_report(c.report, "r.json");
  CHECK(back.topology == Topology{2, 2, 1, 2});
  const std::string xml = platform_xml(c.model, {});
  CHECK(xml.find("<link id=\"n1-nic1\"") != std::string::npos);
  CHECK(xml.find("<link id=\"leaf1-up\"") != std::string::npos);
  CHECK(c.report["platform"].contains("uplink_Bps"));
  // The uplink carries the two flows at one NIC's capacity: 40 MB/s, as the lone flows.
  CHECK(c.model.network->nic_bandwidth == Approx(40e6).epsilon(1e-6));
  CHECK(c.model.network->uplink_bandwidth == Approx(40e6).epsilon(1e-6));
  // Refitting the report (ddlcalibrate --combine) gives the same platform.
  CHECK(platform_xml(fit_measurements(back, 0.03, "p.xml").model, {}) == xml);
  // One NIC: no "nics" written, and reading it gives one NIC.
  const Calibration one = fit_measurements(two_nodes(1.0), 0.03, "p.xml");
  CHECK_FALSE(one.report["topology"].contains("nics"));
  CHECK(read_report(one.report, "r.json").topology.nics == 1);
  // A NIC count that does not divide the ranks per node is refused.
  nlohmann::ordered_json bad = c.report;
  bad["topology"]["nics"] = 3;
  CHECK_THROWS_WITH(read_report(bad, "r.json"),
                    Catch::Contains("its topology's nics 3 does not divide its 2 ranks per node"));
}
