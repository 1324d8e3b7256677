#include "sim/llm_prices.hpp"

#include <algorithm>
#include <cstdio>
#include <exception>
#include <simgrid/s4u.hpp>
#include <sstream>
#include <string>

#include "algorithms/error.hpp"
#include "algorithms/registry.hpp"
#include "sim/isolated.hpp"
#include "sim/sim_communicator.hpp"

namespace ddl::sim {

using llm::Op;

CommPrices::Key CommPrices::key(const Op& op) {
  if (op.kind == Op::Kind::collective)
    return {static_cast<int>(op.kind), static_cast<int>(op.group), static_cast<int>(op.collective),
            op.size};
  return {static_cast<int>(Op::Kind::send), 0, 0, op.size};  // a send and its receive alike
}

void CommPrices::add_cases(const std::vector<Op>& ops) {
  for (const Op& op : ops)
    if (op.kind != Op::Kind::compute) seconds_.try_emplace(key(op), 0.0);
}

double CommPrices::of(const Op& op) const {
  return seconds_.at(key(op));
}

namespace {

using Key = std::tuple<int, int, int, std::size_t>;

// The seconds of each case of `keys`, in one run of this process's engine.
std::vector<double> price_cases(const Platform& platform, const llm::ParallelLayout& layout,
                                const std::vector<Key>& keys, const llm::PlayOptions& play) {
  std::vector<double> seconds(keys.size(), 0.0);
  const SimWorld world{&platform, false};
  const simgrid::s4u::BarrierPtr barrier =
      simgrid::s4u::Barrier::create(static_cast<unsigned>(platform.ranks()));
  std::vector<std::exception_ptr> errors(static_cast<std::size_t>(platform.ranks()));
  for (int r = 0; r < platform.ranks(); ++r)
    simgrid::s4u::Actor::create(
        "rank" + std::to_string(r), platform.gpus[static_cast<std::size_t>(r)], [&, r] {
          try {
            SimCommunicator comm(world, r);
            const llm::LayoutGroups groups = llm::split_groups(comm, layout);
            const llm::Coordinates at = llm::coordinates(layout, r);
            for (std::size_t k = 0; k < keys.size(); ++k) {
              barrier->wait();
              const double begin = comm.now();
              const auto [kind, group, collective, size] = keys[k];
              if (kind == static_cast<int>(Op::Kind::collective)) {
                Communicator& members = groups.of(static_cast<llm::GroupKind>(group));
                const auto c = static_cast<Collective>(collective);
                if (members.size() > 1)
                  find_algorithm(play.algorithms.at(c))
                      .run(members, MutView{nullptr, size}, DType::bfloat16, ReduceOp::sum,
                           play.options);
              } else {  // every stage but the last sends to the next one
                std::vector<Request> messages;
                if (at.pp + 1 < layout.pp)
                  messages.push_back(comm.isend(llm::rank_at(layout, {at.tp, at.dp, at.pp + 1}),
                                                ConstView{nullptr, size}, play.tag));
                if (at.pp > 0)
                  messages.push_back(comm.irecv(llm::rank_at(layout, {at.tp, at.dp, at.pp - 1}),
                                                MutView{nullptr, size}, play.tag));
                comm.wait_all(messages);
              }
              seconds[k] = std::max(seconds[k], comm.now() - begin);
            }
          } catch (...) {
            errors[static_cast<std::size_t>(r)] = std::current_exception();
          }
        });
  simgrid::s4u::Engine::get_instance()->run();
  for (const std::exception_ptr& e : errors)
    if (e) std::rethrow_exception(e);
  return seconds;
}

// A case's group size: what its simulation's cost grows with (a ring's steps).
int group_size(const llm::ParallelLayout& l, const Key& key) {
  if (std::get<0>(key) != static_cast<int>(Op::Kind::collective)) return 1;
  switch (static_cast<llm::GroupKind>(std::get<1>(key))) {
    case llm::GroupKind::tp: return l.tp;
    case llm::GroupKind::dp: return l.dp;
    case llm::GroupKind::ep: return l.ep;
    case llm::GroupKind::expert_dp: return l.dp / l.ep;
    case llm::GroupKind::world: return l.gpus();
  }
  return 1;
}

}  // namespace

CommPrices price_communication(const Platform& platform, const llm::ParallelLayout& layout,
                               CommPrices cases, const llm::PlayOptions& play, std::size_t parallel,
                               double timeout_s) {
  std::vector<Key> keys;
  for (const auto& entry : cases.seconds_) keys.push_back(entry.first);
  if (parallel <= 1 || keys.size() <= 1) {
    const std::vector<double> seconds = price_cases(platform, layout, keys, play);
    for (std::size_t k = 0; k < keys.size(); ++k) cases.seconds_[keys[k]] = seconds[k];
    return cases;
  }
  // `parallel` simulations, each pricing its share of the cases one after another (a simulation's
  // setup, every rank's actor and groups, costs seconds at 16,384 ranks: once per share, not per
  // case). Shares dealt largest group first, back and forth, so they take about as long.
  std::stable_sort(keys.begin(), keys.end(), [&](const Key& a, const Key& b) {
    return group_size(layout, a) > group_size(layout, b);
  });
  const std::size_t shares = std::min(parallel, keys.size());
  std::vector<std::vector<Key>> share(shares);
  for (std::size_t k = 0; k < keys.size(); ++k) {
    const std::size_t round = k / shares, at = k % shares;
    share[round % 2 == 0 ? at : shares - 1 - at].push_back(keys[k]);
  }
  std::vector<IsolatedJob> jobs;
  for (const std::vector<Key>& mine : share)
    jobs.push_back({"pricing " + std::to_string(mine.size()) + " communication cases", [&, mine] {
                      std::string text;
                      for (double s : price_cases(platform, layout, mine, play)) {
                        char number[32];
                        std::snprintf(number, sizeof number, "%.17g ", s);
                        text += number;
                      }
                      return text;
                    }});
  const std::vector<std::string> results = run_isolated(jobs, parallel, timeout_s);
  for (std::size_t j = 0; j < shares; ++j) {
    std::istringstream in(results[j]);
    for (const Key& key : share[j]) {
      double s = 0;
      in >> s;
      DDL_CHECK(in, "price_communication: a share's result lacks a case");
      cases.seconds_[key] = s;
    }
  }
  return cases;
}

}  // namespace ddl::sim
