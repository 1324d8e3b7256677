// The shared command-line path (harness/arguments.hpp) and the validation behind it: every bad
// input is refused with one message naming what was wrong.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "algorithms/error.hpp"
#include "harness/arguments.hpp"
#include "harness/cli.hpp"
#include "harness/trace.hpp"
#include "workloads/workload.hpp"
#include "workloads/workload_cli.hpp"

namespace po = boost::program_options;
using namespace ddl::harness;

namespace {

po::variables_map parse_tool(std::vector<const char*> args) {
  args.insert(args.begin(), "tool");
  po::options_description desc;
  add_common_options(desc, {});
  add_workload_options(desc);
  return parse_arguments(static_cast<int>(args.size()), args.data(), desc, "tool");
}

CommonOptions common(std::vector<const char*> args) {
  return read_common_options(parse_tool(std::move(args)));
}

std::string message(const std::function<void()>& f) {
  try {
    f();
  } catch (const ddl::InvalidArgument& e) {
    return e.what();
  }
  return "(accepted)";
}

}  // namespace

TEST_CASE("a stray positional argument is refused, not ignored", "[harness][arguments]") {
  CHECK(message([] { parse_tool({"platforms/s822lc_2.xml"}); }) ==
        "unexpected argument 'platforms/s822lc_2.xml': tool takes no positional arguments; every "
        "option is "
        "a flag (see tool --help)");
  CHECK(message([] {
          parse_tool({"-b", "8", "extra"});
        }).starts_with("unexpected argument 'extra'"));
  CHECK(message([] { parse_tool({"--bogus"}); }) ==
        "unrecognised option '--bogus' (see tool --help)");
  // Boost's own message for this one never returns (found by fuzz_command_line).
  CHECK(message([] { parse_tool({"--%canonical_option%x"}); }) ==
        "unrecognised option '--%canonical_option%x' (see tool --help)");
  CHECK(message([] {
          parse_tool({"-n", "1%value%"});
        }) == "the argument ('1%value%') for option '--iters' is invalid (see tool --help)");
}

TEST_CASE("the check flag takes nccl-tests' 0 or 1, or stands alone", "[harness][arguments]") {
  CHECK_FALSE(common({}).check);
  CHECK_FALSE(common({"-c", "0"}).check);
  CHECK(common({"-c", "1"}).check);
  CHECK(common({"-c"}).check);
  CHECK(common({"--check"}).check);
  CHECK_FALSE(common({"--check", "0"}).check);
  CHECK_FALSE(common({"--check=0"}).check);
  CHECK(common({"-c", "-b", "8"}).check);  // a flag after -c is not its value
  CHECK(message([] {
          common({"-c", "2"});
        }) == "bad --check '2': give -c 0 or -c 1 (nccl-tests), or --check alone");
}

TEST_CASE("numbers are checked, not wrapped", "[harness][arguments]") {
  CHECK(message([] {
          common({"-f", "-2"});
        }) == "bad --stepfactor '-2': out of range (an integer from 0 to 1099511627776)");
  CHECK(message([] {
          common({"-f", "2x"});
        }) == "bad --stepfactor '2x': not an integer (an integer from 0 to 1099511627776)");
  CHECK(common({"-b", "8", "-e", "64", "-f", "4"}).sizes == std::vector<std::size_t>{8, 32});
  CHECK(message([] {
          common({"-n", "20000000"});
        }) == "--iters must be at most 10000000, got 20000000");
  CHECK(message([] {
          common({"-w", "20000000"});
        }) == "--warmup must be at most 10000000, got 20000000");
  CHECK(message([] { common({"--rings", "5000"}); }) == "--rings must be at most 1024, got 5000");
  CHECK(message([] { common({"-n", "99999999999"}); }).find("'99999999999'") != std::string::npos);
  CHECK(parse_integer("7", "x", 0, 9) == 7);
  CHECK(message([] { parse_integer("+7", "x", 0, 9); }) ==
        "bad --x '+7': not an integer (an integer from 0 to 9)");
  CHECK(message([] { parse_integer("99999999999999999999", "x", 0, 9); }) ==
        "bad --x '99999999999999999999': out of range (an integer from 0 to 9)");
}

TEST_CASE("sizes must be whole elements of the type", "[harness][arguments]") {
  CHECK(message([] {
          common({"-b", "1", "-e", "1K"});
        }) ==
        "--minbytes 1 is not a whole number of float elements (4 B each): give a multiple of 4 "
        "bytes");
  CHECK(message([] {
          common({"-b", "4", "-e", "4", "-d", "double"});
        }) ==
        "--minbytes 4 is not a whole number of double elements (8 B each): give a multiple of 8 "
        "bytes");
  CHECK(common({"-b", "2", "-e", "2", "-d", "half"}).sizes == std::vector<std::size_t>{2});
  CHECK(common({"-b", "0", "-e", "0"}).sizes == std::vector<std::size_t>{0});
}

TEST_CASE("seconds are finite, positive and bounded", "[harness][arguments]") {
  CHECK(parse_seconds("2.5", "timeout", 1e6) == 2.5);
  CHECK(message([] { parse_seconds("inf", "timeout", 1e6); }) ==
        "--timeout must be a finite number of seconds (every wait is bounded), got 'inf'");
  CHECK(message([] { parse_seconds("nan", "timeout", 1e6); }) ==
        "--timeout must be a finite number of seconds (every wait is bounded), got 'nan'");
  CHECK(message([] { parse_seconds("1e10", "timeout", 1e6); }) ==
        "--timeout must be at most 1000000 s, got '1e10'");
  CHECK(message([] { parse_seconds("0", "timeout", 1e6); }) ==
        "--timeout must be a positive number of seconds, got '0'");
  CHECK(message([] { parse_seconds("-1", "timeout", 1e6); }) ==
        "--timeout must be a positive number of seconds, got '-1'");
  CHECK(message([] { parse_seconds("5s", "timeout", 1e6); }) ==
        "bad --timeout '5s': not a number of seconds");
}

TEST_CASE("a number in an open range is finite and inside it", "[harness][arguments]") {
  CHECK(parse_number("0.03", "fit-tolerance", 0, 1) == 0.03);
  CHECK(parse_number("1e-3", "fit-tolerance", 0, 1) == 1e-3);
  const std::string range = " (a finite number between 0 and 1, both excluded)";
  for (const char* bad : {"nan", "inf", "-inf", "0", "1", "-0.5", "2", "1e-400"})
    CHECK(message([&] { parse_number(bad, "fit-tolerance", 0, 1); }) ==
          "bad --fit-tolerance '" + std::string(bad) + "': out of range" + range);
  for (const char* bad : {"", "+0.5", "0.5x", " 0.5", "tenth"})
    CHECK(message([&] { parse_number(bad, "fit-tolerance", 0, 1); }) ==
          "bad --fit-tolerance '" + std::string(bad) + "': not a number" + range);
}

TEST_CASE("the collective sweep's flags are refused with --workload", "[harness][arguments]") {
  const auto vm = parse_tool({"--workload", "resnet50", "-b", "1M"});
  CHECK(message([&] { read_workload_options(vm, DDL_WORKLOADS); }) ==
        "--minbytes does not go with --workload: it sums the workload's gradients in buckets "
        "(sizes from the workload file, --bucket and --first-bucket; their type from -d)");
  const auto integer = parse_tool({"--workload", "resnet50", "-d", "int32"});
  CHECK(message([&] {
          read_workload_options(integer, DDL_WORKLOADS);
        }).starts_with("--dtype int32 does not go with --workload: gradients are floating point"));
  // -d sets the gradients' type: half and bfloat16 halve every bucket, double doubles it.
  const WorkloadChoice half =
      read_workload_options(parse_tool({"--workload", "resnet50", "-d", "half"}), DDL_WORKLOADS);
  CHECK(half.dtype == ddl::DType::float16);
  CHECK(half.buckets.bytes_per_param == 2);
  CHECK(read_workload_options(parse_tool({"--workload", "resnet50", "-d", "double"}), DDL_WORKLOADS)
            .buckets.bytes_per_param == 8);
  CHECK_NOTHROW(
      read_workload_options(parse_tool({"--workload", "resnet50", "-n", "3"}), DDL_WORKLOADS));
}

namespace {
const char* kWorkloadHead =
    "# model = tiny\n# reference_batch = 32\n# reference_iteration_ms = 100\n# backward_to_forward "
    "= 2\n"
    "layer,kind,params,forward_macs\n";

std::string workload_error(const std::string& text) {
  std::istringstream in(text);
  return message([&] { parse_workload(in, "w.csv"); });
}
}  // namespace

TEST_CASE("workload files: non-finite and overflowing values name file, line and field",
          "[harness][arguments]") {
  std::string head = kWorkloadHead;
  CHECK(workload_error(head + "a,conv,10,100\n") == "(accepted)");
  std::string inf = head;
  inf.replace(inf.find("= 100"), 5, "= inf");
  CHECK(workload_error(inf + "a,conv,10,100\n") ==
        "w.csv:3: reference_iteration_ms 'inf' is not a positive finite number");
  std::string b2f = head;
  b2f.replace(b2f.find("= 2\n"), 3, "= inf");
  CHECK(workload_error(b2f + "a,conv,10,100\n") ==
        "w.csv:4: backward_to_forward 'inf' is not a positive finite number");
  std::string huge = head;
  huge.replace(huge.find("= 100"), 5, "= 1e300");
  CHECK(workload_error(huge + "a,conv,10,100\n") ==
        "w.csv:3: reference_iteration_ms '1e300' is larger than 3.6e+06");
  CHECK(workload_error(head + "a,conv,4611686018427387904,100\n") ==
        "w.csv:6: params: the layers so far hold 4611686018427387904 parameters, more than the "
        "2^40 a workload may "
        "have");
  CHECK(workload_error(head + "a,conv,1,18446744073709551615\nb,conv,1,1\n") ==
        "w.csv:7: forward_macs: the layers' multiply-adds overflow 2^64");
}

TEST_CASE("a directory is not a trace or workload file", "[harness][arguments]") {
  const std::string dir = std::filesystem::temp_directory_path().string();
  CHECK(message([&] { load_workload(dir); }) ==
        "cannot read workload file '" + dir + "': it is a directory");
  const std::string tdir = dir + "/ddl_dir_" + std::to_string(::getpid()) + ".csv";
  std::filesystem::create_directories(tdir);
  CHECK(message([&] { read_trace_file(tdir); }) ==
        "cannot read trace file '" + tdir + "': it is a directory");
  std::filesystem::remove(tdir);
}

TEST_CASE("a trace file that is never closed leaves the previous file as it was",
          "[harness][arguments]") {
  const std::string path =
      (std::filesystem::temp_directory_path() / ("ddl_keep_" + std::to_string(::getpid()) + ".csv"))
          .string();
  std::ofstream(path) << "previous\n";
  {
    TraceFile file(path);
    write_trace_header(file.stream(), file.format());
  }  // the run failed before close()
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  CHECK(line == "previous");
  std::filesystem::remove(path);
}

TEST_CASE("trace files: NaN times, negative ranks and reversed events name the line",
          "[harness][arguments]") {
  const auto error = [](const std::string& row) {
    std::istringstream in(trace_csv_header() + "\n" + row + "\n");
    return message([&] { read_trace(in, TraceFormat::csv, "t.csv"); });
  };
  CHECK(error("ring,8,0,0,send,1,8,0,allgather,-1,1,2") == "(accepted)");
  CHECK(error("ring,8,0,0,send,1,8,0,allgather,-1,nan,2") ==
        "t.csv:2: start_us and end_us must be finite numbers");
  CHECK(error("ring,8,0,0,send,1,8,0,allgather,-1,1,inf") ==
        "t.csv:2: start_us and end_us must be finite numbers");
  CHECK(error("ring,8,0,0,send,1,8,0,allgather,-1,3,2") == "t.csv:2: end_us is before start_us");
  CHECK(error("ring,8,0,-1,send,1,8,0,allgather,-1,1,2") == "t.csv:2: rank -1 is negative");
  CHECK(error("ring,8,0,0,send,-2,8,0,allgather,-1,1,2") == "t.csv:2: peer -2 is below -1 (none)");
  CHECK(error("ring,8,0,0,send,1,8,-5,allgather,-1,1,2") == "t.csv:2: tag -5 is below -1 (none)");
  CHECK(error("ring,8,0,0,send,1,8,0,allgather,-3,1,2") == "t.csv:2: dim -3 is below -1 (none)");
  std::istringstream json(
      R"({"algo":"ring","size":8,"iteration":0,"rank":-4,"kind":"send","peer":1,)"
      R"("bytes":8,"tag":0,"phase":"","dim":-1,"start_us":1,"end_us":2})"
      "\n");
  CHECK(message([&] { read_trace(json, TraceFormat::jsonl, "t.jsonl"); }) ==
        "t.jsonl:1: rank -4 is negative");
}

TEST_CASE("trace files: names are printable ASCII (found by fuzz_trace)", "[harness][arguments]") {
  // A byte that is not UTF-8 used to make the Chrome export throw a JSON library error.
  std::istringstream in(trace_csv_header() + "\nri\xa0ng,8,0,0,send,1,8,0,allgather,-1,1,2\n");
  CHECK(message([&] { read_trace(in, TraceFormat::csv, "t.csv"); }) ==
        "t.csv:2: algo must be printable ASCII without spaces, commas or quotes");
  std::istringstream phase(trace_csv_header() + "\nring,8,0,0,send,1,8,0,all gather,-1,1,2\n");
  CHECK(message([&] { read_trace(phase, TraceFormat::csv, "t.csv"); }) ==
        "t.csv:2: phase must be printable ASCII without spaces, commas or quotes");
}

TEST_CASE("jsonl traces: integers out of range are refused, not wrapped (found by fuzz_trace)",
          "[harness][arguments]") {
  const auto error = [](const std::string& field) {
    std::istringstream in(
        R"({"algo":"ring","size":8,"iteration":0,"kind":"send","peer":1,"bytes":8,"tag":0,)"
        R"("phase":"","dim":-1,"start_us":1,"end_us":2,)" +
        field + "}\n");
    return message([&] { read_trace(in, TraceFormat::jsonl, "t.jsonl"); });
  };
  CHECK(error(R"("rank":0)") == "(accepted)");
  CHECK(error(R"("rank":4294967297)") == "t.jsonl:1: rank 4294967297 is out of range");
  CHECK(error(R"("rank":1.8e112)") == "t.jsonl:1: rank must be an integer, got 1.8e+112");
  CHECK(error(R"("rank":"0")") == "t.jsonl:1: rank must be an integer, got \"0\"");
}
