#include "harness/report_nccl.hpp"

#include <cstdio>

#include "algorithms/error.hpp"
#include "algorithms/registry.hpp"
#include "harness/format.hpp"

namespace ddl::harness {

namespace {

// nccl-tests' title lines, column for column.
constexpr const char* kTitles[] = {
    "#                                                              out-of-place                  "
    "     in-place          ",
    "#       size         count      type   redop    root     time   algbw   busbw #wrong     time "
    "  algbw   busbw #wrong",
    "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us) "
    " (GB/s)  (GB/s)       ",
};

// nccl-tests' time cell: fewer decimals as the time grows, 7 wide.
std::string time_cell(double us) {
  return printed(us >= 10000.0 ? "%7.0f" : us >= 100.0 ? "%7.1f" : "%7.2f", us);
}

// One placement's group: time algbw busbw #wrong, or dashes where it was not run.
std::string group(const Row* r) {
  char buf[96];
  if (r == nullptr) {
    std::snprintf(buf, sizeof buf, "  %7s  %6s  %6s  %5s", "-", "-", "-", "-");
  } else {
    const std::string wrong = r->wrong ? std::to_string(*r->wrong) : "N/A";
    std::snprintf(buf, sizeof buf, "  %7s  %6.2f  %6.2f  %5s", time_cell(r->time_s * 1e6).c_str(),
                  r->algbw_gbs, r->busbw_gbs, wrong.c_str());
  }
  return buf;
}

bool reduces(Collective c) {
  return c == Collective::allreduce || c == Collective::reduce_scatter || c == Collective::reduce;
}

bool rooted(Collective c) {
  return c == Collective::broadcast || c == Collective::reduce || c == Collective::gather ||
         c == Collective::scatter;
}

}  // namespace

std::string nccl_line(const Row* out_of_place, const Row* in_place) {
  const Row& any = out_of_place ? *out_of_place : *in_place;
  const Collective c = find_algorithm(any.algo).collective;
  char buf[128];
  std::snprintf(buf, sizeof buf, "%12zu  %12zu  %8s  %6s  %6d", any.bytes, any.count,
                std::string(to_string(any.type)).c_str(),
                reduces(c) ? std::string(to_string(any.op)).c_str() : "none",
                rooted(c) ? any.root : -1);
  // Appended one by one: GCC 12 warns (-Wrestrict) on a chain of `char* + std::string`.
  std::string line = buf;
  line += group(out_of_place);
  line += group(in_place);
  return line;
}

NcclLines::NcclLines(std::ostream& out, const std::vector<std::string>& algos) : out_(out) {
  DDL_CHECK(algos.size() == 1, "nccl-tests' table holds one algorithm");
  out_ << "#\n";
  for (const char* line : kTitles) out_ << line << '\n';
}

void NcclLines::add(const Row& row) {
  if (!cells_.count(row.bytes)) pending_.push_back(row.bytes);
  auto& cell = row.out_of_place ? cells_[row.bytes].first : cells_[row.bytes].second;
  cell = row;
  busbw_sum_ += row.busbw_gbs;
  ++busbw_count_;
  if (row.wrong) {
    checked_ = true;
    wrong_ += *row.wrong;
  }
  // Lines go out in first-appearance order, each once both its placements are in.
  while (!pending_.empty() && cells_[pending_.front()].first && cells_[pending_.front()].second) {
    print(pending_.front());
    pending_.erase(pending_.begin());
  }
}

void NcclLines::print(std::size_t bytes) {
  const auto& [out_of_place, in_place] = cells_[bytes];
  out_ << nccl_line(out_of_place ? &*out_of_place : nullptr, in_place ? &*in_place : nullptr)
       << '\n';
  out_.flush();
  cells_.erase(bytes);
}

void NcclLines::finish() {
  for (std::size_t bytes : pending_) print(bytes);
  pending_.clear();
  out_ << "# Out of bounds values : "
       << (checked_ ? std::to_string(wrong_) + (wrong_ == 0 ? " OK" : " FAILED")
                    : std::string("N/A (not checked: -c checks)"))
       << '\n';
  out_ << "# Avg bus bandwidth    : "
       << printed("%g", busbw_count_ ? busbw_sum_ / busbw_count_ : 0.0) << " \n#\n";
}

}  // namespace ddl::harness
