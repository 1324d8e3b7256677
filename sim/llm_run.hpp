// An LLM training step on the simulator: every rank an actor on its GPU host playing its step
// graph (workloads/llm/step_player.hpp), its groups' collectives as actors beside it
// (ActorLauncher), so tensor-, data- and expert-parallel collectives and the pipeline's
// messages share and contend for the platform's links as they would on the machine. Timing-
// only: no payload moves. The layout must have the platform's GPU count.
//
// Two ways: simulate_llm_step plays every rank's graph on the simulator (ddlsim --llm --exact);
// predict_llm_step prices each distinct communication on the simulator and plays the stages'
// first ranks on those prices (ddlsim --llm's default: a 16,384-GPU step in seconds).
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
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

// Given graphs, one per rank (a Chakra trace, workloads/llm/chakra.hpp), every rank's played on
// the simulator as simulate_llm_step plays them. `layout` splits the groups their collectives
// name; without one, only world collectives are allowed. InvalidArgument: a graph count other than
// the platform's GPUs, a group without a layout, a send or receive whose peer is not another rank.
std::vector<llm::PlayedStep> simulate_graphs(const Platform& platform,
                                             const std::vector<std::vector<llm::Op>>& graphs,
                                             const std::optional<llm::ParallelLayout>& layout,
                                             const std::function<double(const llm::Op&)>& seconds,
                                             const llm::PlayOptions& play);

// The step on prices (workloads/llm/step_timeline.hpp): each distinct communication of the step
// timed on the platform with every group of its kind at once (sim/llm_prices.hpp), then the
// stages' first ranks played on those prices. By stage. `parallel` and `timeout_s`: how the
// cases are priced (price_communication). Timing-only (play.payload is not read).
std::vector<llm::PlayedStep> predict_llm_step(const Platform& platform,
                                              const llm::Transformer& model,
                                              const llm::ParallelLayout& layout,
                                              const std::function<double(const llm::Op&)>& seconds,
                                              const llm::PlayOptions& play,
                                              std::size_t parallel = 1, double timeout_s = 0);

}  // namespace ddl::sim
