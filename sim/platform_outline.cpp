#include "sim/platform_outline.hpp"

#include <expat.h>

#include <array>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <optional>

#include "algorithms/error.hpp"
#include "sim/quantity.hpp"

namespace ddl::sim {

namespace {

struct Checker {
  std::string file;
  XML_Parser parser = nullptr;
  PlatformOutline outline;
  std::vector<int> open_zones;  // zones (and clusters) enclosing the current element
  std::size_t hosts = 0;

  std::string where() const {
    return "platform file '" + file + "' line " + std::to_string(XML_GetCurrentLineNumber(parser)) +
           ": ";
  }

  static const char* attribute(const char** attrs, const char* name) {
    for (int i = 0; attrs[i] != nullptr; i += 2)
      if (std::string_view(attrs[i]) == name) return attrs[i + 1];
    return nullptr;
  }

  // One value (or a comma-separated list, as host speeds and wifi bandwidths are) of `kind`.
  void check_value(const std::string& element, const char* id, const char* name, const char* text,
                   Quantity kind, bool zero_ok) {
    if (text == nullptr) return;
    const std::string all(text);
    std::size_t start = 0;
    while (start <= all.size()) {
      const std::size_t comma = std::min(all.find(',', start), all.size());
      const std::string item = all.substr(start, comma - start);
      start = comma + 1;
      double v = 0;
      const char* unit = kind == Quantity::bandwidth ? "a bandwidth (a number and Bps, kBps, MBps, "
                                                       "GBps, ..., bps, Gbps, ..., KiBps, ...)"
                         : kind == Quantity::time    ? "a time (a number and s, ms, us, ns, ...)"
                                                     : "a speed (a number and f, kf, Mf, Gf, ...)";
      if (!parse_quantity(item, kind, v))
        throw InvalidArgument(where() + element + " '" + (id ? id : "?") + "': " + name + " '" +
                              item + "' is not " + unit);
      const bool ok = std::isfinite(v) && (zero_ok ? v >= 0 : v > 0);
      if (!ok)
        throw InvalidArgument(where() + element + " '" + (id ? id : "?") + "': " + name + " '" +
                              item + "' is not " +
                              (zero_ok ? "a finite number >= 0" : "a finite number > 0") +
                              (kind == Quantity::bandwidth ? " (bytes/s)"
                               : kind == Quantity::time    ? " (seconds)"
                                                           : " (flop/s)"));
      const QuantityRange range = quantity_range(kind);
      if (v < range.low || v > range.high)
        throw InvalidArgument(where() + element + " '" + (id ? id : "?") + "': " + name + " '" +
                              item + "' is outside " + range.text +
                              ", where the simulated times stop meaning anything");
    }
  }

  // A zone (or cluster) is a netpoint of the zone around it.
  int add_zone(const std::string& id, const std::string& routing) {
    add_member(id);
    OutlineZone z;
    z.id = id;
    z.routing = routing;
    z.parent = open_zones.empty() ? -1 : open_zones.back();
    outline.zones.push_back(std::move(z));
    return static_cast<int>(outline.zones.size()) - 1;
  }

  void add_member(const std::string& id) {
    if (open_zones.empty()) return;
    outline.zones[static_cast<std::size_t>(open_zones.back())].members.push_back(id);
    outline.zone_of[id] = open_zones.back();
  }

  void add_route(const char** attrs, const std::string& element) {
    if (open_zones.empty()) return;
    const char* src = attribute(attrs, "src");
    const char* dst = attribute(attrs, "dst");
    if (src == nullptr || dst == nullptr) return;  // SimGrid's parser refuses it
    for (const char* gw : {"gw_src", "gw_dst"})
      if (const char* g = attribute(attrs, gw)) outline.gateways.insert(g);
    const char* sym = attribute(attrs, "symmetrical");
    const bool symmetrical =
        sym == nullptr || std::string_view(sym) == "YES" || std::string_view(sym) == "yes";
    OutlineZone& zone = outline.zones[static_cast<std::size_t>(open_zones.back())];
    const auto insert = [&](const std::string& a, const std::string& b) {
      if (!zone.routes.emplace(a, b).second)
        throw InvalidArgument(where() + element + " from '" + src + "' to '" + dst + "' in zone '" +
                              zone.id + "': a route from '" + a + "' to '" + b +
                              "' is already declared there (routes are symmetrical unless "
                              "symmetrical=\"NO\"): SimGrid aborts on a duplicate route");
    };
    insert(src, dst);
    if (symmetrical && std::string_view(src) != dst) insert(dst, src);
  }

  void count_hosts(std::size_t more) {
    hosts = more > kMaxPlatformHosts - hosts ? kMaxPlatformHosts + 1 : hosts + more;
    if (hosts > kMaxPlatformHosts)
      throw InvalidArgument(where() + "more than " + std::to_string(kMaxPlatformHosts) +
                            " hosts, the most ddlsim accepts");
  }

  // The hosts "<prefix><n><suffix>" of a cluster's radical ("0-15", "0-3,8,10-11").
  void add_cluster_hosts(const char** attrs) {
    const char* radical = attribute(attrs, "radical");
    const std::string prefix = attribute(attrs, "prefix") ? attribute(attrs, "prefix") : "";
    const std::string suffix = attribute(attrs, "suffix") ? attribute(attrs, "suffix") : "";
    if (radical == nullptr) return;
    const std::string r(radical);
    std::size_t start = 0;
    while (start <= r.size()) {
      const std::size_t comma = std::min(r.find(',', start), r.size());
      const std::string item = r.substr(start, comma - start);
      start = comma + 1;
      char* end = nullptr;
      errno = 0;
      const long first = std::strtol(item.c_str(), &end, 10);
      long last = first;
      if (*end == '-') last = std::strtol(end + 1, &end, 10);
      // Out of long's range (ERANGE) or reversed: not counted.
      if (end == item.c_str() || *end != '\0' || errno == ERANGE || last < first)
        return;  // SimGrid's parser reports a bad radical
      // Taken unsigned, so a range from a negative number to a large one cannot overflow; the host
      // limit then bounds the loop.
      const unsigned long span =
          static_cast<unsigned long>(last) - static_cast<unsigned long>(first);
      count_hosts(span >= kMaxPlatformHosts ? kMaxPlatformHosts + 1 : span + 1);
      for (long k = 0; k <= last - first; ++k)
        add_member(prefix + std::to_string(first + k) + suffix);
    }
  }

  void start(const std::string& el, const char** attrs) {
    const char* id = attribute(attrs, "id");
    if (el == "zone" || el == "AS") {
      const char* routing = attribute(attrs, "routing");
      const std::string r = routing ? routing : "";
      if (!known_routing(r))
        throw InvalidArgument(where() + "zone '" + (id ? id : "?") + "': routing '" + r +
                              "' is not one SimGrid 3.32 knows (Full, Floyd, Dijkstra, "
                              "DijkstraCache, Cluster, ClusterFatTree, ClusterTorus, "
                              "ClusterDragonfly, Vivaldi, Wifi, None)");
      open_zones.push_back(add_zone(id ? id : "", r));
    } else if (el == "cluster") {
      check_value(el, id, "speed", attribute(attrs, "speed"), Quantity::speed, false);
      for (const char* bw : {"bw", "bb_bw", "loopback_bw", "limiter_link"})
        check_value(el, id, bw, attribute(attrs, bw), Quantity::bandwidth, false);
      for (const char* lat : {"lat", "bb_lat", "loopback_lat"})
        check_value(el, id, lat, attribute(attrs, lat), Quantity::time, true);
      open_zones.push_back(add_zone(id ? id : "", "Cluster"));
      add_cluster_hosts(attrs);
    } else if (el == "host") {
      count_hosts(1);
      check_value(el, id, "speed", attribute(attrs, "speed"), Quantity::speed, false);
      if (id) {
        add_member(id);
        if (attribute(attrs, "coordinates")) outline.with_coordinates.insert(id);
      }
    } else if (el == "peer") {
      check_value(el, id, "speed", attribute(attrs, "speed"), Quantity::speed, false);
      for (const char* bw : {"bw_in", "bw_out"})
        check_value(el, id, bw, attribute(attrs, bw), Quantity::bandwidth, false);
      check_value(el, id, "lat", attribute(attrs, "lat"), Quantity::time, true);
      if (id) {
        add_member(id);
        outline.with_coordinates.insert(id);
      }
    } else if (el == "cabinet") {
      check_value(el, id, "speed", attribute(attrs, "speed"), Quantity::speed, false);
      check_value(el, id, "bw", attribute(attrs, "bw"), Quantity::bandwidth, false);
      check_value(el, id, "lat", attribute(attrs, "lat"), Quantity::time, true);
    } else if (el == "link" || el == "backbone") {
      check_value(el, id, "bandwidth", attribute(attrs, "bandwidth"), Quantity::bandwidth, false);
      check_value(el, id, "latency", attribute(attrs, "latency"), Quantity::time, true);
    } else if (el == "router") {
      if (id) add_member(id);
    } else if (el == "route" || el == "zoneRoute" || el == "ASroute") {
      add_route(attrs, el);
    }
  }

  void end(const std::string& el) {
    if ((el == "zone" || el == "AS" || el == "cluster") && !open_zones.empty())
      open_zones.pop_back();
  }
};

}  // namespace

bool known_routing(const std::string& routing) {
  for (const char* r : {"Full", "Floyd", "Dijkstra", "DijkstraCache", "Cluster", "ClusterFatTree",
                        "ClusterTorus", "ClusterDragonfly", "Vivaldi", "Wifi", "None"})
    if (routing == r) return true;
  return false;
}

PlatformOutline read_platform_outline(const std::string& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return {};  // load_platform names an unreadable file
  Checker checker;
  checker.file = file;
  std::unique_ptr<std::remove_pointer_t<XML_Parser>, decltype(&XML_ParserFree)> parser(
      XML_ParserCreate(nullptr), &XML_ParserFree);
  if (!parser) throw BackendError("expat: cannot create an XML parser");
  checker.parser = parser.get();
  // Element handlers throw: expat is C, so the exception is caught inside and the parse stopped.
  struct State {
    Checker* checker;
    std::exception_ptr error;
  } state{&checker, nullptr};
  XML_SetUserData(parser.get(), &state);
  XML_SetElementHandler(
      parser.get(),
      [](void* data, const XML_Char* name, const XML_Char** attrs) {
        auto* s = static_cast<State*>(data);
        try {
          s->checker->start(name, attrs);
        } catch (...) {
          s->error = std::current_exception();
          XML_StopParser(s->checker->parser, XML_FALSE);
        }
      },
      [](void* data, const XML_Char* name) {
        auto* s = static_cast<State*>(data);
        s->checker->end(name);
      });
  std::array<char, 1 << 16> buf;
  while (true) {
    in.read(buf.data(), buf.size());
    const auto n = static_cast<int>(in.gcount());
    const bool last = n < static_cast<int>(buf.size());
    if (XML_Parse(parser.get(), buf.data(), n, last ? XML_TRUE : XML_FALSE) != XML_STATUS_OK) {
      if (state.error) std::rethrow_exception(state.error);
      return {};  // not well-formed: SimGrid's parser reports it (as an exception)
    }
    if (last) break;
  }
  return std::move(checker.outline);
}

}  // namespace ddl::sim
