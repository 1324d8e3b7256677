// ddltrace: turn a trace written by `ddlsim --trace` or `ddlrun --trace` into Chrome trace JSON,
// which Perfetto (ui.perfetto.dev) and chrome://tracing open: one process per rank.
#include <boost/program_options.hpp>
#include <iostream>

#include "algorithms/error.hpp"
#include "harness/arguments.hpp"
#include "harness/output_file.hpp"
#include "harness/trace.hpp"

namespace po = boost::program_options;
using namespace ddl;

namespace {

int run(int argc, char** argv) {
  po::options_description desc("Options");
  desc.add_options()("help,h", "this help")(
      "chrome", po::value<std::string>(),
      "write Chrome trace JSON to this file ('-': standard output)");
  po::options_description hidden;
  hidden.add_options()("trace", po::value<std::string>(), "trace file (.csv or .jsonl)");
  po::options_description all;
  all.add(desc).add(hidden);
  po::positional_options_description positional;
  positional.add("trace", 1);
  const po::variables_map vm = harness::parse_arguments(argc, argv, all, "ddltrace", positional);
  if (vm.count("help")) {
    std::cout
        << "Usage: ddltrace TRACE.{csv,jsonl} --chrome OUT.json\n\n"
           "Converts a ddlsim/ddlrun trace (harness/README.md, \"Traces\") to Chrome trace JSON:\n"
           "open OUT.json in https://ui.perfetto.dev or chrome://tracing. Each rank is a process\n"
           "\"rank N\"; operations of one rank that overlap in time go to extra lanes of it.\n\n"
        << desc;
    return 0;
  }
  if (!vm.count("trace")) throw InvalidArgument("no trace file given (see ddltrace --help)");
  if (!vm.count("chrome"))
    throw InvalidArgument("nothing to do: give --chrome OUT.json (see ddltrace --help)");
  const std::string trace_path = vm["trace"].as<std::string>();
  const std::string out_path = vm["chrome"].as<std::string>();
  // Before reading anything: `ddltrace t.csv --chrome t.csv` would replace the trace.
  check_distinct_files({trace_path}, {out_path});
  check_writable(out_path);
  const std::vector<harness::TraceEvent> events = harness::read_trace_file(trace_path);
  if (out_path == "-") {
    harness::write_chrome_trace(std::cout, events);
    finish_stdout();
    return 0;
  }
  AtomicOutput out(out_path);
  harness::write_chrome_trace(out.stream(), events);
  out.commit();
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::cerr << "ddltrace: " << e.what() << "\n";
    return 1;
  }
}
