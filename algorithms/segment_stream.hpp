// A transfer of a step as the executor plays it: cut into whole-element segments, kWindow of
// them in flight, received ones landing in scratch until reduced. Shared by the lockstep play
// (schedule.cpp) and the independent play (schedule_independent.cpp).
#pragma once

#include <algorithm>
#include <cstddef>

#include "algorithms/schedule.hpp"
#include "algorithms/step_semantics.hpp"

namespace ddl::detail {

// Segments in flight per transfer: two, so the reduction (or the next send) of one segment
// overlaps the transfer of the next. Posting every segment at once would not pipeline: on a
// fair-sharing network they would all share the link and land together.
constexpr std::size_t kWindow = 2;

// One transfer of one step, cut into whole-element segments of at most `segment` bytes.
struct Stream {
  const Step* step;
  Transfer transfer;
  int tag;
  std::size_t segment;   // bytes per segment (the last one may be shorter)
  std::size_t segments;  // how many
  MutView landing;       // receive-and-reduce: kWindow slots of `segment` bytes in scratch
  bool after_sends;      // reduce once the step's sends are done; landing is then whole
  Request pending[kWindow];

  MutView range(MutView buffer, std::size_t k) const {
    const std::size_t off = k * segment;
    return buffer.slice(transfer.offset + off, std::min(segment, transfer.bytes - off));
  }
  // What segment k of a send reads: the buffer's range, or ExecOptions::send_from's.
  ConstView source(ConstView from, std::size_t k) const {
    const std::size_t off = k * segment;
    return from.slice(transfer.offset + off, std::min(segment, transfer.bytes - off));
  }
  MutView slot(std::size_t k, std::size_t bytes) const {
    return landing.slice((after_sends ? k : k % kWindow) * segment, bytes);
  }
};

inline std::size_t segment_size(std::size_t bytes, std::size_t segment_bytes, std::size_t elem) {
  if (segment_bytes == 0 || segment_bytes >= bytes) return bytes;
  return std::max(elem, segment_bytes / elem * elem);
}

// Scratch a reduced receive of `step` lands in: kWindow slots of one segment, or one slot of the
// whole transfer when the step reduces what it sends.
inline std::size_t landing_bytes(const Step& step, const Transfer& recv, std::size_t segment_bytes,
                                 std::size_t elem) {
  return reduces_what_it_sends(step) ? recv.bytes
                                     : kWindow * segment_size(recv.bytes, segment_bytes, elem);
}

}  // namespace ddl::detail
