// Everything one ddlcalibrate launch measures, in order: inside node 0 (ping-pong, the
// contended patterns, the exchange into peer-read buffers), then each class between nodes
// (ping-pong with rank 0's partner of the class, how flows share a NIC and an uplink), then
// local work. Collective over the world; the result is valid on every rank.
#pragma once

#include <cstddef>
#include <vector>

#include "calibrate/measure.hpp"
#include "calibrate/report.hpp"
#include "calibrate/topology.hpp"

namespace ddl::calibrate {

struct LaunchPlan {
  std::vector<std::size_t> sizes;          // messages inside a node
  std::vector<std::size_t> network_sizes;  // messages between nodes (the network is slower)
  int reps = 15;
  std::size_t reduce_bytes = 4 << 20;
  ReceiveBuffers receive = ReceiveBuffers::own;
};

Measurements measure_launch(MpiCommunicator& comm, const Topology& topology,
                            const LaunchPlan& plan);

}  // namespace ddl::calibrate
