#include "sim/llm_run.hpp"

#include <simgrid/s4u.hpp>
#include <string>

#include "algorithms/error.hpp"
#include "sim/actor_streams.hpp"
#include "sim/sim_communicator.hpp"

namespace ddl::sim {

std::vector<llm::PlayedStep> simulate_llm_step(const Platform& platform,
                                               const llm::Transformer& model,
                                               const llm::ParallelLayout& layout,
                                               const std::function<double(const llm::Op&)>& seconds,
                                               const llm::PlayOptions& play) {
  if (layout.gpus() != platform.ranks())
    throw InvalidArgument("layout " + layout.to_string() + " has " + std::to_string(layout.gpus()) +
                          " GPUs, platform '" + platform.file + "' " +
                          std::to_string(platform.ranks()) +
                          " (platforms/generate.py makes one of any size)");
  llm::check_layout(layout, model, layout.gpus());
  const SimWorld world{&platform, play.payload};
  std::vector<llm::PlayedStep> steps(static_cast<std::size_t>(platform.ranks()));
  std::vector<std::exception_ptr> errors(steps.size());
  for (int r = 0; r < platform.ranks(); ++r)
    simgrid::s4u::Actor::create(
        "rank" + std::to_string(r), platform.gpus[static_cast<std::size_t>(r)], [&, r] {
          try {
            SimCommunicator comm(world, r);
            const llm::LayoutGroups groups = llm::split_groups(comm, layout);
            ActorLauncher actors;
            steps[static_cast<std::size_t>(r)] = llm::play_step(
                comm, groups, actors, llm::step_graph(model, layout, r), seconds, play);
          } catch (...) {
            errors[static_cast<std::size_t>(r)] = std::current_exception();
          }
        });
  simgrid::s4u::Engine::get_instance()->run();
  for (const std::exception_ptr& e : errors)
    if (e) std::rethrow_exception(e);
  return steps;
}

}  // namespace ddl::sim
