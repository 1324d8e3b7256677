#include "tools/ddlplan/llm_plan.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <set>
#include <vector>

#include "algorithms/error.hpp"
#include "harness/arguments.hpp"
#include "harness/data_dir.hpp"
#include "harness/output_file.hpp"
#include "sim/isolated.hpp"
#include "sim/llm_run.hpp"
#include "tools/ddlplan/llm_ranking.hpp"
#include "tools/ddlplan/spread.hpp"
#include "workloads/llm/layout_search.hpp"

namespace po = boost::program_options;

namespace ddl::planner {

namespace {

// The flags of each mode; --platform, --out, --jobs, --timeout and --help are both modes'.
constexpr const char* kLayoutFlags[] = {"workload", "gpus", "gpu", "global-batch",
                                        "zero",     "mbs",  "top"};
constexpr const char* kCollectiveFlags[] = {"coll",     "list",       "dims",     "minbytes",
                                            "maxbytes", "stepfactor", "max-dims", "keep",
                                            "confirm",  "segments"};

// "1,3" -> {1, 3}, each in [least, most] and given once.
std::vector<int> parse_list(const std::string& text, const std::string& flag, int least, int most) {
  std::vector<int> out;
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = text.find(',', start);
    const auto v = static_cast<int>(
        harness::parse_integer(text.substr(start, comma - start), flag, least, most));
    if (std::find(out.begin(), out.end(), v) != out.end())
      throw InvalidArgument("bad --" + flag + " '" + text + "': " + std::to_string(v) +
                            " given twice");
    out.push_back(v);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

// The GPUs of rank 0's node: ddl_node when the platform places its hosts, else the innermost
// extent of its natural grid, else one node of them all.
int gpus_per_node(const sim::Platform& platform) {
  if (!platform.places.empty())
    return static_cast<int>(
        std::count_if(platform.places.begin(), platform.places.end(),
                      [&](const sim::HostPlace& p) { return p.node == platform.places[0].node; }));
  if (platform.natural_dims && platform.natural_dims->count() >= 2)
    return platform.natural_dims->extent(0);
  return platform.ranks();
}

// In the child: the layout's step on prices, its figures (prediction_values) as raw bytes.
std::string predict(const sim::Platform& platform, const llm::Transformer& model,
                    const llm::Gpu& gpu, const llm::ParallelLayout& layout) {
  llm::PlayOptions play;
  play.payload = false;
  const std::vector<double> values = prediction_values(sim::predict_llm_step(
      platform, model, layout, [&](const llm::Op& op) { return llm::compute_seconds(gpu, op); },
      play, 1));  // one CPU: the sibling children have the others
  return std::string(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(double));
}

}  // namespace

void add_llm_plan_options(po::options_description& desc) {
  // clang-format off
  desc.add_options()
      ("workload", po::value<std::string>(), "plan an LLM's parallel layout instead: a model of workloads/llm/models (gpt3_175b, llama2_7b, llama2_70b, llama3_405b, mixtral_8x7b, small_gpt) or a description .json")
      ("gpus", po::value<std::string>(), "with --workload: the GPU count, the platform's (required)")
      ("gpu", po::value<std::string>(), "with --workload: the GPU, a name of workloads/llm/gpus (h100_sxm, a100_sxm; default h100_sxm) or a .json")
      ("global-batch", po::value<std::string>(), "with --workload: sequences per step (required: the model descriptions give none)")
      ("zero", po::value<std::string>(), "with --workload: ZeRO stages searched (default 1,3)")
      ("mbs", po::value<std::string>(), "with --workload: micro-batch sizes searched (default 1)")
      ("top", po::value<std::string>(), "with --workload: rows printed (default 5; --out has them all)");
  // clang-format on
}

bool llm_plan_requested(const po::variables_map& vm) {
  return vm.count("workload") != 0;
}

void check_llm_plan_flags(const po::variables_map& vm) {
  const bool llm = llm_plan_requested(vm);
  for (const char* f :
       llm ? std::vector<const char*>(std::begin(kCollectiveFlags), std::end(kCollectiveFlags))
           : std::vector<const char*>(std::begin(kLayoutFlags) + 1, std::end(kLayoutFlags)))
    if (harness::given(vm, f))
      throw InvalidArgument(
          std::string("--") + f +
          (llm ? " plans collectives and does not go with --workload (layout planning takes "
                 "--platform, --gpus, --gpu, --global-batch, --zero, --mbs, --top, --out, "
                 "--jobs, --timeout)"
               : " applies to layout planning: give --workload MODEL"));
  if (!llm) return;
  for (const char* f : {"platform", "gpus", "global-batch"})
    if (!vm.count(f))
      throw InvalidArgument(
          std::string("--workload needs --") + f +
          (std::strcmp(f, "global-batch") == 0
               ? " (sequences per step: the model descriptions give no batch size)"
               : ""));
}

int run_llm_plan(const po::variables_map& vm, const char* program, sim::SweepRanks& ranks, int jobs,
                 double timeout_s) {
  const auto start = std::chrono::steady_clock::now();
  auto progress = [&](const std::string& what) {
    if (ranks.root())
      std::cerr << "ddlplan: " << what << " ("
                << std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count()
                << " s)\n";
  };
  auto text = [&](const char* flag) { return vm[flag].as<std::string>(); };
  const std::string model_file = harness::llm_data_file(text("workload"), "models", "--workload");
  const std::string gpu_file =
      harness::llm_data_file(vm.count("gpu") ? text("gpu") : "h100_sxm", "gpus", "--gpu");
  const llm::Transformer model = llm::read_transformer(model_file);
  const llm::Gpu gpu = llm::read_gpu(gpu_file);
  const auto gpus = static_cast<int>(harness::parse_integer(text("gpus"), "gpus", 1, 1 << 20));
  llm::LayoutSearch search;
  search.global_batch = harness::parse_integer(text("global-batch"), "global-batch", 1, 1 << 30);
  if (vm.count("zero")) search.zero_stages = parse_list(text("zero"), "zero", 0, 3);
  if (vm.count("mbs")) search.micro_batch_sizes = parse_list(text("mbs"), "mbs", 1, 1 << 20);
  const auto top = static_cast<std::size_t>(
      vm.count("top") ? harness::parse_integer(text("top"), "top", 1, 1000) : 5);
  const std::string platform_file = harness::resolve_data_path(text("platform"));
  const std::string out_file = vm.count("out") ? text("out") : "";
  if (!out_file.empty()) {
    check_distinct_files({platform_file, model_file, gpu_file}, {out_file});
    check_writable(out_file);
  }
  simgrid::s4u::Engine& engine = sim::start_engine(program);
  const sim::Platform platform = sim::load_platform(engine, platform_file);
  if (platform.ranks() != gpus)
    throw InvalidArgument("--gpus " + std::to_string(gpus) + " but " + platform.file + " has " +
                          std::to_string(platform.ranks()) +
                          " GPUs (platforms/generate.py makes one of any size, e.g. "
                          "--platform dgx_h100 --nodes N -o FILE for 8 N GPUs)");
  search.gpus_per_node = gpus_per_node(platform);
  const llm::LayoutCandidates found = llm::search_layouts(model, gpu, gpus, search);
  if (found.searched == 0) {
    std::string dps;
    for (const int dp : found.data_parallel) dps += (dps.empty() ? "" : ", ") + std::to_string(dp);
    throw InvalidArgument("--global-batch " + std::to_string(search.global_batch) +
                          " is not a multiple of dp x micro-batch size for any split of " +
                          std::to_string(gpus) + " GPUs (dp: " + dps + "; --mbs " +
                          (vm.count("mbs") ? text("mbs") : "1") + ")");
  }
  if (found.fitting.empty())
    throw InvalidArgument("none of the " + std::to_string(found.searched) + " layouts of " +
                          model.name + " on " + std::to_string(gpus) + " GPUs fits " + gpu.name +
                          " memory, recomputing or not; the closest, " + found.closest_miss);
  const std::vector<llm::ParallelLayout>& layouts = found.fitting;
  progress(model.name + " on " + platform.file + ": " + std::to_string(found.searched) +
           " layouts searched, " + std::to_string(layouts.size()) + " fit memory");

  // Each rank's share takes at most its candidates' timeouts, one after another.
  ranks.set_timeout(timeout_s * static_cast<double>(layouts.size() / ranks.size() + 1));
  const std::string share = ranks.size() > 1 ? " of rank 0's" : "";
  const std::vector<std::vector<double>> values = spread_jobs(
      ranks, std::vector<std::size_t>(layouts.size(), kPredictionValues),
      [&](const std::vector<std::size_t>& mine) {
        std::vector<sim::IsolatedJob> isolated;
        for (const std::size_t k : mine)
          isolated.push_back({"predicting " + layouts[k].to_string(),
                              [&, k] { return predict(platform, model, gpu, layouts[k]); }});
        std::vector<std::vector<double>> out;
        for (const std::string& bytes :
             sim::run_isolated(isolated, static_cast<std::size_t>(jobs), timeout_s,
                               [&](std::size_t done, std::size_t total) {
                                 progress("predicted " + std::to_string(done) + "/" +
                                          std::to_string(total) + share + " layouts");
                               })) {
          out.emplace_back(bytes.size() / sizeof(double));
          std::memcpy(out.back().data(), bytes.data(), out.back().size() * sizeof(double));
        }
        return out;
      });
  if (!ranks.root()) return 0;

  std::vector<RankedLayout> rows;
  const double tokens = static_cast<double>(search.global_batch) * model.sequence;
  for (std::size_t k = 0; k < layouts.size(); ++k) {
    RankedLayout& r = rows.emplace_back();
    r.layout = layouts[k];
    read_prediction(values[k], r);
    r.tokens_per_s = tokens / r.step_s;
    r.mfu = llm::step_flops(model, r.layout) / (r.step_s * gpus * gpu.bf16_flops);
    r.memory_bytes = llm::fullest_stage_bytes(model, r.layout);
  }
  std::stable_sort(rows.begin(), rows.end(), [](const RankedLayout& a, const RankedLayout& b) {
    return a.step_s < b.step_s;
  });
  std::string zeros;
  for (const int z : search.zero_stages)
    zeros += std::string(zeros.empty() ? "" : ",") + std::to_string(z);
  std::cout << "# ddlplan: " << model.name << " on " << platform.file << " (" << gpus << " GPUs, "
            << search.gpus_per_node << " a node), GPU " << gpu.name << " ("
            << std::lround(gpu.memory_bytes / 1e9) << " GB)\n"
            << "# global batch: " << search.global_batch << " sequences of " << model.sequence
            << " tokens (" << search.global_batch * model.sequence << " a step)\n"
            << "# searched: tp dividing " << search.gpus_per_node << " (inside a node) x pp x dp"
            << (model.moe() ? " x ep" : "") << ", ZeRO " << zeros << ", micro-batch size "
            << (vm.count("mbs") ? text("mbs") : "1")
            << ", sequence parallel with tp > 1, recompute only where needed, 1F1B\n"
            << "# candidates: " << found.searched << " searched, " << layouts.size()
            << " fit memory, " << rows.size()
            << " simulated (each on prices: ddlsim --llm's default)\n"
            << "# best " << std::min(top, rows.size()) << " by step time; compute and exposed "
            << "time of the slowest stage (its first rank), memory of the fullest stage\n";
  print_ranking(std::cout, rows, top);
  if (!out_file.empty()) {
    write_ranking_csv(out_file, rows);
    progress("wrote " + out_file + " (" + std::to_string(rows.size()) + " layouts)");
  }
  return 0;
}

}  // namespace ddl::planner
