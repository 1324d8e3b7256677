// The layout search (workloads/llm/layout_search.hpp): the candidate sets of small_gpt on one
// 8-GPU node and of Llama-2 70B on 1,024 H100s, against sets worked out by hand; a split that
// fits only with recomputation appears once, recomputing; bad search inputs are refused by name.
#include <algorithm>
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "algorithms/error.hpp"
#include "workloads/llm/layout_search.hpp"

using namespace ddl;
using namespace ddl::llm;

namespace {

Transformer shipped(const std::string& name) {
  return read_transformer(std::string(DDL_LLM_MODELS) + "/" + name + ".json");
}

Gpu h100() {
  return read_gpu(std::string(DDL_LLM_GPUS) + "/h100_sxm.json");
}

std::vector<std::string> names(const std::vector<ParallelLayout>& layouts) {
  std::vector<std::string> out;
  for (const ParallelLayout& l : layouts) out.push_back(l.to_string());
  return out;
}

bool has(const std::vector<std::string>& list, const std::string& name) {
  return std::find(list.begin(), list.end(), name) != list.end();
}

}  // namespace

TEST_CASE("small_gpt on one 8-GPU node: every split, each ZeRO stage, all fit", "[llm][search]") {
  // tp divides 8 (the node) and heads 8, kv_heads 8, ffn 1024: 1, 2, 4, 8; pp divides 8 / tp and
  // is at most the 4 layers; dp = 8 / (tp pp); mb = 16 / dp. Nine splits x ZeRO {1, 3}, all well
  // under 80 GB (small_gpt holds 3.4 M parameters).
  LayoutSearch search;
  search.global_batch = 16;
  search.gpus_per_node = 8;
  const LayoutCandidates c = search_layouts(shipped("small_gpt"), h100(), 8, search);
  std::vector<std::string> expected;
  for (const char* split :
       {"tp=1,pp=1,dp=8,ep=1,mb=2", "tp=1,pp=2,dp=4,ep=1,mb=4", "tp=1,pp=4,dp=2,ep=1,mb=8",
        "tp=2,pp=1,dp=4,ep=1,mb=4", "tp=2,pp=2,dp=2,ep=1,mb=8", "tp=2,pp=4,dp=1,ep=1,mb=16",
        "tp=4,pp=1,dp=2,ep=1,mb=8", "tp=4,pp=2,dp=1,ep=1,mb=16", "tp=8,pp=1,dp=1,ep=1,mb=16"})
    for (const char* zero : {"1", "3"}) {
      const bool tp1 = std::string(split).rfind("tp=1,", 0) == 0;
      expected.push_back(std::string(split) + ",mbs=1,zero=" + zero + (tp1 ? "" : ",sp"));
    }
  CHECK(names(c.fitting) == expected);
  CHECK(c.searched == 18);
  CHECK(c.data_parallel == std::set<int>{1, 2, 4, 8});
  CHECK(c.closest_miss.empty());

  // A global batch of 4 leaves dp = 8 out (4 / 8 micro-batches is not whole): 8 splits x 2.
  search.global_batch = 4;
  CHECK(search_layouts(shipped("small_gpt"), h100(), 8, search).fitting.size() == 16);
  // --zero 0,2 and --mbs 1,2: mbs 2 at a global batch of 4 leaves dp = 4 out too.
  search.zero_stages = {0, 2};
  search.micro_batch_sizes = {2, 1};
  const LayoutCandidates z = search_layouts(shipped("small_gpt"), h100(), 8, search);
  CHECK(z.searched == (8 + 6) * 2);
  CHECK(has(names(z.fitting), "tp=8,pp=1,dp=1,ep=1,mb=2,mbs=2,zero=2,sp"));
  CHECK(has(names(z.fitting), "tp=2,pp=1,dp=4,ep=1,mb=1,mbs=1,zero=0,sp"));
  CHECK(!has(names(z.fitting), "tp=2,pp=1,dp=4,ep=1,mb=1,mbs=2,zero=0,sp"));
}

TEST_CASE("a split that fits only with recomputation appears once, recomputing", "[llm][search]") {
  // small_gpt, tp=1,pp=1,dp=8,mb=2,zero=1 by hand: 4 (12 h^2 + 2 h) + V h + s h + h = 3,442,944
  // parameters; weights and gradients 2 bytes each, optimizer 12 / 8: 18,936,192 B. Activations:
  // one micro-batch in flight, s h 34 = 1,114,112 B a layer x 4, plus the logits 4 s V =
  // 524,288: 4,980,736 B, 23,916,928 B in all. Recomputing keeps 2 s h = 65,536 B a layer:
  // 19,722,624 B. A 20 MB GPU holds it only recomputing; pp 2 and 4 fit without (17.5, 15.3 MB).
  Gpu small = h100();
  small.memory_bytes = 20e6;
  LayoutSearch search;
  search.global_batch = 16;
  search.gpus_per_node = 1;  // tp 1 only
  search.zero_stages = {1};
  const Transformer m = shipped("small_gpt");
  CHECK(fullest_stage_bytes(m, parse_layout("tp=1,pp=1,dp=8,mb=2,zero=1")) == 23916928);
  CHECK(fullest_stage_bytes(m, parse_layout("tp=1,pp=1,dp=8,mb=2,zero=1,recompute")) == 19722624);
  const LayoutCandidates c = search_layouts(m, small, 8, search);
  CHECK(names(c.fitting) ==
        std::vector<std::string>{"tp=1,pp=1,dp=8,ep=1,mb=2,mbs=1,zero=1,recompute",
                                 "tp=1,pp=2,dp=4,ep=1,mb=4,mbs=1,zero=1",
                                 "tp=1,pp=4,dp=2,ep=1,mb=8,mbs=1,zero=1"});
  // Nothing fits a 10 MB GPU: the verdict of the layout that came closest (pp 4, recomputing).
  small.memory_bytes = 10e6;
  const LayoutCandidates none = search_layouts(m, small, 8, search);
  CHECK(none.fitting.empty());
  CHECK(none.searched == 3);
  CHECK(none.closest_miss.rfind("layout tp=1,pp=4,dp=2,ep=1,mb=8,mbs=1,zero=1,recompute: stage ",
                                0) == 0);
}

TEST_CASE("Llama-2 70B on 1,024 H100s: 56 layouts searched, 53 fit", "[llm][search]") {
  // Global batch 1,024 sequences of 4,096 (Touvron et al. 2023: 4M tokens). tp in {1, 2, 4, 8}
  // (heads 64, kv_heads 8, ffn 28,672 all divide by 8), pp in {1, 2, ..., 64} (powers of two
  // dividing 1,024 / tp, at most 80 layers): 4 x 7 = 28 splits, every dp a power of two dividing
  // 1,024, x ZeRO {1, 3} = 56.
  const Transformer llama = shipped("llama2_70b");
  LayoutSearch search;
  search.global_batch = 1024;
  search.gpus_per_node = 8;
  const LayoutCandidates c = search_layouts(llama, h100(), 1024, search);
  const std::vector<std::string> fit = names(c.fitting);
  CHECK(c.searched == 56);
  CHECK(fit.size() == 53);
  CHECK(has(fit, "tp=8,pp=8,dp=16,ep=1,mb=64,mbs=1,zero=1,sp"));
  CHECK(has(fit, "tp=8,pp=8,dp=16,ep=1,mb=64,mbs=1,zero=3,sp"));
  // tp=2,pp=1,dp=512 at ZeRO 1 does not fit, recomputing or not: a GPU holds half of each
  // layer's matrices, (h (h + 2 kv) + h^2 + 3 h f) / 2 = (8192 x 10240 + 8192^2 + 3 x 8192 x
  // 28672) / 2 = 427,819,008, and both norms, 2 h = 16,384: 427,835,392 a layer, x 80 =
  // 34,226,831,360; half of each of the two vocabulary tables, 32,000 x 8,192, and the final
  // norm: 34,488,983,552 parameters. Its 16-bit weights and gradients, unsharded under ZeRO 1,
  // are 4 bytes each: 137.96 GB, over the 80 GB before any optimizer state or activation.
  const ParallelLayout tp2 = parse_layout("tp=2,pp=1,dp=512,mb=2,zero=1,sp,recompute");
  CHECK(gpu_memory(llama, tp2, 0).parameters == 34488983552.0);
  CHECK(gpu_memory(llama, tp2, 0).weights + gpu_memory(llama, tp2, 0).gradients ==
        4 * 34488983552.0);
  for (const std::string absent :
       {"tp=2,pp=1,dp=512,ep=1,mb=2,mbs=1,zero=1,sp", "tp=1,pp=1,dp=1024,ep=1,mb=1,mbs=1,zero=1",
        "tp=1,pp=2,dp=512,ep=1,mb=2,mbs=1,zero=1"}) {
    CHECK(!has(fit, absent));
    CHECK(!has(fit, absent + ",recompute"));
  }
  // Recomputation where only it fits: all 12 of tp 1 (without tensor parallelism a layer keeps
  // s h 34 = 1.14 GB a micro-batch, and 1F1B's stage k holds pp - k micro-batches), tp 2 at pp 2
  // and 4 under ZeRO 1, tp 4 at pp 1 under ZeRO 1.
  CHECK(std::count_if(c.fitting.begin(), c.fitting.end(),
                      [](const ParallelLayout& l) { return l.recompute; }) == 15);
  CHECK(has(fit, "tp=4,pp=1,dp=256,ep=1,mb=4,mbs=1,zero=1,sp,recompute"));
  CHECK(has(fit, "tp=4,pp=2,dp=128,ep=1,mb=8,mbs=1,zero=1,sp"));
}

TEST_CASE("Mixtral 8x7B: ep divides dp and the experts", "[llm][search]") {
  // 64 GPUs, tp 8 and pp 1 only (gpus_per_node 8, 32 layers, ZeRO 3): dp 8, ep in {1, 2, 4, 8}.
  LayoutSearch search;
  search.global_batch = 64;
  search.gpus_per_node = 8;
  search.zero_stages = {3};
  const LayoutCandidates c = search_layouts(shipped("mixtral_8x7b"), h100(), 64, search);
  std::vector<int> eps;
  for (const ParallelLayout& l : c.fitting)
    if (l.tp == 8 && l.pp == 1) eps.push_back(l.ep);
  CHECK(eps == std::vector<int>{1, 2, 4, 8});
}

TEST_CASE("bad search inputs are refused by name", "[llm][search]") {
  const Transformer m = shipped("small_gpt");
  LayoutSearch search;
  search.global_batch = 16;
  search.gpus_per_node = 8;
  CHECK_THROWS_WITH(search_layouts(m, h100(), 0, search),
                    "layout search: GPUs (0), GPUs per node (8) and global batch (16) must be at "
                    "least 1");
  search.zero_stages = {1, 4};
  CHECK_THROWS_WITH(search_layouts(m, h100(), 8, search),
                    "layout search: ZeRO stage 4 repeated or not in 0..3");
  search.zero_stages = {};
  CHECK_THROWS_AS(search_layouts(m, h100(), 8, search), InvalidArgument);
  search.zero_stages = {1};
  search.micro_batch_sizes = {2, 2};
  CHECK_THROWS_WITH(search_layouts(m, h100(), 8, search),
                    "layout search: micro-batch size 2 repeated or below 1");
}
