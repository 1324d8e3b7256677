#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <sstream>

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
std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}
}  // namespace

TEST_CASE("rows derive count and bandwidths", "[harness]") {
  const Row r = sample(false)[0];
  CHECK(r.count == 262144);
  CHECK(r.algbw_gbs == Approx(1.048576));
  CHECK(r.busbw_gbs == Approx(1.048576 * 2 * 7 / 8));
  CHECK(make_row(8, ddl::DType::float32, ddl::ReduceOp::sum, "ring", "8", 0, 8).busbw_gbs == 0);
  CHECK(bus_bandwidth_gbs(1000, 1e-6, "allgather", 4) == Approx(0.75));
}

TEST_CASE("csv headers are exact for both tools", "[harness]") {
  CHECK(csv_header({true, false}) ==
        "size,count,type,redop,algo,dims,time_us,algbw_gbs,busbw_gbs,model_us,wrong");
  CHECK(csv_header({false, false}) ==
        "size,count,type,redop,algo,dims,time_us,algbw_gbs,busbw_gbs,wrong");
  CHECK(csv_header({false, true}) ==
        "size,count,type,redop,algo,dims,time_us,algbw_gbs,busbw_gbs,wrong,mpi_time_us,mpi_busbw_"
        "gbs");
}

TEST_CASE("csv rows: one per algorithm, empty optional cells", "[harness]") {
  std::ostringstream out;
  write_csv(out, sample(false), {true, false});
  const auto l = lines(out.str());
  REQUIRE(l.size() == 3);
  CHECK(l[1] == "1048576,262144,float,sum,ring,4x2,1000.000000,1.048576,1.835008,900.000000,");
  CHECK(l[2] == "1048576,262144,float,sum,ddl,4x2,500.000000,2.097152,3.670016,,");
}

TEST_CASE("csv quotes algorithm strings that hold commas", "[harness]") {
  std::ostringstream out;
  Row r = make_row(8, ddl::DType::float32, ddl::ReduceOp::sum, "ddl:4x2:ring,hd", "4x2", 1e-6, 8);
  write_csv(out, {r}, {false, false});
  const auto l = lines(out.str());
  REQUIRE(l.size() == 2);
  CHECK(l[1] == "8,2,float,sum,\"ddl:4x2:ring,hd\",4x2,1.000000,0.008000,0.014000,");
}

TEST_CASE("json is one array keyed by the csv columns", "[harness]") {
  std::ostringstream out;
  write_json(out, sample(true), {true, false});
  const auto j = nlohmann::json::parse(out.str());
  REQUIRE(j.is_array());
  REQUIRE(j.size() == 2);
  CHECK(j[0]["algo"] == "ring");
  CHECK(j[0]["time_us"].get<double>() == Approx(1000));
  CHECK(j[0]["model_us"].get<double>() == Approx(900));
  CHECK(j[1]["model_us"].is_null());
  CHECK(j[1]["wrong"] == 3);
  CHECK_FALSE(j[0].contains("mpi_time_us"));
}

TEST_CASE("table puts algorithms side by side, one line per size", "[harness]") {
  std::ostringstream out;
  write_table(out, sample(true), {true, false}, {"platform test.xml, 8 ranks"});
  const auto l = lines(out.str());
  REQUIRE(l.size() == 7);  // header, names, titles, units, one row, two averages
  CHECK(l[0] == "# platform test.xml, 8 ranks");
  CHECK(l[1].find("ring") < l[1].find("ddl"));
  CHECK(l[2].find("#wrong") != std::string::npos);
  CHECK(l[4].find("1048576") != std::string::npos);
  CHECK(l[4].find("1000.00") != std::string::npos);
  CHECK(l[4].find("500.00") != std::string::npos);
  CHECK(l[4].find("N/A") != std::string::npos);  // ddl has no model value here
  CHECK(l[5].rfind("# ring", 0) == 0);
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
  write_report(out, Format::table, rows, c, {});
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
