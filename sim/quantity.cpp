#include "sim/quantity.hpp"

#include <array>
#include <charconv>
#include <optional>
#include <utility>

namespace ddl::sim {

namespace {

// SimGrid's SI prefixes; bandwidths also take binary ones (Ki = 1024, ...).
constexpr std::array<std::pair<const char*, double>, 8> kSi = {{{"k", 1e3},
                                                                {"M", 1e6},
                                                                {"G", 1e9},
                                                                {"T", 1e12},
                                                                {"P", 1e15},
                                                                {"E", 1e18},
                                                                {"Z", 1e21},
                                                                {"Y", 1e24}}};
constexpr std::array<std::pair<const char*, double>, 8> kBinary = {{{"Ki", 0x1p10},
                                                                    {"Mi", 0x1p20},
                                                                    {"Gi", 0x1p30},
                                                                    {"Ti", 0x1p40},
                                                                    {"Pi", 0x1p50},
                                                                    {"Ei", 0x1p60},
                                                                    {"Zi", 0x1p70},
                                                                    {"Yi", 0x1p80}}};

std::optional<double> unit_multiplier(const std::string& unit, Quantity kind) {
  if (unit.empty()) return 1.0;
  if (kind == Quantity::time) {
    constexpr std::array<std::pair<const char*, double>, 9> times = {{{"w", 604800.0},
                                                                      {"d", 86400.0},
                                                                      {"h", 3600.0},
                                                                      {"m", 60.0},
                                                                      {"s", 1.0},
                                                                      {"ms", 1e-3},
                                                                      {"us", 1e-6},
                                                                      {"ns", 1e-9},
                                                                      {"ps", 1e-12}}};
    for (const auto& [name, m] : times)
      if (unit == name) return m;
    return std::nullopt;
  }
  // bandwidth: <prefix>Bps (bytes/s) or <prefix>bps (bits/s); speed: <prefix>f, or flops alone
  // (SimGrid 3.32 refuses "Gflops").
  if (kind == Quantity::speed && unit == "flops") return 1.0;
  const std::array<std::pair<const char*, double>, 2> bases =
      kind == Quantity::bandwidth
          ? std::array<std::pair<const char*, double>, 2>{{{"Bps", 1.0}, {"bps", 0.125}}}
          : std::array<std::pair<const char*, double>, 2>{{{"f", 1.0}, {"f", 1.0}}};
  for (const auto& [base, b] : bases) {
    const std::string bs(base);
    if (unit.size() < bs.size() || unit.compare(unit.size() - bs.size(), bs.size(), bs) != 0)
      continue;
    const std::string prefix = unit.substr(0, unit.size() - bs.size());
    if (prefix.empty()) return b;
    for (const auto& [p, m] : kSi)
      if (prefix == p) return b * m;
    if (kind == Quantity::bandwidth)
      for (const auto& [p, m] : kBinary)
        if (prefix == p) return b * m;
  }
  return std::nullopt;
}

}  // namespace

QuantityRange quantity_range(Quantity kind) {
  switch (kind) {
    case Quantity::bandwidth: return {1.0, 1e15, "[1 B/s, 1 PB/s]"};
    case Quantity::time: return {0.0, 3600.0, "[0 s, 1 h]"};
    case Quantity::speed: break;
  }
  return {1.0, 1e21, "[1 flop/s, 1 Zflop/s]"};
}

bool parse_quantity(const std::string& text, Quantity kind, double& value) {
  // Decimal only: strtod would also read hexadecimal ("0x10GBps" as 16 GB/s), which no platform
  // means.
  const char* begin = text.data();
  double number = 0;
  const auto [end, ec] = std::from_chars(begin, begin + text.size(), number);
  if (ec != std::errc()) return false;
  const std::optional<double> m = unit_multiplier(std::string(end), kind);
  if (!m) return false;
  value = number * *m;
  return true;
}

}  // namespace ddl::sim
