// The SimGrid platform file of a calibrated machine (what ddlsim --platform loads).
//
// One node (PlatformModel::network absent): the flat shared-memory platform of
// calibrate/platform_model.hpp: hosts gpu<r>, a split-duplex link gpu<r>-link each, one SHARED
// link `bus`, routes gpu<a>-link UP, bus, gpu<b>-link DOWN; the ping-pong's factors as the
// class-less ddl_lat_factors / ddl_bw_factors.
//
// Several nodes: the names of the nominal platform of the same cluster (platforms/emulated.py),
// so traces and plots of either line up. Hosts gpu<r> also carry ddl_node and ddl_leaf; each
// node's bus is n<i>-shm (inside it the same model as one node), its NIC n<i>-nic, each leaf's
// uplink leaf<j>-up (calibrate/network_model.hpp), and where the NIC patterns measured both
// ways call for it, n<i>-duplex (SHARED, ddl_capacity_by_flows), crossed by every route between
// nodes after the source's NIC and before the destination's; one Full zone with a route per
// ordered pair of hosts. Every class's factors are its own root properties (ddl_node_*, ddl_leaf_*,
// ddl_spine_*), relative to its own route, so no class-less table is written.
//
// Rails (Topology::nics M > 1, as platforms/emulated.py writes them): node i has M NICs
// n<i>-nic<k> (and n<i>-duplex<k> where a duplex is fitted), each with the calibrated NIC's
// figures; uplinks leaf<j>-up for the L * M leaves (leaf g * M + k: group g, rail k); a rank uses
// NIC slot mod M, and crosses the uplinks unless the other rank's NIC is on its leaf. ddl_leaf is
// the leaf of the host's own NIC.
#pragma once

#include <string>
#include <vector>

#include "calibrate/fit.hpp"
#include "calibrate/platform_model.hpp"

namespace ddl::calibrate {

// A class's factor properties: per size range of `segments`, its latency / `route_latency` and
// its bandwidth / `bottleneck` ("FROM:FACTOR;...").
struct MessageFactors {
  std::string latency, bandwidth;
};
MessageFactors message_factors(const std::vector<Segment>& segments, double route_latency,
                               double bottleneck);

// `notes` become XML comments (where the figures come from), with any "--" spaced apart (XML
// does not allow it in a comment).
std::string platform_xml(const PlatformModel& model, const std::vector<std::string>& notes);

}  // namespace ddl::calibrate
