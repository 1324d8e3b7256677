// price_schedules against a straightforward walk: the walk below is the pricing as it was
// first written (every rank's messages of every step held at once, each step's buffers built
// anew), kept as the reference (with each later rule of the model, such as how a rank leaves a
// step, applied the same way here). The compact pricing must give the same numbers to the
// bit: ring, ddl (rings and halving-doubling), rhd and rd on a few rank counts, with link classes
// only and over a topology of nodes whose NICs are shared and whose spine is a FATPIPE, with
// and without peer reads.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <map>
#include <string>

#include "algorithms/allreduce_ddl.hpp"
#include "algorithms/allreduce_rd.hpp"
#include "algorithms/allreduce_rhd.hpp"
#include "algorithms/error.hpp"
#include "algorithms/ring_steps.hpp"
#include "algorithms/schedule_cost.hpp"
#include "algorithms/topology.hpp"

using namespace ddl;

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

// A rank leaves a step after its last send and after its last receive plus its reduce (after
// both when the step reduces what it sends).
double leave_step(double sends, double recvs, double reduce_s, bool after_sends) {
  return after_sends ? std::max(sends, recvs) + reduce_s : std::max(sends, recvs + reduce_s);
}

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

// One shared link serving its flows as a processor-sharing queue (SimGrid's fair sharing on a
// lone bottleneck): flow i arrives at begin[i] (its latency behind it) with bytes[i] to move;
// the link's bandwidth is split equally among the flows present. Returns each flow's end.
std::vector<double> processor_sharing(const std::vector<double>& begin,
                                      const std::vector<double>& bytes, double bandwidth) {
  const std::size_t n = begin.size();
  std::vector<std::size_t> order(n);
  for (std::size_t i = 0; i < n; ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) {
    return begin[x] < begin[y] || (begin[x] == begin[y] && x < y);
  });
  std::vector<double> end(n, 0.0), left = bytes;
  std::vector<std::size_t> active;
  std::size_t next = 0;
  double now = n ? begin[order[0]] : 0;
  while (next < n || !active.empty()) {
    if (active.empty()) now = std::max(now, begin[order[next]]);
    while (next < n && begin[order[next]] <= now) active.push_back(order[next++]);
    const double rate = bandwidth / static_cast<double>(active.size());
    double least = left[active[0]];
    for (const std::size_t i : active) least = std::min(least, left[i]);
    const double done = now + least / rate;
    if (next < n && begin[order[next]] < done) {  // an arrival first: serve until then
      const double until = begin[order[next]];
      for (const std::size_t i : active) left[i] -= (until - now) * rate;
      now = until;
      continue;
    }
    // The least flow ends (and any within a rounding error of it): decided by the bytes left,
    // not by the clock, which cannot resolve a tiny remainder late in a long schedule.
    now = done;
    std::erase_if(active, [&](std::size_t i) {
      left[i] -= least;
      if (left[i] > std::abs(least) * 1e-9) return false;
      end[i] = now;
      return true;
    });
  }
  return end;
}

// One step's messages over a topology, each starting once both its ends have reached the step
// (`start`): their times. A flow holds a link's bandwidth only after its latency and until it
// ends (SimGrid's fluid model), so each shared link is served as a processor-sharing queue of
// the flows crossing it, in their arrival order; a message ends when its last link has served
// it, at least its time alone (per-size factors included), a peer read stretching that. Flows
// in lockstep (equal starts and sizes) split the link for their whole life; flows entering a
// step microseconds apart (groups of a ddl dimension that finished the previous one at
// different times) overlap only in part, as in the simulation. Ranks' clocks drift apart, so
// one rank's step may meet another's previous step on a link: a link serves a step's flows
// only once it has served the earlier steps' (`link_free`), which keeps a saturated link's
// throughput what it is.
std::vector<double> step_times(const Topology& topo, const std::vector<Message>& ms,
                               const std::vector<double>& start, double footprint,
                               std::vector<std::vector<std::size_t>>& on_link,
                               std::vector<double>& link_free) {
  const std::size_t n = ms.size();
  std::vector<double> begin(n), served(n), own(n);
  std::vector<int> used;  // the links this step's flows cross, to clear on_link after
  for (std::size_t i = 0; i < n; ++i) {
    const Topology::Alone alone = topo.alone(ms[i].src, ms[i].dst, ms[i].bytes, footprint);
    begin[i] = start[i] + alone.latency;
    own[i] = alone.latency + alone.transfer;
    served[i] = begin[i];
    for (const RouteLink& l : *ms[i].route) {
      if (!l.shared) {
        served[i] = std::max(served[i], begin[i] + ms[i].bytes / l.bandwidth);
        continue;
      }
      std::vector<std::size_t>& flows = on_link[static_cast<std::size_t>(l.id)];
      if (flows.empty()) used.push_back(l.id);
      flows.push_back(i);
    }
  }
  std::vector<double> b, w;
  for (const int id : used) {
    const std::vector<std::size_t>& flows = on_link[static_cast<std::size_t>(id)];
    b.clear();
    w.clear();
    double bandwidth = 0;
    double& free = link_free[static_cast<std::size_t>(id)];
    for (const std::size_t i : flows) {
      b.push_back(std::max(begin[i], free));
      w.push_back(ms[i].bytes);
      for (const RouteLink& l : *ms[i].route)
        if (l.id == id) bandwidth = l.bandwidth;
    }
    const std::vector<double> end = processor_sharing(b, w, bandwidth);
    for (std::size_t k = 0; k < flows.size(); ++k) {
      served[flows[k]] = std::max(served[flows[k]], end[k]);
      free = std::max(free, end[k]);
    }
    on_link[static_cast<std::size_t>(id)].clear();
  }
  std::vector<double> time(n);
  for (std::size_t i = 0; i < n; ++i)
    time[i] = std::max({served[i] - start[i], own[i], ms[i].peer_read * own[i]});
  return time;
}

double reference_price(const CostQuery& q, const ScheduleBuilder& build) {
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
  std::vector<std::vector<char>> step_after;  // per step and rank: reduces what it sends
  for (int r = 0; r < p; ++r) {
    const std::vector<Schedule> schedules = build(r);
    std::size_t steps = 0;
    for (const Schedule& s : schedules) steps = std::max(steps, s.size());
    if (step_time.size() < steps) step_time.resize(steps, 0.0);
    if (q.topology && step_messages.size() < steps) {
      step_messages.resize(steps);
      step_reduced.resize(steps, std::vector<double>(static_cast<std::size_t>(p), 0.0));
      step_after.resize(steps, std::vector<char>(static_cast<std::size_t>(p), 0));
    }
    SentBytes sent;
    std::vector<ClassLoad> load(2 * static_cast<std::size_t>(classes));
    for (std::size_t t = 0; t < steps; ++t) {
      std::fill(load.begin(), load.end(), ClassLoad{});
      double reduced = 0;
      bool after = false;
      for (const Schedule& s : schedules)
        if (t < s.size() && reduces_what_it_sends(s[t])) after = true;
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
            factor = 1 + (c.peer_read(x.peer, r, bytes) - 1) * share;
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
        step_after[t][static_cast<std::size_t>(r)] = after;
        continue;
      }
      double sends = 0, recvs = 0;
      for (int d = 0; d < classes; ++d) {
        sends = std::max(sends, load[static_cast<std::size_t>(d)].time());
        recvs = std::max(recvs, load[static_cast<std::size_t>(classes + d)].time());
      }
      step_time[t] = std::max(step_time[t], leave_step(sends, recvs, reduced * c.gamma, after));
    }
  }
  if (q.topology) {
    // Each rank keeps its own clock: a step's message starts when both its ends have finished
    // the previous step, and a rank leaves a step as leave_step() says. The schedule's time is
    // the last rank's clock.
    const Topology& topo = *q.topology;
    std::vector<std::vector<std::size_t>> on_link(static_cast<std::size_t>(topo.link_count()));
    std::vector<double> link_free(on_link.size(), 0.0);  // when each link has served its flows
    std::vector<double> clock(static_cast<std::size_t>(p), 0.0), start;
    for (std::size_t t = 0; t < step_messages.size(); ++t) {
      const std::vector<Message>& ms = step_messages[t];
      start.resize(ms.size());
      for (std::size_t i = 0; i < ms.size(); ++i)
        start[i] = std::max(clock[static_cast<std::size_t>(ms[i].src)],
                            clock[static_cast<std::size_t>(ms[i].dst)]);
      const std::vector<double> time =
          step_times(topo, ms, start, static_cast<double>(q.bytes), on_link, link_free);
      std::vector<double> sends = clock, recvs = clock;
      for (std::size_t i = 0; i < ms.size(); ++i) {
        double& sent = sends[static_cast<std::size_t>(ms[i].src)];
        double& received = recvs[static_cast<std::size_t>(ms[i].dst)];
        sent = std::max(sent, start[i] + time[i]);
        received = std::max(received, start[i] + time[i]);
      }
      for (std::size_t r = 0; r < clock.size(); ++r)
        clock[r] = leave_step(sends[r], recvs[r], step_reduced[t][r] * c.gamma, step_after[t][r]);
    }
    return *std::max_element(clock.begin(), clock.end());
  }
  double total = 0;
  for (const double s : step_time) total += s;
  return total;
}

// `nodes` nodes of `gpus` ranks. Inside a node each rank has a link out and a link in (shared,
// 20 GB/s, 0.3 us); between nodes a message leaves by its rank's link out, its node's NIC out
// (12.5 GB/s, 1 us), a spine that never constrains (FATPIPE, 50 GB/s, 0.1 us), the destination
// node's NIC in and its rank's link in.
class Nodes : public Topology {
 public:
  Nodes(int nodes, int gpus) : nodes_(nodes), gpus_(gpus) {
    const int p = nodes * gpus;
    routes_.resize(static_cast<std::size_t>(p * p));
    for (int a = 0; a < p; ++a)
      for (int b = 0; b < p; ++b) {
        if (a == b) continue;
        std::vector<RouteLink>& r = routes_[static_cast<std::size_t>(a * p + b)];
        r.push_back({a, 20e9, 0.3e-6, true});
        if (a / gpus != b / gpus) {
          r.push_back({2 * p + a / gpus, 12.5e9, 1e-6, true});
          r.push_back({2 * p + 2 * nodes, 50e9, 0.1e-6, false});
          r.push_back({2 * p + nodes + b / gpus, 12.5e9, 1e-6, true});
        }
        r.push_back({p + b, 20e9, 0.3e-6, true});
      }
  }
  int ranks() const override { return nodes_ * gpus_; }
  int link_count() const override { return 2 * ranks() + 2 * nodes_ + 1; }
  const std::vector<RouteLink>& route(int src, int dst) const override {
    return routes_[static_cast<std::size_t>(src * ranks() + dst)];
  }

 private:
  int nodes_, gpus_;
  std::vector<std::vector<RouteLink>> routes_;
};

bool same_bits(double a, double b) {
  return std::memcmp(&a, &b, sizeof a) == 0;
}

struct Case {
  std::string algo;
  ScheduleBuilder build;
};

std::vector<Case> cases(const Dims& grid, std::size_t bytes) {
  const int p = grid.rank_count();
  Options hd;
  hd.methods.assign(static_cast<std::size_t>(grid.count()), IntraMethod::halving_doubling);
  Options two_rings;
  two_rings.rings = 2;
  std::vector<Case> out;
  out.push_back({"ring", [=](int r) {
                   const Group g = world_group(p, r);
                   Schedule s = ring_reduce_scatter(g, {0, bytes}, 1, -1);
                   const Schedule ag = ring_allgather(g, {0, bytes}, 1, -1);
                   s.insert(s.end(), ag.begin(), ag.end());
                   return std::vector<Schedule>{std::move(s)};
                 }});
  out.push_back({"ddl", [=](int r) { return ddl_schedules(grid, r, bytes, 1, Options{}); }});
  out.push_back(
      {"ddl 2 rings", [=](int r) { return ddl_schedules(grid, r, bytes, 1, two_rings); }});
  out.push_back({"ddl hd", [=](int r) { return ddl_schedules(grid, r, bytes, 1, hd); }});
  for (const HdOrder order : {HdOrder::near, HdOrder::far})
    out.push_back(
        {"rhd", [=](int r) { return std::vector<Schedule>{rhd_schedule(p, r, bytes, 1, order)}; }});
  // rd's exchanges reduce what they send: reduced after the step's sends (leave_step).
  out.push_back({"rd", [=](int r) { return std::vector<Schedule>{rd_schedule(p, r, bytes, 1)}; }});
  return out;
}

}  // namespace

TEST_CASE("price_schedules gives the straightforward walk's numbers to the bit", "[cost]") {
  CostParams c;
  c.per_dim = {{0.6e-6, 1 / 20e9}, {2.1e-6, 1 / 12.5e9}};
  c.gamma = 1 / 80e9;
  CostParams sized = c;  // per-size α and β and peer reads, as a calibrated platform has
  sized.message = [](int dim, double bytes) {
    return LinkCost{(dim + 1) * 1e-6 + 1e-12 * bytes, (dim ? 1 / 12.5e9 : 1 / 20e9) * 1.01};
  };
  sized.peer_read = [](int, int, double bytes) { return 1.5 + 1e-7 * bytes; };
  for (const int nodes : {2, 4, 8}) {
    const Dims grid = Dims::parse("4x" + std::to_string(nodes));
    const Nodes topo(nodes, 4);
    for (const std::size_t bytes : {std::size_t{1000}, std::size_t{100003}, std::size_t{4000000}})
      for (const Case& k : cases(grid, bytes))
        for (const CostParams* params : {&c, &sized})
          for (const Topology* t :
               {static_cast<const Topology*>(nullptr), static_cast<const Topology*>(&topo)}) {
            const Options o;
            const CostQuery q{grid, bytes, o, *params, t};
            const double want = reference_price(q, k.build);
            const double got = price_schedules(q, k.build);
            INFO(k.algo << " on " << grid.to_string() << ", " << bytes << " B, "
                        << (params == &c ? "plain" : "per-size, peer reads") << ", "
                        << (t ? "topology" : "link classes") << ": " << want << " vs " << got);
            CHECK(want > 0);
            CHECK(same_bits(want, got));
          }
  }
}
