// The nccl format against nccl-tests' own layout: its title lines verbatim, each size's line
// field by field as nccl-tests' log parsers split it, and the closing lines.
#include <catch2/catch.hpp>
#include <regex>
#include <sstream>

#include "harness/report.hpp"
#include "harness/report_nccl.hpp"

using namespace ddl::harness;

namespace {

Row row(const std::string& algo, std::size_t bytes, double time_s, bool out_of_place,
        std::optional<std::size_t> wrong, int ranks = 4) {
  Row r = make_row(bytes, ddl::DType::float32, ddl::ReduceOp::sum, algo, "4", time_s, ranks);
  r.out_of_place = out_of_place;
  r.wrong = wrong;
  r.root = 2;
  return r;
}

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

// The line pattern nccl-tests' log parsers use: 5 fields, then 4 per placement.
const std::regex kLine(
    R"(^\s*(\d+)\s+(\d+)\s+(\w+)\s+(\w+)\s+(-?\d+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+(\S+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+(\S+)$)");

}  // namespace

TEST_CASE("nccl: one line per size in nccl-tests' widths and digits", "[harness]") {
  // 1 MiB in 52.25 us: algbw 20.07 GB/s, busbw 2 * 3/4 of it on 4 ranks.
  const Row out = row("ring", 1 << 20, 52.25e-6, true, 0);
  const Row in = row("ring", 1 << 20, 1234.56e-6, false, 3);
  CHECK(nccl_line(&out, &in) ==
        "     1048576        262144     float     sum      -1    52.25   20.07   30.10      0"
        "   1234.6    0.85    1.27      3");
  // Past 10 ms no decimals; a collective that does not reduce says "none", a rooted one its root.
  const Row big = row("broadcast_binomial", 1 << 30, 0.0123456, false, std::nullopt);
  CHECK(nccl_line(nullptr, &big) ==
        "  1073741824     268435456     float    none       2        -       -       -      -"
        "    12346   86.97   86.97    N/A");
  const Row a2a = row("alltoall_pairwise", 4096, 1e-6, true, std::nullopt);
  CHECK(nccl_line(&a2a, &a2a).substr(0, 52) ==
        "        4096          1024     float    none      -1");
}

TEST_CASE("nccl: titles, lines in size order once both placements are in, closing lines",
          "[harness]") {
  std::ostringstream out;
  {
    ReportWriter w(out, Format::nccl, {}, RunInfo{}, {"ring"});
    w.add(row("ring", 1024, 10e-6, true, 0));
    w.add(row("ring", 1024, 8e-6, false, 0));
    w.add(row("ring", 2048, 20e-6, true, 0));
    w.add(row("ring", 2048, 16e-6, false, 2));
    w.finish();
  }
  const std::vector<std::string> l = lines(out.str());
  std::vector<std::string> titles, data, closing;
  bool seen_data = false;
  for (const std::string& line : l) {
    if (line.rfind('#', 0) != 0) {
      data.push_back(line);
      seen_data = true;
    } else {
      (seen_data ? closing : titles).push_back(line);
    }
  }
  REQUIRE(titles.size() >= 3);
  CHECK(titles[titles.size() - 2] ==
        "#       size         count      type   redop    root     time   algbw   busbw #wrong     "
        "time   algbw   busbw #wrong");
  CHECK(titles.back().rfind("#        (B)    (elements)", 0) == 0);
  CHECK(titles[titles.size() - 3].find("out-of-place") == 63);
  REQUIRE(data.size() == 2);
  std::smatch m;
  REQUIRE(std::regex_match(data[0], m, kLine));
  CHECK(m[1] == "1024");
  CHECK(m[6] == "10.00");
  CHECK(m[10] == "8.00");
  REQUIRE(std::regex_match(data[1], m, kLine));
  CHECK(m[1] == "2048");
  CHECK(m[13] == "2");
  // busbw of 4 rows: 1024 B / 10 us = 0.1024 GB/s algbw, busbw 1.5x; the mean of the four.
  const double mean = 1.5 * (0.1024 + 0.128 + 0.1024 + 0.128) / 4;
  REQUIRE(closing.size() == 3);
  CHECK(closing[0] == "# Out of bounds values : 2 FAILED");
  std::ostringstream expected;
  expected << "# Avg bus bandwidth    : " << printed("%g", mean) << " ";
  CHECK(closing[1] == expected.str());
  CHECK(closing[2] == "#");
}

TEST_CASE("nccl: nothing checked says so instead of 0 OK", "[harness]") {
  std::ostringstream out;
  write_report(
      out, Format::nccl,
      {row("ring", 8, 1e-6, true, std::nullopt), row("ring", 8, 1e-6, false, std::nullopt)}, {},
      RunInfo{});
  CHECK(out.str().find("# Out of bounds values : N/A") != std::string::npos);
}

TEST_CASE("out-of-place rows only in the nccl format", "[harness]") {
  std::ostringstream out;
  ReportWriter w(out, Format::table, {}, RunInfo{}, {"ring"});
  CHECK_THROWS(w.add(row("ring", 8, 1e-6, true, 0)));
}
