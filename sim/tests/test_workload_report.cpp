// What a ddlsim --workload report says about its numbers: which GPU the compute times are for and
// how they were scaled to the platform's, what a sample is, and the sizes a machine description
// sweeps through.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <map>

#include "child_process.hpp"
#include "harness/run_info.hpp"

using namespace ddl::test;
namespace fs = std::filesystem;

namespace {

std::map<std::string, std::string> fields(const std::string& out) {
  std::map<std::string, std::string> m;
  for (const auto& [key, value] : ddl::harness::preamble_fields(out)) m[key] = value;
  return m;
}

std::string printed(const char* format, double a, double b) {
  char buf[256];
  std::snprintf(buf, sizeof buf, format, a, b);
  return buf;
}

}  // namespace

TEST_CASE(
    "workload on a DGX H100: the P100 reference times scaled by peak fp32 FLOP/s, and the "
    "header says so",
    "[sim][workload]") {
  const std::string run = ddlsim() + " --format csv --workload resnet50 --algo ring --platform " +
                          platform("dgx_h100_4.xml");
  const ChildResult scaled = run_child(run);
  const ChildResult unscaled = run_child(run + " --no-compute-scaling");
  INFO(scaled.err << unscaled.err);
  REQUIRE(scaled.exit_code == 0);
  REQUIRE(unscaled.exit_code == 0);
  // P100 10.6 TFLOP/s (the shipped ResNet files' assumed GPU), H100 SXM5 67 (the platform's).
  const double factor = 10.6 / 67;
  auto f = fields(scaled.out);
  CHECK(std::stod(f["compute_scale"]) == factor);
  CHECK(f["platform_gpu_fp32_tflops"] == "67");
  CHECK(f["reference_gpu"] == "P100 (10.6 TFLOP/s fp32, 732 GB/s) (default: the file names none)");
  CHECK(fields(unscaled.out)["compute_scale"] == "1");
  // 180 ms at the reference batch 32, backward = 2 x forward.
  CHECK(scaled.out.find(printed("# compute per iteration: forward %.3f ms, backward %.3f ms,",
                                60 * factor, 120 * factor)) != std::string::npos);
  CHECK(scaled.out.find("on a P100 (10.6 TFLOP/s fp32, 732 GB/s), the default for a file that "
                        "names no reference_gpu, scaled x0.158209 by peak fp32 FLOP/s to this "
                        "platform's GPUs (67 TFLOP/s fp32)") != std::string::npos);
  CHECK(unscaled.out.find("# compute per iteration: forward 60.000 ms, backward 120.000 ms,") !=
        std::string::npos);
  CHECK(unscaled.out.find("not scaled to this platform's GPUs (67 TFLOP/s fp32) "
                          "(--no-compute-scaling)") != std::string::npos);
  // One GPU's compute: forward + backward + the optimizer step, which scaling leaves alone.
  const auto s = parse_csv(scaled.out), u = parse_csv(unscaled.out);
  REQUIRE(s.size() == 1);
  REQUIRE(u.size() == 1);
  CHECK(s[0].at("gpus") == "32");
  CHECK(std::stod(u[0].at("compute_ms")) - std::stod(s[0].at("compute_ms")) ==
        Approx(180 * (1 - factor)).epsilon(1e-9));
}

TEST_CASE("a transformer's throughput is in sequences, an image model's in images",
          "[sim][workload]") {
  const std::string run =
      ddlsim() + " --workload bert_base --algo ring --platform " + platform("two_hosts.xml");
  const ChildResult csv = run_child(run + " --format csv");
  INFO(csv.err);
  REQUIRE(csv.exit_code == 0);
  CHECK(csv.out.find("\ngpus,algo,dims,iter_ms,compute_ms,exposed_comm_ms,sequences_per_s,"
                     "efficiency\n") != std::string::npos);
  CHECK(fields(csv.out)["sample"] == "sequences");
  const ChildResult table = run_child(run);
  REQUIRE(table.exit_code == 0);
  CHECK(table.out.find("(sequences/s)") != std::string::npos);
  CHECK(table.out.find("batch 8 sequences per GPU") != std::string::npos);
  CHECK(table.out.find("images") == std::string::npos);
}

TEST_CASE("workload --sweep on a machine description: the machine generated at each node count",
          "[sim][workload]") {
  const std::string description = platform("descriptions/dgx_h100.json");
  const std::string sweep = ddlsim() + " --format csv --workload resnet50 --algo ring --sweep " +
                            "--platform " + description;
  const ChildResult all = run_child(sweep);
  INFO(all.err);
  REQUIRE(all.exit_code == 0);
  const auto rows = parse_csv(all.out);
  // The description's own 4 nodes of 8 GPUs bound the sweep: 1, 2, 4 nodes.
  REQUIRE(rows.size() == 3);
  CHECK(rows[0].at("gpus") == "8");
  CHECK(rows[1].at("gpus") == "16");
  CHECK(rows[2].at("gpus") == "32");
  CHECK(rows[1].at("dims") == "8x2");
  // --sweep-max-gpus bounds it instead.
  const auto limited = parse_csv(run_child(sweep + " --sweep-max-gpus 16").out);
  REQUIRE(limited.size() == 2);
  CHECK(limited[1].at("gpus") == "16");
  // The 2-node row is a run on what the generator writes for 2 nodes.
  const fs::path xml =
      fs::temp_directory_path() / ("ddl_dgx_h100_2_" + std::to_string(getpid()) + ".xml");
  REQUIRE(run_child("/usr/bin/python3 " + platform("generate.py") + " --description " +
                    description + " --nodes 2 -o " + xml.string())
              .exit_code == 0);
  const ChildResult two = run_child(ddlsim() + " --format csv --workload resnet50 --algo ring " +
                                    "--platform " + xml.string());
  fs::remove(xml);
  REQUIRE(two.exit_code == 0);
  CHECK(parse_csv(two.out).at(0).at("iter_ms") == rows[1].at("iter_ms"));
}
