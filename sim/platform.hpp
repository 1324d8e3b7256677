// The simulated machine: a SimGrid platform file whose GPU hosts carry `ddl_rank` (their rank)
// and `memory_bandwidth` (bytes/s, what local reduce and copy cost), and whose top zone may
// carry `ddl_dims` (the natural grid, e.g. "4x8x8"); or any SimGrid platform without them, whose
// ranks follow a hostfile or the host order (sim/platform_ranks.hpp). Everything here runs
// before the simulation starts; one Engine per process (a SimGrid rule).
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "algorithms/dims.hpp"
#include "sim/platform_ranks.hpp"
#include "sim/step_extrapolation.hpp"
#include "sim/switch_model.hpp"

namespace simgrid::s4u {
class Engine;
class Host;
}  // namespace simgrid::s4u

namespace ddl::sim {

// Creates the process's Engine with the network model this project uses (see sim/README.md):
// CM02 with the TCP window disabled (TCP-gamma 1e18) and no cross-traffic, i.e. every
// message costs route latency + bytes / bottleneck bandwidth, links shared fairly. It must be
// the model calibration feeds, so it is set here in code, not left to command lines. `cfg`
// ("name:value", ddlsim's --cfg) is set after it, so it may change the model: InvalidArgument
// naming the item for one without ':', a name SimGrid does not know, a value of the wrong type,
// or, for the options whose bad values abort SimGrid (the models, optims and solvers), a value
// it does not offer; contexts/factory, fixed when the Engine starts, is refused (sim/README.md
// lists which options change results).
simgrid::s4u::Engine& start_engine(const char* program, const std::vector<std::string>& cfg = {});

// Piecewise per-message factor, as calibration writes it (root zone properties
// `ddl_lat_factors` and `ddl_bw_factors`, "BYTES:FACTOR;BYTES:FACTOR;..."): a message of n bytes
// takes the factor of the largest threshold <= n (1 below the first threshold). SimGrid
// multiplies a message's route latency by the latency factor and caps its rate at the bandwidth
// factor times the route's bottleneck bandwidth (links shared by several flows still share
// their own, unscaled capacity).
struct FactorStep {
  std::size_t from_bytes = 0;
  double factor = 1;
  bool operator==(const FactorStep&) const = default;
};
using FactorTable = std::vector<FactorStep>;

// Throws InvalidArgument quoting `text` unless it is ';'-separated "BYTES:FACTOR" pairs with
// strictly increasing BYTES and finite factors (> 0 for bandwidth, >= 0 for latency). `unit`
// names what the thresholds count in messages ("flow": "FLOWS:FACTOR", a flow count).
FactorTable parse_factors(std::string_view text, bool allow_zero, std::string_view unit = "byte");
double factor_at(const FactorTable& table, double bytes);

// A message of `bytes` over a route of `route_latency` and `bottleneck`, inside an operation of
// `footprint` bytes (0: none): its latency (the latency factor at its own size) and transfer
// time (bandwidth factor), where in a larger footprint the transfer is at least what makes the
// message take bytes / footprint of a footprint-sized message's time (Platform::footprint_bytes).
// The rule the bandwidth factor callback applies, and the model column's α and β.
struct PieceTime {
  double latency = 0;   // s
  double transfer = 0;  // s
};
PieceTime piece_time(const FactorTable& latency_factors, const FactorTable& bandwidth_factors,
                     double bytes, double footprint, double route_latency, double bottleneck);

// The link class of a message between two GPU hosts that carry `ddl_node` and `ddl_leaf`: same
// node, same leaf (two nodes), or two leaves. The root zone properties ddl_<class>_lat_factors /
// ddl_<class>_bw_factors (class: node, leaf, spine) give a class its own factor tables; a class
// without one uses the class-less ddl_lat_factors / ddl_bw_factors (each kind alone).
enum class MessageClass { node = 0, leaf = 1, spine = 2 };
inline constexpr int kMessageClasses = 3;

struct HostPlace {
  int node = 0;
  int leaf = 0;
};

struct Platform {
  std::string file;
  std::vector<simgrid::s4u::Host*> gpus;  // index = rank
  std::vector<double> memory_bandwidth;   // bytes/s, index = rank
  std::optional<Dims> natural_dims;       // the top zone's ddl_dims, else the hostfile's grid
  FactorTable latency_factors;            // empty: every factor is 1
  FactorTable bandwidth_factors;
  // GPU hosts with ddl_node and ddl_leaf (all of them or none): index = rank; empty: none, and
  // every message takes the class-less tables above.
  std::vector<HostPlace> places;
  // With places: per MessageClass, the class's tables (its own or the class-less ones).
  std::array<FactorTable, kMessageClasses> class_latency_factors, class_bandwidth_factors;
  // Root zone property `ddl_memory_factors` ("BYTES:FACTOR;...", factors > 0): a local
  // operation on n bytes runs at memory_bandwidth x factor_at(memory_factors, n), because a
  // real machine's reduce/copy throughput depends on whether the operands fit its caches.
  // Empty: every size runs at memory_bandwidth.
  FactorTable memory_factors;
  // Root zone property `ddl_peer_read_factors` ("BYTES:FACTOR;...", factors > 0): a message of
  // n bytes that lands in bytes its receiver last sent (and has not written since) takes
  // factor_at(peer_read_factors, n) times its time into the receiver's own bytes: those lines
  // were last read by another core, which must give them up before they are written. A ring's
  // allgather receives into exactly such bytes, the chunks its reduce-scatter sent.
  // ddlcalibrate measures it inside a node (shared memory), so with places it applies to
  // messages inside a node only (peer_read_factor); empty: no such cost (every factor 1).
  FactorTable peer_read_factors;
  // Bytes of the collective being simulated (0: unknown). Where bytes sit in the caches depends
  // on the footprint of the whole operation, not on the piece one message or reduce moves: a
  // 64 KB chunk of a 64 MB allreduce streams from memory. So messages follow piece_time() and
  // memory factors are looked up at max(piece, footprint). Shared with the bandwidth factor
  // callback; whoever runs a collective sets it (the sweep, per case).
  std::shared_ptr<double> footprint_bytes = std::make_shared<double>(0.0);
  // Whether long runs of alike steps may end early (sim/step_extrapolation.hpp; PlatformChoice::
  // exact turns it off), and what did, over every rank of every case since the platform was
  // loaded. Shared like footprint_bytes: every rank's communicator adds to it.
  bool extrapolate_steps = true;
  std::shared_ptr<ExtrapolationStats> extrapolation = std::make_shared<ExtrapolationStats>();

  // Switches that reduce (sim/switch_model.hpp), and by rank the index among them of the one
  // serving it at each SwitchLevel (-1: none).
  std::vector<SwitchDomain> switches;
  std::vector<std::array<int, kSwitchLevels>> switch_of;

  // The factor tables of a message from rank `src` to rank `dst` (the class-less ones without
  // places).
  struct MessageFactors {
    const FactorTable& latency;
    const FactorTable& bandwidth;
  };
  MessageFactors message_factors(int src, int dst) const;
  // The size at which the memory factor of local work on `bytes` is looked up.
  double memory_factor_key(double bytes) const { return std::max(bytes, *footprint_bytes); }
  int ranks() const { return static_cast<int>(gpus.size()); }
};

// The class of a message between hosts at `a` and `b`.
MessageClass message_class(const HostPlace& a, const HostPlace& b);

// Throws InvalidArgument naming a pair of ranks that do not share memory when one of `algos`
// needs ranks that all do (Algorithm::needs_shared_memory): ranks of two nodes, or any two of a
// platform without places (SimCommunicator::shares_memory_with). Checked before any actor
// runs, so the error leaves the simulation as one message.
void require_shared_memory(const Platform& platform, const std::vector<std::string>& algos);

// Bits 1 << SwitchLevel of the levels of in-switch reduction every rank has (sim/switch_model.hpp).
unsigned switch_levels(const Platform& platform);
// Throws InvalidArgument naming the first of `algos` that needs in-switch reduction at a level
// some rank lacks on this platform (Algorithm::needs_in_switch), and that rank; and `native`
// (a library the simulator does not have). Checked before any actor runs, so the error leaves
// the simulation as one message.
void require_in_switch(const Platform& platform, const std::vector<std::string>& algos);

// The peer-read factor of a message of `bytes` from rank `src` to rank `dst`: factor_at of
// peer_read_factors inside a node (or without places), 1 between nodes, where the network, not
// where the receiver's cache lines are, sets a message's pace.
double peer_read_factor(const Platform& platform, int src, int dst, double bytes);

// Loads `file` into the engine and collects the GPU hosts. Before SimGrid sees the file, its
// nesting, values and routes are checked (sim/platform_precheck.hpp, sim/platform_outline.hpp);
// after loading, the routes between the GPU hosts (sim/platform_routes.hpp). GPU hosts: those
// with ddl_rank; without any, the hosts `choice.hostfile` names or every host
// (choose_rank_hosts), a hostfile with ddl_rank hosts being refused. A GPU host without
// memory_bandwidth takes choice.memory_bandwidth, else kDefaultMemoryBandwidth; a
// choice.memory_bandwidth that no host would take is refused. Throws InvalidArgument for a missing
// file, a file SimGrid cannot parse, no hosts, ranks that are not 0..p-1 exactly once, a
// non-positive memory_bandwidth, a ddl_dims that does not fit, or malformed factors;
// for ddl_node / ddl_leaf on some GPU hosts only, one without the other, not a non-negative
// integer, or one node on two leaves; and for per-class factors without them.
// When the root zone carries ddl_lat_factors / ddl_bw_factors (or per-class ones), installs them
// as the network model's per-message factor callbacks (a message's tables: message_factors);
// ddl_memory_factors (malformed: InvalidArgument) scales local work by size (see
// Platform::memory_factors). A link carrying `ddl_capacity_by_flows`
// ("FLOWS:FACTOR;...", factors > 0) has, with n flows crossing it, its bandwidth x the factor of
// the largest count <= n (1 below the first): a capacity that depends on how many flows share
// it (ddlcalibrate's bus), installed as SimGrid's NONLINEAR sharing policy; on a link that is
// not SHARED it is refused (InvalidArgument).
Platform load_platform(simgrid::s4u::Engine& engine, const std::string& file,
                       const PlatformChoice& choice = {});

// --dims when given (its product must equal the GPU count), else the platform's ddl_dims,
// else one flat dimension.
Dims choose_dims(const Platform& platform, const std::optional<Dims>& requested);

}  // namespace ddl::sim
