// The table format of report.hpp, line by line: the column titles when made, a size's line once
// every algorithm of that size is in (in the order the sizes first appeared), the rest and the
// per-algorithm averages at finish.
#pragma once

#include <cstddef>
#include <map>
#include <ostream>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "harness/report.hpp"

namespace ddl::harness {

class TableLines {
 public:
  TableLines(std::ostream& out, const Columns& columns, const std::vector<std::string>& algos);
  void add(const Row& row);
  void finish();

 private:
  using Key = std::tuple<std::size_t, DType, ReduceOp, std::string>;
  void print(const Key& key);

  std::ostream& out_;
  Columns columns_;
  std::vector<std::string> algos_;
  std::size_t block_width_ = 0;
  std::vector<Key> pending_;  // sizes not printed yet, in first-appearance order
  std::map<Key, std::map<std::string, Row>> cells_;
  std::map<std::string, std::pair<double, int>> busbw_sum_;
};

}  // namespace ddl::harness
