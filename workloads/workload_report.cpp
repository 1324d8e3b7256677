#include "workloads/workload_report.hpp"

#include <cstdio>
#include <nlohmann/json.hpp>
#include <ostream>
#include <sstream>

#include "algorithms/error.hpp"
#include "harness/format.hpp"
#include "harness/output_file.hpp"

namespace ddl::harness {

namespace {

// Milliseconds with picosecond resolution: simulated times are exact, keep their digits.
std::string ms(double seconds) {
  return printed("%.9f", seconds * 1e3);
}

constexpr const char* kCsvStart = "gpus,algo,dims,iter_ms,compute_ms,exposed_comm_ms,";
constexpr const char* kCsvEnd = "_per_s,efficiency";

// The table's throughput column: wide enough for "(sequences/s)".
constexpr int kThroughputWidth = 14;

}  // namespace

double WorkloadRow::samples_per_s() const {
  return iteration_s > 0 ? static_cast<double>(gpus) * static_cast<double>(batch) / iteration_s : 0;
}

double WorkloadRow::efficiency() const {
  return iteration_s > 0 ? compute_s / iteration_s : 0;
}

std::string workload_csv_header(const std::string& sample) {
  return kCsvStart + sample + kCsvEnd;
}

WorkloadReportWriter::WorkloadReportWriter(std::ostream& out, Format format, const RunInfo& info,
                                           std::string sample)
    : out_(out), format_(format), info_(info), sample_(std::move(sample)) {
  DDL_CHECK(format_ != Format::nccl, "a workload report in nccl-tests' sweep table");
  if (format_ == Format::json) return;
  out_ << preamble(info_);
  if (format_ == Format::csv) {
    out_ << workload_csv_header(sample_) << '\n' << std::flush;
    check_stdout_written(out_);
    return;
  }
  char buf[256];
  std::snprintf(buf, sizeof buf, "#%6s %8s %12s %12s %12s %16s %*s %10s\n", "gpus", "algo", "dims",
                "iter", "compute", "exposed comm", kThroughputWidth, "throughput", "efficiency");
  out_ << buf;
  std::snprintf(buf, sizeof buf, "#%6s %8s %12s %12s %12s %16s %*s %10s\n", "", "", "", "(ms)",
                "(ms)", "(ms)", kThroughputWidth, ("(" + sample_ + "/s)").c_str(), "");
  out_ << buf << std::flush;
  check_stdout_written(out_);
}

void WorkloadReportWriter::add(const WorkloadRow& r) {
  if (format_ == Format::json) {
    json_rows_.push_back(r);
    return;
  }
  if (format_ == Format::csv) {
    out_ << r.gpus << ',' << r.algo << ',' << r.dims << ',' << ms(r.iteration_s) << ','
         << ms(r.compute_s) << ',' << ms(r.exposed_comm_s()) << ','
         << printed("%.3f", r.samples_per_s()) << ',' << printed("%.6f", r.efficiency()) << '\n'
         << std::flush;
    check_stdout_written(out_);
    return;
  }
  char buf[256];
  std::snprintf(buf, sizeof buf, "%7d %8s %12s %12.3f %12.3f %16.3f %*.1f %10.4f\n", r.gpus,
                r.algo.c_str(), r.dims.c_str(), r.iteration_s * 1e3, r.compute_s * 1e3,
                r.exposed_comm_s() * 1e3, kThroughputWidth, r.samples_per_s(), r.efficiency());
  out_ << buf << std::flush;
  check_stdout_written(out_);
}

void WorkloadReportWriter::finish(const std::vector<std::string>& notes) {
  if (format_ != Format::json) {
    out_ << note_lines(notes) << std::flush;
    check_stdout_written(out_);
    return;
  }
  out_ << "{\"metadata\": " << metadata_json(info_, notes) << ",\n\"rows\": [";
  bool first = true;
  for (const WorkloadRow& r : json_rows_) {
    nlohmann::ordered_json j;
    j["gpus"] = r.gpus;
    j["algo"] = r.algo;
    j["dims"] = r.dims;
    j["iter_ms"] = r.iteration_s * 1e3;
    j["compute_ms"] = r.compute_s * 1e3;
    j["exposed_comm_ms"] = r.exposed_comm_s() * 1e3;
    j[sample_ + "_per_s"] = r.samples_per_s();
    j["efficiency"] = r.efficiency();
    out_ << (first ? "\n" : ",\n") << j.dump();
    first = false;
  }
  out_ << "\n]}\n" << std::flush;
  check_stdout_written(out_);
}

void write_workload_report(std::ostream& out, Format format, const std::vector<WorkloadRow>& rows,
                           const RunInfo& info, const std::string& sample,
                           const std::vector<std::string>& notes) {
  WorkloadReportWriter writer(out, format, info, sample);
  for (const WorkloadRow& r : rows) writer.add(r);
  writer.finish(notes);
}

WorkloadCsv parse_workload_csv(const std::string& text, std::size_t batch) {
  WorkloadCsv csv;
  csv.fields = preamble_fields(text);
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line) && line.rfind('#', 0) == 0) {
  }
  const std::string start = kCsvStart, end = kCsvEnd;
  const bool header = line.size() > start.size() + end.size() && line.rfind(start, 0) == 0 &&
                      line.compare(line.size() - end.size(), end.size(), end) == 0;
  if (header) csv.sample = line.substr(start.size(), line.size() - start.size() - end.size());
  if (!header || csv.sample.find_first_of(",_ ") != std::string::npos)
    throw InvalidArgument("workload csv: expected the header '" + workload_csv_header("<sample>") +
                          "', got '" + line + "'");
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> cells;
    std::istringstream row(line);
    for (std::string cell; std::getline(row, cell, ',');) cells.push_back(cell);
    if (cells.size() != 8) throw InvalidArgument("workload csv: malformed row '" + line + "'");
    WorkloadRow r;
    try {
      r.gpus = std::stoi(cells[0]);
      r.algo = cells[1];
      r.dims = cells[2];
      r.batch = batch;
      r.iteration_s = std::stod(cells[3]) * 1e-3;
      r.compute_s = std::stod(cells[4]) * 1e-3;
    } catch (const std::exception&) {
      throw InvalidArgument("workload csv: malformed row '" + line + "'");
    }
    csv.rows.push_back(std::move(r));
  }
  return csv;
}

}  // namespace ddl::harness
