// The nccl format of report.hpp: a collective sweep's table in nccl-tests' own layout, so the
// scripts that read nccl-tests' logs read ddl's. One algorithm (the command line refuses more);
// after ddl's '#' preamble, nccl-tests' three title lines, then one line per size:
//   size count type redop root | time algbw busbw #wrong (out of place) | the same (in place)
// with nccl-tests' widths and its time digits (2 decimals below 100 us, 1 below 10 ms, none
// above), redop "none" for a collective that does not reduce and root -1 for one without a
// root; then "# Out of bounds values : N OK|FAILED" (the wrong elements of every line; N/A when
// nothing was checked, where nccl-tests would print 0) and "# Avg bus bandwidth    : X", the
// mean busbw over every size and both placements, as nccl-tests averages it.
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "harness/report.hpp"

namespace ddl::harness {

class NcclLines {
 public:
  NcclLines(std::ostream& out, const std::vector<std::string>& algos);
  void add(const Row& row);
  void finish();

 private:
  void print(std::size_t bytes);

  std::ostream& out_;
  std::vector<std::size_t> pending_;  // sizes not printed yet, in first-appearance order
  std::map<std::size_t, std::pair<std::optional<Row>, std::optional<Row>>> cells_;  // out, in
  double busbw_sum_ = 0;
  int busbw_count_ = 0;
  std::size_t wrong_ = 0;
  bool checked_ = false;
};

// One size's line without its newline (tests and the writer).
std::string nccl_line(const Row* out_of_place, const Row* in_place);

}  // namespace ddl::harness
