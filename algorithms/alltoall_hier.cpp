// alltoall_hier: the two-level all-to-all of mixture-of-experts layers across nodes: first inside
// each node, then between nodes along the rails, so each pair of nodes exchanges one message per
// rail instead of one per pair of GPUs.
//
// Vocabulary: the grid g x N (Options::dims: g = its innermost extent, the GPUs of a node; N the
// rest), rank r = l + g n (local index l on node n); block j of a rank's buffer, B bytes
// (out_of_place.hpp's convention), is for rank j = x + g m, called *slot (x, m)*.
//   phase 1, in the node: g-1 pairwise steps; at step k rank (l, n) sends its slots (l+k, m) for
//            every node m to (l+k, n) and receives (l-k, n)'s slots (l, m) into its slots
//            (l-k, m). Afterwards slot (x, m) holds what (x, n) has for (l, m).
//   phase 2, on the rail: N-1 pairwise steps; at step k rank (l, n) sends its slots (x, n+k) for
//            every x, one contiguous run of g blocks, to (l, n+k) and receives (l, n-k)'s run into
//            its slots (x, n-k). Afterwards slot (x, m) holds what (x, m) sent to (l, n).
// Each phase sends from a copy of the buffer taken as it starts (its receives land in slots
// its later sends would read).
//
// Cost: (g-1)(α_0 + N B β_0) + (N-1)(α_1 + g B β_1) + 2 · 2/3 γ p B (the copies); against
// pairwise's (p-1) messages of B, N-1 network messages of g B each.
#include "algorithms/collectives.hpp"
#include "algorithms/out_of_place.hpp"
#include "algorithms/schedule_cost.hpp"

namespace ddl {

namespace {

// Rank r's two phases on the grid g x (p / g), blocks of `block` bytes.
std::vector<Schedule> hier_phases(int g, int p, int r, std::size_t block) {
  const int nodes = p / g, l = r % g, n = r / g;
  auto slot = [&](int x, int m) { return static_cast<std::size_t>(x + g * m) * block; };
  std::vector<Schedule> phases(2);
  for (int k = 1; k < g; ++k) {
    const int to = (l + k) % g, from = (l - k + g) % g;
    Step step;
    step.phase = "alltoall_node";
    step.dimension = 0;
    for (int m = 0; m < nodes; ++m) {
      step.sends.push_back({to + g * n, slot(to, m), block});
      step.recvs.push_back({from + g * n, slot(from, m), block});
    }
    phases[0].push_back(std::move(step));
  }
  for (int k = 1; k < nodes; ++k) {
    const int to = (n + k) % nodes, from = (n - k + nodes) % nodes;
    Step step;
    step.phase = "alltoall_rail";  // across the grid's outer dimensions (no one dimension)
    step.sends = {{l + g * to, slot(0, to), static_cast<std::size_t>(g) * block}};
    step.recvs = {{l + g * from, slot(0, from), static_cast<std::size_t>(g) * block}};
    phases[1].push_back(std::move(step));
  }
  return phases;
}

int ranks_per_node(const Options& opts, int p) {
  return effective_dims(opts, p).extent(0);
}

}  // namespace

void alltoall_hier(Communicator& comm, MutView buf, DType type, ReduceOp, const Options& opts) {
  const int p = comm.size();
  const std::size_t block = alltoall_block_bytes(element_count(buf, type), p, dtype_size(type));
  if (p == 1 || block == 0) return;
  const std::size_t bytes = block * static_cast<std::size_t>(p);
  for (const Schedule& phase : hier_phases(ranks_per_node(opts, p), p, comm.rank(), block))
    if (!phase.empty())
      run_out_of_place(comm, buf, bytes, type, phase, opts.segment_bytes, opts.tag_base);
}

double alltoall_hier_cost(const CostQuery& q) {
  const int p = q.dims.rank_count();
  const std::size_t block = q.bytes / static_cast<std::size_t>(p);
  if (p == 1 || block == 0) return 0;
  const int g = algorithm_grid(q).extent(0);
  double total = 0;
  for (std::size_t i = 0; i < 2; ++i) {
    if (hier_phases(g, p, 0, block)[i].empty()) continue;
    total += price_schedules(
                 q, [&](int r) { return std::vector<Schedule>{hier_phases(g, p, r, block)[i]}; }) +
             local_copy_cost(q.params, block * static_cast<std::size_t>(p));
  }
  return total;
}

}  // namespace ddl
