#include "tools/ddlsim/llm_main.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <set>

#include "algorithms/error.hpp"
#include "harness/data_dir.hpp"
#include "sim/llm_run.hpp"
#include "tools/ddlsim/platform_options.hpp"
#include "workloads/llm/compute_model.hpp"

namespace po = boost::program_options;

namespace ddl::sim {

namespace {

// A shipped NAME (workloads/llm/FOLDER/NAME.json) or a file ending in .json.
std::string data_file(const std::string& value, const std::string& folder, const char* flag) {
  if (value.size() > 5 && value.substr(value.size() - 5) == ".json") return value;
  const std::string path = harness::data_dir() + "/workloads/llm/" + folder + "/" + value + ".json";
  if (std::filesystem::exists(path)) return path;
  std::string known;
  for (const auto& e :
       std::filesystem::directory_iterator(harness::data_dir() + "/workloads/llm/" + folder))
    if (e.path().extension() == ".json")
      known += (known.empty() ? "" : ", ") + e.path().stem().string();
  throw InvalidArgument(std::string(flag) + " '" + value + "': no such " +
                        folder.substr(0, folder.size() - 1) + " (shipped: " + known +
                        "; or give a .json file)");
}

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

void check_llm_flags(const po::variables_map& vm) {
  if (!llm_requested(vm)) {
    for (const char* f : {"layout", "gpu"})
      if (vm.count(f)) throw InvalidArgument(std::string("--") + f + " applies to --llm runs");
    return;
  }
  if (!vm.count("layout")) throw InvalidArgument("--llm needs --layout (e.g. tp=8,pp=2,dp=2,mb=8)");
  const std::set<std::string> taken{"llm", "layout", "gpu", "platform", "output", "timeout"};
  for (const auto& [name, value] : vm)
    if (!value.defaulted() && !taken.count(name))
      throw InvalidArgument("--" + name +
                            " does not apply to --llm runs (they take --platform, "
                            "--layout, --gpu and --output)");
}

int run_llm_mode(const po::variables_map& vm, const std::string& program, std::ostream& out) {
  const llm::Transformer model =
      llm::read_transformer(data_file(vm["llm"].as<std::string>(), "models", "--llm"));
  const llm::Gpu gpu = llm::read_gpu(
      data_file(vm.count("gpu") ? vm["gpu"].as<std::string>() : "h100_sxm", "gpus", "--gpu"));
  const llm::ParallelLayout layout = llm::parse_layout(vm["layout"].as<std::string>());
  const PlatformSource source(harness::resolve_data_path(vm["platform"].as<std::string>()));
  simgrid::s4u::Engine& engine = start_engine(program.c_str());
  Platform platform = load_platform(engine, source.xml());
  platform.file = source.shown();
  llm::check_layout(layout, model, platform.ranks());
  out << "# ddlsim: " << model.name << " on " << platform.file << " (" << platform.ranks()
      << " GPUs), layout " << layout.to_string() << ", GPU " << gpu.name << " ("
      << number("%.1f", gpu.bf16_flops / 1e12) << " TFLOP/s bf16, "
      << number("%.2f", gpu.memory_bandwidth / 1e12) << " TB/s, "
      << number("%.0f", gpu.memory_bytes / 1e9) << " GB)\n"
      << "# effects: compute by roofline (achieved fractions: gpus/" << gpu.name
      << ".json), collectives ring, reduce_scatter, allgather, alltoall_pairwise on their groups "
         "beside compute, sharing links; timing-only\n";
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
  const auto steps = simulate_llm_step(
      platform, model, layout, [&](const llm::Op& op) { return llm::compute_seconds(gpu, op); },
      play);
  double step = 0;
  for (const llm::PlayedStep& s : steps) step = std::max(step, s.finish - s.begin);
  const double tokens = static_cast<double>(layout.global_batch()) * model.sequence;
  const double mfu = llm::step_flops(model, layout) / (step * layout.gpus() * gpu.bf16_flops);
  out << "#   step_s   tokens_per_s   mfu_%\n"
      << number("%10.4f", step) << number("%15.0f", tokens / step) << number("%8.2f", 100 * mfu)
      << "\n# stage  compute_s  exposed_pp_s  exposed_tp_s  exposed_dp_s  exposed_ep_s  (its first "
         "rank)\n";
  for (int stage = 0; stage < layout.pp; ++stage) {
    const llm::PlayedStep& s = steps[static_cast<std::size_t>(llm::rank_at(layout, {0, 0, stage}))];
    auto exposed = [&](const char* k) { return s.exposed.count(k) ? s.exposed.at(k) : 0.0; };
    out << number("%7.0f", stage) << number("%11.4f", s.compute) << number("%14.4f", exposed("pp"))
        << number("%14.4f", exposed("tp")) << number("%14.4f", exposed("dp"))
        << number("%14.4f", exposed("ep")) << "\n";
  }
  return 0;
}

}  // namespace ddl::sim
