#include "workloads/llm/compute_model.hpp"

#include <algorithm>
#include <cstdio>

#include "algorithms/error.hpp"
#include "workloads/llm/description_file.hpp"

namespace ddl::llm {

namespace {

using nlohmann::json;

double positive(const json& doc, const std::string& where, const char* name) {
  if (!doc.contains(name)) throw InvalidArgument(where + ": missing field '" + name + "'");
  if (!doc.at(name).is_number() || !(doc.at(name).get<double>() > 0))
    throw InvalidArgument(where + ": '" + name + "' must be a positive number");
  return doc.at(name).get<double>();
}

}  // namespace

Gpu read_gpu(const std::string& path) {
  const std::string where = "GPU description '" + path + "'";
  const json doc = read_description(path, where);
  Gpu g;
  g.name = doc.at("name").get<std::string>();
  g.bf16_flops = positive(doc, where, "bf16_flops");
  g.memory_bandwidth = positive(doc, where, "memory_bandwidth");
  g.memory_bytes = positive(doc, where, "memory_bytes");
  for (const char* f : {"bf16_flops", "memory_bandwidth", "memory_bytes", "efficiency"})
    g.sources[f] = figure_source(doc, where, f);
  if (!doc.contains("efficiency") || !doc.at("efficiency").is_object())
    throw InvalidArgument(where + ": missing field 'efficiency'");
  for (const char* k : {"gemm", "attention", "elementwise", "optimizer"}) {
    const json& e = doc.at("efficiency");
    if (!e.contains(k) || !e.at(k).is_number() || !(e.at(k).get<double>() > 0) ||
        e.at(k).get<double>() > 1)
      throw InvalidArgument(where + ": efficiency." + k + " must be a fraction in (0, 1]");
    g.efficiency[k] = e.at(k).get<double>();
  }
  return g;
}

double compute_seconds(const Gpu& gpu, const Op& op) {
  if (op.kind != Op::Kind::compute) return 0;
  const char* kind = op.kernel == Kernel::attention   ? "attention"
                     : op.kernel == Kernel::optimizer ? "optimizer"
                                                      : "gemm";
  const double math = op.flops / (gpu.bf16_flops * gpu.efficiency.at(kind));
  const double memory =
      op.bytes / (gpu.memory_bandwidth *
                  gpu.efficiency.at(op.kernel == Kernel::optimizer ? "optimizer" : "elementwise"));
  return std::max(math, memory);
}

std::string memory_verdict(const Transformer& model, const ParallelLayout& layout, const Gpu& gpu) {
  for (int stage = 0; stage < layout.pp; ++stage) {
    const GpuMemory m = gpu_memory(model, layout, stage);
    if (m.total() <= gpu.memory_bytes) continue;
    char text[256];
    std::snprintf(text, sizeof text,
                  "stage %d needs %.1f GB (weights %.1f, gradients %.1f, optimizer %.1f, "
                  "activations %.1f) of the GPU's %.1f GB",
                  stage, m.total() / 1e9, m.weights / 1e9, m.gradients / 1e9, m.optimizer / 1e9,
                  m.activations / 1e9, gpu.memory_bytes / 1e9);
    return text;
  }
  return "";
}

}  // namespace ddl::llm
