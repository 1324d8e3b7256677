// Calibration round trip in the simulator (no MPI): the platform calibration writes, loaded by
// ddlsim's code, costs each pattern as the calibrator predicts (flat: the bus and its capacity
// per flow count; multi-level: per-class factors, NICs and uplinks), and the factor tables it
// relies on. Synthetic models, simulated by sim_pingpong (one simulation per process).
#include <catch2/catch.hpp>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>

#include "algorithms/error.hpp"
#include "calibrate/fit.hpp"
#include "calibrate/platform_model.hpp"
#include "calibrate/platform_xml.hpp"
#include "sim/platform.hpp"
#include "sim/tests/child_process.hpp"

using namespace ddl;
using namespace ddl::test;

TEST_CASE("factor tables: the largest threshold at or below the size wins, 1 below the first",
          "[calibrate]") {
  const sim::FactorTable t = sim::parse_factors("1024:0.5;65536:2", false);
  REQUIRE(t == sim::FactorTable{{1024, 0.5}, {65536, 2}});
  CHECK(sim::factor_at(t, 0) == 1);
  CHECK(sim::factor_at(t, 1024) == 0.5);
  CHECK(sim::factor_at(t, 65535) == 0.5);
  CHECK(sim::factor_at(t, 1 << 20) == 2);
  CHECK(sim::parse_factors("0:0", true) == sim::FactorTable{{0, 0}});
  CHECK_THROWS_WITH(sim::parse_factors("0:0", false),
                    Catch::Contains("'0' is not a positive number"));
  CHECK_THROWS_WITH(sim::parse_factors("8:1;4:1", true),
                    Catch::Contains("byte thresholds must increase"));
  CHECK_THROWS_WITH(sim::parse_factors("8=1", true), Catch::Contains("'8=1' is not BYTES:FACTOR"));
  CHECK_THROWS_WITH(sim::parse_factors("x:1", true), Catch::Contains("'x' is not a byte count"));
}

namespace {

// The simulated per-flow seconds of `pattern` at each size on platform `xml` (sim_pingpong).
std::vector<double> simulate_pattern(const std::string& xml, const std::string& pattern,
                                     const std::vector<std::size_t>& sizes) {
  std::string command = std::string(DDL_SIM_PINGPONG) + " " + xml + " --pattern " + pattern;
  for (std::size_t s : sizes) command.append(" ").append(std::to_string(s));
  const ChildResult r = run_child(command);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  std::vector<double> seconds;
  for (const std::string& line : split(r.out, '\n'))
    seconds.push_back(std::stod(split(line, ' ').at(1)));
  REQUIRE(seconds.size() == sizes.size());
  return seconds;
}

}  // namespace

TEST_CASE("a flat range fast enough for an unlimited bus past 1 PB/s still loads", "[calibrate]") {
  // A measured fit (ddlcalibrate on 2 ranks of this machine): the flat range up to 4 KB at
  // 0.318 us makes the host link 2575 GB/s, so an "unlimited" bus of 1000 R would be 2.6 PB/s,
  // which the simulator refuses. The bus stops at the simulator's largest bandwidth instead,
  // and the platform still reproduces the fit.
  const std::vector<calibrate::Segment> lone{{0, 0.174e-6, 1e-15},
                                             {1024, 0.318e-6, 1e-15},
                                             {4096, 1.964e-6, 1 / 10.084e9},
                                             {65536, 1.364e-6, 1 / 12.305e9},
                                             {4194304, 35.217e-6, 1 / 12.305e9}};
  calibrate::PlatformModel m = calibrate::model_from_pingpong(2, lone, 4 << 20, 30e9);
  CHECK(1000 * m.host_bandwidth > calibrate::kLargestBandwidth);
  calibrate::choose_capacities(m, {});
  CHECK(m.bus_bandwidth == calibrate::kLargestBandwidth);
  char dir_template[] = "/tmp/ddl_fast_bus_XXXXXX";
  REQUIRE(mkdtemp(dir_template) != nullptr);
  const std::string xml = std::string(dir_template) + "/model.xml";
  std::ofstream(xml) << calibrate::platform_xml(m, {});
  const std::vector<std::size_t> sizes{64, 256, 1024, 4096, 16384, 65536, 262144, 1 << 20, 4 << 20};
  const std::vector<double> simulated = simulate_pattern(xml, "pingpong", sizes);
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    const double fitted = calibrate::evaluate(lone, static_cast<double>(sizes[i]));
    INFO(sizes[i] << " B: simulated " << simulated[i] << " s, fit " << fitted << " s");
    CHECK(std::abs(simulated[i] - fitted) <= 0.05 * fitted);
  }
  std::remove(xml.c_str());
  std::remove(dir_template);
}

TEST_CASE("the calibrator predicts the contention the simulator computes", "[calibrate]") {
  // Two size ranges; measured contention that a bus of 2 lone flows explains exactly: an
  // exchange of 2 flows runs at the lone speed, 4 flows (pairs, ring) at half of it.
  const std::vector<calibrate::Segment> lone{{0, 2e-6, 1 / 5e9}, {1 << 20, 10e-6, 1 / 10e9}};
  calibrate::PlatformModel m = calibrate::model_from_pingpong(4, lone, 16 << 20, 30e9);
  std::vector<calibrate::ContendedPoint> points;
  const std::vector<std::size_t> sizes{65536, 4 << 20};
  for (std::size_t bytes : sizes) {
    const calibrate::Segment& range = lone[bytes < (1 << 20) ? 0 : 1];
    const double transfer = static_cast<double>(bytes) * range.seconds_per_byte;
    points.push_back({static_cast<double>(bytes), range.latency_s + transfer, 2, 1});
    points.push_back({static_cast<double>(bytes), range.latency_s + 2 * transfer, 4, 1});
  }
  // A latency-bound exchange ten times slower under contention says nothing about capacity.
  std::vector<calibrate::ContendedPoint> with_latency_bound = points;
  with_latency_bound.push_back({64, 10 * calibrate::evaluate(lone, 64), 4, 1});
  calibrate::choose_capacities(m, with_latency_bound);
  // Four flows share 2R; two run at the lone speed, which any bus of 2R or more explains (the
  // fit then keeps "unlimited").
  REQUIRE(m.bus_by_flows.size() == 2);
  CHECK(calibrate::bus_capacity(m, 4) == Approx(2 * m.host_bandwidth).epsilon(1e-9));
  CHECK(calibrate::bus_capacity(m, 2) >= 2 * m.host_bandwidth);

  char dir_template[] = "/tmp/ddl_contention_XXXXXX";
  REQUIRE(mkdtemp(dir_template) != nullptr);
  const std::string xml = std::string(dir_template) + "/model.xml";
  // The fitted bus (2R) and an unlimited one, where only a host link can slow a flow:
  // two_each_way puts two flows in each direction of a host link, R / 2 each, so it runs at half
  // the lone speed on both; pairs and ring (four flows, one per direction of each link) only
  // on the fitted bus.
  calibrate::PlatformModel unlimited = m;
  unlimited.bus_bandwidth = 1000 * m.host_bandwidth;
  unlimited.bus_by_flows.clear();
  for (const calibrate::PlatformModel& model : {m, unlimited}) {
    std::ofstream(xml) << calibrate::platform_xml(model, {});
    struct Shape {
      std::string pattern;
      int flows, flows_per_host;
    };
    for (const Shape& s : std::vector<Shape>{{"pingpong", 1, 1},
                                             {"bidirectional", 2, 1},
                                             {"two_each_way", 4, 2},
                                             {"pairs", 4, 1},
                                             {"ring", 4, 1}}) {
      const std::vector<double> simulated = simulate_pattern(xml, s.pattern, sizes);
      for (std::size_t i = 0; i < sizes.size(); ++i) {
        const double predicted = calibrate::predict(
            model, {static_cast<double>(sizes[i]), 0, s.flows, s.flows_per_host});
        INFO(s.pattern << " " << sizes[i] << " B, bus " << model.bus_bandwidth << " B/s: simulated "
                       << simulated[i] << " s, predicted " << predicted << " s");
        CHECK(simulated[i] == Approx(predicted).epsilon(0.01));
        if (s.pattern == "two_each_way") {
          // Exactly: latency + twice the lone transfer.
          const calibrate::Segment& range = lone[sizes[i] < (1 << 20) ? 0 : 1];
          CHECK(predicted == Approx(range.latency_s +
                                    2 * static_cast<double>(sizes[i]) * range.seconds_per_byte));
        }
      }
    }
  }
  // The measured points themselves are reproduced exactly.
  for (const calibrate::ContendedPoint& p : points)
    CHECK(calibrate::predict(m, p) == Approx(p.seconds).epsilon(1e-9));
  std::remove(xml.c_str());
  std::remove(dir_template);
}

TEST_CASE("the bus capacity is fitted per count of flows in flight, and simulated so",
          "[calibrate]") {
  // Measured: two flows share 1.5 lone flows' worth (0.75 of the lone speed each), four share
  // 1.25 (0.3125 each; two_each_way would get R / 2 from its host links alone). One capacity
  // cannot give both; a capacity per flow count does, exactly.
  const std::vector<calibrate::Segment> lone{{0, 2e-6, 1 / 5e9}, {1 << 20, 10e-6, 1 / 10e9}};
  calibrate::PlatformModel m = calibrate::model_from_pingpong(4, lone, 16 << 20, 30e9);
  const double R = m.host_bandwidth;
  const std::vector<std::size_t> sizes{262144, 4 << 20};
  std::vector<calibrate::ContendedPoint> points;
  for (std::size_t bytes : sizes) {
    const calibrate::Segment& range = lone[bytes < (1 << 20) ? 0 : 1];
    const double transfer = static_cast<double>(bytes) * range.seconds_per_byte;
    points.push_back({static_cast<double>(bytes), range.latency_s + transfer / 0.75, 2, 1});
    points.push_back({static_cast<double>(bytes), range.latency_s + transfer / 0.3125, 4, 1});
    points.push_back({static_cast<double>(bytes), range.latency_s + transfer / 0.3125, 4, 2});
  }
  calibrate::choose_capacities(m, points);
  REQUIRE(m.bus_by_flows.size() == 2);
  CHECK(m.bus_by_flows[0].flows == 2);
  CHECK(m.bus_by_flows[1].flows == 4);
  CHECK(m.bus_bandwidth == Approx(1.5 * R).epsilon(1e-9));
  // From each measured count up to the next; below the first, the widest.
  CHECK(calibrate::bus_capacity(m, 1) == Approx(1.5 * R).epsilon(1e-9));
  CHECK(calibrate::bus_capacity(m, 2) == Approx(1.5 * R).epsilon(1e-9));
  CHECK(calibrate::bus_capacity(m, 3) == Approx(1.5 * R).epsilon(1e-9));
  CHECK(calibrate::bus_capacity(m, 4) == Approx(1.25 * R).epsilon(1e-9));
  CHECK(calibrate::bus_capacity(m, 9) == Approx(1.25 * R).epsilon(1e-9));
  for (const calibrate::ContendedPoint& p : points)
    CHECK(calibrate::predict(m, p) == Approx(p.seconds).epsilon(1e-9));

  char dir_template[] = "/tmp/ddl_by_flows_XXXXXX";
  REQUIRE(mkdtemp(dir_template) != nullptr);
  const std::string xml = std::string(dir_template) + "/model.xml";
  const std::string text = calibrate::platform_xml(m, {});
  CHECK(text.find("<prop id=\"ddl_capacity_by_flows\" value=\"2:1;4:0.833333333\"/>") !=
        std::string::npos);
  std::ofstream(xml) << text;
  // The simulator shares the bus as the calibrator predicts: 2 flows (bidirectional) at 0.75 of
  // the lone speed, 4 (pairs, ring, two_each_way) at 0.3125.
  for (const auto& [pattern, share] :
       std::vector<std::pair<std::string, double>>{{"pingpong", 1.0},
                                                   {"bidirectional", 0.75},
                                                   {"pairs", 0.3125},
                                                   {"ring", 0.3125},
                                                   {"two_each_way", 0.3125}}) {
    const std::vector<double> simulated = simulate_pattern(xml, pattern, sizes);
    for (std::size_t i = 0; i < sizes.size(); ++i) {
      const calibrate::Segment& range = lone[sizes[i] < (1 << 20) ? 0 : 1];
      INFO(pattern << " " << sizes[i] << " B");
      CHECK(simulated[i] ==
            Approx(range.latency_s + static_cast<double>(sizes[i]) * range.seconds_per_byte / share)
                .epsilon(0.01));
    }
  }
  // A malformed capacity table is one message naming the link and the property.
  for (const auto& [value, message] : std::vector<std::pair<std::string, std::string>>{
           {"2:1;4:0", "'0' is not a positive number"},
           {"4:1;2:1", "flow thresholds must increase"},
           {"x:1", "'x' is not a flow count"},
           {"2=1", "'2=1' is not FLOWS:FACTOR"}}) {
    std::string bad = text;
    bad.replace(bad.find("2:1;4:0.833333333"), 17, value);
    std::ofstream(xml) << bad;
    const ChildResult r =
        run_child(std::string(DDL_SIM_PINGPONG) + " " + xml + " --pattern ring 1024");
    INFO(value << ": " << r.err);
    CHECK(r.exit_code != 0);
    CHECK(r.err.find("link 'bus': ddl_capacity_by_flows property") != std::string::npos);
    CHECK(r.err.find(message) != std::string::npos);
  }
  // On a split-duplex link SimGrid would accept the policy and apply none of it.
  std::string split = text;
  const std::size_t host_link = split.find("<link id=\"gpu0-link\"");
  REQUIRE(host_link != std::string::npos);
  split.replace(split.find("/>", host_link), 2,
                "><prop id=\"ddl_capacity_by_flows\" value=\"2:0.5\"/></link>");
  std::ofstream(xml) << split;
  const ChildResult r =
      run_child(std::string(DDL_SIM_PINGPONG) + " " + xml + " --pattern two_each_way 1024");
  INFO(r.err);
  CHECK(r.exit_code != 0);
  CHECK(r.err.find("link 'gpu0-link': ddl_capacity_by_flows needs sharing_policy=\"SHARED\"") !=
        std::string::npos);
  std::remove(xml.c_str());
  std::remove(dir_template);
}
