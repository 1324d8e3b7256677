#include "algorithms/model_choice.hpp"

#include <functional>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "algorithms/cost_model.hpp"

namespace ddl {

namespace {

// Everything best_algorithm's answer depends on when the figures are plain numbers.
struct ChoiceKey {
  Collective collective = Collective::allreduce;
  std::vector<int> dims;
  std::size_t bytes = 0;
  int rings = 1, channels = 1, chunks = 1;
  std::size_t segment_bytes = 0;
  HdOrder order = HdOrder::near;
  double gamma = 0;
  std::vector<IntraMethod> methods;
  std::vector<LinkCost> links;
  bool operator==(const ChoiceKey& o) const {
    auto same_links = [&] {
      for (std::size_t i = 0; i < links.size(); ++i)
        if (links[i].alpha != o.links[i].alpha || links[i].beta != o.links[i].beta ||
            links[i].shared_memory != o.links[i].shared_memory ||
            links[i].rendezvous_bytes != o.links[i].rendezvous_bytes)
          return false;
      return true;
    };
    return collective == o.collective && dims == o.dims && bytes == o.bytes && rings == o.rings &&
           channels == o.channels && chunks == o.chunks && segment_bytes == o.segment_bytes &&
           order == o.order && gamma == o.gamma && methods == o.methods &&
           links.size() == o.links.size() && same_links();
  }
};

struct ChoiceKeyHash {
  std::size_t operator()(const ChoiceKey& k) const {
    std::size_t h = std::hash<std::size_t>{}(k.bytes);
    auto mix = [&h](std::size_t v) { h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2); };
    mix(static_cast<std::size_t>(k.collective));
    for (int d : k.dims) mix(static_cast<std::size_t>(d));
    mix(static_cast<std::size_t>(k.rings));
    mix(static_cast<std::size_t>(k.channels));
    mix(static_cast<std::size_t>(k.chunks));
    mix(k.segment_bytes);
    mix(static_cast<std::size_t>(k.order));
    mix(std::hash<double>{}(k.gamma));
    for (IntraMethod m : k.methods) mix(static_cast<std::size_t>(m));
    for (const LinkCost& l : k.links)
      mix(std::hash<double>{}(l.alpha) ^ std::hash<double>{}(l.beta) ^ l.shared_memory ^
          (l.rendezvous_bytes << 1));
    return h;
  }
};

}  // namespace

// best_algorithm, remembered: every rank asks the same question (and a training run asks it
// per bucket), and pricing builds every rank's schedules. Only plain figures are remembered:
// with per-size or peer-read callbacks the figures are not all in the key. The key is compared
// field by field, not formatted: this lookup is on the latency path of every auto collective
// (a key printed to a string cost 1.2 us per call, more than a 4 KB allreduce between two ranks).
const Algorithm& model_choice(Collective collective, const Dims& dims, const CostParams& c,
                              std::size_t bytes, const Options& o) {
  // In-switch figures are not in the key either (one platform has them, so none is remembered).
  if (c.message || c.peer_read || c.in_switch[0].members || c.in_switch[1].members)
    return find_algorithm(best_algorithm(collective, dims, c, bytes, o));
  // Built in place each call, so a lookup that hits allocates nothing once the vectors have grown.
  thread_local ChoiceKey key;
  key.collective = collective;
  key.dims = dims.extents();
  key.bytes = bytes;
  key.rings = o.rings;
  key.channels = o.channels;
  key.chunks = o.chunks;
  key.segment_bytes = o.segment_bytes;
  key.order = o.hd_order;
  key.gamma = c.gamma;
  key.methods = o.methods;
  key.links = c.per_dim;
  static std::mutex lock;
  static std::unordered_map<ChoiceKey, const Algorithm*, ChoiceKeyHash> chosen;
  {
    const std::lock_guard<std::mutex> guard(lock);
    if (const auto it = chosen.find(key); it != chosen.end()) return *it->second;
  }
  const Algorithm& best = find_algorithm(best_algorithm(collective, dims, c, bytes, o));
  const std::lock_guard<std::mutex> guard(lock);
  chosen.emplace(key, &best);
  return best;
}

}  // namespace ddl
