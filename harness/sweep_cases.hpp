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
  // Out of place (algorithms/collective_input.hpp): the input copied from a buffer of its own
  // inside the timed call; else in place, as ddl's collectives run.
  bool out_of_place = false;
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
  // Each (size, algorithm) also out of place, before in place (nccl-tests' two column groups).
  bool out_of_place_too = false;
  Options options;

  // Every row in table order: size-major, algorithms inner, out of place before in place; bytes
  // rounded down to whole elements.
  std::vector<SweepCase> each() const {
    const std::size_t elem = dtype_size(type);
    std::vector<SweepCase> rows;
    rows.reserve(sizes.size() * algos.size() * (out_of_place_too ? 2 : 1));
    for (std::size_t size : sizes)
      for (const std::string& algo : algos) {
        if (out_of_place_too) rows.push_back({algo, size / elem * elem, true});
        rows.push_back({algo, size / elem * elem, false});
      }
    return rows;
  }
};

}  // namespace ddl::harness
