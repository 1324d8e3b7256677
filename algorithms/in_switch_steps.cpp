#include "algorithms/in_switch_steps.hpp"

#include <limits>
#include <string>

#include "algorithms/error.hpp"
#include "algorithms/switch_chunks.hpp"

namespace ddl {

NodeRail node_and_rail(int ranks, int rank, int per_node, const char* algo) {
  if (per_node < 1 || ranks % per_node != 0)
    throw InvalidArgument(std::string(algo) + ": " + std::to_string(ranks) +
                          " ranks are no whole number of nodes of " + std::to_string(per_node));
  NodeRail nr;
  const int node = rank / per_node, local = rank % per_node;
  for (int i = 0; i < per_node; ++i) nr.node.ranks.push_back(node * per_node + i);
  nr.node.me = local;
  for (int n = 0; n < ranks / per_node; ++n) nr.rail.ranks.push_back(n * per_node + local);
  nr.rail.me = node;
  return nr;
}

std::vector<int> require_switch_domain(Communicator& comm, SwitchLevel level, const char* algo) {
  SwitchReduction* sr = comm.switch_reduction();
  if (sr == nullptr)
    throw InvalidArgument(std::string(algo) + ": this backend has no in-switch reduction (" +
                          to_string(level) + "); " + algo +
                          " runs on the simulator, on a platform whose switches reduce");
  std::vector<int> domain = sr->switch_domain(level);
  if (domain.empty())
    throw InvalidArgument(std::string(algo) + ": rank " + std::to_string(comm.rank()) +
                          " has no in-switch reduction (" + to_string(level) +
                          ") on this platform");
  return domain;
}

void require_domain_is(const std::vector<int>& domain, const Group& expected, SwitchLevel level,
                       int rank, const char* algo) {
  if (domain == expected.ranks) return;
  auto list = [](const std::vector<int>& r) {
    std::string s;
    for (int x : r) {  // appended one by one: GCC 12 warns (-Wrestrict) on `"," + std::string`
      if (!s.empty()) s += ',';
      s += std::to_string(x);
    }
    return s;
  };
  throw InvalidArgument(std::string(algo) + ": rank " + std::to_string(rank) + "'s " +
                        to_string(level) + " domain is ranks " + list(domain) + ", not " +
                        list(expected.ranks) +
                        " (nodes of consecutive ranks, rails of one local index)");
}

void run_switch(Communicator& comm, SwitchLevel level, SwitchCollective kind, MutView data,
                DType type, ReduceOp op) {
  Request r = comm.switch_reduction()->switch_collective(level, kind, data, type, op);
  comm.wait(r);
}

double switch_cost(const CostParams& params, SwitchLevel level, int members, SwitchCollective kind,
                   std::size_t bytes) {
  const SwitchCost& s = params.in_switch[static_cast<std::size_t>(level)];
  if (s.members == 0 || s.members != members) return std::numeric_limits<double>::infinity();
  return switch_collective_time(s, kind, bytes);
}

const char* to_string(SwitchLevel level) {
  return level == kNodeSwitch ? "the node's switch, NVLS" : "the network's switches, SHARP";
}

}  // namespace ddl
