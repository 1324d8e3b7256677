// SimGrid's quantities, as ddl reads them before SimGrid does: a number with a unit of bandwidth,
// time or speed, and the range of figures any machine has.
#pragma once

#include <string>

namespace ddl::sim {

// A SimGrid quantity ("12.5GBps", "1us", "1Gf", "5e-6"): the number times its unit's multiplier
// (SimGrid 3.32's unit tables for bandwidth, time and speed, checked against the library; no
// unit: the base unit). False when the text has no number or its unit is unknown.
// The number is decimal (no hexadecimal); "inf" and "nan" parse and are left to the range check.
enum class Quantity { bandwidth, time, speed };
bool parse_quantity(const std::string& text, Quantity kind, double& value);

// What a platform's figures may be, beyond finite and positive: bandwidths 1 B/s to 1 PB/s,
// latencies up to an hour, speeds 1 flop/s to 1 Zflop/s. Outside, a transfer or a step takes
// ~1e300 s or rounds to nothing, and the table is noise.
struct QuantityRange {
  double low, high;
  const char* text;
};
QuantityRange quantity_range(Quantity kind);

}  // namespace ddl::sim
