// The workload flags ddlsim and ddlrun share: --workload, --batch, --bucket, --first-bucket and
// the training effects (--jitter, --seed, --interference, --bucket-launch, --data-loading,
// --no-effects; training_effects.hpp), declared and validated once. Each tool adds its own (ddlsim
// --sweep, ddlrun --compute-scale).
#pragma once

#include <boost/program_options.hpp>
#include <cstddef>
#include <initializer_list>
#include <optional>
#include <string>

#include "algorithms/types.hpp"
#include "workloads/workload.hpp"

namespace ddl::harness {

struct WorkloadChoice {
  std::string file;  // the workload file (a known name resolved to workloads/NAME.csv)
  Workload workload;
  BucketOptions buckets;
  std::size_t batch = 0;         // images per GPU
  DType dtype = DType::float32;  // of the gradients (-d): buckets.bytes_per_param follows it
  // The workload file's effects with the flags applied; interference is the flag's when given,
  // else the backend's to fill (ddlsim: the platform's), unless effects_off.
  TrainingEffects effects;
  std::optional<double> interference_flag;
  bool effects_off = false;  // --no-effects: every effect 0, whatever the file or platform say
};

void add_workload_options(boost::program_options::options_description& desc);
// Requires --workload in vm. A name ending in .csv is a workload file of its own (format:
// workloads/README.md), anything else a shipped model in `workloads_dir`. Throws
// InvalidArgument naming the flag for a bad bucket size, batch or workload.
WorkloadChoice read_workload_options(const boost::program_options::variables_map& vm,
                                     const std::string& workloads_dir);
// Without --workload: throws "--F needs --workload (see TOOL --help)" for the first of the flags
// above, or of the tool's own `extra` ones, that was given.
void refuse_workload_flags(const boost::program_options::variables_map& vm,
                           std::initializer_list<const char*> extra, const char* tool);

}  // namespace ddl::harness
