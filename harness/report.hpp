// The result rows every tool prints, in three formats from one row type and one schema, so
// ddlsim's prediction and ddlrun's measurement diff column by column and load the same way:
//   table - nccl-tests-like, '#' preamble (run_info.hpp), one line per size with one column
//           block per algorithm side by side, then (--baseline mpi) one MPI_Allreduce block per
//           size;
//   csv   - the '#' preamble, then the header csv_header() and one line per (size, algorithm);
//           a cell a tool has no value for is empty (ddlsim's mpi_*, ddlrun's model_us, wrong
//           when not checked);
//   json  - {"metadata": {...}, "rows": [...]}: one object per row keyed by the csv column names
//           (null for an empty cell), one per line;
//   nccl  - nccl-tests' own table of one algorithm (report_nccl.hpp): the '#' preamble, then
//           per size its out-of-place and in-place column groups, then the closing lines, so
//           nccl-tests' parsers read it.
// Table and csv rows are printed as they finish (a table line once every algorithm of its size
// is in); json, one document, at the end.
#pragma once

#include <cstddef>
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "algorithms/types.hpp"
#include "harness/format.hpp"
#include "harness/run_info.hpp"

namespace ddl::harness {

struct Row {
  std::size_t bytes = 0;
  std::size_t count = 0;
  DType type = DType::float32;
  ReduceOp op = ReduceOp::sum;
  std::string algo;
  std::string dims;
  bool out_of_place = false;  // the nccl format's left column group; the other formats: never
  double time_s = 0;
  double algbw_gbs = 0;  // bytes / time, GB/s = 1e9 B/s
  double busbw_gbs = 0;  // algbw * bus_factor(collective, ranks)
  std::optional<double> model_s;
  std::optional<std::size_t> wrong;  // absent: not checked
  std::optional<double> mpi_time_s;
  std::optional<double> mpi_busbw_gbs;
  std::string chosen;  // the algorithm string that ran: auto's choice on an auto row
  int root = -1;       // broadcast, reduce, gather, scatter: the root (the nccl format's column)
};

// Fills count, algbw and busbw from the measured time (0 bandwidth for a zero time); chosen is
// the algorithm itself (a tool sets auto's choice).
Row make_row(std::size_t bytes, DType type, ReduceOp op, const std::string& algo,
             const std::string& dims, double time_s, int ranks);
// busbw of a time, for the algorithm's collective (registry bus_factor).
double bus_bandwidth_gbs(std::size_t bytes, double time_s, const std::string& algo, int ranks);

// "size,count,type,redop,algo,dims,time_us,algbw_gbs,busbw_gbs,model_us,wrong,mpi_time_us,
// mpi_busbw_gbs,chosen": every tool's, in this order.
std::string csv_header();

// Which column blocks the table shows (csv and json always hold every column).
struct Columns {
  bool model = false;                      // model
  bool mpi = false;                        // the MPI baseline
  std::string mpi_name = "MPI_Allreduce";  // its title: the MPI collective it times
};

class TableLines;
class NcclLines;

// Prints a report as its rows come: the preamble (and the table's column titles) at once, each
// row (csv) or size line (table) as soon as it is complete, the rest at finish().
class ReportWriter {
 public:
  // `algos`: the table's algorithm blocks in order; every row's algo is one of them.
  ReportWriter(std::ostream& out, Format format, const Columns& columns, const RunInfo& info,
               const std::vector<std::string>& algos);
  ~ReportWriter();
  ReportWriter(const ReportWriter&) = delete;
  ReportWriter& operator=(const ReportWriter&) = delete;

  void add(const Row& row);
  // `notes`: what is known only after the run (ddlsim's step extrapolation), after the rows.
  void finish(const std::vector<std::string>& notes = {});

 private:
  std::ostream& out_;
  Format format_;
  RunInfo info_;
  std::vector<Row> json_rows_;
  std::unique_ptr<TableLines> table_;
  std::unique_ptr<NcclLines> nccl_;
};

// The whole report at once; the table's blocks in the order the algorithms first appear.
void write_report(std::ostream& out, Format format, const std::vector<Row>& rows,
                  const Columns& columns, const RunInfo& info,
                  const std::vector<std::string>& notes = {});

}  // namespace ddl::harness
