#include "sim/platform_classes.hpp"

#include <algorithm>
#include <charconv>
#include <memory>
#include <simgrid/kernel/resource/NetworkModelIntf.hpp>
#include <simgrid/s4u.hpp>
#include <unordered_map>
#include <unordered_set>

#include "algorithms/error.hpp"
#include "algorithms/registry.hpp"
#include "calibrate/platform_properties.hpp"

namespace ddl::sim {
namespace {

namespace prop = platform_property;

// A host's ddl_node or ddl_leaf: a non-negative integer.
int parse_place(const std::string& file, const std::string& host, const char* property,
                const char* text) {
  int value = -1;
  const std::string_view t(text);
  const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), value);
  if (t.empty() || ec != std::errc() || end != t.data() + t.size() || value < 0)
    throw InvalidArgument("platform file '" + file + "': host '" + host + "': " + property + " '" +
                          text + "' is not a non-negative integer");
  return value;
}

}  // namespace

// The root zone's factor property, parsed, or an empty table when absent.
FactorTable read_root_factors(simgrid::s4u::Engine& engine, const std::string& file,
                              const char* property, bool allow_zero) {
  const char* text = engine.get_netzone_root()->get_property(property);
  if (text == nullptr) return {};
  try {
    return parse_factors(text, allow_zero);
  } catch (const InvalidArgument& e) {
    throw InvalidArgument("platform file '" + file + "': " + property + " property: " + e.what());
  }
}

bool read_places_and_class_factors(simgrid::s4u::Engine& engine, Platform& p) {
  const std::string& file = p.file;
  const char* const names[kMessageClasses][2] = {{prop::kNodeLatFactors, prop::kNodeBwFactors},
                                                 {prop::kLeafLatFactors, prop::kLeafBwFactors},
                                                 {prop::kSpineLatFactors, prop::kSpineBwFactors}};
  std::size_t placed = 0;
  for (const simgrid::s4u::Host* h : p.gpus) {
    const char* node = h->get_property(prop::kNode);
    const char* leaf = h->get_property(prop::kLeaf);
    if ((node == nullptr) != (leaf == nullptr))
      throw InvalidArgument("platform file '" + file + "': host '" + h->get_name() + "' has " +
                            (node ? prop::kNode : prop::kLeaf) + " but no " +
                            (node ? prop::kLeaf : prop::kNode));
    if (node) ++placed;
  }
  if (placed == 0) {
    for (const auto& pair : names)
      for (const char* name : pair)
        if (engine.get_netzone_root()->get_property(name))
          throw InvalidArgument("platform file '" + file + "': " + name + " needs GPU hosts with " +
                                prop::kNode + " and " + prop::kLeaf +
                                " (the class of a message is that of its hosts)");
    return false;
  }
  if (placed != p.gpus.size())
    throw InvalidArgument("platform file '" + file + "': " + std::to_string(placed) + " of " +
                          std::to_string(p.gpus.size()) + " GPU hosts carry " + prop::kNode +
                          " and " + prop::kLeaf + ": all of them or none must");
  // A node's GPUs may sit on different leaves: rail-optimised networks put GPU i of every
  // node on leaf i. A message's class is that of its two hosts (message_class).
  for (const simgrid::s4u::Host* h : p.gpus) {
    const HostPlace place{
        parse_place(file, h->get_name(), prop::kNode, h->get_property(prop::kNode)),
        parse_place(file, h->get_name(), prop::kLeaf, h->get_property(prop::kLeaf))};
    p.places.push_back(place);
  }
  for (int c = 0; c < kMessageClasses; ++c) {
    const bool own_lat = engine.get_netzone_root()->get_property(names[c][0]) != nullptr;
    const bool own_bw = engine.get_netzone_root()->get_property(names[c][1]) != nullptr;
    p.class_latency_factors[c] =
        own_lat ? read_root_factors(engine, file, names[c][0], true) : p.latency_factors;
    p.class_bandwidth_factors[c] =
        own_bw ? read_root_factors(engine, file, names[c][1], false) : p.bandwidth_factors;
  }
  return true;
}

void install_class_factor_callbacks(simgrid::kernel::resource::NetworkModelIntf& model,
                                    const Platform& p) {
  using Links = std::vector<simgrid::s4u::Link*>;
  using Zones = std::unordered_set<simgrid::s4u::NetZone*>;
  using Tables = std::array<FactorTable, kMessageClasses>;
  auto place = std::make_shared<std::unordered_map<const simgrid::s4u::Host*, HostPlace>>();
  for (std::size_t r = 0; r < p.gpus.size(); ++r) place->emplace(p.gpus[r], p.places[r]);
  // Hosts without a place (none carry actors) take the node class's tables.
  const auto class_of = [place](const simgrid::s4u::Host* a, const simgrid::s4u::Host* b) {
    const auto x = place->find(a), y = place->find(b);
    if (x == place->end() || y == place->end()) return 0;
    return static_cast<int>(message_class(x->second, y->second));
  };
  const auto any = [](const Tables& t) {
    return std::any_of(t.begin(), t.end(), [](const FactorTable& f) { return !f.empty(); });
  };
  if (any(p.class_latency_factors))
    model.set_lat_factor_cb([t = p.class_latency_factors, class_of](
                                double size, const simgrid::s4u::Host* src,
                                const simgrid::s4u::Host* dst, const Links&, const Zones&) {
      return factor_at(t[static_cast<std::size_t>(class_of(src, dst))], size);
    });
  if (any(p.class_bandwidth_factors))
    model.set_bw_factor_cb([bw = p.class_bandwidth_factors, lat = p.class_latency_factors, class_of,
                            footprint = p.footprint_bytes](
                               double size, const simgrid::s4u::Host* src,
                               const simgrid::s4u::Host* dst, const Links& links, const Zones&) {
      const std::size_t c = static_cast<std::size_t>(class_of(src, dst));
      if (*footprint <= size || size <= 0 || links.empty()) return factor_at(bw[c], size);
      double route_latency = 0, bottleneck = links.front()->get_bandwidth();
      for (const simgrid::s4u::Link* l : links) {
        route_latency += l->get_latency();
        bottleneck = std::min(bottleneck, l->get_bandwidth());
      }
      return size /
             piece_time(lat[c], bw[c], size, *footprint, route_latency, bottleneck).transfer /
             bottleneck;
    });
}

void require_shared_memory(const Platform& platform, const std::vector<std::string>& algos) {
  for (const std::string& name : algos) {
    if (!find_algorithm(name).needs_shared_memory || platform.ranks() < 2) continue;
    int other = 1;  // without places no two ranks share memory
    if (!platform.places.empty()) {
      other = 0;
      for (int r = 1; r < platform.ranks() && other == 0; ++r)
        if (platform.places[static_cast<std::size_t>(r)].node != platform.places.front().node)
          other = r;
      if (other == 0) continue;  // one node
    }
    throw InvalidArgument(name.substr(0, name.find(':')) + ": ranks 0 and " +
                          std::to_string(other) +
                          " do not share memory (direct runs among the ranks of one node)");
  }
}

MessageClass message_class(const HostPlace& a, const HostPlace& b) {
  if (a.node == b.node) return MessageClass::node;
  return a.leaf == b.leaf ? MessageClass::leaf : MessageClass::spine;
}

Platform::MessageFactors Platform::message_factors(int src, int dst) const {
  if (places.empty()) return {latency_factors, bandwidth_factors};
  const auto c = static_cast<std::size_t>(message_class(places.at(static_cast<std::size_t>(src)),
                                                        places.at(static_cast<std::size_t>(dst))));
  return {class_latency_factors[c], class_bandwidth_factors[c]};
}

}  // namespace ddl::sim
