// The step graph (workloads/llm/step_graph.hpp): 1F1B's order, Megatron-LM's placement of the
// tensor-parallel collectives (with and without sequence parallelism), the pipeline's sends and
// receives, ZeRO's data-parallel collectives, the experts' all-to-alls; every rank's FLOPs adding
// up to the step's, each group's members issuing the same collectives, each send a receive.
#include <catch2/catch.hpp>
#include <cstdio>
#include <fstream>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "algorithms/error.hpp"
#include "workloads/llm/compute_model.hpp"
#include "workloads/llm/memory.hpp"
#include "workloads/llm/step_graph.hpp"

using namespace ddl;
using namespace ddl::llm;

namespace {

Transformer shipped(const std::string& name) {
  return read_transformer(std::string(DDL_LLM_MODELS) + "/" + name + ".json");
}

std::vector<std::string> labels(const std::vector<Op>& ops, Op::Kind kind) {
  std::vector<std::string> out;
  for (const Op& op : ops)
    if (op.kind == kind) out.push_back(op.label);
  return out;
}

std::string passes(const std::vector<std::pair<bool, int>>& order) {
  std::string s;
  for (const auto& [forward, mb] : order) {
    s += forward ? 'F' : 'B';
    s += std::to_string(mb) + " ";
  }
  return s;
}

}  // namespace

TEST_CASE("1F1B: warm-up forwards, one forward one backward, cool-down backwards", "[llm]") {
  CHECK(passes(one_f_one_b(2, 3, 0)) == "F0 F1 B0 F2 B1 B2 ");
  CHECK(passes(one_f_one_b(2, 3, 1)) == "F0 B0 F1 B1 F2 B2 ");
  CHECK(passes(one_f_one_b(4, 2, 0)) == "F0 F1 B0 B1 ");  // fewer micro-batches than stages
  CHECK(passes(one_f_one_b(4, 6, 1)) == "F0 F1 F2 B0 F3 B1 F4 B2 F5 B3 B4 B5 ");
}

TEST_CASE("tensor parallelism: an allreduce after each block, or allgather and reduce-scatter",
          "[llm]") {
  const Transformer m = shipped("small_gpt");  // 4 layers, b s h = 1 x 128 x 256
  const std::vector<Op> plain = step_graph(m, parse_layout("tp=2"), 0);
  const std::vector<std::string> tp = labels(plain, Op::Kind::collective);
  REQUIRE(tp.size() == 16);  // 2 per layer forward, 2 backward
  CHECK(std::vector<std::string>(tp.begin(), tp.begin() + 2) ==
        std::vector<std::string>{"F0 L0 attention tp allreduce", "F0 L0 mlp tp allreduce"});
  CHECK(std::vector<std::string>(tp.begin() + 8, tp.begin() + 10) ==
        std::vector<std::string>{"B0 L3 mlp tp allreduce", "B0 L3 attention tp allreduce"});
  for (const Op& op : plain)
    if (op.kind == Op::Kind::collective)
      CHECK((op.size == 128 * 256 * 2 && op.group == GroupKind::tp));
  // The second block's compute waits for the first's allreduce.
  const auto mlp = std::find_if(plain.begin(), plain.end(),
                                [](const Op& op) { return op.label == "F0 L0 mlp"; });
  REQUIRE(mlp != plain.end());
  CHECK(plain[mlp->after.back()].label == "F0 L0 attention tp allreduce");

  const std::vector<Op> sp = step_graph(m, parse_layout("tp=2,sp"), 0);
  const std::vector<std::string> spc = labels(sp, Op::Kind::collective);
  REQUIRE(spc.size() == 32);
  CHECK(std::vector<std::string>(spc.begin(), spc.begin() + 4) ==
        std::vector<std::string>{"F0 L0 attention tp allgather",
                                 "F0 L0 attention tp reduce-scatter", "F0 L0 mlp tp allgather",
                                 "F0 L0 mlp tp reduce-scatter"});
  CHECK(labels(step_graph(m, parse_layout("dp=1"), 0), Op::Kind::collective).empty());
}

TEST_CASE("pipeline: activations forward and gradients back, b s h / t each", "[llm]") {
  const Transformer m = shipped("small_gpt");
  const ParallelLayout l = parse_layout("tp=2,pp=2,dp=2,mb=3");
  // Rank 2 is (tp 0, dp 1, stage 0); its peer on stage 1 is rank 6.
  const std::vector<Op> first = step_graph(m, l, 2), last = step_graph(m, l, 6);
  for (const auto& [ops, kind, peer, what] : {std::tuple{&first, Op::Kind::send, 6, "activations"},
                                              {&first, Op::Kind::recv, 6, "gradients"},
                                              {&last, Op::Kind::recv, 2, "activations"},
                                              {&last, Op::Kind::send, 2, "gradients"}}) {
    int n = 0;
    for (const Op& op : *ops)
      if (op.kind == kind) {
        ++n;
        CHECK(op.peer == peer);
        CHECK(op.size == 128 * 256 * 2 / 2);
        CHECK(op.label.find(what) != std::string::npos);
      }
    CHECK(n == 3);
  }
}

TEST_CASE(
    "data parallelism: ZeRO 0 allreduces, 1 reduce-scatters then allgathers, 3 gathers "
    "each layer's weights",
    "[llm]") {
  const Transformer m = shipped("small_gpt");
  const double layer = (256.0 * 768 + 256 * 256) + 2.0 * 256 * 1024 + 2 * 256;  // parameters
  // The graph of rank 0 and the indices of its data-parallel collectives of kind c.
  auto of = [&](const std::string& layout, Collective c) {
    const std::vector<Op> ops = step_graph(m, parse_layout(layout), 0);
    std::vector<std::size_t> out;
    for (std::size_t i = 0; i < ops.size(); ++i)
      if (ops[i].kind == Op::Kind::collective && ops[i].group == GroupKind::dp &&
          ops[i].collective == c)
        out.push_back(i);
    return std::pair{ops, out};
  };
  {
    const auto [ops, ar] = of("dp=4,mb=2", Collective::allreduce);
    REQUIRE(ar.size() == 4);  // one per layer, in the last micro-batch's backward
    CHECK(ops[ar[0]].label == "B1 L3 gradients");
    CHECK(ops[ar[0]].size == static_cast<std::size_t>(layer * 2));
    // It overlaps the layers still to go: it waits for its layer's compute only, and the
    // optimizer waits for all four.
    CHECK(ops[ops[ar[0]].after.at(0)].label == "B1 L3 attention");
    const Op& optimizer = ops.back();
    CHECK(optimizer.label == "optimizer");
    for (std::size_t g : ar)
      CHECK(std::find(optimizer.after.begin(), optimizer.after.end(), g) != optimizer.after.end());
  }
  {
    const auto [ops, rs] = of("dp=4,mb=2,zero=1", Collective::reduce_scatter);
    REQUIRE(rs.size() == 4);
    // The whole buffer: each replica holds the layer's whole gradient and keeps a quarter.
    CHECK(ops[rs[0]].size == static_cast<std::size_t>(layer * 2));
    CHECK(ops.back().label == "updated weights");
    CHECK(ops.back().collective == Collective::allgather);
  }
  {
    const auto [ops, ag] = of("dp=4,mb=2,zero=3", Collective::allgather);
    REQUIRE(ag.size() == 4 * 2 * 2);  // every layer, forward and backward, each micro-batch
    CHECK(ops[ag[0]].label == "F0 L0 weights");
    CHECK(ops[ag[0]].size == static_cast<std::size_t>(layer * 2));  // gathered from 4 quarters
  }
}

TEST_CASE("experts: an all-to-all before and after the experts, b s h top_k / t each", "[llm]") {
  const Transformer m = shipped("mixtral_8x7b");
  const std::vector<Op> ops = step_graph(m, parse_layout("tp=2,dp=4,ep=2,mb=2"), 0);
  int a2a = 0, expert_grads = 0;
  for (const Op& op : ops) {
    if (op.kind != Op::Kind::collective) continue;
    if (op.collective == Collective::alltoall) {
      ++a2a;
      CHECK(op.group == GroupKind::ep);
      CHECK(op.size == static_cast<std::size_t>(32768.0 * 4096 * 2 * 2 / 2));
    }
    if (op.group == GroupKind::expert_dp) ++expert_grads;
  }
  CHECK(a2a == 32 * 2 * 4);
  CHECK(expert_grads == 32);
}

TEST_CASE("every rank's FLOPs add up to the step's and groups issue alike and sends meet receives",
          "[llm]") {
  struct Case {
    const char* model;
    const char* layout;
  };
  for (const Case& c : {Case{"small_gpt", "tp=2,pp=2,dp=2,mb=4,zero=1,sp"},
                        Case{"small_gpt", "pp=4,dp=2,mb=3,zero=3"},
                        Case{"small_gpt", "pp=3,dp=2,mb=4"},  // 1, 2 and 1 layers
                        Case{"mixtral_8x7b", "tp=2,pp=2,dp=4,ep=2,mb=2"}}) {
    INFO(c.model << " " << c.layout);
    const Transformer m = shipped(c.model);
    const ParallelLayout l = parse_layout(c.layout);
    std::vector<std::vector<Op>> graphs;
    for (int r = 0; r < l.gpus(); ++r) graphs.push_back(step_graph(m, l, r));
    double flops = 0;
    for (const auto& g : graphs)
      for (std::size_t i = 0; i < g.size(); ++i) {
        flops += g[i].flops;
        for (std::size_t a : g[i].after) CHECK(a < i);  // in an order that can be played
      }
    CHECK(flops == Approx(step_flops(m, l)).epsilon(1e-9));
    // Each group's members issue the same collectives in the same order.
    std::map<std::pair<GroupKind, std::vector<int>>, std::vector<std::string>> issued;
    for (int r = 0; r < l.gpus(); ++r) {
      const Coordinates at = coordinates(l, r);
      std::map<GroupKind, std::vector<std::string>> mine;
      for (const Op& op : graphs[static_cast<std::size_t>(r)])
        if (op.kind == Op::Kind::collective)
          mine[op.group].push_back(std::string(to_string(op.collective)) + " " +
                                   std::to_string(op.size));
      for (const auto& [group, sequence] : mine) {
        // The group's key: its members' coordinates that do not vary inside it.
        const std::vector<int> key = group == GroupKind::tp   ? std::vector<int>{at.dp, at.pp}
                                     : group == GroupKind::dp ? std::vector<int>{at.tp, at.pp}
                                     : group == GroupKind::ep
                                         ? std::vector<int>{at.tp, at.pp, at.dp / l.ep}
                                         : std::vector<int>{at.tp, at.pp, at.dp % l.ep};
        auto [it, fresh] = issued.try_emplace({group, key}, sequence);
        if (!fresh) CHECK(it->second == sequence);
      }
    }
    // Each send has its receive on the peer, of the same size, in the same order.
    for (int r = 0; r < l.gpus(); ++r)
      for (int q = 0; q < l.gpus(); ++q) {
        std::vector<std::size_t> sent, received;
        for (const Op& op : graphs[static_cast<std::size_t>(r)])
          if (op.kind == Op::Kind::send && op.peer == q) sent.push_back(op.size);
        for (const Op& op : graphs[static_cast<std::size_t>(q)])
          if (op.kind == Op::Kind::recv && op.peer == r) received.push_back(op.size);
        CHECK(sent == received);
      }
  }
  CHECK_THROWS_WITH(step_graph(shipped("small_gpt"), parse_layout("pp=2,mb=2,interleaved=2"), 0),
                    Catch::Contains("the interleaved schedule's step graph is not generated"));
}

TEST_CASE("compute model: the roofline on a sourced GPU, and whether a layout fits", "[llm]") {
  const Gpu h100 = read_gpu(std::string(DDL_LLM_GPUS) + "/h100_sxm.json");
  CHECK(h100.bf16_flops == 989.4e12);
  CHECK(h100.sources.at("efficiency").rfind("assumed", 0) == 0);
  Op gemm;
  gemm.flops = 1e12;
  gemm.bytes = 1e6;
  CHECK(compute_seconds(h100, gemm) == Approx(1e12 / (989.4e12 * 0.7)));  // compute-bound
  gemm.bytes = 1e11;
  CHECK(compute_seconds(h100, gemm) == Approx(1e11 / (3.35e12 * 0.8)));  // memory-bound
  gemm.kernel = Kernel::attention;
  gemm.bytes = 0;
  CHECK(compute_seconds(h100, gemm) == Approx(1e12 / (989.4e12 * 0.5)));
  Op send;
  send.kind = Op::Kind::send;
  CHECK(compute_seconds(h100, send) == 0);
  // Llama-2 70B on 1024 GPUs, TP 8, PP 8: fits with ZeRO-1 and sequence parallelism; on 64 GPUs
  // of TP 8, DP 8 without pipelining, 80 layers' optimizer states unsharded do not (8.6 billion
  // parameters a GPU, 12 bytes each).
  const Transformer llama = shipped("llama2_70b");
  CHECK(memory_verdict(llama, parse_layout("tp=8,pp=8,dp=16,mb=32,zero=1,sp"), h100) == "");
  const std::string verdict = memory_verdict(llama, parse_layout("tp=8,dp=8,mb=4,sp"), h100);
  CHECK(verdict.rfind("stage 0 needs", 0) == 0);
  CHECK(verdict.find("of the GPU's 80.0 GB") != std::string::npos);
  const std::string path = "test_llm_gpu.json";
  std::ofstream(path)
      << R"({"name": "g", "bf16_flops": 1e12, "memory_bandwidth": 1e12, "memory_bytes": 1e9,
    "efficiency": {"gemm": 1.5, "attention": 0.5, "elementwise": 0.5, "optimizer": 0.5},
    "sources": {"bf16_flops": "x", "memory_bandwidth": "x", "memory_bytes": "x", "efficiency": "x"}})";
  CHECK_THROWS_WITH(read_gpu(path),
                    "GPU description '" + path + "': efficiency.gemm must be a fraction in (0, 1]");
  std::remove(path.c_str());
}

TEST_CASE(
    "recomputation runs each layer's forward again, its collectives with it, before its backward",
    "[llm]") {
  const Transformer m = shipped("small_gpt");
  auto total = [&](const std::string& text) {
    const ParallelLayout l = parse_layout(text);
    double flops = 0;
    std::size_t collectives = 0;
    for (int r = 0; r < l.gpus(); ++r)
      for (const Op& op : step_graph(m, l, r)) {
        flops += op.flops;
        collectives += op.kind == Op::Kind::collective && op.group == GroupKind::tp;
      }
    return std::pair{flops, collectives};
  };
  const auto [plain, plain_tp] = total("tp=2,pp=2,dp=2,mb=4");
  const auto [again, again_tp] = total("tp=2,pp=2,dp=2,mb=4,recompute");
  // The step's model FLOPs are 3 (layers' forward + logits) per micro-batch and replica; the
  // recomputation adds the layers' forward once more.
  const ParallelLayout l = parse_layout("tp=2,pp=2,dp=2,mb=4");
  const double logits = 2.0 * 128 * 256 * 1024;  // b s h V, one micro-batch
  const double forward_layers = step_flops(m, l) / 3 - logits * 4 * 2;
  CHECK(again - plain == Approx(forward_layers).epsilon(1e-12));
  // Two tensor-parallel allreduces a layer (attention, MLP) in each recomputed forward: 4 layers,
  // 4 micro-batches, 2 replicas, on both tp ranks.
  CHECK(again_tp - plain_tp == 2u * 4 * 4 * 2 * 2);
  const std::vector<Op> ops = step_graph(m, parse_layout("tp=2,pp=2,dp=2,mb=4,recompute"), 0);
  const auto at = std::find_if(
      ops.begin(), ops.end(), [](const Op& op) { return op.label == "B0 L1 recompute attention"; });
  REQUIRE(at != ops.end());
  CHECK(std::next(at)->label == "B0 L1 recompute attention tp allreduce");
}
