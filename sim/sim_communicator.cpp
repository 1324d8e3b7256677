#include "sim/sim_communicator.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <simgrid/Exception.hpp>
#include <string>

#include "algorithms/error.hpp"
#include "algorithms/host_reduce.hpp"
#include "algorithms/split_members.hpp"

namespace ddl::sim {

namespace {

// Payload-mode message block: the byte count, then the bytes.
struct MessageHeader {
  std::size_t bytes;
};

// Timing-only scratch lives at addresses from here up, 4 KiB-aligned with a gap between
// ranges: far from null, so a slice of a range is never mistaken for an address-less view.
constexpr std::uintptr_t kFirstFakeAddress = std::uintptr_t{1} << 32;
constexpr std::uintptr_t kFakeAlignment = 4096;

void* encode_size(std::size_t bytes) {
  // Timing-only messages carry no data; their pointer is the size + 1 (never null, so SimGrid
  // always delivers it) and lets the receiver check the size it expected.
  return reinterpret_cast<void*>(static_cast<std::uintptr_t>(bytes) + 1);
}
std::size_t decode_size(const void* p) {
  return static_cast<std::size_t>(reinterpret_cast<std::uintptr_t>(p) - 1);
}

std::uintptr_t address(const void* p) {
  return reinterpret_cast<std::uintptr_t>(p);
}

std::string describe(int rank, const char* op, int peer, int tag, std::size_t bytes) {
  return "rank " + std::to_string(rank) + ": " + op + " peer " + std::to_string(peer) + " tag " +
         std::to_string(tag) + " (" + std::to_string(bytes) + " bytes)";
}

std::shared_ptr<const std::vector<int>> all_ranks(const SimWorld& world) {
  std::shared_ptr<const std::vector<int>>& shared = world.groups->world_members;
  if (!shared) {
    std::vector<int> ranks(static_cast<std::size_t>(world.platform->ranks()));
    for (std::size_t i = 0; i < ranks.size(); ++i) ranks[i] = static_cast<int>(i);
    shared = std::make_shared<const std::vector<int>>(std::move(ranks));
  }
  return shared;
}

}  // namespace

SimCommunicator::SimCommunicator(const SimWorld& world, int rank)
    : SimCommunicator(world, 0, all_ranks(world), rank) {}

SimCommunicator::SimCommunicator(const SimWorld& world, std::uint64_t id,
                                 std::shared_ptr<const std::vector<int>> members, int group_rank)
    : world_(world),
      id_(id),
      members_(std::move(members)),
      group_rank_(group_rank),
      rank_(members_->at(static_cast<std::size_t>(group_rank))),
      size_(static_cast<int>(members_->size())),
      memory_bandwidth_(world.platform->memory_bandwidth.at(static_cast<std::size_t>(rank_))),
      pool_(
          [this](std::size_t bytes) {
            return world_.payload ? ::operator new(bytes) : fake_range(bytes);
          },
          [this](void* p) {
            if (world_.payload) ::operator delete(p);
          }),
      next_address_(kFirstFakeAddress),
      track_peer_read_(!world.platform->peer_read_factors.empty()),
      extrapolate_(world.platform->extrapolate_steps && !world.payload && !track_peer_read_),
      pacing_(id == 0 ? *world.runs : world.groups->runs[id], *world.platform->extrapolation,
              group_rank_, size_) {}

SimCommunicator::~SimCommunicator() {
  // Payload blocks of receives never waited for (an aborted run) would leak otherwise.
  for (Slot& s : slots_)
    if (s.kind == Kind::recv && world_.payload && s.received != nullptr) std::free(s.received);
}

double SimCommunicator::now() {
  return simgrid::s4u::Engine::get_clock();
}

int SimCommunicator::check_peer(int peer, const char* op) const {
  if (peer < 0 || peer >= size_ || peer == group_rank_)
    throw InvalidArgument("rank " + std::to_string(group_rank_) + ": " + op +
                          " with invalid peer " + std::to_string(peer) + " (" +
                          (id_ == 0 ? "world" : "group") + " size " + std::to_string(size_) + ")");
  return (*members_)[static_cast<std::size_t>(peer)];
}

simgrid::s4u::Mailbox* SimCommunicator::mailbox(int src, int dst, int tag) {
  const int peer = src == rank_ ? dst : src;
  const std::uint64_t key = (static_cast<std::uint64_t>(peer) << 33) |
                            (static_cast<std::uint64_t>(static_cast<std::uint32_t>(tag)) << 1) |
                            (src == rank_ ? 1u : 0u);
  auto [it, inserted] = mailboxes_.try_emplace(key, nullptr);
  if (inserted)
    it->second = simgrid::s4u::Mailbox::by_name(
        "ddl:" + (id_ == 0 ? "" : "g" + std::to_string(id_) + ":") + std::to_string(src) + ">" +
        std::to_string(dst) + "#" + std::to_string(tag));
  return it->second;
}

Request SimCommunicator::take_slot(Kind kind, int peer, int tag, Slot*& slot) {
  std::size_t index;
  if (!free_slots_.empty()) {
    index = free_slots_.back();
    free_slots_.pop_back();
  } else {
    index = slots_.size();
    slots_.emplace_back();
  }
  slot = &slots_[index];
  slot->kind = kind;
  slot->peer = peer;
  slot->tag = tag;
  slot->received = nullptr;
  slot->target = {};
  return Request{(static_cast<std::uint64_t>(slot->generation) << 32) | (index + 1)};
}

SimCommunicator::Slot& SimCommunicator::slot_of(const Request& r) {
  const std::size_t index = static_cast<std::size_t>(r.id & 0xffffffffu) - 1;
  const auto generation = static_cast<std::uint32_t>(r.id >> 32);
  if (index >= slots_.size() || slots_[index].kind == Kind::free ||
      slots_[index].generation != generation)
    throw InvalidArgument("rank " + std::to_string(rank_) +
                          ": wait on an unknown or completed request");
  return slots_[index];
}

Request SimCommunicator::isend(int group_peer, ConstView data, int tag) {
  const int peer = check_peer(group_peer, "isend");
  void* payload = encode_size(data.bytes);
  if (world_.payload) {
    if (data.data == nullptr && data.bytes > 0)
      throw InvalidArgument(describe(rank_, "isend to", peer, tag, data.bytes) +
                            ": null data in payload mode");
    auto* block = static_cast<MessageHeader*>(std::malloc(sizeof(MessageHeader) + data.bytes));
    if (block == nullptr)
      throw BackendError(describe(rank_, "isend to", peer, tag, data.bytes) + ": out of memory");
    block->bytes = data.bytes;
    if (data.bytes) std::memcpy(block + 1, data.data, data.bytes);
    payload = block;
  }
  simgrid::s4u::Mailbox* box = mailbox(rank_, peer, tag);
  double rate = -1;  // SimGrid's "no cap"
  if (track_peer_read_) {
    if (data.data) sent_.add(address(data.data), address(data.data) + data.bytes);
    PendingCaps& pending = (*world_.pending_caps)[box];
    if (pending.recvs > pending.sends) {  // the matching receive is posted: its cap is ours
      rate = pending.caps.front();
      pending.caps.pop_front();
    }
    ++pending.sends;
  }
  Slot* slot;
  const Request r = take_slot(Kind::send, peer, tag, slot);
  try {
    simgrid::s4u::CommPtr comm = box->put_init(payload, data.bytes);
    if (rate > 0) comm->set_rate(rate);
    slot->activity = comm->start();
  } catch (const simgrid::Exception& e) {
    if (world_.payload) std::free(payload);
    throw BackendError(describe(rank_, "isend to", peer, tag, data.bytes) + ": " + e.what());
  }
  return r;
}

Request SimCommunicator::irecv(int group_peer, MutView data, int tag) {
  const int peer = check_peer(group_peer, "irecv");
  if (world_.payload && data.data == nullptr && data.bytes > 0)
    throw InvalidArgument(describe(rank_, "irecv from", peer, tag, data.bytes) +
                          ": null data in payload mode");
  simgrid::s4u::Mailbox* box = mailbox(peer, rank_, tag);
  double rate = -1;  // SimGrid's "no cap"
  if (track_peer_read_) {
    if (data.data && data.bytes) {
      const double share = sent_share(sent_, address(data.data), data.bytes);
      written(data.data, data.bytes);
      if (share > 0) rate = peer_read_rate(peer, data.bytes, share);
    }
    PendingCaps& pending = (*world_.pending_caps)[box];
    if (++pending.recvs > pending.sends) {  // posted before its send: the send applies the cap
      pending.caps.push_back(rate);
      rate = -1;
    }
  }
  Slot* slot;
  const Request r = take_slot(Kind::recv, peer, tag, slot);
  slot->target = data;
  try {
    simgrid::s4u::CommPtr comm = box->get_init()->set_dst_data(&slot->received, sizeof(void*));
    if (rate > 0) comm->set_rate(rate);
    slot->activity = comm->start();
  } catch (const simgrid::Exception& e) {
    throw BackendError(describe(rank_, "irecv from", peer, tag, data.bytes) + ": " + e.what());
  }
  return r;
}

void SimCommunicator::finish_recv(Slot& s) {
  const std::size_t sent =
      world_.payload ? static_cast<MessageHeader*>(s.received)->bytes : decode_size(s.received);
  if (sent != s.target.bytes) {
    if (world_.payload) std::free(s.received);
    s.received = nullptr;
    throw InvalidArgument(describe(rank_, "irecv from", s.peer, s.tag, s.target.bytes) +
                          ": the matching send has " + std::to_string(sent) + " bytes");
  }
  if (world_.payload) {
    if (sent) std::memcpy(s.target.data, static_cast<MessageHeader*>(s.received) + 1, sent);
    std::free(s.received);
  }
  s.received = nullptr;
}

void SimCommunicator::wait(Request& r) {
  if (!r.pending()) return;
  Slot& s = slot_of(r);
  if (s.kind == Kind::switch_op) {
    const std::shared_ptr<SwitchOp> op = std::move(s.switch_op);
    s.kind = Kind::free;
    ++s.generation;
    free_slots_.push_back(static_cast<std::uint32_t>((r.id & 0xffffffffu) - 1));
    r = Request{};
    wait_switch_op(*op);
    return;
  }
  try {
    s.activity->wait();
  } catch (const simgrid::Exception& e) {
    throw BackendError(describe(rank_,
                                s.kind == Kind::send ? "wait for send to" : "wait for recv from",
                                s.peer, s.tag, s.target.bytes) +
                       ": " + e.what());
  }
  s.activity = nullptr;
  const Kind kind = s.kind;
  s.kind = Kind::free;
  ++s.generation;
  free_slots_.push_back(static_cast<std::uint32_t>((r.id & 0xffffffffu) - 1));
  r = Request{};
  if (kind == Kind::recv) finish_recv(s);  // the slot stays intact until reused
}

std::size_t SimCommunicator::wait_any(std::span<Request> rs) {
  std::vector<simgrid::s4u::ActivityPtr> activities;
  std::vector<std::size_t> index;
  for (std::size_t i = 0; i < rs.size(); ++i) {
    if (!rs[i].pending()) continue;
    // An in-switch collective completes through its switch's condition variable, not an
    // activity; no algorithm plays one beside others (wait() it).
    DDL_CHECK(slot_of(rs[i]).kind != Kind::switch_op,
              "wait_any on an in-switch collective: wait() for it alone");
    activities.push_back(slot_of(rs[i]).activity);
    index.push_back(i);
  }
  DDL_CHECK(!activities.empty(), "wait_any without a pending request");
  ssize_t done = -1;
  try {
    done = simgrid::s4u::Activity::wait_any(activities);
  } catch (const simgrid::Exception& e) {
    throw BackendError("rank " + std::to_string(rank_) + ": wait for any of " +
                       std::to_string(activities.size()) + " requests: " + e.what());
  }
  DDL_CHECK(done >= 0, "wait_any: SimGrid returned no activity");
  const std::size_t i = index[static_cast<std::size_t>(done)];
  wait(rs[i]);  // complete: finishes the receive as wait() does
  return i;
}

void SimCommunicator::spend_memory_time(double bytes_touched, std::size_t op_bytes) {
  if (bytes_touched <= 0) return;
  const double bandwidth =
      memory_bandwidth_ *
      factor_at(world_.platform->memory_factors,
                world_.platform->memory_factor_key(static_cast<double>(op_bytes)));
  try {
    simgrid::s4u::this_actor::sleep_for(bytes_touched / bandwidth);
  } catch (const simgrid::Exception& e) {
    throw BackendError("rank " + std::to_string(rank_) + ": local memory work: " + e.what());
  }
}

void SimCommunicator::written(const void* data, std::size_t bytes) {
  if (track_peer_read_ && data) sent_.remove(address(data), address(data) + bytes);
}

void SimCommunicator::note_written(ConstView data) {
  written(data.data, data.bytes);
}

double SimCommunicator::peer_read_rate(int peer, std::size_t bytes, double share) {
  const Platform& platform = *world_.platform;
  const double ratio =
      peer_read_ratio(peer_read_factor(platform, peer, rank_, static_cast<double>(bytes)), share);
  if (ratio <= 1) return -1;
  auto [route, inserted] = routes_.try_emplace(peer);
  if (inserted) route->second = route_cost(platform, peer, rank_);
  const Platform::MessageFactors f = platform.message_factors(peer, rank_);
  const PieceTime alone =
      piece_time(f.latency, f.bandwidth, static_cast<double>(bytes), *platform.footprint_bytes,
                 route->second.latency, route->second.bandwidth);
  // Capped at r, the message takes latency + bytes / r (a cap below what the route gives it).
  return static_cast<double>(bytes) / (ratio * (alone.latency + alone.transfer) - alone.latency);
}

void* SimCommunicator::fake_range(std::size_t bytes) {
  void* start = reinterpret_cast<void*>(next_address_);
  next_address_ += (bytes + 2 * kFakeAlignment - 1) / kFakeAlignment * kFakeAlignment;
  return start;
}

void SimCommunicator::reduce(MutView inout, ConstView in, DType type, ReduceOp op) {
  DDL_CHECK(inout.bytes == in.bytes, "reduce of views of different sizes");
  DDL_CHECK(inout.bytes % dtype_size(type) == 0, "reduce of a partial element");
  written(inout.data, inout.bytes);
  if (world_.payload && inout.bytes)
    host_reduce(inout.data, in.data, inout.bytes / dtype_size(type), type, op);
  spend_memory_time(3.0 * static_cast<double>(inout.bytes), inout.bytes);
}

void SimCommunicator::copy(MutView dst, ConstView src) {
  DDL_CHECK(dst.bytes == src.bytes, "copy between views of different sizes");
  written(dst.data, dst.bytes);
  if (world_.payload && dst.bytes) std::memmove(dst.data, src.data, dst.bytes);
  spend_memory_time(2.0 * static_cast<double>(dst.bytes), dst.bytes);
}

bool SimCommunicator::shares_memory_with(int group_peer) const {
  const std::vector<HostPlace>& places = world_.platform->places;
  if (group_peer < 0 || group_peer >= size_ || group_peer == group_rank_ || places.empty())
    return false;
  const int peer = (*members_)[static_cast<std::size_t>(group_peer)];
  return places[static_cast<std::size_t>(peer)].node ==
         places[static_cast<std::size_t>(rank_)].node;
}

MemoryHandle SimCommunicator::handle(MutView buffer) {
  return {address(buffer.data), buffer.bytes, static_cast<std::uint64_t>(rank_)};
}

void SimCommunicator::remote_copy(bool is_get, int group_peer, const MemoryHandle& remote,
                                  std::size_t offset, void* local, std::size_t bytes) {
  const char* op = is_get ? "get" : "put";
  const int peer = check_peer(group_peer, op);
  if (!shares_memory_with(group_peer))
    throw InvalidArgument(std::string(op) + ": rank " + std::to_string(rank_) +
                          " does not share memory with rank " + std::to_string(peer) +
                          " (another node of the platform)");
  // Timing-only messages carry no bytes, so there the handle never arrives: nothing to check.
  if (world_.payload) check_remote_range(remote, offset, bytes, op, peer);
  simgrid::s4u::Host* here = world_.platform->gpus[static_cast<std::size_t>(rank_)];
  simgrid::s4u::Host* there = world_.platform->gpus[static_cast<std::size_t>(peer)];
  try {
    simgrid::s4u::Comm::sendto(is_get ? there : here, is_get ? here : there, bytes);
  } catch (const simgrid::Exception& e) {
    throw BackendError(describe(rank_, op, peer, -1, bytes) + ": " + e.what());
  }
  if (!world_.payload || bytes == 0) return;
  // Payload mode: every rank is an actor of this process, so the handle is a pointer here.
  auto* far = reinterpret_cast<std::byte*>(static_cast<std::uintptr_t>(remote.address)) + offset;
  if (is_get)
    std::memcpy(local, far, bytes);
  else
    std::memcpy(far, local, bytes);
}

void SimCommunicator::get(int peer, const MemoryHandle& remote, std::size_t offset, MutView local) {
  written(local.data, local.bytes);
  remote_copy(true, peer, remote, offset, local.data, local.bytes);
}

void SimCommunicator::put(int peer, const MemoryHandle& remote, std::size_t offset,
                          ConstView local) {
  remote_copy(false, peer, remote, offset, const_cast<void*>(local.data), local.bytes);
}

void SimCommunicator::divide(MutView inout, DType type, std::size_t divisor) {
  DDL_CHECK(inout.bytes % dtype_size(type) == 0, "divide of a partial element");
  written(inout.data, inout.bytes);
  if (world_.payload && inout.bytes)
    host_divide(inout.data, inout.bytes / dtype_size(type), type, divisor);
  spend_memory_time(2.0 * static_cast<double>(inout.bytes), inout.bytes);
}

MutView SimCommunicator::acquire_scratch(std::size_t bytes) {
  return pool_.acquire(bytes);
}

void SimCommunicator::release_scratch(MutView scratch) {
  pool_.release(scratch);
}

Request SimCommunicator::compute(double seconds) {
  DDL_CHECK(seconds >= 0, "compute of a negative duration");
  Slot* slot;
  const Request r = take_slot(Kind::exec, -1, 0, slot);
  try {
    slot->activity = simgrid::s4u::this_actor::exec_async(
        seconds * simgrid::s4u::this_actor::get_host()->get_speed());
  } catch (const simgrid::Exception& e) {
    throw BackendError("rank " + std::to_string(rank_) + ": compute: " + e.what());
  }
  return r;
}

std::unique_ptr<Communicator> SimCommunicator::split(int color, int key) {
  const std::uint64_t index = splits_++;
  SimGroups& groups = *world_.groups;
  const std::pair<std::uint64_t, std::uint64_t> at{id_, index};
  // The first rank to arrive opens the table; actors run one at a time, so no lock.
  SimGroups::Exchange& opened = groups.exchanges[at];
  if (!opened.barrier) {
    opened.barrier = simgrid::s4u::Barrier::create(static_cast<unsigned>(size_));
    opened.color_key.resize(static_cast<std::size_t>(size_));
    opened.readers_left = size_;
  }
  opened.color_key[static_cast<std::size_t>(group_rank_)] = {color, key};
  const simgrid::s4u::BarrierPtr barrier = opened.barrier;
  try {
    barrier->wait();
  } catch (const simgrid::Exception& e) {
    throw BackendError("rank " + std::to_string(group_rank_) + ": split: " + e.what());
  }
  SimGroups::Exchange& full = groups.exchanges.at(at);
  std::shared_ptr<const std::vector<int>> members;
  if (color >= 0) {
    // The first member of a color to get here lists the members for the others: one pass over
    // the table per color, not per rank (a 16,384-rank split would take seconds otherwise).
    auto [listed, fresh] = full.members.try_emplace(color);
    if (fresh)
      listed->second = std::make_shared<const std::vector<int>>(
          split_members(full.color_key, *members_, group_rank_, color).members);
    members = listed->second;
  }
  if (--full.readers_left == 0) groups.exchanges.erase(at);
  if (color < 0) return nullptr;
  const int rank =
      static_cast<int>(std::find(members->begin(), members->end(), rank_) - members->begin());
  // Ids start after the world's 0; the first member to ask allocates, the others find it.
  const std::uint64_t id =
      groups.ids.try_emplace({id_, index, color}, groups.ids.size() + 1).first->second;
  return std::unique_ptr<Communicator>(new SimCommunicator(world_, id, std::move(members), rank));
}

std::vector<int> SimCommunicator::switch_domain(int level) const {
  if (level < 0 || level >= kSwitchLevels) return {};
  const int i = world_.platform->switch_of.at(
      static_cast<std::size_t>(rank_))[static_cast<std::size_t>(level)];
  if (i < 0) return {};
  return world_.platform->switches[static_cast<std::size_t>(i)].members;
}

Request SimCommunicator::switch_collective(int level, SwitchCollective kind, MutView data,
                                           DType type, ReduceOp op) {
  const std::string who = "rank " + std::to_string(rank_) + ": in-switch collective";
  if (level < 0 || level >= kSwitchLevels)
    throw InvalidArgument(who + ": no level " + std::to_string(level) + " (0 node, 1 network)");
  const int index = world_.platform->switch_of.at(
      static_cast<std::size_t>(rank_))[static_cast<std::size_t>(level)];
  if (index < 0)
    throw InvalidArgument(who + ": no switch of level " + std::to_string(level) +
                          " serves this rank on platform '" + world_.platform->file + "'");
  if (op == ReduceOp::avg)
    throw InvalidArgument(who + ": avg (reduce with sum and divide afterwards)");
  if (data.bytes % dtype_size(type) != 0)
    throw InvalidArgument(who + ": " + std::to_string(data.bytes) + " bytes are no whole " +
                          std::string(to_string(type)) + " elements");
  if (world_.payload && data.data == nullptr && data.bytes > 0)
    throw InvalidArgument(who + ": null data in payload mode");
  const SwitchDomain& domain = world_.platform->switches[static_cast<std::size_t>(index)];
  if (world_.switches->size() < world_.platform->switches.size())
    world_.switches->resize(world_.platform->switches.size());
  const auto member =
      static_cast<int>(std::lower_bound(domain.members.begin(), domain.members.end(), rank_) -
                       domain.members.begin());
  // The switch writes the result into these bytes: none of them was last sent by this rank.
  written(data.data, data.bytes);
  Slot* slot;
  const Request r = take_slot(Kind::switch_op, -1, 0, slot);
  slot->switch_op =
      join_switch_op(domain, (*world_.switches)[static_cast<std::size_t>(index)], member, kind,
                     data, type, op, world_.payload, world_.platform->gpus);
  return r;
}

}  // namespace ddl::sim
