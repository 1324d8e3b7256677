#include <catch2/catch.hpp>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>

#include "algorithms/cost_model.hpp"
#include "algorithms/plan.hpp"
#include "harness/auto_choice.hpp"
#include "harness/report.hpp"

using namespace ddl::harness;

namespace {
std::vector<Row> sample(bool checked) {
  Row a = make_row(1 << 20, ddl::DType::float32, ddl::ReduceOp::sum, "ring", "4x2", 1e-3, 8);
  Row b = make_row(1 << 20, ddl::DType::float32, ddl::ReduceOp::sum, "ddl", "4x2", 5e-4, 8);
  a.model_s = 0.9e-3;
  if (checked) a.wrong = 0, b.wrong = 3;
  return {a, b};
}
RunInfo info() {
  const char* argv[] = {"ddlsim", "--algo", "ring,ddl", "--platform", "my platform.xml"};
  RunInfo i = run_info("ddlsim", 5, argv);
  i.add("platform", "test.xml");
  i.header = {"platform test.xml, 8 ranks"};
  return i;
}
std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}
// The lines that are not '#' comments: what pandas' read_csv(comment='#') reads.
std::vector<std::string> data_lines(const std::string& text) {
  std::vector<std::string> out;
  for (const std::string& l : lines(text))
    if (l.rfind('#', 0) != 0) out.push_back(l);
  return out;
}
}  // namespace

TEST_CASE("rows derive count and bandwidths", "[harness]") {
  const Row r = sample(false)[0];
  CHECK(r.count == 262144);
  CHECK(r.algbw_gbs == Approx(1.048576));
  CHECK(r.busbw_gbs == Approx(1.048576 * 2 * 7 / 8));
  CHECK(r.chosen == "ring");
  CHECK(make_row(8, ddl::DType::float32, ddl::ReduceOp::sum, "ring", "8", 0, 8).busbw_gbs == 0);
  CHECK(bus_bandwidth_gbs(1000, 1e-6, "allgather", 4) == Approx(0.75));
}

TEST_CASE("csv header: one schema for ddlsim and ddlrun, new columns at the end", "[harness]") {
  CHECK(csv_header() ==
        "size,count,type,redop,algo,dims,time_us,algbw_gbs,busbw_gbs,model_us,wrong,mpi_time_us,"
        "mpi_busbw_gbs,chosen");
}

TEST_CASE(
    "csv: the metadata as '#' lines, then the header and one row per algorithm, empty "
    "cells for what a tool has no value for",
    "[harness]") {
  std::ostringstream out;
  write_report(out, Format::csv, sample(false), {true, false}, info());
  const auto l = lines(out.str());
  REQUIRE(l.size() == 8);
  CHECK(l[0] == "# tool = ddlsim");
  CHECK(l[1] == std::string("# version = ") + version());
  CHECK(l[2] == "# arguments = --algo ring,ddl --platform 'my platform.xml'");
  CHECK(l[3] == "# platform = test.xml");
  CHECK(l[4] == "# platform test.xml, 8 ranks");
  CHECK(l[5] == csv_header());
  CHECK(l[6] ==
        "1048576,262144,float,sum,ring,4x2,1000.000000,1.048576,1.835008,900.000000,,,,ring");
  CHECK(l[7] == "1048576,262144,float,sum,ddl,4x2,500.000000,2.097152,3.670016,,,,,ddl");
  // What a reader gets back from the preamble.
  const auto fields = preamble_fields(out.str());
  REQUIRE(fields.size() == 4);
  CHECK(fields[2].second == "--algo ring,ddl --platform 'my platform.xml'");
}

TEST_CASE("csv: a measured row carries the baseline and wrong count, and auto's choice in chosen",
          "[harness]") {
  Row r = make_row(8, ddl::DType::float32, ddl::ReduceOp::sum, "auto", "2", 2e-6, 2);
  r.wrong = 0;
  r.mpi_time_s = 1e-6;
  r.mpi_busbw_gbs = 0.008;
  r.chosen = "ddl:4x2:ring,hd";
  std::ostringstream out;
  write_report(out, Format::csv, {r}, {false, true}, RunInfo{});
  const auto l = data_lines(out.str());
  REQUIRE(l.size() == 2);
  CHECK(l[1] ==
        "8,2,float,sum,auto,2,2.000000,0.004000,0.004000,,0,1.000000,0.008000,"
        "\"ddl:4x2:ring,hd\"");
}

TEST_CASE("csv quotes algorithm strings that hold commas", "[harness]") {
  std::ostringstream out;
  Row r = make_row(8, ddl::DType::float32, ddl::ReduceOp::sum, "ddl:4x2:ring,hd", "4x2", 1e-6, 8);
  write_report(out, Format::csv, {r}, {false, false}, RunInfo{});
  const auto l = data_lines(out.str());
  REQUIRE(l.size() == 2);
  CHECK(l[1] ==
        "8,2,float,sum,\"ddl:4x2:ring,hd\",4x2,1.000000,0.008000,0.014000,,,,,"
        "\"ddl:4x2:ring,hd\"");
}

TEST_CASE("json: a metadata object and the rows keyed by the csv columns", "[harness]") {
  std::ostringstream out;
  write_report(out, Format::json, sample(true), {true, false}, info(), {"a note"});
  const auto j = nlohmann::ordered_json::parse(out.str());
  REQUIRE(j.is_object());
  CHECK(j["metadata"]["tool"] == "ddlsim");
  CHECK(j["metadata"]["version"] == version());
  CHECK(j["metadata"]["platform"] == "test.xml");
  CHECK(j["metadata"]["header"] == nlohmann::json::array({"platform test.xml, 8 ranks"}));
  CHECK(j["metadata"]["notes"] == nlohmann::json::array({"a note"}));
  const auto& rows = j["rows"];
  REQUIRE(rows.size() == 2);
  std::string keys;
  for (const auto& [key, value] : rows[0].items()) keys += (keys.empty() ? "" : ",") + key;
  CHECK(keys == csv_header());
  CHECK(rows[0]["algo"] == "ring");
  CHECK(rows[0]["time_us"].get<double>() == Approx(1000));
  CHECK(rows[0]["model_us"].get<double>() == Approx(900));
  CHECK(rows[1]["model_us"].is_null());
  CHECK(rows[1]["wrong"] == 3);
  CHECK(rows[0]["mpi_time_us"].is_null());
  CHECK(rows[1]["chosen"] == "ddl");
}

TEST_CASE("table puts algorithms side by side, one line per size", "[harness]") {
  std::ostringstream out;
  write_report(out, Format::table, sample(true), {true, false}, info(), {"a note"});
  const auto l = lines(out.str());
  REQUIRE(l.size() == 12);  // metadata, header, names, titles, units, one row, averages, note
  CHECK(l[4] == "# platform test.xml, 8 ranks");
  CHECK(l[5].find("ring") < l[5].find("ddl"));
  CHECK(l[6].find("#wrong") != std::string::npos);
  CHECK(l[8].find("1048576") != std::string::npos);
  CHECK(l[8].find("1000.00") != std::string::npos);
  CHECK(l[8].find("500.00") != std::string::npos);
  CHECK(l[8].find("N/A") != std::string::npos);  // ddl has no model value here
  CHECK(l[9].rfind("# ring", 0) == 0);
  CHECK(l[11] == "# a note");
}

TEST_CASE(
    "report rows are printed as they finish: a csv row at once, a table line once every "
    "algorithm of its size is in",
    "[harness]") {
  const std::vector<Row> rows = sample(false);
  std::ostringstream csv;
  ReportWriter c(csv, Format::csv, {true, false}, RunInfo{}, {"ring", "ddl"});
  c.add(rows[0]);
  CHECK(data_lines(csv.str()).size() == 2);  // header and the ring row, before finish
  std::ostringstream table;
  ReportWriter t(table, Format::table, {true, false}, RunInfo{}, {"ring", "ddl"});
  const std::size_t titles = lines(table.str()).size();
  CHECK(titles == 3);  // names, titles, units: printed before any row
  t.add(rows[0]);
  CHECK(lines(table.str()).size() == titles);  // ddl of that size is still to come
  t.add(rows[1]);
  CHECK(lines(table.str()).size() == titles + 1);
  std::ostringstream json;
  ReportWriter j(json, Format::json, {true, false}, RunInfo{}, {"ring", "ddl"});
  j.add(rows[0]);
  CHECK(json.str().empty());  // one document: at finish
  j.finish();
  CHECK(nlohmann::json::parse(json.str())["rows"].size() == 1);
}

TEST_CASE("report table: the MPI baseline is one block per size, not one per algorithm",
          "[report]") {
  std::vector<Row> rows;
  for (const char* algo : {"ring", "ddl", "rhd"}) {
    Row r;
    r.bytes = 4096;
    r.count = 1024;
    r.algo = algo;
    r.dims = "2";
    r.time_s = 3e-6;
    r.mpi_time_s = 2.5e-6;
    r.mpi_busbw_gbs = 1.64;
    rows.push_back(r);
  }
  Columns c;
  c.mpi = true;
  std::ostringstream out;
  write_report(out, Format::table, rows, c, RunInfo{});
  const std::string text = out.str();
  INFO(text);
  const auto count = [&](const std::string& what) {
    std::size_t n = 0;
    for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1))
      ++n;
    return n;
  };
  CHECK(count("MPI_Allreduce") == 1);
  CHECK(count("2.50") == 1);  // the baseline time, once on the size's line
  CHECK(count("1.64") == 1);
  CHECK(count("3.00") == 3);  // each algorithm's own time
}

TEST_CASE("arguments are quoted so they paste back into a shell", "[harness]") {
  const char* argv[] = {"ddlsim", "-b", "1K", "--cfg", "network/model:LV08", "a b", "it's", ""};
  CHECK(quoted_arguments(8, argv) == "-b 1K --cfg network/model:LV08 'a b' 'it'\\''s' ''");
}

TEST_CASE(
    "chosen: auto's pick is the plan's entry, else the cost model's, and other rows name "
    "their own algorithm",
    "[harness]") {
  ddl::Options o;
  o.dims = ddl::Dims({4, 2});
  const ddl::CostParams uniform = ddl::uniform_costs(o.dims);
  CHECK(auto_choice(o, 8, 1 << 20, false, 0) == ddl::best_allreduce(o.dims, uniform, 1 << 20, o));
  ddl::Plan plan;
  plan.ranks = 8;
  plan.entries = {{0, 1023, "rd"}, {1024, std::size_t{1} << 40, "ring"}};
  o.plan = std::make_shared<const ddl::Plan>(plan);
  CHECK(auto_choice(o, 8, 512, false, 0) == "rd");
  CHECK(auto_choice(o, 8, 1 << 20, false, 0) == "ring");
  CHECK(algorithm_run("auto", o, 8, 512, false, 0) == "rd");
  CHECK(algorithm_run("ddl", o, 8, 512, false, 0) == "ddl");
}
