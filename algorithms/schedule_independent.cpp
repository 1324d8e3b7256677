// The independent play of execute() (schedule.hpp, ExecOptions::gates): every schedule is a
// lane that starts its next step as soon as its own current step has completed and its gate is
// met. A step's receives and sends are posted at once, each transfer as segments with kWindow
// in flight (segment_stream.hpp); the rank waits for whichever request completes first, reduces
// a received segment as it lands and posts the stream's next segment. A step completes when all
// its streams have, after the reductions of a step that reduces what it sends
// (step_semantics.hpp). Every rank posts a lane's steps in the lane's order, segments in
// order, so messages of one (peer, tag) match in order as in the lockstep play.
#include <algorithm>
#include <optional>
#include <vector>

#include "algorithms/schedule.hpp"
#include "algorithms/segment_stream.hpp"

namespace ddl {

namespace {

using namespace detail;

// One transfer of a lane's current step, with how far its segments have got.
// Segments are handled in order: a segment that completes before the one posted before it (a
// wait_any may see them so) waits for it, so the next segment is always posted into the slot
// of one already reduced, and both ends post a flow's segments in the same order.
struct Flow {
  Stream stream;
  bool recv = false;
  std::size_t posted = 0;    // segments posted
  std::size_t handled = 0;   // segments complete and handled, in order
  bool early[kWindow] = {};  // segment handled + i % kWindow complete, not yet handled
};

struct Lane {
  const Schedule* schedule = nullptr;
  int tag = 0;
  Gate gate;
  std::size_t done = 0;          // steps completed
  bool playing = false;          // its step `done` is posted
  std::size_t open = 0;          // flows of that step not complete
  std::vector<Flow> flows = {};  // of that step
  MutView landing = {};          // its part of the scratch
};

struct Posted {
  std::size_t lane, flow, segment;
};

class IndependentPlay {
 public:
  IndependentPlay(Communicator& comm, MutView buffer, DType type, ReduceOp op,
                  std::span<const Schedule> schedules, const ExecOptions& options)
      : comm_(comm),
        buffer_(buffer),
        send_from_(options.send_from.value_or(buffer)),
        type_(type),
        op_(op),
        elem_(dtype_size(type)),
        segment_bytes_(options.segment_bytes) {
    DDL_CHECK(options.gates.size() == schedules.size(), "one gate per schedule");
    std::vector<std::size_t> landing;
    for (std::size_t j = 0; j < schedules.size(); ++j) {
      const Gate& g = options.gates[j];
      DDL_CHECK(g.after < static_cast<int>(j), "a gate names a later schedule or itself");
      lanes_.push_back(Lane{&schedules[j], options.tag_base + static_cast<int>(j), g});
      landing.push_back(most_landing(schedules[j]));
    }
    std::size_t total = 0;
    for (std::size_t bytes : landing) total += bytes;
    scratch_.emplace(comm, total);
    std::size_t offset = 0;
    for (std::size_t j = 0; j < lanes_.size(); ++j) {
      lanes_[j].landing = scratch_->view().slice(offset, landing[j]);
      offset += landing[j];
    }
  }

  void play() {
    for (;;) {
      for (Lane& lane : lanes_) start_ready(lane);
      if (pending_.empty()) break;
      // A request that completed when posted (a backend may complete a send at once) is null.
      const auto null = std::find_if(pending_.begin(), pending_.end(),
                                     [](const Request& r) { return !r.pending(); });
      const std::size_t i = null != pending_.end()
                                ? static_cast<std::size_t>(null - pending_.begin())
                                : comm_.wait_any(pending_);
      const Posted what = posted_[i];
      pending_[i] = pending_.back();
      posted_[i] = posted_.back();
      pending_.pop_back();
      posted_.pop_back();
      segment_done(what);
    }
    for (const Lane& lane : lanes_)
      DDL_CHECK(lane.done == lane.schedule->size(), "a gate that is never met");
  }

 private:
  std::size_t most_landing(const Schedule& schedule) const {
    std::size_t most = 0;
    for (const Step& step : schedule) {
      if (!step.reduce) continue;
      std::size_t bytes = 0;
      for (const Transfer& r : step.recvs) bytes += landing_bytes(step, r, segment_bytes_, elem_);
      most = std::max(most, bytes);
    }
    return most;
  }

  bool gate_met(const Lane& lane) const {
    if (lane.gate.after < 0) return true;
    const Lane& before = lanes_[static_cast<std::size_t>(lane.gate.after)];
    return before.done >= std::min(lane.gate.steps, before.schedule->size());
  }

  // Posts the lane's next steps while its gate is met; a step with nothing to move completes
  // at once.
  void start_ready(Lane& lane) {
    while (!lane.playing && lane.done < lane.schedule->size() && gate_met(lane)) {
      post_step(lane);
      if (lane.open == 0) finish_step(lane);
    }
  }

  void post_step(Lane& lane) {
    const Step& step = (*lane.schedule)[lane.done];
    lane.playing = true;
    lane.flows.clear();
    const bool after_sends = reduces_what_it_sends(step);
    std::size_t landing_offset = 0;
    auto add = [&](const Transfer& x, bool recv) {
      if (x.bytes == 0) return;
      const std::size_t seg = segment_size(x.bytes, segment_bytes_, elem_);
      Flow f{{&step,
              x,
              lane.tag,
              seg,
              (x.bytes + seg - 1) / seg,
              {},
              recv && step.reduce && after_sends,
              {}},
             recv};
      if (recv && step.reduce) {
        const std::size_t land = landing_bytes(step, x, segment_bytes_, elem_);
        f.stream.landing = lane.landing.slice(landing_offset, land);
        landing_offset += land;
      }
      lane.flows.push_back(f);
    };
    for (const Transfer& r : step.recvs) add(r, true);  // receives first, as the lockstep play
    for (const Transfer& x : step.sends) add(x, false);
    lane.open = lane.flows.size();
    comm_.set_phase(step.phase, step.dimension);
    const std::size_t index = static_cast<std::size_t>(&lane - lanes_.data());
    for (std::size_t k = 0; k < kWindow; ++k)
      for (std::size_t f = 0; f < lane.flows.size(); ++f) post_segment(index, f);
  }

  void post_segment(std::size_t lane, std::size_t flow) {
    Flow& f = lanes_[lane].flows[flow];
    const Stream& s = f.stream;
    const std::size_t k = f.posted;
    if (k >= s.segments) return;
    ++f.posted;
    const MutView target = s.range(buffer_, k);
    const int peer = s.transfer.peer;
    pending_.push_back(!f.recv          ? comm_.isend(peer, s.source(send_from_, k), s.tag)
                       : s.step->reduce ? comm_.irecv(peer, s.slot(k, target.bytes), s.tag)
                                        : comm_.irecv(peer, target, s.tag));
    posted_.push_back({lane, flow, k});
  }

  void segment_done(Posted what) {
    Lane& lane = lanes_[what.lane];
    Flow& f = lane.flows[what.flow];
    const Stream& s = f.stream;
    f.early[what.segment % kWindow] = true;
    while (f.handled < f.posted && f.early[f.handled % kWindow]) {
      f.early[f.handled % kWindow] = false;
      const std::size_t k = f.handled++;
      if (f.recv && s.step->reduce && !s.after_sends) {
        comm_.set_phase(s.step->phase, s.step->dimension);
        const MutView target = s.range(buffer_, k);
        comm_.reduce(target, s.slot(k, target.bytes), type_, op_);
      }
      post_segment(what.lane, what.flow);  // segment k + kWindow, into k's slot
    }
    if (f.handled == s.segments && --lane.open == 0) finish_step(lane);
  }

  void finish_step(Lane& lane) {
    // Every send of the step is complete: what they read may now be reduced into.
    for (const Flow& f : lane.flows) {
      const Stream& s = f.stream;
      if (!s.after_sends) continue;
      comm_.set_phase(s.step->phase, s.step->dimension);
      comm_.reduce(buffer_.slice(s.transfer.offset, s.transfer.bytes), s.landing, type_, op_);
    }
    lane.playing = false;
    ++lane.done;
  }

  Communicator& comm_;
  const MutView buffer_;
  const ConstView send_from_;
  const DType type_;
  const ReduceOp op_;
  const std::size_t elem_;
  const std::size_t segment_bytes_;
  std::vector<Lane> lanes_;
  std::optional<Scratch> scratch_;
  std::vector<Request> pending_;
  std::vector<Posted> posted_;
};

}  // namespace

void execute_independent(Communicator& comm, MutView buffer, DType type, ReduceOp op,
                         std::span<const Schedule> schedules, const ExecOptions& options) {
  IndependentPlay(comm, buffer, type, op, schedules, options).play();
}

}  // namespace ddl
