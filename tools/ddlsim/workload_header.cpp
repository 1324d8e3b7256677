#include "tools/ddlsim/workload_header.hpp"

#include <cstdio>
#include <simgrid/s4u/Host.hpp>

#include "algorithms/error.hpp"
#include "harness/format.hpp"
#include "harness/sizes.hpp"

namespace ddl::sim {

namespace {

using harness::printed;

std::string ms(double seconds) {
  return printed("%.3f", seconds * 1e3) + " ms";
}

std::string tflops(double flops) {
  return printed("%g", flops / 1e12) + " TFLOP/s fp32";
}

// What the compute times are for and what was done to them.
std::string compute_basis(const harness::Workload& w, const ComputeScaling& s) {
  const std::string given = "compute times: the workload's " + ms(w.reference_iteration_s) +
                            " at batch " + std::to_string(w.reference_batch) +
                            ", linear in the batch";
  const std::string platform = "this platform's GPUs (" + tflops(s.platform_flops) + ")";
  if (!w.reference_gpu)
    return given +
           ", as measured on a GPU the workload file does not name (no reference_gpu): "
           "not scaled to " +
           platform;
  const std::string reference =
      ", on a " + w.reference_gpu->describe() +
      (w.reference_gpu->stated ? "" : ", the default for a file that names no reference_gpu");
  if (s.off) return given + reference + ", not scaled to " + platform + " (--no-compute-scaling)";
  return given + reference + ", scaled x" + printed("%.6g", s.factor) + " by peak fp32 FLOP/s to " +
         platform + " (--no-compute-scaling keeps the " + w.reference_gpu->name + " times)";
}

}  // namespace

ComputeScaling compute_scaling(const harness::Workload& w, const Platform& platform, bool off) {
  ComputeScaling s;
  s.off = off;
  const simgrid::s4u::Host* first = platform.gpus.front();
  s.platform_flops = first->get_speed();
  for (const simgrid::s4u::Host* host : platform.gpus)
    if (host->get_speed() != s.platform_flops)
      throw InvalidArgument(platform.file + ": GPU hosts " + first->get_name() + " and " +
                            host->get_name() + " run at different speeds (" +
                            tflops(s.platform_flops) + ", " + tflops(host->get_speed()) +
                            "): the workload's compute cannot be scaled to one GPU "
                            "(--no-compute-scaling keeps its times)");
  if (w.reference_gpu && !off) s.factor = w.reference_gpu->fp32_flops / s.platform_flops;
  return s;
}

void scale_compute(harness::IterationPlan& plan, const ComputeScaling& s) {
  for (double& t : plan.forward_s) t *= s.factor;
  for (double& t : plan.backward_s) t *= s.factor;
}

std::vector<std::string> workload_header(const harness::WorkloadChoice& a,
                                         const harness::IterationPlan& plan,
                                         const harness::TrainingEffects& effects,
                                         const ComputeScaling& s, const std::string& where) {
  double forward = 0;
  for (double t : plan.forward_s) forward += t;
  return {
      "ddlsim: workload " + a.workload.model + " (" + a.file + "), " +
          std::to_string(a.workload.layers.size()) + " layers, " + std::to_string(plan.params) +
          " parameters, batch " + std::to_string(a.batch) + " " + a.workload.sample + " per GPU",
      "compute per iteration: forward " + ms(forward) + ", backward " +
          ms(plan.compute_s() - forward) +
          ", then the optimizer step (one reduce of the gradients into the weights)",
      compute_basis(a.workload, s),
      "gradient buckets: " + std::to_string(plan.buckets.size()) + " of " +
          std::string(to_string(a.dtype)) + " gradients (first " +
          harness::format_size(a.buckets.first_bucket_bytes) + ", then " +
          harness::format_size(a.buckets.bucket_bytes) +
          "), each allreduce overlaps the rest of the backward pass",
      "effects (training_effects.hpp): " + effects.describe(),
      where,
  };
}

void add_workload_fields(harness::RunInfo& info, const harness::WorkloadChoice& a,
                         const ComputeScaling& s) {
  info.add("workload", a.file);
  info.add("sample", a.workload.sample);
  info.add("reference_gpu", harness::reference_field(a.workload));
  info.add("platform_gpu_fp32_tflops", printed("%.17g", s.platform_flops / 1e12));
  info.add("compute_scale", printed("%.17g", s.factor));
  info.add("compute_scaling", s.off ? "off" : "on");
}

}  // namespace ddl::sim
