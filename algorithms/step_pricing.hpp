// How the model prices one step's messages (schedule_cost.hpp walks the steps and keeps the
// clocks; step_semantics.hpp says when a rank leaves a step):
// - without a topology, per link class: the messages one rank sends in a step on one class
//   share its one link of that class (their bytes add, the largest α is paid once), and so do the
//   messages it receives (ClassLoad);
// - over a topology, as flows: each shared link serves the flows crossing it as a processor-
//   sharing queue in their arrival order (SharedLinks::price_step).
#pragma once

#include <algorithm>
#include <cstddef>
#include <vector>

#include "algorithms/cost_params.hpp"
#include "algorithms/topology.hpp"

namespace ddl {

// The outermost dimension in which two ranks' coordinates differ (0 when they are equal): the
// link class of a message between them.
int link_class(const std::vector<std::vector<int>>& coords, int a, int b);

// The link cost of one message of `bytes` on class `dim`: per size where the params say so.
LinkCost message_cost(const CostParams& params, int dim, double bytes);

// Per rank, step, direction and class without a topology: the largest α, the sum of bytes x β
// and the slowest lone message (a peer read's own capped time).
struct ClassLoad {
  double alpha = 0, transfer = 0, lone = 0;
  double time() const { return std::max(alpha + transfer, lone); }
  void add_send(const LinkCost& l, double bytes);
  // A receive taking `peer_read` times its own time alone (1: not a peer read).
  void add_recv(const LinkCost& l, double bytes, double peer_read);
};

// One shared link serving its flows as a processor-sharing queue (SimGrid's fair sharing on a
// lone bottleneck): flow i arrives at begin[i] (its latency behind it) with bytes[i] to move;
// the link's bandwidth is split equally among the flows present. serve() writes each flow's end
// into `end`; the rest is working space kept from call to call.
struct ProcessorSharing {
  std::vector<double> end;
  void serve(const std::vector<double>& begin, const std::vector<double>& bytes, double bandwidth);

 private:
  std::vector<double> left_;
  std::vector<std::size_t> order_, active_;
};

// One step's messages over a topology, gathered from every rank: structure of arrays, reused
// from step to step so pricing a step allocates nothing once the buffers have grown. The caller
// fills the inputs (one entry per message); SharedLinks::price_step writes `time`.
struct StepFlows {
  std::vector<int> src, dst;
  std::vector<double> bytes;
  std::vector<double> peer_read;  // the slow-down factor of its receive into sent bytes (1: none)
  std::vector<const std::vector<RouteLink>*> route;
  std::vector<Topology::Alone> alone;
  std::vector<double> start;  // when both its ends have reached the step
  std::vector<double> time;   // out: from start to its end
  void clear();

 private:
  friend class SharedLinks;
  std::vector<double> begin_, served_, own_;
  std::vector<int> used_;  // the links this step's flows cross, to clear on_link_ after
  std::vector<double> b_, w_;
  ProcessorSharing link_;
};

// The shared links of a topology as a walk over the steps meets them.
class SharedLinks {
 public:
  explicit SharedLinks(const Topology& topology);
  // Prices one step's flows: a flow holds a link's bandwidth only after its latency and until it
  // ends (SimGrid's fluid model), so each shared link is served as a processor-sharing queue of
  // the flows crossing it, in their arrival order; a message ends when its last link has served
  // it, at least its time alone (per-size factors included), a peer read stretching that. Flows
  // in lockstep (equal starts and sizes) split the link for their whole life; flows entering a
  // step microseconds apart (groups of a ddl dimension that finished the previous one at
  // different times) overlap only in part, as in the simulation. Ranks' clocks drift apart, so
  // one rank's step may meet another's previous step on a link: a link serves a step's flows
  // only once it has served the earlier steps', which keeps a saturated link's throughput what
  // it is.
  void price_step(StepFlows& s);

 private:
  std::vector<std::vector<std::size_t>> on_link_;  // per link: this step's flows on it
  std::vector<double> link_free_;                  // when each link has served its flows
};

}  // namespace ddl
