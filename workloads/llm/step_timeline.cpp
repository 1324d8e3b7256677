#include "workloads/llm/step_timeline.hpp"

#include <algorithm>
#include <array>
#include <deque>
#include <map>
#include <unordered_map>

#include "algorithms/error.hpp"

namespace ddl::llm {

namespace {

// One graph being played.
struct Player {
  const std::vector<Op>* ops = nullptr;
  PlayedStep step;
  std::vector<bool> ended;  // whether op i's end is known
  std::size_t next = 0;     // the next op to issue
  double now = 0;           // the rank's clock: when it issues the next op
  double computed_until = 0;
  std::array<double, 5> group_free{};  // by GroupKind: when its stream is free
  std::vector<std::size_t> before;     // stream_predecessors

  bool finished() const {
    return next == ops->size() && std::all_of(ended.begin(), ended.end(), [](bool e) { return e; });
  }
};

// The messages from one graph to another not yet met: sends and receives, each (player, op).
struct Channel {
  std::deque<std::pair<std::size_t, std::size_t>> sends, recvs;
};

class Timeline {
 public:
  Timeline(const std::vector<std::vector<Op>>& graphs, const std::vector<int>& ranks,
           const std::function<double(const Op&)>& seconds)
      : seconds_(seconds), ranks_(ranks), players_(graphs.size()) {
    DDL_CHECK(graphs.size() == ranks.size(), "play_priced: a world rank per graph");
    for (std::size_t g = 0; g < graphs.size(); ++g) {
      index_[ranks[g]] = g;
      Player& p = players_[g];
      p.ops = &graphs[g];
      p.step.start.assign(graphs[g].size(), 0);
      p.step.end.assign(graphs[g].size(), 0);
      p.ended.assign(graphs[g].size(), false);
      p.before = stream_predecessors(graphs[g]);
    }
  }

  std::vector<PlayedStep> play() {
    for (bool progress = true; progress;) {
      progress = false;
      for (std::size_t g = 0; g < players_.size(); ++g) progress |= advance(g);
    }
    std::vector<PlayedStep> steps;
    for (std::size_t g = 0; g < players_.size(); ++g) {
      Player& p = players_[g];
      if (!p.finished()) {
        const std::size_t i = static_cast<std::size_t>(
            std::find(p.ended.begin(), p.ended.end(), false) - p.ended.begin());
        throw InvalidArgument("rank " + std::to_string(ranks_[g]) + " waits forever at op " +
                              std::to_string(i) + " '" + (*p.ops)[i].label +
                              "' (a send or receive whose other side never comes)");
      }
      p.step.finish = std::max(p.now, *std::max_element(p.step.end.begin(), p.step.end.end()));
      steps.push_back(std::move(p.step));
    }
    return steps;
  }

 private:
  // Issues graph g's ops until one waits for an end not known yet; whether it issued any.
  bool advance(std::size_t g) {
    Player& p = players_[g];
    const std::vector<Op>& ops = *p.ops;
    bool progress = false;
    while (p.next < ops.size()) {
      const Op& op = ops[p.next];
      if (!std::all_of(op.after.begin(), op.after.end(), [&](std::size_t a) { return p.ended[a]; }))
        break;
      for (std::size_t a : op.after) p.now = std::max(p.now, p.step.end[a]);
      const std::size_t i = p.next++;
      progress = true;
      p.step.start[i] = p.now;
      switch (op.kind) {
        case Op::Kind::compute:
          if (p.now > p.computed_until)
            charge_idle(ops, p.before, p.step, i, p.computed_until, p.now);
          p.step.end[i] = p.now + seconds_(op);
          p.ended[i] = true;
          p.step.compute += p.step.end[i] - p.now;
          p.now = p.computed_until = p.step.end[i];
          break;
        case Op::Kind::collective: {
          double& free = p.group_free[static_cast<std::size_t>(op.group)];
          p.step.start[i] = std::max(p.now, free);
          p.step.end[i] = free = p.step.start[i] + seconds_(op);
          p.ended[i] = true;
          break;
        }
        case Op::Kind::send: post(g, peer(op), g, i, true); break;
        case Op::Kind::recv: post(peer(op), g, g, i, false); break;
      }
    }
    return progress;
  }

  std::size_t peer(const Op& op) const {
    const auto it = index_.find(op.peer);
    if (it == index_.end())
      throw InvalidArgument("op '" + op.label + "': its peer, rank " + std::to_string(op.peer) +
                            ", is not one of the ranks played");
    return it->second;
  }

  // Graph `g`'s op `i`, a send (from -> to) or a receive, is issued: it meets the oldest of the
  // other kind on the channel, or waits there.
  void post(std::size_t from, std::size_t to, std::size_t g, std::size_t i, bool send) {
    Channel& c = channels_[{from, to}];
    auto& mine = send ? c.sends : c.recvs;
    auto& theirs = send ? c.recvs : c.sends;
    if (theirs.empty()) {
      mine.push_back({g, i});
      return;
    }
    const auto [h, j] = theirs.front();
    theirs.pop_front();
    const Op& a = (*players_[g].ops)[i];
    const Op& b = (*players_[h].ops)[j];
    if (a.size != b.size)
      throw InvalidArgument("ops '" + a.label + "' and '" + b.label + "' meet with " +
                            std::to_string(a.size) + " and " + std::to_string(b.size) + " bytes");
    const double end =
        std::max(players_[g].step.start[i], players_[h].step.start[j]) + seconds_(send ? a : b);
    for (const auto& [k, o] : {std::pair{g, i}, std::pair{h, j}}) {
      players_[k].step.end[o] = end;
      players_[k].ended[o] = true;
    }
  }

  const std::function<double(const Op&)>& seconds_;
  const std::vector<int>& ranks_;
  std::vector<Player> players_;
  std::unordered_map<int, std::size_t> index_;  // world rank -> graph
  std::map<std::pair<std::size_t, std::size_t>, Channel> channels_;
};

}  // namespace

std::vector<PlayedStep> play_priced(const std::vector<std::vector<Op>>& graphs,
                                    const std::vector<int>& ranks,
                                    const std::function<double(const Op&)>& seconds) {
  return Timeline(graphs, ranks, seconds).play();
}

}  // namespace ddl::llm
