// Exit 0 when a CUDA device is usable, else say why and exit 77, which ctest reports as
// skipped (SKIP_RETURN_CODE): machines without a GPU skip the GPU tests, never fail them.
#include <cstdio>
#include <string>

#include "real/cuda/cuda_communicator.hpp"

int main() {
  std::string why;
  const int n = ddl::cuda_device_count(&why);
  if (n == 0) {
    std::printf("skipped: no usable CUDA device (%s)\n", why.c_str());
    return 77;
  }
  std::printf("%d CUDA device(s)\n", n);
  return 0;
}
