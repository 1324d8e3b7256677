// The training effects' parameters and jitter draws (workloads/training_effects.hpp): the draws
// have the stated distribution (mean 1, the coefficient of variation asked for), the expected
// slowest of p ranks matches the lognormal's order statistic computed by quadrature, draws are
// a pure function of (seed, rank, iteration), and bad parameters name their field.
#include <catch2/catch.hpp>
#include <cmath>
#include <numbers>
#include <sstream>

#include "algorithms/error.hpp"
#include "workloads/training_effects.hpp"
#include "workloads/workload.hpp"

using namespace ddl;
using namespace ddl::harness;

namespace {

// E[max of p iid lognormal(mean 1, cv)] = integral over x >= 0 of 1 - F(x)^p, by Simpson's rule
// on [0, 20] (the tail beyond 20 is below 1e-30 for cv <= 0.3).
double expected_max(double cv, int p) {
  const double s2 = std::log1p(cv * cv), mu = -s2 / 2, sigma = std::sqrt(s2);
  const auto tail = [&](double x) {
    if (x <= 0) return 1.0;
    const double F = 0.5 * std::erfc(-(std::log(x) - mu) / (sigma * std::numbers::sqrt2));
    return 1 - std::pow(F, p);
  };
  const int n = 200000;
  const double h = 20.0 / n;
  double sum = tail(0) + tail(20);
  for (int i = 1; i < n; ++i) sum += tail(i * h) * (i % 2 ? 4 : 2);
  return sum * h / 3;
}

}  // namespace

TEST_CASE("jitter off is exactly 1 and the draws are a pure function of seed, rank, iteration",
          "[workload][effects]") {
  TrainingEffects off;
  CHECK(jitter_factor(off, 3, 7) == 1.0);
  TrainingEffects e;
  e.jitter_cv = 0.1;
  CHECK(jitter_factor(e, 3, 7) == jitter_factor(e, 3, 7));
  CHECK(jitter_factor(e, 3, 7) != jitter_factor(e, 4, 7));
  CHECK(jitter_factor(e, 3, 7) != jitter_factor(e, 3, 8));
  TrainingEffects other = e;
  other.seed = 2;
  CHECK(jitter_factor(e, 3, 7) != jitter_factor(other, 3, 7));
}

TEST_CASE("jitter draws have mean 1 and the coefficient of variation asked for",
          "[workload][effects]") {
  for (double cv : {0.02, 0.1, 0.3}) {
    TrainingEffects e;
    e.jitter_cv = cv;
    double sum = 0, sum2 = 0;
    int non_positive = 0;
    const int n = 200000;
    for (int i = 0; i < n; ++i) {
      const double f = jitter_factor(e, i % 64, i / 64);
      non_positive += f <= 0;
      sum += f;
      sum2 += f * f;
    }
    const double mean = sum / n, sd = std::sqrt(sum2 / n - mean * mean);
    INFO("cv " << cv << ": mean " << mean << ", sd " << sd);
    CHECK(non_positive == 0);
    // Sampling error of the mean is cv / sqrt(n) (2.2e-4 at cv 0.1): 5 of them.
    CHECK(mean == Approx(1).margin(5 * cv / std::sqrt(n)));
    CHECK(sd == Approx(cv).epsilon(0.02));
  }
}

TEST_CASE("the slowest of p ranks: the mean of the largest draw is the lognormal's E[max]",
          "[workload][effects]") {
  TrainingEffects e;
  e.jitter_cv = 0.1;
  for (int p : {1, 2, 8, 64}) {
    double sum = 0;
    const int iterations = 20000;
    for (int it = 0; it < iterations; ++it) {
      double slowest = 0;
      for (int r = 0; r < p; ++r) slowest = std::max(slowest, jitter_factor(e, r, it));
      sum += slowest;
    }
    const double expected = expected_max(0.1, p);
    INFO(p << " ranks: simulated mean of the max " << sum / iterations << ", quadrature "
           << expected);
    // The max's spread is at most cv: its sampling error is below 0.1 / sqrt(20000) = 7e-4.
    CHECK(sum / iterations == Approx(expected).margin(3e-3));
  }
  // What makes efficiency fall with scale: 64 ranks wait for a draw about 2.4 sd above the mean.
  CHECK(expected_max(0.1, 64) > 1.2);
  CHECK(expected_max(0.1, 1) == Approx(1).margin(1e-9));
}

TEST_CASE("effect parameters out of range name the field", "[workload][effects]") {
  TrainingEffects e;
  CHECK_NOTHROW(validate(e));
  CHECK(e.describe() == "none");
  e.jitter_cv = -0.1;
  CHECK_THROWS_WITH(validate(e), Catch::Contains("compute jitter") && Catch::Contains("-0.1"));
  e.jitter_cv = 0;
  e.interference = std::nan("");
  CHECK_THROWS_WITH(validate(e), Catch::Contains("compute interference"));
  e.interference = 0.25;
  e.bucket_launch_s = 50e-6;
  e.data_loading_s = 2e-3;
  CHECK(e.describe() == "interference 0.25, bucket launch 50 us, data loading 2 ms");
}

TEST_CASE("a workload file carries jitter, launch and loading, and an unknown parameter is refused",
          "[workload][effects]") {
  const std::string head =
      "# model = t\n# reference_batch = 1\n# reference_iteration_ms = 1\n"
      "# backward_to_forward = 2\n";
  const std::string rows = "layer,kind,params,forward_macs\nl0,fc,10,1\n";
  std::istringstream with(head +
                          "# compute_jitter_cv = 0.03\n# bucket_launch_us = 40\n"
                          "# data_loading_ms = 1.5\n" +
                          rows);
  const Workload w = parse_workload(with, "w.csv");
  CHECK(w.effects.jitter_cv == 0.03);
  CHECK(w.effects.bucket_launch_s == Approx(40e-6).epsilon(1e-12));
  CHECK(w.effects.data_loading_s == Approx(1.5e-3).epsilon(1e-12));
  CHECK(w.effects.interference == 0);

  std::istringstream without(head + rows);
  CHECK_FALSE(parse_workload(without, "w.csv").effects.any());

  std::istringstream misspelt(head + "# compute_jiter_cv = 0.03\n" + rows);
  CHECK_THROWS_WITH(parse_workload(misspelt, "w.csv"), Catch::Contains("w.csv:5") &&
                                                           Catch::Contains("unknown parameter") &&
                                                           Catch::Contains("compute_jiter_cv"));
  std::istringstream negative(head + "# data_loading_ms = -1\n" + rows);
  CHECK_THROWS_WITH(parse_workload(negative, "w.csv"),
                    Catch::Contains("w.csv:5") && Catch::Contains("data_loading_ms"));
  std::istringstream infinite(head + "# compute_jitter_cv = inf\n" + rows);
  CHECK_THROWS_WITH(parse_workload(infinite, "w.csv"), Catch::Contains("compute_jitter_cv"));
}
