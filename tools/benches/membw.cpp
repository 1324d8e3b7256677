// ddl_membw: this machine's memcpy bandwidth, the yardstick for host-memory allreduce
// (a ring moves and reduces every byte through memory, so memcpy bounds it). Prints csv:
// size,memcpy_gbs with GB/s = bytes copied per second / 1e9, median of -n copies. --pages huge
// copies between buffers in transparent huge pages, as ddlrun --pages huge allocates its own.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "algorithms/error.hpp"
#include "harness/sizes.hpp"
#include "real/mpi/host_pages.hpp"

// -n's value: a whole number, or one message naming what was given (std::stoi says only "stoi").
int parse_iters(const std::string& text) {
  std::size_t used = 0;
  int n = 0;
  try {
    n = std::stoi(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != text.size())
    throw ddl::InvalidArgument("-n takes a whole number of copies, got '" + text + "'");
  return n;
}

int main(int argc, char** argv) {
  try {
    std::size_t lo = 1 << 20, hi = std::size_t{256} << 20;
    int iters = 20;
    ddl::Pages pages = ddl::Pages::base;
    for (int i = 1; i < argc; ++i) {
      const std::string a = argv[i];
      if (i + 1 >= argc)
        throw ddl::InvalidArgument(
            "flag " + a +
            " needs a value (usage: ddl_membw [-b MIN] [-e MAX] [-n ITERS] [--pages 4k|huge])");
      if (a == "-b")
        lo = ddl::harness::parse_size(argv[++i]);
      else if (a == "-e")
        hi = ddl::harness::parse_size(argv[++i]);
      else if (a == "-n")
        iters = parse_iters(argv[++i]);
      else if (a == "--pages")
        pages = ddl::parse_pages(argv[++i]);
      else
        throw ddl::InvalidArgument(
            "unknown flag '" + a +
            "' (usage: ddl_membw [-b MIN] [-e MAX] [-n ITERS] [--pages 4k|huge])");
    }
    if (iters < 1) throw ddl::InvalidArgument("-n must be at least 1");
    const std::vector<std::size_t> sizes = ddl::harness::size_sweep(lo, hi, 2);
    ddl::require_pages(pages);
    // Touched once up front: the copies measure bandwidth, not page faults.
    const ddl::HostBuffer src(hi, pages), dst(hi, pages);
    std::memset(src.data(), 1, hi);
    std::cout << "size,memcpy_gbs\n";
    for (std::size_t bytes : sizes) {
      std::vector<double> t;
      for (int it = 0; it < iters + 2; ++it) {
        const auto start = std::chrono::steady_clock::now();
        std::memcpy(dst.data(), src.data(), bytes);
        const double s =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        if (it >= 2) t.push_back(s);
      }
      std::sort(t.begin(), t.end());
      std::printf("%zu,%.3f\n", bytes, static_cast<double>(bytes) / t[t.size() / 2] / 1e9);
    }
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "ddl_membw: " << e.what() << "\n";
    return 2;
  }
}
