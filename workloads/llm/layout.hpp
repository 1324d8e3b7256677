// A parallel layout of a transformer over GPUs, as Megatron-LM lays it out: tensor parallelism
// (tp) inside a node, data parallelism (dp, with ZeRO stage 0-3), pipeline stages (pp, 1F1B or
// interleaved over `virtual_stages` chunks per GPU, `micro_batches` per step), expert
// parallelism (ep, the experts spread over ep ranks of each data-parallel group).
//
// Rank order (Megatron-LM's default, tp-dp-pp): rank = tp_rank + tp (dp_rank + dp pp_rank), so a
// tensor-parallel group is tp consecutive ranks (one node's GPUs when tp divides them), a
// data-parallel group is strided by tp, and a pipeline stage is tp dp consecutive ranks.
#pragma once

#include <string>

#include "workloads/llm/transformer.hpp"

namespace ddl::llm {

enum class PipelineSchedule { one_f_one_b, interleaved };

struct ParallelLayout {
  int tp = 1, pp = 1, dp = 1, ep = 1;
  bool sequence_parallel = false;  // Korthikanti et al. 2022: norms and dropout split by tp
  int micro_batches = 1;           // per pipeline, per step
  int micro_batch_size = 1;        // sequences per micro-batch
  PipelineSchedule schedule = PipelineSchedule::one_f_one_b;
  int virtual_stages = 1;  // interleaved: model chunks per GPU
  int zero_stage = 0;      // 0: none; 1: optimizer states, 2: + gradients, 3: + weights sharded
  bool recompute = false;  // full activation recomputation: each layer keeps its input only

  int gpus() const { return tp * pp * dp; }
  long long global_batch() const;  // sequences per step: dp x micro_batches x micro_batch_size
  std::string to_string() const;   // parse_layout's form, every field
};

// "tp=8,pp=8,dp=16,mb=32" and: ep=N, mbs=N (micro-batch size), zero=0..3, sp (sequence
// parallel), interleaved=V (V model chunks per GPU; 1f1b otherwise), recompute. Unset fields keep
// their defaults. InvalidArgument naming the piece that is not one of these.
ParallelLayout parse_layout(const std::string& text);

// The layout fits the model and the GPU count, or InvalidArgument naming what does not: tp x pp x
// dp other than `gpus`; tp not dividing heads, kv_heads or ffn; fewer layers than stages (1F1B),
// pp x virtual_stages not dividing layers (interleaved); ep not dividing dp or experts (or above 1
// for a dense model); sequence parallelism without tp > 1; interleaved with fewer micro-batches
// than stages or micro-batches not a multiple of pp (Megatron-LM requires both).
void check_layout(const ParallelLayout& layout, const Transformer& model, int gpus);

// The layers stage `stage` holds: layers / pp when they split evenly (always so under the
// interleaved schedule, check_layout). Otherwise (1F1B) as even as can be with the first and the
// last stages holding one fewer, as Llama 3 was trained (Dubey et al. 2024, "The Llama 3 Herd of
// Models", section 3.3.2: 126 layers on 16 stages, "we reduce one Transformer layer each from the
// first and the last stages"): ceil(layers / pp) each, the shortfall taken one layer a stage from
// the first, the last, the second, the second-to-last and so on inward.
int stage_layers(const ParallelLayout& layout, const Transformer& model, int stage);
// The model's index of stage `stage`'s first layer.
int first_layer(const ParallelLayout& layout, const Transformer& model, int stage);

// A rank's place in the layout.
struct Coordinates {
  int tp = 0, dp = 0, pp = 0;
};
Coordinates coordinates(const ParallelLayout& layout, int rank);
int rank_at(const ParallelLayout& layout, const Coordinates& c);

}  // namespace ddl::llm
