// What a collective sweep runs, the part ddlsim and ddlrun share: the algorithms and sizes whose
// product is the table's rows, the element type and reduction, the iterations per row, whether
// real data moves and is checked, and the algorithm options. The command line fills it once
// (harness::sweep_cases in cli.hpp); each backend's configuration contains it and adds only its
// own settings (sim::SweepConfig is this, ddl::TimedSweepConfig adds timeouts and the baseline).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "algorithms/registry.hpp"
#include "algorithms/types.hpp"

namespace ddl::harness {

// One row of a sweep: an algorithm (name or canonical algorithm string) at a size.
struct SweepCase {
  std::string algo;
  std::size_t bytes = 0;  // whole elements
};

struct SweepCases {
  std::vector<std::string> algos;
  std::vector<std::size_t> sizes;  // bytes; rounded down to whole elements
  DType type = DType::float32;
  ReduceOp op = ReduceOp::sum;
  int iters = 1;
  int warmup = 0;
  // Move real data and count wrong elements (#wrong); the simulator's payload mode. Without it
  // the simulator moves no data at all (timing-only).
  bool check = false;
  Options options;

  // Every row in table order: size-major, algorithms inner; bytes rounded down to whole elements.
  std::vector<SweepCase> each() const {
    const std::size_t elem = dtype_size(type);
    std::vector<SweepCase> rows;
    rows.reserve(sizes.size() * algos.size());
    for (std::size_t size : sizes)
      for (const std::string& algo : algos) rows.push_back({algo, size / elem * elem});
    return rows;
  }
};

}  // namespace ddl::harness
