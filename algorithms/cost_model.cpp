#include "algorithms/cost_model.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "algorithms/allreduce_dbtree.hpp"
#include "algorithms/allreduce_ddl.hpp"
#include "algorithms/tree_steps.hpp"
#include "algorithms/error.hpp"

namespace ddl {

namespace {

int ceil_log2(int n) {
  int k = 0;
  while ((1 << k) < n) ++k;
  return k;
}

// The slowest link class among the dimensions that have more than one rank: a flat ring or
// tree over a multi-level machine crosses it in every step (steps are paced by the slowest).
LinkCost slowest(const Dims& dims, const CostParams& c) {
  LinkCost worst{};
  for (int d = 0; d < dims.count(); ++d) {
    if (dims.extent(d) == 1) continue;
    const LinkCost& l = c.per_dim[static_cast<std::size_t>(d)];
    worst.alpha = std::max(worst.alpha, l.alpha);
    worst.beta = std::max(worst.beta, l.beta);
  }
  return worst;
}

double ring_rs(int p, double S, LinkCost l, double gamma) {
  return (p - 1) * (l.alpha + S / p * l.beta) + (p - 1) * S / p * gamma;
}
double ring_ag(int p, double S, LinkCost l) { return (p - 1) * (l.alpha + S / p * l.beta); }

double rhd(int p, double S, LinkCost l, double gamma) {
  const int q = 1 << (ceil_log2(p + 1) - 1);  // largest power of two <= p
  const double core = 2 * std::log2(q) * l.alpha + 2.0 * (q - 1) / q * S * l.beta +
                      static_cast<double>(q - 1) / q * S * gamma;
  // Fix-up: the extra ranks hand their whole buffer in, then get the result back.
  return q == p ? core : core + 2 * (l.alpha + S * l.beta) + S * gamma;
}

// Lockstep over the concurrent slices: each step costs the slowest of its transfers, and the
// rank reduces every slice's received bytes one after the other.
double ddl(const Dims& dims, const CostParams& c, double S, const Options& o) {
  const int k = dims.count(), rings = std::max(1, o.rings);
  struct Phase { int dim; double bytes; bool reduce; };
  std::vector<std::vector<Phase>> slices;  // per slice, one entry per step
  for (int j = 0; j < rings; ++j) {
    std::vector<Phase> steps;
    double piece = S / rings;
    std::vector<std::pair<int, double>> walked;
    for (int dim : ddl_dimension_order(j, k)) {
      const int d = dims.extent(dim);
      const bool hd = !o.methods.empty() &&
                      o.methods[static_cast<std::size_t>(dim)] == IntraMethod::halving_doubling;
      if (hd) {
        for (int m = d / 2; m >= 1; m /= 2) steps.push_back({dim, piece * m / d, true});
      } else {
        for (int s = 0; s < d - 1; ++s) steps.push_back({dim, piece / d, true});
      }
      walked.push_back({dim, piece});
      piece /= d;
    }
    for (auto it = walked.rbegin(); it != walked.rend(); ++it) {
      const int d = dims.extent(it->first);
      const bool hd = !o.methods.empty() && o.methods[static_cast<std::size_t>(it->first)] ==
                                                IntraMethod::halving_doubling;
      if (hd) {
        for (int m = 1; m < d; m *= 2) steps.push_back({it->first, it->second * m / d, false});
      } else {
        for (int s = 0; s < d - 1; ++s) steps.push_back({it->first, it->second / d, false});
      }
    }
    slices.push_back(std::move(steps));
  }
  double total = 0;
  for (std::size_t t = 0; t < slices[0].size(); ++t) {
    double transfer = 0, reduce = 0;
    for (const auto& s : slices) {
      const Phase& ph = s[t];
      const LinkCost& l = c.per_dim[static_cast<std::size_t>(ph.dim)];
      transfer = std::max(transfer, l.alpha + ph.bytes * l.beta);
      if (ph.reduce) reduce += ph.bytes * c.gamma;
    }
    total += transfer + reduce;
  }
  return total;
}

// Chain reduce to the node leader over dimension 1, ring among the L leaders, chain broadcast.
double hier(const Dims& dims, const CostParams& c, std::size_t bytes, const Options& o) {
  const int g = dims.extent(0), leaders = dims.rank_count() / g;
  const double S = static_cast<double>(bytes);
  double total = 0;
  if (g > 1) {
    const LinkCost in = c.per_dim[0];
    const double n = static_cast<double>(chain_chunks({0, bytes}, 1, o.segment_bytes, g).size());
    total += (g - 2 + n) * (2 * in.alpha + S / n * (2 * in.beta + c.gamma));
  }
  if (leaders > 1) {
    // The leaders' ring crosses the slowest of the outer dimensions.
    const Dims outer(std::vector<int>(dims.extents().begin() + 1, dims.extents().end()));
    const CostParams outer_cost{std::vector<LinkCost>(c.per_dim.begin() + 1, c.per_dim.end()),
                                c.gamma};
    const LinkCost across = slowest(outer, outer_cost);
    total += ring_rs(leaders, S, across, c.gamma) + ring_ag(leaders, S, across);
  }
  return total;
}

}  // namespace

double model_time(std::string_view name, const Dims& dims, const CostParams& c,
                  std::size_t bytes, const Options& o) {
  if (c.per_dim.size() != static_cast<std::size_t>(dims.count()))
    throw InvalidArgument("cost model: " + std::to_string(c.per_dim.size()) +
                          " link classes for dims '" + dims.to_string() + "'");
  const int p = dims.rank_count();
  const double S = static_cast<double>(bytes);
  if (p == 1 || bytes == 0) return 0;
  const LinkCost flat = slowest(dims, c);
  if (name == "ring") return ring_rs(p, S, flat, c.gamma) + ring_ag(p, S, flat);
  if (name == "reduce_scatter") return ring_rs(p, S, flat, c.gamma);
  if (name == "allgather") return ring_ag(p, S, flat);
  if (name == "rhd") return rhd(p, S, flat, c.gamma);
  if (name == "ddl") return ddl(dims, c, S, o);
  if (name == "broadcast_binomial") return ceil_log2(p) * (flat.alpha + S * flat.beta);
  if (name == "broadcast_chain") {
    const double n = static_cast<double>(chain_chunks({0, bytes}, 1, o.segment_bytes, p).size());
    return (p - 2 + n) * (flat.alpha + S / n * flat.beta);
  }
  if (name == "dbtree") {
    // Each tree pipelines its half in n chunks over n + 2H - 1 steps; interior nodes reduce
    // two children's chunks per upward step. In steady state a rank sends a chunk to its parent
    // and each child in both trees at once, all through its one link: a step moves k chunks,
    // k the largest such count over ranks (4 for p > 2: interior in one tree, leaf in the other).
    const double n = std::max<double>(
        1, static_cast<double>(dbtree_chunks({0, bytes / 2}, 1, o.segment_bytes).size()));
    const auto trees = double_binary_tree(p);
    std::size_t k = 1;
    for (std::size_t r = 0; r < static_cast<std::size_t>(p); ++r) {
      std::size_t sends = 0;
      for (const BinaryTree& t : trees) sends += (t.parent[r] >= 0 ? 1 : 0) + t.children[r].size();
      k = std::max(k, sends);
    }
    const int h = trees[0].height();
    return (n + 2 * h - 1) * (flat.alpha + static_cast<double>(k) * S / (2 * n) * flat.beta) +
           (n + h - 1) * S / n * c.gamma;
  }
  if (name == "hier") return hier(dims, c, bytes, o);
  if (name == "auto") return model_time(best_allreduce(dims, c, bytes, o), dims, c, bytes, o);
  throw InvalidArgument("cost model: no model for algorithm '" + std::string(name) + "'");
}

CostParams uniform_costs(const Dims& dims) {
  return {std::vector<LinkCost>(static_cast<std::size_t>(dims.count()), LinkCost{1e-6, 1e-10}),
          1e-11};
}

std::string best_allreduce(const Dims& dims, const CostParams& c, std::size_t bytes,
                           const Options& o) {
  std::string best;
  double best_time = 0;
  for (const std::string& name : algorithm_names(Collective::allreduce)) {
    if (name == "auto") continue;
    const double t = model_time(name, dims, c, bytes, o);
    if (best.empty() || t < best_time) {
      best = name;
      best_time = t;
    }
  }
  return best;
}

}  // namespace ddl
