// Which hosts of a platform run the ranks, for platforms that do not say so themselves (no host
// carries ddl_rank): a plain SimGrid file, a <cluster>, a hand-written zone. The ranks follow a
// hostfile in SMPI's format, or else every host of the platform in SimGrid's host order
// (Engine::get_all_hosts(): by name, compared as strings, so node-10 comes before node-2).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "algorithms/dims.hpp"

namespace simgrid::s4u {
class Engine;
class Host;
}  // namespace simgrid::s4u

namespace ddl::sim {

// A GPU's memory bandwidth where neither the host's memory_bandwidth property nor
// --memory-bandwidth gives one: an H100 SXM5's HBM3, 3.35 TB/s (NVIDIA H100 Tensor Core GPU
// datasheet; platforms/SOURCES.md), the GPU the shipped DGX H100 platforms model.
inline constexpr double kDefaultMemoryBandwidth = 3.35e12;

// How to run on a platform beyond what the file says (ddlsim's --hostfile, --memory-bandwidth).
struct PlatformChoice {
  std::optional<std::string> hostfile;
  std::optional<double> memory_bandwidth;  // bytes/s
  bool exact = false;  // play every step: no step extrapolation (sim/step_extrapolation.hpp)
};

// One line of a hostfile: "HOST" (one rank) or "HOST:N" (N ranks, consecutive), as SMPI's
// smpirun takes it; blank lines and lines starting with '#' are skipped, spaces around trimmed.
struct HostfileLine {
  std::string host;
  int ranks = 1;
  std::size_t line = 0;  // 1-based, for messages
};
// Throws InvalidArgument naming the file and line for an unreadable file, a bad N (an integer
// from 1 to 1048576), an empty host name, or no host at all.
std::vector<HostfileLine> read_hostfile(const std::string& file);

// "3.35e12", "3350GBps" (SimGrid's bandwidth units; no unit: bytes/s) -> bytes/s, finite and
// > 0; otherwise InvalidArgument naming --memory-bandwidth and the text.
double parse_memory_bandwidth(const std::string& text);

struct RankHosts {
  std::vector<simgrid::s4u::Host*> hosts;  // index = rank
  std::optional<Dims> natural_dims;        // ranks-per-host x hosts when every host has as many
};
// The ranks of a platform without ddl_rank: the hostfile's (every host must exist) or every
// host's, one rank each. Each host is its own node: with a hostfile giving every one of H > 1
// distinct hosts the same N > 1 ranks, the natural grid is NxH (the ranks of a host innermost).
// InvalidArgument for a platform without hosts or a hostfile host it lacks.
RankHosts choose_rank_hosts(simgrid::s4u::Engine& engine, const std::string& file,
                            const std::optional<std::string>& hostfile);

}  // namespace ddl::sim
