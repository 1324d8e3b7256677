// ddlsim --llm MODEL --layout L [--gpu NAME]: one hybrid-parallel LLM training step simulated
// (sim/llm_run.hpp) on --platform, after the layout is checked against the model and each stage
// against the GPU's memory (a layout that does not fit is reported as such and not simulated).
// The report: the step's time, tokens/s and MFU, then per pipeline stage its first rank's
// compute and exposed pipeline, tensor-, data- and expert-parallel time.
#pragma once

#include <boost/program_options.hpp>
#include <ostream>
#include <string>

namespace ddl::sim {

void add_llm_options(boost::program_options::options_description& desc);
bool llm_requested(const boost::program_options::variables_map& vm);
// InvalidArgument for --layout or --gpu without --llm, and for any flag --llm does not take.
void check_llm_flags(const boost::program_options::variables_map& vm);
// Runs it; returns the exit status (1: the layout does not fit, said on `out`).
int run_llm_mode(const boost::program_options::variables_map& vm, const std::string& program,
                 std::ostream& out);

}  // namespace ddl::sim
