// ddl: PowerAI DDL's multi-dimensional, multi-ring allreduce.
//
// The p ranks form a grid d1 x d2 x ... x dk (dimension 1 innermost: the GPUs of one node).
// A *group* along dimension i is the d_i ranks that differ only in coordinate i. Reduce-
// scatter runs along dimension 1, then 2, ..., k, each on the *piece* the previous one left
// (S, S/d1, S/(d1 d2), ...), so the slow outer links carry already-shrunk pieces; an allgather
// then runs back along k, ..., 1. With rings = R the buffer is cut into R *slices* that run
// concurrently, slice j walking the dimensions in rotated order starting at dimension j mod k,
// so every link class is busy at once. Inside a dimension the exchange is a ring (d_i - 1
// steps) or halving-doubling (log2 d_i steps, power-of-two d_i) per Options::methods, its
// distances near-first or far-first per Options::hd_order (see allreduce_rhd.cpp).
//
// With chunks = K every slice is cut into K *chunks*, each walking the dimensions as a
// schedule of its own, played independently (schedule.hpp, ExecOptions::gates): chunk k starts
// once chunk k-1 has left the first dimension's reduce-scatter, so chunk k reduces inside the
// nodes while chunk k-1 crosses the network and chunk k-2 gathers back: every link class is
// busy at once (the *phases* of a chunk are its 2k reduce-scatters and allgathers).
//
// Cost (R = 1, rings in every dimension, S_i = S / (d_1 ... d_{i-1})):
//   sum_i [ 2 (d_i - 1) α_i + 2 (d_i - 1)/d_i S_i β_i + (d_i - 1)/d_i S_i γ ]
// i.e. 2 Σ(d_i - 1) steps instead of the flat ring's 2(p - 1), and dimension i moves only
// S_i. With R slices each step costs the slowest of its concurrent transfers (see cost_model).
// With K chunks, T(c) the time of a phase on one chunk of c = S/K: every phase of one chunk
// (fill and drain) plus K - 1 chunks through the busiest resource: a dimension's links, which
// its reduce-scatter and allgather share (their bytes' time: chunks queue there, so no latency
// is waited out), or the first phase, which chunks enter one after another (the gate: there a
// chunk waits out its latencies too):
//   Σ_phases T(c) + (K - 1) max( T_rs,1(c), max_i [β-γ part of T_rs,i(c) + T_ag,i(c)] ).
#include "algorithms/allreduce_ddl.hpp"

#include <algorithm>
#include <bit>
#include <string>

#include "algorithms/collectives.hpp"
#include "algorithms/halving_doubling_steps.hpp"
#include "algorithms/ring_steps.hpp"
#include "algorithms/schedule_cost.hpp"

namespace ddl {

std::vector<int> ddl_dimension_order(int slice, int dims) {
  std::vector<int> order(static_cast<std::size_t>(dims));
  for (int i = 0; i < dims; ++i) order[static_cast<std::size_t>(i)] = (slice + i) % dims;
  return order;
}

namespace {

IntraMethod method_of(const Options& options, int dim) {
  return options.methods.empty() ? IntraMethod::ring
                                 : options.methods[static_cast<std::size_t>(dim)];
}

void check_options(const Dims& dims, const Options& options) {
  if (options.chunks < 1)
    throw InvalidArgument("ddl: chunks must be >= 1, got " + std::to_string(options.chunks));
  if (options.rings < 1)
    throw InvalidArgument("ddl: rings must be >= 1, got " + std::to_string(options.rings));
  if (!options.methods.empty() && options.methods.size() != static_cast<std::size_t>(dims.count()))
    throw InvalidArgument("ddl: " + std::to_string(options.methods.size()) +
                          " per-dimension methods given for dims '" + dims.to_string() + "'");
  for (int d = 0; d < dims.count(); ++d)
    if (method_of(options, d) == IntraMethod::halving_doubling && !is_power_of_two(dims.extent(d)))
      throw InvalidArgument("ddl: halving-doubling needs a power-of-two dimension; dimension " +
                            std::to_string(d + 1) + " of '" + dims.to_string() + "' is " +
                            std::to_string(dims.extent(d)));
}

void append(Schedule& to, const Schedule& steps) {
  to.insert(to.end(), steps.begin(), steps.end());
}

}  // namespace

std::vector<Block> ddl_pieces(const Dims& dims, int rank, int slice, Block range,
                              std::size_t elem_size, const Options& options) {
  check_options(dims, options);
  const std::vector<int> coords = dims.coords(rank);
  std::vector<Block> pieces = {range};
  for (int dim : ddl_dimension_order(slice, dims.count())) {
    const int extent = dims.extent(dim), me = coords[static_cast<std::size_t>(dim)];
    // The block this member holds reduced: its own for a ring, hd's (order-dependent) one.
    const int owned = method_of(options, dim) == IntraMethod::halving_doubling
                          ? hd_owned_block(me, extent, options.hd_order)
                          : me;
    pieces.push_back(partition(pieces.back(), static_cast<std::size_t>(extent),
                               elem_size)[static_cast<std::size_t>(owned)]);
  }
  return pieces;
}

std::vector<Schedule> ddl_phases(const Dims& dims, int rank, int slice, Block range,
                                 std::size_t elem_size, const Options& options) {
  const std::vector<Block> pieces = ddl_pieces(dims, rank, slice, range, elem_size, options);
  const std::vector<int> coords = dims.coords(rank);
  const std::vector<int> order = ddl_dimension_order(slice, dims.count());
  std::vector<Schedule> phases;
  for (std::size_t i = 0; i < order.size(); ++i) {
    const int dim = order[i];
    const Group group{dims.group(rank, dim), coords[static_cast<std::size_t>(dim)]};
    phases.push_back(method_of(options, dim) == IntraMethod::halving_doubling
                         ? hd_reduce_scatter(group, pieces[i], elem_size, dim, options.hd_order)
                         : ring_reduce_scatter(group, pieces[i], elem_size, dim));
  }
  for (std::size_t i = order.size(); i-- > 0;) {
    const int dim = order[i];
    const Group group{dims.group(rank, dim), coords[static_cast<std::size_t>(dim)]};
    phases.push_back(method_of(options, dim) == IntraMethod::halving_doubling
                         ? hd_allgather(group, pieces[i], elem_size, dim, options.hd_order)
                         : ring_allgather(group, pieces[i], elem_size, dim));
  }
  return phases;
}

std::vector<Schedule> ddl_half_schedules(const Dims& dims, int rank, std::size_t count,
                                         std::size_t elem_size, const Options& options,
                                         bool reduce_scatter, const char* name) {
  if (options.chunks != 1)
    throw InvalidArgument(
        std::string(name) +
        ": chunks pipeline ddl's allreduce only, got chunks=" + std::to_string(options.chunks));
  std::vector<Schedule> schedules;
  const std::vector<Block> slices =
      partition(count, static_cast<std::size_t>(options.rings), elem_size);
  const auto k = static_cast<std::size_t>(dims.count());
  for (int j = 0; j < options.rings; ++j) {
    const std::vector<Schedule> phases =
        ddl_phases(dims, rank, j, slices[static_cast<std::size_t>(j)], elem_size, options);
    Schedule schedule;
    for (std::size_t i = reduce_scatter ? 0 : k; i < (reduce_scatter ? k : 2 * k); ++i)
      append(schedule, phases[i]);
    schedules.push_back(std::move(schedule));
  }
  return schedules;
}

Holdings ddl_holdings(const Dims& dims, std::size_t count, std::size_t elem_size,
                      const Options& options) {
  check_options(dims, options);
  Holdings held(static_cast<std::size_t>(dims.rank_count()));
  const std::vector<Block> slices =
      partition(count, static_cast<std::size_t>(options.rings), elem_size);
  for (int r = 0; r < dims.rank_count(); ++r)
    for (int j = 0; j < options.rings; ++j)
      held[static_cast<std::size_t>(r)].push_back(
          ddl_pieces(dims, r, j, slices[static_cast<std::size_t>(j)], elem_size, options).back());
  return held;
}

std::vector<Schedule> ddl_schedules(const Dims& dims, int rank, std::size_t count,
                                    std::size_t elem_size, const Options& options) {
  check_options(dims, options);
  std::vector<Schedule> schedules;
  for (int j = 0; j < options.rings; ++j) {
    const Block slice = partition(count, static_cast<std::size_t>(options.rings),
                                  elem_size)[static_cast<std::size_t>(j)];
    for (const Block& chunk :
         partition(slice, static_cast<std::size_t>(options.chunks), elem_size)) {
      Schedule schedule;
      for (const Schedule& phase : ddl_phases(dims, rank, j, chunk, elem_size, options))
        append(schedule, phase);
      schedules.push_back(std::move(schedule));
    }
  }
  return schedules;
}

std::vector<Gate> ddl_gates(const Dims& dims, const Options& options) {
  check_options(dims, options);
  if (options.chunks == 1) return {};
  std::vector<Gate> gates;
  for (int j = 0; j < options.rings; ++j) {
    // Every chunk's first phase has the same steps: those of the slice's first dimension.
    const int first = ddl_dimension_order(j, dims.count()).front();
    const int d = dims.extent(first);
    const bool hd = method_of(options, first) == IntraMethod::halving_doubling;
    const auto steps =
        static_cast<std::size_t>(hd ? std::countr_zero(static_cast<unsigned>(d)) : d - 1);
    for (int k = 0; k < options.chunks; ++k)
      gates.push_back(k == 0 ? Gate{} : Gate{static_cast<int>(gates.size()) - 1, steps});
  }
  return gates;
}

void allreduce_ddl(Communicator& comm, MutView buf, DType type, ReduceOp op, const Options& opts) {
  const std::size_t count = element_count(buf, type);
  const Dims dims = effective_dims(opts, comm.size());
  check_options(dims, opts);
  if (comm.size() == 1 || count == 0) return;
  const std::vector<Schedule> schedules =
      ddl_schedules(dims, comm.rank(), count, dtype_size(type), opts);
  ExecOptions exec{opts.segment_bytes, opts.tag_base};
  exec.gates = ddl_gates(dims, opts);
  // Every rank walks the same dimensions with groups of the same size: runs are uniform (a
  // lockstep play's; an independent play plays every step).
  if (exec.gates.empty()) exec.uniform_runs = UniformRuns{};
  execute(comm, buf, type, reduction_op(op), schedules, exec);
  finish_average(comm, buf, type, op, static_cast<std::size_t>(comm.size()));
}

double allreduce_ddl_cost(const CostQuery& q) {
  const Dims grid = algorithm_grid(q);
  check_options(grid, q.options);
  if (q.options.chunks == 1)
    return price_schedules(q, [&](int r) { return ddl_schedules(grid, r, q.bytes, 1, q.options); });
  // Phase i of every slice's first chunk of c bytes, priced alone (the slices side by side, as
  // played).
  // A slice of fewer bytes than chunks has a chunk per byte (one-byte elements here), the rest
  // empty: they move nothing.
  const std::size_t slice = (q.bytes + static_cast<std::size_t>(q.options.rings) - 1) /
                            static_cast<std::size_t>(q.options.rings);
  const std::size_t chunks = std::min(static_cast<std::size_t>(q.options.chunks), slice);
  const std::size_t chunk = (slice + chunks - 1) / chunks;
  const int k = grid.count();
  auto phases = [&](std::size_t c) {
    const CostQuery one{q.dims, c, q.options, q.params, q.topology};
    std::vector<double> t(static_cast<std::size_t>(2 * k));
    for (int i = 0; i < 2 * k; ++i)
      t[static_cast<std::size_t>(i)] = price_schedules(one, [&](int r) {
        std::vector<Schedule> slices;
        for (int j = 0; j < q.options.rings; ++j)
          slices.push_back(
              ddl_phases(grid, r, j, {0, c}, 1, q.options)[static_cast<std::size_t>(i)]);
        return slices;
      });
    return t;
  };
  const std::vector<double> once = phases(chunk), twice = phases(2 * chunk);
  double fill = 0;
  for (double t : once) fill += t;
  // Chunks queue at the busiest dimension, several in flight, so its links never wait out a
  // latency: what a chunk costs there is its bytes' and reductions' time, the growth of the
  // phase's time from c to 2c bytes. Slice 0 walks dimension i in phases i (reduce-scatter)
  // and 2k-1-i (allgather), which share its links.
  auto bytes_time = [&](int i) {
    return twice[static_cast<std::size_t>(i)] - once[static_cast<std::size_t>(i)];
  };
  // The first phase is the gate (chunk k+1 starts it once chunk k has left it): a chain that
  // waits out its latencies, so a chunk costs there at least its whole time.
  double busiest = once[0];
  for (int i = 0; i < k; ++i)
    busiest = std::max(busiest, bytes_time(i) + bytes_time(2 * k - 1 - i));
  return fill + static_cast<double>(chunks - 1) * busiest;
}

}  // namespace ddl
