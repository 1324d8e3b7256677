#include "calibrate/fit.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "algorithms/error.hpp"

namespace ddl::calibrate {
namespace {

// Quantile by linear interpolation between order statistics (sorted input).
double quantile(const std::vector<double>& sorted, double q) {
  const double pos = q * static_cast<double>(sorted.size() - 1);
  const std::size_t lo = static_cast<std::size_t>(std::floor(pos));
  const std::size_t hi = std::min(lo + 1, sorted.size() - 1);
  return sorted[lo] + (pos - static_cast<double>(lo)) * (sorted[hi] - sorted[lo]);
}

// Rates above 1 PB/s stand for "no size dependence" (a flat range): finite, so the platform's
// bandwidth factor stays a number.
constexpr double kMinSecondsPerByte = 1e-15;

// Least squares on relative error (weights 1/t^2): small and large messages count alike.
// Latency and time per byte are kept non-negative, as a platform needs them.
Segment fit_line(const std::vector<Point>& pts, std::size_t first, std::size_t last) {
  double sw = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (std::size_t i = first; i <= last; ++i) {
    const double w = 1.0 / (pts[i].seconds * pts[i].seconds);
    const double x = pts[i].bytes, y = pts[i].seconds;
    sw += w, sx += w * x, sy += w * y, sxx += w * x * x, sxy += w * x * y;
  }
  Segment s;
  const double det = sw * sxx - sx * sx;
  if (last > first && det > 0) {
    s.latency_s = (sxx * sy - sx * sxy) / det;
    s.seconds_per_byte = (sw * sxy - sx * sy) / det;
  } else {
    s.latency_s = sy / sw;  // one point: all latency, refined below by the caller's context
    s.seconds_per_byte = 0;
  }
  if (s.latency_s < 0) {  // through the origin
    s.latency_s = 0;
    s.seconds_per_byte = sxy / sxx;
  }
  if (s.seconds_per_byte < kMinSecondsPerByte) {  // flat: the weighted mean time
    s.seconds_per_byte = kMinSecondsPerByte;
    double num = 0;
    for (std::size_t i = first; i <= last; ++i)
      num +=
          (pts[i].seconds - pts[i].bytes * kMinSecondsPerByte) / (pts[i].seconds * pts[i].seconds);
    s.latency_s = std::max(0.0, num / sw);
  }
  return s;
}

double max_residual(const std::vector<Point>& pts, std::size_t first, std::size_t last,
                    const Segment& s) {
  double worst = 0;
  for (std::size_t i = first; i <= last; ++i) {
    const double fit = s.latency_s + pts[i].bytes * s.seconds_per_byte;
    worst = std::max(worst, std::abs(fit - pts[i].seconds) / pts[i].seconds);
  }
  return worst;
}

}  // namespace

Spread summarize(std::vector<double> seconds) {
  if (seconds.empty()) throw InvalidArgument("summarize: no repetitions");
  std::sort(seconds.begin(), seconds.end());
  return {quantile(seconds, 0.5), seconds.front(), seconds.back(), quantile(seconds, 0.25),
          quantile(seconds, 0.75)};
}

std::vector<Segment> fit_piecewise(const std::vector<Point>& points, double tolerance) {
  if (points.empty()) throw InvalidArgument("fit: no points");
  if (!(tolerance > 0)) throw InvalidArgument("fit: tolerance must be positive");
  for (std::size_t i = 0; i < points.size(); ++i) {
    if (!(points[i].seconds > 0) || !(points[i].bytes >= 0))
      throw InvalidArgument("fit: point " + std::to_string(i) +
                            " has a non-positive time or negative size");
    if (i > 0 && !(points[i].bytes > points[i - 1].bytes))
      throw InvalidArgument("fit: sizes must increase strictly");
  }
  std::vector<Segment> segments;
  std::size_t first = 0;
  while (first < points.size()) {
    std::size_t last = first;
    Segment best = fit_line(points, first, first);
    // Grow while one line through the range still fits every point of it.
    while (last + 1 < points.size()) {
      const Segment wider = fit_line(points, first, last + 1);
      if (max_residual(points, first, last + 1, wider) > tolerance) break;
      best = wider;
      ++last;
    }
    if (first == last && !segments.empty()) {
      // A lone point (a cliff in the curve) keeps the previous range's time per byte when its
      // latency stays non-negative, else it is all bandwidth: either way it is fitted exactly.
      const Point& p = points[first];
      best.seconds_per_byte = segments.back().seconds_per_byte;
      best.latency_s = p.seconds - p.bytes * best.seconds_per_byte;
      if (best.latency_s < 0) best = {0, 0, p.seconds / std::max(p.bytes, 1.0)};
    }
    best.from_bytes = segments.empty() ? 0 : static_cast<std::size_t>(points[first].bytes);
    segments.push_back(best);
    first = last + 1;
  }
  return segments;
}

const Segment& segment_at(const std::vector<Segment>& segments, double bytes) {
  if (segments.empty()) throw InvalidArgument("fit: no segments");
  const Segment* s = &segments.front();
  for (const Segment& c : segments)
    if (static_cast<double>(c.from_bytes) <= bytes) s = &c;
  return *s;
}

double evaluate(const std::vector<Segment>& segments, double bytes) {
  const Segment& s = segment_at(segments, bytes);
  return s.latency_s + bytes * s.seconds_per_byte;
}

double residual_pct(const std::vector<Segment>& segments, const Point& p) {
  return 100 * std::abs(evaluate(segments, p.bytes) - p.seconds) / p.seconds;
}

}  // namespace ddl::calibrate
