// What a calibration measured, apart from how it is fitted: the medians and spreads of one
// ddlcalibrate launch, read back from its JSON report, several launches combined into one, and
// the fit, platform model and report built from any of these. No MPI here, so combining and
// refitting run without a machine and are unit-tested.
//
// Why launches are combined: on a shared machine one launch is one draw (buffers land on
// different physical pages, co-tenants come and go): the same ping-pong has been measured 1.3x
// apart in launches a minute apart, while repetitions inside a launch agree within a few
// percent. The median over launches of each point's median is what a platform should encode.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "calibrate/fit.hpp"
#include "calibrate/platform_model.hpp"
#include "calibrate/topology.hpp"

namespace ddl::calibrate {

// A contended message pattern as the report names it ("bidirectional", "pairs", "ring").
struct PatternShape {
  std::string name;
  int flows = 0;
  int flows_per_host = 0;
};

struct MessageTimes {
  std::size_t bytes = 0;
  Spread pingpong;               // one way
  std::vector<Spread> patterns;  // one per Measurements::patterns, in its order
  // The bidirectional exchange again, into buffers the peer has just read (ReceiveBuffers::
  // peer_read): measured when the other patterns land in own buffers, absent otherwise. Its
  // ratio to the bidirectional exchange becomes the platform's ddl_peer_read_factors.
  std::optional<Spread> bidirectional_peer_read;
};

// A pattern between nodes as the report names it ("nic_one_way", "nic_bidirectional", "uplink").
struct NetworkShape {
  std::string name;
  int flows_per_nic = 0;     // flows through one direction of the busiest NIC
  int flows_per_uplink = 0;  // the same for the busiest uplink (0: none crosses one)
};

// One link class between nodes: rank 0's ping-pong with its partner of that class
// (Topology::pingpong_peer) and the patterns measured in it, over its own sizes.
struct ClassMessages {
  LinkClass link_class = LinkClass::leaf;
  std::vector<NetworkShape> patterns;
  std::vector<MessageTimes> messages;  // increasing bytes; patterns in `patterns` order
};

struct LocalTimes {
  std::size_t bytes = 0;
  Spread alone, all_ranks;  // seconds of one operation on `bytes`
};

struct Measurements {
  int ranks = 0;
  int reps = 0;                         // repetitions per point in each launch
  int launches = 1;                     // > 1: every Spread is over the launches' medians
  std::string receive_buffers = "own";  // where messages landed (calibrate/measure.hpp)
  std::vector<std::string> sources;     // the reports combined (empty: measured by this process)
  // The nodes and leaves the ranks were on; reports without one were of a single node.
  Topology topology;
  // Inside a node (node 0's ranks; one node: every rank).
  std::vector<PatternShape> patterns;
  std::vector<MessageTimes> messages;  // increasing bytes
  // Between nodes: the leaf and spine classes the topology has, in that order.
  std::vector<ClassMessages> network;
  std::vector<std::pair<std::string, LocalTimes>> reduce;  // per dtype, at the reduce buffer size
  std::vector<LocalTimes> reduce_float_by_size;            // increasing bytes
  // The operands' state in reduce_float_by_size (calibrate/measure.hpp: "received" or, in
  // reports written before ddlcalibrate timed it so, "hot").
  std::string by_size_operands = "received";
  LocalTimes copy;
};

// Reads a ddlcalibrate report. InvalidArgument naming `source` and what is missing or malformed.
Measurements read_report(const nlohmann::ordered_json& report, const std::string& source);

// Per point, the median over launches of the launches' medians, with min, quartiles and max
// over them. One launch comes back unchanged (refitting a report). InvalidArgument, naming the
// sources, when launches differ in ranks, topology, sizes, patterns or local timings.
Measurements combine(const std::vector<Measurements>& launches,
                     const std::vector<std::string>& sources);

struct Calibration {
  std::vector<Segment> fit;       // of the ping-pong medians inside a node
  PlatformModel model;            // what platform_xml() writes
  nlohmann::ordered_json report;  // measurements, fit, per-pattern model error, platform figures
};

// Fits the ping-pong medians (fit_piecewise with `tolerance`), derives memory bandwidth and
// factors from float reduce and peer-read factors from the two bidirectional exchanges, fits
// the bus to the contended patterns (choose_capacities), and, with several nodes, each class
// between them and the links (fit_network); builds the report; `platform_file` is recorded in
// it.
Calibration fit_measurements(const Measurements& m, double tolerance,
                             const std::string& platform_file);

}  // namespace ddl::calibrate
