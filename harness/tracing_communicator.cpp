#include "harness/tracing_communicator.hpp"

#include <utility>

#include "algorithms/error.hpp"

namespace ddl::harness {

TracingCommunicator::TracingCommunicator(Communicator& inner, double clock_offset_s)
    : ForwardingCommunicator(inner), offset_s_(clock_offset_s) {
  if (OneSided* shared = inner.one_sided()) one_sided_.emplace(*shared, *this);
}

TracingCommunicator::TracingCommunicator(std::unique_ptr<Communicator> group, double clock_offset_s,
                                         std::vector<int> world_ranks)
    : ForwardingCommunicator(std::move(group)),
      offset_s_(clock_offset_s),
      world_ranks_(std::move(world_ranks)) {
  if (OneSided* shared = inner_.one_sided()) one_sided_.emplace(*shared, *this);
}

std::unique_ptr<Communicator> TracingCommunicator::split(int color, int key) {
  std::unique_ptr<Communicator> group = inner_.split(color, key);
  if (!group) return nullptr;
  const int me = group->rank();
  std::vector<int> world(static_cast<std::size_t>(group->size()), -1);
  world[static_cast<std::size_t>(me)] = world_rank(inner_.rank());
  std::vector<Request> exchange;
  for (int p = 0; p < group->size(); ++p) {
    if (p == me) continue;
    exchange.push_back(group->irecv(p, {&world[static_cast<std::size_t>(p)], sizeof(int)}, 0));
    exchange.push_back(group->isend(p, {&world[static_cast<std::size_t>(me)], sizeof(int)}, 0));
  }
  group->wait_all(exchange);
  for (int w : world)
    if (w < 0)
      throw InvalidArgument(
          "tracing a group needs its members' world ranks, which travel as message data; this "
          "backend moved none (a timing-only simulation: trace groups in payload mode)");
  auto traced =
      std::make_unique<TracingCommunicator>(std::move(group), offset_s_, std::move(world));
  traced->set_context(algo_, size_, iteration_);
  return traced;
}

void TracingCommunicator::set_context(const std::string& algo, std::size_t size, int iteration) {
  algo_ = algo;
  size_ = size;
  iteration_ = iteration;
  phase_.clear();
  dimension_ = -1;
}

std::vector<TraceEvent> TracingCommunicator::take_events() {
  // Open events would be left with no end: keep them (and their indices) for their waits.
  std::vector<TraceEvent> done, open;
  std::unordered_map<std::uint64_t, std::size_t> reindexed;
  std::unordered_map<std::size_t, std::uint64_t> id_of;
  for (const auto& [id, index] : open_) id_of[index] = id;
  for (std::size_t i = 0; i < events_.size(); ++i) {
    if (const auto it = id_of.find(i); it != id_of.end()) {
      reindexed[it->second] = open.size();
      open.push_back(std::move(events_[i]));
    } else {
      done.push_back(std::move(events_[i]));
    }
  }
  events_ = std::move(open);
  open_ = std::move(reindexed);
  return done;
}

TraceEvent& TracingCommunicator::begin(TraceKind kind, int peer, std::size_t bytes, int tag) {
  TraceEvent e;
  e.algo = algo_;
  e.size = size_;
  e.iteration = iteration_;
  e.rank = world_rank(inner_.rank());
  e.kind = kind;
  e.peer = world_rank(peer);
  e.bytes = bytes;
  e.tag = tag;
  e.phase = phase_;
  e.dimension = dimension_;
  e.start_us = stamp_us();
  events_.push_back(std::move(e));
  return events_.back();
}

Request TracingCommunicator::track(Request r) {
  if (r.pending())
    open_[r.id] = events_.size() - 1;
  else
    events_.back().end_us = stamp_us();
  return r;
}

Request TracingCommunicator::isend(int peer, ConstView data, int tag) {
  begin(TraceKind::send, peer, data.bytes, tag);
  return track(inner_.isend(peer, data, tag));
}

Request TracingCommunicator::irecv(int peer, MutView data, int tag) {
  begin(TraceKind::recv, peer, data.bytes, tag);
  return track(inner_.irecv(peer, data, tag));
}

Request TracingCommunicator::compute(double seconds) {
  begin(TraceKind::compute, -1, 0, -1);
  return track(inner_.compute(seconds));
}

void TracingCommunicator::wait(Request& r) {
  const std::uint64_t id = r.id;
  inner_.wait(r);
  if (const auto it = open_.find(id); it != open_.end()) {
    events_[it->second].end_us = stamp_us();
    open_.erase(it);
  }
}

void TracingCommunicator::wait_all(std::span<Request> rs) {
  std::vector<std::uint64_t> ids;
  for (const Request& r : rs) ids.push_back(r.id);
  inner_.wait_all(rs);
  const double end = stamp_us();
  for (std::uint64_t id : ids)
    if (const auto it = open_.find(id); it != open_.end()) {
      events_[it->second].end_us = end;
      open_.erase(it);
    }
}

std::size_t TracingCommunicator::wait_any(std::span<Request> rs) {
  std::vector<std::uint64_t> ids;
  for (const Request& r : rs) ids.push_back(r.id);
  const std::size_t done = inner_.wait_any(rs);
  if (const auto it = open_.find(ids[done]); it != open_.end()) {
    events_[it->second].end_us = stamp_us();
    open_.erase(it);
  }
  return done;
}

void TracingCommunicator::reduce(MutView inout, ConstView in, DType type, ReduceOp op) {
  around(TraceKind::reduce, -1, inout.bytes, [&] { inner_.reduce(inout, in, type, op); });
}

void TracingCommunicator::copy(MutView dst, ConstView src) {
  around(TraceKind::copy, -1, dst.bytes, [&] { inner_.copy(dst, src); });
}

void TracingCommunicator::divide(MutView inout, DType type, std::size_t divisor) {
  around(TraceKind::divide, -1, inout.bytes, [&] { inner_.divide(inout, type, divisor); });
}

void TracingCommunicator::TracedOneSided::get(int peer, const MemoryHandle& remote,
                                              std::size_t offset, MutView local) {
  tracer_.around(TraceKind::get, peer, local.bytes,
                 [&] { inner_.get(peer, remote, offset, local); });
}

void TracingCommunicator::TracedOneSided::put(int peer, const MemoryHandle& remote,
                                              std::size_t offset, ConstView local) {
  tracer_.around(TraceKind::put, peer, local.bytes,
                 [&] { inner_.put(peer, remote, offset, local); });
}

void TracingCommunicator::set_phase(const char* phase, int dimension) {
  phase_ = phase ? phase : "";
  dimension_ = dimension;
  inner_.set_phase(phase, dimension);
}

}  // namespace ddl::harness
