// A sweep spread over the processes mpirun started (`mpirun -np N ddlsim ...`): its cases
// (size x algorithm) are independent simulations, so case k in table order runs on rank k mod N
// (round robin: the expensive large sizes are shared out too), each rank in its own SimGrid
// engine (one per process), and rank 0 gathers the rows back into table order as they come. The
// rows are those of one process up to SimGrid's timing precision (sim/README.md: a case's
// simulation starts at another clock offset, which can move its time by a few ns). Without mpirun
// there is one rank and no MPI at all: MPI_Init is not called, so ddlsim needs no MPI to run and
// pays nothing for it (a singleton MPI_Init measured 0.5 s here, a small ddlsim run 0.08 s).
#pragma once

#include <string>
#include <vector>

#include "sim/platform.hpp"
#include "sim/sweep.hpp"

namespace ddl::sim {

// The processes of one ddlsim job. Launched by mpirun (OMPI_COMM_WORLD_SIZE in the environment
// and Open MPI's launcher as the parent process: a child of a rank runs alone),
// the constructor initialises MPI, after checking that MPI_Init is Open MPI's and not the SMPI
// one libsimgrid also exports; otherwise it is one rank without MPI. The destructor finalises
// MPI after a barrier bounded by the timeout.
class SweepRanks {
 public:
  SweepRanks(int& argc, char**& argv);
  ~SweepRanks();
  SweepRanks(const SweepRanks&) = delete;
  SweepRanks& operator=(const SweepRanks&) = delete;

  int rank() const { return rank_; }
  int size() const { return size_; }
  bool root() const { return rank_ == 0; }
  // Bounds every wait for another rank (the gather of rows, the barrier before MPI_Finalize).
  void set_timeout(double timeout_s) { timeout_s_ = timeout_s; }
  double timeout() const { return timeout_s_; }
  // After a wait ran out: ends every rank of the job (MPI_Abort) instead of finalising, since
  // the rank that did not answer would keep MPI_Finalize waiting.
  [[noreturn]] void abort(int exit_code) const;

 private:
  int rank_ = 0;
  int size_ = 1;
  bool mpi_ = false;
  double timeout_s_ = 3600;
};

// Runs this rank's share of config's cases and gathers the rows on rank 0, which returns all of
// them in table order (the same rows as run_sweep in one process); the other ranks return none.
// Each rank sends a case's row as soon as it has it, and rank 0 calls `done` for every row in
// table order as soon as it and every row before it are in (one process: as run_sweep), so a
// tool prints rows while the sweep runs. Every rank takes part in the gather even when its share
// failed: then rank 0 throws the first failing rank's error ("rank R: ..."), the failing rank
// its own, the others return normally. `progress` reports rank 0's share. Waiting for the other
// ranks is bounded by ranks.timeout().
std::vector<CaseResult> run_sweep_spread(const SweepRanks& ranks, const Platform& platform,
                                         const SweepConfig& config,
                                         const SweepProgress& progress = {},
                                         const CaseDone& done = {});

// The same over a list of cases given (config.each() is the whole sweep; a planner prices other
// lists): case k runs on rank k mod N, and rank 0 returns the rows in the list's order.
std::vector<CaseResult> run_cases_spread(const SweepRanks& ranks, const Platform& platform,
                                         const SweepConfig& config,
                                         const std::vector<harness::SweepCase>& cases,
                                         const SweepProgress& progress = {},
                                         const CaseDone& done = {});

// For work shared out by hand (ddlplan's simulations, job k on rank k mod N): every rank's
// values on every rank, values[r] being rank r's `mine`. A rank whose share failed passes its
// message as `error`, and then every rank throws BackendError naming the first failed rank and
// its message. Waiting for the others is bounded by ranks.timeout(). One rank: {mine}.
std::vector<std::vector<double>> allgather_values(const SweepRanks& ranks,
                                                  const std::vector<double>& mine,
                                                  const std::string* error);

}  // namespace ddl::sim
