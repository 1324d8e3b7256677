// ddlsim: run the registered collectives on a SimGrid model of a machine and print the
// nccl-tests-like table (or csv / json) with the analytical model's time beside each row.

#include <algorithm>
#include <boost/program_options.hpp>
#include <filesystem>
#include <iostream>
#include <optional>

#include "algorithms/cost_model.hpp"
#include "algorithms/error.hpp"
#include "harness/arguments.hpp"
#include "harness/auto_choice.hpp"
#include "harness/cli.hpp"
#include "harness/data_dir.hpp"
#include "harness/output_file.hpp"
#include "harness/progress.hpp"
#include "harness/report.hpp"
#include "harness/sizes.hpp"
#include "harness/trace.hpp"
#include "planner/plan_file.hpp"
#include "sim/model_plan.hpp"
#include "sim/platform.hpp"
#include "sim/platform_costs.hpp"
#include "sim/route_topology.hpp"
#include "sim/sweep.hpp"
#include "tools/ddlsim/llm_main.hpp"
#include "tools/ddlsim/platform_options.hpp"
#include "tools/ddlsim/workload_main.hpp"
#include "tools/sim_ranks/sim_main.hpp"
#include "workloads/workload_cli.hpp"

namespace po = boost::program_options;
using namespace ddl;

namespace {

constexpr const char* kDefaultPlatform = "platforms/s822lc_64.xml";

void print_help(std::ostream& out, const po::options_description& desc) {
  out << "Usage: ddlsim [options]\n\n"
         "Simulates collectives on a SimGrid platform (one actor per GPU, CM02 network model) and "
         "prints\n"
         "time, algbw, busbw and the alpha-beta-gamma model's time for each size.\n\n"
      << desc
      << "\nA relative --platform is looked up in the current directory, then in ddl's data "
         "directory\n(share/ddl beside an installed ddlsim, else the source tree it was built "
         "from).\n"
         "-n defaults to 1 and -w to 0: the simulation is deterministic, repeating gives the same "
         "time.\n"
         "--check moves and reduces real bytes (payload mode) and counts wrong elements; without "
         "it no\n"
         "data moves (timing-only), so thousands of ranks x 100 MB need no memory.\n\n"
         "Your own machine (sim/README.md, platforms/README.md):\n"
         "  --platform any SimGrid file: without ddl_rank host properties every host runs one "
         "rank, in\n"
         "  SimGrid's host order (by name as strings: node-10 before node-2), or --hostfile FILE's "
         "order\n"
         "  (HOST or HOST:N per line, as SMPI's); each host is its own node; local work runs at\n"
         "  --memory-bandwidth (default 3.35e12 B/s, an H100's HBM3) where a host has no "
         "memory_bandwidth.\n"
         "  --platform NAME.json: a machine description, turned into SimGrid XML by "
         "platforms/generate.py.\n"
         "  Platforms SimGrid would abort on (zero, NaN or negative rates, duplicate or missing "
         "routes)\n"
         "  are refused with a message naming the link or host.\n\n"
         "Algorithms:\n";
  for (const Algorithm& a : algorithms())
    out << "  " << a.name << " (" << to_string(a.collective) << "): " << a.summary << "\n";
  out << "\nExamples:\n"
         "  ddlsim                                     # ddl on platforms/s822lc_64.xml, 8 B .. "
         "256 MB\n"
         "  ddlsim --algo all -b 1M -e 256M            # every allreduce side by side\n"
         "  ddlsim --algo ring,ddl --dims 4x4x4x4 -b 100M -e 100M\n"
         "  ddlsim --platform platforms/s822lc_2.xml --algo all --check -d half -o max -e 1M\n"
         "  ddlsim --format csv -b 8 -e 1G -f 4 > sweep.csv\n"
         "  mpirun -np 2 ddlsim --algo all -b 1M -e 256M  # the cases spread over 2 processes, "
         "one table\n"
         "  ddlsim --platform my_cluster.xml --hostfile hosts.txt --memory-bandwidth 2039GBps\n"
         "  ddlsim --platform platforms/descriptions/dgx_h100.json --cfg network/model:LV08\n"
         "  ddlsim --algo ring -b 1M -e 1M --platform platforms/s822lc_2.xml --trace ring.csv\n"
         "  ddltrace ring.csv --chrome ring.json      # open in ui.perfetto.dev: one process per "
         "rank\n"
         "\n--trace records every iteration (warm-ups too) of the size sweep, in simulated time; "
         "it does\n"
         "not apply to --workload.\n"
         "\nTraining iterations (--workload): forward, then backward layer by layer with each full "
         "gradient\n"
         "bucket's allreduce overlapping the rest of the backward pass (workloads/README.md):\n"
         "  ddlsim --workload resnet50                 # one iteration on platforms/s822lc_64.xml\n"
         "  ddlsim --workload resnet101 --batch 64 --bucket 64M --algo ring,ddl\n"
         "  ddlsim --workload resnet50 --platform platforms/s822lc_64.xml --sweep --format csv\n"
         "                                             # s822lc_1 .. s822lc_256: one row per GPU "
         "count\n"
         "\nLLM training steps (--llm, workloads/llm/README.md), on prices or --exact, with a "
         "Perfetto trace:\n"
         "  ddlsim --platform platforms/dgx_h100_4.xml --llm llama2_7b --layout "
         "tp=8,pp=2,dp=2,mb=8,zero=1,sp\n"
         "  ddlsim --platform platforms/dgx_h100_4.xml --llm llama2_7b --layout tp=8,pp=4,mb=8 "
         "--exact --trace step.json\n"
         "Chakra execution traces (--workload FILE.et, a PREFIX of PREFIX.RANK.et or a folder of "
         "them): every rank's\n"
         "graph played on the platform (python3 -m ddl.workload MODEL --layout L --format chakra "
         "writes them).\n";
}

// Payload mode holds a buffer, scratch and in-flight message copies per rank.
void check_payload_memory(const sim::Platform& platform, std::size_t max_bytes) {
  const double need = 3.0 * static_cast<double>(max_bytes) * platform.ranks();
  const double have =
      static_cast<double>(sysconf(_SC_PHYS_PAGES)) * static_cast<double>(sysconf(_SC_PAGE_SIZE));
  if (need > have / 2)
    throw InvalidArgument(
        "--check on " + std::to_string(platform.ranks()) + " ranks up to -e " +
        harness::format_size(max_bytes) + " needs about " + std::to_string(need / (1 << 30)) +
        " GiB, more than half of this machine's memory: lower -e or use a smaller platform");
}

std::string gbs(double beta) {
  return beta > 0 ? std::to_string(1e-9 / beta) : "inf";
}

// What the table shows above its rows; the step extrapolation note, known only once the sweep
// has run, follows them.
std::vector<std::string> header_lines(const sim::Platform& platform, const Dims& dims,
                                      const CostParams& cost, const harness::CommonOptions& o,
                                      const std::vector<std::string>& cfg, const Plan* plan,
                                      const std::string& plan_basis) {
  std::vector<std::string> h;
  h.push_back("ddlsim: platform " + platform.file + ", " + std::to_string(platform.ranks()) +
              " GPUs, dims " + dims.to_string() + ", " +
              (o.check ? "payload mode (--check)" : "timing-only mode"));
  std::string changed;
  for (const std::string& c : cfg) changed += " " + c;
  h.push_back((cfg.empty() ? std::string("network model CM02 (route latency + bytes / bottleneck "
                                         "bandwidth, fair sharing); ")
                           : "network model CM02 changed by --cfg" + changed + "; ") +
              std::to_string(o.iters) + " iteration(s), " + std::to_string(o.warmup) + " warmup");
  std::string m = "model from the platform:";
  for (std::size_t d = 0; d < cost.per_dim.size(); ++d)
    m += " dim" + std::to_string(d) + " alpha " + std::to_string(cost.per_dim[d].alpha * 1e6) +
         " us, " + gbs(cost.per_dim[d].beta) + " GB/s;";
  m += " gamma " + gbs(cost.gamma) + " GB/s of reduce result";
  h.push_back(m);
  if (plan) h.push_back(sim::describe_plan(*plan, plan_basis));
  return h;
}

int run(int argc, char** argv, sim::SweepRanks& ranks) {
  harness::CommonDefaults defaults;  // n=1, w=0: deterministic
  po::options_description desc("Options");
  desc.add_options()("help,h", "this help")(
      "platform", po::value<std::string>()->default_value(kDefaultPlatform),
      "SimGrid platform file, or a machine description NAME.json (platforms/README.md)")(
      "trace", po::value<std::string>(), harness::kTraceFlagHelp)(
      "timeout", po::value<std::string>()->default_value("3600"),
      "under mpirun: seconds a rank waits for the others' rows once its own cases are done; "
      "with --llm: seconds each pricing simulation may take");
  harness::add_common_options(desc, defaults);
  sim::add_workload_options(desc);
  sim::add_platform_options(desc);
  sim::add_llm_options(desc);
  const po::variables_map vm = harness::parse_arguments(argc, argv, desc, "ddlsim");
  if (vm.count("help")) {
    if (ranks.root()) print_help(std::cout, desc);
    return 0;
  }
  sim::check_llm_flags(vm);
  if (sim::llm_requested(vm) || sim::chakra_requested(vm)) {
    if (ranks.size() > 1)
      throw InvalidArgument(
          std::string(sim::llm_requested(vm) ? "--llm" : "a Chakra trace (--workload)") +
          " runs one simulation: run it without mpirun");
    // The report never replaces a file the run reads.
    const auto given = [&](const char* flag) {
      return vm.count(flag) ? vm[flag].as<std::string>() : std::string();
    };
    check_distinct_files({harness::resolve_data_path(given("platform")), given("llm"), given("gpu"),
                          given("workload")},
                         {given("output"), given("trace")});
    ResultOutput result(vm.count("output") ? std::optional(vm["output"].as<std::string>())
                                           : std::nullopt);
    const int rc = sim::llm_requested(vm) ? sim::run_llm_mode(vm, argv[0], result.stream())
                                          : sim::run_chakra_mode(vm, argv[0], result.stream());
    result.commit();
    return rc;
  }
  harness::CommonOptions common = harness::read_common_options(vm);
  ranks.set_timeout(harness::parse_seconds(vm["timeout"].as<std::string>(), "timeout", 1e6));
  if (ranks.size() > 1 && vm.count("trace"))
    throw InvalidArgument(
        "--trace records one process's simulation: run a traced sweep without "
        "mpirun");
  if (ranks.size() > 1 && sim::workload_requested(vm))
    throw InvalidArgument(
        "--workload runs one simulation, not a sweep to spread over mpirun's "
        "ranks: run it without mpirun");
  if (vm.count("trace") && sim::workload_requested(vm))
    throw InvalidArgument(
        "--trace records collective sweeps, not --workload runs (see ddlsim --help)");
  // Opened now: a bad path stops the tool before the simulation runs; never over an input.
  const auto given = [&](const char* flag) {
    return vm.count(flag) ? vm[flag].as<std::string>() : std::string();
  };
  check_distinct_files({harness::resolve_data_path(given("platform")), given("plan"),
                        given("hostfile"), given("workload")},
                       {given("trace"), given("output")});
  std::optional<harness::TraceFile> trace_file;
  if (vm.count("trace")) trace_file.emplace(given("trace"));
  // Rank 0 writes the one report.
  std::optional<ResultOutput> result;
  if (ranks.root()) result.emplace(common.output);
  if (sim::workload_requested(vm) && common.plan_file)
    throw InvalidArgument("--plan applies to collective sweeps, not --workload runs");
  if (vm.count("trace") && common.format == harness::Format::nccl)
    throw InvalidArgument(
        "--trace labels in-place calls only, and --format nccl adds out-of-place ones: trace with "
        "--format table, csv or json");
  if (sim::workload_requested(vm) && common.format == harness::Format::nccl)
    throw InvalidArgument(
        "--format nccl is nccl-tests' table of a collective sweep; a --workload report is table, "
        "csv or json");
  if (sim::workload_requested(vm)) {
    const int rc = sim::run_workload_mode(
        vm, common, harness::resolve_data_path(vm["platform"].as<std::string>()),
        harness::data_dir() + "/workloads", argv[0], harness::run_info("ddlsim", argc, argv),
        result->stream());
    result->commit();
    return rc;
  }
  harness::refuse_workload_flags(vm, {"sweep", "sweep-max-gpus", "no-compute-scaling"}, "ddlsim");

  const sim::PlatformFlags platform_flags = sim::read_platform_flags(vm);
  const sim::PlatformSource source(harness::resolve_data_path(vm["platform"].as<std::string>()));
  simgrid::s4u::Engine& engine = sim::start_engine(argv[0], platform_flags.cfg);
  sim::Platform platform = sim::load_platform(engine, source.xml(), platform_flags.choice);
  platform.file = source.shown();
  // `all` leaves direct out here: it is a host-memory algorithm, and one-sided copies between
  // simulated GPUs are plain transfers with no figures of their own (sim_communicator.hpp).
  common.algos = harness::runnable_algorithms(common, false, sim::switch_levels(platform));
  sim::require_shared_memory(platform, common.algos);
  sim::require_in_switch(platform, common.algos);
  const Dims dims = sim::choose_dims(platform, common.dims);
  sim::SweepConfig config = harness::sweep_cases(common, dims);
  config.options.cost = sim::platform_costs(platform, dims);
  // The contention-aware model over the platform's routes: the model column, and auto's choice
  // per size, priced once here rather than by every simulated rank.
  const sim::RouteTopology topology(platform);
  std::string plan_basis = "contention-aware cost model, platform routes";
  if (common.plan_file) {
    const PlanFile file = read_plan_file(*common.plan_file);
    harness::check_plan_fits(file.plan, *common.plan_file, common.algos, platform.ranks(),
                             "the platform has");
    config.options.plan = std::make_shared<const Plan>(file.plan);
    plan_basis = "plan file " + *common.plan_file;
  } else if (std::find(common.algos.begin(), common.algos.end(), "auto") != common.algos.end()) {
    config.options.plan = sim::model_plan(platform, topology, dims, config.sizes, config.options);
  } else {
    // Another collective's auto (alltoall_auto, ...): its picks over the routes too.
    for (const std::string& a : common.algos)
      if (find_algorithm(a).picks_others) {
        config.options.plan = sim::model_plan(platform, topology, dims, config.sizes,
                                              config.options, find_algorithm(a).collective);
        break;
      }
  }
  if (common.check) check_payload_memory(platform, common.sizes.back());

  // Only long sweeps show progress: short runs (and tests) keep stderr clean.
  std::optional<harness::Progress> shown;
  const sim::SweepProgress progress = [&](std::size_t, std::size_t total, const std::string& algo,
                                          std::size_t bytes) {
    if (!shown) shown.emplace("ddlsim", total);
    shown->step(algo + " " + harness::format_size(bytes));
  };
  // Rank 0 prints each row as soon as it and those before it are simulated.
  std::optional<harness::ReportWriter> report;
  if (ranks.root()) {
    harness::RunInfo info = harness::run_info("ddlsim", argc, argv);
    info.add("platform", platform.file);
    info.add("ranks", std::to_string(platform.ranks()));
    info.add("dims", dims.to_string());
    info.header = header_lines(platform, dims, config.options.cost, common, platform_flags.cfg,
                               config.options.plan.get(), plan_basis);
    std::vector<std::string> algos;
    for (const std::string& a : config.algos) algos.push_back(find_algorithm(a).name);
    report.emplace(result->stream(), common.format, harness::Columns{true, false}, info, algos);
  }
  const sim::CaseDone print_row = [&](std::size_t, const sim::CaseResult& r) {
    harness::Row row = harness::make_row(r.bytes, common.dtype, common.op, r.algo, dims.to_string(),
                                         r.time_s, platform.ranks());
    // The model prices in-place calls (an out-of-place row's model cell stays empty).
    if (!r.out_of_place) try {
        row.model_s =
            sim::platform_model_time(platform, topology, dims, r.algo, r.bytes, config.options);
      } catch (const InvalidArgument&) {
        // An algorithm without a model formula leaves the cell empty rather than failing the run.
      }
    row.wrong = r.wrong;
    row.out_of_place = r.out_of_place;
    row.root = config.options.root;
    row.chosen =
        harness::algorithm_run(r.algo, config.options, platform.ranks(), r.bytes, false, 0);
    if (shown) shown->end_line();
    report->add(row);
  };
  std::vector<harness::TraceEvent> trace;
  if (trace_file)
    sim::run_sweep(platform, config, progress, &trace, print_row);
  else
    sim::run_sweep_spread(ranks, platform, config, progress,
                          ranks.root() ? print_row : sim::CaseDone{});
  shown.reset();  // its line ends before the notes
  if (trace_file) {
    harness::write_trace_header(trace_file->stream(), trace_file->format());
    harness::write_trace_events(trace_file->stream(), trace_file->format(), trace);
    trace_file->close();
  }
  if (!ranks.root()) return 0;  // rank 0 writes the one table
  std::vector<std::string> notes;
  if (const std::string note = sim::extrapolation_note(*platform.extrapolation); !note.empty())
    notes.push_back(note);
  report->finish(notes);
  result->commit();
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return sim::sim_main(argc, argv, "ddlsim",
                       [&](sim::SweepRanks& ranks) { return run(argc, argv, ranks); });
}
