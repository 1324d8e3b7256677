#include "workloads/training_effects.hpp"

#include <cmath>
#include <numbers>
#include <sstream>

#include "algorithms/error.hpp"

namespace ddl::harness {

namespace {

// SplitMix64 (Steele, Lea, Flood 2014): a counter-based generator, so each (seed, rank,
// iteration) has its own stream without any state carried between calls or ranks; the standard
// library's distributions are implementation-defined, this is not.
std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// A double in (0, 1]: the top 53 bits, offset by one so log() never sees 0.
double unit(std::uint64_t bits) {
  return (static_cast<double>(bits >> 11) + 1.0) * 0x1.0p-53;
}

void check_field(double v, double max, const char* what) {
  if (!std::isfinite(v) || v < 0 || v > max) {
    std::ostringstream s;
    s << what << " must be a finite number in [0, " << max << "], got " << v;
    throw InvalidArgument(s.str());
  }
}

}  // namespace

std::string TrainingEffects::describe() const {
  if (!any()) return "none";
  std::ostringstream s;
  const char* sep = "";
  if (jitter_cv > 0) {
    s << "jitter cv " << jitter_cv << " (seed " << seed << ")";
    sep = ", ";
  }
  if (interference > 0) {
    s << sep << "interference " << interference;
    sep = ", ";
  }
  if (bucket_launch_s > 0) {
    s << sep << "bucket launch " << bucket_launch_s * 1e6 << " us";
    sep = ", ";
  }
  if (data_loading_s > 0) s << sep << "data loading " << data_loading_s * 1e3 << " ms";
  return s.str();
}

void validate(const TrainingEffects& e) {
  check_field(e.jitter_cv, 1, "compute jitter (coefficient of variation)");
  check_field(e.interference, 10, "compute interference");
  check_field(e.bucket_launch_s, 60, "bucket launch time (s)");
  check_field(e.data_loading_s, 60, "data loading time (s)");
}

double jitter_factor(const TrainingEffects& e, int rank, int iteration) {
  if (e.jitter_cv <= 0) return 1;
  const std::uint64_t key = splitmix64(splitmix64(e.seed) ^ static_cast<std::uint64_t>(rank)) ^
                            (static_cast<std::uint64_t>(iteration) << 32);
  const std::uint64_t a = splitmix64(key), b = splitmix64(a);
  // Box-Muller: a standard normal z from two uniforms.
  const double z = std::sqrt(-2 * std::log(unit(a))) * std::cos(2 * std::numbers::pi * unit(b));
  // Lognormal with mean 1 and coefficient of variation cv: sigma^2 = ln(1 + cv^2), mu = -sigma^2/2.
  const double sigma2 = std::log1p(e.jitter_cv * e.jitter_cv);
  return std::exp(-sigma2 / 2 + std::sqrt(sigma2) * z);
}

}  // namespace ddl::harness
