#include "tools/ddlsim/llm_main.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <optional>
#include <set>
#include <thread>

#include "algorithms/error.hpp"
#include "harness/arguments.hpp"
#include "harness/data_dir.hpp"
#include "harness/output_file.hpp"
#include "sim/llm_run.hpp"
#include "tools/ddlsim/platform_options.hpp"
#include "workloads/llm/chakra_files.hpp"
#include "workloads/llm/compute_model.hpp"
#include "workloads/llm/step_trace.hpp"

namespace po = boost::program_options;

namespace ddl::sim {

namespace {

std::string number(const char* format, double v) {
  char text[64];
  std::snprintf(text, sizeof text, format, v);
  return text;
}

}  // namespace

void add_llm_options(po::options_description& desc) {
  desc.add_options()(
      "llm", po::value<std::string>(),
      "one LLM training step: a model of workloads/llm/models (gpt3_175b, llama2_7b, llama2_70b, "
      "llama3_405b, mixtral_8x7b, small_gpt) or a description .json; needs --layout")(
      "layout", po::value<std::string>(),
      "with --llm: tp=N,pp=N,dp=N,mb=N and ep=N, mbs=N, zero=0..3, sp, recompute "
      "(workloads/llm/README.md)")(
      "gpu", po::value<std::string>(),
      "with --llm: the GPU, a name of workloads/llm/gpus (h100_sxm, a100_sxm; default h100_sxm) "
      "or a .json");
}

bool llm_requested(const po::variables_map& vm) {
  return vm.count("llm") != 0;
}

bool chakra_requested(const po::variables_map& vm) {
  if (!vm.count("workload")) return false;
  const std::string path = vm["workload"].as<std::string>();
  std::error_code ec;
  if (path.size() > 3 && path.substr(path.size() - 3) == ".et") return true;
  if (std::filesystem::exists(llm::chakra_file(path, 0), ec)) return true;
  if (!std::filesystem::is_directory(path, ec)) return false;
  for (std::filesystem::directory_iterator it(path, ec), end; !ec && it != end; it.increment(ec))
    if (it->path().extension() == ".et") return true;
  return false;
}

void check_llm_flags(const po::variables_map& vm) {
  const bool llm = llm_requested(vm), chakra = chakra_requested(vm);
  if (!llm) {
    if (vm.count("layout")) throw InvalidArgument("--layout applies to --llm runs");
    if (!chakra && vm.count("gpu"))
      throw InvalidArgument("--gpu applies to --llm runs and Chakra traces (--workload X.et)");
  }
  if (!llm && !chakra) return;
  if (llm && !vm.count("layout"))
    throw InvalidArgument("--llm needs --layout (e.g. tp=8,pp=2,dp=2,mb=8)");
  if (llm && vm.count("workload"))
    throw InvalidArgument("--llm and --workload are two runs: give one");
  std::set<std::string> taken{"gpu", "platform", "output", "timeout", "trace"};
  if (llm) taken.insert({"llm", "layout", "exact"});
  if (chakra) taken.insert("workload");
  const char* takes = llm ? "--platform, --layout, --gpu, --exact, --trace and --output"
                          : "--platform, --gpu, --trace and --output";
  for (const auto& [name, value] : vm)
    if (!value.defaulted() && !taken.count(name))
      throw InvalidArgument("--" + name + " does not apply to " +
                            (llm ? "--llm runs" : "Chakra trace runs") + " (they take " + takes +
                            ")");
  if (vm.count("trace")) {
    const std::string trace = vm["trace"].as<std::string>();
    if (trace.size() < 5 || trace.substr(trace.size() - 5) != ".json")
      throw InvalidArgument("--trace '" + trace +
                            "': " + (llm ? "--llm runs" : "Chakra trace runs") +
                            " write a Chrome/Perfetto trace: give a .json path");
  }
}

namespace {

// The breakdown's rows: a name column, compute and the exposed time by cause, in seconds with
// `decimals` digits.
void print_breakdown(std::ostream& out, const char* who,
                     const std::vector<std::pair<std::string, const llm::PlayedStep*>>& rows,
                     bool world, int decimals) {
  const auto cell = [&](int width, double v) {
    char text[64];
    std::snprintf(text, sizeof text, "%*.*f", width, decimals, v);
    return std::string(text);
  };
  out << "# " << who << "  compute_s  exposed_pp_s  exposed_tp_s  exposed_dp_s  exposed_ep_s"
      << (world ? "  exposed_world_s" : "") << "\n";
  for (const auto& [name, s] : rows) {
    out << std::string(std::max<std::size_t>(std::strlen(who) + 2, name.size()) - name.size(), ' ')
        << name << cell(11, s->compute);
    for (const char* cause : {"pp", "tp", "dp", "ep"}) out << cell(14, s->exposed_s(cause));
    if (world) out << cell(17, s->exposed_s("world"));
    out << "\n";
  }
}

// --trace FILE.json, opened before the run (a path that cannot be written stops it first) and
// written all or nothing once the ranks have played.
std::optional<AtomicOutput> open_trace(const po::variables_map& vm) {
  if (!vm.count("trace")) return std::nullopt;
  return std::make_optional<AtomicOutput>(vm["trace"].as<std::string>());
}

void write_trace(std::optional<AtomicOutput>& trace, const std::vector<llm::TracedRank>& ranks) {
  llm::write_step_trace(trace->stream(), ranks);
  trace->commit();
}

std::string gpu_line(const llm::Gpu& gpu) {
  return gpu.name + " (" + number("%.1f", gpu.bf16_flops / 1e12) + " TFLOP/s bf16, " +
         number("%.2f", gpu.memory_bandwidth / 1e12) + " TB/s, " +
         number("%.0f", gpu.memory_bytes / 1e9) + " GB)";
}

llm::Gpu read_gpu_flag(const po::variables_map& vm) {
  return llm::read_gpu(harness::llm_data_file(
      vm.count("gpu") ? vm["gpu"].as<std::string>() : "h100_sxm", "gpus", "--gpu"));
}

constexpr const char* kCollectives =
    "collectives ring, reduce_scatter, allgather, alltoall_pairwise on their groups beside "
    "compute, sharing links; timing-only";

}  // namespace

int run_llm_mode(const po::variables_map& vm, const std::string& program, std::ostream& out) {
  const llm::Transformer model =
      llm::read_transformer(harness::llm_data_file(vm["llm"].as<std::string>(), "models", "--llm"));
  const llm::Gpu gpu = read_gpu_flag(vm);
  const llm::ParallelLayout layout = llm::parse_layout(vm["layout"].as<std::string>());
  std::optional<AtomicOutput> trace = open_trace(vm);
  const PlatformSource source(harness::resolve_data_path(vm["platform"].as<std::string>()));
  simgrid::s4u::Engine& engine = start_engine(program.c_str());
  Platform platform = load_platform(engine, source.xml());
  platform.file = source.shown();
  llm::check_layout(layout, model, platform.ranks());
  out << "# ddlsim: " << model.name << " on " << platform.file << " (" << platform.ranks()
      << " GPUs), layout " << layout.to_string() << ", GPU " << gpu_line(gpu) << "\n"
      << "# effects: compute by roofline (achieved fractions: gpus/" << gpu.name << ".json), "
      << kCollectives << "\n";
  const bool exact = vm.count("exact") > 0;
  out << (exact ? "# played: every rank's step on the simulator (--exact)\n"
                : "# played: on prices: each distinct communication timed on the platform with "
                  "every group of its kind at once, then each stage's first rank on those prices "
                  "(contention between kinds left out; --exact plays every rank)\n");
  for (int stage = 0; stage < layout.pp; stage += std::max(1, layout.pp - 1)) {
    const llm::GpuMemory m = llm::gpu_memory(model, layout, stage);
    out << "# memory per GPU, stage " << stage << ": weights " << number("%.1f", m.weights / 1e9)
        << " GB, gradients " << number("%.1f", m.gradients / 1e9) << " GB, optimizer "
        << number("%.1f", m.optimizer / 1e9) << " GB, activations "
        << number("%.1f", m.activations / 1e9) << " GB: " << number("%.1f", m.total() / 1e9)
        << " of " << number("%.1f", gpu.memory_bytes / 1e9) << " GB\n";
  }
  if (const std::string verdict = llm::memory_verdict(model, layout, gpu); !verdict.empty()) {
    out << "# does not fit, not simulated: " << verdict << "\n";
    return 1;
  }
  llm::PlayOptions play;
  play.payload = false;  // timing-only: no buffers, no data moved
  const auto compute = [&](const llm::Op& op) { return llm::compute_seconds(gpu, op); };
  // Every rank played (exact) or each stage's first rank (on prices), and their graphs.
  std::vector<int> played;
  for (int r = 0; r < layout.gpus(); ++r)
    if (exact || llm::coordinates(layout, r).tp + llm::coordinates(layout, r).dp == 0)
      played.push_back(r);
  const std::vector<llm::PlayedStep> steps =
      exact ? simulate_llm_step(platform, model, layout, compute, play)
            : predict_llm_step(
                  platform, model, layout, compute, play,
                  std::max(1u, std::thread::hardware_concurrency()),
                  harness::parse_seconds(vm["timeout"].as<std::string>(), "timeout", 1e6));
  double step = 0;
  for (const llm::PlayedStep& s : steps) step = std::max(step, s.finish - s.begin);
  const double tokens = static_cast<double>(layout.global_batch()) * model.sequence;
  const double mfu = llm::step_flops(model, layout) / (step * layout.gpus() * gpu.bf16_flops);
  out << "#   step_s   tokens_per_s   mfu_%\n"
      << number("%10.4f", step) << number("%15.0f", tokens / step) << number("%8.2f", 100 * mfu)
      << "\n";
  std::vector<std::pair<std::string, const llm::PlayedStep*>> rows;
  for (int stage = 0; stage < layout.pp; ++stage) {
    const int first = llm::rank_at(layout, {0, 0, stage});
    rows.push_back(
        {std::to_string(stage),
         &steps[exact ? static_cast<std::size_t>(first) : static_cast<std::size_t>(stage)]});
  }
  print_breakdown(out, "stage", rows, false, 4);
  out << "# (each stage's first rank)\n";
  if (trace) {
    std::vector<std::vector<llm::Op>> graphs;
    for (int r : played) graphs.push_back(llm::step_graph(model, layout, r));
    std::vector<llm::TracedRank> traced;
    for (std::size_t i = 0; i < played.size(); ++i)
      traced.push_back({played[i],
                        "rank " + std::to_string(played[i]) + " (stage " +
                            std::to_string(llm::coordinates(layout, played[i]).pp) + ")",
                        &graphs[i], &steps[i]});
    write_trace(trace, traced);
  }
  return 0;
}

int run_chakra_mode(const po::variables_map& vm, const std::string& program, std::ostream& out) {
  const std::string path = vm["workload"].as<std::string>();
  const std::vector<llm::ChakraRank> files = llm::read_chakra_ranks(path);
  const llm::Gpu gpu = read_gpu_flag(vm);
  std::optional<llm::ParallelLayout> layout;
  if (!files.front().layout.empty()) layout = llm::parse_layout(files.front().layout);
  std::optional<AtomicOutput> trace = open_trace(vm);
  const PlatformSource source(harness::resolve_data_path(vm["platform"].as<std::string>()));
  simgrid::s4u::Engine& engine = start_engine(program.c_str());
  Platform platform = load_platform(engine, source.xml());
  platform.file = source.shown();
  std::vector<std::vector<llm::Op>> graphs;
  for (const llm::ChakraRank& f : files) graphs.push_back(f.ops);
  out << "# ddlsim: Chakra trace " << path << " (" << files.size() << " ranks"
      << (layout ? ", layout " + layout->to_string() : std::string(", no layout: world groups"))
      << ") on " << platform.file << " (" << platform.ranks() << " GPUs), GPU " << gpu_line(gpu)
      << "\n# effects: compute by roofline from each node's num_ops and tensor_size (achieved "
         "fractions: gpus/"
      << gpu.name << ".json), " << kCollectives
      << "\n# played: every rank's graph on the simulator\n";
  llm::PlayOptions play;
  play.payload = false;
  const std::vector<llm::PlayedStep> steps = simulate_graphs(
      platform, graphs, layout, [&](const llm::Op& op) { return llm::compute_seconds(gpu, op); },
      play);
  double step = 0, flops = 0;
  for (const llm::PlayedStep& s : steps) step = std::max(step, s.finish - s.begin);
  for (const auto& g : graphs)
    for (const llm::Op& op : g) flops += op.flops;
  out << "#     step_s   mfu_%\n"
      << number("%12.6f", step)
      << number("%8.2f", 100 * flops / (step * static_cast<double>(graphs.size()) * gpu.bf16_flops))
      << "\n";
  std::vector<std::pair<std::string, const llm::PlayedStep*>> rows;
  for (std::size_t r = 0; r < steps.size(); ++r) rows.push_back({std::to_string(r), &steps[r]});
  print_breakdown(out, "rank", rows, true, 6);
  if (trace) {
    std::vector<llm::TracedRank> traced;
    for (std::size_t r = 0; r < steps.size(); ++r)
      traced.push_back({static_cast<int>(r), "rank " + std::to_string(r), &graphs[r], &steps[r]});
    write_trace(trace, traced);
  }
  return 0;
}

}  // namespace ddl::sim
