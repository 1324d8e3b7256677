// ddl_cuda_reduce_bench: achieved memory bandwidth of the reduce kernels against a plain
// device-to-device copy measured in the same run on the same buffers. A copy moves 2 bytes of
// traffic per byte (read + write), a reduce 3 (read both operands, write one); both are
// reported as traffic GB/s (1e9 B/s) and the reduce as a fraction of the copy. Prints csv.
// Usage: ddl_cuda_reduce_bench [BYTES (default 256M)] [ITERS (default 20)]
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include "harness/sizes.hpp"
#include "real/cuda/cuda_communicator.hpp"
#include "real/cuda/cuda_kernels.hpp"

using namespace ddl;

namespace {

template <typename Body>
double median_seconds(int iters, Body&& body) {
  cudaEvent_t start, stop;
  cuda::check(cudaEventCreate(&start), "cudaEventCreate");
  cuda::check(cudaEventCreate(&stop), "cudaEventCreate");
  std::vector<double> t;
  for (int i = 0; i < iters + 2; ++i) {  // two warm-ups
    cuda::check(cudaEventRecord(start), "cudaEventRecord");
    body();
    cuda::check(cudaEventRecord(stop), "cudaEventRecord");
    cuda::check(cudaEventSynchronize(stop), "cudaEventSynchronize");
    float ms = 0;
    cuda::check(cudaEventElapsedTime(&ms, start, stop), "cudaEventElapsedTime");
    if (i >= 2) t.push_back(ms / 1e3);
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const std::size_t bytes = argc > 1 ? harness::parse_size(argv[1]) : std::size_t{256} << 20;
    const int iters = argc > 2 ? std::stoi(argv[2]) : 20;
    std::string why;
    if (cuda_device_count(&why) == 0) {
      std::cerr << "ddl_cuda_reduce_bench: no usable CUDA device (" << why << ")\n";
      return 77;
    }
    cudaDeviceProp prop{};
    cuda::check(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
    void *a = nullptr, *b = nullptr;
    cuda::check(cudaMalloc(&a, bytes), "cudaMalloc");
    cuda::check(cudaMalloc(&b, bytes), "cudaMalloc");
    cuda::check(cudaMemset(a, 0, bytes), "cudaMemset");
    cuda::check(cudaMemset(b, 0, bytes), "cudaMemset");
    const double copy_s = median_seconds(iters, [&] {
      cuda::check(cudaMemcpyAsync(a, b, bytes, cudaMemcpyDeviceToDevice), "copy");
    });
    const double copy_gbs = 2.0 * static_cast<double>(bytes) / copy_s / 1e9;
    std::printf("# device %s, %zu bytes, median of %d\n", prop.name, bytes, iters);
    std::printf("kernel,type,op,bytes,time_us,traffic_gbs,copy_traffic_gbs,fraction_of_copy\n");
    std::printf("copy,-,-,%zu,%.2f,%.1f,%.1f,1.000\n", bytes, copy_s * 1e6, copy_gbs, copy_gbs);
    for (DType type : all_dtypes())
      for (ReduceOp op : {ReduceOp::sum, ReduceOp::max}) {
        const std::size_t count = bytes / dtype_size(type);
        const double s =
            median_seconds(iters, [&] { cuda::reduce(a, b, count, type, op, nullptr); });
        const double gbs = 3.0 * static_cast<double>(bytes) / s / 1e9;
        std::printf("reduce,%s,%s,%zu,%.2f,%.1f,%.1f,%.3f\n", std::string(to_string(type)).c_str(),
                    std::string(to_string(op)).c_str(), bytes, s * 1e6, gbs, copy_gbs,
                    gbs / copy_gbs);
      }
    cudaFree(a);
    cudaFree(b);
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "ddl_cuda_reduce_bench: " << e.what() << "\n";
    return 1;
  }
}
