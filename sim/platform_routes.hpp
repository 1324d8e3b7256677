// The routes between the GPU hosts a run uses, checked once the platform is loaded and before
// any actor runs, because SimGrid 3.32 cannot be asked safely everywhere (checked against the
// installed library): a route query in a routing="None" zone or from a Vivaldi host without
// coordinates aborts the process, a missing route in a Dijkstra zone crashes it (SIGSEGV), a
// Full zone without the <route> returns an empty route (the messages would cost nothing) and
// a missing route in a Floyd zone or between zones throws. So the routes are worked out from
// the outline read before loading (sim/platform_outline.hpp), zone by zone along the zones that
// hold the hosts, and then SimGrid is asked too (Host::route_to, its exception caught).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "sim/platform_outline.hpp"

namespace simgrid::s4u {
class Host;
}  // namespace simgrid::s4u

namespace ddl::sim {

// Throws InvalidArgument naming the file and the host (or zone and members) for: a host in a
// routing="None" zone; a host of a Vivaldi zone without coordinates; two members of a zone that
// lead to these hosts (or to a zoneRoute gateway) without a route between them: in a Full zone
// no <route>/<zoneRoute> for that ordered pair, in a Floyd or Dijkstra zone no path of routes;
// two distinct hosts that SimGrid's route query fails for or gives an empty route. SimGrid is
// asked for every ordered pair of up to kAllPairsHosts hosts, beyond that for every host to and
// from the first; one host stands for each cluster (its hosts always have routes).
inline constexpr std::size_t kAllPairsHosts = 512;
void check_gpu_routes(const PlatformOutline& outline, const std::vector<simgrid::s4u::Host*>& hosts,
                      const std::string& file);

}  // namespace ddl::sim
