// The step player on the loopback backend (threads as ranks, real buffers): every rank of
// hybrid layouts plays its whole step, its groups' collectives in flight beside its compute and
// the pipeline's messages, to the end, each op after what it waits for.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "algorithms/thread_streams.hpp"
#include "loopback/loopback_communicator.hpp"
#include "workloads/llm/step_player.hpp"

using namespace ddl;
using namespace ddl::llm;

TEST_CASE("step player: every rank of hybrid layouts plays its step to the end",
          "[loopback][llm]") {
  const Transformer m = read_transformer(std::string(DDL_LLM_MODELS) + "/small_gpt.json");
  for (const char* text : {"tp=2,pp=2,dp=2,mb=3,zero=1,sp", "pp=4,dp=2,mb=4,zero=3",
                           "tp=4,dp=2,mb=2", "tp=2,pp=4,mb=5"}) {
    const ParallelLayout l = parse_layout(text);
    std::vector<std::string> wrong(static_cast<std::size_t>(l.gpus()));
    run_ranks(l.gpus(), [&](Communicator& world) {
      const LayoutGroups groups = split_groups(world, l);
      ThreadLauncher threads;
      const std::vector<Op> ops = step_graph(m, l, world.rank());
      const PlayedStep step = play_step(world, groups, threads, ops, [](const Op&) { return 0.0; });
      std::string& w = wrong[static_cast<std::size_t>(world.rank())];
      for (std::size_t i = 0; i < ops.size(); ++i) {
        for (std::size_t a : ops[i].after)
          if (step.start[i] < step.end[a]) w = ops[i].label + " started before " + ops[a].label;
        if (step.end[i] < step.start[i]) w = ops[i].label + " ended before it started";
      }
      if (step.finish < step.begin) w = "the step ended before it began";
    });
    for (int r = 0; r < l.gpus(); ++r) {
      INFO(text << " rank " << r);
      CHECK(wrong[static_cast<std::size_t>(r)] == "");
    }
  }
}
