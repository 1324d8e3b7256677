#include "algorithms/schedule_cost.hpp"

#include <algorithm>
#include <map>

#include "algorithms/error.hpp"
#include "algorithms/topology.hpp"

namespace ddl {

namespace {

// The bytes one rank has sent from and not written since, as disjoint [begin, end) ranges:
// what makes a later plain receive into them a peer read (SimCommunicator keeps the same set).
class SentBytes {
 public:
  void add(std::size_t begin, std::size_t end) {
    auto it = ranges_.upper_bound(begin);
    if (it != ranges_.begin() && std::prev(it)->second >= begin) {
      --it;
      begin = it->first;
      end = std::max(end, it->second);
      it = ranges_.erase(it);
    }
    while (it != ranges_.end() && it->first <= end) {
      end = std::max(end, it->second);
      it = ranges_.erase(it);
    }
    ranges_[begin] = end;
  }
  void remove(std::size_t begin, std::size_t end) {
    auto it = ranges_.upper_bound(begin);
    if (it != ranges_.begin()) --it;
    while (it != ranges_.end() && it->first < end) {
      const std::size_t b = it->first, e = it->second;
      if (e <= begin) {
        ++it;
        continue;
      }
      it = ranges_.erase(it);
      if (b < begin) ranges_[b] = begin;
      if (e > end) it = ranges_.emplace(end, e).first;
    }
  }
  std::size_t overlap(std::size_t begin, std::size_t end) const {
    std::size_t n = 0;
    auto it = ranges_.upper_bound(begin);
    if (it != ranges_.begin()) --it;
    for (; it != ranges_.end() && it->first < end; ++it) {
      const std::size_t b = std::max(begin, it->first), e = std::min(end, it->second);
      if (e > b) n += e - b;
    }
    return n;
  }

 private:
  std::map<std::size_t, std::size_t> ranges_;
};

// One message of one step, as seen by the step's pricing.
struct Message {
  const std::vector<RouteLink>* route;
  int src, dst;
  double bytes;
  double peer_read;  // the slow-down factor of its receive into sent bytes (1: none)
};

// The outermost dimension in which two ranks' coordinates differ (0 when they are equal).
int link_class(const std::vector<std::vector<int>>& coords, int a, int b) {
  const std::vector<int>& x = coords[static_cast<std::size_t>(a)];
  const std::vector<int>& y = coords[static_cast<std::size_t>(b)];
  for (std::size_t d = x.size(); d-- > 0;)
    if (x[d] != y[d]) return static_cast<int>(d);
  return 0;
}

// Per rank and step without a topology: per (direction, class), the largest α, the sum of
// bytes x β and the slowest lone message (a peer read's own capped time).
struct ClassLoad {
  double alpha = 0, transfer = 0, lone = 0;
  double time() const { return std::max(alpha + transfer, lone); }
};

// Per step with a topology: the time of each message given the flows on its links. Shared links
// split their (unscaled) bandwidth among their flows; alone, the message takes what the
// topology says (per-size factors included), and a peer read stretches that.
double contended_time(const Topology& topo, const Message& m, const std::vector<int>& flows,
                      double footprint) {
  const Topology::Alone alone = topo.alone(m.src, m.dst, m.bytes, footprint);
  double worst = 0;
  for (const RouteLink& l : *m.route) {
    const double share = l.shared ? flows[static_cast<std::size_t>(l.id)] : 1.0;
    worst = std::max(worst, share / l.bandwidth);
  }
  const double own = alone.latency + alone.transfer;
  return std::max({alone.latency + m.bytes * worst, own, m.peer_read * own});
}

}  // namespace

double price_schedules(const CostQuery& q, const ScheduleBuilder& build) {
  const int p = q.dims.rank_count();
  if (p == 1 || q.bytes == 0) return 0;
  const CostParams& c = q.params;
  DDL_CHECK(c.per_dim.size() == static_cast<std::size_t>(q.dims.count()),
            "price_schedules: one link class per dimension");
  DDL_CHECK(!q.topology || q.topology->ranks() == p,
            "price_schedules: topology and grid differ in rank count");
  std::vector<std::vector<int>> coords;  // link classes: only without a topology
  if (!q.topology)
    for (int r = 0; r < p; ++r) coords.push_back(q.dims.coords(r));
  const int classes = q.dims.count();
  // Per step: the slowest rank's time (no topology), or every message and each rank's reduced
  // bytes (topology: flows are counted over all ranks before any message is priced).
  std::vector<double> step_time;
  std::vector<std::vector<Message>> step_messages;
  std::vector<std::vector<double>> step_reduced;
  for (int r = 0; r < p; ++r) {
    const std::vector<Schedule> schedules = build(r);
    std::size_t steps = 0;
    for (const Schedule& s : schedules) steps = std::max(steps, s.size());
    if (step_time.size() < steps) step_time.resize(steps, 0.0);
    if (q.topology && step_messages.size() < steps) {
      step_messages.resize(steps);
      step_reduced.resize(steps, std::vector<double>(static_cast<std::size_t>(p), 0.0));
    }
    SentBytes sent;
    std::vector<ClassLoad> load(2 * static_cast<std::size_t>(classes));
    for (std::size_t t = 0; t < steps; ++t) {
      std::fill(load.begin(), load.end(), ClassLoad{});
      double reduced = 0;
      // Receives are posted first (execute()): a peer read is judged on the earlier steps' sends.
      for (const Schedule& s : schedules) {
        if (t >= s.size()) continue;
        for (const Transfer& x : s[t].recvs) {
          if (x.bytes == 0) continue;
          const double bytes = static_cast<double>(x.bytes);
          double factor = 1;
          if (c.peer_read && !s[t].reduce) {
            const double share =
                static_cast<double>(sent.overlap(x.offset, x.offset + x.bytes)) / bytes;
            factor = 1 + (c.peer_read(bytes) - 1) * share;
          }
          if (s[t].reduce) reduced += bytes;
          if (q.topology) {
            step_messages[t].push_back({&q.topology->route(x.peer, r), x.peer, r, bytes, factor});
            continue;
          }
          const int d = link_class(coords, x.peer, r);
          const LinkCost l =
              c.message ? c.message(d, bytes) : c.per_dim[static_cast<std::size_t>(d)];
          ClassLoad& in = load[static_cast<std::size_t>(classes + d)];
          in.alpha = std::max(in.alpha, l.alpha);
          in.transfer += bytes * l.beta;
          in.lone = std::max(in.lone, factor * (l.alpha + bytes * l.beta));
        }
        for (const Transfer& x : s[t].sends) {
          if (x.bytes == 0) continue;
          if (c.peer_read) sent.add(x.offset, x.offset + x.bytes);
          if (q.topology) continue;  // the receiver lists it
          const double bytes = static_cast<double>(x.bytes);
          const int d = link_class(coords, r, x.peer);
          const LinkCost l =
              c.message ? c.message(d, bytes) : c.per_dim[static_cast<std::size_t>(d)];
          ClassLoad& out = load[static_cast<std::size_t>(d)];
          out.alpha = std::max(out.alpha, l.alpha);
          out.transfer += bytes * l.beta;
        }
      }
      if (c.peer_read)
        for (const Schedule& s : schedules)
          if (t < s.size())
            for (const Transfer& x : s[t].recvs) sent.remove(x.offset, x.offset + x.bytes);
      if (q.topology) {
        step_reduced[t][static_cast<std::size_t>(r)] = reduced;
        continue;
      }
      double transfer = 0;
      for (const ClassLoad& l : load) transfer = std::max(transfer, l.time());
      step_time[t] = std::max(step_time[t], transfer + reduced * c.gamma);
    }
  }
  if (q.topology) {
    const Topology& topo = *q.topology;
    std::vector<int> flows(static_cast<std::size_t>(topo.link_count()), 0);
    std::vector<double> rank_time(static_cast<std::size_t>(p));
    for (std::size_t t = 0; t < step_messages.size(); ++t) {
      const std::vector<Message>& ms = step_messages[t];
      for (const Message& m : ms)
        for (const RouteLink& l : *m.route) ++flows[static_cast<std::size_t>(l.id)];
      std::fill(rank_time.begin(), rank_time.end(), 0.0);
      for (const Message& m : ms) {
        const double time = contended_time(topo, m, flows, static_cast<double>(q.bytes));
        for (const int r : {m.src, m.dst}) {
          double& slot = rank_time[static_cast<std::size_t>(r)];
          slot = std::max(slot, time);
        }
      }
      for (const Message& m : ms)
        for (const RouteLink& l : *m.route) flows[static_cast<std::size_t>(l.id)] = 0;
      for (std::size_t r = 0; r < rank_time.size(); ++r)
        step_time[t] = std::max(step_time[t], rank_time[r] + step_reduced[t][r] * c.gamma);
    }
  }
  double total = 0;
  for (const double s : step_time) total += s;
  return total;
}

}  // namespace ddl
