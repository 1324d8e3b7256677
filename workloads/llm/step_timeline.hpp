// A step played on prices instead of on a backend: every communication op's time is given
// (sim/llm_prices.hpp times each distinct one on the platform, every group of its kind running it
// at once), and the ranks' graphs are played by a discrete-event timeline here, with the rules
// play_step (step_player.hpp) follows on a Communicator:
//   - a rank issues its ops in order, each once the ops it waits for have ended;
//   - compute ops run one after another on the rank;
//   - a collective runs on its group's stream: it begins when issued and the collective issued
//     before it on the same group has ended, and lasts its price;
//   - a send and its receive (the k-th send from a to b meets b's k-th receive from a) both end
//     their price after the later of the two was issued.
// The same breakdown as play_step: compute, and the compute stream's idle time by cause.
//
// Why it is enough to play a few ranks: in a Megatron-LM layout every rank of a pipeline stage
// runs the same graph, and each group (tp, dp, ep, expert_dp) lies inside one stage, so the
// stages' first ranks, each standing for its stage, meet at the same times in every collective
// as all members would. What the timeline leaves out is contention *between* different
// communication kinds at once (a data-parallel reduction beside a pipeline message on the same
// NIC): the prices hold the contention inside a kind. ddlsim --llm --exact plays every rank on the
// simulator; experiments/bench_llm.sh publishes the two side by side.
#pragma once

#include <functional>
#include <vector>

#include "workloads/llm/step_player.hpp"

namespace ddl::llm {

// `graphs[i]` is the graph of world rank `ranks[i]`; every send's and receive's peer must be one
// of `ranks`. `seconds(op)` prices every op: compute, collective (0 for a group of one), send and
// receive (the message's transfer once both sides are there). Returns the played step of each
// graph, on one clock starting at 0.
std::vector<PlayedStep> play_priced(const std::vector<std::vector<Op>>& graphs,
                                    const std::vector<int>& ranks,
                                    const std::function<double(const Op&)>& seconds);

}  // namespace ddl::llm
