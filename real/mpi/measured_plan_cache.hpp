// Where the MPI backend keeps auto's measured plan (algorithms/measured_choice.hpp): one plan
// file (planner/plan_file.hpp, so `--plan` reads it too) per machine and job shape, in
// $DDL_CACHE_DIR, else $XDG_CACHE_HOME/ddl, else $HOME/.cache/ddl. Its "platform" field is the
// key it was measured for (every rank's host, the MPI library, the grid, the candidates and the
// probe's sizes); a file whose key differs is measured anew and replaced. Delete it to measure
// again (after a change to the machine the key cannot see: its load, its BIOS, a new kernel).
#pragma once

#include <memory>
#include <string>

#include "algorithms/dims.hpp"
#include "algorithms/plan.hpp"
#include "real/mpi/mpi_communicator.hpp"

namespace ddl {

struct MeasuredPlan {
  std::shared_ptr<const Plan> plan;
  std::string basis;  // "measured here in 1.9 s, cached in PATH", "read from PATH", ...
};

// Collective over comm's ranks: rank 0 reads the cache; when it has no plan for this key, every
// rank measures (measure_choice) and rank 0 writes it. Every rank returns the same plan. Every
// wait bounded by the communicator's timeout.
MeasuredPlan measured_plan_for(MpiCommunicator& comm, const Dims& grid);

}  // namespace ddl
