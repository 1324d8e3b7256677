#include "algorithms/cost_model.hpp"

#include <algorithm>
#include <string>

#include "algorithms/allreduce_dbtree.hpp"
#include "algorithms/allreduce_ddl.hpp"
#include "algorithms/error.hpp"
#include "algorithms/tree_steps.hpp"

namespace ddl {

namespace {

int ceil_log2(int n) {
  int k = 0;
  while ((1 << k) < n) ++k;
  return k;
}

// One message of `bytes` on dimension d: its link cost at that size where the params have one.
LinkCost link_at(const CostParams& c, int d, double bytes) {
  return c.message ? c.message(d, bytes) : c.per_dim[static_cast<std::size_t>(d)];
}

double send_time(const CostParams& c, int d, double bytes) {
  const LinkCost l = link_at(c, d, bytes);
  return l.alpha + bytes * l.beta;
}

// The slowest link class among the dimensions `dims` (the first `first` of c's dimensions
// skipped) that have more than one rank, for a message of `bytes`: a flat ring or tree over a
// multi-level machine crosses it in every step (steps are paced by the slowest).
LinkCost slowest(const Dims& dims, const CostParams& c, double bytes, int first = 0) {
  LinkCost worst{};
  for (int d = 0; d < dims.count(); ++d) {
    if (dims.extent(d) == 1) continue;
    const LinkCost l = link_at(c, first + d, bytes);
    worst.alpha = std::max(worst.alpha, l.alpha);
    worst.beta = std::max(worst.beta, l.beta);
  }
  return worst;
}

// Time of one message of `bytes` over the slowest class of a flat algorithm.
double flat_send(const Dims& dims, const CostParams& c, double bytes, int first = 0) {
  const LinkCost l = slowest(dims, c, bytes, first);
  return l.alpha + bytes * l.beta;
}

// The factor of a message of `bytes` into bytes its receiver last sent.
double peer_read(const CostParams& c, double bytes) {
  return c.peer_read ? c.peer_read(bytes) : 1.0;
}

double ring_rs(int p, double S, double step_send, double gamma) {
  return (p - 1) * step_send + (p - 1) * S / p * gamma;
}
double ring_ag(int p, double step_send) {
  return (p - 1) * step_send;
}

// Recursive halving then doubling: step i moves S / 2^i each way; a doubling step receives the
// half its halving step sent.
double rhd(const Dims& dims, const CostParams& c, double S) {
  const int p = dims.rank_count();
  const int q = 1 << (ceil_log2(p + 1) - 1);  // largest power of two <= p
  double core = static_cast<double>(q - 1) / q * S * c.gamma;
  for (int m = q / 2; m >= 1; m /= 2)
    core += (1 + peer_read(c, S * m / q)) * flat_send(dims, c, S * m / q);
  // Fix-up: the extra ranks hand their whole buffer in, then get the result back into it.
  return q == p ? core : core + (1 + peer_read(c, S)) * flat_send(dims, c, S) + S * c.gamma;
}

// Lockstep over the concurrent slices: each step costs the slowest of its transfers, and the
// rank reduces every slice's received bytes one after the other.
double ddl(const Dims& dims, const CostParams& c, double S, const Options& o) {
  const int k = dims.count(), rings = std::max(1, o.rings);
  struct Phase {
    int dim;
    double bytes;
    bool reduce;
  };
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
      // The allgather steps receive what the reduce-scatter steps sent.
      transfer = std::max(
          transfer, send_time(c, ph.dim, ph.bytes) * (ph.reduce ? 1.0 : peer_read(c, ph.bytes)));
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
    const double n = static_cast<double>(chain_chunks({0, bytes}, 1, o.segment_bytes, g).size());
    // Up the chain, then the result down into the chunks each member sent up.
    total += (g - 2 + n) * ((1 + peer_read(c, S / n)) * send_time(c, 0, S / n) + S / n * c.gamma);
  }
  if (leaders > 1) {
    // The leaders' ring crosses the slowest of the outer dimensions.
    const Dims outer(std::vector<int>(dims.extents().begin() + 1, dims.extents().end()));
    const double step = flat_send(outer, c, S / leaders, 1);
    total +=
        ring_rs(leaders, S, step, c.gamma) + ring_ag(leaders, step * peer_read(c, S / leaders));
  }
  return total;
}

}  // namespace

double model_time(std::string_view name, const Dims& dims, const CostParams& c, std::size_t bytes,
                  const Options& o) {
  if (c.per_dim.size() != static_cast<std::size_t>(dims.count()))
    throw InvalidArgument("cost model: " + std::to_string(c.per_dim.size()) +
                          " link classes for dims '" + dims.to_string() + "'");
  const int p = dims.rank_count();
  const double S = static_cast<double>(bytes);
  if (p == 1 || bytes == 0) return 0;
  const auto flat = [&](double message) { return flat_send(dims, c, message); };
  // An allreduce's ring allgather receives the blocks its reduce-scatter sent; a lone allgather
  // does not.
  if (name == "ring")
    return ring_rs(p, S, flat(S / p), c.gamma) + ring_ag(p, flat(S / p) * peer_read(c, S / p));
  if (name == "reduce_scatter") return ring_rs(p, S, flat(S / p), c.gamma);
  if (name == "allgather") return ring_ag(p, flat(S / p));
  if (name == "rhd") return rhd(dims, c, S);
  if (name == "ddl") return ddl(dims, c, S, o);
  if (name == "broadcast_binomial") return ceil_log2(p) * flat(S);
  if (name == "broadcast_chain") {
    const double n = static_cast<double>(chain_chunks({0, bytes}, 1, o.segment_bytes, p).size());
    return (p - 2 + n) * flat(S / n);
  }
  if (name == "dbtree") {
    // Each tree pipelines its half in n chunks over n + 2H - 1 steps. In steady state a rank
    // sends a chunk to its parent and each child in both trees at once, all through its one
    // link: a step moves k chunks, k the largest such count over ranks (4 for p > 2: interior
    // in one tree, leaf in the other, 2 for p = 2). An up step reduces the chunks of a rank's
    // children in its interior tree: r of them, the most children any rank has (2; 1 for p = 2).
    // The chunk down from the parent lands in the chunk sent up, but it shares the link with
    // the chunks coming up: its peer-read time (under 2x its own) is not what paces the step.
    const double n = std::max<double>(
        1, static_cast<double>(dbtree_chunks({0, bytes / 2}, 1, o.segment_bytes).size()));
    const double chunk = S / (2 * n);
    const auto trees = double_binary_tree(p);
    std::size_t k = 1, r = 1;
    for (std::size_t rank = 0; rank < static_cast<std::size_t>(p); ++rank) {
      std::size_t sends = 0;
      for (const BinaryTree& t : trees) {
        sends += (t.parent[rank] >= 0 ? 1 : 0) + t.children[rank].size();
        r = std::max(r, t.children[rank].size());
      }
      k = std::max(k, sends);
    }
    const int h = trees[0].height();
    const LinkCost l = slowest(dims, c, chunk);
    return (n + 2 * h - 1) * (l.alpha + static_cast<double>(k) * chunk * l.beta) +
           (n + h - 1) * static_cast<double>(r) * chunk * c.gamma;
  }
  if (name == "hier") return hier(dims, c, bytes, o);
  if (name == "auto") return model_time(best_allreduce(dims, c, bytes, o), dims, c, bytes, o);
  throw InvalidArgument("cost model: no model for algorithm '" + std::string(name) + "'");
}

CostParams uniform_costs(const Dims& dims) {
  CostParams c;
  c.per_dim.assign(static_cast<std::size_t>(dims.count()), LinkCost{1e-6, 1e-10});
  c.gamma = 1e-11;
  return c;
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
