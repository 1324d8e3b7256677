#include "tools/ddlrun/sweep_report.hpp"

#include <unistd.h>

#include "harness/auto_choice.hpp"

namespace ddl {

harness::RunInfo sweep_run_info(int argc, const char* const* argv, int ranks, int nodes,
                                const Dims& dims) {
  harness::RunInfo info = harness::run_info("ddlrun", argc, argv);
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  info.add("machine", std::string(host) + (nodes > 1 ? " (rank 0's node)" : ""));
  info.add("ranks", std::to_string(ranks));
  info.add("nodes", std::to_string(nodes));
  info.add("dims", dims.to_string());
  return info;
}

harness::Row sweep_row(const TimedCase& c, const TimedSweepConfig& cfg, const Dims& dims, int ranks,
                       bool shared_memory, std::size_t eager_limit) {
  harness::Row row = harness::make_row(c.bytes, cfg.cases.type, cfg.cases.op, c.algo,
                                       dims.to_string(), c.time_s, ranks);
  row.wrong = c.wrong;
  row.out_of_place = c.out_of_place;
  row.root = cfg.cases.options.root;
  if (c.mpi_time_s) {
    row.mpi_time_s = c.mpi_time_s;
    // The MPI collective of the algorithm's collective: its bus factor.
    row.mpi_busbw_gbs = harness::bus_bandwidth_gbs(c.bytes, *c.mpi_time_s, c.algo, ranks);
  }
  row.chosen =
      harness::algorithm_run(c.algo, cfg.cases.options, ranks, c.bytes, shared_memory, eager_limit);
  return row;
}

}  // namespace ddl
