// What ddl checks in a platform file before SimGrid parses it, read with a real XML parser
// (expat), because SimGrid 3.32 does not survive these inputs (checked against the installed
// library, sim/README.md): a duplicate <route> aborts the load (exit 134, "The route between a
// and b already exists"), an unknown routing="..." aborts it ("Not a valid model!"), a Dijkstra
// zone with a duplicate or a missing route crashes (SIGSEGV), and a link bandwidth, latency or
// host speed that is 0, negative, NaN or infinite is accepted and stalls or corrupts the run.
// The outline it returns (zones, their routing and routes, where each host sits) is what the
// route checks after loading need (sim/platform_routes.hpp).
#pragma once

#include <cstddef>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "sim/quantity.hpp"

namespace ddl::sim {

struct OutlineZone {
  std::string id;
  std::string routing;               // as written: Full, Floyd, Dijkstra, Cluster, ...
  int parent = -1;                   // index in PlatformOutline::zones; -1: the root
  std::vector<std::string> members;  // netpoints declared directly in it (hosts, routers, zones)
  // Directed edges of its <route>/<zoneRoute> elements (symmetrical ones both ways).
  std::set<std::pair<std::string, std::string>> routes;
};

struct PlatformOutline {
  std::vector<OutlineZone> zones;
  std::map<std::string, int> zone_of;      // netpoint (host, router, zone) -> the zone it is in
  std::set<std::string> with_coordinates;  // hosts with Vivaldi coordinates
  std::set<std::string> gateways;          // gw_src / gw_dst of every zoneRoute
};

// The largest platform ddlsim reads, checked before SimGrid parses it (which would end a larger
// one in std::bad_alloc or hours of loading): hosts (GPUs and any others, cluster radicals
// counted), four times the 16,384 GPUs of the largest training runs ddl is meant to predict;
// bytes, of a platform file or of what the generator writes for a description.
inline constexpr std::size_t kMaxPlatformHosts = 65536;
inline constexpr std::size_t kMaxPlatformBytes = std::size_t{1} << 30;

// SimGrid 3.32's values of routing="..." (src/surf/sg_platf.cpp).
bool known_routing(const std::string& routing);

// Reads `file` (already known to exist) and throws InvalidArgument, naming the element, its id
// and the value, for: a bandwidth, latency or speed that is no number with a known unit; a link,
// backbone, cluster or peer bandwidth that is not a finite number > 0; a latency that is negative
// or not finite; a host (or cluster, peer) speed that is not > 0 and finite; a route (or zoneRoute)
// declared twice for one source and destination in a zone (a symmetrical route counts both ways);
// an unknown routing; more than kMaxPlatformHosts hosts. Malformed XML is left to SimGrid's parser,
// which reports it with an exception (no outline is needed then).
PlatformOutline read_platform_outline(const std::string& file);

}  // namespace ddl::sim
