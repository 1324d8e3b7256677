// Per-size factor tables of calibrated platforms (sim::parse_factors, sim/platform.hpp):
// "SIZE:FACTOR;SIZE:FACTOR". The first byte picks allow_zero and the unit.
#include "fuzz/fuzz_common.hpp"
#include "sim/platform.hpp"

using namespace ddl;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const bool allow_zero = data[0] & 1;
  const std::string spec = fuzz::text(data + 1, size - 1);
  DDL_FUZZ_ACCEPT_ERRORS(sim::parse_factors(spec, allow_zero, data[0] & 2 ? "flow" : "byte"));
  return 0;
}
