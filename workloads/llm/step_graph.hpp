// One training step of a layout as each rank plays it: a graph of operations (compute with
// FLOPs and bytes; collectives on the rank's tensor-, data- or expert-parallel group;
// sends and receives between pipeline stages) with the dependencies between them, in the order
// Megatron-LM issues them:
//   - pipeline (1F1B, Narayanan et al. 2021): stage s runs min(pp-s-1, m) forwards, then one
//     forward and one backward at a time, then the remaining backwards; a forward past the first
//     stage waits for the previous stage's activations, a backward before the last for the next
//     stage's gradients (b s h / t elements each: Megatron-LM scatters them over the tensor-
//     parallel ranks);
//   - tensor parallelism (Shoeybi et al. 2019): per layer an allreduce of the block's output
//     (b s h) after attention and after the MLP, and one of the input gradients before each in
//     backward; with sequence parallelism (Korthikanti et al. 2022) an allgather before each
//     block and a reduce-scatter after it, mirrored in backward;
//   - full recomputation (recompute): each layer's forward, collectives included, again right
//     before its backward;
//   - experts (MoE): an all-to-all of the routed tokens (b s h top_k / t) before the experts and
//     one after, in forward and backward, in the expert-parallel group;
//   - data parallelism: the gradients of each layer reduced as the last micro-batch's backward
//     leaves it, overlapping the layers still to go: an allreduce (ZeRO 0), a reduce-scatter
//     (ZeRO 1, 2: Megatron-LM's distributed optimizer, then an allgather of the updated weights
//     after the optimizer step); ZeRO 3 allgathers each layer's weights before its forward and
//     its backward, the next layer's prefetched while this one computes, and reduce-scatters its
//     gradients after its backward.
// Collective sizes follow nccl-tests: the whole buffer (allreduce), the gathered or scattered
// buffer (allgather, reduce-scatter), the send buffer (all-to-all), in bytes.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "algorithms/collective.hpp"
#include "workloads/llm/layout.hpp"
#include "workloads/llm/transformer.hpp"

namespace ddl::llm {

// The group a collective runs in: this rank's tensor-parallel group, its data-parallel group
// (the dense weights' replicas), its expert-parallel group, the experts' data-parallel group
// (the replicas of its experts: dp / ep ranks), or every rank (a trace's collective that names
// no group: workloads/llm/chakra.hpp).
enum class GroupKind { tp, dp, ep, expert_dp, world };
std::string_view to_string(GroupKind g);

// What a compute op is, for its achieved fraction of the GPU's peak (compute_model.hpp).
enum class Kernel { gemm, attention, optimizer };

struct Op {
  enum class Kind { compute, collective, send, recv };
  Kind kind = Kind::compute;
  Kernel kernel = Kernel::gemm;  // compute only
  std::string label;             // "F1 L3 attention", "B0 L3 tp allreduce", ...
  // compute: model FLOPs and bytes of memory traffic (the roofline's two sides)
  double flops = 0, bytes = 0;
  // communication
  GroupKind group = GroupKind::tp;
  Collective collective = Collective::allreduce;
  std::size_t size = 0;            // bytes
  int peer = -1;                   // send, recv: the other stage's rank
  std::vector<std::size_t> after;  // indices of this rank's ops it waits for
};

// Rank `rank`'s step. The layout must pass check_layout; the interleaved schedule is refused
// (InvalidArgument): only its memory is modelled so far.
std::vector<Op> step_graph(const Transformer& model, const ParallelLayout& layout, int rank);

// Stage `stage`'s order of micro-batch passes under 1F1B: (forward?, micro-batch).
std::vector<std::pair<bool, int>> one_f_one_b(int pp, int micro_batches, int stage);

}  // namespace ddl::llm
