// ddlrun's command line: the shared flags (harness/cli.hpp) plus --memory, --transport, --pages,
// --baseline, --timeout, --trace and --workload's; parsed alike on every rank, then compared
// across the ranks as one canonical string (real/mpi/rank_agreement.hpp).
#pragma once

#include <boost/program_options.hpp>
#include <optional>
#include <ostream>
#include <string>

#include "harness/cli.hpp"
#include "tools/ddlrun/device_setup.hpp"
#include "tools/ddlrun/workload_mode.hpp"

namespace ddl {

struct RunArguments {
  bool help = false;
  harness::CommonOptions common;
  RunSetup setup;  // --memory, --transport, --timeout
  bool baseline_mpi = false;
  // --auto-by: auto without --plan follows the plan measured on these ranks (true) or the
  // analytical model on a uniform network (false).
  bool auto_measured = true;
  std::optional<WorkloadArguments> workload;  // --workload: training iterations
  std::optional<std::string> trace;           // --trace FILE
};

// Declares the flags in `desc` and reads them; throws InvalidArgument naming a bad one.
RunArguments parse_run_arguments(int argc, char** argv,
                                 boost::program_options::options_description& desc);
// What every rank must have parsed alike, in one stable spelling.
std::string canonical(const RunArguments& a);
void print_help(std::ostream& out, const boost::program_options::options_description& desc);

}  // namespace ddl
