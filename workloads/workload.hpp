// Training workloads: a model's layers (parameters, forward multiply-adds) read from a workload
// file (format: workloads/README.md), and the plan of one data-parallel training iteration
// derived from it: per-layer compute times and the gradient buckets of PyTorch DDP.
//
// Time model. A file with the columns forward_ms and backward_ms gives each layer's measured
// times at the reference batch, which scale linearly with the batch. Otherwise the file gives the
// forward + backward time of one minibatch of `reference_batch` images on one GPU and the
// backward-to-forward ratio r (about 2). At a batch of B images the iteration's compute is
// reference_iteration_s * B / reference_batch (linear in the batch: the assumption is that the GPU
// is already saturated at the reference batch); a fraction 1 / (1 + r) of it is forward, r / (1 +
// r) backward, and each pass is split over the layers in proportion to their forward multiply-adds.
//
// Buckets (PyTorch DDP): layers are visited in reverse order (the order their gradients become
// ready in the backward pass) and appended to the current bucket, which closes as soon as it
// holds at least its capacity: `first_bucket_bytes` for the first bucket, `bucket_bytes` for
// the others. A layer is never split (DDP does the same per tensor). The gradient buffer is
// laid out in bucket order, so bucket b is one contiguous slice [offset, offset + bytes) and
// the buckets tile the buffer.
#pragma once

#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "workloads/training_effects.hpp"

namespace ddl::harness {

struct Layer {
  std::string name;
  std::string kind;  // conv, bn, fc, ... (informative)
  std::size_t params = 0;
  std::uint64_t forward_macs = 0;  // multiply-adds per image
  // Measured forward and backward time at the reference batch (the optional columns forward_ms,
  // backward_ms); used instead of the multiply-add split when the file has them.
  double forward_s = 0, backward_s = 0;
};

// The GPU a workload's reference times were measured or assumed on: the optional keys
// reference_gpu, reference_gpu_fp32_tflops, reference_gpu_memory_gbs, given all three together.
// A file without them whose times are not measured (the multiply-add split, whose shipped and
// generated files assume ResNet-50's 180 ms per 32 images on a P100) is taken as P100 times
// (NVIDIA P100 datasheet: 10.6 TFLOP/s fp32, 732 GB/s), marked as not stated; a file with measured
// per-layer times and no key names no GPU. A simulator scales the times to another GPU or says
// that it did not.
struct ReferenceGpu {
  std::string name;             // e.g. P100
  double fp32_flops = 0;        // peak FP32 FLOP/s
  double memory_bandwidth = 0;  // B/s
  bool stated = true;           // false: the P100 default of a file that names none

  // "P100 (10.6 TFLOP/s fp32, 732 GB/s)"
  std::string describe() const;
};

struct Workload {
  std::string model;
  // What one element of the batch is, plural (the optional key `sample`): images for an image
  // model, sequences for a transformer. Names the throughput column.
  std::string sample = "images";
  std::optional<ReferenceGpu> reference_gpu;  // absent: measured times on a GPU not named
  std::size_t reference_batch = 0;
  double reference_iteration_s = 0;  // forward + backward on one GPU at reference_batch
  double backward_to_forward = 0;
  // Optional parameters compute_jitter_cv, bucket_launch_us, data_loading_ms (0 when absent);
  // interference is the platform's (a property of the device, not of the model).
  TrainingEffects effects;
  bool measured_times = false;  // the layers carry forward_s / backward_s
  std::vector<Layer> layers;    // forward order

  std::size_t total_params() const;
};

// The reference GPU as a report's metadata names it: "P100 (10.6 TFLOP/s fp32, 732 GB/s)", with
// " (default: the file names none)" when not stated; "" for measured times on a GPU not named.
std::string reference_field(const Workload& w);

// Throws InvalidArgument naming `source` and the line for anything malformed: a missing or
// repeated parameter, a bad header, a non-numeric or negative cell, no layers, a model whose
// layers have no multiply-adds, totals that disagree with total_params / total_forward_macs, a
// sample that is not one lowercase word, a reference GPU missing one of its three keys or with a
// figure that is no positive number, or a "# key = value" parameter it does not know (a misspelt
// effect would silently be off).
Workload parse_workload(std::istream& in, const std::string& source);
Workload load_workload(const std::string& path);

// The workloads shipped in workloads/ (names without ".csv").
std::vector<std::string> known_workloads();
// A known name -> <workloads_dir>/<name>.csv; anything else throws InvalidArgument listing the
// known names.
std::string workload_path(std::string_view name, const std::string& workloads_dir);

struct BucketOptions {
  std::size_t first_bucket_bytes = std::size_t{1} << 20;  // DDP: 1 MiB
  std::size_t bucket_bytes = std::size_t{25} << 20;       // DDP: bucket_cap_mb = 25
  std::size_t bytes_per_param = 4;                        // fp32 gradients
};

struct Bucket {
  std::size_t offset = 0;  // bytes into the gradient buffer
  std::size_t bytes = 0;
  // Index into IterationPlan::backward_s of the step whose completion fills this bucket.
  std::size_t ready_after = 0;
};

struct IterationPlan {
  std::size_t batch = 0;
  std::vector<double> forward_s;   // per layer, forward order
  std::vector<double> backward_s;  // per layer, backward order (last layer first)
  std::vector<Bucket> buckets;     // in the order they fill (and are allreduced)
  std::size_t gradient_bytes = 0;  // the whole buffer: sum of bucket bytes
  std::size_t params = 0;

  double compute_s() const;  // forward + backward, no optimizer
};

// Throws InvalidArgument for batch 0 or a bucket capacity of 0.
IterationPlan plan_iteration(const Workload& workload, std::size_t batch,
                             const BucketOptions& buckets);

}  // namespace ddl::harness
