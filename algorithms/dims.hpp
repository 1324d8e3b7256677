// The logical grid d1 x d2 x ... x dk over the ranks. The first dimension is innermost
// (fastest-varying rank index), so on S822LC "4x8x8" is GPUs per node x nodes per leaf switch
// x leaf switches, and rank = node * 4 + gpu as in the DDL manual.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace ddl {

class Dims {
 public:
  Dims() = default;
  explicit Dims(std::vector<int> extents);  // every extent >= 1, at least one dimension

  // "4x16x4" -> {4, 16, 4}. Throws InvalidArgument quoting the input on anything else.
  static Dims parse(std::string_view text);
  // A single dimension holding all ranks.
  static Dims flat(int ranks) { return Dims({ranks}); }

  int rank_count() const;  // product of extents (1 for an empty Dims)
  int count() const { return static_cast<int>(extents_.size()); }
  int extent(int dim) const { return extents_.at(static_cast<std::size_t>(dim)); }
  const std::vector<int>& extents() const { return extents_; }
  bool empty() const { return extents_.empty(); }

  std::vector<int> coords(int rank) const;
  int rank_of(const std::vector<int>& coords) const;
  // The ranks that differ from `rank` only in coordinate `dim`, ordered by that coordinate.
  std::vector<int> group(int rank, int dim) const;

  // Throws InvalidArgument unless rank_count() == world (message quotes both).
  void require_world(int world) const;

  std::string to_string() const;  // "4x16x4"
  bool operator==(const Dims&) const = default;

 private:
  std::vector<int> extents_;
};

// Every ordered factorization of n into at most max_dims factors >= 2 (plus {n} itself),
// e.g. 8 -> 8, 2x4, 4x2, 2x2x2. For tests and for "try the factorizations" studies.
std::vector<Dims> factorizations(int n, int max_dims);

}  // namespace ddl
