// The parallel layouts of a transformer worth simulating on a machine: every tensor x pipeline x
// data (x expert) split of its GPUs with a micro-batch size and a ZeRO stage, as Megatron-LM
// would run it (tp inside a node, sequence parallelism whenever tp > 1, 1F1B), kept when it
// passes check_layout and every stage fits the GPU's memory (memory_verdict). Recomputation is
// tried only where a layout does not fit without it: it trades a third more compute for memory,
// so each split appears once, with the cheapest setting that fits. The interleaved schedule is
// not searched (its step graph is not generated). Pure: ddlplan --workload simulates the result.
#pragma once

#include <cstddef>
#include <set>
#include <string>
#include <vector>

#include "workloads/llm/compute_model.hpp"
#include "workloads/llm/layout.hpp"
#include "workloads/llm/transformer.hpp"

namespace ddl::llm {

struct LayoutSearch {
  long long global_batch = 0;             // sequences per step
  int gpus_per_node = 0;                  // tp divides it: Megatron-LM keeps tp inside a node
  std::vector<int> zero_stages{1, 3};     // 0..3
  std::vector<int> micro_batch_sizes{1};  // sequences per micro-batch
};

struct LayoutCandidates {
  // In search order (tp, pp, ep, micro-batch size, ZeRO stage, each ascending).
  std::vector<ParallelLayout> fitting;
  // Layouts that check_layout accepts and whose micro-batch count is whole, before memory: each
  // split x micro-batch size x ZeRO stage once.
  std::size_t searched = 0;
  // The data-parallel sizes of the splits (whether or not the global batch divides): what an
  // error says when no micro-batch count is whole.
  std::set<int> data_parallel;
  // When nothing fits: the verdict of the searched layout that needs the least memory.
  std::string closest_miss;
};

// InvalidArgument for gpus, gpus_per_node or global_batch below 1, an empty or out-of-range
// list of ZeRO stages or micro-batch sizes.
LayoutCandidates search_layouts(const Transformer& model, const Gpu& gpu, int gpus,
                                const LayoutSearch& search);

// Bytes a GPU of the layout's fullest stage holds (gpu_memory's total, the largest over stages).
double fullest_stage_bytes(const Transformer& model, const ParallelLayout& layout);

}  // namespace ddl::llm
