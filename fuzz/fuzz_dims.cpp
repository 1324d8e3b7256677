// Dims::parse (algorithms/dims.hpp): "4x8x8". An accepted grid spells back to itself and maps
// ranks to coordinates and back.
#include "algorithms/dims.hpp"
#include "fuzz/fuzz_common.hpp"

using namespace ddl;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  DDL_FUZZ_ACCEPT_ERRORS({
    const Dims dims = Dims::parse(fuzz::text(data, size));
    fuzz::require(Dims::parse(dims.to_string()).to_string() == dims.to_string(),
                  "to_string round trip");
    const int p = dims.rank_count();
    fuzz::require(p >= 1, "a grid has at least one rank");
    for (int r : {0, p / 2, p - 1})
      fuzz::require(dims.rank_of(dims.coords(r)) == r, "rank <-> coords");
  });
  return 0;
}
