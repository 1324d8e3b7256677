// Workload files (the checked-in ResNets and synthetic ones), the iteration plan and the
// result rows.
#include <catch2/catch.hpp>
#include <sstream>

#include "algorithms/error.hpp"
#include "workloads/workload.hpp"
#include "workloads/workload_report.hpp"

using namespace ddl;
using namespace ddl::harness;

namespace {

const std::string kParams =
    "# model = tiny\n# reference_batch = 4\n# reference_iteration_ms = 30\n# backward_to_forward = "
    "2\n";

Workload parse(const std::string& text) {
  std::istringstream in(text);
  return parse_workload(in, "tiny.csv");
}

// Five layers: a (10 params), b (20), c (30), d (none), e (40); multiply-adds 1:2:3:0:4.
Workload five_layers() {
  return parse(kParams +
               "layer,kind,params,forward_macs\na,conv,10,100\nb,bn,20,200\nc,conv,30,300\n"
               "d,pool,0,0\ne,fc,40,400\n");
}

}  // namespace

TEST_CASE("workload files: the checked-in ResNets hold torchvision's parameter counts",
          "[workload]") {
  const Workload r50 = load_workload(workload_path("resnet50", DDL_WORKLOADS));
  CHECK(r50.model == "resnet50");
  CHECK(r50.total_params() == 25557032);
  CHECK(r50.layers.size() == 107);  // 53 convolutions, 53 batch norms, fc
  CHECK(r50.reference_batch == 32);
  CHECK(r50.reference_iteration_s == Approx(0.180).epsilon(1e-12));
  CHECK(r50.backward_to_forward == 2.0);
  CHECK(r50.layers.front().name == "conv1");
  CHECK(r50.layers.front().params == 7 * 7 * 3 * 64);
  CHECK(r50.layers.back().params == 2048 * 1000 + 1000);
  const Workload r101 = load_workload(workload_path("resnet101", DDL_WORKLOADS));
  CHECK(r101.total_params() == 44549160);
  CHECK(r101.layers.size() == 209);
}

TEST_CASE("unknown workload names list the known ones", "[workload]") {
  CHECK_THROWS_WITH(
      workload_path("vgg16", "/w"),
      Catch::Contains("vgg16") && Catch::Contains("resnet50, resnet101, gpt2_small, bert_base"));
  CHECK(workload_path("resnet101", "/w") == "/w/resnet101.csv");
  CHECK_THROWS_WITH(load_workload("/nonexistent/x.csv"), Catch::Contains("/nonexistent/x.csv"));
}

TEST_CASE("malformed workload files name the file, line and problem", "[workload]") {
  const std::string header = "layer,kind,params,forward_macs\n";
  CHECK_THROWS_WITH(parse(kParams + "layer,params\n"),
                    Catch::Contains("tiny.csv:5") && Catch::Contains("header"));
  CHECK_THROWS_WITH(parse(kParams + header + "a,conv,x,1\n"),
                    Catch::Contains("tiny.csv:6") && Catch::Contains("params"));
  CHECK_THROWS_WITH(parse(kParams + header + "a,conv,-1,1\n"), Catch::Contains("non-negative"));
  CHECK_THROWS_WITH(parse(kParams + header + "a,conv,1\n"), Catch::Contains("4 cells"));
  CHECK_THROWS_WITH(parse(kParams + header), Catch::Contains("no layers"));
  CHECK_THROWS_WITH(parse(kParams + header + "a,conv,1,0\n"),
                    Catch::Contains("no forward multiply-adds"));
  CHECK_THROWS_WITH(parse("# model = t\n" + header + "a,conv,1,1\n"),
                    Catch::Contains("reference_batch"));
  CHECK_THROWS_WITH(parse(kParams + "# model = again\n" + header + "a,conv,1,1\n"),
                    Catch::Contains("twice"));
  CHECK_THROWS_WITH(parse(kParams + "# total_params = 5\n" + header + "a,conv,1,1\n"),
                    Catch::Contains("1 parameters") && Catch::Contains("total_params says 5"));
  CHECK_THROWS_WITH(parse("# model = t\n# reference_batch = 4\n# reference_iteration_ms = 0\n"
                          "# backward_to_forward = 2\n" +
                          header + "a,conv,1,1\n"),
                    Catch::Contains("reference_iteration_ms"));
}

TEST_CASE("workload plan splits compute by multiply-adds and fills buckets in reverse layer order",
          "[workload]") {
  BucketOptions b;
  b.first_bucket_bytes = 64;
  b.bucket_bytes = 100;
  const IterationPlan plan = plan_iteration(five_layers(), 8, b);
  // 30 ms at batch 4 -> 60 ms at batch 8: forward 20 ms, backward 40 ms, split 1:2:3:0:4.
  REQUIRE(plan.forward_s.size() == 5);
  CHECK(plan.forward_s[0] == Approx(0.002));
  CHECK(plan.forward_s[4] == Approx(0.008));
  REQUIRE(plan.backward_s.size() == 5);
  CHECK(plan.backward_s[0] == Approx(0.016));  // e first
  CHECK(plan.backward_s[1] == 0);              // d
  CHECK(plan.backward_s[4] == Approx(0.004));  // a last
  CHECK(plan.compute_s() == Approx(0.060));
  // Reverse order e(160 B) d(0) c(120) b(80) a(40): e closes the 64 B first bucket, c the next
  // (120 >= 100), b+a are left for the last one.
  REQUIRE(plan.buckets.size() == 3);
  CHECK(plan.buckets[0].offset == 0);
  CHECK(plan.buckets[0].bytes == 160);
  CHECK(plan.buckets[0].ready_after == 0);
  CHECK(plan.buckets[1].offset == 160);
  CHECK(plan.buckets[1].bytes == 120);
  CHECK(plan.buckets[1].ready_after == 2);
  CHECK(plan.buckets[2].offset == 280);
  CHECK(plan.buckets[2].bytes == 120);
  CHECK(plan.buckets[2].ready_after == 4);
  CHECK(plan.gradient_bytes == 400);
  CHECK(plan.params == 100);
}

TEST_CASE(
    "workload ResNet-50 buckets: fc alone first, then at least 25 MiB each, tiling the gradients",
    "[workload]") {
  const Workload r50 = load_workload(workload_path("resnet50", DDL_WORKLOADS));
  const IterationPlan plan = plan_iteration(r50, 32, BucketOptions{});
  CHECK(plan.compute_s() == Approx(0.180));
  REQUIRE(plan.buckets.size() >= 2);
  CHECK(plan.buckets[0].bytes == (2048 * 1000 + 1000) * 4);
  std::size_t offset = 0;
  for (std::size_t i = 0; i < plan.buckets.size(); ++i) {
    CHECK(plan.buckets[i].offset == offset);
    if (i > 0 && i + 1 < plan.buckets.size()) CHECK(plan.buckets[i].bytes >= std::size_t{25} << 20);
    offset += plan.buckets[i].bytes;
  }
  CHECK(offset == std::size_t{25557032} * 4);
  CHECK(plan.buckets.back().ready_after == plan.backward_s.size() - 1);
  CHECK(plan_iteration(r50, 64, BucketOptions{}).compute_s() == Approx(0.360));
}

TEST_CASE("workload plans reject a zero batch or bucket", "[workload]") {
  BucketOptions zero;
  zero.bucket_bytes = 0;
  CHECK_THROWS_AS(plan_iteration(five_layers(), 1, zero), InvalidArgument);
  CHECK_THROWS_WITH(plan_iteration(five_layers(), 0, BucketOptions{}), Catch::Contains("batch"));
}

TEST_CASE("workload rows: derived columns and a csv round trip", "[workload]") {
  const WorkloadRow row{8, "ddl", "4x2", 32, 0.250, 0.200};
  CHECK(row.exposed_comm_s() == Approx(0.050));
  CHECK(row.samples_per_s() == Approx(8 * 32 / 0.250));
  CHECK(row.efficiency() == Approx(0.8));
  RunInfo info;
  info.add("tool", "ddlsim");
  info.add("compute_scale", "0.5");
  info.header = {"a line of prose"};
  std::ostringstream out;
  write_workload_report(out, Format::csv, {row}, info, "images", {"after the rows"});
  CHECK(out.str().find(
            "# a line of prose\n"
            "gpus,algo,dims,iter_ms,compute_ms,exposed_comm_ms,images_per_s,efficiency\n8,ddl,") !=
        std::string::npos);
  const WorkloadCsv back = parse_workload_csv(out.str(), 32);
  REQUIRE(back.rows.size() == 1);
  CHECK(back.sample == "images");
  REQUIRE(back.fields.size() == 2);
  CHECK(back.fields[1].first == "compute_scale");
  CHECK(back.fields[1].second == "0.5");
  CHECK(back.rows[0].gpus == 8);
  CHECK(back.rows[0].dims == "4x2");
  CHECK(back.rows[0].iteration_s == Approx(0.250));
  CHECK(back.rows[0].compute_s == Approx(0.200));
  CHECK_THROWS_AS(parse_workload_csv("size,time\n", 32), InvalidArgument);
  std::ostringstream json;
  write_workload_report(json, Format::json, {row}, info, "images");
  CHECK(json.str().find("\"efficiency\":0.8") != std::string::npos);
  CHECK(json.str().rfind("{\"metadata\": {\"tool\":\"ddlsim\"", 0) == 0);
}

TEST_CASE(
    "workload throughput is labelled by the workload's sample: sequences for a "
    "transformer",
    "[workload]") {
  const Workload gpt2 = load_workload(workload_path("gpt2_small", DDL_WORKLOADS));
  CHECK(gpt2.sample == "sequences");
  CHECK(load_workload(workload_path("resnet50", DDL_WORKLOADS)).sample == "images");
  const WorkloadRow row{2, "ring", "2", 8, 0.5, 0.4};
  std::ostringstream csv, table, json;
  write_workload_report(csv, Format::csv, {row}, RunInfo{}, gpt2.sample);
  CHECK(csv.str().rfind(
            "gpus,algo,dims,iter_ms,compute_ms,exposed_comm_ms,sequences_per_s,efficiency\n", 0) ==
        0);
  CHECK(parse_workload_csv(csv.str(), 8).sample == "sequences");
  write_workload_report(table, Format::table, {row}, RunInfo{}, gpt2.sample);
  CHECK(table.str().find("(sequences/s)") != std::string::npos);
  CHECK(table.str().find("images") == std::string::npos);
  write_workload_report(json, Format::json, {row}, RunInfo{}, gpt2.sample);
  CHECK(json.str().find("\"sequences_per_s\":32.0") != std::string::npos);
}

TEST_CASE("workload files say which GPU their times are for", "[workload]") {
  const std::string layers = "layer,kind,params,forward_macs\na,conv,10,100\n";
  const std::string timed =
      "layer,kind,params,forward_macs,forward_ms,backward_ms\na,conv,10,100,10,20\n";
  // Stated: all three keys.
  const Workload h100 = parse(kParams +
                              "# reference_gpu = H100 SXM5\n# reference_gpu_fp32_tflops = 67\n"
                              "# reference_gpu_memory_gbs = 3350\n" +
                              layers);
  REQUIRE(h100.reference_gpu);
  CHECK(h100.reference_gpu->stated);
  CHECK(h100.reference_gpu->fp32_flops == 67e12);
  CHECK(h100.reference_gpu->memory_bandwidth == 3350e9);
  CHECK(reference_field(h100) == "H100 SXM5 (67 TFLOP/s fp32, 3350 GB/s)");
  // Unstated, assumed times (the multiply-add split): the P100 the shipped files assume.
  const Workload assumed = parse(kParams + layers);
  REQUIRE(assumed.reference_gpu);
  CHECK_FALSE(assumed.reference_gpu->stated);
  CHECK(assumed.reference_gpu->fp32_flops == 10.6e12);
  CHECK(assumed.reference_gpu->memory_bandwidth == 732e9);
  CHECK(reference_field(assumed) ==
        "P100 (10.6 TFLOP/s fp32, 732 GB/s) (default: the file names none)");
  // Unstated, measured times: no GPU is named, none is guessed.
  const Workload measured = parse(kParams + timed);
  CHECK_FALSE(measured.reference_gpu);
  CHECK(reference_field(measured).empty());
  CHECK(load_workload(workload_path("bert_base", DDL_WORKLOADS)).reference_gpu->stated);
}

TEST_CASE("bad sample and reference GPU keys name the key", "[workload]") {
  const std::string layers = "layer,kind,params,forward_macs\na,conv,10,100\n";
  CHECK_THROWS_WITH(parse(kParams + "# sample = Images\n" + layers),
                    Catch::Contains("tiny.csv:5") && Catch::Contains("sample 'Images'"));
  CHECK_THROWS_WITH(parse(kParams + "# sample = images_s\n" + layers),
                    Catch::Contains("not one lowercase word"));
  CHECK_THROWS_WITH(parse(kParams + "# reference_gpu = V100\n" + layers),
                    Catch::Contains("missing parameter '# reference_gpu_fp32_tflops = ...'"));
  CHECK_THROWS_WITH(parse(kParams +
                          "# reference_gpu = V100\n# reference_gpu_fp32_tflops = 15.7e12\n"
                          "# reference_gpu_memory_gbs = 900\n" +
                          layers),
                    Catch::Contains("tiny.csv:6") && Catch::Contains("reference_gpu_fp32_tflops"));
  CHECK_THROWS_WITH(parse(kParams +
                          "# reference_gpu = V100\n# reference_gpu_fp32_tflops = 15.7\n"
                          "# reference_gpu_memory_gbs = -900\n" +
                          layers),
                    Catch::Contains("reference_gpu_memory_gbs '-900'"));
}

TEST_CASE("workload files with measured per-layer times: the plan uses them, scaled by the batch",
          "[workload]") {
  // 30 ms at batch 4 in all: forward 2 + 3 + 5 = 10 ms, backward 4 + 6 + 10 = 20 ms (ratio 2);
  // the multiply-adds (1:1:1) would have split each pass evenly.
  const std::string timed =
      "layer,kind,params,forward_macs,forward_ms,backward_ms\n"
      "a,conv,10,100,2,4\nb,bn,20,100,3,6\nc,fc,30,100,5,10\n";
  const Workload w = parse(kParams + timed);
  REQUIRE(w.measured_times);
  CHECK(w.layers[1].forward_s == Approx(3e-3).epsilon(1e-12));
  CHECK(w.layers[1].backward_s == Approx(6e-3).epsilon(1e-12));
  const IterationPlan plan = plan_iteration(w, 8, BucketOptions{});  // twice the reference batch
  REQUIRE(plan.forward_s.size() == 3);
  CHECK(plan.forward_s[0] == Approx(4e-3).epsilon(1e-12));
  CHECK(plan.forward_s[2] == Approx(10e-3).epsilon(1e-12));
  // Backward order: c, b, a.
  CHECK(plan.backward_s[0] == Approx(20e-3).epsilon(1e-12));
  CHECK(plan.backward_s[2] == Approx(8e-3).epsilon(1e-12));
  CHECK(plan.compute_s() == Approx(60e-3).epsilon(1e-12));
  CHECK_FALSE(five_layers().measured_times);
}

TEST_CASE("measured per-layer times that disagree with the file's totals, or are bad, are refused",
          "[workload]") {
  const std::string header = "layer,kind,params,forward_macs,forward_ms,backward_ms\n";
  // Sums to 36 ms, the file says 30.
  CHECK_THROWS_WITH(parse(kParams + header + "a,conv,10,100,2,4\nb,fc,20,100,10,20\n"),
                    Catch::Contains("tiny.csv:3") && Catch::Contains("reference_iteration_ms 30") &&
                        Catch::Contains("36"));
  // Sums to 30 ms with backward 1.5 x forward (12 + 18), the file says 2.
  CHECK_THROWS_WITH(parse(kParams + header + "a,conv,10,100,12,18\n"),
                    Catch::Contains("tiny.csv:4") && Catch::Contains("backward_to_forward 2"));
  CHECK_THROWS_WITH(parse(kParams + header + "a,conv,10,100,-1,31\n"),
                    Catch::Contains("tiny.csv:6") && Catch::Contains("forward_ms '-1'"));
  CHECK_THROWS_WITH(parse(kParams + header + "a,conv,10,100,nan,20\n"),
                    Catch::Contains("forward_ms 'nan'"));
  CHECK_THROWS_WITH(parse(kParams + header + "a,conv,10,100,10\n"),
                    Catch::Contains("expected 6 cells"));
}
