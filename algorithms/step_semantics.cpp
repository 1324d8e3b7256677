#include "algorithms/step_semantics.hpp"

#include <algorithm>
#include <iterator>

namespace ddl {

namespace {

bool overlap(const Transfer& a, const Transfer& b) {
  return a.offset < b.offset + b.bytes && b.offset < a.offset + a.bytes;
}

}  // namespace

// Its sends must read the buffer as it was, so its reductions wait until every send of the
// step has completed, and its receives land in scratch of their whole size meanwhile (cut
// into segments as usual: the sender cuts the same transfer the same way).
bool reduces_what_it_sends(const Step& step) {
  if (!step.reduce) return false;
  for (const Transfer& r : step.recvs)
    for (const Transfer& x : step.sends)
      if (r.bytes > 0 && x.bytes > 0 && overlap(r, x)) return true;
  return false;
}

std::size_t reduced_bytes(const Step& step) {
  std::size_t bytes = 0;
  if (step.reduce)
    for (const Transfer& r : step.recvs) bytes += r.bytes;
  return bytes;
}

// The receives are reduced as they arrive while the sends complete (execute()'s pipeline), so
// the reduction overlaps the sends but not its own receive.
double leave_step(double sends_done, double recvs_done, double reduce_s, bool after_sends) {
  return after_sends ? std::max(sends_done, recvs_done) + reduce_s
                     : std::max(sends_done, recvs_done + reduce_s);
}

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

double sent_share(const ByteRanges& sent, std::uintptr_t begin, std::size_t bytes) {
  return static_cast<double>(sent.overlap(begin, begin + bytes)) / static_cast<double>(bytes);
}

double peer_read_ratio(double factor, double share) {
  return 1 + (factor - 1) * share;
}

}  // namespace ddl
