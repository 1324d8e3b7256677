// ddlsim --workload on two_hosts.xml (1 us, 10 GB/s link, 100 GB/s memory, 1 Tf hosts) with a
// three-layer workload written here: the simulated iteration must be the hand-computed timeline
// of back-to-back compute and bucket allreduces that overlap it, one after the other.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "child_process.hpp"
#include "workloads/training_effects.hpp"

using namespace ddl::test;
namespace fs = std::filesystem;

namespace {

constexpr double kAlpha = 1e-6, kBeta = 1e-10, kGamma = 3.0 / 100e9;

// Ring allreduce of n bytes on two ranks: a reduce-scatter step and an allgather step of n/2
// bytes each, one reduce of n/2 bytes.
double allreduce2(double n) {
  return 2 * (kAlpha + n / 2 * kBeta) + n / 2 * kGamma;
}

// 3 ms of compute at batch 1: forward 1 ms, backward 2 ms, split 1:1:2 by multiply-adds, so
// forward l0 0.25, l1 0.25, l2 0.5 ms; backward l2 1, l1 0.5, l0 0.5 ms. Gradients: l0 1 MB,
// l1 1 MB, l2 10 MB. The times are for a GPU as fast as the platform's 1 Tf hosts: unscaled.
std::string three_layers() {
  const fs::path path = fs::temp_directory_path() /
                        ("ddl_workload_three_layers_" + std::to_string(getpid()) + ".csv");
  std::ofstream(path) << "# model = three\n# reference_batch = 1\n# reference_iteration_ms = 3\n"
                         "# backward_to_forward = 2\n# reference_gpu = test host\n"
                         "# reference_gpu_fp32_tflops = 1\n# reference_gpu_memory_gbs = 100\n"
                         "layer,kind,params,forward_macs\n"
                         "l0,conv,250000,1\nl1,conv,250000,1\nl2,fc,2500000,2\n";
  return path.string();
}

std::map<std::string, std::string> one_row(
    const std::string& args, const std::string& platform_file = platform("two_hosts.xml")) {
  const ChildResult r =
      run_child(ddlsim() + " --format csv --platform " + platform_file + " " + args);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  REQUIRE(
      r.out.find("\ngpus,algo,dims,iter_ms,compute_ms,exposed_comm_ms,images_per_s,efficiency\n") !=
      std::string::npos);
  const auto rows = parse_csv(r.out);
  REQUIRE(rows.size() == 1);
  return rows[0];
}

void check_ms(const std::string& cell, double expected_s) {
  INFO("simulated " << cell << " ms, hand-computed " << expected_s * 1e3 << " ms");
  CHECK(std::stod(cell) * 1e-3 == Approx(expected_s).epsilon(1e-9));
}

}  // namespace

TEST_CASE(
    "workload, one bucket per layer: an allreduce that outlasts a layer delays the next, not "
    "compute",
    "[sim][workload]") {
  const auto row =
      one_row("--workload " + three_layers() + " --algo ring --bucket 1 --first-bucket 1");
  // Buckets in backward order: l2 ready at 2 ms, l1 at 2.5 ms, l0 at 3 ms (end of backward).
  const double b0 = 2e-3 + allreduce2(10e6);
  const double b1 = std::max(2.5e-3, b0) + allreduce2(1e6);
  const double b2 = std::max(3e-3, b1) + allreduce2(1e6);
  const double optimizer = 12e6 * kGamma;  // one reduce of the 12 MB of gradients into the weights
  const double iteration = std::max(3e-3, b2) + optimizer;
  CHECK(row.at("gpus") == "2");
  CHECK(row.at("algo") == "ring");
  check_ms(row.at("iter_ms"), iteration);
  check_ms(row.at("compute_ms"), 3e-3 + optimizer);
  check_ms(row.at("exposed_comm_ms"), iteration - 3e-3 - optimizer);
  CHECK(std::stod(row.at("images_per_s")) == Approx(2 / iteration).epsilon(1e-6));
  CHECK(std::stod(row.at("efficiency")) == Approx((3e-3 + optimizer) / iteration).epsilon(1e-6));
}

TEST_CASE("workload allreduces pay for receives into the gradients they sent", "[sim][workload]") {
  // two_hosts_peer_read.xml: two_hosts where a message into bytes its receiver last sent takes
  // twice as long. Each bucket's allgather step receives the half its reduce-scatter step sent;
  // the backward pass rewrites every gradient, so each iteration starts afresh.
  const auto row =
      one_row("--workload " + three_layers() + " --algo ring --bucket 1 --first-bucket 1 -n 3",
              fixture("two_hosts_peer_read.xml"));
  auto allreduce = [](double n) { return (kAlpha + n / 2 * kBeta) * (1 + 2) + n / 2 * kGamma; };
  const double b0 = 2e-3 + allreduce(10e6);
  const double b1 = std::max(2.5e-3, b0) + allreduce(1e6);
  const double b2 = std::max(3e-3, b1) + allreduce(1e6);
  const double optimizer = 12e6 * kGamma;
  check_ms(row.at("iter_ms"), std::max(3e-3, b2) + optimizer);
  check_ms(row.at("compute_ms"), 3e-3 + optimizer);
}

TEST_CASE("workload -d half: every bucket and the optimizer step move half the bytes",
          "[sim][workload]") {
  const auto row =
      one_row("--workload " + three_layers() + " --algo ring --bucket 1 --first-bucket 1 -d half");
  const double b0 = 2e-3 + allreduce2(5e6);
  const double b1 = std::max(2.5e-3, b0) + allreduce2(0.5e6);
  const double b2 = std::max(3e-3, b1) + allreduce2(0.5e6);
  const double optimizer = 6e6 * kGamma;
  check_ms(row.at("iter_ms"), std::max(3e-3, b2) + optimizer);
  check_ms(row.at("compute_ms"), 3e-3 + optimizer);
}

// The training effects (workloads/training_effects.hpp), each alone, against the same timeline.
TEST_CASE("workload effects: data loading opens every iteration, a single GPU pays it too",
          "[sim][workload][effects]") {
  const auto row = one_row("--workload " + three_layers() +
                           " --algo ring --bucket 1 --first-bucket 1 --data-loading 0.5");
  const double d = 0.5e-3;  // every compute time and bucket ready time moves by d
  const double b0 = d + 2e-3 + allreduce2(10e6);
  const double b1 = std::max(d + 2.5e-3, b0) + allreduce2(1e6);
  const double b2 = std::max(d + 3e-3, b1) + allreduce2(1e6);
  const double optimizer = 12e6 * kGamma;
  check_ms(row.at("iter_ms"), std::max(d + 3e-3, b2) + optimizer);
  check_ms(row.at("compute_ms"), d + 3e-3 + optimizer);
}

TEST_CASE("workload effects: a bucket launch delays each allreduce, not compute",
          "[sim][workload][effects]") {
  const auto row = one_row("--workload " + three_layers() +
                           " --algo ring --bucket 1 --first-bucket 1 --bucket-launch 300");
  const double L = 300e-6;
  const double b0 = 2e-3 + L + allreduce2(10e6);
  const double b1 = std::max(2.5e-3, b0) + L + allreduce2(1e6);
  const double b2 = std::max(3e-3, b1) + L + allreduce2(1e6);
  const double optimizer = 12e6 * kGamma;
  check_ms(row.at("iter_ms"), std::max(3e-3, b2) + optimizer);
  check_ms(row.at("compute_ms"), 3e-3 + optimizer);
}

TEST_CASE("workload effects: a layer started while a bucket is not yet reduced runs slower",
          "[sim][workload][effects]") {
  const auto row = one_row("--workload " + three_layers() +
                           " --algo ring --bucket 1 --first-bucket 1 --interference 0.5");
  // Backward: l2 1 ms from 1 ms (nothing handed over yet), then l1 and l0 (0.5 ms each) start
  // with l2's bucket, then l1's, not yet reduced: 1.5 x 0.5 ms each.
  const double l1_end = 2e-3 + 0.75e-3, l0_end = l1_end + 0.75e-3;
  const double b0 = 2e-3 + allreduce2(10e6);
  REQUIRE(b0 > l1_end);  // l0 starts while l2's bucket is still in flight
  const double b1 = std::max(l1_end, b0) + allreduce2(1e6);
  const double b2 = std::max(l0_end, b1) + allreduce2(1e6);
  const double optimizer = 12e6 * kGamma;
  check_ms(row.at("iter_ms"), std::max(l0_end, b2) + optimizer);
  check_ms(row.at("compute_ms"), 3e-3 + optimizer);  // one GPU alone: no interference
}

TEST_CASE("workload effects: a bucket waits for the slowest rank's jittered backward pass",
          "[sim][workload][effects]") {
  // One bucket, ready when each rank's backward pass ends (3 ms x its draw); the allreduce
  // starts when the later rank is ready; the mean over 3 iterations of draws 0, 1, 2.
  const auto row = one_row("--workload " + three_layers() +
                           " --algo ring --bucket 100M --first-bucket 100M --jitter 0.2 "
                           "--seed 7 -n 3 -w 0");
  ddl::harness::TrainingEffects e;
  e.jitter_cv = 0.2;
  e.seed = 7;
  const double optimizer = 12e6 * kGamma;
  double mean = 0;
  for (int it = 0; it < 3; ++it) {
    const double slowest =
        std::max(ddl::harness::jitter_factor(e, 0, it), ddl::harness::jitter_factor(e, 1, it));
    mean += (3e-3 * slowest + allreduce2(12e6) + optimizer) / 3;
  }
  check_ms(row.at("iter_ms"), mean);
  check_ms(row.at("compute_ms"), 3e-3 + optimizer);
  // --no-effects is the ideal model whatever the file says.
  const auto ideal = one_row("--workload " + three_layers() +
                             " --algo ring --bucket 100M --first-bucket 100M --no-effects");
  check_ms(ideal.at("iter_ms"), 3e-3 + allreduce2(12e6) + optimizer);
}

TEST_CASE("workload, DDP buckets: l2 alone in the first, l1 and l0 together in the last",
          "[sim][workload]") {
  const auto row = one_row("--workload " + three_layers() + " --algo ring --batch 2");
  // Batch 2 doubles every compute time: l2's bucket is ready at 4 ms, the last one at 6 ms.
  const double b0 = 4e-3 + allreduce2(10e6);
  const double b1 = std::max(6e-3, b0) + allreduce2(2e6);
  const double optimizer = 12e6 * kGamma;
  check_ms(row.at("iter_ms"), b1 + optimizer);
  check_ms(row.at("compute_ms"), 6e-3 + optimizer);
  CHECK(std::stod(row.at("images_per_s")) == Approx(2 * 2 / (b1 + optimizer)).epsilon(1e-6));
}

TEST_CASE("workload resnet50 prints one table row per algorithm", "[sim][workload]") {
  const ChildResult r = run_child(ddlsim() + " --platform " + platform("two_hosts.xml") +
                                  " --workload resnet50 --algo ring,ddl");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("25557032 parameters") != std::string::npos);
  CHECK(r.out.find("\n      2     ring") != std::string::npos);
  CHECK(r.out.find("\n      2      ddl") != std::string::npos);
}

TEST_CASE("workload sweep runs every size of the platform family, one row per GPU count",
          "[sim][workload]") {
  const fs::path dir =
      fs::temp_directory_path() / ("ddl_workload_family_" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  fs::copy_file(platform("two_hosts.xml"), dir / "fam_2.xml");
  fs::copy_file(fixture("star_8.xml"), dir / "fam_8.xml");
  fs::copy_file(fixture("star_8.xml"), dir / "other_4.xml");  // another family: not swept
  const ChildResult r =
      run_child(ddlsim() + " --format csv --platform " + (dir / "fam_8.xml").string() +
                " --sweep --workload " + three_layers() + " --algo ring");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const auto rows = parse_csv(r.out);
  REQUIRE(rows.size() == 2);
  CHECK(rows[0].at("gpus") == "2");
  CHECK(rows[1].at("gpus") == "8");
  // The 2-GPU row is the single-platform run of the first test case's workload at batch 1
  // with default buckets.
  const auto single = one_row("--workload " + three_layers() + " --algo ring");
  CHECK(rows[0].at("iter_ms") == single.at("iter_ms"));
  fs::remove_all(dir);
}

TEST_CASE("bad workload inputs: one clear message, non-zero exit", "[sim][workload][cli]") {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"--workload vgg16",
       "unknown workload 'vgg16' (known: resnet50, resnet101, gpt2_small, bert_base)"},
      {"--workload resnet50 --bucket 0", "--bucket must be at least 1 byte"},
      {"--workload resnet50 --bucket lots", "bad --bucket 'lots'"},
      {"--workload resnet50 --first-bucket 0", "--first-bucket must be at least 1 byte"},
      {"--workload resnet50 --batch 0", "--batch must be at least 1"},
      {"--workload resnet50 --sweep --platform " + platform("two_hosts.xml"),
       "--sweep needs a platform named"},
      {"--no-compute-scaling", "--no-compute-scaling needs --workload"},
      {"--workload resnet50 --sweep --dims 4x16x4", "--dims does not go with --sweep"},
      {"--workload resnet50 --check", "--check does not go with --workload"},
      {"--workload resnet50 --algo allgather", "needs allreduce algorithms"},
      {"--batch 64", "--batch needs --workload"},
      {"--sweep", "--sweep needs --workload"},
      {"--sweep-max-gpus 8", "--sweep-max-gpus needs --workload"},
  };
  for (const auto& [args, message] : cases) {
    INFO(args);
    const ChildResult r = run_child(ddlsim() + " " + args);
    CHECK(r.exit_code != 0);
    CHECK(r.out.empty());
    CHECK(r.err.find(message) != std::string::npos);
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  }
  const ChildResult help = run_child(ddlsim() + " --help");
  CHECK(help.out.find("--workload resnet50") != std::string::npos);
  CHECK(help.out.find("--sweep") != std::string::npos);
}

TEST_CASE("workload sweep stops at --sweep-max-gpus", "[sim][workload]") {
  const fs::path dir =
      fs::temp_directory_path() / ("ddl_workload_limit_" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  fs::copy_file(platform("two_hosts.xml"), dir / "fam_2.xml");
  fs::copy_file(fixture("star_8.xml"), dir / "fam_8.xml");
  const std::string sweep = ddlsim() + " --format csv --platform " + (dir / "fam_8.xml").string() +
                            " --sweep --workload " + three_layers() +
                            " --algo ring --sweep-max-gpus ";
  for (const auto& [limit, gpus] : std::vector<std::pair<std::string, std::vector<std::string>>>{
           {"1", {}}, {"2", {"2"}}, {"7", {"2"}}, {"8", {"2", "8"}}}) {
    const ChildResult r = run_child(sweep + limit);
    INFO("--sweep-max-gpus " << limit << "\n" << r.err);
    REQUIRE(r.exit_code == 0);
    const auto rows = parse_csv(r.out);
    REQUIRE(rows.size() == gpus.size());
    for (std::size_t i = 0; i < rows.size(); ++i) CHECK(rows[i].at("gpus") == gpus[i]);
  }
  // A single platform over the limit runs nothing.
  const ChildResult one =
      run_child(ddlsim() + " --format csv --platform " + (dir / "fam_8.xml").string() +
                " --workload " + three_layers() + " --algo ring --sweep-max-gpus 4");
  REQUIRE(one.exit_code == 0);
  CHECK(parse_csv(one.out).empty());
  fs::remove_all(dir);
  for (const auto& [args, message] : std::vector<std::pair<std::string, std::string>>{
           {"--workload resnet50 --sweep --sweep-max-gpus 0",
            "--sweep-max-gpus must be at least 1, got 0"},
           {"--workload resnet50 --sweep --methods ring,hd",
            "--methods does not go with --sweep"}}) {
    INFO(args);
    const ChildResult r = run_child(ddlsim() + " " + args);
    CHECK(r.exit_code != 0);
    CHECK(r.out.empty());
    CHECK(r.err.find(message) != std::string::npos);
  }
}
