#include "harness/report.hpp"

#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <ostream>

#include "algorithms/error.hpp"
#include "algorithms/registry.hpp"
#include "harness/output_file.hpp"
#include "harness/report_nccl.hpp"
#include "harness/report_table.hpp"

namespace ddl::harness {

double bus_bandwidth_gbs(std::size_t bytes, double time_s, const std::string& algo, int ranks) {
  if (time_s <= 0) return 0;
  return static_cast<double>(bytes) / time_s / 1e9 *
         bus_factor(find_algorithm(algo).collective, ranks);
}

Row make_row(std::size_t bytes, DType type, ReduceOp op, const std::string& algo,
             const std::string& dims, double time_s, int ranks) {
  Row r;
  r.bytes = bytes;
  r.count = bytes / dtype_size(type);
  r.type = type;
  r.op = op;
  r.algo = algo;
  r.dims = dims;
  r.time_s = time_s;
  r.algbw_gbs = time_s > 0 ? static_cast<double>(bytes) / time_s / 1e9 : 0;
  r.busbw_gbs = bus_bandwidth_gbs(bytes, time_s, algo, ranks);
  r.chosen = algo;
  return r;
}

namespace {

// Microseconds with picosecond resolution: simulated times are exact, keep their digits.
std::string us(double seconds) {
  return printed("%.6f", seconds * 1e6);
}

// RFC 4180: a field holding a comma or a quote is quoted, its quotes doubled. Algorithm strings
// such as ddl:4x2:ring,hd hold commas.
std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"") == std::string::npos) return text;
  std::string quoted = "\"";
  for (char ch : text) quoted += ch == '"' ? std::string("\"\"") : std::string(1, ch);
  return quoted + "\"";
}

std::string csv_line(const Row& r) {
  std::string line = std::to_string(r.bytes) + ',' + std::to_string(r.count) + ',' +
                     std::string(to_string(r.type)) + ',' + std::string(to_string(r.op)) + ',' +
                     csv_field(r.algo) + ',' + csv_field(r.dims) + ',' + us(r.time_s) + ',' +
                     printed("%.6f", r.algbw_gbs) + ',' + printed("%.6f", r.busbw_gbs);
  line += ',' + (r.model_s ? us(*r.model_s) : "");
  line += ',' + (r.wrong ? std::to_string(*r.wrong) : "");
  line += ',' + (r.mpi_time_s ? us(*r.mpi_time_s) : "");
  line += ',' + (r.mpi_busbw_gbs ? printed("%.6f", *r.mpi_busbw_gbs) : "");
  return line + ',' + csv_field(r.chosen);
}

nlohmann::ordered_json json_row(const Row& r) {
  const auto optional = [](const auto& v, double scale) {
    return v ? nlohmann::ordered_json(*v * scale) : nlohmann::ordered_json(nullptr);
  };
  nlohmann::ordered_json j;
  j["size"] = r.bytes;
  j["count"] = r.count;
  j["type"] = to_string(r.type);
  j["redop"] = to_string(r.op);
  j["algo"] = r.algo;
  j["dims"] = r.dims;
  j["time_us"] = r.time_s * 1e6;
  j["algbw_gbs"] = r.algbw_gbs;
  j["busbw_gbs"] = r.busbw_gbs;
  j["model_us"] = optional(r.model_s, 1e6);
  j["wrong"] = r.wrong ? nlohmann::ordered_json(*r.wrong) : nullptr;
  j["mpi_time_us"] = optional(r.mpi_time_s, 1e6);
  j["mpi_busbw_gbs"] = optional(r.mpi_busbw_gbs, 1);
  j["chosen"] = r.chosen;
  return j;
}

}  // namespace

std::string csv_header() {
  return "size,count,type,redop,algo,dims,time_us,algbw_gbs,busbw_gbs,model_us,wrong,mpi_time_us,"
         "mpi_busbw_gbs,chosen";
}

ReportWriter::ReportWriter(std::ostream& out, Format format, const Columns& columns,
                           const RunInfo& info, const std::vector<std::string>& algos)
    : out_(out), format_(format), info_(info) {
  if (format_ == Format::json) return;
  out_ << preamble(info_);
  if (format_ == Format::csv)
    out_ << csv_header() << '\n';
  else if (format_ == Format::nccl)
    nccl_ = std::make_unique<NcclLines>(out_, algos);
  else
    table_ = std::make_unique<TableLines>(out_, columns, algos);
  out_.flush();
  check_stdout_written(out_);
}

ReportWriter::~ReportWriter() = default;

void ReportWriter::add(const Row& row) {
  DDL_CHECK(!row.out_of_place || format_ == Format::nccl,
            "an out-of-place row in a report that shows in-place calls only");
  switch (format_) {
    case Format::nccl: nccl_->add(row); break;
    case Format::table: table_->add(row); break;
    case Format::csv: out_ << csv_line(row) << '\n' << std::flush; break;
    case Format::json: json_rows_.push_back(row); break;
  }
  check_stdout_written(out_);
}

void ReportWriter::finish(const std::vector<std::string>& notes) {
  if (format_ == Format::json) {
    out_ << "{\"metadata\": " << metadata_json(info_, notes) << ",\n\"rows\": [";
    for (std::size_t i = 0; i < json_rows_.size(); ++i)
      out_ << (i ? ",\n" : "\n") << json_row(json_rows_[i]).dump();
    out_ << "\n]}\n";
  } else {
    if (table_) table_->finish();
    if (nccl_) nccl_->finish();
    out_ << note_lines(notes);
  }
  out_.flush();
  check_stdout_written(out_);
}

void write_report(std::ostream& out, Format format, const std::vector<Row>& rows,
                  const Columns& columns, const RunInfo& info,
                  const std::vector<std::string>& notes) {
  std::vector<std::string> algos;
  for (const Row& r : rows)
    if (std::find(algos.begin(), algos.end(), r.algo) == algos.end()) algos.push_back(r.algo);
  ReportWriter writer(out, format, columns, info, algos);
  for (const Row& r : rows) writer.add(r);
  writer.finish(notes);
}

}  // namespace ddl::harness
