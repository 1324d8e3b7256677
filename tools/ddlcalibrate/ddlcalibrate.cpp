// ddlcalibrate: measure this machine as ddlrun's ranks see it and write a SimGrid platform of
// it (plus a JSON report) that ddlsim loads. Run with mpirun on the ranks to be predicted:
//   mpirun -np 4 ddlcalibrate --output calibrated_4.xml
// On one node it measures shared memory (calibrate/launch.hpp: ping-pong, contended patterns,
// the exchange into just-read buffers, local reduce / copy) and writes the flat platform; on
// several (nodes from MPI's shared-memory split, --nodes-per-leaf K of them per leaf switch)
// it also measures each class between nodes and how flows share a NIC and an uplink, and
// writes the multi-level platform (calibrate/platform_xml.hpp).
// `ddlcalibrate --combine A.json B.json ...` fits one platform to the median over the reports of
// separate launches (calibrate/report.hpp).
#include <mpi.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>

#include "algorithms/error.hpp"
#include "calibrate/control.hpp"
#include "calibrate/launch.hpp"
#include "calibrate/node_topology.hpp"
#include "calibrate/platform_xml.hpp"
#include "calibrate/report.hpp"
#include "calibrate/summary.hpp"
#include "harness/arguments.hpp"
#include "harness/output_file.hpp"
#include "harness/sizes.hpp"
#include "real/mpi/bounded_mpi.hpp"
#include "real/mpi/mpi_error.hpp"
#include "tools/mpi_main/mpi_main.hpp"

namespace po = boost::program_options;
using namespace ddl;
using namespace ddl::calibrate;
using json = nlohmann::ordered_json;

namespace {

constexpr double kMaxTimeout = 1e6;
constexpr double kDefaultTimeout = 120;  // --timeout's default

struct Args {
  std::string output, report;
  std::vector<std::string> combine;  // reports to combine instead of measuring
  LaunchPlan plan;
  std::size_t network_max = 0;
  int nodes_per_leaf = 0;  // 0: every node in one leaf
  int nics = 1;            // NICs (rails) per node: slot s uses NIC s mod nics
  double timeout = kDefaultTimeout;
  double tolerance = 0.03;
};

const char* const kHelp =
    "Usage: mpirun -np P ddlcalibrate --output PLATFORM.xml [options]\n"
    "       ddlcalibrate --combine A.json B.json ... --output PLATFORM.xml\n\n"
    "Measures message latency and bandwidth over sizes (ping-pong, bidirectional,\n"
    "two each way, concurrent pairs, ring steps; the bidirectional exchange also into\n"
    "buffers the peer has just read) through the same communicator ddlrun uses, local\n"
    "reduce/copy throughput per dtype, and over sizes a reduce of what a ring step has\n"
    "just brought in; then writes a P-host SimGrid platform of this machine for ddlsim\n"
    "and a JSON report (medians, quartiles, fit and residuals). On a shared machine one\n"
    "launch is one draw: calibrate in several launches and --combine their reports.\n\n"
    "On several nodes (ranks placed node by node: mpirun --map-by slot) inside a node is\n"
    "measured on node 0's ranks, and between nodes, per class (leaf: rank 0 with node 1;\n"
    "spine: rank 0 with leaf 1), the ping-pong, G flows through a NIC one way and both ways,\n"
    "one flow each way through it by two pairs of ranks and by one pair (G >= 2), and one\n"
    "flow per node of a leaf through its uplink (and one each way by two pairs, G >= 2), over\n"
    "sizes up to --network-maxbytes. What a run costs: each pattern between nodes about\n"
    "2 x reps x (the sum of its sizes) / the link's rate, e.g. 4 s at 500 Mbit/s (~60 MB/s),\n"
    "15 reps, 8 B..4 MB by 2; a leaf class has 5 patterns (3 with G = 1), a spine class 3 (2).\n"
    "Measured: 8 ranks on the emulated cluster (cluster/ddlcluster, 2 x 2 x 2, 500mbit) with\n"
    "--reps 15 -b 8 -e 4M: 47 s.\n\n";

Args parse(int argc, char** argv, bool& help) {
  po::options_description desc("Options");
  desc.add_options()("help,h", "this help")("output", po::value<std::string>(),
                                            "platform file to write (SimGrid XML)")(
      "report", po::value<std::string>(),
      "JSON report to write (default: the platform file with .json)")(
      "combine", po::value<std::vector<std::string>>()->multitoken(),
      "REPORT.json...: instead of measuring, fit the platform to the median over these reports of "
      "separate launches (one report: refit it); runs without mpirun")(
      "reps", po::value<std::string>()->default_value("15"),
      "repetitions per measurement (the median is used)")(
      "minbytes,b", po::value<std::string>()->default_value("8"), "smallest message size")(
      "maxbytes,e", po::value<std::string>()->default_value("64M"), "largest message size")(
      "stepfactor,f", po::value<std::string>()->default_value("2"),
      "size multiplier between sizes")(
      "network-maxbytes", po::value<std::string>()->default_value("4M"),
      "largest message between nodes (the sizes of -b/-e/-f up to it; the network is slower)")(
      "nodes-per-leaf", po::value<std::string>(),
      "nodes under one leaf switch (node = leaf x K + i); default: every node in one leaf")(
      "nics", po::value<std::string>()->default_value("1"),
      "NICs per node on rails (slot s uses NIC s mod M; must divide the ranks per node); must "
      "match ddlcluster up --nics M")(
      "timeout",
      po::value<std::string>()->default_value(std::to_string(static_cast<int>(kDefaultTimeout))),
      "longest any wait may take, in seconds: a rank that stops is named and the job ends")(
      "reduce-bytes", po::value<std::string>()->default_value("4M"),
      "buffer size of the reduce/copy timings")(
      "receive-buffers", po::value<std::string>()->default_value("own"),
      "where messages inside a node land: own (last written by the receiver, as a reused scratch "
      "buffer; the exchange is also timed into peer-read buffers for the platform's "
      "ddl_peer_read_factors) or peer-read (every pattern lands in lines last read by the peer, as "
      "a ring's allgather receives into what it sent; no factors then)")(
      "fit-tolerance", po::value<std::string>()->default_value("0.03"),
      "largest relative misfit of one latency/bandwidth pair before a new size range starts");
  const po::variables_map vm = harness::parse_arguments(argc, argv, desc, "ddlcalibrate");
  Args a;
  help = vm.count("help") > 0;
  if (help) {
    std::cout
        << kHelp << desc
        << "\nExamples:\n"
           "  mpirun -np 2 ddlcalibrate --output calibrated_2.xml -b 8 -e 64M --reps 20\n"
           "  mpirun -np 8 --map-by slot --hostfile hosts ddlcalibrate --nodes-per-leaf 2 --output "
           "cluster.xml\n"
           "  ddlcalibrate --combine run1.json run2.json run3.json --output calibrated_2.xml\n";
    return a;
  }
  if (vm.count("combine"))
    for (const std::string& r : vm["combine"].as<std::vector<std::string>>())
      if (r.rfind("-", 0) == 0)
        throw InvalidArgument("--combine takes report files, not '" + r +
                              "': give its files right after it (see ddlcalibrate --help)");
  if (!vm.count("output"))
    throw InvalidArgument("--output PLATFORM.xml is required (see ddlcalibrate --help)");
  a.output = vm["output"].as<std::string>();
  a.report = vm.count("report") ? vm["report"].as<std::string>()
                                : a.output.substr(0, a.output.rfind(".xml")) + ".json";
  a.tolerance = harness::parse_number(vm["fit-tolerance"].as<std::string>(), "fit-tolerance", 0, 1);
  if (vm.count("combine")) {
    harness::refuse_given(
        vm,
        {"reps", "minbytes", "maxbytes", "stepfactor", "network-maxbytes", "nodes-per-leaf", "nics",
         "timeout", "reduce-bytes", "receive-buffers"},
        "sets what is measured; with --combine the reports' measurements are used (see "
        "ddlcalibrate --help)");
    a.combine = vm["combine"].as<std::vector<std::string>>();
    return a;
  }
  a.plan.reps =
      static_cast<int>(harness::parse_integer(vm["reps"].as<std::string>(), "reps", 1, 1000000));
  if (a.plan.reps < 3)
    throw InvalidArgument("--reps must be at least 3 (a median and quartiles need them)");
  // -b/-e/-f as ddlsim and ddlrun read them (harness/cli.cpp): sizes, and an integer factor.
  const auto factor = static_cast<std::size_t>(
      harness::parse_integer(vm["stepfactor"].as<std::string>(), "stepfactor", 0, 1LL << 40));
  a.plan.sizes = harness::size_sweep(harness::parse_size(vm["minbytes"].as<std::string>()),
                                     harness::parse_size(vm["maxbytes"].as<std::string>()), factor);
  if (a.plan.sizes.size() < 2)
    throw InvalidArgument("calibration needs at least 2 message sizes (-b < -e)");
  a.network_max = harness::parse_size(vm["network-maxbytes"].as<std::string>());
  for (std::size_t s : a.plan.sizes)
    if (s <= a.network_max) a.plan.network_sizes.push_back(s);
  if (vm.count("nodes-per-leaf"))
    a.nodes_per_leaf = static_cast<int>(harness::parse_integer(
        vm["nodes-per-leaf"].as<std::string>(), "nodes-per-leaf", 1, 1 << 20));
  a.nics =
      static_cast<int>(harness::parse_integer(vm["nics"].as<std::string>(), "nics", 1, 1 << 10));
  a.timeout = harness::parse_seconds(vm["timeout"].as<std::string>(), "timeout", kMaxTimeout);
  a.plan.reduce_bytes = harness::parse_size(vm["reduce-bytes"].as<std::string>());
  if (a.plan.reduce_bytes < 4096) throw InvalidArgument("--reduce-bytes must be at least 4K");
  try {
    a.plan.receive = parse_receive_buffers(vm["receive-buffers"].as<std::string>());
  } catch (const InvalidArgument& e) {
    throw InvalidArgument(std::string("--receive-buffers: ") + e.what() +
                          " (see ddlcalibrate --help)");
  }
  return a;
}

// Before any work: the outputs are two different files, neither is an input, both writable.
void check_outputs(const Args& args) {
  check_distinct_files(args.combine, {args.output, args.report});
  check_writable(args.output);
  check_writable(args.report);
}

Measurements read_reports(const std::vector<std::string>& files) {
  std::vector<Measurements> launches;
  for (const std::string& f : files) {
    // A directory opens as an empty stream, a FIFO or a device never ends: say what it is rather
    // than "not JSON". A report of many sizes and pairs is a few MB.
    check_readable(f, "calibration report", std::uintmax_t{64} << 20);
    std::ifstream in(f);
    if (!in) throw InvalidArgument("cannot read calibration report '" + f + "'");
    json r;
    try {
      r = json::parse(in);
    } catch (const json::exception& e) {
      throw InvalidArgument("calibration report '" + f + "' is not JSON: " + e.what());
    }
    launches.push_back(read_report(r, f));
  }
  return combine(launches, files);
}

// How the reduce sweep behind ddl_memory_factors was timed, for the platform's notes.
std::string sweep_note(const Measurements& m) {
  if (m.by_size_operands == to_string(Operands::received))
    return "every rank reducing what a ring step has just brought in, written at twice the size "
           "(the step's buffer)";
  return "every rank reducing the same operands again (" + m.by_size_operands + " operands)";
}

// Both files appear whole or not at all (written beside, renamed on success).
void write_outputs(const Args& args, const Measurements& m) {
  const Calibration c = fit_measurements(m, args.tolerance, args.output);
  std::string origin =
      "ranks " + std::to_string(m.ranks) + ", " + std::to_string(m.reps) + " repetitions per point";
  if (m.launches > 1) origin += ", median over " + std::to_string(m.launches) + " launches";
  if (m.receive_buffers != "own")
    origin += ", messages received into " + m.receive_buffers + " buffers";
  AtomicOutput xml(args.output), report(args.report);
  xml.stream() << platform_xml(
      c.model,
      {origin + "; report: " + args.report,
       "memory_bandwidth = 3 x float sum reduce throughput with every rank reducing at once",
       "ddl_memory_factors = float sum reduce throughput at each size, " + sweep_note(m) +
           ", over memory_bandwidth / 3"});
  report.stream() << c.report.dump(1) << "\n";
  report.commit();
  xml.commit();
  std::cout << summary_text(m, c, args.report);
}

int combine_reports(const Args& args) {
  try {
    check_outputs(args);
    write_outputs(args, read_reports(args.combine));
  } catch (const Error& e) {
    // One process, nothing to abort: bad reports or outputs exit 2, a failed write 1.
    std::cerr << "ddlcalibrate: " << e.what() << "\n";
    return dynamic_cast<const InvalidArgument*>(&e) ? 2 : 1;
  }
  return 0;
}

// A launch on every rank: refusals are decided on rank 0 (it writes the files) or alike on
// every rank, said once by rank 0, and end every rank with status 2; a failure while measuring
// propagates (main aborts the job).
int measure(const Args& args) {
  record_ranks(MPI_COMM_WORLD, args.timeout);
  std::optional<MpiCommunicator> comm;
  {
    const WatchdogGuard guard(args.timeout, "MPI_Comm_dup (the calibration's communicator)");
    comm.emplace(MPI_COMM_WORLD, args.timeout);
  }
  std::vector<double> refused{0};
  std::string why;
  if (comm->rank() == 0) try {
      check_outputs(args);
    } catch (const InvalidArgument& e) {
      why = e.what();
      refused[0] = 1;
    }
  control_max(*comm, refused, "checking the outputs");
  Topology topology;
  try {
    if (refused[0] != 0) throw InvalidArgument(why);
    {
      const WatchdogGuard guard(args.timeout + 2 * kControlMargin,
                                "the node split (MPI_Comm_split_type)");
      topology = discover_topology(*comm, args.nodes_per_leaf, args.nics);
    }
    if (topology.nodes() > 1 && args.plan.network_sizes.size() < 2)
      throw InvalidArgument("--network-maxbytes " + harness::format_size(args.network_max) +
                            " leaves fewer than 2 message sizes between nodes");
  } catch (const InvalidArgument& e) {
    if (comm->rank() == 0) std::cerr << "ddlcalibrate: " << e.what() << "\n";
    return 2;
  }
  const Measurements m = measure_launch(*comm, topology, args.plan);
  if (comm->rank() == 0) write_outputs(args, m);
  return 0;
}

// `bounds`: how long MPI_Finalize may wait (for rank 0 writing the outputs), and how late rank 0
// may answer after a timeout (it may be in a control wait, bounded by --timeout + 2 margins).
int run(int argc, char** argv, MpiMainBounds& bounds) {
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  Args args;
  bool help = false;
  try {
    args = parse(argc, argv, help);
    if (!help && args.combine.empty() && size < 2)
      throw InvalidArgument("run on at least 2 ranks (mpirun -np 2 or more)");
    if (!help && !args.combine.empty() && size > 1)
      throw InvalidArgument("--combine runs as one process, without mpirun");
  } catch (const Error& e) {
    if (rank == 0) std::cerr << "ddlcalibrate: " << e.what() << "\n";
    return 2;
  }
  if (help) return 0;
  bounds.finalize_s = bounds.rank0_late_s = args.timeout + 2 * kControlMargin;
  return args.combine.empty() ? measure(args) : combine_reports(args);
}

}  // namespace

int main(int argc, char** argv) {
  MpiMainSettings settings;
  settings.tool = "ddlcalibrate";
  settings.default_timeout_s = kDefaultTimeout;
  return mpi_main(argc, argv, settings, [&](MpiMainBounds& bounds) {
    // Until the arguments are read, --timeout's default bounds MPI_Finalize.
    bounds.finalize_s = kDefaultTimeout;
    return run(argc, argv, bounds);
  });
}
