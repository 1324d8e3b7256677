// How long a compute op takes on a GPU: a roofline, the op's FLOPs at the GPU's bf16 peak times
// an achieved fraction for its kind of kernel, or its bytes at the memory bandwidth times the
// element-wise fraction, whichever is longer. The GPU's figures (gpus/*.json) carry their
// sources; the fractions are assumed (sourced where a source exists) and overridable.
#pragma once

#include <map>
#include <string>

#include "workloads/llm/memory.hpp"
#include "workloads/llm/step_graph.hpp"

namespace ddl::llm {

struct Gpu {
  std::string name;
  double bf16_flops = 0;        // FLOP/s, dense
  double memory_bandwidth = 0;  // B/s
  double memory_bytes = 0;      // B
  // Achieved fraction of peak per kernel: "gemm", "attention", "optimizer" (of FLOP/s or, for
  // the optimizer, of bandwidth) and "elementwise" (of bandwidth, every op's memory side).
  std::map<std::string, double> efficiency;
  std::map<std::string, std::string> sources;
};

// InvalidArgument naming the file and the field: a missing or non-positive figure, a fraction
// outside (0, 1], a figure without a source.
Gpu read_gpu(const std::string& path);

// Seconds of compute op `op` on `gpu` (0 for a communication op).
double compute_seconds(const Gpu& gpu, const Op& op);

// Whether a GPU of each stage holds what the layout puts there: "" when every stage fits, else
// "stage 0 needs 93.1 GB (weights 20.3, gradients 20.3, optimizer 7.6, activations 44.9) of the
// GPU's 80.0 GB".
std::string memory_verdict(const Transformer& model, const ParallelLayout& layout, const Gpu& gpu);

}  // namespace ddl::llm
