// ddlsim as a user meets it: defaults, formats, and one clear message per bad input.
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "child_process.hpp"

using namespace ddl::test;

namespace {
void check_rejected(const std::string& args, const std::string& names) {
  check_rejected_command(ddlsim() + " " + args, names);
}
}  // namespace

TEST_CASE("no arguments: ddl on s822lc_64 from 8 B to 256 MB as a table", "[sim][scale][cli]") {
  // Run from elsewhere: the default platform is found through the source tree.
  const ChildResult r = run_child("cd / && " + ddlsim());
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const auto lines = split(r.out, '\n');
  REQUIRE(lines.size() > 26);
  CHECK(r.out.find("\n# ddlsim: platform ") != std::string::npos);
  CHECK(r.out.find("s822lc_64.xml, 256 GPUs") != std::string::npos);
  std::size_t rows = 0;
  for (const std::string& l : lines)
    if (!l.empty() && l[0] != '#') {
      ++rows;
      CHECK(l.find("4x8x8") != std::string::npos);
    }
  CHECK(rows == 26);
  CHECK(r.out.find("\n           8 ") != std::string::npos);
  CHECK(r.out.find(" 268435456 ") != std::string::npos);
}

TEST_CASE(
    "csv: the run's metadata, then the header every tool writes, and --algo all gives every "
    "allreduce",
    "[sim][cli]") {
  const ChildResult r = run_child(ddlsim() + " --format csv --algo all -b 1K -e 1K --platform " +
                                  fixture("star_8.xml"));
  REQUIRE(r.exit_code == 0);
  const auto lines = split(r.out, '\n');
  REQUIRE(lines.size() >= 9);
  CHECK(lines[0] == "# tool = ddlsim");
  CHECK(lines[1].rfind("# version = ", 0) == 0);
  CHECK(lines[2] ==
        "# arguments = --format csv --algo all -b 1K -e 1K --platform " + fixture("star_8.xml"));
  CHECK(lines[3] == "# platform = " + fixture("star_8.xml"));
  CHECK(lines[4] == "# ranks = 8");
  const auto header = std::find_if(lines.begin(), lines.end(),
                                   [](const std::string& l) { return l.rfind('#', 0) != 0; });
  REQUIRE(header != lines.end());
  CHECK(*header ==
        "size,count,type,redop,algo,dims,time_us,algbw_gbs,busbw_gbs,model_us,wrong,mpi_time_us,"
        "mpi_busbw_gbs,chosen");
  const auto rows = parse_csv(r.out);
  std::vector<std::string> algos;
  for (const auto& row : rows) algos.push_back(row.at("algo"));
  CHECK(algos == std::vector<std::string>{"ring", "ddl", "rhd", "rd", "dbtree", "hier"});
  for (const auto& row : rows) {
    CHECK(row.at("wrong").empty());  // not checked without --check
    CHECK(row.at("mpi_time_us").empty());
    CHECK(row.at("chosen") == row.at("algo"));
  }
}

TEST_CASE("coll: every collective's algorithms exact in payload mode with nccl-tests' busbw",
          "[sim][cli]") {
  // busbw / algbw by collective on 8 ranks (nccl-tests): (p-1)/p, or 1 for the rooted and
  // point-to-point ones.
  const std::vector<std::pair<std::string, double>> colls = {
      {"alltoall", 7.0 / 8}, {"gather", 7.0 / 8}, {"scatter", 7.0 / 8}, {"reducescatter", 7.0 / 8},
      {"reduce", 1},         {"sendrecv", 1},     {"broadcast", 1}};
  for (const auto& [coll, factor] : colls) {
    INFO(coll);
    const ChildResult r = run_child(
        ddlsim() + " --coll " + coll +
        " --algo all -r 5 -c -b 4 -e 1M -f 64 --format csv --platform " + fixture("star_8.xml"));
    REQUIRE(r.exit_code == 0);
    const auto rows = parse_csv(r.out);
    REQUIRE(rows.size() >= 4);
    for (const auto& row : rows) {
      INFO(row.at("algo") << " " << row.at("size"));
      CHECK(row.at("wrong") == "0");
      const double algbw = std::stod(row.at("algbw_gbs")), busbw = std::stod(row.at("busbw_gbs"));
      if (algbw > 0.1) CHECK(busbw == Approx(algbw * factor).epsilon(0.02));
    }
  }
}

TEST_CASE("each collective's auto runs the fastest of its algorithms at every size", "[sim][cli]") {
  // On 4 DGX H100 the contention-aware model prices these algorithms as simulated, so auto's row
  // must be the fastest row of its size, run by the algorithm its chosen cell names.
  for (const std::string coll : {"reducescatter", "allgather", "broadcast", "alltoall", "reduce"}) {
    INFO(coll);
    const ChildResult r = run_child(ddlsim() + " --coll " + coll +
                                    " --algo all -b 1K -e 1G -f 32 --format csv --platform " +
                                    platform("dgx_h100_4.xml"));
    const ChildResult a = run_child(ddlsim() + " --coll " + coll +
                                    " --algo auto -b 1K -e 1G -f 32 --format csv --platform " +
                                    platform("dgx_h100_4.xml"));
    REQUIRE(r.exit_code == 0);
    REQUIRE(a.exit_code == 0);
    std::map<std::string, std::map<std::string, double>> times;  // size -> algo -> us
    for (const auto& row : parse_csv(r.out))
      times[row.at("size")][row.at("algo")] = std::stod(row.at("time_us"));
    const auto autos = parse_csv(a.out);
    REQUIRE(autos.size() == 5);
    std::set<std::string> picks;
    for (const auto& row : autos) {
      INFO(row.at("size") << " " << row.at("chosen"));
      const auto& at_size = times.at(row.at("size"));
      double fastest = at_size.begin()->second;
      for (const auto& [algo, us] : at_size) fastest = std::min(fastest, us);
      CHECK(std::stod(row.at("time_us")) == Approx(at_size.at(row.at("chosen"))).epsilon(1e-9));
      CHECK(std::stod(row.at("time_us")) == Approx(fastest).epsilon(1e-6));
      picks.insert(row.at("chosen"));
    }
    if (coll == "broadcast") CHECK(picks.size() == 2);  // binomial when small, chain when large
  }
}

TEST_CASE("auto rows: each names the algorithm auto ran, in csv and json", "[sim][cli]") {
  // The plan the table states ("auto picks ...") is what each row's chosen cell says.
  const std::string run =
      ddlsim() + " --algo auto -b 1K -e 16M -f 16 --platform " + platform("s822lc_2.xml");
  const ChildResult csv = run_child(run + " --format csv");
  REQUIRE(csv.exit_code == 0);
  const auto rows = parse_csv(csv.out);
  REQUIRE(rows.size() == 4);
  for (const auto& row : rows) {
    CHECK(row.at("algo") == "auto");
    CHECK_FALSE(row.at("chosen").empty());
    CHECK(row.at("chosen") != "auto");
  }
  const auto at = csv.out.find("# auto picks (contention-aware cost model, platform routes):");
  REQUIRE(at != std::string::npos);
  const std::string line = csv.out.substr(at, csv.out.find('\n', at) - at);
  for (const auto& row : rows)
    CHECK(line.find(" " + row.at("chosen") + " for ") != std::string::npos);
  const ChildResult json = run_child(run + " --format json");
  REQUIRE(json.exit_code == 0);
  const auto j = nlohmann::json::parse(json.out);
  REQUIRE(j["rows"].size() == rows.size());
  for (std::size_t i = 0; i < rows.size(); ++i)
    CHECK(j["rows"][i]["chosen"] == rows[i].at("chosen"));
  CHECK(j["metadata"]["tool"] == "ddlsim");
  CHECK(j["metadata"]["platform"] == platform("s822lc_2.xml"));
}

TEST_CASE("rows are printed as they finish: a failing case leaves the rows before it",
          "[sim][cli]") {
  // ddl:2x2 cannot run on 8 GPUs; it fails at its first case, after ring's first.
  const ChildResult r = run_child(ddlsim() + " --format csv --algo ring,ddl:2x2 -b 1K -e 4K " +
                                  "--platform " + platform("s822lc_2.xml"));
  CHECK(r.exit_code != 0);
  CHECK(r.err.find("'2x2' describe 4 ranks") != std::string::npos);
  const auto rows = parse_csv(r.out);
  REQUIRE(rows.size() == 1);
  CHECK(rows[0].at("algo") == "ring");
  CHECK(rows[0].at("size") == "1024");
}

TEST_CASE("table puts every algorithm side by side", "[sim][cli]") {
  const ChildResult r =
      run_child(ddlsim() + " --algo all -b 1K -e 4K --platform " + fixture("star_8.xml"));
  REQUIRE(r.exit_code == 0);
  std::size_t rows = 0;
  for (const std::string& l : split(r.out, '\n'))
    if (!l.empty() && l[0] != '#') ++rows;
  CHECK(rows == 3);
  for (const char* a : {" ring", " ddl", " rhd", " dbtree", " hier"})
    CHECK(r.out.find(a) != std::string::npos);
}

TEST_CASE("json output is one object: the metadata and the rows", "[sim][cli]") {
  const ChildResult r =
      run_child(ddlsim() + " --format json --check --algo ring -b 1K -e 2K --platform " +
                fixture("star_8.xml"));
  REQUIRE(r.exit_code == 0);
  const auto j = nlohmann::json::parse(r.out);
  CHECK(j["metadata"]["ranks"] == "8");
  CHECK(j["metadata"]["header"][0].get<std::string>().rfind("ddlsim: platform ", 0) == 0);
  const auto& rows = j["rows"];
  REQUIRE(rows.size() == 2);
  CHECK(rows[1]["size"] == 2048);
  CHECK(rows[1]["wrong"] == 0);
  CHECK(rows[1]["time_us"].get<double>() > 0);
  CHECK(rows[1]["mpi_time_us"].is_null());
}

TEST_CASE("help shows the flags and examples", "[sim][cli]") {
  const ChildResult r = run_child(ddlsim() + " --help");
  CHECK(r.exit_code == 0);
  for (const char* s :
       {"--minbytes", "--maxbytes", "--stepfactor", "--dtype", "--op", "--iters", "--warmup",
        "--check", "--algo", "--dims", "--platform", "--format", "Examples"})
    CHECK(r.out.find(s) != std::string::npos);
}

TEST_CASE("each bad input is one clear message and a non-zero exit", "[sim][cli]") {
  check_rejected("--platform /nonexistent/none.xml", "'/nonexistent/none.xml' does not exist");
  check_rejected("--platform " + fixture("malformed.xml"), "is malformed");
  check_rejected("--platform " + fixture("no_hosts.xml"), "has no hosts");
  check_rejected("--platform " + fixture("star_8.xml") + " --dims 4x4", "'4x4' describe 16 ranks");
  check_rejected("--platform " + fixture("star_8.xml") + " --dims 4x4", "has 8 GPUs");
  check_rejected("--platform " + fixture("star_8.xml") + " --dims 4y2", "bad dims '4y2'");
  check_rejected("--platform " + fixture("star_8.xml") + " --algo nosuch",
                 "unknown algorithm 'nosuch'");
  check_rejected("--platform " + fixture("star_8.xml") + " -b 12Q", "bad size '12Q'");
  check_rejected("--platform " + fixture("star_8.xml") + " -e 1.5M", "bad size '1.5M'");
  check_rejected("--platform " + fixture("star_8.xml") + " -b 1M -e 1K", "--minbytes");
  check_rejected("--platform " + fixture("star_8.xml") + " -d float7", "float7");
  check_rejected("--platform " + fixture("star_8.xml") + " --format xml", "'xml'");
  check_rejected("--platform " + fixture("star_8.xml") + " --no-such-flag", "no-such-flag");
}

TEST_CASE("ddl's exchange per dimension comes from --methods", "[sim][cli]") {
  const auto time_with = [](const std::string& methods) {
    const ChildResult r =
        run_child(ddlsim() + " --platform " + platform("star_16.xml") +
                  " --algo ddl --dims 4x4 -b 1M -e 1M --format csv --methods " + methods);
    INFO(methods << "\nstderr: " << r.err);
    REQUIRE(r.exit_code == 0);
    const auto rows = parse_csv(r.out);
    REQUIRE(rows.size() == 1);
    return rows[0].at("time_us");
  };
  // Halving-doubling in the second dimension takes 2 steps each way where a ring of 4 takes 3.
  CHECK(time_with("ring,ring") != time_with("ring,hd"));
  CHECK(time_with("hd,hd") != time_with("ring,hd"));
  check_rejected("--platform " + platform("star_16.xml") + " --algo ddl --dims 4x4 --methods ring",
                 "--methods gives 1 method(s) but dims '4x4' have 2 dimension(s)");
  check_rejected("--methods ring,tree", "unknown method 'tree'");
}

TEST_CASE("nccl-tests' -c 0 leaves checking off and -c 1 turns it on", "[sim][cli]") {
  const auto wrong_cell = [](const std::string& check) {
    const ChildResult r = run_child(ddlsim() + " --format csv --algo ring -b 1K -e 1K --platform " +
                                    fixture("star_8.xml") + " " + check);
    INFO(check << "\nstderr: " << r.err);
    REQUIRE(r.exit_code == 0);
    const auto rows = parse_csv(r.out);
    REQUIRE(rows.size() == 1);
    return rows[0].at("wrong");
  };
  CHECK(wrong_cell("-c 0").empty());  // it used to be a stray argument after a switch: checking on
  CHECK(wrong_cell("-c 1") == "0");
  CHECK(wrong_cell("-c") == "0");
  CHECK(wrong_cell("").empty());
}

TEST_CASE("a stray argument is refused instead of running the default platform", "[sim][cli]") {
  check_rejected(platform("s822lc_2.xml"),
                 "unexpected argument '" + platform("s822lc_2.xml") + "'");
}

TEST_CASE("a run that fails leaves the previous --trace file as it was", "[sim][cli][trace]") {
  const std::string dir =
      (std::filesystem::temp_directory_path() / ("ddlsim_keep_" + std::to_string(::getpid())))
          .string();
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::string trace = dir + "/t.csv";
  std::ofstream(trace) << "previous\n";
  // The trace file is opened (so a bad path fails at once), then the grid does not fit.
  const ChildResult r =
      run_child(ddlsim() + " --platform " + fixture("star_8.xml") + " --dims 3 --trace " + trace);
  CHECK(r.exit_code != 0);
  CHECK(r.err.find("has 8 GPUs") != std::string::npos);
  std::ifstream in(trace);
  std::string line;
  std::getline(in, line);
  CHECK(line == "previous");  // it used to be truncated to 0 bytes
  std::size_t entries = 0;    // and no temporary file is left beside it
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir)) ++entries;
  CHECK(entries == 1);
  std::filesystem::remove_all(dir);
}
