// Payload mode moves and reduces real bytes: every registered algorithm must produce the exact
// result (#wrong = 0) on a star and on the S822LC model, for every dtype and reduction, at
// counts below, at and above the rank count.
#include <catch2/catch.hpp>

#include "algorithms/registry.hpp"
#include "child_process.hpp"

using namespace ddl::test;

namespace {

// Every registered algorithm but those that need ranks sharing memory (direct) or switches that
// reduce (nvls, sharp), which the platforms below do not have; they have tests of their own.
std::vector<std::string> every_algorithm() {
  std::vector<std::string> names;
  for (const ddl::Algorithm& a : ddl::algorithms())
    if (!a.needs_shared_memory && !a.needs_in_switch && !a.needs_native_library)
      names.push_back(a.name);
  return names;
}

std::string joined(const std::vector<std::string>& names) {
  std::string list;
  for (const std::string& n : names) list += (list.empty() ? "" : ",") + n;
  return list;
}

// Element counts 1, 5, 25, ..., 78125 (odd, and both below and above p) of the type in `args`:
// sizes are whole elements (ddlsim refuses others).
void check_exact(const std::string& args,
                 const std::vector<std::string>& algos = every_algorithm()) {
  std::size_t elem = 4;
  for (const auto& [name, bytes] :
       {std::pair{"double", 8}, {"int64", 8}, {"half", 2}, {"bfloat16", 2}})
    if (args.find(std::string("-d ") + name) != std::string::npos) elem = bytes;
  const std::string sizes =
      " -b " + std::to_string(elem) + " -e " + std::to_string(elem * 78125) + " -f 5";
  const ChildResult r = run_child(ddlsim() + " --format csv --check" + sizes + " --algo " +
                                  joined(algos) + " " + args);
  INFO(args << "\n" << r.err);
  REQUIRE(r.exit_code == 0);
  const auto rows = parse_csv(r.out);
  CHECK(rows.size() == 8 * algos.size());
  for (const auto& row : rows) {
    INFO(row.at("algo") << " " << row.at("size") << " B " << row.at("type") << " "
                        << row.at("redop"));
    CHECK(row.at("wrong") == "0");
  }
}

const std::vector<std::string> kTypeOps = {
    "-d float -o sum", "-d double -o min", "-d half -o prod", "-d bfloat16 -o avg",
    "-d int32 -o max", "-d int64 -o sum",  "-d half -o avg"};

}  // namespace

TEST_CASE("payload mode is exact for every algorithm on a star", "[sim][payload]") {
  for (const std::string& to : kTypeOps)
    check_exact("--platform " + fixture("star_8.xml") + " " + to);
}

TEST_CASE("payload mode is exact for direct among the GPUs of one node", "[sim][payload]") {
  // Four GPUs whose hosts carry one ddl_node, so get/put reach every peer.
  for (const std::string& to : kTypeOps)
    check_exact("--platform " + fixture("one_node_4.xml") + " " + to, {"direct"});
  check_exact("--platform " + fixture("one_node_4.xml") + " --segment 8 -d float -o sum",
              {"direct"});
}

TEST_CASE("direct refuses ranks of different nodes, naming them", "[sim][payload]") {
  const ChildResult r =
      run_child(ddlsim() + " --algo direct -b 1K -e 1K --platform " + platform("s822lc_2.xml"));
  CHECK(r.exit_code != 0);
  CHECK_THAT(r.err, Catch::Contains("do not share memory"));
}

TEST_CASE("payload mode is exact on a star over every grid shape", "[sim][payload]") {
  for (const char* dims : {"2x4", "4x2", "2x2x2"})
    check_exact("--platform " + fixture("star_8.xml") + " --dims " + dims + " -d float -o sum");
}

TEST_CASE("payload mode is exact with several rings and segments", "[sim][payload]") {
  check_exact("--platform " + fixture("rail_4x4.xml") + " --rings 3 --segment 1K -d float -o sum");
}

TEST_CASE("payload mode is exact for ring's channels and ddl's pipelined chunks",
          "[sim][payload]") {
  // No commas inside a name: the csv reader here does not unquote.
  const std::vector<std::string> algos = {"ring:channels=4", "ring:channels=3", "ddl:4x4:chunks=3"};
  for (const std::string& to : {"-d float -o sum", "-d half -o avg", "-d int32 -o max"})
    check_exact("--platform " + fixture("rail_4x4.xml") + " " + to, algos);
  check_exact("--platform " + fixture("rail_4x4.xml") + " --segment 1K -d float -o sum", algos);
  check_exact("--platform " + fixture("rail_4x4.xml") + " --rings 2 -d float -o sum",
              {"ddl:4x4:chunks=4"});
}

TEST_CASE("payload mode is exact for every algorithm on s822lc_2", "[sim][payload]") {
  for (const std::string& to : kTypeOps)
    check_exact("--platform " + platform("s822lc_2.xml") + " " + to);
}
