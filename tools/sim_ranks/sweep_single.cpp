// sweep_mpi.hpp for a build without MPI (DDL_WITH_MPI off): one process, and a clear refusal
// when mpirun started several, rather than N copies of the same table.
#include <cstdlib>
#include <string>

#include "algorithms/error.hpp"
#include "tools/sim_ranks/launched_by_mpirun.hpp"
#include "tools/sim_ranks/sweep_mpi.hpp"

namespace ddl::sim {

SweepRanks::SweepRanks(int&, char**&) {
  if (launched_by_mpirun() && std::string(std::getenv("OMPI_COMM_WORLD_SIZE")) != "1")
    throw InvalidArgument(
        "this ddlsim was built without MPI (DDL_WITH_MPI off), so it cannot "
        "spread a sweep over mpirun's ranks: run it without mpirun");
}

SweepRanks::~SweepRanks() = default;

void SweepRanks::abort(int exit_code) const {
  std::exit(exit_code);
}

std::vector<CaseResult> run_sweep_spread(const SweepRanks&, const Platform& platform,
                                         const SweepConfig& config, const SweepProgress& progress,
                                         const CaseDone& done) {
  return run_sweep(platform, config, progress, nullptr, done);
}

std::vector<CaseResult> run_cases_spread(const SweepRanks&, const Platform& platform,
                                         const SweepConfig& config,
                                         const std::vector<harness::SweepCase>& cases,
                                         const SweepProgress& progress, const CaseDone& done) {
  return run_cases(platform, config, cases, progress, nullptr, done);
}

std::vector<std::vector<double>> allgather_values(const SweepRanks&,
                                                  const std::vector<double>& mine,
                                                  const std::string* error) {
  if (error) throw BackendError("rank 0: " + *error);
  return {mine};
}

}  // namespace ddl::sim
