#include "workloads/llm/step_player.hpp"

#include <algorithm>
#include <optional>

#include "algorithms/error.hpp"
#include "algorithms/registry.hpp"
#include "workloads/llm/layout.hpp"

namespace ddl::llm {

Communicator& LayoutGroups::of(GroupKind g) const {
  if (g == GroupKind::world) return *world;
  const std::unique_ptr<Communicator>& c = g == GroupKind::tp   ? tp
                                           : g == GroupKind::dp ? dp
                                           : g == GroupKind::ep ? ep
                                                                : expert_dp;
  DDL_CHECK(c != nullptr, "LayoutGroups: a group that was not split");
  return *c;
}

LayoutGroups split_groups(Communicator& world, const ParallelLayout& l) {
  DDL_CHECK(world.size() == l.gpus(), "split_groups: the world is the layout's GPUs");
  const Coordinates c = coordinates(l, world.rank());
  LayoutGroups g;
  g.world = &world;
  g.tp = world.split(c.dp + l.dp * c.pp, c.tp);
  g.dp = world.split(c.tp + l.tp * c.pp, c.dp);
  // Expert parallelism: ep consecutive data-parallel replicas; their experts' replicas stride ep.
  g.ep = world.split(c.tp + l.tp * (c.pp + l.pp * (c.dp / l.ep)), c.dp % l.ep);
  g.expert_dp = world.split(c.tp + l.tp * (c.pp + l.pp * (c.dp % l.ep)), c.dp / l.ep);
  return g;
}

namespace {

// One op in flight or done.
struct Running {
  std::optional<Request> request;          // compute, send, recv
  std::optional<CollectiveHandle> handle;  // collective
  std::vector<std::byte> buffer;           // payload
  bool done = false;
};

const char* cause(const Op& op) {
  if (op.kind == Op::Kind::send || op.kind == Op::Kind::recv) return "pp";
  if (op.kind == Op::Kind::collective) {
    switch (op.group) {
      case GroupKind::tp: return "tp";
      case GroupKind::world: return "world";
      case GroupKind::ep: return "ep";
      case GroupKind::dp:
      case GroupKind::expert_dp: return "dp";
    }
  }
  return "";
}

}  // namespace

std::vector<std::size_t> stream_predecessors(const std::vector<Op>& ops) {
  std::vector<std::size_t> before(ops.size(), ops.size());
  std::map<GroupKind, std::size_t> last;
  for (std::size_t i = 0; i < ops.size(); ++i)
    if (ops[i].kind == Op::Kind::collective) {
      if (const auto it = last.find(ops[i].group); it != last.end()) before[i] = it->second;
      last[ops[i].group] = i;
    }
  return before;
}

void charge_idle(const std::vector<Op>& ops, const std::vector<std::size_t>& before,
                 PlayedStep& step, std::size_t i, double from, double to) {
  std::vector<std::size_t> waiting = ops[i].after;
  while (to > from && !waiting.empty()) {
    const auto latest = std::max_element(waiting.begin(), waiting.end(),
                                         [&](auto a, auto b) { return step.end[a] < step.end[b]; });
    const std::size_t j = *latest;
    waiting.erase(latest);
    if (ops[j].kind == Op::Kind::compute || step.end[j] <= from) return;
    const double own = std::max(from, step.start[j]);
    if (to > own) step.exposed[cause(ops[j])] += to - own;
    to = std::min(own, to);
    waiting.insert(waiting.end(), ops[j].after.begin(), ops[j].after.end());
    if (before[j] < ops.size()) waiting.push_back(before[j]);
  }
}

PlayedStep play_step(Communicator& world, const LayoutGroups& groups, StreamLauncher& launcher,
                     const std::vector<Op>& ops, const std::function<double(const Op&)>& seconds,
                     const PlayOptions& play) {
  PlayedStep step;
  step.start.assign(ops.size(), 0);
  step.end.assign(ops.size(), 0);
  std::vector<Running> running(ops.size());
  const std::vector<std::size_t> before = stream_predecessors(ops);
  NonBlocking streams(launcher);
  step.begin = world.now();
  double computed_until = step.begin;  // when the compute stream last became idle
  auto complete = [&](std::size_t i) {
    Running& r = running[i];
    if (r.done) return;
    if (r.handle) {
      r.handle->wait();
      step.start[i] = r.handle->start_time();  // after the collectives queued before it
      step.end[i] = r.handle->end_time();
    } else {
      if (r.request) world.wait(*r.request);
      step.end[i] = world.now();
    }
    r.done = true;
    r.buffer.clear();
    r.buffer.shrink_to_fit();
  };
  for (std::size_t i = 0; i < ops.size(); ++i) {
    const Op& op = ops[i];
    for (std::size_t a : op.after) complete(a);
    Running& r = running[i];
    step.start[i] = world.now();
    if (op.kind == Op::Kind::compute) {
      if (step.start[i] > computed_until)
        charge_idle(ops, before, step, i, computed_until, step.start[i]);
      r.request = world.compute(seconds(op));
      complete(i);
      step.compute += step.end[i] - step.start[i];
      computed_until = step.end[i];
      continue;
    }
    if (play.payload) r.buffer.resize(op.size);
    const MutView view{play.payload ? r.buffer.data() : nullptr, op.size};
    if (op.kind == Op::Kind::collective) {
      Communicator& group = groups.of(op.group);
      if (group.size() == 1) {
        r.done = true;
        step.end[i] = step.start[i];
        continue;
      }
      const Algorithm& algo = find_algorithm(play.algorithms.at(op.collective));
      r.handle = streams.start(group, algo, view, DType::bfloat16, ReduceOp::sum, play.options);
    } else if (op.kind == Op::Kind::send) {
      r.request = world.isend(op.peer, view, play.tag);
    } else {
      r.request = world.irecv(op.peer, view, play.tag);
    }
  }
  for (std::size_t i = 0; i < ops.size(); ++i) complete(i);
  step.finish = world.now();
  return step;
}

}  // namespace ddl::llm
