// The names of the SimGrid platform properties that ddlcalibrate writes and sim/platform.cpp
// reads: one list, so the writer and the reader cannot drift apart. No dependencies: sim/
// includes it without linking anything. What each property means is documented where it is
// read (sim/platform.hpp, sim/README.md).
#pragma once

namespace ddl::platform_property {

// GPU hosts.
inline constexpr const char* kRank = "ddl_rank";                     // the rank on this host
inline constexpr const char* kMemoryBandwidth = "memory_bandwidth";  // bytes/s of local work
inline constexpr const char* kNode = "ddl_node";  // index of the node the host is in
inline constexpr const char* kLeaf = "ddl_leaf";  // index of the leaf switch of that node

// Switch hosts: where a switch that reduces runs (no ddl_rank; sim/switch_model.hpp).
inline constexpr const char* kSwitchLevel = "ddl_switch_level";      // 0 node (NVLS), 1 network
inline constexpr const char* kSwitchMembers = "ddl_switch_members";  // ranks, "0,1,2,3"
inline constexpr const char* kSwitchReduceRate = "ddl_switch_reduce_rate";  // input bytes/s
inline constexpr const char* kSwitchChunk = "ddl_switch_chunk";             // bytes

// The root zone.
inline constexpr const char* kDims = "ddl_dims";  // natural grid, e.g. "2x2x2"
inline constexpr const char* kGpus = "ddl_gpus";  // number of GPU hosts
// Per-message factors, "BYTES:FACTOR;...": every message (kLatFactors, kBwFactors), or only the
// messages of one link class, which override those for their class (sim/platform.hpp).
inline constexpr const char* kLatFactors = "ddl_lat_factors";
inline constexpr const char* kBwFactors = "ddl_bw_factors";
inline constexpr const char* kNodeLatFactors = "ddl_node_lat_factors";  // same node
inline constexpr const char* kNodeBwFactors = "ddl_node_bw_factors";
inline constexpr const char* kLeafLatFactors = "ddl_leaf_lat_factors";  // same leaf, 2 nodes
inline constexpr const char* kLeafBwFactors = "ddl_leaf_bw_factors";
inline constexpr const char* kSpineLatFactors = "ddl_spine_lat_factors";  // 2 leaves
inline constexpr const char* kSpineBwFactors = "ddl_spine_bw_factors";
inline constexpr const char* kMemoryFactors = "ddl_memory_factors";
inline constexpr const char* kPeerReadFactors = "ddl_peer_read_factors";

// Links.
inline constexpr const char* kCapacityByFlows = "ddl_capacity_by_flows";  // "FLOWS:FACTOR;..."

}  // namespace ddl::platform_property
