#include "algorithms/schedule_cost.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <unordered_map>

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

// What a received message is, apart from its ends: few distinct ones per schedule (a ring has
// two block sizes), so each message keeps an index into a table of them.
struct Kind {
  double bytes;
  double peer_read;  // the slow-down factor of its receive into sent bytes (1: none)
  bool reduce;       // its receiver reduces it (γ per byte)
  bool after_sends;  // ... once its step's sends have completed (reduces_what_it_sends)
  bool operator==(const Kind&) const = default;
};

struct KindHash {
  std::size_t operator()(const Kind& k) const {
    const std::size_t h = std::hash<double>{}(k.bytes) * 1000003u;
    return (h ^ std::hash<double>{}(k.peer_read)) * 31u + (k.reduce ? 1u : 0u) +
           (k.after_sends ? 2u : 0u);
  }
};

class KindTable {
 public:
  std::uint32_t index(const Kind& k) {
    for (const std::uint32_t i : recent_)  // a schedule reuses its latest kinds over and over
      if (i < kinds_.size() && kinds_[i] == k) return i;
    auto [it, fresh] = index_.try_emplace(k, static_cast<std::uint32_t>(kinds_.size()));
    if (fresh) {
      DDL_CHECK(kinds_.size() < std::numeric_limits<std::uint32_t>::max(),
                "price_schedules: too many distinct messages");
      kinds_.push_back(k);
    }
    recent_[next_++ % recent_.size()] = it->second;
    return it->second;
  }
  const Kind& operator[](std::uint32_t i) const { return kinds_[i]; }

 private:
  std::vector<Kind> kinds_;
  std::unordered_map<Kind, std::uint32_t, KindHash> index_;
  std::array<std::uint32_t, 8> recent_{};
  std::size_t next_ = 0;
};

// One rank's received messages over a topology, in step order and, within a step, in the order
// execute() posts them: 8 bytes each (the largest schedules hold tens of millions), and the
// steps as runs of consecutive steps with the same message count.
struct RankMessages {
  struct Msg {
    std::int32_t src;
    std::uint32_t kind;
  };
  struct Run {
    std::size_t first, steps, per_step;  // steps [first, first + steps), per_step messages each
  };
  std::vector<Msg> msgs;
  std::vector<Run> runs;
  void count_step(std::size_t t, std::size_t n) {
    if (n == 0) return;
    if (!runs.empty() && runs.back().per_step == n && runs.back().first + runs.back().steps == t)
      ++runs.back().steps;
    else
      runs.push_back({t, 1, n});
  }
};

// Where the topology walk is in one rank's messages.
struct Cursor {
  std::size_t run = 0, msg = 0;
};

// A message's route and its time alone, kept for the next step: a rank's k-th message of a
// step mostly has the same peer and kind as in the step before (a run of alike steps), and
// both lookups are pure, so reusing them changes nothing.
struct Seen {
  std::int32_t src = -1;
  std::uint32_t kind = 0;
  const std::vector<RouteLink>* route = nullptr;
  Topology::Alone alone;
  static Seen look(const Topology& topo, const RankMessages::Msg& x, std::size_t dst,
                   const Kind& kind, double footprint) {
    const int to = static_cast<int>(dst);
    return {x.src, x.kind, &topo.route(x.src, to), topo.alone(x.src, to, kind.bytes, footprint)};
  }
  const Seen& see(const Topology& topo, const RankMessages::Msg& x, std::size_t dst,
                  const Kind& kind, double footprint) {
    if (src != x.src || this->kind != x.kind) *this = look(topo, x, dst, kind, footprint);
    return *this;
  }
};
constexpr std::size_t kSeen = 4;  // messages per rank and step whose lookups are kept

// One step's messages over a topology, gathered from every rank: structure of arrays, reused
// from step to step so pricing a step allocates nothing once the buffers have grown.
struct StepScratch {
  std::vector<int> src, dst;
  std::vector<const Kind*> kind;
  std::vector<const std::vector<RouteLink>*> route;
  std::vector<Topology::Alone> alone;
  std::vector<double> start, begin, served, own, time;
  std::vector<int> used;  // the links this step's flows cross, to clear on_link after
  std::vector<double> b, w, end, left;
  std::vector<std::size_t> order, active;
  void clear() {
    src.clear();
    dst.clear();
    kind.clear();
    route.clear();
    alone.clear();
  }
};

// One shared link serving its flows as a processor-sharing queue (SimGrid's fair sharing on a
// lone bottleneck): flow i arrives at begin[i] (its latency behind it) with bytes[i] to move;
// the link's bandwidth is split equally among the flows present. Writes each flow's end.
void processor_sharing(const std::vector<double>& begin, const std::vector<double>& bytes,
                       double bandwidth, StepScratch& s) {
  const std::size_t n = begin.size();
  std::vector<double>& end = s.end;
  end.assign(n, 0.0);
  if (n == 1) {  // the loop below for one flow, to the bit: bandwidth / 1 is bandwidth
    end[0] = begin[0] + bytes[0] / bandwidth;
    return;
  }
  std::vector<std::size_t>& order = s.order;
  order.resize(n);
  for (std::size_t i = 0; i < n; ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) {
    return begin[x] < begin[y] || (begin[x] == begin[y] && x < y);
  });
  std::vector<double>& left = s.left;
  left = bytes;
  std::vector<std::size_t>& active = s.active;
  active.clear();
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
}

// One step's messages over a topology (s.src .. s.route), each starting once both its ends
// have reached the step (s.start): their times, in s.time. A flow holds a link's bandwidth
// only after its latency and until it ends (SimGrid's fluid model), so each shared link is
// served as a processor-sharing queue of the flows crossing it, in their arrival order; a
// message ends when its last link has served it, at least its time alone (per-size factors
// included), a peer read stretching that. Flows in lockstep (equal starts and sizes) split the
// link for their whole life; flows entering a step microseconds apart (groups of a ddl
// dimension that finished the previous one at different times) overlap only in part, as in the
// simulation. Ranks' clocks drift apart, so one rank's step may meet another's previous step on
// a link: a link serves a step's flows only once it has served the earlier steps'
// (`link_free`), which keeps a saturated link's throughput what it is.
void step_times(StepScratch& s, std::vector<std::vector<std::size_t>>& on_link,
                std::vector<double>& link_free) {
  const std::size_t n = s.src.size();
  s.begin.resize(n);
  s.served.resize(n);
  s.own.resize(n);
  s.used.clear();
  for (std::size_t i = 0; i < n; ++i) {
    const double bytes = s.kind[i]->bytes;
    const Topology::Alone& alone = s.alone[i];
    s.begin[i] = s.start[i] + alone.latency;
    s.own[i] = alone.latency + alone.transfer;
    s.served[i] = s.begin[i];
    for (const RouteLink& l : *s.route[i]) {
      if (!l.shared) {
        s.served[i] = std::max(s.served[i], s.begin[i] + bytes / l.bandwidth);
        continue;
      }
      std::vector<std::size_t>& flows = on_link[static_cast<std::size_t>(l.id)];
      if (flows.empty()) s.used.push_back(l.id);
      flows.push_back(i);
    }
  }
  for (const int id : s.used) {
    std::vector<std::size_t>& flows = on_link[static_cast<std::size_t>(id)];
    s.b.clear();
    s.w.clear();
    double bandwidth = 0;
    double& free = link_free[static_cast<std::size_t>(id)];
    for (const std::size_t i : flows) {
      s.b.push_back(std::max(s.begin[i], free));
      s.w.push_back(s.kind[i]->bytes);
      for (const RouteLink& l : *s.route[i])
        if (l.id == id) bandwidth = l.bandwidth;
    }
    processor_sharing(s.b, s.w, bandwidth, s);
    for (std::size_t k = 0; k < flows.size(); ++k) {
      s.served[flows[k]] = std::max(s.served[flows[k]], s.end[k]);
      free = std::max(free, s.end[k]);
    }
    flows.clear();
  }
  s.time.resize(n);
  for (std::size_t i = 0; i < n; ++i)
    s.time[i] = std::max({s.served[i] - s.start[i], s.own[i], s.kind[i]->peer_read * s.own[i]});
}

// A rank's time through a step, as execute() plays it: its receives are reduced as they
// arrive while its sends complete, so it leaves after its last send and after its last receive
// plus its reduce; a step that reduces what it sends reduces only once both are done.
double leave_step(double sends_done, double recvs_done, double reduce_s, bool after_sends) {
  return after_sends ? std::max(sends_done, recvs_done) + reduce_s
                     : std::max(sends_done, recvs_done + reduce_s);
}

// Each rank keeps its own clock: a step's message starts when both its ends have finished the
// previous step, and a rank leaves a step as leave_step() says. The schedule's time is the last
// rank's clock.
double walk_topology(const Topology& topo, const std::vector<RankMessages>& ranks,
                     const KindTable& kinds, std::size_t steps, double footprint, double gamma) {
  const std::size_t p = ranks.size();
  std::vector<std::vector<std::size_t>> on_link(static_cast<std::size_t>(topo.link_count()));
  std::vector<double> link_free(on_link.size(), 0.0);  // when each link has served its flows
  std::vector<double> clock(p, 0.0), sends_done, recvs_done, reduced(p, 0.0);
  std::vector<char> after(p, 0);
  std::vector<Cursor> cursor(p);
  std::vector<Seen> last(p * kSeen);
  StepScratch s;
  for (std::size_t t = 0; t < steps; ++t) {
    // The step's messages in the order of the rank-by-rank walk: by receiver, then as posted.
    s.clear();
    for (std::size_t r = 0; r < p; ++r) {
      const RankMessages& m = ranks[r];
      Cursor& c = cursor[r];
      if (c.run == m.runs.size()) continue;
      const RankMessages::Run& run = m.runs[c.run];
      if (t < run.first) continue;
      for (std::size_t k = 0; k < run.per_step; ++k) {
        const RankMessages::Msg& x = m.msgs[c.msg++];
        const Kind& kind = kinds[x.kind];
        const Seen& seen = k < kSeen ? last[r * kSeen + k].see(topo, x, r, kind, footprint)
                                     : Seen::look(topo, x, r, kind, footprint);
        s.src.push_back(x.src);
        s.dst.push_back(static_cast<int>(r));
        s.kind.push_back(&kind);
        s.route.push_back(seen.route);
        s.alone.push_back(seen.alone);
        if (kind.reduce) reduced[r] += kind.bytes;
        if (kind.after_sends) after[r] = 1;
      }
      if (t + 1 == run.first + run.steps) ++c.run;
    }
    const std::size_t n = s.src.size();
    s.start.resize(n);
    for (std::size_t i = 0; i < n; ++i)
      s.start[i] = std::max(clock[static_cast<std::size_t>(s.src[i])],
                            clock[static_cast<std::size_t>(s.dst[i])]);
    step_times(s, on_link, link_free);
    sends_done = clock;
    recvs_done = clock;
    for (std::size_t i = 0; i < n; ++i) {
      const double end = s.start[i] + s.time[i];
      double& sent = sends_done[static_cast<std::size_t>(s.src[i])];
      double& received = recvs_done[static_cast<std::size_t>(s.dst[i])];
      sent = std::max(sent, end);
      received = std::max(received, end);
    }
    for (std::size_t r = 0; r < p; ++r) {
      clock[r] = leave_step(sends_done[r], recvs_done[r], reduced[r] * gamma, after[r] != 0);
      reduced[r] = 0;
      after[r] = 0;
    }
  }
  return *std::max_element(clock.begin(), clock.end());
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
  // Per step the slowest rank's time (no topology); with a topology every rank's received
  // messages (flows are counted over all ranks before any message is priced).
  std::vector<double> step_time;
  std::vector<RankMessages> received(q.topology ? static_cast<std::size_t>(p) : 0);
  KindTable kinds;
  std::size_t longest = 0;
  std::vector<RankMessages::Msg> mine;  // this rank's messages, before they are kept to size
  for (int r = 0; r < p; ++r) {
    const std::vector<Schedule> schedules = build(r);
    std::size_t steps = 0;
    for (const Schedule& s : schedules) steps = std::max(steps, s.size());
    longest = std::max(longest, steps);
    if (!q.topology && step_time.size() < steps) step_time.resize(steps, 0.0);
    RankMessages* kept = q.topology ? &received[static_cast<std::size_t>(r)] : nullptr;
    mine.clear();
    SentBytes sent;
    std::vector<ClassLoad> load(2 * static_cast<std::size_t>(classes));
    for (std::size_t t = 0; t < steps; ++t) {
      std::fill(load.begin(), load.end(), ClassLoad{});
      const std::size_t before = mine.size();
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
          if (kept) {
            mine.push_back({x.peer, kinds.index({bytes, factor, s[t].reduce, after})});
            continue;
          }
          const int d = link_class(coords, x.peer, r);
          const LinkCost l =
              c.message ? c.message(d, bytes) : c.per_dim[static_cast<std::size_t>(d)];
          ClassLoad& in = load[static_cast<std::size_t>(classes + d)];
          in.alpha = std::max(in.alpha, l.latency(bytes));
          in.transfer += bytes * l.beta;
          in.lone = std::max(in.lone, factor * (l.latency(bytes) + bytes * l.beta));
        }
        for (const Transfer& x : s[t].sends) {
          if (x.bytes == 0) continue;
          if (c.peer_read) sent.add(x.offset, x.offset + x.bytes);
          if (kept) continue;  // the receiver lists it
          const double bytes = static_cast<double>(x.bytes);
          const int d = link_class(coords, r, x.peer);
          const LinkCost l =
              c.message ? c.message(d, bytes) : c.per_dim[static_cast<std::size_t>(d)];
          ClassLoad& out = load[static_cast<std::size_t>(d)];
          out.alpha = std::max(out.alpha, l.latency(bytes));
          out.transfer += bytes * l.beta;
        }
      }
      if (c.peer_read)
        for (const Schedule& s : schedules)
          if (t < s.size())
            for (const Transfer& x : s[t].recvs) sent.remove(x.offset, x.offset + x.bytes);
      if (kept) {
        kept->count_step(t, mine.size() - before);
        continue;
      }
      double sends = 0, recvs = 0;  // load[d]: sends on class d; load[classes + d]: receives
      for (std::size_t d = 0; d < static_cast<std::size_t>(classes); ++d) {
        sends = std::max(sends, load[d].time());
        recvs = std::max(recvs, load[static_cast<std::size_t>(classes) + d].time());
      }
      step_time[t] = std::max(step_time[t], leave_step(sends, recvs, reduced * c.gamma, after));
    }
    if (kept) {
      kept->msgs.assign(mine.begin(), mine.end());  // to size: what is kept for every rank
      kept->runs.shrink_to_fit();
    }
  }
  if (q.topology)
    return walk_topology(*q.topology, received, kinds, longest, static_cast<double>(q.bytes),
                         c.gamma);
  double total = 0;
  for (const double s : step_time) total += s;
  return total;
}

}  // namespace ddl
