// The optional workload-file keys that say what the numbers are for (workloads/README.md):
// `sample` (what one element of the batch is) and the reference GPU (reference_gpu,
// reference_gpu_fp32_tflops, reference_gpu_memory_gbs: all three or none). Read by
// parse_workload (workload.hpp).
#pragma once

#include <functional>
#include <map>
#include <string>

#include "workloads/workload.hpp"

namespace ddl::harness {

inline constexpr const char* kReferenceKeys[] = {"reference_gpu", "reference_gpu_fp32_tflops",
                                                 "reference_gpu_memory_gbs"};

// Sets w.sample and w.reference_gpu from `params` (w.measured_times already read: it decides the
// default, workload.hpp); `at(key)` names the file and line of a key.
// Throws InvalidArgument naming the key for a sample that is not one lowercase word, a reference
// GPU given without one of its three keys, or a figure that is no positive number.
void read_reference_keys(const std::map<std::string, std::string>& params,
                         const std::function<std::string(const char*)>& at,
                         const std::string& source, Workload& w);

}  // namespace ddl::harness
