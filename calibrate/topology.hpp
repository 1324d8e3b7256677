// The machine a calibration measures, as a three-level hierarchy: G ranks per node (shared
// memory), K nodes per leaf switch, L leaves under one spine. Ranks are numbered node-major
// (rank = node * G + slot, node = leaf * K + index in the leaf), as mpirun's --map-by slot
// places them and as ddl's grids assume. One node (K = L = 1) is the flat shared-memory
// machine ddlcalibrate has always measured.
//
// A pair of ranks belongs to one link class: `node` (same node: shared memory), `leaf` (same
// leaf, two nodes: NIC to NIC), `spine` (two leaves: NIC, uplink, uplink, NIC).
//
// Rails (M = nics > 1, cluster/ddlcluster up --nics M): every node has M NICs; the rank in slot
// s uses NIC s mod M only, and NIC k of the nodes of group g (K nodes) plugs into leaf g * M + k.
// Two ranks of different nodes are then `leaf` only when their NICs share a leaf (same group,
// same rail: slot(a) mod M == slot(b) mod M), otherwise `spine` (NIC, uplink, uplink, NIC), even
// with one group. G must be a multiple of M, so every NIC carries G / M ranks.
#pragma once

#include <string>
#include <vector>

namespace ddl::calibrate {

enum class LinkClass { node, leaf, spine };
const char* to_string(LinkClass c);
LinkClass parse_link_class(const std::string& text);  // InvalidArgument naming text

struct Topology {
  int ranks_per_node = 1;  // G
  int nodes_per_leaf = 1;  // K
  int leaves = 1;          // L: groups of K nodes (with rails, M leaves each)
  int nics = 1;            // M: NICs (rails) per node

  int nodes() const { return nodes_per_leaf * leaves; }
  int ranks() const { return ranks_per_node * nodes(); }
  int node_of(int rank) const { return rank / ranks_per_node; }
  int slot_of(int rank) const { return rank % ranks_per_node; }
  int group_of(int rank) const { return node_of(rank) / nodes_per_leaf; }
  int nic_of(int rank) const { return slot_of(rank) % nics; }  // the rail of its NIC
  // The leaf its NIC plugs into: its group with one NIC, group * M + rail with rails.
  int leaf_of(int rank) const { return group_of(rank) * nics + nic_of(rank); }
  // Leaf switches (and so uplinks leaf<j>-up): L * M.
  int leaf_switches() const { return leaves * nics; }
  // Ranks sharing one NIC: G / M.
  int ranks_per_nic() const { return ranks_per_node / nics; }
  LinkClass class_between(int a, int b) const;
  // The classes some pair of ranks belongs to, innermost first.
  std::vector<LinkClass> classes() const;
  // The ping-pong partner of rank 0 for class `c`: rank 1, the first rank of node 1, the first
  // rank of leaf 1 (the first rank of group 1); with rails and one group, spine: the rank in
  // slot 1 of node 1 (another rail, so across the uplinks).
  int pingpong_peer(LinkClass c) const;
  // "G x K x L" as ddl_dims spells it ("2x2x2"), without outer extents of 1 (one leaf: "GxK"),
  // as platforms/generate.py writes the nominal platform; one node: the rank count.
  std::string dims() const;
  bool operator==(const Topology&) const = default;
};

// The topology of `node_of_rank` (each rank's node, labelled by any integer, e.g. the lowest
// world rank on it) with `nodes_per_leaf` nodes per leaf (0: all nodes in one leaf). Throws
// InvalidArgument, in one sentence saying what to change, when the nodes hold different numbers
// of ranks, ranks are not numbered node by node, the nodes do not fill whole leaves, or the
// nodes hold one rank each while there are several (the node class needs two ranks). `nics`
// (M, at least 1) NICs per node: refused unless it divides the ranks per node.
Topology topology_from_nodes(const std::vector<int>& node_of_rank, int nodes_per_leaf,
                             int nics = 1);

}  // namespace ddl::calibrate
