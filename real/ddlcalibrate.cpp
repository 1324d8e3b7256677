// ddlcalibrate: measure this machine as ddlrun's ranks see it and write a SimGrid platform of
// it (plus a JSON report) that ddlsim loads. Run with mpirun on the ranks to be predicted:
//   mpirun -np 4 ddlcalibrate --output calibrated_4.xml
// Measures, over message sizes: ping-pong (rank 0 <-> 1), bidirectional exchange (0 <-> 1),
// concurrent pairs and ring steps (every rank at once), and the bidirectional exchange again
// into buffers the peer has just read (the platform's ddl_peer_read_factors); and local reduce /
// copy throughput per dtype, alone and on every rank at once, and float reduce over sizes of what a
// ring step has just brought in (the platform's memory factors). The bus capacity is fitted per
// count of flows in flight (ddl_capacity_by_flows). See calibrate_platform.hpp for the model.
// `ddlcalibrate --combine A.json B.json ...` fits one platform to the median over the reports of
// separate launches (calibrate_report.hpp).
#include <mpi.h>

#include <algorithm>
#include <boost/program_options.hpp>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>

#include "algorithms/error.hpp"
#include "harness/sizes.hpp"
#include "real/calibrate_fit.hpp"
#include "real/calibrate_measure.hpp"
#include "real/calibrate_platform.hpp"
#include "real/calibrate_report.hpp"
#include "real/mpi_error.hpp"

namespace po = boost::program_options;
using namespace ddl;
using namespace ddl::calibrate;
using json = nlohmann::ordered_json;

namespace {

struct Args {
  std::string output, report;
  std::vector<std::string> combine;  // reports to combine instead of measuring
  std::vector<std::size_t> sizes;
  int reps = 15;
  std::size_t reduce_bytes = 0;
  double tolerance = 0.03;
  ReceiveBuffers receive = ReceiveBuffers::own;
};

Args parse(int argc, char** argv, bool& help) {
  po::options_description desc("Options");
  desc.add_options()("help,h", "this help")
      ("output", po::value<std::string>(), "platform file to write (SimGrid XML)")
      ("report", po::value<std::string>(), "JSON report to write (default: the platform file with .json)")
      ("combine", po::value<std::vector<std::string>>()->multitoken(),
       "REPORT.json...: instead of measuring, fit the platform to the median over these reports of "
       "separate launches (one report: refit it); runs without mpirun")
      ("reps", po::value<int>()->default_value(15), "repetitions per measurement (the median is used)")
      ("minbytes,b", po::value<std::string>()->default_value("8"), "smallest message size")
      ("maxbytes,e", po::value<std::string>()->default_value("64M"), "largest message size")
      ("stepfactor,f", po::value<std::string>()->default_value("2"), "size multiplier between sizes")
      ("reduce-bytes", po::value<std::string>()->default_value("4M"), "buffer size of the reduce/copy timings")
      ("receive-buffers", po::value<std::string>()->default_value("own"),
       "where messages land: own (last written by the receiver, as a reused scratch buffer; the "
       "exchange is also timed into peer-read buffers for the platform's ddl_peer_read_factors) or "
       "peer-read (every pattern lands in lines last read by the peer, as a ring's allgather receives "
       "into what it sent; no factors then)")
      ("fit-tolerance", po::value<double>()->default_value(0.03, "0.03"),
       "largest relative misfit of one latency/bandwidth pair before a new size range starts");
  po::variables_map vm;
  try {
    po::store(po::parse_command_line(argc, argv, desc), vm);
    po::notify(vm);
  } catch (const po::error& e) {
    throw InvalidArgument(std::string(e.what()) + " (see ddlcalibrate --help)");
  }
  Args a;
  help = vm.count("help") > 0;
  if (help) {
    std::cout
        << "Usage: mpirun -np P ddlcalibrate --output PLATFORM.xml [options]\n"
           "       ddlcalibrate --combine A.json B.json ... --output PLATFORM.xml\n\n"
           "Measures message latency and bandwidth over sizes (ping-pong, bidirectional,\n"
           "two each way, concurrent pairs, ring steps; the bidirectional exchange also into\n"
           "buffers the peer has just read) through the same communicator ddlrun uses, local\n"
           "reduce/copy throughput per dtype, and over sizes a reduce of what a ring step has\n"
           "just brought in; then writes a P-host SimGrid platform of this machine for ddlsim\n"
           "and a JSON report (medians, quartiles, fit and residuals). On a shared machine one\n"
           "launch is one draw: calibrate in several launches and --combine their reports.\n\n"
        << desc
        << "\nExamples:\n"
           "  mpirun -np 2 ddlcalibrate --output calibrated_2.xml -b 8 -e 64M --reps 20\n"
           "  ddlcalibrate --combine run1.json run2.json run3.json --output calibrated_2.xml\n";
    return a;
  }
  if (vm.count("combine"))
    for (const std::string& r : vm["combine"].as<std::vector<std::string>>())
      if (r.rfind("-", 0) == 0)
        throw InvalidArgument("--combine takes report files, not '" + r + "': give its files right after it (see ddlcalibrate --help)");
  if (!vm.count("output")) throw InvalidArgument("--output PLATFORM.xml is required (see ddlcalibrate --help)");
  a.output = vm["output"].as<std::string>();
  a.report = vm.count("report") ? vm["report"].as<std::string>()
                                : a.output.substr(0, a.output.rfind(".xml")) + ".json";
  a.tolerance = vm["fit-tolerance"].as<double>();
  if (!(a.tolerance > 0 && a.tolerance < 1)) throw InvalidArgument("--fit-tolerance must be in (0, 1)");
  if (vm.count("combine")) {
    for (const char* flag : {"reps", "minbytes", "maxbytes", "stepfactor", "reduce-bytes", "receive-buffers"})
      if (!vm[flag].defaulted())
        throw InvalidArgument(std::string("--") + flag + " sets what is measured; with --combine the reports' "
                              "measurements are used (see ddlcalibrate --help)");
    a.combine = vm["combine"].as<std::vector<std::string>>();
    for (const std::string& r : a.combine)
      if (r == a.report) throw InvalidArgument("--combine would overwrite its input '" + r + "': choose another --output or --report");
    return a;
  }
  a.reps = vm["reps"].as<int>();
  if (a.reps < 3) throw InvalidArgument("--reps must be at least 3 (a median and quartiles need them)");
  const std::size_t factor = harness::parse_size(vm["stepfactor"].as<std::string>());
  a.sizes = harness::size_sweep(harness::parse_size(vm["minbytes"].as<std::string>()),
                                harness::parse_size(vm["maxbytes"].as<std::string>()), factor);
  if (a.sizes.size() < 2) throw InvalidArgument("calibration needs at least 2 message sizes (-b < -e)");
  a.reduce_bytes = harness::parse_size(vm["reduce-bytes"].as<std::string>());
  if (a.reduce_bytes < 4096) throw InvalidArgument("--reduce-bytes must be at least 4K");
  try {
    a.receive = parse_receive_buffers(vm["receive-buffers"].as<std::string>());
  } catch (const InvalidArgument& e) {
    throw InvalidArgument(std::string("--receive-buffers: ") + e.what() + " (see ddlcalibrate --help)");
  }
  return a;
}

// Local work `bytes` long, on rank 0 alone and on every rank at once.
template <typename Time>
LocalTimes local_times(std::size_t bytes, Time&& time) {
  return {bytes, summarize(time(false)), summarize(time(true))};
}

// Everything this launch measures (collective: every rank takes part; valid on every rank).
Measurements measure(MpiCommunicator& comm, const Args& args) {
  Measurements m;
  m.ranks = comm.size();
  m.reps = args.reps;
  m.receive_buffers = to_string(args.receive);
  // Messages: one flow alone, then the contended patterns.
  // two_each_way loads each direction of a rank's link with two flows (a 2-rank dbtree's step):
  // with 2 ranks, the only pattern that does.
  std::vector<Pattern> kinds = {Pattern::bidirectional, Pattern::two_each_way};
  m.patterns.push_back({to_string(Pattern::bidirectional), 2, 1});
  m.patterns.push_back({to_string(Pattern::two_each_way), 4, 2});
  if (m.ranks >= 4) {
    kinds.push_back(Pattern::pairs);
    m.patterns.push_back({to_string(Pattern::pairs), m.ranks / 2 * 2, 1});
  }
  if (m.ranks >= 3) {
    kinds.push_back(Pattern::ring);
    m.patterns.push_back({to_string(Pattern::ring), m.ranks, 1});
  }
  for (std::size_t bytes : args.sizes) {
    MessageTimes t{bytes, summarize(time_pattern(comm, Pattern::pingpong, bytes, args.reps, args.receive)), {}, std::nullopt};
    for (Pattern p : kinds) t.patterns.push_back(summarize(time_pattern(comm, p, bytes, args.reps, args.receive)));
    // What landing in just-read lines costs (the platform's ddl_peer_read_factors); when every
    // pattern already lands there, there is nothing to compare with.
    if (args.receive == ReceiveBuffers::own)
      t.bidirectional_peer_read =
          summarize(time_pattern(comm, Pattern::bidirectional, bytes, args.reps, ReceiveBuffers::peer_read));
    if (comm.rank() == 0)
      std::cerr << "ddlcalibrate: " << harness::format_size(bytes) << " one-way " << t.pingpong.median * 1e6 << " us\n";
    m.messages.push_back(std::move(t));
  }
  // Local work: every dtype at --reduce-bytes; float over a size sweep (4K to the largest
  // message, doubling: the reduces a collective does are message-sized), since the caches make
  // throughput depend on size, which the platform carries as ddl_memory_factors. The sweep
  // reduces what a ring step has just brought in, as a collective does: on hot operands the
  // same reduce runs 1.5-2x faster at 64 KB-1 MB here, and the simulator's reduces all follow a
  // receive.
  for (DType t : all_dtypes())
    m.reduce.emplace_back(std::string(to_string(t)), local_times(args.reduce_bytes, [&](bool all) {
                            return time_reduce(comm, t, args.reduce_bytes, args.reps, all);
                          }));
  for (std::size_t bytes : harness::size_sweep(4096, std::max<std::size_t>(args.sizes.back(), 8192), 2))
    m.reduce_float_by_size.push_back(local_times(bytes, [&](bool all) {
      return time_reduce(comm, DType::float32, bytes, args.reps, all, Operands::received);
    }));
  m.by_size_operands = to_string(Operands::received);
  m.copy = local_times(args.reduce_bytes, [&](bool all) { return time_copy(comm, args.reduce_bytes, args.reps, all); });
  return m;
}

Measurements read_reports(const std::vector<std::string>& files) {
  std::vector<Measurements> launches;
  for (const std::string& f : files) {
    std::ifstream in(f);
    if (!in) throw InvalidArgument("calibration report '" + f + "' cannot be read");
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

void write_outputs(const Args& args, const Measurements& m) {
  const Calibration c = fit_measurements(m, args.tolerance, args.output);
  std::string origin = "ranks " + std::to_string(m.ranks) + ", " + std::to_string(m.reps) + " repetitions per point";
  if (m.launches > 1) origin += ", median over " + std::to_string(m.launches) + " launches";
  if (m.receive_buffers != "own") origin += ", messages received into " + m.receive_buffers + " buffers";
  std::ofstream xml(args.output);
  xml << platform_xml(
      c.model,
      {origin + "; report: " + args.report,
       "memory_bandwidth = 3 x float sum reduce throughput with every rank reducing at once",
       "ddl_memory_factors = float sum reduce throughput at each size, " + sweep_note(m) +
           ", over memory_bandwidth / 3"});
  std::ofstream rep(args.report);
  rep << c.report.dump(1) << "\n";
  if (!xml || !rep) throw BackendError("cannot write '" + args.output + "' or '" + args.report + "'");
  std::cout << summary_text(m, c, args.report);
}

int run(int argc, char** argv) {
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  Args args;
  bool help = false;
  try {
    args = parse(argc, argv, help);
    if (!help && args.combine.empty() && size < 2) throw InvalidArgument("run on at least 2 ranks (mpirun -np 2 or more)");
    if (!help && !args.combine.empty() && size > 1) throw InvalidArgument("--combine runs as one process, without mpirun");
  } catch (const Error& e) {
    if (rank == 0) std::cerr << "ddlcalibrate: " << e.what() << "\n";
    return 2;
  }
  if (help) return 0;
  if (!args.combine.empty()) {
    try {
      write_outputs(args, read_reports(args.combine));
    } catch (const Error& e) {
      // One process, nothing to abort: bad reports exit 2, an unwritable output 1.
      std::cerr << "ddlcalibrate: " << e.what() << "\n";
      return dynamic_cast<const InvalidArgument*>(&e) ? 2 : 1;
    }
    return 0;
  }
  MpiCommunicator comm(MPI_COMM_WORLD, 120);
  const Measurements m = measure(comm, args);
  if (rank == 0) write_outputs(args, m);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rc = 0;
  try {
    rc = run(argc, argv);
  } catch (const std::exception& e) {
    abort_world("ddlcalibrate", e.what(), 1);
  }
  MPI_Finalize();
  return rc;
}
