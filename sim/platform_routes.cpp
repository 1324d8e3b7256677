#include "sim/platform_routes.hpp"

#include <algorithm>
#include <deque>
#include <map>
#include <set>
#include <simgrid/s4u.hpp>

#include "algorithms/error.hpp"

namespace ddl::sim {

namespace {

bool cluster_like(const std::string& routing) {
  return routing.rfind("Cluster", 0) == 0;
}

// Members of each zone that lead to a used host or gateway, after the None / Vivaldi checks.
std::map<int, std::set<std::string>> mark_chains(const PlatformOutline& outline,
                                                 const std::set<std::string>& used,
                                                 const std::string& file) {
  std::map<int, std::set<std::string>> marked;
  for (const std::string& start : used) {
    const auto found = outline.zone_of.find(start);
    if (found == outline.zone_of.end()) continue;
    std::string member = start;
    for (int z = found->second; z >= 0; z = outline.zones[static_cast<std::size_t>(z)].parent) {
      const OutlineZone& zone = outline.zones[static_cast<std::size_t>(z)];
      if (zone.routing == "None")
        throw InvalidArgument("platform file '" + file + "': '" + start + "' is in zone '" +
                              zone.id + "' with routing=\"None\", where SimGrid routes nothing");
      if (zone.routing == "Vivaldi" && member == start && !outline.with_coordinates.count(start))
        throw InvalidArgument("platform file '" + file + "': host '" + start +
                              "' of Vivaldi zone '" + zone.id +
                              "' has no coordinates (SimGrid cannot route from it)");
      marked[z].insert(member);
      member = zone.id;
    }
  }
  return marked;
}

// The members of `zone` that lead to used hosts must reach each other by its routes: in a Full
// zone each ordered pair needs its own <route> (or <zoneRoute>); in Floyd and Dijkstra zones a
// path of routes, i.e. all of them reachable from the first and the first from all of them.
void check_zone_routes(const OutlineZone& zone, const std::set<std::string>& members,
                       const std::string& file) {
  const std::string where =
      "platform file '" + file + "': zone '" + zone.id + "' (routing " + zone.routing + ")";
  if (zone.routing == "Full") {
    for (const std::string& a : members)
      for (const std::string& b : members)
        if (a != b && !zone.routes.count({a, b}))
          throw InvalidArgument(where + " has no route from '" + a + "' to '" + b +
                                "' (no <route> or <zoneRoute> for that pair)");
    return;
  }
  if (zone.routing != "Floyd" && zone.routing != "Dijkstra" && zone.routing != "DijkstraCache")
    return;  // cluster kinds route every pair; Vivaldi and Wifi by coordinates
  std::map<std::string, std::vector<std::string>> next, back;
  for (const auto& [a, b] : zone.routes) {
    next[a].push_back(b);
    back[b].push_back(a);
  }
  const auto reached = [](const std::map<std::string, std::vector<std::string>>& edges,
                          const std::string& from) {
    std::set<std::string> seen = {from};
    std::deque<std::string> frontier = {from};
    while (!frontier.empty()) {
      const auto e = edges.find(frontier.front());
      frontier.pop_front();
      if (e == edges.end()) continue;
      for (const std::string& n : e->second)
        if (seen.insert(n).second) frontier.push_back(n);
    }
    return seen;
  };
  const std::string& first = *members.begin();
  const std::set<std::string> ahead = reached(next, first), behind = reached(back, first);
  for (const std::string& m : members) {
    const bool forward = ahead.count(m) > 0;
    if (forward && behind.count(m)) continue;
    throw InvalidArgument(where + ": its routes lead from '" + (forward ? m : first) + "' to '" +
                          (forward ? first : m) + "' nowhere (SimGrid " +
                          (zone.routing == "Floyd" ? "throws from" : "crashes in") +
                          " its route query)");
  }
}

}  // namespace

void check_gpu_routes(const PlatformOutline& outline, const std::vector<simgrid::s4u::Host*>& hosts,
                      const std::string& file) {
  std::set<std::string> used(outline.gateways.begin(), outline.gateways.end());
  for (const simgrid::s4u::Host* h : hosts) used.insert(h->get_name());
  for (const auto& [z, members] : mark_chains(outline, used, file))
    check_zone_routes(outline.zones[static_cast<std::size_t>(z)], members, file);
  // One host per cluster: the routes between two clusters do not depend on the host.
  std::vector<simgrid::s4u::Host*> ask;
  std::set<std::string> seen;
  for (simgrid::s4u::Host* h : hosts) {
    std::string key = "host " + h->get_name();
    const auto z = outline.zone_of.find(h->get_name());
    if (z != outline.zone_of.end() &&
        cluster_like(outline.zones[static_cast<std::size_t>(z->second)].routing))
      key = "cluster " + outline.zones[static_cast<std::size_t>(z->second)].id;
    if (seen.insert(key).second) ask.push_back(h);
  }
  // SimGrid itself, as a second opinion on the outline: every ordered pair while that is cheap
  // (512 hosts: 0.1 s here), beyond that every host to and from the first one.
  std::vector<simgrid::s4u::Link*> links;
  const bool all_pairs = ask.size() <= kAllPairsHosts;
  for (simgrid::s4u::Host* a : ask)
    for (simgrid::s4u::Host* b : ask) {
      if (a == b || (!all_pairs && a != ask.front() && b != ask.front())) continue;
      links.clear();
      double latency = 0;
      const std::string pair = "platform file '" + file + "': no route from host '" +
                               a->get_name() + "' to host '" + b->get_name() + "'";
      try {
        a->route_to(b, links, &latency);
      } catch (const std::exception& e) {
        throw InvalidArgument(pair + " (SimGrid: " + e.what() + ")");
      }
      if (links.empty())
        throw InvalidArgument(pair +
                              ": its route has no link (a Full zone without that <route>); "
                              "its messages would take no time");
    }
}

}  // namespace ddl::sim
