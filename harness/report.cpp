#include "harness/report.hpp"

#include <algorithm>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <ostream>
#include <tuple>

#include "algorithms/cost_model.hpp"
#include "harness/sizes.hpp"

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
  return r;
}

namespace {

std::string fmt(const char* format, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

// Right-aligned in `width` columns (never truncated).
std::string pad(const std::string& text, std::size_t width) {
  return text.size() >= width ? text : std::string(width - text.size(), ' ') + text;
}

// Microseconds with picosecond resolution: simulated times are exact, keep their digits.
std::string us(double seconds) {
  return fmt("%.6f", seconds * 1e6);
}

// RFC 4180: a field holding a comma or a quote is quoted, its quotes doubled. Algorithm strings
// such as ddl:4x2:ring,hd hold commas.
std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"") == std::string::npos) return text;
  std::string quoted = "\"";
  for (char ch : text) quoted += ch == '"' ? std::string("\"\"") : std::string(1, ch);
  return quoted + "\"";
}

}  // namespace

std::string csv_header(const Columns& c) {
  std::string h = "size,count,type,redop,algo,dims,time_us,algbw_gbs,busbw_gbs";
  if (c.model) h += ",model_us";
  h += ",wrong";
  if (c.mpi) h += ",mpi_time_us,mpi_busbw_gbs";
  return h;
}

void write_csv(std::ostream& out, const std::vector<Row>& rows, const Columns& c) {
  out << csv_header(c) << '\n';
  for (const Row& r : rows) {
    out << r.bytes << ',' << r.count << ',' << to_string(r.type) << ',' << to_string(r.op) << ','
        << csv_field(r.algo) << ',' << csv_field(r.dims) << ',' << us(r.time_s) << ','
        << fmt("%.6f", r.algbw_gbs) << ',' << fmt("%.6f", r.busbw_gbs);
    if (c.model) out << ',' << (r.model_s ? us(*r.model_s) : "");
    out << ',' << (r.wrong ? std::to_string(*r.wrong) : "");
    if (c.mpi)
      out << ',' << (r.mpi_time_s ? us(*r.mpi_time_s) : "") << ','
          << (r.mpi_busbw_gbs ? fmt("%.6f", *r.mpi_busbw_gbs) : "");
    out << '\n';
  }
}

void write_json(std::ostream& out, const std::vector<Row>& rows, const Columns& c) {
  out << "[";
  bool first = true;
  for (const Row& r : rows) {
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
    if (c.model) j["model_us"] = r.model_s ? nlohmann::ordered_json(*r.model_s * 1e6) : nullptr;
    j["wrong"] = r.wrong ? nlohmann::ordered_json(*r.wrong) : nullptr;
    if (c.mpi) {
      j["mpi_time_us"] = r.mpi_time_s ? nlohmann::ordered_json(*r.mpi_time_s * 1e6) : nullptr;
      j["mpi_busbw_gbs"] = r.mpi_busbw_gbs ? nlohmann::ordered_json(*r.mpi_busbw_gbs) : nullptr;
    }
    out << (first ? "\n" : ",\n") << j.dump();
    first = false;
  }
  out << "\n]\n";
}

void write_table(std::ostream& out, const std::vector<Row>& rows, const Columns& c,
                 const std::vector<std::string>& header) {
  for (const std::string& h : header) out << "# " << h << '\n';
  // Algorithms side by side, in the order they first appear; one line per size.
  std::vector<std::string> algos;
  using Key = std::tuple<std::size_t, DType, ReduceOp, std::string>;
  std::vector<Key> keys;
  std::map<Key, std::map<std::string, const Row*>> cells;
  for (const Row& r : rows) {
    if (std::find(algos.begin(), algos.end(), r.algo) == algos.end()) algos.push_back(r.algo);
    const Key k{r.bytes, r.type, r.op, r.dims};
    if (!cells.count(k)) keys.push_back(k);
    cells[k][r.algo] = &r;
  }
  char buf[256];
  std::snprintf(buf, sizeof buf, "#%11s %13s %9s %7s %9s", "size", "count", "type", "redop",
                "dims");
  std::string titles = buf;
  std::snprintf(buf, sizeof buf, "#%11s %13s %9s %7s %9s", "(B)", "(elements)", "", "", "");
  std::string units = buf;
  // One block per algorithm: time algbw busbw [model] #wrong; then, with the baseline, one
  // MPI_Allreduce block per size (the same measurement for every algorithm of that size).
  std::string block_titles = " " + pad("time", 12) + " " + pad("algbw", 8) + " " + pad("busbw", 8);
  std::string block_units = " " + pad("(us)", 12) + " " + pad("(GB/s)", 8) + " " + pad("(GB/s)", 8);
  if (c.model) {
    block_titles += " " + pad("model", 12);
    block_units += " " + pad("(us)", 12);
  }
  block_titles += " " + pad("#wrong", 8);
  block_units += " " + pad("", 8);
  const std::string mpi_titles = " " + pad("time", 12) + " " + pad("busbw", 8);
  const std::string mpi_units = " " + pad("(us)", 12) + " " + pad("(GB/s)", 8);
  std::string names = "#" + std::string(titles.size() - 1, ' ');
  for (const std::string& a : algos) {
    names += pad(a + " ", block_titles.size());
    titles += block_titles;
    units += block_units;
  }
  if (c.mpi) {
    names += pad("MPI_Allreduce ", mpi_titles.size());
    titles += mpi_titles;
    units += mpi_units;
  }
  out << names << '\n' << titles << '\n' << units << '\n';
  std::map<std::string, std::pair<double, int>> busbw_sum;
  for (const Key& k : keys) {
    const Row& any = *cells[k].begin()->second;
    std::snprintf(buf, sizeof buf, " %11zu %13zu %9s %7s %9s", any.bytes, any.count,
                  std::string(to_string(any.type)).c_str(), std::string(to_string(any.op)).c_str(),
                  any.dims.c_str());
    std::string line = buf;
    const Row* baseline = nullptr;  // any row of this size that carries the measurement
    for (const std::string& a : algos) {
      const auto it = cells[k].find(a);
      if (it == cells[k].end()) {
        line += pad("-", block_titles.size());
        continue;
      }
      const Row& r = *it->second;
      std::snprintf(buf, sizeof buf, " %12.2f %8.2f %8.2f", r.time_s * 1e6, r.algbw_gbs,
                    r.busbw_gbs);
      line += buf;
      if (c.model) line += " " + (r.model_s ? fmt("%12.2f", *r.model_s * 1e6) : pad("N/A", 12));
      line += " " + (r.wrong ? pad(std::to_string(*r.wrong), 8) : pad("N/A", 8));
      if (r.mpi_time_s && !baseline) baseline = &r;
      busbw_sum[a].first += r.busbw_gbs;
      busbw_sum[a].second += 1;
    }
    if (c.mpi) {
      line += " " + (baseline ? fmt("%12.2f", *baseline->mpi_time_s * 1e6) : pad("N/A", 12));
      line += " " + (baseline && baseline->mpi_busbw_gbs ? fmt("%8.2f", *baseline->mpi_busbw_gbs)
                                                         : pad("N/A", 8));
    }
    out << line << '\n';
  }
  for (const std::string& a : algos)
    if (busbw_sum[a].second)
      out << "# " << a << ": avg bus bandwidth "
          << fmt("%.3f", busbw_sum[a].first / busbw_sum[a].second) << " GB/s\n";
}

void write_report(std::ostream& out, Format format, const std::vector<Row>& rows,
                  const Columns& columns, const std::vector<std::string>& header) {
  switch (format) {
    case Format::table: write_table(out, rows, columns, header); break;
    case Format::csv: write_csv(out, rows, columns); break;
    case Format::json: write_json(out, rows, columns); break;
  }
}

std::string auto_choices(const std::vector<std::string>& algos,
                         const std::vector<std::size_t>& sizes, const Dims& dims,
                         const CostParams& costs, const Options& options,
                         const std::string& basis) {
  if (std::find(algos.begin(), algos.end(), "auto") == algos.end() || sizes.empty()) return "";
  // Runs of consecutive sizes with the same choice: "rhd for 8..512K".
  std::string out = "auto picks (cost model, " + basis + "):";
  std::size_t first = 0;
  for (std::size_t i = 1; i <= sizes.size(); ++i) {
    const std::string pick = best_allreduce(dims, costs, sizes[first], options);
    if (i < sizes.size() && best_allreduce(dims, costs, sizes[i], options) == pick) continue;
    out += (first ? ", " : " ") + pick + " for " + format_size(sizes[first]) +
           (i - 1 > first ? ".." + format_size(sizes[i - 1]) : "");
    first = i;
  }
  return out;
}

}  // namespace ddl::harness
