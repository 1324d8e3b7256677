// What one GPU of a layout holds during a training step, in bytes, and the FLOPs of the step:
// the figures that say whether a layout fits before it is simulated, and its MFU after.
//
// Weights, gradients and optimizer states: mixed precision with Adam, 2 + 2 + 12 bytes per
// parameter (16-bit weights and gradients; fp32 master weights, momentum and variance:
// Rajbhandari et al. 2020, ZeRO, section 3.1, K = 12); ZeRO stage 1 shards the optimizer states
// over the data-parallel group, stage 2 the gradients too, stage 3 the weights too (experts'
// over their own data-parallel group, dp / ep).
//
// Activations per layer and micro-batch (Korthikanti et al. 2022, Reducing Activation
// Recomputation in Large Transformer Models, section 4, 16-bit activations): s b h (10 + 24/t)
// bytes with tensor parallelism t, s b h 34/t with sequence parallelism too; the attention
// scores' 5 a s / h term is not kept, as flash attention (and that paper's selective
// recomputation) does not keep it. Full recomputation keeps each layer's input, 2 s b h (/t with
// sequence parallelism). The paper derives them for GPT blocks; for gated MLPs and grouped-query
// attention they are assumed. A stage holds the activations of min(m, pp - stage) micro-batches
// under 1F1B; the first stage of the interleaved schedule pp (1 + (pp-1)/(pp v)) micro-batches'
// worth of its layers (Korthikanti et al. 2022, section 4.2.3). The last stage also holds the
// logits of one micro-batch in fp32 for the loss, 4 s b V / t (assumed).
#pragma once

#include <cstddef>

#include "workloads/llm/layout.hpp"
#include "workloads/llm/transformer.hpp"

namespace ddl::llm {

struct GpuMemory {
  double parameters = 0;  // on this GPU before ZeRO-3's sharding (count, not bytes)
  double weights = 0, gradients = 0, optimizer = 0, activations = 0;  // bytes
  double total() const { return weights + gradients + optimizer + activations; }
};

// A GPU of pipeline stage `stage` (0 .. pp-1); the first stage is the fullest under 1F1B.
GpuMemory gpu_memory(const Transformer& model, const ParallelLayout& layout, int stage);

// The model FLOPs of one training step (forward and backward, no recomputation counted): per
// layer and micro-batch of b sequences, 2 b s h (h + 2 kv d) for Q, K and V, 4 b s^2 h for the
// attention scores and their use, 2 b s h^2 for the output projection, top_k x (3 or 2) x
// 2 b s h f for the MLP, 2 b s h E for the router; 2 b s h V for the logits; backward twice the
// forward. For GPT this is Narayanan et al. 2021's 72 B s l h^2 (1 + s/(6h) + V/(12 l h)).
double step_flops(const Transformer& model, const ParallelLayout& layout);

}  // namespace ddl::llm
