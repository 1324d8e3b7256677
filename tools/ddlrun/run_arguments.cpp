#include "tools/ddlrun/run_arguments.hpp"

#include <sstream>

#include "algorithms/error.hpp"
#include "harness/arguments.hpp"
#include "harness/data_dir.hpp"
#include "harness/sizes.hpp"
#include "harness/trace.hpp"

namespace po = boost::program_options;

namespace ddl {

void print_help(std::ostream& out, const po::options_description& desc) {
  out << "Usage: mpirun -np P ddlrun [options]\n\n"
         "Runs collectives on this machine's ranks through Open MPI (host memory) or CUDA (GPU\n"
         "memory) and prints time, algbw and busbw per size, as ddlsim does for a simulated "
         "machine.\n\n"
      << desc
      << "\nTimes are the median over -n iterations after -w warm-ups; each iteration is the "
         "slowest\n"
         "rank's time after a barrier. --dims defaults to (ranks per node) x (nodes) from MPI's\n"
         "node-local split, just P on one node. Every wait is bounded by --timeout: a lost "
         "message\n"
         "stops the job with an error naming rank, peer, tag and operation.\n"
         "--trace FILE records every operation of every iteration (warm-ups too) of the size "
         "sweep, on\n"
         "clocks aligned to rank 0's; rank 0 writes the file (not with --workload). ddltrace FILE\n"
         "--chrome OUT.json exports it for Perfetto.\n\n"
         "Examples:\n"
         "  mpirun -np 4 ddlrun --algo all -b 1K -e 64M -f 4 --check --baseline mpi\n"
         "  mpirun -np 4 ddlrun --algo ring,ddl --dims 2x2 -d half -o max --format csv\n"
         "  mpirun -np 8 --map-by slot ddlrun --memory cuda --algo ddl -b 1M -e 256M\n"
         "  mpirun -np 2 ddlrun --workload resnet50 --compute-scale 0.01 --algo ring,ddl --format "
         "csv\n";
}

std::string canonical(const RunArguments& a) {
  std::ostringstream s;
  const harness::CommonOptions& c = a.common;
  s << "sizes=" << harness::format_size(c.sizes.front()) << ".."
    << harness::format_size(c.sizes.back()) << "(" << c.sizes.size()
    << ") dtype=" << to_string(c.dtype) << " op=" << to_string(c.op) << " n=" << c.iters
    << " w=" << c.warmup << " check=" << c.check << " algo=";
  for (const std::string& n : c.algos) s << n << ";";
  s << " dims=" << (c.dims ? c.dims->to_string() : "default") << " segment=" << c.segment_bytes
    << " rings=" << c.rings << " memory=" << a.setup.memory << " transport=" << a.setup.transport
    << " timeout=" << a.setup.timeout_s << " pages=" << to_string(a.setup.pages)
    << " baseline=" << a.baseline_mpi << " auto_by=" << (a.auto_measured ? "measured" : "model");
  s << " methods=";
  for (IntraMethod m : c.methods) s << (m == IntraMethod::ring ? "ring;" : "hd;");
  if (a.workload) s << canonical(*a.workload);
  if (a.trace) s << " trace=" << *a.trace;
  // What auto runs for each size: ranks reading different plans would run different schedules.
  if (c.plan_file) s << " plan=" << *c.plan_file;
  return s.str();
}

RunArguments parse_run_arguments(int argc, char** argv, po::options_description& desc) {
  harness::CommonDefaults defaults;
  defaults.min_bytes = "8";
  defaults.max_bytes = "64M";
  defaults.iters = 20;
  defaults.warmup = 5;
  defaults.time_statistic = "median";
  desc.add_options()("help,h", "this help");
  harness::add_common_options(desc, defaults);
  // clang-format off
  desc.add_options()
      ("memory", po::value<std::string>()->default_value("host"), "buffers in host or cuda (GPU) memory")
      ("transport", po::value<std::string>()->default_value("mpi"),
       "mpi (CUDA-aware if Open MPI supports it, else staged through pinned host memory) or nccl")
      ("pages", po::value<std::string>()->default_value("4k"),
       "host buffers in 4k (the allocator's) pages or huge (2 MB transparent huge pages, where the "
       "kernel offers them: one-sided copies between ranks then pin 512x fewer pages)")
      ("baseline", po::value<std::string>(), "mpi: also time the MPI collective of --coll (MPI_Allreduce, MPI_Alltoall, ...) on the same buffers")
      ("auto-by", po::value<std::string>()->default_value("measured"),
       "what auto chooses by without --plan: measured (each size's fastest of ddl's algorithms "
       "and MPI_Allreduce, timed on these ranks at the first auto collective and cached per "
       "machine; with host memory and default algorithm options) or model (the analytical "
       "model on a uniform network, as ddlsim without figures)")
      ("timeout", po::value<std::string>()->default_value("300"),
       "seconds any single wait may take before the run stops with an error (finite, at most 1e6)");
  // clang-format on
  desc.add_options()("trace", po::value<std::string>(), harness::kTraceFlagHelp);
  add_workload_options(desc);
  const po::variables_map vm = harness::parse_arguments(argc, argv, desc, "ddlrun");
  RunArguments a;
  if (vm.count("help")) {
    a.help = true;
    return a;
  }
  a.common = harness::read_common_options(vm);
  a.setup =
      parse_setup(vm["memory"].as<std::string>(), vm["transport"].as<std::string>(),
                  harness::parse_seconds(vm["timeout"].as<std::string>(), "timeout", kMaxTimeout),
                  vm["pages"].as<std::string>());
  if (vm.count("baseline")) {
    const std::string b = vm["baseline"].as<std::string>();
    if (b != "mpi") throw InvalidArgument("unknown --baseline '" + b + "' (known: mpi)");
    a.baseline_mpi = true;
    if (a.common.format == harness::Format::nccl)
      throw InvalidArgument(
          "--baseline mpi adds a column block nccl-tests' table has no place for: use "
          "--format table, csv or json with it");
    // One baseline per size: the MPI collective of the algorithms', so they must share one.
    for (const std::string& n : a.common.algos)
      if (find_algorithm(n).collective != find_algorithm(a.common.algos.front()).collective)
        throw InvalidArgument(
            "--baseline mpi times one MPI collective per size, but --algo mixes " +
            std::string(to_string(find_algorithm(a.common.algos.front()).collective)) + " (" +
            a.common.algos.front() + ") and " +
            std::string(to_string(find_algorithm(n).collective)) + " (" + n +
            "): give the algorithms of one --coll");
  }
  const std::string by = vm["auto-by"].as<std::string>();
  if (by != "measured" && by != "model")
    throw InvalidArgument("unknown --auto-by '" + by + "' (known: measured, model)");
  a.auto_measured = by == "measured";
  // The shipped workloads: <prefix>/share/ddl when installed, else the source tree.
  a.workload =
      read_workload_arguments(vm, vm.count("workload") ? harness::data_dir() + "/workloads" : "");
  if (vm.count("trace")) {
    if (a.workload)
      throw InvalidArgument(
          "--trace records collective sweeps, not --workload runs (see ddlrun --help)");
    if (a.common.format == harness::Format::nccl)
      throw InvalidArgument(
          "--trace labels in-place calls only, and --format nccl adds out-of-place ones: trace "
          "with --format table, csv or json");
    a.trace = vm["trace"].as<std::string>();
    harness::trace_format_for(*a.trace);  // a bad extension fails alike on every rank
  }
  return a;
}

}  // namespace ddl
