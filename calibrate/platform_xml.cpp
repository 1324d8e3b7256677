#include "calibrate/platform_xml.hpp"

#include <algorithm>
#include <cstdio>
#include <sstream>

#include "algorithms/error.hpp"
#include "calibrate/platform_properties.hpp"

namespace ddl::calibrate {
namespace {

namespace prop = platform_property;

std::string number(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.9g", v);
  return text;
}

// XML forbids "--" inside a comment and a comment ending in "-": a note (which may hold a
// user's file name) is made safe by spacing its hyphens apart.
std::string comment_text(std::string note) {
  for (std::size_t i = note.find("--"); i != std::string::npos; i = note.find("--", i))
    note.insert(i + 1, " ");
  if (!note.empty() && note.back() == '-') note += ' ';
  return note;
}

void open_platform(std::ostringstream& x, const std::vector<std::string>& notes) {
  x << "<?xml version=\"1.0\"?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
    << "<!-- Written by ddlcalibrate from measurements on the machine it ran on; regenerate, do "
       "not edit. -->\n";
  for (const std::string& n : notes) x << "<!-- " << comment_text(n) << " -->\n";
  x << "<platform version=\"4.1\">\n  <zone id=\"calibrated\" routing=\"Full\">\n";
}

void prop_line(std::ostringstream& x, const char* id, const std::string& value,
               const std::string& why) {
  x << "    <prop id=\"" << id << "\" value=\"" << value << "\"/><!-- " << why << " -->\n";
}

void local_work_props(std::ostringstream& x, const PlatformModel& m) {
  if (!m.memory_factors.empty())
    prop_line(x, prop::kMemoryFactors, m.memory_factors,
              "reduce throughput (all ranks) at each size / memory_bandwidth / 3");
  if (!m.peer_read_factors.empty())
    prop_line(
        x, prop::kPeerReadFactors, m.peer_read_factors,
        "bidirectional exchange into buffers the peer has just read / into own buffers, per size");
}

void gpu_link(std::ostringstream& x, const PlatformModel& m, int r) {
  x << "    <link id=\"gpu" << r << "-link\" bandwidth=\"" << number(m.host_bandwidth)
    << "Bps\" latency=\"" << number(m.route_latency / 2)
    << "s\" sharing_policy=\"SPLITDUPLEX\"/><!-- split duplex: a rank's inbound and outbound "
       "copies do not slow each other -->\n";
}

// A node's shared memory: the bus of calibrate/platform_model.hpp under the name `id`.
void bus_link(std::ostringstream& x, const PlatformModel& m, const std::string& id) {
  const double bottleneck = std::min(m.host_bandwidth, m.bus_bandwidth);
  x << "    <link id=\"" << id << "\" bandwidth=\"" << number(m.bus_bandwidth)
    << "Bps\" latency=\"0s\" sharing_policy=\"SHARED\">"
    << "<!-- all copies share the machine's cores and memory: "
    << number(m.bus_bandwidth / bottleneck) << " lone flows' worth -->\n";
  if (!m.bus_by_flows.empty()) {
    std::string by_flows, worth;
    for (const FlowCapacity& c : m.bus_by_flows) {
      by_flows += (by_flows.empty() ? "" : ";") + std::to_string(c.flows) + ":" +
                  number(c.bandwidth / m.bus_bandwidth);
      worth += (worth.empty() ? "" : ", ") + std::to_string(c.flows) + " flows " +
               number(c.bandwidth / bottleneck);
    }
    x << "      <prop id=\"" << prop::kCapacityByFlows << "\" value=\"" << by_flows << "\"/>"
      << "<!-- capacity with n flows in flight / bandwidth, fitted per flow count "
      << "(lone flows' worth: " << worth << ") -->\n";
  }
  x << "    </link>\n";
}

void route(std::ostringstream& x, int a, int b, const std::vector<std::string>& links) {
  x << "    <route src=\"gpu" << a << "\" dst=\"gpu" << b << "\" symmetrical=\"NO\">";
  for (const std::string& l : links) x << "<link_ctn id=\"" << l << "\"/>";
  x << "</route>\n";
}

std::string up(const std::string& link) {
  return link + "\" direction=\"UP";
}
std::string down(const std::string& link) {
  return link + "\" direction=\"DOWN";
}
std::string gpu(int r) {
  return "gpu" + std::to_string(r) + "-link";
}

std::string flat_xml(const PlatformModel& m, const std::vector<std::string>& notes) {
  const MessageFactors f =
      message_factors(m.pingpong, m.route_latency, std::min(m.host_bandwidth, m.bus_bandwidth));
  std::ostringstream x;
  open_platform(x, notes);
  x << "    <prop id=\"" << prop::kDims << "\" value=\"" << m.ranks << "\"/>\n"
    << "    <prop id=\"" << prop::kGpus << "\" value=\"" << m.ranks << "\"/>\n";
  prop_line(x, prop::kLatFactors, f.latency,
            "ping-pong fit: latency of each size range / route latency");
  prop_line(x, prop::kBwFactors, f.bandwidth,
            "ping-pong fit: bandwidth of each size range / route bottleneck");
  local_work_props(x, m);
  for (int r = 0; r < m.ranks; ++r)
    x << "    <host id=\"gpu" << r << "\" speed=\"1Gf\"><prop id=\"" << prop::kRank << "\" value=\""
      << r << "\"/><prop id=\"" << prop::kMemoryBandwidth << "\" value=\""
      << number(m.memory_bandwidth)
      << "\"/></host><!-- memory_bandwidth: measured reduce throughput x 3 -->\n";
  x << "    <router id=\"center\"/>\n";
  for (int r = 0; r < m.ranks; ++r) gpu_link(x, m, r);
  bus_link(x, m, "bus");
  for (int a = 0; a < m.ranks; ++a)
    for (int b = 0; b < m.ranks; ++b)
      if (a != b) route(x, a, b, {up(gpu(a)), "bus", down(gpu(b))});
  x << "  </zone>\n</platform>\n";
  return x.str();
}

void network_link(std::ostringstream& x, const std::string& id, double bandwidth, double latency,
                  const std::string& why) {
  x << "    <link id=\"" << id << "\" bandwidth=\"" << number(bandwidth) << "Bps\" latency=\""
    << number(latency) << "s\" sharing_policy=\"SPLITDUPLEX\"/><!-- " << why << " -->\n";
}

// A node's n<i>-duplex (calibrate/network_model.hpp): both directions of its NIC together.
void duplex_link(std::ostringstream& x, const NetworkModel& n, const std::string& id) {
  std::string by_flows, worth;
  for (const DuplexFactor& d : n.duplex_by_flows) {
    by_flows += (by_flows.empty() ? "" : ";") + std::to_string(d.flows) + ":" + number(d.factor);
    worth += (worth.empty() ? "" : ", ") + std::to_string(d.flows) + " flows " + number(d.factor);
  }
  x << "    <link id=\"" << id << "\" bandwidth=\"" << number(n.nic_bandwidth)
    << "Bps\" latency=\"0s\" sharing_policy=\"SHARED\">"
    << "<!-- both directions of the NIC at once: slower than each direction alone -->\n"
    << "      <prop id=\"" << prop::kCapacityByFlows << "\" value=\"" << by_flows << "\"/>"
    << "<!-- capacity with n flows crossing it (both ways) / the NIC's, fitted to the NIC patterns "
    << "both ways (NICs' worth: " << worth << ") -->\n"
    << "    </link>\n";
}

// pair<a>-<b> (calibrate/network_model.hpp): both directions between two ranks of different
// nodes together.
std::string pair_id(int a, int b) {
  return "pair" + std::to_string(std::min(a, b)) + "-" + std::to_string(std::max(a, b));
}

void pair_link(std::ostringstream& x, const NetworkModel& n, int a, int b) {
  x << "    <link id=\"" << pair_id(a, b) << "\" bandwidth=\""
    << number(n.nic_bandwidth * n.pair_factor)
    << "Bps\" latency=\"0s\" sharing_policy=\"SHARED\"/><!-- ranks " << a << " and " << b
    << " both ways at once: " << number(n.pair_factor)
    << " NICs' worth, fitted to the NIC's exchange pattern -->\n";
}

// leaf<j>-duplex (calibrate/network_model.hpp): both directions of leaf j's uplink together.
std::string uplink_duplex_id(int leaf) {
  return "leaf" + std::to_string(leaf) + "-duplex";
}

void uplink_duplex_link(std::ostringstream& x, const NetworkModel& n, int leaf) {
  const std::string why =
      "both directions of the uplink at once: " + number(n.uplink_duplex_factor) +
      " NICs' worth, fitted to the uplink pattern both ways";
  x << "    <link id=\"" << uplink_duplex_id(leaf) << "\" bandwidth=\""
    << number(n.nic_bandwidth * n.uplink_duplex_factor)
    << "Bps\" latency=\"0s\" sharing_policy=\"SHARED\"/><!-- " << why << " -->\n";
}

// NIC k of node i, and its duplex link, as platforms/emulated.py names them: n<i>-nic with one
// NIC per node (the names calibration has always written), n<i>-nic<k> with rails.
std::string nic_id(const Topology& t, int node, int k) {
  const std::string id = "n" + std::to_string(node) + "-nic";
  return t.nics == 1 ? id : id + std::to_string(k);
}
std::string duplex_id(const Topology& t, int node, int k) {
  const std::string id = "n" + std::to_string(node) + "-duplex";
  return t.nics == 1 ? id : id + std::to_string(k);
}

std::string multi_level_xml(const PlatformModel& m, const std::vector<std::string>& notes) {
  const NetworkModel& n = *m.network;
  const Topology& t = n.topology;
  if (t.ranks() != m.ranks)
    throw InvalidArgument("calibration: a topology of " + std::to_string(t.ranks()) +
                          " ranks on a platform of " + std::to_string(m.ranks));
  const bool duplex = !n.duplex_by_flows.empty();
  std::ostringstream x;
  open_platform(x, notes);
  x << "    <prop id=\"" << prop::kDims << "\" value=\"" << t.dims() << "\"/>\n"
    << "    <prop id=\"" << prop::kGpus << "\" value=\"" << m.ranks << "\"/>\n";
  const MessageFactors node =
      message_factors(m.pingpong, m.route_latency, std::min(m.host_bandwidth, m.bus_bandwidth));
  prop_line(x, prop::kNodeLatFactors, node.latency,
            "ping-pong inside node 0: latency of each size range / route latency");
  prop_line(x, prop::kNodeBwFactors, node.bandwidth,
            "ping-pong inside node 0: bandwidth of each size range / route bottleneck");
  for (const ClassFit& c : n.classes) {
    const MessageFactors f = message_factors(c.pingpong, c.route_latency, c.bottleneck);
    const bool leaf = c.link_class == LinkClass::leaf;
    const std::string pair = leaf                          ? "node 0 to node 1"
                             : t.leaves == 1 && t.nics > 1 ? "rail 0 to rail 1"
                                                           : "leaf 0 to leaf 1";
    prop_line(x, leaf ? prop::kLeafLatFactors : prop::kSpineLatFactors, f.latency,
              "ping-pong " + pair + ": latency of each size range / route latency");
    prop_line(x, leaf ? prop::kLeafBwFactors : prop::kSpineBwFactors, f.bandwidth,
              "ping-pong " + pair + ": bandwidth of each size range / route bottleneck");
  }
  local_work_props(x, m);
  for (int r = 0; r < m.ranks; ++r)
    x << "    <host id=\"gpu" << r << "\" speed=\"1Gf\"><prop id=\"" << prop::kRank << "\" value=\""
      << r << "\"/><prop id=\"" << prop::kNode << "\" value=\"" << t.node_of(r) << "\"/><prop id=\""
      << prop::kLeaf << "\" value=\"" << t.leaf_of(r) << "\"/><prop id=\"" << prop::kMemoryBandwidth
      << "\" value=\"" << number(m.memory_bandwidth) << "\"/></host>\n";
  for (int r = 0; r < m.ranks; ++r) gpu_link(x, m, r);
  // Every NIC of a rails node has the calibrated figures: the patterns load one NIC with the
  // ranks of its rail (G / M), and the emulated rails are shaped alike.
  for (int i = 0; i < t.nodes(); ++i) {
    bus_link(x, m, "n" + std::to_string(i) + "-shm");
    for (int k = 0; k < t.nics; ++k) {
      network_link(x, nic_id(t, i, k), n.nic_bandwidth, n.nic_latency,
                   t.nics == 1 ? "what the node's ranks move through it at once, each direction"
                               : "what the ranks of its rail move through it at once, each "
                                 "direction");
      if (duplex) duplex_link(x, n, duplex_id(t, i, k));
    }
  }
  if (n.pair_factor > 0)
    for (int a = 0; a < m.ranks; ++a)
      for (int b = a + 1; b < m.ranks; ++b)
        if (t.class_between(a, b) != LinkClass::node) pair_link(x, n, a, b);
  // One uplink per leaf switch: L with one NIC per node, L * M with rails (leaf g * M + k).
  if (t.leaf_switches() > 1)
    for (int j = 0; j < t.leaf_switches(); ++j) {
      network_link(x, "leaf" + std::to_string(j) + "-up", n.uplink_bandwidth, n.uplink_latency,
                   "fitted to one flow per node of a leaf crossing it at once, each direction");
      if (n.uplink_duplex_factor > 0) uplink_duplex_link(x, n, j);
    }
  for (int a = 0; a < m.ranks; ++a)
    for (int b = 0; b < m.ranks; ++b) {
      if (a == b) continue;
      const std::string na = "n" + std::to_string(t.node_of(a)),
                        nb = "n" + std::to_string(t.node_of(b));
      if (t.class_between(a, b) == LinkClass::node) {
        route(x, a, b, {up(gpu(a)), na + "-shm", down(gpu(b))});
        continue;
      }
      // Between nodes: the source's NIC (and duplex), any uplinks, the destination's; each rank
      // uses its own NIC (slot mod M), as platforms/emulated.py's route().
      const int node_a = t.node_of(a), node_b = t.node_of(b);
      const int nic_a = t.nic_of(a), nic_b = t.nic_of(b);
      std::vector<std::string> links{up(nic_id(t, node_a, nic_a))};
      if (duplex) links.push_back(duplex_id(t, node_a, nic_a));
      if (n.pair_factor > 0) links.push_back(pair_id(a, b));
      if (t.class_between(a, b) == LinkClass::spine) {
        links.push_back(up("leaf" + std::to_string(t.leaf_of(a)) + "-up"));
        if (n.uplink_duplex_factor > 0) links.push_back(uplink_duplex_id(t.leaf_of(a)));
        if (n.uplink_duplex_factor > 0) links.push_back(uplink_duplex_id(t.leaf_of(b)));
        links.push_back(down("leaf" + std::to_string(t.leaf_of(b)) + "-up"));
      }
      if (duplex) links.push_back(duplex_id(t, node_b, nic_b));
      links.push_back(down(nic_id(t, node_b, nic_b)));
      route(x, a, b, links);
    }
  x << "  </zone>\n</platform>\n";
  return x.str();
}

}  // namespace

MessageFactors message_factors(const std::vector<Segment>& segments, double route_latency,
                               double bottleneck) {
  MessageFactors f;
  for (const Segment& s : segments) {
    std::string from = f.latency.empty() ? "" : ";";
    from += std::to_string(s.from_bytes);
    from += ':';
    f.latency += from + number(s.latency_s / route_latency);
    f.bandwidth += from + number(s.bandwidth() / bottleneck);
  }
  return f;
}

std::string platform_xml(const PlatformModel& m, const std::vector<std::string>& notes) {
  if (m.ranks < 2) throw InvalidArgument("calibration: a platform needs at least 2 ranks");
  return m.network ? multi_level_xml(m, notes) : flat_xml(m, notes);
}

}  // namespace ddl::calibrate
