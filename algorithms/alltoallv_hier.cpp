#include "algorithms/alltoallv_hier.hpp"

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <string>

#include "algorithms/out_of_place.hpp"
#include "algorithms/schedule_cost.hpp"

namespace ddl {

namespace {

// The counts' step of rank r: N counts of 8 bytes to and from every other member of its node;
// row x of either buffer is member x's.
Schedule counts_step(int g, int p, int r) {
  const int nodes = p / g, l = r % g, n = r / g;
  const std::size_t row = static_cast<std::size_t>(nodes) * sizeof(std::uint64_t);
  Step step;
  step.phase = "alltoallv_counts";
  step.dimension = 0;
  for (int k = 1; k < g; ++k) {
    const int to = (l + k) % g, from = (l - k + g) % g;
    step.sends.push_back({to + g * n, static_cast<std::size_t>(to) * row, row});
    step.recvs.push_back({from + g * n, static_cast<std::size_t>(from) * row, row});
  }
  return g > 1 ? Schedule{step} : Schedule{};
}

// from_node of rank r (alltoallv_hier_plan) from every rank's send counts.
std::vector<std::vector<std::size_t>> from_node_of(int g, int p, int r,
                                                   const EverySendCounts& every) {
  const int nodes = p / g, l = r % g, n = r / g;
  std::vector<std::vector<std::size_t>> from(
      static_cast<std::size_t>(g), std::vector<std::size_t>(static_cast<std::size_t>(nodes)));
  for (int x = 0; x < g; ++x)
    for (int m = 0; m < nodes; ++m)
      from[static_cast<std::size_t>(x)][static_cast<std::size_t>(m)] =
          every.at(static_cast<std::size_t>(x + g * n)).at(static_cast<std::size_t>(l + g * m));
  return from;
}

int node_size(const Dims& dims, int p) {
  const int g = dims.extent(0);
  DDL_CHECK(g >= 1 && p % g == 0, "alltoallv_hier: the grid's first extent divides the ranks");
  return g;
}

}  // namespace

AlltoallvHierPlan alltoallv_hier_plan(int g, int p, int r, const AlltoallvLayout& send,
                                      const AlltoallvLayout& recv,
                                      const std::vector<std::vector<std::size_t>>& from_node,
                                      std::size_t elem_size) {
  const int nodes = p / g, l = r % g, n = r / g;
  auto rank_of = [&](int x, int m) { return static_cast<std::size_t>(x + g * m); };
  auto sent = [&](int x, int m) {
    return from_node[static_cast<std::size_t>(x)][static_cast<std::size_t>(m)] * elem_size;
  };
  // Staging, member-major: at[x][m] = where member x's blocks for (l, m) land.
  std::vector<std::vector<std::size_t>> at(
      static_cast<std::size_t>(g), std::vector<std::size_t>(static_cast<std::size_t>(nodes)));
  AlltoallvHierPlan plan;
  for (int x = 0; x < g; ++x)
    for (int m = 0; m < nodes; ++m) {
      at[static_cast<std::size_t>(x)][static_cast<std::size_t>(m)] = plan.staging_bytes;
      plan.staging_bytes += sent(x, m);
    }
  auto staged = [&](int x, int m) {
    return Block{at[static_cast<std::size_t>(x)][static_cast<std::size_t>(m)], sent(x, m)};
  };
  auto input = [&](std::size_t j) {
    return Block{send.displs[j] * elem_size, send.counts[j] * elem_size};
  };
  auto output = [&](std::size_t i) {
    return Block{recv.displs[i] * elem_size, recv.counts[i] * elem_size};
  };
  for (int m = 0; m < nodes; ++m)
    if (sent(l, m) > 0) plan.stage.push_back({input(rank_of(l, m)), staged(l, m)});
  for (int k = 1; k < g; ++k) {
    const int to = (l + k) % g, from = (l - k + g) % g;
    Step step;
    step.phase = "alltoallv_node";
    step.dimension = 0;
    for (int m = 0; m < nodes; ++m) {
      const Block b = input(rank_of(to, m)), s = staged(from, m);
      step.sends.push_back({static_cast<int>(rank_of(to, n)), b.offset, b.bytes});
      step.recvs.push_back({static_cast<int>(rank_of(from, n)), s.offset, s.bytes});
    }
    plan.phase1.push_back(std::move(step));
  }
  for (int k = 1; k < nodes; ++k) {
    const int to = (n + k) % nodes, from = (n - k + nodes) % nodes;
    Step step;
    step.phase = "alltoallv_rail";  // across the grid's outer dimensions (no one dimension)
    for (int x = 0; x < g; ++x) {
      const Block s = staged(x, to), o = output(rank_of(x, from));
      step.sends.push_back({static_cast<int>(rank_of(l, to)), s.offset, s.bytes});
      step.recvs.push_back({static_cast<int>(rank_of(l, from)), o.offset, o.bytes});
    }
    plan.phase2.push_back(std::move(step));
  }
  for (int x = 0; x < g; ++x) {
    const Block s = staged(x, n), o = output(rank_of(x, n));
    if (s.bytes != o.bytes)
      throw RanksDisagree("alltoallv_hier: rank " + std::to_string(rank_of(x, n)) + " sends " +
                          std::to_string(s.bytes / elem_size) + " elements to rank " +
                          std::to_string(r) + ", which receives " +
                          std::to_string(o.bytes / elem_size));
    if (s.bytes > 0) plan.unstage.push_back({s, o});
  }
  return plan;
}

void alltoallv_hier(Communicator& comm, ConstView input, const AlltoallvLayout& send,
                    MutView output, const AlltoallvLayout& recv, DType type, const Options& opts,
                    const EverySendCounts* every_send_counts) {
  const int p = comm.size(), r = comm.rank();
  const int g = node_size(effective_dims(opts, p), p), nodes = p / g, l = r % g;
  const std::size_t elem = dtype_size(type);
  // Row x of `mine`: this rank's counts to (x, m) for every m; row x of `theirs`, once the
  // counts' step is over: member x's counts to (l, m).
  const auto cells = static_cast<std::size_t>(g) * static_cast<std::size_t>(nodes);
  std::vector<std::uint64_t> mine(cells), theirs(cells);
  for (int x = 0; x < g; ++x)
    for (int m = 0; m < nodes; ++m)
      mine[static_cast<std::size_t>(x * nodes + m)] =
          send.counts[static_cast<std::size_t>(x + g * m)];
  const Schedule counts = counts_step(g, p, r);
  if (!counts.empty()) {
    ExecOptions exchange{0, opts.tag_base};
    exchange.send_from = ConstView{mine.data(), cells * sizeof(std::uint64_t)};
    execute(comm, MutView{theirs.data(), cells * sizeof(std::uint64_t)}, DType::int64,
            ReduceOp::sum, std::span(&counts, 1), exchange);
  }
  std::vector<std::vector<std::size_t>> from_node;
  if (every_send_counts) {
    from_node = from_node_of(g, p, r, *every_send_counts);
  } else {
    from_node.assign(static_cast<std::size_t>(g),
                     std::vector<std::size_t>(static_cast<std::size_t>(nodes)));
    for (int x = 0; x < g; ++x)
      for (int m = 0; m < nodes; ++m)
        from_node[static_cast<std::size_t>(x)][static_cast<std::size_t>(m)] =
            x == l ? send.counts[static_cast<std::size_t>(l + g * m)]
                   : static_cast<std::size_t>(theirs[static_cast<std::size_t>(x * nodes + m)]);
  }
  const AlltoallvHierPlan plan = alltoallv_hier_plan(g, p, r, send, recv, from_node, elem);
  Scratch staging(comm, std::max(plan.staging_bytes, elem));
  for (const auto& [from, to] : plan.stage)
    comm.copy(staging.view().slice(to.offset, to.bytes), input.slice(from.offset, from.bytes));
  if (!plan.phase1.empty()) {
    ExecOptions node{opts.segment_bytes, opts.tag_base};
    node.send_from = input;
    execute(comm, staging.view(), type, ReduceOp::sum, std::span(&plan.phase1, 1), node);
  }
  if (!plan.phase2.empty()) {
    ExecOptions rail{opts.segment_bytes, opts.tag_base};
    rail.send_from = staging.view();
    execute(comm, output, type, ReduceOp::sum, std::span(&plan.phase2, 1), rail);
  }
  for (const auto& [from, to] : plan.unstage)
    comm.copy(output.slice(to.offset, to.bytes), staging.view().slice(from.offset, from.bytes));
}

double alltoallv_hier_cost(const CostQuery& q, std::size_t elem_size,
                           const AlltoallvLayouts& layouts) {
  const int p = q.dims.rank_count(), g = node_size(algorithm_grid(q), p);
  std::vector<AlltoallvLayout> sends, recvs;
  EverySendCounts every;
  std::size_t most_received = 0;
  for (int r = 0; r < p; ++r) {
    auto [send, recv] = layouts(r);
    every.push_back(send.counts);
    most_received = std::max(
        most_received,
        std::accumulate(recv.counts.begin(), recv.counts.end(), std::size_t{0}) * elem_size);
    sends.push_back(std::move(send));
    recvs.push_back(std::move(recv));
  }
  std::vector<AlltoallvHierPlan> plans;
  std::size_t most_copied = 0;
  for (int r = 0; r < p; ++r) {
    const auto u = static_cast<std::size_t>(r);
    plans.push_back(
        alltoallv_hier_plan(g, p, r, sends[u], recvs[u], from_node_of(g, p, r, every), elem_size));
    std::size_t copied = 0;
    for (const auto& c : plans.back().stage) copied += c.first.bytes;
    for (const auto& c : plans.back().unstage) copied += c.first.bytes;
    most_copied = std::max(most_copied, copied);
  }
  // The schedules' price reads no size from the query but its nonzero-ness.
  const CostQuery sized{q.dims, std::max<std::size_t>(most_received, 1), q.options, q.params,
                        q.topology};
  return price_schedules(sized,
                         [&](int r) {
                           const AlltoallvHierPlan& plan = plans[static_cast<std::size_t>(r)];
                           Schedule all = counts_step(g, p, r);
                           all.insert(all.end(), plan.phase1.begin(), plan.phase1.end());
                           all.insert(all.end(), plan.phase2.begin(), plan.phase2.end());
                           return std::vector<Schedule>{all};
                         }) +
         local_copy_cost(q.params, most_copied);
}

}  // namespace ddl
