// The result rows every tool prints, in three formats from one row type, so ddlsim and
// ddlrun output can be diffed and loaded the same way:
//   table - nccl-tests-like, '#' header lines, one line per size with one column block per
//           algorithm side by side, then (--baseline mpi) one MPI_Allreduce block per size;
//   csv   - one line per (size, algorithm); header "size,count,type,redop,algo,dims,time_us,
//           algbw_gbs,busbw_gbs" + ",model_us" (simulator) + ",wrong" + ",mpi_time_us,
//           mpi_busbw_gbs" (ddlrun --baseline mpi); wrong is empty when not checked;
//   json  - one JSON array of objects keyed by the csv column names (wrong: null when not
//           checked), one object per line.
#pragma once

#include <cstddef>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "algorithms/registry.hpp"
#include "algorithms/types.hpp"
#include "harness/format.hpp"

namespace ddl::harness {

struct Row {
  std::size_t bytes = 0;
  std::size_t count = 0;
  DType type = DType::float32;
  ReduceOp op = ReduceOp::sum;
  std::string algo;
  std::string dims;
  double time_s = 0;
  double algbw_gbs = 0;  // bytes / time, GB/s = 1e9 B/s
  double busbw_gbs = 0;  // algbw * bus_factor(collective, ranks)
  std::optional<double> model_s;
  std::optional<std::size_t> wrong;  // absent: not checked
  std::optional<double> mpi_time_s;
  std::optional<double> mpi_busbw_gbs;
};

// Fills count, algbw and busbw from the measured time (0 bandwidth for a zero time).
Row make_row(std::size_t bytes, DType type, ReduceOp op, const std::string& algo,
             const std::string& dims, double time_s, int ranks);
// busbw of a time, for the algorithm's collective (registry bus_factor).
double bus_bandwidth_gbs(std::size_t bytes, double time_s, const std::string& algo, int ranks);

// Optional columns: which tool produced the rows decides, not the rows themselves.
struct Columns {
  bool model = false;  // model_us
  bool mpi = false;    // mpi_time_us, mpi_busbw_gbs
};

std::string csv_header(const Columns& columns);
void write_csv(std::ostream& out, const std::vector<Row>& rows, const Columns& columns);
void write_json(std::ostream& out, const std::vector<Row>& rows, const Columns& columns);
// `header` lines describe the run (platform, ranks, mode); each is printed after "# ".
void write_table(std::ostream& out, const std::vector<Row>& rows, const Columns& columns,
                 const std::vector<std::string>& header);
// "auto picks (cost model, <basis>): rhd for 8..512K, ddl for 1M..256M": what `auto` runs at
// each size of the sweep, for the table header; empty when `algos` holds no "auto".
std::string auto_choices(const std::vector<std::string>& algos,
                         const std::vector<std::size_t>& sizes, const Dims& dims,
                         const CostParams& costs, const Options& options, const std::string& basis);
void write_report(std::ostream& out, Format format, const std::vector<Row>& rows,
                  const Columns& columns, const std::vector<std::string>& header);

}  // namespace ddl::harness
