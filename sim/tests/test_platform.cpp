// The platform as the simulator sees it: ranks map node-major onto the GPU hosts, messages take
// the routes the hardware has, and the model's α/β/γ come from those routes.
#include <catch2/catch.hpp>

#include "child_process.hpp"

using namespace ddl::test;

namespace {
std::string probe_out(const std::string& args) {
  const ChildResult r = run_child(probe() + " " + args);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  return r.out;
}
std::string route(const std::string& file, int src, int dst) {
  std::string out =
      probe_out(platform(file) + " route " + std::to_string(src) + " " + std::to_string(dst));
  if (!out.empty() && out.back() == '\n') out.pop_back();
  return out;
}
}  // namespace

TEST_CASE("ranks map node-major: rank = node * 4 + gpu", "[sim][platform]") {
  const auto lines = split(probe_out(platform("s822lc_2.xml") + " hosts"), '\n');
  REQUIRE(lines.size() == 8);
  for (int r = 0; r < 8; ++r)
    CHECK(lines[static_cast<std::size_t>(r)] ==
          std::to_string(r) + " n" + std::to_string(r / 4) + "-gpu" + std::to_string(r % 4));
}

TEST_CASE("GPU0 -> GPU1 uses only their NVLink pair", "[sim][platform]") {
  CHECK(route("s822lc_2.xml", 0, 1) == "n0-nvl-gpu0-gpu1_UP");
  CHECK(route("s822lc_2.xml", 1, 0) == "n0-nvl-gpu0-gpu1_DOWN");
  CHECK(route("s822lc_2.xml", 6, 7) == "n1-nvl-gpu2-gpu3_UP");
}

TEST_CASE("GPU0 -> GPU2 goes through CPU0, the X-bus and CPU1", "[sim][platform]") {
  CHECK(route("s822lc_2.xml", 0, 2) == "n0-nvl-gpu0-cpu0_UP n0-xbus_UP n0-nvl-gpu2-cpu1_DOWN");
}

TEST_CASE("node 0 GPU0 -> node 1 GPU0 goes through HCA 0 of each (the switch is a router)",
          "[sim][platform]") {
  CHECK(route("s822lc_2.xml", 0, 4) ==
        "n0-nvl-gpu0-cpu0_UP n0-hca0_UP n1-hca0_DOWN n1-nvl-gpu0-cpu0_DOWN");
}

// The switches are routers, their hops folded into the HCAs and uplinks (platforms/s822lc.py):
// every route keeps the latency of its links and switch hops, 0.5 us an NVLink, 0.2 us the
// X-bus, 0.7 us an HCA, 0.1 us a switch.
TEST_CASE("routes keep the latency of their links and switch hops", "[sim][platform]") {
  const auto latency = [](const std::string& file, int src, int dst) {
    return std::stod(
        probe_out(platform(file) + " latency " + std::to_string(src) + " " + std::to_string(dst)));
  };
  CHECK(latency("s822lc_64.xml", 0, 1) == Approx(0.5e-6).epsilon(1e-12));
  CHECK(latency("s822lc_64.xml", 0, 2) == Approx(1.2e-6).epsilon(1e-12));
  CHECK(latency("s822lc_64.xml", 0, 4) ==
        Approx((0.5 + 0.7 + 0.1 + 0.7 + 0.5) * 1e-6).epsilon(1e-12));
  CHECK(latency("s822lc_64.xml", 0, 32) ==
        Approx((0.5 + 0.7 + 3 * 0.1 + 0.7 + 0.5) * 1e-6).epsilon(1e-12));
  // Big Basin: PCIe 0.5 us, NIC 2 us, one switch hop of 0.5 us.
  CHECK(latency("bigbasin_2.xml", 0, 8) == Approx((0.5 + 2 + 0.5 + 2 + 0.5) * 1e-6).epsilon(1e-12));
}

TEST_CASE("across leaf switches the route climbs both leaves' uplinks", "[sim][platform]") {
  // s822lc_64: 8 nodes per leaf, so node 8 hangs off the second leaf.
  CHECK(route("s822lc_64.xml", 0, 32) ==
        "n0-nvl-gpu0-cpu0_UP n0-hca0_UP leaf0-up_UP leaf1-up_DOWN n8-hca0_DOWN "
        "n8-nvl-gpu0-cpu0_DOWN");
}

TEST_CASE("model parameters come from the routes and the GPU memory", "[sim][platform]") {
  const auto lines = split(probe_out(fixture("rail_4x4.xml") + " costs"), '\n');
  REQUIRE(lines.size() == 3);
  const auto d0 = split(lines[0], ' '), d1 = split(lines[1], ' ');
  CHECK(std::stod(d0[1]) == Approx(1e-6));
  CHECK(std::stod(d0[2]) == Approx(1.0 / 40e9));
  CHECK(std::stod(d1[1]) == Approx(4e-6));
  CHECK(std::stod(d1[2]) == Approx(1e-10));
  const auto gamma = split(lines[2], ' ');
  CHECK(gamma[0] == "gamma");
  CHECK(std::stod(gamma[1]) == Approx(3.0 / 100e9));
}

TEST_CASE("the slowest ring neighbour sets a dimension's cost", "[sim][platform]") {
  // In a node, GPU1 -> GPU2 crosses the X-bus: 0.5 + 0.2 + 0.5 us, bottleneck 38.4 GB/s.
  const auto lines = split(probe_out(platform("s822lc_2.xml") + " costs 4x2"), '\n');
  REQUIRE(lines.size() == 3);
  const auto d0 = split(lines[0], ' ');
  CHECK(std::stod(d0[1]) == Approx(1.2e-6));
  CHECK(std::stod(d0[2]) == Approx(1.0 / 38.4e9));
}
