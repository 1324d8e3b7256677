// ddlsim --llm MODEL --layout L [--gpu NAME] [--exact] [--trace FILE.json]: one hybrid-parallel
// LLM training step simulated (sim/llm_run.hpp) on --platform, after the layout is checked against
// the model and each stage against the GPU's memory (a layout that does not fit is reported as
// such and not simulated). By default on prices (predict_llm_step); --exact plays every rank.
// The report: the step's time, tokens/s and MFU, then per pipeline stage its first rank's
// compute and exposed pipeline, tensor-, data- and expert-parallel time. --trace: the ranks
// played as a Chrome/Perfetto trace (workloads/llm/step_trace.hpp).
//
// ddlsim --workload TRACE [--gpu NAME] [--trace FILE.json]: a Chakra trace set (a FILE.et, a
// PREFIX of PREFIX.RANK.et files or a folder of them: workloads/llm/chakra_files.hpp), every
// rank's graph played on the simulator (simulate_graphs); the report gives the step and per rank
// its breakdown.
#pragma once

#include <boost/program_options.hpp>
#include <ostream>
#include <string>

namespace ddl::sim {

void add_llm_options(boost::program_options::options_description& desc);
bool llm_requested(const boost::program_options::variables_map& vm);
// --workload names a Chakra trace: ends in .et, PATH.0.et exists, or a folder holding .et files.
bool chakra_requested(const boost::program_options::variables_map& vm);
// InvalidArgument for --layout without --llm, --gpu without --llm or a Chakra trace, any flag
// the run does not take, a --trace that is not .json.
void check_llm_flags(const boost::program_options::variables_map& vm);
// Runs it; returns the exit status (1: the layout does not fit, said on `out`).
int run_llm_mode(const boost::program_options::variables_map& vm, const std::string& program,
                 std::ostream& out);
int run_chakra_mode(const boost::program_options::variables_map& vm, const std::string& program,
                    std::ostream& out);

}  // namespace ddl::sim
