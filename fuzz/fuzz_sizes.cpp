// parse_size / format_size / size_sweep (harness/sizes.hpp): "8", "64K", "1M", ... Accepted sizes
// must spell back exactly; a sweep must be increasing and stay within its bounds.
#include "fuzz/fuzz_common.hpp"
#include "harness/sizes.hpp"

using namespace ddl;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string input = fuzz::text(data, size);
  DDL_FUZZ_ACCEPT_ERRORS({
    const std::size_t bytes = harness::parse_size(input);
    fuzz::require(harness::parse_size(harness::format_size(bytes)) == bytes,
                  "format_size round trip");
  });
  // "MIN MAX FACTOR": a sweep of two parsed sizes.
  const std::size_t a = input.find(' '), b = a == std::string::npos ? a : input.find(' ', a + 1);
  if (b == std::string::npos) return 0;
  DDL_FUZZ_ACCEPT_ERRORS({
    const std::size_t lo = harness::parse_size(input.substr(0, a));
    const std::size_t hi = harness::parse_size(input.substr(a + 1, b - a - 1));
    const std::size_t factor = harness::parse_size(input.substr(b + 1));
    const auto sweep = harness::size_sweep(lo, hi, factor);
    fuzz::require(!sweep.empty() && sweep.front() == lo, "a sweep starts at --minbytes");
    for (std::size_t i = 0; i < sweep.size(); ++i) {
      fuzz::require(sweep[i] <= hi, "a sweep stays within --maxbytes");
      if (i > 0)
        fuzz::require(sweep[i] == sweep[i - 1] * factor, "a sweep multiplies by the factor");
    }
  });
  return 0;
}
