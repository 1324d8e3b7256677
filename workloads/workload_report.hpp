// Result rows of a training-iteration run, one per (GPU count, algorithm), in the formats of
// report.hpp, with the same '#' preamble and json "metadata" (run_info.hpp):
//   csv   - header exactly workload_csv_header(sample): "gpus,algo,dims,iter_ms,compute_ms,
//           exposed_comm_ms,<sample>_per_s,efficiency" (images_per_s for an image model,
//           sequences_per_s for a transformer: the workload file's `sample`);
//   json  - {"metadata": {...}, "rows": [...]}, each row keyed by those column names;
//   table - '#' preamble, then aligned columns.
// Definitions: compute = forward + backward + optimizer step of one GPU; exposed_comm =
// iteration - compute (communication the backward pass did not hide); <sample>_per_s =
// gpus * per-GPU batch / iteration; efficiency = single-GPU iteration time at the same per-GPU
// batch / this iteration time. A single GPU communicates nothing (every allreduce returns at
// once on one rank), so its iteration time is exactly `compute`, and efficiency = compute /
// iteration. Rows of the table and csv are printed as they come; json at the end.
#pragma once

#include <cstddef>
#include <iosfwd>
#include <string>
#include <utility>
#include <vector>

#include "harness/format.hpp"
#include "harness/run_info.hpp"

namespace ddl::harness {

struct WorkloadRow {
  int gpus = 0;
  std::string algo;
  std::string dims;
  std::size_t batch = 0;  // per GPU
  double iteration_s = 0;
  double compute_s = 0;

  double exposed_comm_s() const { return iteration_s - compute_s; }
  double samples_per_s() const;
  double efficiency() const;
};

// `sample`: what one element of the batch is, plural ("images", "sequences").
std::string workload_csv_header(const std::string& sample);

class WorkloadReportWriter {
 public:
  WorkloadReportWriter(std::ostream& out, Format format, const RunInfo& info, std::string sample);
  void add(const WorkloadRow& row);
  // `notes`: what is known only after the run, after the rows.
  void finish(const std::vector<std::string>& notes = {});

 private:
  std::ostream& out_;
  Format format_;
  RunInfo info_;
  std::string sample_;
  std::vector<WorkloadRow> json_rows_;
};

void write_workload_report(std::ostream& out, Format format, const std::vector<WorkloadRow>& rows,
                           const RunInfo& info, const std::string& sample,
                           const std::vector<std::string>& notes = {});

// What write_workload_report wrote as csv, read back (for runs gathered from child processes):
// the preamble's fields, the sample named by the header, the rows (`batch` per GPU in each).
struct WorkloadCsv {
  std::vector<std::pair<std::string, std::string>> fields;
  std::string sample;
  std::vector<WorkloadRow> rows;
};
// Throws InvalidArgument for another header or a malformed row.
WorkloadCsv parse_workload_csv(const std::string& text, std::size_t batch);

}  // namespace ddl::harness
