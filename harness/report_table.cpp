#include "harness/report_table.hpp"

#include <algorithm>
#include <cstdio>

#include "algorithms/error.hpp"
#include "harness/format.hpp"

namespace ddl::harness {

namespace {

// Right-aligned in `width` columns (never truncated).
std::string pad(const std::string& text, std::size_t width) {
  return text.size() >= width ? text : std::string(width - text.size(), ' ') + text;
}

// One block per algorithm: time algbw busbw [model] #wrong; then, with the baseline, one
// MPI_Allreduce block per size (the same measurement for every algorithm of that size). Cells
// appended one by one: GCC 12 warns (-Wrestrict) on a chain of `" " + std::string`.
void cell(std::string& line, const std::string& text, std::size_t width) {
  line += ' ';
  line += pad(text, width);
}

std::string block(const Columns& c, bool units) {
  std::string b;
  cell(b, units ? "(us)" : "time", 12);
  cell(b, units ? "(GB/s)" : "algbw", 8);
  cell(b, units ? "(GB/s)" : "busbw", 8);
  if (c.model) cell(b, units ? "(us)" : "model", 12);
  cell(b, units ? "" : "#wrong", 8);
  return b;
}

std::string mpi_block(bool units) {
  std::string b;
  cell(b, units ? "(us)" : "time", 12);
  cell(b, units ? "(GB/s)" : "busbw", 8);
  return b;
}

}  // namespace

TableLines::TableLines(std::ostream& out, const Columns& columns,
                       const std::vector<std::string>& algos)
    : out_(out), columns_(columns) {
  // One block per algorithm, however often it was asked for (--algo ring,ring).
  for (const std::string& a : algos)
    if (std::find(algos_.begin(), algos_.end(), a) == algos_.end()) algos_.push_back(a);
  char buf[256];
  std::snprintf(buf, sizeof buf, "#%11s %13s %9s %7s %9s", "size", "count", "type", "redop",
                "dims");
  std::string titles = buf;
  std::snprintf(buf, sizeof buf, "#%11s %13s %9s %7s %9s", "(B)", "(elements)", "", "", "");
  std::string units = buf;
  block_width_ = block(columns_, false).size();
  std::string names(titles.size(), ' ');
  names[0] = '#';
  for (const std::string& a : algos_) {
    names += pad(a + " ", block_width_);
    titles += block(columns_, false);
    units += block(columns_, true);
  }
  if (columns_.mpi) {
    names += pad(columns_.mpi_name + " ", mpi_block(false).size());
    titles += mpi_block(false);
    units += mpi_block(true);
  }
  out_ << names << '\n' << titles << '\n' << units << '\n';
}

void TableLines::add(const Row& row) {
  DDL_CHECK(std::find(algos_.begin(), algos_.end(), row.algo) != algos_.end(),
            "report row of an algorithm the table has no block for: " + row.algo);
  const Key k{row.bytes, row.type, row.op, row.dims};
  if (!cells_.count(k)) pending_.push_back(k);
  cells_[k][row.algo] = row;
  busbw_sum_[row.algo].first += row.busbw_gbs;
  busbw_sum_[row.algo].second += 1;
  // Lines go out in first-appearance order: the earliest size waits for its last algorithm.
  while (!pending_.empty() && cells_[pending_.front()].size() == algos_.size()) {
    print(pending_.front());
    pending_.erase(pending_.begin());
  }
}

void TableLines::print(const Key& k) {
  const std::map<std::string, Row>& cells = cells_[k];
  const Row& any = cells.begin()->second;
  char buf[256];
  std::snprintf(buf, sizeof buf, " %11zu %13zu %9s %7s %9s", any.bytes, any.count,
                std::string(to_string(any.type)).c_str(), std::string(to_string(any.op)).c_str(),
                any.dims.c_str());
  std::string line = buf;
  const Row* baseline = nullptr;  // any row of this size that carries the measurement
  for (const std::string& a : algos_) {
    const auto it = cells.find(a);
    if (it == cells.end()) {
      line += pad("-", block_width_);
      continue;
    }
    const Row& r = it->second;
    std::snprintf(buf, sizeof buf, " %12.2f %8.2f %8.2f", r.time_s * 1e6, r.algbw_gbs, r.busbw_gbs);
    line += buf;
    if (columns_.model) cell(line, r.model_s ? printed("%12.2f", *r.model_s * 1e6) : "N/A", 12);
    cell(line, r.wrong ? std::to_string(*r.wrong) : "N/A", 8);
    if (r.mpi_time_s && !baseline) baseline = &r;
  }
  if (columns_.mpi) {
    cell(line, baseline ? printed("%12.2f", *baseline->mpi_time_s * 1e6) : "N/A", 12);
    cell(line,
         baseline && baseline->mpi_busbw_gbs ? printed("%8.2f", *baseline->mpi_busbw_gbs) : "N/A",
         8);
  }
  out_ << line << '\n';
  out_.flush();
  cells_.erase(k);
}

void TableLines::finish() {
  for (const Key& k : pending_) print(k);
  pending_.clear();
  for (const std::string& a : algos_)
    if (busbw_sum_[a].second)
      out_ << "# " << a << ": avg bus bandwidth "
           << printed("%.3f", busbw_sum_[a].first / busbw_sum_[a].second) << " GB/s\n";
}

}  // namespace ddl::harness
