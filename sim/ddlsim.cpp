// ddlsim: run the registered collectives on a SimGrid model of a machine and print the
// nccl-tests-like table (or csv / json) with the analytical model's time beside each row.
#include <unistd.h>

#include <boost/program_options.hpp>
#include <chrono>
#include <filesystem>
#include <iostream>
#include <optional>

#include "algorithms/cost_model.hpp"
#include "algorithms/error.hpp"
#include "harness/arguments.hpp"
#include "harness/cli.hpp"
#include "harness/report.hpp"
#include "harness/sizes.hpp"
#include "harness/trace.hpp"
#include "sim/platform.hpp"
#include "sim/platform_costs.hpp"
#include "sim/sweep.hpp"
#include "sim/workload_main.hpp"

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
      << "\nA relative --platform is looked up in the current directory, then in the source tree.\n"
         "-n defaults to 1 and -w to 0: the simulation is deterministic, repeating gives the same "
         "time.\n"
         "--check moves and reduces real bytes (payload mode) and counts wrong elements; without "
         "it no\n"
         "data moves (timing-only), so thousands of ranks x 100 MB need no memory.\n\n"
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
         "count\n";
}

std::string resolve_platform(const std::string& file) {
  namespace fs = std::filesystem;
  const fs::path path(file);
  if (path.is_relative() && !fs::exists(path) && fs::exists(fs::path(DDL_SOURCE_DIR) / path))
    return (fs::path(DDL_SOURCE_DIR) / path).string();
  return file;
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

std::vector<std::string> header_lines(const sim::Platform& platform, const Dims& dims,
                                      const CostParams& cost, const harness::CommonOptions& o) {
  std::vector<std::string> h;
  h.push_back("ddlsim: platform " + platform.file + ", " + std::to_string(platform.ranks()) +
              " GPUs, dims " + dims.to_string() + ", " +
              (o.check ? "payload mode (--check)" : "timing-only mode"));
  h.push_back("network model CM02 (route latency + bytes / bottleneck bandwidth, fair sharing); " +
              std::to_string(o.iters) + " iteration(s), " + std::to_string(o.warmup) + " warmup");
  std::string m = "model from the platform:";
  for (std::size_t d = 0; d < cost.per_dim.size(); ++d)
    m += " dim" + std::to_string(d) + " alpha " + std::to_string(cost.per_dim[d].alpha * 1e6) +
         " us, " + gbs(cost.per_dim[d].beta) + " GB/s;";
  m += " gamma " + gbs(cost.gamma) + " GB/s of reduce result";
  h.push_back(m);
  Options options = harness::algorithm_options(o, dims);
  const std::string picks =
      harness::auto_choices(o.algos, o.sizes, dims, cost, options, "platform figures");
  if (!picks.empty()) h.push_back(picks);
  return h;
}

int run(int argc, char** argv) {
  harness::CommonDefaults defaults;  // n=1, w=0: deterministic
  po::options_description desc("Options");
  desc.add_options()("help,h", "this help")(
      "platform", po::value<std::string>()->default_value(kDefaultPlatform),
      "SimGrid platform file")("trace", po::value<std::string>(), harness::kTraceFlagHelp);
  harness::add_common_options(desc, defaults);
  sim::add_workload_options(desc);
  const po::variables_map vm = harness::parse_arguments(argc, argv, desc, "ddlsim");
  if (vm.count("help")) {
    print_help(std::cout, desc);
    return 0;
  }
  const harness::CommonOptions common = harness::read_common_options(vm);
  if (vm.count("trace") && sim::workload_requested(vm))
    throw InvalidArgument(
        "--trace records collective sweeps, not --workload runs (see ddlsim --help)");
  // Opened now: a bad path stops the tool before the simulation runs.
  std::optional<harness::TraceFile> trace_file;
  if (vm.count("trace")) trace_file.emplace(vm["trace"].as<std::string>());
  if (sim::workload_requested(vm))
    return sim::run_workload_mode(vm, common, resolve_platform(vm["platform"].as<std::string>()),
                                  std::string(DDL_SOURCE_DIR) + "/workloads", argv[0]);
  for (const char* flag : {"batch", "bucket", "first-bucket", "sweep", "sweep-max-gpus"})
    if (vm.count(flag) && !vm[flag].defaulted())
      throw InvalidArgument(std::string("--") + flag + " needs --workload (see ddlsim --help)");

  simgrid::s4u::Engine& engine = sim::start_engine(argv[0]);
  const sim::Platform platform =
      sim::load_platform(engine, resolve_platform(vm["platform"].as<std::string>()));
  const Dims dims = sim::choose_dims(platform, common.dims);
  sim::SweepConfig config;
  config.algos = common.algos;
  config.sizes = common.sizes;
  config.type = common.dtype;
  config.op = common.op;
  config.iters = common.iters;
  config.warmup = common.warmup;
  config.payload = common.check;
  config.options = harness::algorithm_options(common, dims);
  config.options.cost = sim::platform_costs(platform, dims);
  if (common.check) check_payload_memory(platform, common.sizes.back());

  const auto wall_start = std::chrono::steady_clock::now();
  const bool tty = isatty(STDERR_FILENO);
  bool progress_shown = false;
  // Only long sweeps show progress: short runs (and tests) keep stderr clean.
  const sim::SweepProgress progress = [&](std::size_t done, std::size_t total,
                                          const std::string& algo, std::size_t bytes) {
    const double wall =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
    if (wall < 2.0 || done == total) return;
    std::cerr << (tty ? "\r" : "") << "ddlsim: " << done << "/" << total << " cases done (" << algo
              << " " << harness::format_size(bytes) << ", " << static_cast<int>(wall) << " s)"
              << (tty ? "" : "\n") << std::flush;
    progress_shown = true;
  };
  std::vector<harness::TraceEvent> trace;
  const std::vector<sim::CaseResult> results =
      sim::run_sweep(platform, config, progress, trace_file ? &trace : nullptr);
  if (progress_shown && tty) std::cerr << "\n";

  std::vector<harness::Row> rows;
  for (const sim::CaseResult& r : results) {
    harness::Row row = harness::make_row(r.bytes, common.dtype, common.op, r.algo, dims.to_string(),
                                         r.time_s, platform.ranks());
    try {
      // Per size: on a calibrated platform α, β and γ depend on it (platform_costs).
      row.model_s = model_time(r.algo, dims,
                               sim::platform_costs(platform, dims, static_cast<double>(r.bytes)),
                               r.bytes, config.options);
    } catch (const InvalidArgument&) {
      // An algorithm without a model formula leaves the cell empty rather than failing the run.
    }
    row.wrong = r.wrong;
    rows.push_back(std::move(row));
  }
  if (trace_file) {
    harness::write_trace_header(trace_file->stream(), trace_file->format());
    harness::write_trace_events(trace_file->stream(), trace_file->format(), trace);
    trace_file->close();
  }
  harness::write_report(std::cout, common.format, rows, {true, false},
                        header_lines(platform, dims, config.options.cost, common));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::cerr << "ddlsim: " << e.what() << "\n";
    return 1;
  }
}
