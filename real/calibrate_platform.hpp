// From measurements to a SimGrid platform of this machine (and back, for checking).
//
// Model: p GPU-like hosts gpu0..gpu<p-1> (ddl_rank r, memory_bandwidth from the measured reduce
// throughput), each with its own link to a central router. A message i -> j crosses host i's
// link, the shared "bus" and host j's link:
//   - ping-pong (one flow alone) is reproduced by the piecewise fit: the route latency is the
//     first size range's latency and each range's latency and bandwidth are latency/bandwidth
//     factors of the route (root zone properties ddl_lat_factors / ddl_bw_factors, which
//     sim/platform.cpp installs as SimGrid factor callbacks);
//   - contention is capacity: SimGrid caps a flow at (bandwidth factor x route bottleneck) but
//     flows crossing one link share that link's own capacity. Host links are SHARED (a rank's
//     sends and receives are copies done by the same core) and the bus is SHARED (all ranks share
//     the machine's cores and memory). Their capacities are fitted to the bidirectional, pairs
//     and ring measurements (see choose_capacities), never below the fastest single flow, so
//     the ping-pong stays exact.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "real/calibrate_fit.hpp"

namespace ddl::calibrate {

// Measured per-flow time of `flows_per_host` flows through each host link and `flows` through
// the bus, at one size (median over repetitions).
struct ContendedPoint {
  double bytes = 0;
  double seconds = 0;
  int flows = 0;           // concurrent flows in the whole machine
  int flows_per_host = 0;  // flows (in + out) crossing the busiest host link
};

struct PlatformModel {
  int ranks = 0;
  std::vector<Segment> pingpong;  // one flow alone
  double route_latency = 0;       // s, host link + host link (bus has none)
  double host_bandwidth = 0;      // B/s, capacity of each host link
  double bus_bandwidth = 0;       // B/s, capacity of the bus
  double memory_bandwidth = 0;    // B/s, what the simulator divides 3n (reduce) by
  std::string lat_factors, bw_factors;
  // ddl_memory_factors ("BYTES:FACTOR;..."): float sum reduce throughput with every rank
  // reducing, per size, relative to the throughput memory_bandwidth stands for; empty: none.
  std::string memory_factors;
};

// The simulated per-flow time of a contended point on `model`, as CM02 computes it.
double predict(const PlatformModel& model, const ContendedPoint& point);

// Host and bus capacities (starting from model_from_pingpong's, the least that keeps a lone
// flow exact) that best fit the contended points (least squares on relative
// error over candidate capacities), each at least the fastest single flow.
void choose_capacities(PlatformModel& model, const std::vector<ContendedPoint>& points);

// Fills route latency, factor strings and default capacities from the ping-pong fit.
// `largest_bytes`: the largest calibrated size (where the last range ends).
PlatformModel model_from_pingpong(int ranks, const std::vector<Segment>& pingpong, double largest_bytes,
                                  double memory_bandwidth);

// The platform file; `notes` become XML comments (where the figures come from).
std::string platform_xml(const PlatformModel& model, const std::vector<std::string>& notes);

}  // namespace ddl::calibrate
