#include "workloads/llm/memory.hpp"

#include <algorithm>

namespace ddl::llm {

namespace {

// Bytes per parameter of mixed-precision Adam (ZeRO, section 3.1).
constexpr double kWeightBytes = 2, kGradientBytes = 2, kOptimizerBytes = 12;

}  // namespace

GpuMemory gpu_memory(const Transformer& m, const ParallelLayout& l, int stage) {
  const double h = m.hidden, f = m.ffn, t = l.tp, s = m.sequence, b = l.micro_batch_size;
  const double kv = static_cast<double>(m.kv_heads) * m.head_dim();
  const double layers = stage_layers(l, m, stage);
  // Per layer on one GPU: attention split by tp, each expert's MLP split by tp with experts / ep
  // of them here, router and norms whole.
  const double attention = (h * (h + 2 * kv) + h * h) / t;
  const double experts = (m.gated_mlp ? 3 : 2) * h * f / t * m.experts / l.ep;
  const double whole = (m.moe() ? h * m.experts : 0) + 2 * h;
  double dense = layers * (attention + whole), expert = layers * experts;
  const bool first = stage == 0, last = stage == l.pp - 1;
  const double table = static_cast<double>(m.vocab) * h / t;  // vocabulary-parallel
  if (first) dense += table + (m.learned_positions ? s * h : 0);
  // The last stage's output layer: its own, or (tied, pp > 1) a copy of the input table.
  if (last && (!m.tied_embeddings || (l.pp > 1))) dense += table;
  if (last) dense += h;  // final norm
  GpuMemory g;
  g.parameters = dense + expert;
  const double dp = l.dp, expert_dp = static_cast<double>(l.dp) / l.ep;
  auto sharded = [&](double bytes_per_param, int from_stage) {
    return l.zero_stage >= from_stage ? bytes_per_param * (dense / dp + expert / expert_dp)
                                      : bytes_per_param * (dense + expert);
  };
  g.weights = sharded(kWeightBytes, 3);
  g.gradients = sharded(kGradientBytes, 2);
  g.optimizer = sharded(kOptimizerBytes, 1);
  const double per_layer = l.recompute           ? 2 * s * b * h / (l.sequence_parallel ? t : 1)
                           : l.sequence_parallel ? s * b * h * 34 / t
                                                 : s * b * h * (10 + 24 / t);
  double in_flight = std::min<double>(l.micro_batches, l.pp - stage);
  if (l.schedule == PipelineSchedule::interleaved && first)
    in_flight = l.pp * (1 + static_cast<double>(l.pp - 1) / (l.pp * l.virtual_stages));
  g.activations = per_layer * layers * in_flight;
  if (last) g.activations += 4 * s * b * m.vocab / t;
  return g;
}

double step_flops(const Transformer& m, const ParallelLayout& l) {
  const double h = m.hidden, s = m.sequence, f = m.ffn, b = l.micro_batch_size;
  const double kv = static_cast<double>(m.kv_heads) * m.head_dim();
  const double layer = 2 * b * s * h * (h + 2 * kv) + 4 * b * s * s * h + 2 * b * s * h * h +
                       m.top_k * (m.gated_mlp ? 3 : 2) * 2 * b * s * h * f +
                       (m.moe() ? 2 * b * s * h * m.experts : 0);
  const double forward = m.layers * layer + 2 * b * s * h * m.vocab;
  return 3 * forward * l.micro_batches * l.dp;
}

}  // namespace ddl::llm
