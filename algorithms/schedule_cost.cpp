#include "algorithms/schedule_cost.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <unordered_map>

#include "algorithms/error.hpp"
#include "algorithms/step_pricing.hpp"
#include "algorithms/step_semantics.hpp"
#include "algorithms/topology.hpp"

namespace ddl {

namespace {

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

// Each rank keeps its own clock: a step's message starts when both its ends have finished the
// previous step, and a rank leaves a step as leave_step() says. The schedule's time is the last
// rank's clock.
double walk_topology(const Topology& topo, const std::vector<RankMessages>& ranks,
                     const KindTable& kinds, std::size_t steps, double footprint, double gamma) {
  const std::size_t p = ranks.size();
  SharedLinks links(topo);
  std::vector<double> clock(p, 0.0), sends_done, recvs_done, reduced(p, 0.0);
  std::vector<char> after(p, 0);
  std::vector<Cursor> cursor(p);
  std::vector<Seen> last(p * kSeen);
  StepFlows s;
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
        s.bytes.push_back(kind.bytes);
        s.peer_read.push_back(kind.peer_read);
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
    links.price_step(s);
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
    ByteRanges sent;  // with peer reads: the bytes this rank has sent and not written since
    std::vector<ClassLoad> load(2 * static_cast<std::size_t>(classes));
    for (std::size_t t = 0; t < steps; ++t) {
      std::fill(load.begin(), load.end(), ClassLoad{});
      const std::size_t before = mine.size();
      double reduced = 0;
      bool after = false;
      for (const Schedule& s : schedules)
        if (t < s.size()) {
          after = after || reduces_what_it_sends(s[t]);
          reduced += static_cast<double>(reduced_bytes(s[t]));
        }
      // Receives are posted first (execute()): a peer read is judged on the earlier steps' sends.
      for (const Schedule& s : schedules) {
        if (t >= s.size()) continue;
        for (const Transfer& x : s[t].recvs) {
          if (x.bytes == 0) continue;
          const double bytes = static_cast<double>(x.bytes);
          double factor = 1;
          if (c.peer_read && !s[t].reduce)
            factor =
                peer_read_ratio(c.peer_read(x.peer, r, bytes), sent_share(sent, x.offset, x.bytes));
          if (kept) {
            mine.push_back({x.peer, kinds.index({bytes, factor, s[t].reduce, after})});
            continue;
          }
          const int d = link_class(coords, x.peer, r);
          load[static_cast<std::size_t>(classes + d)].add_recv(message_cost(c, d, bytes), bytes,
                                                               factor);
        }
        for (const Transfer& x : s[t].sends) {
          if (x.bytes == 0) continue;
          if (c.peer_read) sent.add(x.offset, x.offset + x.bytes);
          if (kept) continue;  // the receiver lists it
          const double bytes = static_cast<double>(x.bytes);
          const int d = link_class(coords, r, x.peer);
          load[static_cast<std::size_t>(d)].add_send(message_cost(c, d, bytes), bytes);
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
