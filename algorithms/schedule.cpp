#include "algorithms/schedule.hpp"

#include <algorithm>
#include <string>

#include "algorithms/segment_stream.hpp"
#include "algorithms/step_pacing.hpp"
#include "algorithms/step_runs.hpp"
#include "algorithms/step_semantics.hpp"

namespace ddl {

std::vector<Block> partition(std::size_t count, std::size_t parts, std::size_t elem_size) {
  return partition(Block{0, count * elem_size}, parts, elem_size);
}

std::vector<Block> partition(Block range, std::size_t parts, std::size_t elem_size) {
  DDL_CHECK(parts > 0, "partition into zero parts");
  DDL_CHECK(elem_size > 0 && range.bytes % elem_size == 0,
            "range is not a whole number of elements");
  const std::size_t count = range.bytes / elem_size;
  const std::size_t base = count / parts, extra = count % parts;
  std::vector<Block> blocks(parts);
  std::size_t offset = range.offset;
  for (std::size_t i = 0; i < parts; ++i) {
    const std::size_t bytes = (base + (i < extra ? 1 : 0)) * elem_size;
    blocks[i] = {offset, bytes};
    offset += bytes;
  }
  return blocks;
}

int Group::at(int index) const {
  const int g = size();
  return ranks[static_cast<std::size_t>(((index % g) + g) % g)];
}

Group world_group(const Communicator& comm) {
  return world_group(comm.size(), comm.rank());
}

Group world_group(int ranks, int me) {
  Group g;
  g.me = me;
  for (int r = 0; r < ranks; ++r) g.ranks.push_back(r);
  return g;
}

std::size_t element_count(MutView buffer, DType type) {
  const std::size_t elem = dtype_size(type);
  if (buffer.bytes % elem != 0)
    throw InvalidArgument("buffer of " + std::to_string(buffer.bytes) +
                          " bytes is not a whole number of " + std::string(to_string(type)) +
                          " elements");
  return buffer.bytes / elem;
}

ReduceOp reduction_op(ReduceOp op) {
  return op == ReduceOp::avg ? ReduceOp::sum : op;
}

void finish_average(Communicator& comm, MutView range, DType type, ReduceOp op,
                    std::size_t contributors) {
  if (op == ReduceOp::avg && range.bytes > 0) comm.divide(range, type, contributors);
}

namespace {

using namespace detail;

// One step t of every schedule: post, pipeline the segments, reduce, complete.
class StepPlayer {
 public:
  StepPlayer(Communicator& comm, MutView buffer, DType type, ReduceOp op,
             std::span<const Schedule> schedules, const ExecOptions& options, MutView scratch)
      : comm_(comm),
        buffer_(buffer),
        type_(type),
        op_(op),
        elem_(dtype_size(type)),
        schedules_(schedules),
        options_(options),
        scratch_(scratch) {}

  void play(std::size_t t);

 private:
  void finish_recv(Stream& s, std::size_t k);

  Communicator& comm_;
  const MutView buffer_;
  const DType type_;
  const ReduceOp op_;
  const std::size_t elem_;
  const std::span<const Schedule> schedules_;
  const ExecOptions& options_;
  const MutView scratch_;
  std::vector<Stream> sends_, recvs_;
};

void StepPlayer::finish_recv(Stream& s, std::size_t k) {
  comm_.wait(s.pending[k % kWindow]);
  if (!s.step->reduce || s.after_sends) return;
  comm_.set_phase(s.step->phase, s.step->dimension);
  const MutView target = s.range(buffer_, k);
  comm_.reduce(target, s.slot(k, target.bytes), type_, op_);
}

void StepPlayer::play(std::size_t t) {
  sends_.clear();
  recvs_.clear();
  std::size_t landing_offset = 0;
  for (std::size_t j = 0; j < schedules_.size(); ++j) {
    if (t >= schedules_[j].size()) continue;
    const Step& step = schedules_[j][t];
    const int tag = options_.tag_base + static_cast<int>(j);
    const bool after_sends = reduces_what_it_sends(step);
    auto add = [&](std::vector<Stream>& to, const Transfer& x, bool reduce_here) {
      if (x.bytes == 0) return;
      const std::size_t seg = segment_size(x.bytes, options_.segment_bytes, elem_);
      Stream s{&step, x, tag, seg, (x.bytes + seg - 1) / seg, {}, reduce_here && after_sends, {}};
      if (reduce_here) {
        const std::size_t land = landing_bytes(step, x, options_.segment_bytes, elem_);
        s.landing = scratch_.slice(landing_offset, land);
        landing_offset += land;
      }
      to.push_back(s);
    };
    for (const Transfer& r : step.recvs) add(recvs_, r, step.reduce);
    for (const Transfer& x : step.sends) add(sends_, x, false);
  }
  // Segment k of every stream is posted once segment k - kWindow of that stream is done, so
  // each stream keeps kWindow segments in flight. Every rank posts index k before it waits
  // on index k - kWindow, which is why this cannot deadlock.
  std::size_t most = 0;
  for (const Stream& s : recvs_) most = std::max(most, s.segments);
  for (const Stream& s : sends_) most = std::max(most, s.segments);
  for (std::size_t k = 0; k < most + kWindow; ++k) {
    // Receives first, so no send ever waits for a receive that is not posted yet.
    for (Stream& s : recvs_) {
      if (k >= kWindow && k - kWindow < s.segments) finish_recv(s, k - kWindow);
      if (k >= s.segments) continue;
      comm_.set_phase(s.step->phase, s.step->dimension);
      const MutView target = s.range(buffer_, k);
      s.pending[k % kWindow] =
          comm_.irecv(s.transfer.peer, s.step->reduce ? s.slot(k, target.bytes) : target, s.tag);
    }
    for (Stream& s : sends_) {
      if (k >= kWindow && k - kWindow < s.segments) comm_.wait(s.pending[k % kWindow]);
      if (k >= s.segments) continue;
      comm_.set_phase(s.step->phase, s.step->dimension);
      s.pending[k % kWindow] =
          comm_.isend(s.transfer.peer, s.source(options_.send_from.value_or(buffer_), k), s.tag);
    }
  }
  // Every send of this step is complete: what they read may now be reduced into.
  for (Stream& s : recvs_) {
    if (!s.after_sends) continue;
    comm_.set_phase(s.step->phase, s.step->dimension);
    comm_.reduce(buffer_.slice(s.transfer.offset, s.transfer.bytes), s.landing, type_, op_);
  }
}

// Plays a run of alike steps until it ends or the backend ends it early (step_pacing.hpp): true
// then. `before` and `after`: steps of the same run played earlier and to come (a window).
bool play_run(StepPacing& pacing, StepPlayer& player, StepRun run, std::size_t before,
              std::size_t after) {
  const std::size_t length = before + (run.last - run.first) + after;
  if (before == 0) pacing.begin_alike_run(length);
  std::size_t left = length - before;
  for (std::size_t t = run.first; t < run.last; ++t) {
    player.play(t);
    if (pacing.alike_step_done(--left)) return true;  // the backend spent the time of `left`
  }
  return false;
}

}  // namespace

bool execute(Communicator& comm, MutView buffer, DType type, ReduceOp op,
             std::span<const Schedule> schedules, const ExecOptions& options) {
  DDL_CHECK(op != ReduceOp::avg, "execute() reduces with sum for avg; divide afterwards");
  if (!options.gates.empty()) {
    execute_independent(comm, buffer, type, op, schedules, options);
    return false;
  }
  const std::size_t elem = dtype_size(type);
  std::size_t steps = 0;
  for (const Schedule& s : schedules) steps = std::max(steps, s.size());

  std::size_t most_landing = 0;
  for (std::size_t t = 0; t < steps; ++t) {
    std::size_t landing = 0;
    for (const Schedule& s : schedules)
      if (t < s.size() && s[t].reduce)
        for (const Transfer& r : s[t].recvs)
          landing += landing_bytes(s[t], r, options.segment_bytes, elem);
    most_landing = std::max(most_landing, landing);
  }
  Scratch scratch(comm, most_landing);
  StepPlayer player(comm, buffer, type, op, schedules, options, scratch.view());

  StepPacing* pacing = options.uniform_runs ? comm.step_pacing() : nullptr;
  if (pacing == nullptr) {
    for (std::size_t t = 0; t < steps; ++t) player.play(t);
    return false;
  }
  const UniformRuns& window = *options.uniform_runs;
  const std::vector<StepRun> runs = alike_runs(schedules, elem);
  const bool windowed = window.before > 0 || window.after > 0;
  DDL_CHECK(!windowed || runs.size() == 1, "a window of a run that is not one run of alike steps");
  bool ended_early = false;
  for (const StepRun& run : runs)
    ended_early = play_run(*pacing, player, run, window.before, window.after);
  return windowed && ended_early;
}

}  // namespace ddl
