// In-switch reduction on the simulator (sim/switch_model.hpp): the switch's timeline against
// hand-computed times on round-figure fixtures, exact results in payload mode, refusals.
//
// The switch's timeline (algorithms/switch_chunks.hpp), with T = α + C β a chunk's way up or
// down and E = members · C / rate its reduction: chunk c goes up once chunk c-1 is up, down once
// reduced and once chunk c-1 is down. For n equal chunks an allreduce takes
//   (n + 1) T + E   when E <= T (the links set the pace: chunk c+1 goes up while c goes down),
//   2 T + n E       when E > T  (the switch's rate sets it),
// a reduce-scatter the same with the chunks of every block, an allgather (n + 1) T.
#include <catch2/catch.hpp>
#include <cmath>
#include <set>
#include <string>
#include <vector>

#include "child_process.hpp"

using namespace ddl::test;

namespace {

constexpr double kChunk = 1048576;  // the fixtures' ddl_switch_chunk
constexpr double kGamma = 3.0 / 100e9;

// Simulated and model seconds of each row of `ddlsim ... --format csv`, keyed by "algo/size".
std::map<std::string, std::pair<double, double>> simulate(const std::string& args) {
  const ChildResult r = run_child(ddlsim() + " --format csv " + args);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  std::map<std::string, std::pair<double, double>> times;
  for (const auto& row : parse_csv(r.out))
    times[row.at("algo") + "/" + row.at("size")] = {std::stod(row.at("time_us")) * 1e-6,
                                                    std::stod(row.at("model_us")) * 1e-6};
  return times;
}

// The timeline above for n chunks of `chunk` bytes.
double switch_time(double n, double chunk, double alpha, double beta, double reduce_s) {
  const double t = alpha + chunk * beta;
  return reduce_s <= t ? (n + 1) * t + reduce_s : 2 * t + n * reduce_s;
}

void check_both(const std::pair<double, double>& simulated_and_model, double expected) {
  INFO("simulated " << simulated_and_model.first << " s, model " << simulated_and_model.second
                    << " s, hand-computed " << expected << " s");
  CHECK(std::abs(simulated_and_model.first - expected) <= 1e-9 * expected);
  CHECK(std::abs(simulated_and_model.second - expected) <= 1e-9 * expected);
}

std::string sizes(std::size_t elem, std::size_t count) {
  const std::string b = std::to_string(elem * count);
  return " -b " + b + " -e " + b;
}

// Every row of `args` with --check has #wrong 0, and there are `rows` of them.
void check_exact(const std::string& args, std::size_t rows) {
  const ChildResult r = run_child(ddlsim() + " --format csv --check " + args);
  INFO(args << "\n" << r.err);
  REQUIRE(r.exit_code == 0);
  const auto parsed = parse_csv(r.out);
  CHECK(parsed.size() == rows);
  for (const auto& row : parsed) {
    INFO(row.at("algo") << " " << row.at("size") << " B " << row.at("type") << " "
                        << row.at("redop"));
    CHECK(row.at("wrong") == "0");
  }
}

}  // namespace

TEST_CASE("nvls on one switch: (n+1)(a + C b) + E while the links set the pace",
          "[sim][timing][in_switch]") {
  // switch_4.xml: a GPU's port 1 us, 10 GB/s each way; the switch 80 GB/s of input, 4 members.
  const auto t =
      simulate("--platform " + fixture("switch_4.xml") + " --algo nvls -b 64K -e 16M -f 16");
  REQUIRE(t.size() == 3);
  // One chunk smaller than the switch's: up, reduced, down.
  check_both(t.at("nvls/65536"), switch_time(1, 65536, 1e-6, 1e-10, 4 * 65536 / 80e9));
  check_both(t.at("nvls/1048576"), switch_time(1, kChunk, 1e-6, 1e-10, 4 * kChunk / 80e9));
  // 16 chunks: 17 (1 us + 104.8576 us) + 52.4288 us = 1852.008 us.
  check_both(t.at("nvls/16777216"), 1852.008e-6);
  check_both(t.at("nvls/16777216"), switch_time(16, kChunk, 1e-6, 1e-10, 4 * kChunk / 80e9));
}

TEST_CASE("nvls on a slow switch: 2 (a + C b) + n E once the switch sets the pace",
          "[sim][timing][in_switch]") {
  // switch_4_slow.xml: as switch_4.xml, the switch at 20 GB/s: E = 209.7152 us > T = 105.8576 us.
  const auto t =
      simulate("--platform " + fixture("switch_4_slow.xml") + " --algo nvls -b 4M -e 16M -f 4");
  REQUIRE(t.size() == 2);
  check_both(t.at("nvls/4194304"), 2 * 105.8576e-6 + 4 * 209.7152e-6);
  check_both(t.at("nvls/16777216"), 2 * 105.8576e-6 + 16 * 209.7152e-6);
}

TEST_CASE("nvls, sharp and nvls_sharp on two nodes of two GPUs, by hand",
          "[sim][timing][in_switch]") {
  // switch_2x2.xml, S = 4 MiB, block S/2 = 2 MiB = 2 chunks. To a node switch: 1 us, 10 GB/s,
  // 2 members reducing at 80 GB/s; to a SHARP switch: 2 us, 5 GB/s, 2 members at 40 GB/s;
  // GPU to GPU in a node 2 us, 10 GB/s, across nodes 4 us, 5 GB/s; memory 100 GB/s.
  const auto t = simulate("--platform " + fixture("switch_2x2.xml") +
                          " --algo nvls,sharp,nvls_sharp -b 4M -e 4M");
  REQUIRE(t.size() == 3);
  const double s = 4194304, block = s / 2;
  const double node_rs = switch_time(4, kChunk, 1e-6, 1e-10, 2 * kChunk / 80e9);   // 555.5024 us
  const double node_ag = switch_time(4, kChunk, 1e-6, 1e-10, 0);                   // 529.288 us
  const double sharp_ar = switch_time(2, kChunk, 2e-6, 2e-10, 2 * kChunk / 40e9);  // 687.5744 us
  // The rail's ring over 2 nodes on a block: one reduce-scatter step, one allgather step.
  const double rail = 2 * (4e-6 + block / 2 * 2e-10) + block / 2 * kGamma;
  // The node's ring over 2 GPUs on S: the same with the node's figures.
  const double node_ring = 2 * (2e-6 + s / 2 * 1e-10) + s / 2 * kGamma;
  check_both(t.at("nvls/4194304"), node_rs + rail + node_ag);
  check_both(t.at("nvls/4194304"), 1543.67808e-6);
  check_both(t.at("sharp/4194304"), node_ring + sharp_ar);
  check_both(t.at("sharp/4194304"), 1173.91936e-6);
  check_both(t.at("nvls_sharp/4194304"), node_rs + sharp_ar + node_ag);
  check_both(t.at("nvls_sharp/4194304"), 1772.3648e-6);
}

TEST_CASE("in-switch algorithms are exact in payload mode: dtypes, ops, odd and empty counts",
          "[sim][payload][in_switch]") {
  const std::vector<std::pair<std::string, std::size_t>> type_ops = {
      {"-d float -o sum", 4},    {"-d double -o min", 8}, {"-d half -o prod", 2},
      {"-d bfloat16 -o avg", 2}, {"-d int32 -o max", 4},  {"-d int64 -o sum", 8},
      {"-d half -o avg", 2}};
  for (const auto& [to, elem] : type_ops) {
    // 1, 5, ..., 78125 elements (fewer than the members, none divisible by them), in one chunk.
    const std::string small =
        " -b " + std::to_string(elem) + " -e " + std::to_string(elem * 78125) + " -f 5 ";
    check_exact(
        "--platform " + fixture("switch_2x2.xml") + " --algo nvls,sharp,nvls_sharp" + small + to,
        24);
    check_exact("--platform " + fixture("switch_4.xml") + " --algo nvls" + small + to, 8);
    // 1000003 elements: several chunks, the last one short, blocks of unequal size.
    check_exact("--platform " + fixture("switch_2x2.xml") + " --algo nvls,sharp,nvls_sharp" +
                    sizes(elem, 1000003) + " " + to,
                3);
  }
  check_exact("--platform " + fixture("switch_2x2.xml") + " --algo nvls,sharp,nvls_sharp -b 0 -e 0",
              3);
  check_exact("--platform " + fixture("switch_4.xml") + " --algo nvls -b 0 -e 0", 1);
}

TEST_CASE("in-switch algorithms take the same simulated time with and without payload",
          "[sim][payload][in_switch]") {
  const std::string args = "--platform " + fixture("switch_2x2.xml") +
                           " --algo nvls,sharp,nvls_sharp -b 4 -e 4M -f 32 --format csv";
  const ChildResult timing = run_child(ddlsim() + " " + args);
  const ChildResult payload = run_child(ddlsim() + " " + args + " --check");
  REQUIRE(timing.exit_code == 0);
  REQUIRE(payload.exit_code == 0);
  const auto a = parse_csv(timing.out), b = parse_csv(payload.out);
  REQUIRE(a.size() == b.size());
  for (std::size_t i = 0; i < a.size(); ++i) CHECK(a[i].at("time_us") == b[i].at("time_us"));
}

TEST_CASE("every algorithm (--algo all) includes the in-switch ones where all ranks have switches",
          "[sim][in_switch]") {
  const auto algos = [](const std::string& platform) {
    const ChildResult r =
        run_child(ddlsim() + " --format csv --algo all -b 1K -e 1K --platform " + platform);
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    std::set<std::string> names;
    for (const auto& row : parse_csv(r.out)) names.insert(row.at("algo"));
    return names;
  };
  const std::set<std::string> both = algos(fixture("switch_2x2.xml"));
  CHECK(both.count("nvls") == 1);
  CHECK(both.count("sharp") == 1);
  CHECK(both.count("nvls_sharp") == 1);
  const std::set<std::string> node_only = algos(fixture("switch_4.xml"));
  CHECK(node_only.count("nvls") == 1);
  CHECK(node_only.count("sharp") == 0);
  CHECK(node_only.count("nvls_sharp") == 0);
  const std::set<std::string> none = algos(fixture("star_8.xml"));
  CHECK(none.count("nvls") == 0);
  CHECK(none.count("sharp") == 0);
  // Nor does the simulator have a library of its own: native is left out, and refused by name.
  CHECK(both.count("native") == 0);
  CHECK(none.count("native") == 0);
  const ChildResult named =
      run_child(ddlsim() + " --algo native -b 1K -e 1K --platform " + fixture("star_8.xml"));
  CHECK(named.exit_code != 0);
  CHECK_THAT(named.err, Catch::Contains("native: the simulator has no collective library of its "
                                        "own (native is MPI_Allreduce: ddlrun runs it"));
}

TEST_CASE("auto picks an in-switch algorithm where the model prices it cheapest",
          "[sim][in_switch]") {
  // switch_4.xml at 16 MiB: nvls 1852 us against ring's 2906 us.
  const ChildResult r = run_child(ddlsim() + " --format csv --algo auto -b 16M -e 16M --platform " +
                                  fixture("switch_4.xml"));
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const auto rows = parse_csv(r.out);
  REQUIRE(rows.size() == 1);
  CHECK(rows[0].at("chosen") == "nvls");
}

TEST_CASE("a platform's bad switch host is refused naming the host and property",
          "[sim][in_switch]") {
  const ChildResult r = run_child(ddlsim() + " --algo ring -b 1K -e 1K --platform " +
                                  fixture("bad_switch_members.xml"));
  CHECK(r.exit_code == 1);
  CHECK_THAT(r.err, Catch::Contains("switch host 'nvls': ddl_switch_members '0,1,2,7'"));
  CHECK_THAT(r.err, Catch::Contains("members are ranks 0..3"));
}
