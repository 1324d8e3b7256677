#include "sim/switch_model.hpp"

#include <algorithm>
#include <charconv>
#include <cstring>
#include <mutex>
#include <set>
#include <simgrid/Exception.hpp>

#include "algorithms/error.hpp"
#include "algorithms/host_reduce.hpp"
#include "algorithms/registry.hpp"
#include "algorithms/switch_chunks.hpp"
#include "calibrate/platform_properties.hpp"
#include "sim/platform.hpp"
#include "sim/quantity.hpp"

namespace ddl::sim {

namespace prop = platform_property;

namespace {

std::string where(const std::string& file, const simgrid::s4u::Host* h, const char* property) {
  return "platform file '" + file + "': switch host '" + h->get_name() + "': " + property;
}

const char* required(const std::string& file, const simgrid::s4u::Host* h, const char* property) {
  const char* text = h->get_property(property);
  if (text == nullptr) throw InvalidArgument(where(file, h, property) + " is missing");
  return text;
}

template <class T>
bool parse_whole(std::string_view s, T& value) {
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  return !s.empty() && ec == std::errc() && end == s.data() + s.size();
}

std::vector<int> parse_members(const std::string& file, const simgrid::s4u::Host* h, int ranks) {
  const std::string text = required(file, h, prop::kSwitchMembers);
  std::vector<int> members;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t end = std::min(text.find(',', start), text.size());
    int r = -1;
    if (!parse_whole(std::string_view(text).substr(start, end - start), r) || r < 0 || r >= ranks)
      throw InvalidArgument(where(file, h, prop::kSwitchMembers) + " '" + text +
                            "': members are ranks 0.." + std::to_string(ranks - 1) +
                            ", comma-separated");
    members.push_back(r);
    start = end + 1;
  }
  std::sort(members.begin(), members.end());
  if (std::adjacent_find(members.begin(), members.end()) != members.end())
    throw InvalidArgument(where(file, h, prop::kSwitchMembers) + " '" + text +
                          "' names a rank twice");
  return members;
}

// Moves chunk `c` one way for every member `moves` selects; the transfers, to wait for.
template <class Moves>
std::vector<simgrid::s4u::CommPtr> start_transfers(const SwitchDomain& d,
                                                   const std::vector<simgrid::s4u::Host*>& gpus,
                                                   const SwitchChunk& c, bool up, Moves moves) {
  std::vector<simgrid::s4u::CommPtr> comms;
  for (std::size_t m = 0; m < d.members.size(); ++m) {
    if (!moves(c, static_cast<int>(m))) continue;
    simgrid::s4u::Host* gpu = gpus[static_cast<std::size_t>(d.members[m])];
    comms.push_back(up ? simgrid::s4u::Comm::sendto_async(gpu, d.host, c.range.bytes)
                       : simgrid::s4u::Comm::sendto_async(d.host, gpu, c.range.bytes));
  }
  return comms;
}

// The switch's actor for one operation: algorithms/switch_chunks.hpp's timeline, played.
void play(const SwitchDomain& d, SwitchOp& op, bool payload,
          const std::vector<simgrid::s4u::Host*>& gpus) {
  const std::size_t elem = dtype_size(op.type);
  const int m = static_cast<int>(d.members.size());
  const std::vector<SwitchChunk> chunks =
      switch_chunks(op.kind, op.bytes / elem, elem, m, d.chunk_bytes);
  const SwitchCollective kind = op.kind;
  auto up_moves = [kind](const SwitchChunk& c, int member) { return sends_up(kind, c, member); };
  auto down_moves = [kind](const SwitchChunk& c, int member) {
    return receives_down(kind, c, member);
  };
  // Two results: chunk c's is reduced while chunk c-1's is still on its way down.
  std::array<std::vector<std::byte>, 2> result;
  if (payload)
    for (auto& r : result) r.resize(chunks.empty() ? 0 : chunks.front().range.bytes);
  auto gather = [&](const SwitchChunk& c, std::vector<std::byte>& into) {
    bool first = true;
    for (int i = 0; i < m; ++i) {
      if (!sends_up(kind, c, i)) continue;
      const auto* src =
          static_cast<const std::byte*>(op.buffers[static_cast<std::size_t>(i)]) + c.range.offset;
      if (first)
        std::memcpy(into.data(), src, c.range.bytes);
      else
        host_reduce(into.data(), src, c.range.bytes / elem, op.type, op.op);
      first = false;
    }
  };
  auto deliver = [&](const SwitchChunk& c, const std::vector<std::byte>& from) {
    for (int i = 0; i < m; ++i)
      if (receives_down(kind, c, i))
        std::memcpy(
            static_cast<std::byte*>(op.buffers[static_cast<std::size_t>(i)]) + c.range.offset,
            from.data(), c.range.bytes);
  };
  std::vector<simgrid::s4u::CommPtr> up, down;
  if (!chunks.empty()) up = start_transfers(d, gpus, chunks[0], true, up_moves);
  for (std::size_t c = 0; c < chunks.size(); ++c) {
    simgrid::s4u::Comm::wait_all(up);
    if (payload) gather(chunks[c], result[c % 2]);
    if (c + 1 < chunks.size()) up = start_transfers(d, gpus, chunks[c + 1], true, up_moves);
    if (reduces(kind))
      simgrid::s4u::this_actor::sleep_for(
          static_cast<double>(m) * static_cast<double>(chunks[c].range.bytes) / d.reduce_rate);
    simgrid::s4u::Comm::wait_all(down);
    if (payload && c > 0) deliver(chunks[c - 1], result[(c - 1) % 2]);
    down = start_transfers(d, gpus, chunks[c], false, down_moves);
  }
  simgrid::s4u::Comm::wait_all(down);
  if (payload && !chunks.empty()) deliver(chunks.back(), result[(chunks.size() - 1) % 2]);
}

void finish(SwitchOp& op) {
  const std::unique_lock<simgrid::s4u::Mutex> lock(*op.mutex);
  op.done = true;
  op.finished->notify_all();
}

}  // namespace

bool is_switch_host(const simgrid::s4u::Host* host) {
  return host->get_property(prop::kSwitchLevel) != nullptr;
}

std::vector<SwitchDomain> read_switch_domains(simgrid::s4u::Engine& engine,
                                              const std::vector<simgrid::s4u::Host*>& gpus,
                                              const std::string& file) {
  std::vector<SwitchDomain> domains;
  std::array<std::set<int>, kSwitchLevels> served;
  const int ranks = static_cast<int>(gpus.size());
  for (simgrid::s4u::Host* h : engine.get_all_hosts()) {
    if (!is_switch_host(h)) continue;
    SwitchDomain d;
    d.host = h;
    const std::string level = required(file, h, prop::kSwitchLevel);
    if (!parse_whole(std::string_view(level), d.level) || d.level < 0 || d.level >= kSwitchLevels)
      throw InvalidArgument(where(file, h, prop::kSwitchLevel) + " '" + level +
                            "' is no level (0: the node's switch, 1: the network's)");
    if (h->get_property(prop::kRank))
      throw InvalidArgument(where(file, h, prop::kRank) +
                            ": a switch's host runs no rank (its GPUs' hosts do)");
    d.members = parse_members(file, h, ranks);
    for (int r : d.members)
      if (!served[static_cast<std::size_t>(d.level)].insert(r).second)
        throw InvalidArgument(where(file, h, prop::kSwitchMembers) + ": rank " + std::to_string(r) +
                              " is served by another switch of level " + level + " already");
    const std::string rate = required(file, h, prop::kSwitchReduceRate);
    const QuantityRange range = quantity_range(Quantity::bandwidth);
    if (!parse_quantity(rate, Quantity::bandwidth, d.reduce_rate) ||
        !(d.reduce_rate >= range.low && d.reduce_rate <= range.high))
      throw InvalidArgument(where(file, h, prop::kSwitchReduceRate) + " '" + rate +
                            "' is no bandwidth in " + range.text + " (input bytes/s)");
    const std::string chunk = required(file, h, prop::kSwitchChunk);
    if (!parse_whole(std::string_view(chunk), d.chunk_bytes) || d.chunk_bytes == 0)
      throw InvalidArgument(where(file, h, prop::kSwitchChunk) + " '" + chunk +
                            "' is no positive byte count");
    for (int r : d.members) {
      std::vector<simgrid::s4u::Link*> links;
      double latency = 0;
      const simgrid::s4u::Host* gpu = gpus[static_cast<std::size_t>(r)];
      try {
        gpu->route_to(h, links, &latency);
      } catch (const std::exception& e) {
        throw InvalidArgument(where(file, h, prop::kSwitchMembers) + ": no route from rank " +
                              std::to_string(r) + " (" + gpu->get_name() + "): " + e.what());
      }
      if (links.empty())
        throw InvalidArgument(where(file, h, prop::kSwitchMembers) + ": rank " + std::to_string(r) +
                              " (" + gpu->get_name() + ") reaches it over no link");
    }
    domains.push_back(std::move(d));
  }
  return domains;
}

std::shared_ptr<SwitchOp> join_switch_op(const SwitchDomain& domain, SwitchState& state, int member,
                                         SwitchCollective kind, MutView data, DType type,
                                         ReduceOp op, bool payload,
                                         const std::vector<simgrid::s4u::Host*>& gpus) {
  const int m = static_cast<int>(domain.members.size());
  // Creating the operation's mutex and condition variable are simcalls, which let the other
  // actors run: made before the state is looked at, so nothing below yields halfway.
  auto fresh = std::make_shared<SwitchOp>();
  if (state.calls.empty()) state.calls.assign(static_cast<std::size_t>(m), 0);
  const std::uint64_t index = state.calls[static_cast<std::size_t>(member)]++;
  std::shared_ptr<SwitchOp>& slot = state.ops[index];
  if (!slot) {
    slot = std::move(fresh);
    slot->kind = kind;
    slot->bytes = data.bytes;
    slot->type = type;
    slot->op = op;
    slot->buffers.assign(static_cast<std::size_t>(m), nullptr);
  } else if (slot->error.empty() && (slot->kind != kind || slot->bytes != data.bytes ||
                                     slot->type != type || slot->op != op)) {
    slot->error = "in-switch collective " + std::to_string(index) + " of the switch on host '" +
                  domain.host->get_name() + "': rank " +
                  std::to_string(domain.members[static_cast<std::size_t>(member)]) +
                  " calls it with " + std::to_string(data.bytes) + " bytes of " +
                  std::string(to_string(type)) + " " + std::string(to_string(op)) +
                  ", another member with " + std::to_string(slot->bytes) + " bytes of " +
                  std::string(to_string(slot->type)) + " " + std::string(to_string(slot->op)) +
                  " (or another kind)";
  }
  std::shared_ptr<SwitchOp> joined = slot;
  joined->buffers[static_cast<std::size_t>(member)] = data.data;
  if (++joined->joined < m) return joined;
  state.ops.erase(index);
  if (!joined->error.empty()) {
    finish(*joined);
    return joined;
  }
  simgrid::s4u::Actor::create("switch@" + domain.host->get_name(), domain.host,
                              [&domain, joined, payload, &gpus] {
                                try {
                                  play(domain, *joined, payload, gpus);
                                } catch (const simgrid::Exception& e) {
                                  joined->error = std::string("in-switch collective on host '") +
                                                  domain.host->get_name() + "': " + e.what();
                                }
                                finish(*joined);
                              });
  return joined;
}

void wait_switch_op(SwitchOp& op) {
  std::unique_lock<simgrid::s4u::Mutex> lock(*op.mutex);
  while (!op.done) op.finished->wait(lock);
  if (!op.error.empty()) throw InvalidArgument(op.error);
}

unsigned switch_levels(const Platform& platform) {
  unsigned levels = 0;
  for (int level = 0; level < kSwitchLevels; ++level) {
    bool all = !platform.switch_of.empty();
    for (const auto& of : platform.switch_of) all = all && of[static_cast<std::size_t>(level)] >= 0;
    if (all) levels |= 1u << level;
  }
  return levels;
}

void require_in_switch(const Platform& platform, const std::vector<std::string>& algos) {
  for (const std::string& name : algos) {
    if (find_algorithm(name).needs_native_library)
      throw InvalidArgument(name.substr(0, name.find(':')) +
                            ": the simulator has no collective library of its own (native is "
                            "MPI_Allreduce: ddlrun runs it on the MPI backend)");
    const unsigned missing = find_algorithm(name).needs_in_switch & ~switch_levels(platform);
    if (missing == 0) continue;
    const int level = (missing & (1u << kNodeSwitch)) ? kNodeSwitch : kNetworkSwitch;
    int rank = 0;
    while (rank + 1 < platform.ranks() &&
           platform.switch_of[static_cast<std::size_t>(rank)][static_cast<std::size_t>(level)] >= 0)
      ++rank;
    throw InvalidArgument(
        name.substr(0, name.find(':')) + ": platform '" + platform.file +
        "' has no in-switch reduction in " +
        (level == kNodeSwitch ? "the node's switch (NVLS)" : "the network's switches (SHARP)") +
        " for rank " + std::to_string(rank) +
        " (platforms/README.md: a description's in_switch_reduction)");
  }
}

}  // namespace ddl::sim
