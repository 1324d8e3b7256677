// ddlrun: run the registered collectives on real hardware through MPI (host memory) or CUDA
// (GPU memory) and print the same table, csv or json as ddlsim, optionally beside Open MPI's
// own MPI_Allreduce measured in the same run on the same buffers.
#include <mpi.h>
#include <unistd.h>

#include <algorithm>
#include <boost/program_options.hpp>
#include <iostream>
#include <memory>

#include "algorithms/cost_model.hpp"
#include "algorithms/error.hpp"
#include "algorithms/measured_choice.hpp"
#include "algorithms/native_library.hpp"
#include "algorithms/one_sided.hpp"
#include "algorithms/plan.hpp"
#include "harness/auto_choice.hpp"
#include "harness/cli.hpp"
#include "harness/output_file.hpp"
#include "harness/report.hpp"
#include "harness/sizes.hpp"
#include "harness/trace.hpp"
#include "harness/tracing_communicator.hpp"
#include "planner/plan_file.hpp"
#include "real/mpi/bounded_mpi.hpp"
#include "real/mpi/mpi_baseline.hpp"
#include "real/mpi/mpi_communicator.hpp"
#include "real/mpi/mpi_error.hpp"
#include "real/mpi/node_grid.hpp"
#include "real/mpi/rank_agreement.hpp"
#include "real/mpi/timed_sweep.hpp"
#include "real/mpi/trace_clock.hpp"
#include "real/mpi/trace_gather.hpp"
#include "tools/ddlrun/device_setup.hpp"
#include "tools/ddlrun/run_arguments.hpp"
#include "tools/ddlrun/sweep_report.hpp"
#include "tools/ddlrun/workload_mode.hpp"
#include "tools/mpi_main/mpi_main.hpp"

namespace po = boost::program_options;
using namespace ddl;

namespace {

// Checked before any buffer is allocated: `-e 1T` otherwise ends in a bare std::bad_alloc (or the
// kernel's OOM killer) on every rank. A rank holds its buffer, scratch of about the same size and,
// with --check, a host copy; the ranks of a node share its memory.
void check_host_memory(const RunArguments& a, const NodeLayout& layout) {
  const double max_bytes = static_cast<double>(a.common.sizes.back());
  const double per_rank = (a.setup.memory == "host" ? 2.0 : 0.0) + (a.common.check ? 1.0 : 0.0);
  const double need = per_rank * max_bytes * layout.ranks_per_node;
  const double have =
      static_cast<double>(sysconf(_SC_PHYS_PAGES)) * static_cast<double>(sysconf(_SC_PAGE_SIZE));
  if (need > have / 2)
    throw InvalidArgument(
        "-e " + harness::format_size(a.common.sizes.back()) + " on " +
        std::to_string(layout.ranks_per_node) + " rank(s) per node needs about " +
        std::to_string(static_cast<long long>(need / (1 << 30))) +
        " GiB of host memory (buffer, scratch" + (a.common.check ? ", --check copy" : "") +
        " per rank), more than half of this node's " +
        std::to_string(static_cast<long long>(have / (1 << 30))) + " GiB: lower -e");
}

int online_cores() {
  return static_cast<int>(std::max(1L, sysconf(_SC_NPROCESSORS_ONLN)));
}

std::vector<std::string> header_lines(const RunArguments& a, const NodeLayout& layout,
                                      const Dims& dims, int ranks, const std::string& transport,
                                      const std::optional<std::string>& no_baseline,
                                      bool shared_memory, std::size_t eager_limit,
                                      const Plan* measured, const std::string& measured_basis) {
  std::vector<std::string> h;
  h.push_back(
      "ddlrun: " + std::to_string(ranks) + " ranks (" + std::to_string(layout.ranks_per_node) +
      " per node x " + std::to_string(layout.nodes) + " nodes), dims " + dims.to_string() +
      ", memory " + a.setup.memory +
      (a.setup.memory == "host" ? " (" + std::string(to_string(a.setup.pages)) + " pages)" : "") +
      ", transport " + transport);
  h.push_back("time: median of " + std::to_string(a.common.iters) + " iterations after " +
              std::to_string(a.common.warmup) + " warm-ups, each the slowest rank after a barrier" +
              (layout.ranks_per_node > online_cores()
                   ? "; more ranks per node than its " + std::to_string(online_cores()) +
                         " cores: ranks waiting around an iteration sleep"
                   : ""));
  if (a.baseline_mpi && no_baseline)
    h.push_back(mpi_collective_name(find_algorithm(a.common.algos.front()).collective) +
                " baseline not measured: " + *no_baseline);
  // ddlrun knows no machine figures, so without a plan auto ranks the algorithms for a uniform
  // network, whose links are shared memory where every rank reaches every other's (one node);
  // there the transport's own eager limit says which messages pay a rendezvous.
  if (a.common.plan_file) {
    h.push_back("auto runs the plan file " + *a.common.plan_file);
  } else if (measured) {
    h.push_back(harness::plan_choices(*measured, a.common.sizes,
                                      "measured on these ranks, " + measured_basis));
  } else {
    CostParams costs = uniform_costs(dims);
    if (shared_memory) mark_shared_memory(costs, eager_limit);
    const std::string figures = !shared_memory ? "uniform network"
                                : eager_limit == 0
                                    ? "uniform network, shared memory"
                                    : "uniform network, shared memory, messages from " +
                                          harness::format_size(eager_limit) + " by rendezvous";
    const std::string picks =
        harness::auto_choices(a.common.algos, a.common.sizes, dims, costs,
                              harness::algorithm_options(a.common, dims), figures);
    if (!picks.empty()) h.push_back(picks);
  }
  return h;
}

// The report's last write (--output's rename): a failure is rank 0's alone, once every rank is
// done, so it ends the run with status 1 rather than aborting the job.
int commit_report(ResultOutput& result) {
  try {
    result.commit();
    return 0;
  } catch (const Error& e) {
    std::cerr << "ddlrun: " << e.what() << "\n";
    return 1;
  }
}

int run(int argc, char** argv) {
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  po::options_description desc("Options");
  LocalArguments local;
  RunArguments args;
  try {
    args = parse_run_arguments(argc, argv, desc);
    local.canonical = args.help ? "help" : canonical(args);
  } catch (const Error& e) {
    local.error = e.what();
  }
  // Every wait from here on is bounded by --timeout (300 s when the flags did not parse).
  const double timeout_s = args.setup.timeout_s;
  if (const auto why = disagreement(MPI_COMM_WORLD, local, timeout_s)) {
    if (rank == 0) std::cerr << "ddlrun: " << *why << "\n";
    return 2;
  }
  if (args.help) {
    if (rank == 0) print_help(std::cout, desc);
    return 0;
  }
  record_ranks(MPI_COMM_WORLD, timeout_s);  // so a timed-out wait can name a stopped rank

  // Every rank reaches the same verdict here (the layout comes from collectives), so a bad
  // grid is reported once by rank 0 and every rank exits, as for a bad flag.
  NodeLayout layout;
  Dims dims;
  std::optional<ResultOutput> result;  // rank 0's report: standard output or --output
  std::shared_ptr<const Plan> plan;    // --plan: what auto runs per size
  try {
    layout = node_layout(MPI_COMM_WORLD, timeout_s);
    dims = args.common.dims ? *args.common.dims : layout.dims;
    dims.require_world(size);
    harness::algorithm_options(args.common, dims);  // throws when --methods does not fit the grid
    check_distinct_files(
        {args.common.plan_file.value_or(""), args.workload ? args.workload->file : ""},
        {args.trace.value_or(""), args.common.output.value_or("")});
    if (args.common.plan_file) {
      if (args.workload)
        throw InvalidArgument("--plan applies to collective sweeps, not --workload runs");
      // Every rank reads the same file, so every rank reaches the same verdict.
      const PlanFile file = read_plan_file(*args.common.plan_file);
      harness::check_plan_fits(file.plan, *args.common.plan_file, args.common.algos, size,
                               "this run has");
      plan = std::make_shared<const Plan>(file.plan);
    }
    if (args.workload && !args.auto_measured)
      throw InvalidArgument(
          "--auto-by model applies to collective sweeps; --workload runs' auto follows the plan "
          "measured on these ranks");
    if (!args.workload) check_host_memory(args, layout);
    // Rank 0 writes the one report: opened now, so a bad path stops every rank at once.
    if (rank == 0) result.emplace(args.common.output);
  } catch (const InvalidArgument& e) {
    if (rank == 0) std::cerr << "ddlrun: " << e.what() << "\n";
    return 2;
  }
  if (args.workload) {
    const int rc = run_workload_mode(*args.workload, args.common, args.setup, dims,
                                     args.baseline_mpi, harness::run_info("ddlrun", argc, argv),
                                     rank == 0 ? result->stream() : std::cout);
    return rank == 0 && rc == 0 ? commit_report(*result) : rc;
  }
  // --trace: rank 0 opens the file before anything runs, so a bad path stops every rank at once.
  std::optional<harness::TraceFile> trace_file;
  if (args.trace)
    if (const auto why = open_trace_on_root(MPI_COMM_WORLD, *args.trace, trace_file, timeout_s)) {
      if (rank == 0) std::cerr << "ddlrun: " << *why << "\n";
      return 2;
    }
  std::unique_ptr<RealBackend> backend =
      make_backend(args.setup, MPI_COMM_WORLD, layout.local_rank);
  ClockAlignment clock;
  std::optional<harness::TracingCommunicator> traced;
  if (args.trace) {
    clock = align_clock(backend->comm(), MPI_COMM_WORLD, timeout_s);
    traced.emplace(backend->comm(), clock.offset_s);
  }

  // native: where the backend has a library that reduces this type (MPI: no 16-bit floats).
  const NativeLibrary* library = backend->comm().native_library();
  const bool native = library && library->native_supports(args.common.dtype);
  args.common.algos =
      harness::runnable_algorithms(args.common, shares_memory_with_all(backend->comm()), 0, native);
  try {  // every rank has the same backend, so every rank reaches the same verdict
    harness::refuse_in_switch(args.common.algos, backend->comm());
    for (const std::string& n : args.common.algos)
      if (find_algorithm(n).needs_native_library && !native)
        throw InvalidArgument(
            library ? "native: " + library->native_name() + " has no " +
                          std::string(to_string(args.common.dtype)) + " reduction"
                    : std::string("native: this backend (") + backend->transport_name() +
                          ") has no collective library of its own; native runs on host memory "
                          "over MPI");
  } catch (const InvalidArgument& e) {
    if (rank == 0) std::cerr << "ddlrun: " << e.what() << "\n";
    return 2;
  }
  TimedSweepConfig cfg;
  cfg.cases = harness::sweep_cases(args.common, dims);
  // auto without --plan: on a backend with a library of its own (MPI on host memory), the plan
  // measured on these ranks (collective: every rank asks, alike), where it applies; with
  // --auto-by model the uniform network's figures, given so that auto does not measure.
  const bool shared_memory = shares_memory_with_all(backend->comm());
  const OneSided* one_sided = backend->comm().one_sided();  // null: no peer shares memory
  const std::size_t eager_limit = one_sided ? one_sided->eager_limit() : 0;
  std::shared_ptr<const Plan> measured;
  std::string measured_basis;
  if (!plan &&
      std::find(cfg.cases.algos.begin(), cfg.cases.algos.end(), "auto") != cfg.cases.algos.end()) {
    NativeLibrary* measures = backend->comm().native_library();
    if (!args.auto_measured) {
      cfg.cases.options.cost = uniform_costs(dims);
      if (shared_memory) mark_shared_memory(cfg.cases.options.cost, eager_limit);
    } else if (measures && measured_choice_applies(cfg.cases.options) &&
               measures->native_supports(cfg.cases.type)) {
      measured = measures->measured_plan(dims, &measured_basis);
      plan = measured;
    }
  }
  cfg.cases.options.plan = plan;
  cfg.baseline_mpi = args.baseline_mpi;
  cfg.baseline_collective = find_algorithm(cfg.cases.algos.front()).collective;
  cfg.timeout_s = args.setup.timeout_s;
  cfg.oversubscribed = layout.ranks_per_node > online_cores();
  const auto no_baseline =
      baseline_unavailable(cfg.cases.type, backend->space(), cfg.cases.sizes.back());
  if (traced)
    cfg.on_iteration = [&](const std::string& algo, std::size_t bytes, int iteration) {
      traced->set_context(algo, bytes, iteration);
    };

  // Rank 0 prints each row as soon as its case is measured.
  std::optional<harness::ReportWriter> report;
  if (rank == 0) {
    harness::RunInfo info = sweep_run_info(argc, argv, size, layout.nodes, dims);
    info.header = header_lines(args, layout, dims, size, backend->transport_name(), no_baseline,
                               shared_memory, eager_limit, measured.get(), measured_basis);
    if (args.trace)
      info.header.push_back("trace: " + *args.trace + ", clocks aligned to rank 0's within " +
                            std::to_string(clock.max_uncertainty_s * 1e6) +
                            " us (half the shortest ping-pong)");
    report.emplace(
        result->stream(), args.common.format,
        harness::Columns{false, args.baseline_mpi, mpi_collective_name(cfg.baseline_collective)},
        info, cfg.cases.algos);
    cfg.on_case = [&](const TimedCase& c) {
      report->add(sweep_row(c, cfg, dims, size, shared_memory, eager_limit));
    };
  }

  Communicator& comm = traced ? static_cast<Communicator&>(*traced) : backend->comm();
  run_timed_sweep(comm, MPI_COMM_WORLD, backend->space(), cfg);
  if (traced)
    write_gathered_trace(MPI_COMM_WORLD, harness::trace_format_for(*args.trace),
                         traced->take_events(), trace_file, timeout_s);
  if (rank != 0) return 0;
  report->finish();
  return commit_report(*result);
}

}  // namespace

int main(int argc, char** argv) {
  MpiMainSettings settings;
  settings.tool = "ddlrun";
  settings.default_timeout_s = MpiCommunicator::kDefaultTimeout;
  settings.init = init_mpi;  // MPI_THREAD_MULTIPLE for --workload
  return mpi_main(argc, argv, settings, [&](MpiMainBounds&) { return run(argc, argv); });
}
