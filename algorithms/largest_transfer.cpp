#include "algorithms/largest_transfer.hpp"

#include <algorithm>

#include "algorithms/halving_doubling_steps.hpp"

namespace ddl {

namespace {

std::size_t divide_up(std::size_t n, std::size_t d) {
  return (n + d - 1) / d;
}

}  // namespace

std::size_t ring_largest_transfer(const Dims& grid, std::size_t bytes, const Options&) {
  return divide_up(bytes, static_cast<std::size_t>(grid.rank_count()));
}

std::size_t rhd_largest_transfer(const Dims& grid, std::size_t bytes, const Options&) {
  return is_power_of_two(grid.rank_count()) ? divide_up(bytes, 2) : bytes;
}

std::size_t ddl_largest_transfer(const Dims& grid, std::size_t bytes, const Options& options) {
  const Dims dims = options.dims.empty() ? grid : options.dims;
  const int k = dims.count();
  const int rings = options.rings;
  // Slice j starts in dimension j mod k: the largest first piece is that of the starting
  // dimension that divides the slice least.
  std::size_t divisor = 0;
  for (int d = 0; d < std::min(rings, k); ++d) {
    const bool hd = !options.methods.empty() &&
                    options.methods[static_cast<std::size_t>(d)] == IntraMethod::halving_doubling;
    const auto f = static_cast<std::size_t>(hd ? 2 : dims.extent(d));
    divisor = divisor == 0 ? f : std::min(divisor, f);
  }
  return divide_up(divide_up(bytes, static_cast<std::size_t>(rings)), divisor);
}

}  // namespace ddl
