#include "sim/llm_run.hpp"

#include <optional>
#include <simgrid/s4u.hpp>
#include <string>

#include "algorithms/error.hpp"
#include "sim/actor_streams.hpp"
#include "sim/llm_prices.hpp"
#include "sim/sim_communicator.hpp"
#include "workloads/llm/step_timeline.hpp"

namespace ddl::sim {

namespace {

void check_fits(const Platform& platform, const llm::Transformer& model,
                const llm::ParallelLayout& layout) {
  if (layout.gpus() != platform.ranks())
    throw InvalidArgument("layout " + layout.to_string() + " has " + std::to_string(layout.gpus()) +
                          " GPUs, platform '" + platform.file + "' " +
                          std::to_string(platform.ranks()) +
                          " (platforms/generate.py makes one of any size)");
  llm::check_layout(layout, model, layout.gpus());
}

// Every rank plays graph_of(rank) on its actor; `layout` splits the groups (none: the world only).
std::vector<llm::PlayedStep> play_every_rank(
    const Platform& platform, const std::function<std::vector<llm::Op>(int)>& graph_of,
    const std::optional<llm::ParallelLayout>& layout,
    const std::function<double(const llm::Op&)>& seconds, const llm::PlayOptions& play) {
  const SimWorld world{&platform, play.payload};
  std::vector<llm::PlayedStep> steps(static_cast<std::size_t>(platform.ranks()));
  std::vector<std::exception_ptr> errors(steps.size());
  for (int r = 0; r < platform.ranks(); ++r)
    simgrid::s4u::Actor::create(
        "rank" + std::to_string(r), platform.gpus[static_cast<std::size_t>(r)], [&, r] {
          try {
            SimCommunicator comm(world, r);
            llm::LayoutGroups groups;
            if (layout)
              groups = llm::split_groups(comm, *layout);
            else
              groups.world = &comm;
            ActorLauncher actors;
            steps[static_cast<std::size_t>(r)] =
                llm::play_step(comm, groups, actors, graph_of(r), seconds, play);
          } catch (...) {
            errors[static_cast<std::size_t>(r)] = std::current_exception();
          }
        });
  simgrid::s4u::Engine::get_instance()->run();
  for (const std::exception_ptr& e : errors)
    if (e) std::rethrow_exception(e);
  return steps;
}

}  // namespace

std::vector<llm::PlayedStep> simulate_llm_step(const Platform& platform,
                                               const llm::Transformer& model,
                                               const llm::ParallelLayout& layout,
                                               const std::function<double(const llm::Op&)>& seconds,
                                               const llm::PlayOptions& play) {
  check_fits(platform, model, layout);
  return play_every_rank(
      platform, [&](int rank) { return llm::step_graph(model, layout, rank); }, layout, seconds,
      play);
}

std::vector<llm::PlayedStep> simulate_graphs(const Platform& platform,
                                             const std::vector<std::vector<llm::Op>>& graphs,
                                             const std::optional<llm::ParallelLayout>& layout,
                                             const std::function<double(const llm::Op&)>& seconds,
                                             const llm::PlayOptions& play) {
  if (graphs.size() != static_cast<std::size_t>(platform.ranks()))
    throw InvalidArgument(std::to_string(graphs.size()) + " ranks' graphs, platform '" +
                          platform.file + "' has " + std::to_string(platform.ranks()) +
                          " GPUs (platforms/generate.py makes one of any size)");
  if (layout && layout->gpus() != platform.ranks())
    throw InvalidArgument("layout " + layout->to_string() + " has " +
                          std::to_string(layout->gpus()) + " GPUs, the graphs " +
                          std::to_string(graphs.size()));
  if (layout && layout->dp % layout->ep != 0)
    throw InvalidArgument("layout " + layout->to_string() + ": ep " + std::to_string(layout->ep) +
                          " does not divide dp " + std::to_string(layout->dp));
  for (std::size_t r = 0; r < graphs.size(); ++r)
    for (const llm::Op& op : graphs[r]) {
      if (op.kind == llm::Op::Kind::collective && op.group != llm::GroupKind::world && !layout)
        throw InvalidArgument("rank " + std::to_string(r) + " op '" + op.label + "': group " +
                              std::string(llm::to_string(op.group)) +
                              " needs the layout that defines it, and the graphs carry none");
      if ((op.kind == llm::Op::Kind::send || op.kind == llm::Op::Kind::recv) &&
          (op.peer < 0 || op.peer >= platform.ranks() || op.peer == static_cast<int>(r)))
        throw InvalidArgument("rank " + std::to_string(r) + " op '" + op.label + "': peer " +
                              std::to_string(op.peer) + " is not another of the " +
                              std::to_string(platform.ranks()) + " ranks");
    }
  return play_every_rank(
      platform, [&](int rank) { return graphs[static_cast<std::size_t>(rank)]; }, layout, seconds,
      play);
}

std::vector<llm::PlayedStep> predict_llm_step(const Platform& platform,
                                              const llm::Transformer& model,
                                              const llm::ParallelLayout& layout,
                                              const std::function<double(const llm::Op&)>& seconds,
                                              const llm::PlayOptions& play, std::size_t parallel,
                                              double timeout_s) {
  check_fits(platform, model, layout);
  std::vector<std::vector<llm::Op>> graphs;
  std::vector<int> ranks;
  CommPrices cases;
  for (int stage = 0; stage < layout.pp; ++stage) {
    ranks.push_back(llm::rank_at(layout, {0, 0, stage}));
    graphs.push_back(llm::step_graph(model, layout, ranks.back()));
    cases.add_cases(graphs.back());
  }
  const CommPrices prices =
      price_communication(platform, layout, std::move(cases), play, parallel, timeout_s);
  return llm::play_priced(graphs, ranks, [&](const llm::Op& op) {
    return op.kind == llm::Op::Kind::compute ? seconds(op) : prices.of(op);
  });
}

}  // namespace ddl::sim
