#include "harness/workload_report.hpp"

#include <cstdio>
#include <nlohmann/json.hpp>
#include <ostream>
#include <sstream>

#include "algorithms/error.hpp"

namespace ddl::harness {

namespace {

std::string fmt(const char* format, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

// Milliseconds with picosecond resolution: simulated times are exact, keep their digits.
std::string ms(double seconds) {
  return fmt("%.9f", seconds * 1e3);
}

}  // namespace

double WorkloadRow::images_per_s() const {
  return iteration_s > 0 ? static_cast<double>(gpus) * static_cast<double>(batch) / iteration_s : 0;
}

double WorkloadRow::efficiency() const {
  return iteration_s > 0 ? compute_s / iteration_s : 0;
}

std::string workload_csv_header() {
  return "gpus,algo,dims,iter_ms,compute_ms,exposed_comm_ms,images_per_s,efficiency";
}

void write_workload_report(std::ostream& out, Format format, const std::vector<WorkloadRow>& rows,
                           const std::vector<std::string>& header) {
  if (format == Format::csv) {
    out << workload_csv_header() << '\n';
    for (const WorkloadRow& r : rows)
      out << r.gpus << ',' << r.algo << ',' << r.dims << ',' << ms(r.iteration_s) << ','
          << ms(r.compute_s) << ',' << ms(r.exposed_comm_s()) << ','
          << fmt("%.3f", r.images_per_s()) << ',' << fmt("%.6f", r.efficiency()) << '\n';
    return;
  }
  if (format == Format::json) {
    out << '[';
    bool first = true;
    for (const WorkloadRow& r : rows) {
      nlohmann::ordered_json j;
      j["gpus"] = r.gpus;
      j["algo"] = r.algo;
      j["dims"] = r.dims;
      j["iter_ms"] = r.iteration_s * 1e3;
      j["compute_ms"] = r.compute_s * 1e3;
      j["exposed_comm_ms"] = r.exposed_comm_s() * 1e3;
      j["images_per_s"] = r.images_per_s();
      j["efficiency"] = r.efficiency();
      out << (first ? "\n" : ",\n") << j.dump();
      first = false;
    }
    out << "\n]\n";
    return;
  }
  for (const std::string& h : header) out << "# " << h << '\n';
  char buf[256];
  std::snprintf(buf, sizeof buf, "#%6s %8s %12s %12s %12s %16s %12s %10s\n", "gpus", "algo", "dims",
                "iter", "compute", "exposed comm", "throughput", "efficiency");
  out << buf;
  std::snprintf(buf, sizeof buf, "#%6s %8s %12s %12s %12s %16s %12s %10s\n", "", "", "", "(ms)",
                "(ms)", "(ms)", "(images/s)", "");
  out << buf;
  for (const WorkloadRow& r : rows) {
    std::snprintf(buf, sizeof buf, "%7d %8s %12s %12.3f %12.3f %16.3f %12.1f %10.4f\n", r.gpus,
                  r.algo.c_str(), r.dims.c_str(), r.iteration_s * 1e3, r.compute_s * 1e3,
                  r.exposed_comm_s() * 1e3, r.images_per_s(), r.efficiency());
    out << buf;
  }
}

std::vector<WorkloadRow> parse_workload_csv(const std::string& text, std::size_t batch) {
  std::istringstream in(text);
  std::string line;
  if (!std::getline(in, line) || line != workload_csv_header())
    throw InvalidArgument("workload csv: expected the header '" + workload_csv_header() +
                          "', got '" + line + "'");
  std::vector<WorkloadRow> rows;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
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
    rows.push_back(std::move(r));
  }
  return rows;
}

}  // namespace ddl::harness
