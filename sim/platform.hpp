// The simulated machine: a SimGrid platform file whose GPU hosts carry `ddl_rank` (their rank)
// and `memory_bandwidth` (bytes/s, what local reduce and copy cost), and whose top zone may
// carry `ddl_dims` (the natural grid, e.g. "4x8x8"). Everything here runs before the
// simulation starts; one Engine per process (a SimGrid rule).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "algorithms/dims.hpp"

namespace simgrid::s4u {
class Engine;
class Host;
}  // namespace simgrid::s4u

namespace ddl::sim {

// Creates the process's Engine with the network model this project uses (see sim/README.md):
// CM02 with the TCP window disabled (TCP-gamma 1e18) and no cross-traffic, i.e. every
// message costs route latency + bytes / bottleneck bandwidth, links shared fairly. It must be
// the model calibration feeds, so it is set here in code, not left to command lines.
simgrid::s4u::Engine& start_engine(const char* program);

struct Platform {
  std::string file;
  std::vector<simgrid::s4u::Host*> gpus;  // index = rank
  std::vector<double> memory_bandwidth;   // bytes/s, index = rank
  std::optional<Dims> natural_dims;       // the top zone's ddl_dims, when present

  int ranks() const { return static_cast<int>(gpus.size()); }
};

// Loads `file` into the engine and collects the GPU hosts. Throws InvalidArgument for a missing
// file, a file SimGrid cannot parse, no GPU hosts, ranks that are not 0..p-1 exactly once, a
// missing or non-positive memory_bandwidth, or a ddl_dims that does not fit.
Platform load_platform(simgrid::s4u::Engine& engine, const std::string& file);

// --dims when given (its product must equal the GPU count), else the platform's ddl_dims,
// else one flat dimension.
Dims choose_dims(const Platform& platform, const std::optional<Dims>& requested);

}  // namespace ddl::sim
