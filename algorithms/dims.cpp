#include "algorithms/dims.hpp"

#include <charconv>
#include <functional>
#include <limits>

#include "algorithms/error.hpp"

namespace ddl {

Dims::Dims(std::vector<int> extents) : extents_(std::move(extents)) {
  if (extents_.empty()) throw InvalidArgument("dims: at least one dimension is needed");
  long long product = 1;
  for (int e : extents_) {
    if (e < 1)
      throw InvalidArgument("dims: every dimension must be >= 1, got " + std::to_string(e));
    product *= e;
    if (product > std::numeric_limits<int>::max())
      throw InvalidArgument("dims '" + to_string() + "' describe more ranks than an int holds");
  }
}

Dims Dims::parse(std::string_view text) {
  const std::string quoted = "'" + std::string(text) + "'";
  if (text.empty()) throw InvalidArgument("bad dims '': expected e.g. 4x8x8");
  std::vector<int> extents;
  std::size_t pos = 0;
  while (true) {
    const std::size_t x = text.find('x', pos);
    const std::string_view part = text.substr(pos, x == std::string_view::npos ? x : x - pos);
    int value = 0;
    const auto [end, ec] = std::from_chars(part.data(), part.data() + part.size(), value);
    if (part.empty() || ec != std::errc() || end != part.data() + part.size())
      throw InvalidArgument("bad dims " + quoted +
                            ": expected positive integers joined by 'x', e.g. 4x8x8");
    if (value < 1) throw InvalidArgument("bad dims " + quoted + ": every dimension must be >= 1");
    extents.push_back(value);
    if (x == std::string_view::npos) break;
    pos = x + 1;
  }
  return Dims(std::move(extents));
}

int Dims::rank_count() const {
  int n = 1;
  for (int e : extents_) n *= e;
  return n;
}

std::vector<int> Dims::coords(int rank) const {
  DDL_CHECK(rank >= 0 && rank < rank_count(), "rank out of range of dims " + to_string());
  std::vector<int> c(extents_.size());
  for (std::size_t d = 0; d < extents_.size(); ++d) {
    c[d] = rank % extents_[d];
    rank /= extents_[d];
  }
  return c;
}

int Dims::rank_of(const std::vector<int>& c) const {
  DDL_CHECK(c.size() == extents_.size(), "coordinate count differs from dims " + to_string());
  int rank = 0;
  for (std::size_t d = extents_.size(); d-- > 0;) {
    DDL_CHECK(c[d] >= 0 && c[d] < extents_[d], "coordinate out of range of dims " + to_string());
    rank = rank * extents_[d] + c[d];
  }
  return rank;
}

std::vector<int> Dims::group(int rank, int dim) const {
  std::vector<int> c = coords(rank);
  std::vector<int> ranks(static_cast<std::size_t>(extent(dim)));
  for (int i = 0; i < extent(dim); ++i) {
    c[static_cast<std::size_t>(dim)] = i;
    ranks[static_cast<std::size_t>(i)] = rank_of(c);
  }
  return ranks;
}

void Dims::require_world(int world) const {
  if (rank_count() != world)
    throw InvalidArgument("dims '" + to_string() + "' describe " + std::to_string(rank_count()) +
                          " ranks but there are " + std::to_string(world));
}

std::string Dims::to_string() const {
  std::string s;
  for (std::size_t d = 0; d < extents_.size(); ++d) {
    if (d) s += 'x';
    s += std::to_string(extents_[d]);
  }
  return s;
}

std::vector<Dims> factorizations(int n, int max_dims) {
  std::vector<Dims> out;
  std::vector<int> current;
  std::function<void(int)> rec = [&](int rest) {
    if (rest == 1) {
      if (!current.empty()) out.emplace_back(current);
      return;
    }
    if (static_cast<int>(current.size()) == max_dims) return;
    for (int f = 2; f <= rest; ++f) {
      if (rest % f) continue;
      current.push_back(f);
      rec(rest / f);
      current.pop_back();
    }
  };
  if (n == 1) return {Dims({1})};
  rec(n);
  return out;
}

}  // namespace ddl
