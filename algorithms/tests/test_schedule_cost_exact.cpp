// price_schedules against a straightforward walk: every rank's messages of every step held at
// once, each step's flows gathered anew with every message's route and time alone looked up
// afresh, by the same rules (step_semantics.hpp) and the same pricing of one step
// (step_pricing.hpp) as the model, so what is compared is the model's compact walk: its table of
// distinct messages, its runs of steps, its reused lookups and buffers, its clocks. The compact
// pricing must give the same numbers to the bit: ring, ddl (rings and halving-doubling), rhd and
// rd on a few rank counts, with link classes only and over a topology of nodes whose NICs are
// shared and whose spine is a FATPIPE, with and without peer reads. The rules and the pricing of
// one step are checked against hand-computed values in test_step_semantics.cpp.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstring>
#include <string>

#include "algorithms/allreduce_ddl.hpp"
#include "algorithms/allreduce_rd.hpp"
#include "algorithms/allreduce_rhd.hpp"
#include "algorithms/error.hpp"
#include "algorithms/ring_steps.hpp"
#include "algorithms/schedule_cost.hpp"
#include "algorithms/step_pricing.hpp"
#include "algorithms/step_semantics.hpp"
#include "algorithms/topology.hpp"

using namespace ddl;

namespace {

// One message of one step, as seen by the step's pricing.
struct Message {
  const std::vector<RouteLink>* route;
  int src, dst;
  double bytes;
  double peer_read;  // the slow-down factor of its receive into sent bytes (1: none)
};

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
    ByteRanges sent;
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
          if (c.peer_read && !s[t].reduce)
            factor =
                peer_read_ratio(c.peer_read(x.peer, r, bytes), sent_share(sent, x.offset, x.bytes));
          if (s[t].reduce) reduced += bytes;
          if (q.topology) {
            step_messages[t].push_back({&q.topology->route(x.peer, r), x.peer, r, bytes, factor});
            continue;
          }
          const int d = link_class(coords, x.peer, r);
          load[static_cast<std::size_t>(classes + d)].add_recv(message_cost(c, d, bytes), bytes,
                                                               factor);
        }
        for (const Transfer& x : s[t].sends) {
          if (x.bytes == 0) continue;
          if (c.peer_read) sent.add(x.offset, x.offset + x.bytes);
          if (q.topology) continue;  // the receiver lists it
          const double bytes = static_cast<double>(x.bytes);
          const int d = link_class(coords, r, x.peer);
          load[static_cast<std::size_t>(d)].add_send(message_cost(c, d, bytes), bytes);
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
    SharedLinks links(topo);
    std::vector<double> clock(static_cast<std::size_t>(p), 0.0);
    for (std::size_t t = 0; t < step_messages.size(); ++t) {
      const std::vector<Message>& ms = step_messages[t];
      StepFlows flows;
      for (const Message& m : ms) {
        flows.src.push_back(m.src);
        flows.dst.push_back(m.dst);
        flows.bytes.push_back(m.bytes);
        flows.peer_read.push_back(m.peer_read);
        flows.route.push_back(m.route);
        flows.alone.push_back(topo.alone(m.src, m.dst, m.bytes, static_cast<double>(q.bytes)));
        flows.start.push_back(std::max(clock[static_cast<std::size_t>(m.src)],
                                       clock[static_cast<std::size_t>(m.dst)]));
      }
      links.price_step(flows);
      std::vector<double> sends = clock, recvs = clock;
      for (std::size_t i = 0; i < ms.size(); ++i) {
        double& sent = sends[static_cast<std::size_t>(ms[i].src)];
        double& received = recvs[static_cast<std::size_t>(ms[i].dst)];
        sent = std::max(sent, flows.start[i] + flows.time[i]);
        received = std::max(received, flows.start[i] + flows.time[i]);
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
