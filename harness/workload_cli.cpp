#include "harness/workload_cli.hpp"

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

}  // namespace

void add_workload_options(po::options_description& desc) {
  desc.add_options()("workload", po::value<std::string>(),
                     "training iterations: resnet50, resnet101, or a workload .csv file")(
      "batch", po::value<int>(),
      "--workload: images per GPU (default: the workload's reference batch)")(
      "bucket", po::value<std::string>()->default_value("25M"),
      "--workload: gradient bucket capacity")("first-bucket",
                                              po::value<std::string>()->default_value("1M"),
                                              "--workload: capacity of the first bucket");
}

WorkloadChoice read_workload_options(const po::variables_map& vm,
                                     const std::string& workloads_dir) {
  // The collective sweep's flags mean nothing here: refusing them beats ignoring them.
  refuse_given(vm, {"minbytes", "maxbytes", "stepfactor", "dtype", "op"},
               "does not go with --workload: it allreduces the workload's float gradients in "
               "buckets (sizes from the workload file, --bucket and --first-bucket)");
  WorkloadChoice w;
  const std::string name = vm["workload"].as<std::string>();
  w.file = name.size() > 4 && name.ends_with(".csv") ? name : workload_path(name, workloads_dir);
  w.workload = load_workload(w.file);
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
  return w;
}

}  // namespace ddl::harness
