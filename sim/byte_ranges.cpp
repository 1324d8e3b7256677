#include "sim/byte_ranges.hpp"

#include <algorithm>
#include <iterator>

namespace ddl::sim {

void ByteRanges::add(std::uintptr_t begin, std::uintptr_t end) {
  if (begin >= end) return;
  // The first range that touches [begin, end): the one starting at or before begin, if it
  // reaches begin, else the first one after begin.
  auto it = ranges_.upper_bound(begin);
  if (it != ranges_.begin() && std::prev(it)->second >= begin) --it;
  while (it != ranges_.end() && it->first <= end) {
    begin = std::min(begin, it->first);
    end = std::max(end, it->second);
    it = ranges_.erase(it);
  }
  ranges_.emplace_hint(it, begin, end);
}

void ByteRanges::remove(std::uintptr_t begin, std::uintptr_t end) {
  if (begin >= end) return;
  auto it = ranges_.upper_bound(begin);
  if (it != ranges_.begin() && std::prev(it)->second > begin) --it;
  while (it != ranges_.end() && it->first < end) {
    const std::uintptr_t b = it->first, e = it->second;
    it = ranges_.erase(it);
    if (b < begin) ranges_.emplace_hint(it, b, begin);
    if (e > end) {
      ranges_.emplace_hint(it, end, e);
      return;  // ranges are disjoint: nothing further reaches below e
    }
  }
}

std::size_t ByteRanges::overlap(std::uintptr_t begin, std::uintptr_t end) const {
  if (begin >= end) return 0;
  std::size_t bytes = 0;
  auto it = ranges_.upper_bound(begin);
  if (it != ranges_.begin()) --it;
  for (; it != ranges_.end() && it->first < end; ++it)
    if (it->second > begin) bytes += std::min(end, it->second) - std::max(begin, it->first);
  return bytes;
}

}  // namespace ddl::sim
