// Run one registered algorithm on the loopback communicator with the check pattern and report
// the first wrong element of any rank, so a failing case names rank, index, got and expected.
#pragma once

#include <string>
#include <vector>

#include "algorithms/check_pattern.hpp"
#include "algorithms/registry.hpp"
#include "loopback/loopback_communicator.hpp"

namespace ddl::test {

// A large element count, kept large except under ThreadSanitizer: races show at any size, and
// TSan's 5-15x slowdown on megabyte buffers would multiply CI time without finding more.
inline std::size_t large_count(std::size_t count) {
#if defined(__SANITIZE_THREAD__)
  return count < 10007 ? count : 10007 + count % 7;
#else
  return count;
#endif
}

struct Outcome {
  std::size_t wrong = 0;
  std::string first;  // "rank 2 index 17: got 3 expected 4", empty when exact
};

inline Outcome run_collective(const Algorithm& algo, int ranks, std::size_t count, DType type,
                              ReduceOp op, const Options& opts) {
  std::vector<CheckResult> results(static_cast<std::size_t>(ranks));
  run_ranks(ranks, [&](Communicator& comm) {
    std::vector<std::byte> buf(count * dtype_size(type));
    fill_input(buf.data(), count, type, op, algo.collective, comm.rank(), ranks, opts.root);
    algo.run(comm, MutView{buf.data(), buf.size()}, type, op, opts);
    results[static_cast<std::size_t>(comm.rank())] =
        check_output(buf.data(), count, type, op, algo.collective, comm.rank(), ranks, opts.root);
  });
  Outcome out;
  for (int r = 0; r < ranks; ++r) {
    const CheckResult& c = results[static_cast<std::size_t>(r)];
    if (c.wrong && out.first.empty())
      out.first = "rank " + std::to_string(r) + " index " + std::to_string(c.first_wrong) +
                  ": got " + std::to_string(c.got) + " expected " + std::to_string(c.expected);
    out.wrong += c.wrong;
  }
  return out;
}

}  // namespace ddl::test
