#include "workloads/llm/layout_search.hpp"

#include <algorithm>
#include <limits>

#include "algorithms/error.hpp"

namespace ddl::llm {

namespace {

// Sorted; InvalidArgument naming the list for an empty one, a repeat or a value out of range.
std::vector<int> checked(std::vector<int> values, const char* what, int least, int most) {
  std::sort(values.begin(), values.end());
  if (values.empty()) throw InvalidArgument(std::string("layout search: no ") + what);
  for (std::size_t k = 0; k < values.size(); ++k)
    if (values[k] < least || values[k] > most || (k > 0 && values[k] == values[k - 1]))
      throw InvalidArgument(
          std::string("layout search: ") + what + " " + std::to_string(values[k]) +
          " repeated or " +
          (most == std::numeric_limits<int>::max()
               ? "below " + std::to_string(least)
               : "not in " + std::to_string(least) + ".." + std::to_string(most)));
  return values;
}

bool divides(int d, int n) {
  return n % d == 0;
}

}  // namespace

double fullest_stage_bytes(const Transformer& model, const ParallelLayout& layout) {
  double most = 0;
  for (int stage = 0; stage < layout.pp; ++stage)
    most = std::max(most, gpu_memory(model, layout, stage).total());
  return most;
}

LayoutCandidates search_layouts(const Transformer& model, const Gpu& gpu, int gpus,
                                const LayoutSearch& search) {
  if (gpus < 1 || search.gpus_per_node < 1 || search.global_batch < 1)
    throw InvalidArgument("layout search: GPUs (" + std::to_string(gpus) + "), GPUs per node (" +
                          std::to_string(search.gpus_per_node) + ") and global batch (" +
                          std::to_string(search.global_batch) + ") must be at least 1");
  const std::vector<int> zeros = checked(search.zero_stages, "ZeRO stage", 0, 3);
  const std::vector<int> sizes =
      checked(search.micro_batch_sizes, "micro-batch size", 1, std::numeric_limits<int>::max());
  LayoutCandidates out;
  double least_bytes = std::numeric_limits<double>::infinity();
  for (int tp = 1; tp <= search.gpus_per_node; ++tp) {
    if (!divides(tp, search.gpus_per_node) || !divides(tp, gpus) || !divides(tp, model.heads) ||
        !divides(tp, model.kv_heads) || !divides(tp, model.ffn))
      continue;
    for (int pp = 1; pp <= std::min(model.layers, gpus / tp); ++pp) {
      if (!divides(pp, gpus / tp)) continue;
      const int dp = gpus / (tp * pp);
      out.data_parallel.insert(dp);
      for (int ep = 1; ep <= (model.moe() ? dp : 1); ++ep) {
        if (!divides(ep, dp) || !divides(ep, model.experts)) continue;
        for (const int mbs : sizes) {
          const long long per_micro_batch = static_cast<long long>(dp) * mbs;
          if (search.global_batch % per_micro_batch != 0) continue;
          const long long micro_batches = search.global_batch / per_micro_batch;
          if (micro_batches > std::numeric_limits<int>::max()) continue;
          for (const int zero : zeros) {
            ParallelLayout l;
            l.tp = tp, l.pp = pp, l.dp = dp, l.ep = ep;
            // Korthikanti et al. 2022: the communication of tp alone, less activation memory.
            l.sequence_parallel = tp > 1;
            l.micro_batches = static_cast<int>(micro_batches);
            l.micro_batch_size = mbs;
            l.zero_stage = zero;
            try {
              check_layout(l, model, gpus);
            } catch (const InvalidArgument&) {
              continue;
            }
            ++out.searched;
            if (memory_verdict(model, l, gpu).empty()) {
              out.fitting.push_back(l);
              continue;
            }
            l.recompute = true;
            const std::string verdict = memory_verdict(model, l, gpu);
            if (verdict.empty()) {
              out.fitting.push_back(l);
            } else if (const double bytes = fullest_stage_bytes(model, l); bytes < least_bytes) {
              least_bytes = bytes;
              out.closest_miss = "layout " + l.to_string() + ": " + verdict;
            }
          }
        }
      }
    }
  }
  if (!out.fitting.empty()) out.closest_miss.clear();
  return out;
}

}  // namespace ddl::llm
