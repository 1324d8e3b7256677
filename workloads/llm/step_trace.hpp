// A played step as a Chrome trace (the Trace Event Format's JSON object form, which Perfetto and
// chrome://tracing open): one process per rank played, one thread per stream of that rank, each
// op a complete ("X") event from its start to its end in microseconds, named by its label.
// Streams: compute, then each group's collectives (tp, dp, ep, expert_dp, world: one stream each,
// as play_step runs them), then the pipeline's sends and its receives (two threads, since a send
// and a receive of one rank overlap). Event args: FLOPs and bytes for compute, the collective and
// its bytes for a collective, the peer and bytes for a message.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "workloads/llm/step_player.hpp"

namespace ddl::llm {

struct TracedRank {
  int rank = 0;
  std::string name;  // the process's name: "rank 8 (stage 1)"
  const std::vector<Op>* ops = nullptr;
  const PlayedStep* step = nullptr;
};

void write_step_trace(std::ostream& out, const std::vector<TracedRank>& ranks);

}  // namespace ddl::llm
