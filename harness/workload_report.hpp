// Result rows of a training-iteration run, one per (GPU count, algorithm), in the formats of
// report.hpp:
//   csv   - header exactly "gpus,algo,dims,iter_ms,compute_ms,exposed_comm_ms,images_per_s,
//           efficiency";
//   json  - one JSON array of objects keyed by those column names;
//   table - '#' header lines, then aligned columns.
// Definitions: compute = forward + backward + optimizer step of one GPU; exposed_comm =
// iteration - compute (communication the backward pass did not hide); images_per_s =
// gpus * per-GPU batch / iteration; efficiency = single-GPU iteration time at the same per-GPU
// batch / this iteration time. A single GPU communicates nothing (every allreduce returns at
// once on one rank), so its iteration time is exactly `compute`, and efficiency = compute /
// iteration.
#pragma once

#include <cstddef>
#include <iosfwd>
#include <string>
#include <vector>

#include "harness/format.hpp"

namespace ddl::harness {

struct WorkloadRow {
  int gpus = 0;
  std::string algo;
  std::string dims;
  std::size_t batch = 0;  // per GPU
  double iteration_s = 0;
  double compute_s = 0;

  double exposed_comm_s() const { return iteration_s - compute_s; }
  double images_per_s() const;
  double efficiency() const;
};

std::string workload_csv_header();
void write_workload_report(std::ostream& out, Format format, const std::vector<WorkloadRow>& rows,
                           const std::vector<std::string>& header);
// Reads what write_workload_report wrote as csv (for runs gathered from child processes);
// `batch` is the per-GPU batch of every row. Throws InvalidArgument for another header or a
// malformed row.
std::vector<WorkloadRow> parse_workload_csv(const std::string& text, std::size_t batch);

}  // namespace ddl::harness
