#include "calibrate/patterns.hpp"

#include <algorithm>
#include <map>
#include <utility>

#include "algorithms/error.hpp"

namespace ddl::calibrate {
namespace {

constexpr Pattern kAll[] = {Pattern::pingpong,
                            Pattern::bidirectional,
                            Pattern::two_each_way,
                            Pattern::pairs,
                            Pattern::ring,
                            Pattern::nic_one_way,
                            Pattern::nic_bidirectional,
                            Pattern::nic_crossed,
                            Pattern::nic_exchange,
                            Pattern::uplink,
                            Pattern::uplink_crossed,
                            Pattern::node_rings,
                            Pattern::uplink_bidirectional};

void need(bool ok, Pattern p, const std::string& what) {
  if (!ok) throw InvalidArgument(std::string("pattern ") + to_string(p) + " needs " + what);
}

}  // namespace

const char* to_string(Pattern p) {
  switch (p) {
    case Pattern::pingpong: return "pingpong";
    case Pattern::bidirectional: return "bidirectional";
    case Pattern::two_each_way: return "two_each_way";
    case Pattern::pairs: return "pairs";
    case Pattern::ring: return "ring";
    case Pattern::nic_one_way: return "nic_one_way";
    case Pattern::nic_bidirectional: return "nic_bidirectional";
    case Pattern::nic_crossed: return "nic_crossed";
    case Pattern::nic_exchange: return "nic_exchange";
    case Pattern::uplink: return "uplink";
    case Pattern::uplink_crossed: return "uplink_crossed";
    case Pattern::uplink_bidirectional: return "uplink_bidirectional";
    case Pattern::node_rings: return "node_rings";
  }
  return "?";
}

Pattern parse_pattern(const std::string& text) {
  for (Pattern p : kAll)
    if (text == to_string(p)) return p;
  throw InvalidArgument("unknown pattern '" + text +
                        "' (pingpong, bidirectional, two_each_way, pairs, ring, nic_one_way, "
                        "nic_bidirectional, nic_crossed, nic_exchange, uplink, uplink_crossed, "
                        "node_rings, uplink_bidirectional)");
}

std::vector<Flow> pattern_flows(Pattern p, const Topology& t) {
  const int g = t.ranks_per_node;
  const int m = t.nics;
  std::vector<Flow> f;
  switch (p) {
    case Pattern::pingpong: break;
    case Pattern::bidirectional:
      need(g >= 2, p, "2 ranks in a node");
      f = {{0, 1}, {1, 0}};
      break;
    case Pattern::two_each_way:
      need(g >= 2, p, "2 ranks in a node");
      f = {{0, 1}, {0, 1}, {1, 0}, {1, 0}};
      break;
    case Pattern::pairs:
      need(g >= 2, p, "2 ranks in a node");
      for (int r = 0; r + 1 < g; r += 2) f.insert(f.end(), {{r, r + 1}, {r + 1, r}});
      break;
    case Pattern::ring:
      need(g >= 2, p, "2 ranks in a node");
      for (int r = 0; r < g; ++r) f.push_back({r, (r + 1) % g});
      break;
    case Pattern::nic_one_way:
    case Pattern::nic_bidirectional:
      need(t.nodes() >= 2, p, "2 nodes");
      for (int s = 0; s < g; ++s) f.push_back({s, g + s});
      if (p == Pattern::nic_bidirectional)
        for (int s = 0; s < g; ++s) f.push_back({g + s, s});
      break;
    case Pattern::nic_crossed:
      // The second pair is slot M (slot 1 with one NIC): on rank 0's rail, so both flows cross
      // the same NIC of node 0, one each way.
      if (m == 1) need(t.nodes() >= 2 && g >= 2, p, "2 nodes of 2 ranks");
      need(t.nodes() >= 2 && t.ranks_per_nic() >= 2, p, "2 nodes of 2 ranks per NIC");
      f = {{0, g}, {g + m, m}};
      break;
    case Pattern::nic_exchange:
      need(t.nodes() >= 2, p, "2 nodes");
      f = {{0, g}, {g, 0}};
      break;
    case Pattern::uplink:
      if (t.leaves >= 2 || m == 1) {
        need(t.leaves >= 2 && t.nodes_per_leaf >= 2, p, "2 leaves of at least 2 nodes");
        for (int i = 0; i < t.nodes_per_leaf; ++i) f.push_back({i * g, (t.nodes_per_leaf + i) * g});
      } else {
        // Rails in one group: slot 0 of node i (rail 0) -> slot 1 of node i + 1 (rail 1), every
        // i at once: K flows up leaf0-up and down leaf1-up, one per NIC.
        need(t.nodes_per_leaf >= 2, p, "2 nodes");
        for (int i = 0; i < t.nodes_per_leaf; ++i)
          f.push_back({i * g, (i + 1) % t.nodes_per_leaf * g + 1});
      }
      break;
    case Pattern::uplink_bidirectional:
      // uplink's flows and their reverses at once: K flows each way through every uplink.
      f = pattern_flows(Pattern::uplink, t);
      for (std::size_t i = 0, n = f.size(); i < n; ++i) f.push_back({f[i].dst, f[i].src});
      break;
    case Pattern::uplink_crossed: {
      if (m == 1) need(t.leaves >= 2 && g >= 2, p, "2 leaves and 2 ranks in a node");
      need((t.leaves >= 2 || m >= 2) && t.nodes() >= 2 && t.ranks_per_nic() >= 2, p,
           "2 leaves or rails, and 2 ranks per NIC");
      // l: rank 0's ping-pong peer across the spine; l + M -> M is back into rank 0's NIC (slot
      // M is on rail 0) from another pair, so one flow each way crosses node 0's NIC and its
      // leaf's uplink.
      const int l = t.pingpong_peer(LinkClass::spine);
      f = {{0, l}, {l + m, m}};
      break;
    }
    case Pattern::node_rings:
      need(g >= 2, p, "2 ranks in a node");
      for (int r = 0; r < t.ranks(); ++r) f.push_back({r, r / g * g + (r % g + 1) % g});
      break;
  }
  return f;
}

int nic_flows_both_ways(const std::vector<Flow>& flows, const Topology& t) {
  // (node, rail) -> flows crossing that NIC: a rank's flows use its own NIC only.
  std::map<std::pair<int, int>, int> through;
  int most = 0;
  for (const Flow& f : flows) {
    const int a = t.node_of(f.src), b = t.node_of(f.dst);
    if (a != b)
      most = std::max({most, ++through[{a, t.nic_of(f.src)}], ++through[{b, t.nic_of(f.dst)}]});
  }
  return most;
}

int uplink_flows_both_ways(const std::vector<Flow>& flows, const Topology& t) {
  std::map<int, int> through;  // leaf switch -> flows crossing its uplink, either way
  int most = 0;
  for (const Flow& f : flows)
    if (t.class_between(f.src, f.dst) == LinkClass::spine)
      most = std::max({most, ++through[t.leaf_of(f.src)], ++through[t.leaf_of(f.dst)]});
  return most;
}

int pair_flows_both_ways(const std::vector<Flow>& flows, const Topology& t) {
  std::map<std::pair<int, int>, int> between;  // (lower rank, higher rank) -> flows
  int most = 0;
  for (const Flow& f : flows)
    if (t.node_of(f.src) != t.node_of(f.dst))
      most = std::max(most, ++between[{std::min(f.src, f.dst), std::max(f.src, f.dst)}]);
  return most;
}

int messages_per_rank(const std::vector<Flow>& flows) {
  std::map<int, int> in, out;
  int most = 0;
  for (const Flow& f : flows) most = std::max({most, ++out[f.src], ++in[f.dst]});
  return most;
}

RankFlows flows_of_rank(const std::vector<Flow>& flows, int rank) {
  RankFlows mine;
  std::map<std::pair<int, int>, int> seen;  // (src, dst) -> flows so far: the tag offset
  for (const Flow& f : flows) {
    const int offset = seen[{f.src, f.dst}]++;
    if (f.dst == rank) mine.in.push_back({f.src, offset});
    if (f.src == rank) mine.out.push_back({f.dst, offset});
  }
  return mine;
}

}  // namespace ddl::calibrate
