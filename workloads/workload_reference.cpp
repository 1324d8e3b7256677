#include "workloads/workload_reference.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>

#include "algorithms/error.hpp"

namespace ddl::harness {

namespace {

std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

// A finite number in (0, max].
double positive(const std::string& text, const std::string& where, const char* key, double max) {
  double v = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || ptr != text.data() + text.size() || !std::isfinite(v) ||
      !(v > 0) || v > max)
    throw InvalidArgument(where + ": " + key + " '" + text + "' is not a number in (0, " +
                          number(max) + "]");
  return v;
}

}  // namespace

std::string ReferenceGpu::describe() const {
  return name + " (" + number(fp32_flops / 1e12) + " TFLOP/s fp32, " +
         number(memory_bandwidth / 1e9) + " GB/s)";
}

std::string reference_field(const Workload& w) {
  if (!w.reference_gpu) return "";
  return w.reference_gpu->describe() +
         (w.reference_gpu->stated ? "" : " (default: the file names none)");
}

void read_reference_keys(const std::map<std::string, std::string>& params,
                         const std::function<std::string(const char*)>& at,
                         const std::string& source, Workload& w) {
  if (const auto it = params.find("sample"); it != params.end()) {
    const std::string& s = it->second;
    if (s.empty() || s.find_first_not_of("abcdefghijklmnopqrstuvwxyz") != std::string::npos)
      throw InvalidArgument(at("sample") + ": sample '" + s +
                            "' is not one lowercase word (images, sequences, ...)");
    w.sample = s;
  }
  std::size_t given = 0;
  for (const char* key : kReferenceKeys) given += params.count(key);
  if (given == 0) {
    if (!w.measured_times) w.reference_gpu = ReferenceGpu{"P100", 10.6e12, 732e9, false};
    return;
  }
  for (const char* key : kReferenceKeys)
    if (!params.count(key))
      throw InvalidArgument(source + ": missing parameter '# " + std::string(key) +
                            " = ...': a reference GPU needs reference_gpu, "
                            "reference_gpu_fp32_tflops and reference_gpu_memory_gbs");
  ReferenceGpu gpu;
  gpu.name = params.at("reference_gpu");
  if (gpu.name.empty()) throw InvalidArgument(at("reference_gpu") + ": reference_gpu is empty");
  // 1e6 TFLOP/s and 1e6 GB/s: far past any device, so a unit slip (FLOP/s for TFLOP/s) is caught.
  gpu.fp32_flops = positive(params.at("reference_gpu_fp32_tflops"), at("reference_gpu_fp32_tflops"),
                            "reference_gpu_fp32_tflops", 1e6) *
                   1e12;
  gpu.memory_bandwidth = positive(params.at("reference_gpu_memory_gbs"),
                                  at("reference_gpu_memory_gbs"), "reference_gpu_memory_gbs", 1e6) *
                         1e9;
  w.reference_gpu = gpu;
}

}  // namespace ddl::harness
