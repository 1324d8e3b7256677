// An LLM training step on the simulator: every rank an actor on its GPU host playing its step
// graph (workloads/llm/step_player.hpp), its groups' collectives as actors beside it
// (ActorLauncher), so tensor-, data- and expert-parallel collectives and the pipeline's
// messages share and contend for the platform's links as they would on the machine. Timing-
// only: no payload moves. The layout must have the platform's GPU count.
#pragma once

#include <functional>
#include <vector>

#include "sim/platform.hpp"
#include "workloads/llm/step_player.hpp"

namespace ddl::sim {

// Every rank's played step, by rank; `seconds` prices the compute ops.
std::vector<llm::PlayedStep> simulate_llm_step(const Platform& platform,
                                               const llm::Transformer& model,
                                               const llm::ParallelLayout& layout,
                                               const std::function<double(const llm::Op&)>& seconds,
                                               const llm::PlayOptions& play);

}  // namespace ddl::sim
