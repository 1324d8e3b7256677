#include "workloads/workload_cli.hpp"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <iomanip>
#include <sstream>

#include "algorithms/error.hpp"
#include "harness/arguments.hpp"
#include "harness/sizes.hpp"

namespace po = boost::program_options;

namespace ddl::harness {

namespace {

std::size_t size_flag(const po::variables_map& vm, const char* flag) {
  const std::string text = vm[flag].as<std::string>();
  std::size_t bytes = 0;
  try {
    bytes = parse_size(text);
  } catch (const InvalidArgument& e) {
    throw InvalidArgument(std::string("bad --") + flag + " '" + text + "': " + e.what());
  }
  if (bytes == 0)
    throw InvalidArgument(std::string("--") + flag + " must be at least 1 byte, got '" + text +
                          "'");
  return bytes;
}

// A finite number in [0, max] for an effect's flag; 0 turns the effect off.
double effect_flag(const po::variables_map& vm, const char* flag, double max) {
  const std::string text = vm[flag].as<std::string>();
  double v = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || ptr != text.data() + text.size() || !std::isfinite(v) ||
      v < 0 || v > max) {
    std::ostringstream s;
    s << std::setprecision(15) << "bad --" << flag << " '" << text << "': expected a number in [0, "
      << max << "] (0 turns it off)";
    throw InvalidArgument(s.str());
  }
  return v;
}

}  // namespace

void add_workload_options(po::options_description& desc) {
  desc.add_options()(
      "workload", po::value<std::string>(),
      "training iterations: resnet50, resnet101, gpt2_small, bert_base (workloads/), or a "
      "workload .csv file")("batch", po::value<int>(),
                            "--workload: images per GPU (default: the workload's reference batch)")(
      "bucket", po::value<std::string>()->default_value("25M"),
      "--workload: gradient bucket capacity")("first-bucket",
                                              po::value<std::string>()->default_value("1M"),
                                              "--workload: capacity of the first bucket");
  desc.add_options()("jitter", po::value<std::string>(),
                     "--workload: per-rank, per-iteration compute jitter, the coefficient of "
                     "variation of a lognormal multiplier (default: the workload's "
                     "compute_jitter_cv, else 0)")(
      "seed", po::value<std::string>(), "--workload: seed of the jitter draws (default 1)")(
      "interference", po::value<std::string>(),
      "--workload: a backward layer started while an allreduce is in flight takes (1 + F) times "
      "longer (default: the platform's ddl_compute_interference, else 0)")(
      "bucket-launch", po::value<std::string>(),
      "--workload: microseconds of framework work before each bucket's allreduce (default: the "
      "workload's bucket_launch_us, else 0)")(
      "data-loading", po::value<std::string>(),
      "--workload: milliseconds of input pipeline not hidden, per iteration (default: the "
      "workload's data_loading_ms, else 0)")(
      "no-effects", po::bool_switch(),
      "--workload: every effect off (the ideal overlap model), whatever the workload and "
      "platform say");
}

void refuse_workload_flags(const po::variables_map& vm, std::initializer_list<const char*> extra,
                           const char* tool) {
  const auto check = [&](const char* flag) {
    if (vm.count(flag) && !vm[flag].defaulted())
      throw InvalidArgument(std::string("--") + flag + " needs --workload (see " + tool +
                            " --help)");
  };
  for (const char* flag : {"batch", "bucket", "first-bucket", "jitter", "seed", "interference",
                           "bucket-launch", "data-loading", "no-effects"})
    check(flag);
  for (const char* flag : extra) check(flag);
}

WorkloadChoice read_workload_options(const po::variables_map& vm,
                                     const std::string& workloads_dir) {
  // The collective sweep's flags mean nothing here: refusing them beats ignoring them.
  refuse_given(vm, {"minbytes", "maxbytes", "stepfactor", "op"},
               "does not go with --workload: it sums the workload's gradients in buckets (sizes "
               "from the workload file, --bucket and --first-bucket; their type from -d)");
  WorkloadChoice w;
  const std::string name = vm["workload"].as<std::string>();
  // A file: a name ending in .csv or any path (a name has no '/'); else a shipped workload.
  const bool file = (name.size() > 4 && name.ends_with(".csv")) || name.find('/') != name.npos;
  w.file = file ? name : workload_path(name, workloads_dir);
  w.workload = load_workload(w.file);
  // -d: the gradients' type (fp16/bf16 halve every bucket, as DDP with a compression hook or a
  // half-precision model does); the optimizer step reduces them in that type too.
  w.dtype = parse_dtype(vm["dtype"].as<std::string>());
  if (w.dtype == DType::int32 || w.dtype == DType::int64)
    throw InvalidArgument("--dtype " + std::string(to_string(w.dtype)) +
                          " does not go with --workload: gradients are floating point (float, "
                          "double, half or bfloat16)");
  w.buckets.bytes_per_param = dtype_size(w.dtype);
  w.buckets.bucket_bytes = size_flag(vm, "bucket");
  w.buckets.first_bucket_bytes = size_flag(vm, "first-bucket");
  w.batch = w.workload.reference_batch;
  if (vm.count("batch")) {
    const int batch = vm["batch"].as<int>();
    if (batch < 1)
      throw InvalidArgument("--batch must be at least 1 image per GPU, got " +
                            std::to_string(batch));
    w.batch = static_cast<std::size_t>(batch);
  }
  w.effects = w.workload.effects;
  w.effects_off = vm["no-effects"].as<bool>();
  if (w.effects_off) {
    refuse_given(vm, {"jitter", "seed", "interference", "bucket-launch", "data-loading"},
                 "does not go with --no-effects");
    w.effects = TrainingEffects{};
    return w;
  }
  if (given(vm, "jitter")) w.effects.jitter_cv = effect_flag(vm, "jitter", 1);
  if (given(vm, "seed"))
    w.effects.seed = static_cast<std::uint64_t>(
        parse_integer(vm["seed"].as<std::string>(), "seed", 0, 1'000'000'000'000LL));
  if (given(vm, "interference")) {
    w.interference_flag = effect_flag(vm, "interference", 10);
    w.effects.interference = *w.interference_flag;
  }
  if (given(vm, "bucket-launch"))
    w.effects.bucket_launch_s = effect_flag(vm, "bucket-launch", 60e6) * 1e-6;
  if (given(vm, "data-loading"))
    w.effects.data_loading_s = effect_flag(vm, "data-loading", 60e3) * 1e-3;
  return w;
}

}  // namespace ddl::harness
