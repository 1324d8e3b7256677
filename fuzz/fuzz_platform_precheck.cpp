// The nesting-depth scan that guards SimGrid's XML lexer (sim/platform_precheck.hpp). It must
// never read past the text, and stop counting past its limit.
#include "fuzz/fuzz_common.hpp"
#include "sim/platform_precheck.hpp"

using namespace ddl;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::size_t line = 0;
  const std::size_t depth = sim::xml_nesting_depth(fuzz::text(data, size), 64, &line);
  fuzz::require(depth <= 65, "the scan stops one past its limit");
  fuzz::require(line >= 1, "lines count from 1");
  return 0;
}
