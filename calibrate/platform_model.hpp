// From measurements to the model of a node's shared memory (and back, for checking); the
// links between nodes are calibrate/network_model.hpp, the file calibrate/platform_xml.hpp.
//
// Model: p GPU-like hosts gpu0..gpu<p-1> (ddl_rank r, memory_bandwidth from the measured reduce
// throughput), each with its own link to a central router. A message i -> j crosses host i's
// link (up), the shared "bus" and host j's link (down):
//   - ping-pong (one flow alone) is reproduced by the piecewise fit: the route latency is the
//     first size range's latency and each range's latency and bandwidth are latency/bandwidth
//     factors of the route (root zone properties ddl_lat_factors / ddl_bw_factors, which
//     sim/platform.cpp installs as SimGrid factor callbacks);
//   - contention is capacity. SimGrid 3.32 applies a flow's bandwidth factor f as a weight: the
//     flow moves f bytes per byte of link capacity it is given (measured: sim_pingpong
//     --pattern), so flows of one size crossing a link of capacity C get f C / n each whatever f
//     is, and capacities only carry *relative* slowdowns. Host links are SPLITDUPLEX with the
//     capacity R that factors are relative to: on shared memory the receiver's core does the
//     copy, so a rank's one inbound and one outbound flow do not slow each other, two inbound
//     ones halve. The bus is shared with capacity k R: k flows at once run at the lone speed,
//     more share k R (k is about the machine's cores that copy at once). k depends on how many
//     flows are in flight: four concurrent copies move less in all than two when they evict
//     each other's lines (measured here: two messages each way at 256 KB take 2.7x a lone one,
//     one each way 1.1x), which no single max-min capacity expresses. So k is fitted per flow
//     count to the contended patterns of that count (bidirectional: 2; two_each_way, pairs and
//     ring: 4; see choose_capacities), and the bus carries it as ddl_capacity_by_flows, which
//     sim/platform.cpp installs as a SimGrid NONLINEAR sharing callback.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "calibrate/fit.hpp"
#include "calibrate/network_model.hpp"

namespace ddl::calibrate {

// Measured per-flow time of `flows_per_host` flows through one direction of the busiest host
// link and `flows` through the bus, at one size (median over repetitions).
struct ContendedPoint {
  double bytes = 0;
  double seconds = 0;
  int flows = 0;           // concurrent flows in the whole machine
  int flows_per_host = 0;  // flows in one direction of the busiest host link
};

// The fastest link the simulator loads (1 PB/s: sim/quantity.cpp refuses more): every capacity
// the calibration writes stays at or below it, "unlimited" included.
constexpr double kLargestBandwidth = 1e15;

struct FlowCapacity {
  int flows = 0;
  double bandwidth = 0;  // B/s
};

struct PlatformModel {
  int ranks = 0;                  // every rank of the machine (all nodes)
  std::vector<Segment> pingpong;  // one flow alone inside a node
  double route_latency = 0;       // s, host link + host link (bus has none)
  double host_bandwidth = 0;      // B/s, R: each direction of each host link (factors' reference)
  double bus_bandwidth = 0;       // B/s, k R: the bus at its widest (its capacity in the file)
  // The bus by concurrent flows, ascending: from each count (up to the next) a capacity in B/s;
  // below the first count, and when empty, bus_bandwidth.
  std::vector<FlowCapacity> bus_by_flows;
  double memory_bandwidth = 0;  // B/s, what the simulator divides 3n (reduce) by
  // ddl_memory_factors ("BYTES:FACTOR;..."): float sum reduce throughput with every rank
  // reducing, per size, relative to the throughput memory_bandwidth stands for; empty: none.
  std::string memory_factors;
  // ddl_peer_read_factors ("BYTES:FACTOR;..."): a bidirectional exchange into buffers the peer
  // has just read, per size, relative to one into the receivers' own buffers; empty: none.
  std::string peer_read_factors;
  // Several nodes: the links between them. Absent: one node, the flat platform.
  std::optional<NetworkModel> network;
};

// The least capacity under which a lone flow still keeps its fitted time: the range's own
// bandwidth, or, for a range that is flat in size (pure latency), the capacity whose transfer
// time adds at most 0.5 % to the fit at the range's largest size.
double lone_flow_capacity(const std::vector<Segment>& segments, double largest_bytes);

// The bus capacity (B/s) with `flows` flows crossing it.
double bus_capacity(const PlatformModel& model, int flows);

// The simulated per-flow time of a contended point on `model`, as CM02 computes it.
double predict(const PlatformModel& model, const ContendedPoint& point);

// Per flow count among the contended points whose lone time is mostly transfer (latency-bound
// ones carry no capacity information), the bus capacity k R (k >= 1) that best fits that count's
// points: least squares on relative error over the k each point implies alone and "unlimited"
// (k = 1000). bus_bandwidth becomes the largest, bus_by_flows every count's; no such point: one
// unlimited bus.
void choose_capacities(PlatformModel& model, const std::vector<ContendedPoint>& points);

// Fills route latency, factor strings and default capacities from the ping-pong fit.
// `largest_bytes`: the largest calibrated size (where the last range ends).
PlatformModel model_from_pingpong(int ranks, const std::vector<Segment>& pingpong,
                                  double largest_bytes, double memory_bandwidth);

}  // namespace ddl::calibrate
