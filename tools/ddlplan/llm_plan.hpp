// ddlplan --workload MODEL --gpus N --platform P: the parallel layouts of an LLM's training step
// on a machine, ranked. The candidates are the layouts that fit memory
// (workloads/llm/layout_search.hpp); each is predicted on the platform by predict_llm_step in a
// child process of its own (SimGrid runs its engine once per process: sim/isolated.hpp), --jobs
// at once, each pricing its communication on one CPU so the children do not oversubscribe the
// machine. Under mpirun candidate k runs on rank k mod N (tools/ddlplan/spread.hpp) and rank 0
// prints the ranking: a header, then the best --top rows by step time; --out FILE the whole
// ranking as CSV, written only when every candidate was predicted.
#pragma once

#include <boost/program_options.hpp>
#include <string>

#include "tools/sim_ranks/sweep_mpi.hpp"

namespace ddl::planner {

// The flags of this mode alone (--workload, --gpus, --gpu, --global-batch, --zero, --mbs, --top).
void add_llm_plan_options(boost::program_options::options_description& desc);
bool llm_plan_requested(const boost::program_options::variables_map& vm);
// InvalidArgument naming the first flag given that the requested mode does not take: a
// collective-planning flag with --workload, a layout-planning flag without it.
void check_llm_plan_flags(const boost::program_options::variables_map& vm);

// Runs the search; the exit status. `jobs`: children at once on this rank; `timeout_s`: each
// candidate's limit.
int run_llm_plan(const boost::program_options::variables_map& vm, const char* program,
                 sim::SweepRanks& ranks, int jobs, double timeout_s);

}  // namespace ddl::planner
