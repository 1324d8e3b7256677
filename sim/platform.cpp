#include "sim/platform.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <simgrid/Exception.hpp>
#include <simgrid/kernel/resource/NetworkModelIntf.hpp>
#include <simgrid/s4u.hpp>
#include <unordered_set>

#include "algorithms/error.hpp"
#include "calibrate/platform_properties.hpp"
#include "harness/output_file.hpp"
#include "sim/platform_classes.hpp"
#include "sim/platform_outline.hpp"
#include "sim/platform_precheck.hpp"
#include "sim/platform_routes.hpp"

namespace ddl::sim {

namespace prop = platform_property;

namespace {

int parse_rank(const std::string& host, const char* text) {
  int value = -1;
  const std::string_view s(text);
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (ec != std::errc() || end != s.data() + s.size() || value < 0)
    throw InvalidArgument("host '" + host + "': ddl_rank '" + std::string(s) +
                          "' is not a rank (integer >= 0)");
  return value;
}

double parse_bandwidth(const std::string& host, const char* text) {
  double v = 0;
  const QuantityRange range = quantity_range(Quantity::bandwidth);
  if (!parse_quantity(text, Quantity::bandwidth, v) || !(v >= range.low && v <= range.high))
    throw InvalidArgument("GPU host '" + host + "': " + prop::kMemoryBandwidth + " '" + text +
                          "' is not a bandwidth in " + range.text + " (bytes/s)");
  return v;
}

// Every link's ddl_capacity_by_flows (see load_platform) as a NONLINEAR sharing policy. Only a
// SHARED link has one capacity for its flows to share: SimGrid would take the policy on a
// split-duplex pair (whose property the engine's link list does not even show) or a fat pipe
// and use none of it, so those are refused.
void install_capacity_by_flows(simgrid::s4u::Engine& engine, const std::string& file) {
  std::vector<simgrid::s4u::Link*> links = engine.get_all_links();
  for (simgrid::s4u::Link* l : engine.get_all_links()) {
    const std::string& name = l->get_name();
    if (name.size() <= 3 || name.compare(name.size() - 3, 3, "_UP") != 0) continue;
    try {
      links.push_back(engine.split_duplex_link_by_name(name.substr(0, name.size() - 3)));
    } catch (const std::exception&) {
      // a shared link whose name happens to end in _UP: no split-duplex pair behind it
    }
  }
  for (simgrid::s4u::Link* link : links) {
    const char* text = link->get_property(prop::kCapacityByFlows);
    if (text == nullptr) continue;
    const std::string where =
        "platform file '" + file + "': link '" + link->get_name() + "': " + prop::kCapacityByFlows;
    if (link->get_sharing_policy() != simgrid::s4u::Link::SharingPolicy::SHARED)
      throw InvalidArgument(where +
                            " needs sharing_policy=\"SHARED\" (one capacity that its flows share)");
    FactorTable by_flows;
    try {
      by_flows = parse_factors(text, false, "flow");
    } catch (const InvalidArgument& e) {
      throw InvalidArgument(where + " property: " + e.what());
    }
    // SimGrid asks for the capacity with n activities on the link each time it shares it.
    link->set_sharing_policy(simgrid::s4u::Link::SharingPolicy::NONLINEAR,
                             [t = std::move(by_flows)](double capacity, int flows) {
                               return capacity * factor_at(t, flows);
                             });
  }
}

}  // namespace

FactorTable parse_factors(std::string_view text, bool allow_zero, std::string_view unit) {
  const std::string quoted = "'" + std::string(text) + "'", what(unit);
  std::string key = what + "s";
  std::transform(key.begin(), key.end(), key.begin(),
                 [](unsigned char c) { return std::toupper(c); });
  FactorTable table;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t end = std::min(text.find(';', start), text.size());
    const std::string_view item = text.substr(start, end - start);
    const std::size_t colon = item.find(':');
    if (colon == std::string_view::npos)
      throw InvalidArgument("factors " + quoted + ": '" + std::string(item) + "' is not " + key +
                            ":FACTOR");
    FactorStep step;
    const std::string_view bytes = item.substr(0, colon);
    const auto [bend, bec] =
        std::from_chars(bytes.data(), bytes.data() + bytes.size(), step.from_bytes);
    if (bytes.empty() || bec != std::errc() || bend != bytes.data() + bytes.size())
      throw InvalidArgument("factors " + quoted + ": '" + std::string(bytes) + "' is not a " +
                            what + " count");
    const std::string factor(item.substr(colon + 1));
    const auto [fend, fec] =  // decimal only: strtod would read "0x10" as 16
        std::from_chars(factor.data(), factor.data() + factor.size(), step.factor);
    if (factor.empty() || fec != std::errc() || fend != factor.data() + factor.size() ||
        !std::isfinite(step.factor) || step.factor < 0 || (step.factor == 0 && !allow_zero))
      throw InvalidArgument("factors " + quoted + ": '" + factor + "' is not a " +
                            (allow_zero ? "non-negative" : "positive") + " number");
    if (!table.empty() && step.from_bytes <= table.back().from_bytes)
      throw InvalidArgument("factors " + quoted + ": " + what + " thresholds must increase");
    table.push_back(step);
    start = end + 1;
  }
  return table;
}

double factor_at(const FactorTable& table, double bytes) {
  double factor = 1;
  for (const FactorStep& s : table) {
    if (static_cast<double>(s.from_bytes) > bytes) break;
    factor = s.factor;
  }
  return factor;
}

double peer_read_factor(const Platform& platform, int src, int dst, double bytes) {
  if (!platform.places.empty() &&
      message_class(platform.places.at(static_cast<std::size_t>(src)),
                    platform.places.at(static_cast<std::size_t>(dst))) != MessageClass::node)
    return 1;
  return factor_at(platform.peer_read_factors, bytes);
}

PieceTime piece_time(const FactorTable& latency_factors, const FactorTable& bandwidth_factors,
                     double bytes, double footprint, double route_latency, double bottleneck) {
  PieceTime t;
  t.latency = factor_at(latency_factors, bytes) * route_latency;
  t.transfer = bytes / (factor_at(bandwidth_factors, bytes) * bottleneck);
  if (footprint > bytes) {
    // The longer of the message's own time and its share of the footprint's: latency-bound
    // pieces keep their per-message cost, pieces of a footprint that streams from memory move
    // at its rate (a large size range's fitted latency is as much a cost of its bytes as its
    // slope, so the share includes it).
    const double whole = factor_at(latency_factors, footprint) * route_latency +
                         footprint / (factor_at(bandwidth_factors, footprint) * bottleneck);
    t.transfer = std::max(t.transfer, bytes / footprint * whole - t.latency);
  }
  return t;
}

// The GPU hosts by ddl_rank: index = rank; empty when no host carries one. Where some do, all
// must: a host left without one would silently not run (a 1-rank run of a 16-host platform).
static std::vector<simgrid::s4u::Host*> ranked_hosts(simgrid::s4u::Engine& engine,
                                                     const std::string& file) {
  std::vector<std::pair<int, simgrid::s4u::Host*>> found;
  std::vector<std::string> unranked;
  for (simgrid::s4u::Host* h : engine.get_all_hosts()) {
    if (is_switch_host(h)) continue;  // a switch's actor runs there, no rank
    if (const char* r = h->get_property(prop::kRank))
      found.emplace_back(parse_rank(h->get_name(), r), h);
    else
      unranked.push_back(h->get_name());
  }
  if (!found.empty() && !unranked.empty())
    throw InvalidArgument("platform file '" + file + "': host '" + unranked.front() + "'" +
                          (unranked.size() > 1
                               ? " (and " + std::to_string(unranked.size() - 1) + " more)"
                               : std::string()) +
                          " has no " + prop::kRank + " while " + std::to_string(found.size()) +
                          " hosts have one: give every host a rank, or none (ranks then follow "
                          "--hostfile or the host order)");
  std::vector<simgrid::s4u::Host*> gpus(found.size(), nullptr);
  for (const auto& [rank, host] : found) {
    if (rank >= static_cast<int>(found.size()))
      throw InvalidArgument("platform file '" + file + "': host '" + host->get_name() +
                            "' has ddl_rank " + std::to_string(rank) + " but there are only " +
                            std::to_string(found.size()) + " GPU hosts (ranks must be 0..p-1)");
    auto& slot = gpus[static_cast<std::size_t>(rank)];
    if (slot != nullptr)
      throw InvalidArgument("platform file '" + file + "': ddl_rank " + std::to_string(rank) +
                            " is on both '" + slot->get_name() + "' and '" + host->get_name() +
                            "'");
    slot = host;
  }
  return gpus;
}

Platform load_platform(simgrid::s4u::Engine& engine, const std::string& file,
                       const PlatformChoice& choice) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::exists(file, ec)) throw InvalidArgument("platform file '" + file + "' does not exist");
  check_readable(file, "platform file", kMaxPlatformBytes);  // not a directory, FIFO or device
  check_platform_nesting(file);  // SimGrid's XML lexer overflows on deep nesting: refuse it first
  const PlatformOutline outline = read_platform_outline(file);  // what SimGrid would abort on
  try {
    engine.load_platform(file);
    // Floyd zones compute their routes when sealed; route_to() before that finds none.
    engine.seal_platform();
  } catch (const simgrid::Exception& e) {
    throw InvalidArgument("platform file '" + file + "' is malformed: " + e.what());
  } catch (const std::exception& e) {
    throw InvalidArgument("platform file '" + file + "' is malformed: " + e.what());
  }
  Platform p;
  p.file = file;
  p.extrapolate_steps = !choice.exact;
  p.gpus = ranked_hosts(engine, file);
  if (!p.gpus.empty() && choice.hostfile)
    throw InvalidArgument("--hostfile '" + *choice.hostfile + "': platform file '" + file +
                          "' places its ranks itself (hosts with " + prop::kRank +
                          "); a hostfile is for platforms without them");
  if (p.gpus.empty()) {
    RankHosts r = choose_rank_hosts(engine, file, choice.hostfile);
    p.gpus = std::move(r.hosts);
    p.natural_dims = r.natural_dims;
  }
  std::size_t own_bandwidth = 0;
  for (simgrid::s4u::Host* h : p.gpus) {
    const char* m = h->get_property(prop::kMemoryBandwidth);
    own_bandwidth += m != nullptr;
    p.memory_bandwidth.push_back(m ? parse_bandwidth(h->get_name(), m)
                                   : choice.memory_bandwidth.value_or(kDefaultMemoryBandwidth));
  }
  if (choice.memory_bandwidth && own_bandwidth == p.gpus.size())
    throw InvalidArgument("--memory-bandwidth: every GPU host of platform file '" + file +
                          "' has its own " + prop::kMemoryBandwidth +
                          " property, which wins: the flag is for hosts without one");
  check_gpu_routes(outline, p.gpus, file);
  p.switches = read_switch_domains(engine, p.gpus, file);
  p.switch_of.assign(p.gpus.size(), {-1, -1});
  for (std::size_t i = 0; i < p.switches.size(); ++i)
    for (int r : p.switches[i].members)
      p.switch_of[static_cast<std::size_t>(r)][static_cast<std::size_t>(p.switches[i].level)] =
          static_cast<int>(i);
  if (const char* dims = engine.get_netzone_root()->get_property(prop::kDims)) {
    try {
      p.natural_dims = Dims::parse(dims);
    } catch (const InvalidArgument& e) {
      throw InvalidArgument("platform file '" + file + "': " + prop::kDims +
                            " property: " + e.what());
    }
    if (p.natural_dims->rank_count() != p.ranks())
      throw InvalidArgument("platform file '" + file + "': " + prop::kDims + " '" + dims +
                            "' describe " + std::to_string(p.natural_dims->rank_count()) +
                            " ranks but it has " + std::to_string(p.ranks()) + " GPU hosts");
  }
  // A zero latency factor is a fitted "no latency" for that size range; a zero bandwidth
  // factor would stall the message forever.
  p.latency_factors = read_root_factors(engine, file, prop::kLatFactors, true);
  p.bandwidth_factors = read_root_factors(engine, file, prop::kBwFactors, false);
  const bool classed = read_places_and_class_factors(engine, p);
  // A zero memory factor would make local work take forever.
  p.memory_factors = read_root_factors(engine, file, prop::kMemoryFactors, false);
  p.peer_read_factors = read_root_factors(engine, file, prop::kPeerReadFactors, false);
  for (const FactorStep& s : p.peer_read_factors)
    if (s.factor < 1)
      throw InvalidArgument("platform file '" + file + "': " + prop::kPeerReadFactors +
                            ": factor " + std::to_string(s.factor) + " from " +
                            std::to_string(s.from_bytes) +
                            " bytes is below 1 (where a message lands can only slow it down)");
  install_capacity_by_flows(engine, file);
  auto* model = engine.get_netzone_root()->get_network_model();
  if (classed) {
    install_class_factor_callbacks(*model, p);
    return p;
  }
  using Links = std::vector<simgrid::s4u::Link*>;
  using Zones = std::unordered_set<simgrid::s4u::NetZone*>;
  if (!p.latency_factors.empty())
    model->set_lat_factor_cb([t = p.latency_factors](double size, const simgrid::s4u::Host*,
                                                     const simgrid::s4u::Host*, const Links&,
                                                     const Zones&) { return factor_at(t, size); });
  if (!p.bandwidth_factors.empty())
    model->set_bw_factor_cb([bw = p.bandwidth_factors, lat = p.latency_factors,
                             footprint = p.footprint_bytes](double size, const simgrid::s4u::Host*,
                                                            const simgrid::s4u::Host*,
                                                            const Links& links, const Zones&) {
      if (*footprint <= size || size <= 0 || links.empty()) return factor_at(bw, size);
      double route_latency = 0, bottleneck = links.front()->get_bandwidth();
      for (const simgrid::s4u::Link* l : links) {
        route_latency += l->get_latency();
        bottleneck = std::min(bottleneck, l->get_bandwidth());
      }
      return size / piece_time(lat, bw, size, *footprint, route_latency, bottleneck).transfer /
             bottleneck;
    });
  return p;
}

Dims choose_dims(const Platform& platform, const std::optional<Dims>& requested) {
  if (requested) {
    if (requested->rank_count() != platform.ranks())
      throw InvalidArgument("--dims '" + requested->to_string() + "' describe " +
                            std::to_string(requested->rank_count()) + " ranks but platform '" +
                            platform.file + "' has " + std::to_string(platform.ranks()) + " GPUs");
    return *requested;
  }
  if (platform.natural_dims) return *platform.natural_dims;
  return Dims::flat(platform.ranks());
}

}  // namespace ddl::sim
