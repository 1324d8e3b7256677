// LLM workloads (workloads/llm/): the shipped descriptions give the published parameter counts to
// the parameter; bad descriptions and layouts are refused by name; a layout's coordinates follow
// Megatron-LM's order; a GPU's memory and a step's FLOPs against hand computation.
#include <catch2/catch.hpp>
#include <cstdio>
#include <fstream>
#include <string>

#include "algorithms/error.hpp"
#include "workloads/llm/layout.hpp"
#include "workloads/llm/memory.hpp"
#include "workloads/llm/transformer.hpp"

using namespace ddl;
using namespace ddl::llm;

namespace {

Transformer shipped(const std::string& name) {
  return read_transformer(std::string(DDL_LLM_MODELS) + "/" + name + ".json");
}

}  // namespace

TEST_CASE("shipped descriptions give the published parameter counts", "[llm]") {
  // Hugging Face's counts of the released checkpoints (model.num_parameters()): Llama-2-7b-hf,
  // Llama-2-70b-hf, Mixtral-8x7B-v0.1, Llama-3.1-405B.
  CHECK(parameter_count(shipped("llama2_7b")) == 6738415616);
  CHECK(parameter_count(shipped("llama2_70b")) == 68976648192);
  CHECK(parameter_count(shipped("mixtral_8x7b")) == 46702792704);
  CHECK(parameter_count(shipped("llama3_405b")) == 405853388800);
  // GPT-3's paper gives 175.0 billion (its biases, under 0.01 %, are left out here).
  CHECK(static_cast<double>(parameter_count(shipped("gpt3_175b"))) ==
        Approx(175.0e9).epsilon(0.005));
  const Transformer small = shipped("small_gpt");
  CHECK(small.sources.at("layers").rfind("assumed", 0) == 0);
  // 4 layers of 12 h^2 + 2 h, the tied table and the positions, the final norm.
  CHECK(parameter_count(small) == 4 * (12 * 256 * 256 + 2 * 256) + 1024 * 256 + 128 * 256 + 256);
}

TEST_CASE("a description is refused by name: a missing field, a bad figure, no source", "[llm]") {
  const std::string path = "test_llm_model.json";
  auto refused = [&](const std::string& text) {
    std::ofstream(path) << text;
    try {
      read_transformer(path);
    } catch (const InvalidArgument& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  const std::string src =
      R"("sources": {"layers": "x", "hidden": "x", "heads": "x", "ffn": "x", "vocab": "x", "sequence": "x", "kv_heads": "x"})";
  const std::string where = "model description '" + path + "': ";
  CHECK(
      refused(
          R"({"name": "m", "layers": 2, "hidden": 64, "heads": 4, "ffn": 256, "vocab": 100, "sequence": 16, )" +
          src + "}") == "accepted");
  CHECK(refused(R"({"name": "m", "hidden": 64})") == where + "missing field 'layers'");
  CHECK(refused(R"({"name": "m", "layers": 0, "hidden": 64})") ==
        where + "'layers' must be a positive integer");
  CHECK(
      refused(
          R"({"name": "m", "layers": 2, "hidden": 64, "heads": 4, "ffn": 256, "vocab": 100, "sequence": 16, "sources": {"layers": "x"}})") ==
      where + "'hidden' has no source (sources.hidden)");
  CHECK(
      refused(
          R"({"name": "m", "layers": 2, "hidden": 64, "heads": 5, "ffn": 256, "vocab": 100, "sequence": 16, )" +
          src + "}") == where + "heads (5) do not divide hidden (64)");
  CHECK(
      refused(
          R"({"name": "m", "layers": 2, "hidden": 64, "heads": 4, "kv_heads": 3, "ffn": 256, "vocab": 100, "sequence": 16, )" +
          src + "}") == where + "kv_heads (3) do not divide heads (4)");
  CHECK(refused("{").rfind(where + "not JSON", 0) == 0);
  std::remove(path.c_str());
  CHECK_THROWS_WITH(read_transformer("no_such_model.json"),
                    "model description 'no_such_model.json': cannot be read");
}

TEST_CASE("layouts: parsed, checked against the model and the GPUs, ranks in Megatron's order",
          "[llm]") {
  const ParallelLayout l = parse_layout("tp=8,pp=8,dp=16,mb=32,zero=1,sp");
  CHECK(l.gpus() == 1024);
  CHECK(l.global_batch() == 512);
  CHECK(l.to_string() == "tp=8,pp=8,dp=16,ep=1,mb=32,mbs=1,zero=1,sp");
  CHECK(parse_layout(l.to_string()).to_string() == l.to_string());
  const Transformer llama = shipped("llama2_70b");
  check_layout(l, llama, 1024);
  const std::string what = "layout tp=8,pp=8,dp=16,ep=1,mb=32,mbs=1,zero=1,sp of llama2_70b: ";
  CHECK_THROWS_WITH(check_layout(l, llama, 512), what + "tp x pp x dp = 1024, not the 512 GPUs");
  CHECK_THROWS_WITH(check_layout(parse_layout("tp=3,pp=8,dp=1"), llama, 24),
                    Catch::Contains("tp 3 does not divide heads (64)"));
  CHECK_THROWS_WITH(check_layout(parse_layout("tp=8,pp=3,dp=1,mb=3,interleaved=2"), llama, 24),
                    Catch::Contains("80 layers do not split into pp x virtual stages = 6"));
  CHECK_THROWS_WITH(check_layout(parse_layout("pp=81,mb=81"), llama, 81),
                    Catch::Contains("80 layers are fewer than the 81 pipeline stages"));
  check_layout(parse_layout("tp=8,pp=3,dp=1"), llama, 24);  // 1F1B: 26, 27, 27
  CHECK_THROWS_WITH(check_layout(parse_layout("tp=8,pp=2,dp=2,ep=2"), llama, 32),
                    Catch::Contains("ep 2 on a dense model"));
  CHECK_THROWS_WITH(check_layout(parse_layout("pp=4,interleaved=2,mb=6"), llama, 4),
                    Catch::Contains("micro-batches (6) a multiple of pp (4)"));
  CHECK_THROWS_WITH(check_layout(parse_layout("dp=2,sp"), llama, 2),
                    Catch::Contains("sequence parallelism needs tp > 1"));
  check_layout(parse_layout("tp=2,dp=8,ep=8"), shipped("mixtral_8x7b"), 16);
  CHECK_THROWS_WITH(parse_layout("tp=8,cp=2"),
                    "layout 'tp=8,cp=2': 'cp=2' is none of tp=N, pp=N, dp=N, ep=N, mb=N, mbs=N, "
                    "zero=0..3, sp, interleaved=V, recompute");
  CHECK_THROWS_WITH(parse_layout("zero=4"), "layout 'zero=4': 4 is not an integer in 0..3");
  // tp fastest, then dp, then pp: rank 8 x 16 x 3 + 8 x 5 + 2 is stage 3, replica 5, shard 2.
  const Coordinates c = coordinates(l, 8 * 16 * 3 + 8 * 5 + 2);
  CHECK((c.tp == 2 && c.dp == 5 && c.pp == 3));
  for (int r = 0; r < l.gpus(); ++r) CHECK(rank_at(l, coordinates(l, r)) == r);
}

TEST_CASE("stages hold the layers evenly, else the first and last one fewer (Llama 3)", "[llm]") {
  const Transformer llama3 = shipped("llama3_405b");
  const ParallelLayout l = parse_layout("tp=8,pp=16,dp=128,mb=16");
  check_layout(l, llama3, 16384);
  std::vector<int> layers;
  for (int s = 0; s < 16; ++s) layers.push_back(stage_layers(l, llama3, s));
  std::vector<int> expected(16, 8);
  expected.front() = expected.back() = 7;  // 126 = 14 x 8 + 2 x 7
  CHECK(layers == expected);
  CHECK(first_layer(l, llama3, 1) == 7);
  CHECK(first_layer(l, llama3, 15) == 119);
  // A shortfall of 6 on 8 stages: the first three and the last three hold one fewer.
  Transformer ten = llama3;
  ten.layers = 10;
  const ParallelLayout eight = parse_layout("pp=8,mb=8");
  layers.clear();
  for (int s = 0; s < 8; ++s) layers.push_back(stage_layers(eight, ten, s));
  CHECK(layers == std::vector<int>{1, 1, 1, 2, 2, 1, 1, 1});
  CHECK(first_layer(eight, ten, 4) == 5);
  // Even splits stay even.
  const ParallelLayout even = parse_layout("tp=8,pp=8,dp=16,mb=32");
  for (int s = 0; s < 8; ++s) CHECK(stage_layers(even, shipped("llama2_70b"), s) == 10);
}

TEST_CASE("a GPU's memory by hand: weights, gradients, optimizer by ZeRO stage, activations",
          "[llm]") {
  // small_gpt (h 256, f 1024, V 1024, s 128, 4 layers, tied, positions) on tp 2, pp 2, dp 2,
  // 4 micro-batches of 1, ZeRO-1, sequence parallel.
  const Transformer m = shipped("small_gpt");
  const ParallelLayout l = parse_layout("tp=2,pp=2,dp=2,mb=4,zero=1,sp");
  check_layout(l, m, 8);
  // A layer on one GPU: (QKV 256 x 768 + output 256 x 256) / 2 + MLP 2 x 256 x 1024 / 2 + norms.
  const double layer = (256.0 * 768 + 256 * 256) / 2 + 2.0 * 256 * 1024 / 2 + 2 * 256;
  // Stage 0: two layers, half the token table, all the positions.
  const double first = 2 * layer + 1024.0 * 256 / 2 + 128 * 256;
  const GpuMemory g0 = gpu_memory(m, l, 0);
  CHECK(g0.parameters == first);
  CHECK(g0.weights == 2 * first);
  CHECK(g0.gradients == 2 * first);
  CHECK(g0.optimizer == 12 * first / 2);  // ZeRO-1: over the 2 replicas
  // s b h 34 / t per layer, 2 layers, 2 micro-batches in flight on the first of 2 stages.
  CHECK(g0.activations == 128.0 * 256 * 34 / 2 * 2 * 2);
  // Stage 1: two layers, the tied table's copy, the final norm; one micro-batch in flight and
  // the logits of one in fp32.
  const double last = 2 * layer + 1024.0 * 256 / 2 + 256;
  const GpuMemory g1 = gpu_memory(m, l, 1);
  CHECK(g1.parameters == last);
  CHECK(g1.activations == 128.0 * 256 * 34 / 2 * 2 * 1 + 4.0 * 128 * 1024 / 2);
  // ZeRO-3 shards weights and gradients too; full recomputation keeps each layer's input.
  const GpuMemory z3 = gpu_memory(m, parse_layout("tp=2,pp=2,dp=2,mb=4,zero=3,sp,recompute"), 0);
  CHECK(z3.weights == 2 * first / 2);
  CHECK(z3.gradients == 2 * first / 2);
  CHECK(z3.activations == 2.0 * 128 * 256 / 2 * 2 * 2);
  // Without sequence parallelism: s b h (10 + 24 / t).
  CHECK(gpu_memory(m, parse_layout("tp=2,pp=2,dp=2,mb=4"), 0).activations ==
        128.0 * 256 * (10 + 24.0 / 2) * 2 * 2);
  // Interleaved over 2 chunks: the first stage holds pp (1 + (pp-1)/(pp v)) = 2.5 micro-batches.
  CHECK(gpu_memory(m, parse_layout("tp=2,pp=2,dp=2,mb=4,sp,interleaved=2"), 0).activations ==
        128.0 * 256 * 34 / 2 * 2 * 2.5);
}

TEST_CASE("a step's FLOPs are Narayanan et al.'s for GPT-3", "[llm]") {
  const Transformer m = shipped("gpt3_175b");
  const ParallelLayout l = parse_layout("tp=8,pp=16,dp=12,mb=128");
  const double B = static_cast<double>(l.global_batch()), s = 2048, h = 12288, L = 96, V = 50257;
  CHECK(step_flops(m, l) ==
        Approx(72 * B * s * L * h * h * (1 + s / (6 * h) + V / (12 * L * h))).epsilon(1e-12));
  // Mixtral: two of eight experts per token, three matrices each, and the router.
  const Transformer x = shipped("mixtral_8x7b");
  const ParallelLayout one = parse_layout("dp=1");
  const double xs = 32768, xh = 4096, kv = 8 * 128, f = 14336;
  const double layer = 2 * xs * xh * (xh + 2 * kv) + 4 * xs * xs * xh + 2 * xs * xh * xh +
                       2 * 3 * 2 * xs * xh * f + 2 * xs * xh * 8;
  CHECK(step_flops(x, one) == Approx(3 * (32 * layer + 2 * xs * xh * 32000)).epsilon(1e-12));
}
