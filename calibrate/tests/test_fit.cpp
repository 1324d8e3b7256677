// The piecewise fit of message time against size (calibrate/fit.hpp), on exact lines.
#include <catch2/catch.hpp>

#include "algorithms/error.hpp"
#include "calibrate/fit.hpp"

using namespace ddl;

TEST_CASE("piecewise fit recovers two exact lines and splits where they meet", "[calibrate]") {
  std::vector<calibrate::Point> pts;
  for (double n = 1024; n <= 1 << 20;
       n *= 2)  // 1 us + n / 10 GB/s up to 64K, then 20 us + n / 2 GB/s
    pts.push_back({n, n <= 65536 ? 1e-6 + n / 10e9 : 20e-6 + n / 2e9});
  const auto segs = calibrate::fit_piecewise(pts, 0.01);
  REQUIRE(segs.size() == 2);
  CHECK(segs[0].from_bytes == 0);
  CHECK(segs[1].from_bytes == 131072);
  CHECK(segs[0].latency_s == Approx(1e-6).epsilon(1e-6));
  CHECK(segs[0].bandwidth() == Approx(10e9).epsilon(1e-6));
  CHECK(segs[1].latency_s == Approx(20e-6).epsilon(1e-6));
  CHECK(segs[1].bandwidth() == Approx(2e9).epsilon(1e-6));
  for (const auto& p : pts) CHECK(calibrate::residual_pct(segs, p) < 1e-6);
}

TEST_CASE("fit rejects unsorted sizes and non-positive times", "[calibrate]") {
  CHECK_THROWS_AS(calibrate::fit_piecewise({{2, 1e-6}, {1, 1e-6}}, 0.03), InvalidArgument);
  CHECK_THROWS_AS(calibrate::fit_piecewise({{1, 0}, {2, 1e-6}}, 0.03), InvalidArgument);
  const auto s = calibrate::summarize({5, 1, 3, 2, 4});
  CHECK(s.median == 3);
  CHECK(s.q1 == 2);
  CHECK(s.q3 == 4);
}
