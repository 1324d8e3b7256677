// Plays one rank's step graph (step_graph.hpp) on any Communicator: compute on the rank, each
// collective started on its group's communicator beside the rank (algorithms/nonblocking.hpp:
// one stream per group, so the tensor-, data- and expert-parallel collectives of a rank run at
// once and, on the simulator, share the links they cross), sends and receives between stages
// on the world communicator. An op starts once the ops it waits for have completed; compute ops
// run one after another.
//
// The breakdown: the compute stream's idle time before each compute op (and at the end, the
// optimizer's wait aside) goes to what it waited for last: "pp" (a receive: the pipeline's
// bubble and transfers), "tp", "dp", "ep" (that group's collective).
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "algorithms/communicator.hpp"
#include "algorithms/nonblocking.hpp"
#include "workloads/llm/step_graph.hpp"

namespace ddl::llm {

// This rank's groups, split from the world (collective over every rank of it, in this order:
// tp, dp, ep, expert_dp).
struct LayoutGroups {
  std::unique_ptr<Communicator> tp, dp, ep, expert_dp;
  Communicator* world = nullptr;  // the communicator they were split from
  Communicator& of(GroupKind g) const;
};
LayoutGroups split_groups(Communicator& world, const ParallelLayout& layout);

struct PlayedStep {
  std::vector<double> start, end;         // per op, the rank's clock
  double begin = 0, finish = 0;           // the step's
  double compute = 0;                     // seconds computing
  std::map<std::string, double> exposed;  // "pp", "tp", "dp", "ep": idle compute, by cause

  double exposed_s(const char* cause) const {
    const auto it = exposed.find(cause);
    return it == exposed.end() ? 0.0 : it->second;
  }
};

struct PlayOptions {
  // The algorithm each collective runs (a registered name of that collective).
  std::map<Collective, std::string> algorithms{{Collective::allreduce, "ring"},
                                               {Collective::reduce_scatter, "reduce_scatter"},
                                               {Collective::allgather, "allgather"},
                                               {Collective::alltoall, "alltoall_pairwise"}};
  Options options;      // what every collective runs with (costs, segment size)
  bool payload = true;  // real buffers (loopback, MPI, the simulator's payload mode); else none
  int tag = 30000;      // the pipeline's sends and receives on the world communicator
};

// Each collective's predecessor on its group's stream (the group's collective issued before it;
// ops.size() for none): it waits for it as for what it lists in `after`.
std::vector<std::size_t> stream_predecessors(const std::vector<Op>& ops);

// The compute stream's idle span [from, to] before op i, added to step.exposed: of what i waited
// for, the op that ended last is the cause from its start on; before its start, the latest to end
// of what was left to wait for and what that op itself waited for (its `after` and its stream
// predecessor), and so on, until a compute op or an op ended by `from`. Needs the start and end
// of every op i waits for, directly or not.
void charge_idle(const std::vector<Op>& ops, const std::vector<std::size_t>& before,
                 PlayedStep& step, std::size_t i, double from, double to);

// `seconds(op)`: a compute op's time (compute_model.hpp's compute_seconds, or measured times).
PlayedStep play_step(Communicator& world, const LayoutGroups& groups, StreamLauncher& launcher,
                     const std::vector<Op>& ops, const std::function<double(const Op&)>& seconds,
                     const PlayOptions& play = {});

}  // namespace ddl::llm
