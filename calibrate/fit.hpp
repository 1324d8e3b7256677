// Pure numerics of calibration: summaries of repeated timings and the piecewise-linear fit of
// message time against size that the calibrated platform encodes. No MPI here, so the fit is
// unit-tested on synthetic data.
//
// A message of n bytes in size range i costs t(n) = latency_i + n * seconds_per_byte_i. Ranges
// are chosen greedily from the smallest size up: a range grows while one line fits all of its
// points within `tolerance` (relative), so one latency/bandwidth pair is used wherever it fits
// and a new pair starts only where it does not (protocol switches, cache sizes).
#pragma once

#include <cstddef>
#include <vector>

namespace ddl::calibrate {

struct Spread {
  double median = 0, min = 0, max = 0, q1 = 0, q3 = 0;
  // (q3 - q1) / median, in percent: how noisy the repetitions were.
  double iqr_pct() const { return median > 0 ? 100 * (q3 - q1) / median : 0; }
};
// Throws InvalidArgument for an empty sample.
Spread summarize(std::vector<double> seconds);

struct Point {
  double bytes = 0;
  double seconds = 0;
};

struct Segment {
  std::size_t from_bytes = 0;   // the range starts here (0 for the first) and ends at the next
  double latency_s = 0;         // >= 0
  double seconds_per_byte = 0;  // > 0
  double bandwidth() const { return 1.0 / seconds_per_byte; }
};

// Points sorted by strictly increasing bytes, every time > 0 (else InvalidArgument).
std::vector<Segment> fit_piecewise(const std::vector<Point>& points, double tolerance);
// The segment whose range holds `bytes` (the first one below its start).
const Segment& segment_at(const std::vector<Segment>& segments, double bytes);
// The fitted time of a message of `bytes`: the segment whose range holds it.
double evaluate(const std::vector<Segment>& segments, double bytes);
// |fit - measured| / measured, in percent.
double residual_pct(const std::vector<Segment>& segments, const Point& p);

// Sum over `points` of the squared relative error of predict(model, point) against the point's
// measured seconds: what the capacity fits minimise (predict is found beside the model's type).
template <typename Model, typename MeasuredPoint>
double squared_relative_error(const Model& model, const std::vector<MeasuredPoint>& points) {
  double e = 0;
  for (const MeasuredPoint& p : points) {
    const double r = (predict(model, p) - p.seconds) / p.seconds;
    e += r * r;
  }
  return e;
}

}  // namespace ddl::calibrate
