#include "planner/candidates.hpp"

#include <algorithm>

#include "algorithms/algorithm_spec.hpp"
#include "algorithms/halving_doubling_steps.hpp"
#include "algorithms/registry.hpp"

namespace ddl {

namespace {

// The registered algorithms of `c` the planner searches, in registry order.
std::vector<const Algorithm*> planned(unsigned role, Collective c) {
  std::vector<const Algorithm*> out;
  for (const Algorithm& a : algorithms())
    if (a.collective == c && (a.plan & role) != 0) out.push_back(&a);
  return out;
}

// Where halving-doubling occurs in `spec`'s schedule, far-first is a variant of its own.
bool halving_doubling(const Algorithm& a, const AlgorithmSpec& spec) {
  if ((a.fields & kSpecOrder) == 0) return false;
  if ((a.fields & kSpecMethods) == 0) return true;
  return std::find(spec.methods.begin(), spec.methods.end(), IntraMethod::halving_doubling) !=
         spec.methods.end();
}

// Every assignment of ring / hd to the dimensions of `dims`, hd where the extent allows it and
// it differs from ring: on 2 ranks both are one exchange of halves (the same schedule).
std::vector<std::vector<IntraMethod>> method_assignments(const Dims& dims) {
  std::vector<std::vector<IntraMethod>> assignments{{}};
  for (int d = 0; d < dims.count(); ++d) {
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
  return assignments;
}

// `a` over every grid of `ranks`: dims x methods (where it takes them) x rings x order.
void add_grids(const Algorithm& a, int ranks, const SearchSpace& space,
               std::vector<std::string>& out) {
  for (const Dims& dims : factorizations(ranks, space.max_dims)) {
    const int k = dims.count();
    const auto assignments = (a.fields & kSpecMethods) != 0
                                 ? method_assignments(dims)
                                 : std::vector<std::vector<IntraMethod>>{{}};
    for (const auto& methods : assignments) {
      AlgorithmSpec s;
      s.name = a.name;
      s.dims = dims;
      s.methods = methods;
      const bool hd = halving_doubling(a, s);
      const std::vector<int> rings = (a.fields & kSpecRings) != 0 ? space.rings : std::vector{1};
      for (const int r : rings) {
        if (r > 1 && k < 2) continue;
        for (const HdOrder order : {HdOrder::near, HdOrder::far}) {
          if (order == HdOrder::far && (!hd || !space.both_orders)) continue;
          AlgorithmSpec v = s;
          if (r > 1) v.rings = r;
          if (order == HdOrder::far) v.order = order;
          out.push_back(v.to_string());
          // Pipelined, alone (as candidate_variants adds it to the base form).
          if ((a.fields & kSpecChunks) == 0 || k < 2 || r > 1 || order == HdOrder::far) continue;
          for (const int c : space.chunks) {
            if (c < 2) continue;
            AlgorithmSpec chunked = s;
            chunked.chunks = c;
            out.push_back(chunked.to_string());
          }
        }
      }
    }
  }
}

}  // namespace

std::vector<std::string> candidate_algorithms(int ranks, const SearchSpace& space,
                                              Collective collective) {
  const std::vector<const Algorithm*> plain = planned(kPlanPlain, collective);
  if (ranks == 1) {
    if (!plain.empty()) return {plain.front()->name};
    const std::vector<const Algorithm*> grids = planned(kPlanGrids, collective);
    return grids.empty() ? std::vector<std::string>{} : std::vector{grids.front()->name};
  }
  std::vector<std::string> out;
  for (const Algorithm* a : plain) out.push_back(a->name);
  for (const Algorithm* a : plain)
    for (const std::string& v : candidate_variants(a->name, space)) out.push_back(v);
  for (const Algorithm* a : planned(kPlanGrids, collective)) add_grids(*a, ranks, space, out);
  return out;
}

std::vector<std::string> candidate_variants(const std::string& algo, const SearchSpace& space) {
  const AlgorithmSpec base = parse_algorithm_spec(algo);
  const Algorithm& a = *find_registered(base.name);
  const bool hd = halving_doubling(a, base);
  std::vector<int> rings{1};
  if ((a.fields & kSpecRings) != 0 && base.dims && base.dims->count() >= 2) rings = space.rings;
  std::vector<std::string> out;
  for (const int r : rings)
    for (const HdOrder order : {HdOrder::near, HdOrder::far}) {
      if (order == HdOrder::far && (!hd || !space.both_orders)) continue;
      AlgorithmSpec v = base;
      v.rings = r > 1 ? std::optional<int>(r) : std::nullopt;
      v.order = order == HdOrder::far ? std::optional<HdOrder>(order) : std::nullopt;
      if (v.to_string() != algo) out.push_back(v.to_string());
    }
  if ((a.fields & kSpecChannels) != 0)
    for (const int c : space.channels) {
      AlgorithmSpec v = base;
      v.channels = c;
      if (c > 1 && v.to_string() != algo) out.push_back(v.to_string());
    }
  if ((a.fields & kSpecChunks) != 0 && base.dims && base.dims->count() >= 2)
    for (const int c : space.chunks) {
      AlgorithmSpec v = base;
      v.chunks = c;
      if (c > 1 && v.to_string() != algo) out.push_back(v.to_string());
    }
  return out;
}

std::vector<std::string> every_size_candidates(Collective collective) {
  std::vector<std::string> out;
  for (const Algorithm* a : planned(kPlanEverySize, collective)) out.push_back(a->name);
  return out;
}

std::size_t largest_transfer(const std::string& algo, const Dims& grid, std::size_t bytes) {
  const AlgorithmSpec spec = parse_algorithm_spec(algo);
  const Algorithm& a = *find_registered(spec.name);
  if (!a.largest_transfer) return bytes;
  return a.largest_transfer(grid, bytes, spec.apply(Options{}));
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
