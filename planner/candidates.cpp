#include "planner/candidates.hpp"

#include <algorithm>

#include "algorithms/algorithm_spec.hpp"
#include "algorithms/dims.hpp"
#include "algorithms/halving_doubling_steps.hpp"

namespace ddl {

std::vector<std::string> candidate_algorithms(int ranks, const SearchSpace& space) {
  std::vector<std::string> out = {"ring", "rhd", "rd", "dbtree", "hier"};
  if (space.both_orders) out.push_back("rhd:order=far");
  if (ranks == 1) return {"ring"};
  for (const Dims& dims : factorizations(ranks, space.max_dims)) {
    const int k = dims.count();
    // Every assignment of ring / hd to the dimensions, hd where the extent allows it and it
    // differs from ring: on 2 ranks both are one exchange of halves (the same schedule).
    std::vector<std::vector<IntraMethod>> assignments{{}};
    for (int d = 0; d < k; ++d) {
      std::vector<std::vector<IntraMethod>> next;
      for (const auto& a : assignments) {
        next.push_back(a);
        next.back().push_back(IntraMethod::ring);
        if (is_power_of_two(dims.extent(d)) && dims.extent(d) > 2) {
          next.push_back(a);
          next.back().push_back(IntraMethod::halving_doubling);
        }
      }
      assignments = std::move(next);
    }
    for (const auto& methods : assignments) {
      bool hd = false;
      for (IntraMethod m : methods) hd = hd || m == IntraMethod::halving_doubling;
      for (const int rings : space.rings) {
        if (rings > 1 && k < 2) continue;
        for (const HdOrder order : {HdOrder::near, HdOrder::far}) {
          if (order == HdOrder::far && (!hd || !space.both_orders)) continue;
          AlgorithmSpec s;
          s.name = "ddl";
          s.dims = dims;
          s.methods = methods;
          if (rings > 1) s.rings = rings;
          if (order == HdOrder::far) s.order = order;
          out.push_back(s.to_string());
        }
      }
    }
  }
  return out;
}

std::vector<std::string> candidate_variants(const std::string& algo, const SearchSpace& space) {
  const AlgorithmSpec base = parse_algorithm_spec(algo);
  std::vector<std::string> out;
  bool hd = base.name == "rhd";
  for (IntraMethod m : base.methods) hd = hd || m == IntraMethod::halving_doubling;
  std::vector<int> rings{1};
  if (base.name == "ddl" && base.dims && base.dims->count() >= 2) rings = space.rings;
  for (const int r : rings)
    for (const HdOrder order : {HdOrder::near, HdOrder::far}) {
      if (order == HdOrder::far && (!hd || !space.both_orders)) continue;
      AlgorithmSpec v = base;
      v.rings = r > 1 ? std::optional<int>(r) : std::nullopt;
      v.order = order == HdOrder::far ? std::optional<HdOrder>(order) : std::nullopt;
      if (v.to_string() != algo) out.push_back(v.to_string());
    }
  return out;
}

std::size_t largest_transfer(const std::string& algo, const Dims& grid, std::size_t bytes) {
  const AlgorithmSpec spec = parse_algorithm_spec(algo);
  const int ranks = grid.rank_count();
  const auto up = [](std::size_t n, std::size_t d) { return (n + d - 1) / d; };
  if (spec.name == "ring") return up(bytes, static_cast<std::size_t>(ranks));
  if (spec.name == "rhd") return is_power_of_two(ranks) ? up(bytes, 2) : bytes;
  if (spec.name == "ddl") {
    const Dims dims = spec.dims.value_or(grid);
    const int k = dims.count();
    const int rings = spec.rings.value_or(1);
    // Slice j starts in dimension j mod k: the largest first piece is that of the starting
    // dimension that divides the slice least.
    std::size_t divisor = 0;
    for (int d = 0; d < std::min(rings, k); ++d) {
      const bool hd = !spec.methods.empty() &&
                      spec.methods[static_cast<std::size_t>(d)] == IntraMethod::halving_doubling;
      const auto f = static_cast<std::size_t>(hd ? 2 : dims.extent(d));
      divisor = divisor == 0 ? f : std::min(divisor, f);
    }
    return up(up(bytes, static_cast<std::size_t>(rings)), divisor);
  }
  return bytes;
}

std::vector<std::string> segment_variants(const std::string& algo, const Dims& grid,
                                          std::size_t bytes, const SearchSpace& space) {
  const AlgorithmSpec base = parse_algorithm_spec(algo);
  if (base.segment_bytes) return {};
  std::vector<std::size_t> segments = space.segments;
  std::sort(segments.begin(), segments.end());
  segments.erase(std::unique(segments.begin(), segments.end()), segments.end());
  const std::size_t largest = largest_transfer(algo, grid, bytes);
  std::vector<std::size_t> below;
  for (const std::size_t s : segments)
    if (s > 0 && s < largest) below.push_back(s);
  if (below.size() > kSegmentVariants)
    below.erase(below.begin(), below.end() - static_cast<std::ptrdiff_t>(kSegmentVariants));
  std::vector<std::string> out;
  for (const std::size_t s : below) {
    AlgorithmSpec v = base;
    v.segment_bytes = s;
    out.push_back(v.to_string());
  }
  return out;
}

std::size_t confirmed_count(const std::vector<double>& ascending_prices, std::size_t confirm) {
  const std::size_t first = std::min(confirm, ascending_prices.size());
  if (first == 0) return 0;
  const std::size_t last = std::min(std::max(first, kMaxConfirm), ascending_prices.size());
  std::size_t n = first;
  while (n < last && ascending_prices[n] <= ascending_prices[first - 1] * (1 + kModelTie)) ++n;
  return n;
}

}  // namespace ddl
