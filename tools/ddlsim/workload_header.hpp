// What a ddlsim --workload report says about its run: the workload, its compute per iteration
// and which GPU those times are for, the buckets, the effects, and the metadata fields.
//
// Compute times. A workload file gives forward + backward times at a reference batch, on the
// GPU it names (reference_gpu, with its peak FP32 FLOP/s). On a platform whose GPU hosts run at
// another speed (their SimGrid speed: the peak FP32 FLOP/s the generator writes, e.g. 67 TFLOP/s
// for an H100 SXM5), those times are scaled by reference FLOP/s / platform FLOP/s: a stated
// assumption (the model is compute-bound at peak, in the same proportion on both GPUs), shown in
// the header, which --no-compute-scaling turns off. A file that names no reference GPU is not
// scaled, and the header says so.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "harness/run_info.hpp"
#include "sim/platform.hpp"
#include "workloads/workload.hpp"
#include "workloads/workload_cli.hpp"

namespace ddl::sim {

struct ComputeScaling {
  double factor = 1;          // what the plan's forward and backward times are multiplied by
  double platform_flops = 0;  // the speed of the platform's GPU hosts (FLOP/s)
  bool off = false;           // --no-compute-scaling
};

// The platform's GPU speed and the factor for `w`. Throws InvalidArgument naming two GPU hosts
// when their speeds differ (one factor cannot hold for both).
ComputeScaling compute_scaling(const harness::Workload& w, const Platform& platform, bool off);

// The plan's forward and backward times multiplied by s.factor.
void scale_compute(harness::IterationPlan& plan, const ComputeScaling& s);

// The header lines of a --workload run; `plan` is the scaled one, `where` names the platform.
std::vector<std::string> workload_header(const harness::WorkloadChoice& a,
                                         const harness::IterationPlan& plan,
                                         const harness::TrainingEffects& effects,
                                         const ComputeScaling& s, const std::string& where);

// The fields of a --workload run after run_info's: workload, sample, reference_gpu,
// platform_gpu_fp32_tflops, compute_scale (numbers exact, to the last bit).
void add_workload_fields(harness::RunInfo& info, const harness::WorkloadChoice& a,
                         const ComputeScaling& s);

}  // namespace ddl::sim
