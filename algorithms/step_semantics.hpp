// What a step means, in one place for everyone who plays or prices one: the executor
// (schedule.cpp) plays steps by these rules, the cost model (schedule_cost.cpp) prices them by
// the same rules, and the simulator (sim/sim_communicator.cpp) keeps the same sent bytes.
//
// - Which bytes a step reduces: its receives, each into its own range of the buffer, when the
//   step reduces (Step::reduce); otherwise a receive lands in the buffer as it is.
// - When its reductions run: as their receives arrive, while the step's sends complete, unless
//   the step reduces into bytes it also sends (rd's whole-buffer exchange): its sends read the
//   buffer as it was, so it reduces only once they have completed.
// - When a rank leaves a step: after its last send and after its last receive plus the time of
//   its reductions, whichever is later; a step that reduces what it sends after both.
// - Peer reads: the bytes a rank has sent from and not written since (a receive, reduction,
//   copy or divide into them writes them). A plain receive that lands in them is a peer read,
//   which a calibrated platform makes slower (CostParams::peer_read, ddl_peer_read_factors) by
//   1 + (f - 1) x the share of its bytes that land there.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>

#include "algorithms/schedule.hpp"

namespace ddl {

// True when `step` reduces into bytes it also sends (rd's whole-buffer exchange): execute()
// then reduces its receives only once its sends have completed. The model prices it so too.
bool reduces_what_it_sends(const Step& step);

// The bytes `step` reduces into the buffer: all it receives when it reduces, else none.
std::size_t reduced_bytes(const Step& step);

// When a rank leaves a step (seconds on its clock): its last send done at `sends_done`, its last
// receive at `recvs_done`, and `reduce_s` of reductions.
double leave_step(double sends_done, double recvs_done, double reduce_s, bool after_sends);

// A set of byte positions (offsets in a buffer, or addresses: only compared, never
// dereferenced), kept as disjoint half-open ranges [begin, end) merged where they touch: the
// bytes a rank has sent from and not written since.
class ByteRanges {
 public:
  void add(std::uintptr_t begin, std::uintptr_t end);
  void remove(std::uintptr_t begin, std::uintptr_t end);
  // How many bytes of [begin, end) are in the set.
  std::size_t overlap(std::uintptr_t begin, std::uintptr_t end) const;
  std::size_t ranges() const { return ranges_.size(); }

 private:
  std::map<std::uintptr_t, std::uintptr_t> ranges_;  // begin -> end
};

// The share of a receive of `bytes` (> 0) from `begin` that lands in `sent`.
double sent_share(const ByteRanges& sent, std::uintptr_t begin, std::size_t bytes);
// How many times its own time a receive takes whose `share` of bytes lands in sent bytes, where
// a receive landing wholly there takes `factor` times.
double peer_read_ratio(double factor, double share);

}  // namespace ddl
