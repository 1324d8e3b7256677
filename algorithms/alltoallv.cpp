#include "algorithms/alltoallv.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <numeric>
#include <string>

#include "algorithms/alltoallv_hier.hpp"
#include "algorithms/collectives.hpp"
#include "algorithms/out_of_place.hpp"
#include "algorithms/schedule_cost.hpp"

namespace ddl {

namespace {

constexpr AlltoallvAlgorithm kAlgorithms[] = {AlltoallvAlgorithm::pairwise,
                                              AlltoallvAlgorithm::linear, AlltoallvAlgorithm::hier};

std::string element_range(const char* side, std::size_t peer, const AlltoallvLayout& l) {
  return std::string(side) + " " + std::to_string(peer) + " (elements " +
         std::to_string(l.displs[peer]) + " to " + std::to_string(l.displs[peer] + l.counts[peer]) +
         ")";
}

void check_side(const char* name, const char* peer_word, int p, const AlltoallvLayout& l,
                std::size_t elements) {
  const auto n = static_cast<std::size_t>(p);
  if (l.counts.size() != n || l.displs.size() != n)
    throw InvalidArgument(std::string("alltoallv: the ") + name + " layout has " +
                          std::to_string(l.counts.size()) + " counts and " +
                          std::to_string(l.displs.size()) + " displacements; the group has " +
                          std::to_string(p) + " ranks, one of each per rank");
  for (std::size_t j = 0; j < n; ++j)  // an empty range may point anywhere, as in MPI
    if (l.counts[j] > 0 && (l.counts[j] > elements || l.displs[j] > elements - l.counts[j]))
      throw InvalidArgument(std::string("alltoallv: the ") + name + " range for " +
                            element_range(peer_word, j, l) + " ends past the " + name +
                            " buffer of " + std::to_string(elements) + " elements");
}

}  // namespace

std::string_view to_string(AlltoallvAlgorithm a) {
  switch (a) {
    case AlltoallvAlgorithm::pairwise: return "alltoallv_pairwise";
    case AlltoallvAlgorithm::linear: return "alltoallv_linear";
    case AlltoallvAlgorithm::hier: return "alltoallv_hier";
  }
  return "alltoallv_pairwise";
}

AlltoallvAlgorithm parse_alltoallv_algorithm(std::string_view name) {
  std::string known;
  for (AlltoallvAlgorithm a : kAlgorithms) {
    if (name == to_string(a)) return a;
    known += (known.empty() ? "" : ", ") + std::string(to_string(a));
  }
  throw InvalidArgument("unknown all-to-all-v algorithm '" + std::string(name) +
                        "' (known: " + known + ")");
}

void check_alltoallv_layout(int p, int rank, const AlltoallvLayout& send,
                            std::size_t input_elements, const AlltoallvLayout& recv,
                            std::size_t output_elements) {
  check_side("input", "rank", p, send, input_elements);
  check_side("output", "rank", p, recv, output_elements);
  const auto me = static_cast<std::size_t>(rank);
  if (send.counts[me] != recv.counts[me])
    throw InvalidArgument("alltoallv: rank " + std::to_string(rank) + " sends itself " +
                          std::to_string(send.counts[me]) + " elements and receives " +
                          std::to_string(recv.counts[me]) + " from itself");
  // Two peers writing the same output elements would race: the ranges must be disjoint.
  std::vector<std::size_t> order(recv.counts.size());
  std::iota(order.begin(), order.end(), 0);
  std::erase_if(order, [&](std::size_t j) { return recv.counts[j] == 0; });
  std::sort(order.begin(), order.end(),
            [&](std::size_t a, std::size_t b) { return recv.displs[a] < recv.displs[b]; });
  for (std::size_t k = 1; k < order.size(); ++k) {
    const std::size_t a = order[k - 1], b = order[k];
    if (recv.displs[a] + recv.counts[a] > recv.displs[b])
      throw InvalidArgument("alltoallv: the output ranges for " + element_range("rank", a, recv) +
                            " and " + element_range("rank", b, recv) + " overlap");
  }
}

Schedule alltoallv_steps(AlltoallvAlgorithm a, int p, int r, const AlltoallvLayout& send,
                         const AlltoallvLayout& recv, std::size_t elem_size) {
  DDL_CHECK(a != AlltoallvAlgorithm::hier, "alltoallv_steps: hier has phases of its own");
  auto range = [&](const AlltoallvLayout& l, int peer) {
    const auto j = static_cast<std::size_t>(peer);
    return Transfer{peer, l.displs[j] * elem_size, l.counts[j] * elem_size};
  };
  Schedule s;
  Step step;
  step.phase = "alltoallv";
  for (int k = 1; k < p; ++k) {
    const int to = (r + k) % p, from = (r - k + p) % p;
    step.sends.push_back(range(send, to));
    step.recvs.push_back(range(recv, from));
    if (a == AlltoallvAlgorithm::pairwise) {
      s.push_back(step);
      step.sends.clear();
      step.recvs.clear();
    }
  }
  if (a == AlltoallvAlgorithm::linear && p > 1) s.push_back(step);
  return s;
}

void alltoallv(Communicator& comm, ConstView input, const AlltoallvLayout& send, MutView output,
               const AlltoallvLayout& recv, DType type, const Options& opts, AlltoallvAlgorithm a,
               const EverySendCounts* every_send_counts) {
  const std::size_t elem = dtype_size(type);
  if (input.bytes % elem != 0 || output.bytes % elem != 0)
    throw InvalidArgument("alltoallv: a buffer of " +
                          std::to_string(input.bytes % elem ? input.bytes : output.bytes) +
                          " bytes is not a whole number of " + std::string(to_string(type)) +
                          " elements");
  check_alltoallv_layout(comm.size(), comm.rank(), send, input.bytes / elem, recv,
                         output.bytes / elem);
  const auto* in = static_cast<const std::byte*>(input.data);
  const auto* out = static_cast<const std::byte*>(output.data);
  if (in && out && input.bytes && output.bytes && in < out + output.bytes && out < in + input.bytes)
    throw InvalidArgument(
        "alltoallv: the input and the output overlap (all-to-all-v reads one "
        "buffer and writes another)");
  if (a == AlltoallvAlgorithm::hier)
    return alltoallv_hier(comm, input, send, output, recv, type, opts, every_send_counts);
  const auto me = static_cast<std::size_t>(comm.rank());
  if (recv.counts[me] > 0)
    comm.copy(output.slice(recv.displs[me] * elem, recv.counts[me] * elem),
              input.slice(send.displs[me] * elem, send.counts[me] * elem));
  const Schedule schedule = alltoallv_steps(a, comm.size(), comm.rank(), send, recv, elem);
  ExecOptions options{opts.segment_bytes, opts.tag_base};
  options.send_from = input;
  execute(comm, output, type, ReduceOp::sum, std::span(&schedule, 1), options);
}

void agree_on_alltoallv_counts(Communicator& comm, std::span<const std::size_t> send_counts,
                               std::span<const std::size_t> recv_counts, const Options& opts) {
  const int p = comm.size();
  const auto n = static_cast<std::size_t>(p);
  DDL_CHECK(send_counts.size() == n && recv_counts.size() == n,
            "agree_on_alltoallv_counts: one count per rank");
  if (p == 1) return;
  // Word j: this rank's count to j; after the exchange, word i: i's count to this rank.
  std::vector<std::int64_t> heard(n);
  for (std::size_t j = 0; j < n; ++j) heard[j] = static_cast<std::int64_t>(send_counts[j]);
  alltoall_linear(comm, MutView{heard.data(), n * sizeof(std::int64_t)}, DType::int64,
                  ReduceOp::sum, opts);
  // The lowest mismatched pair (sender i, receiver me) as i p + me, its two counts beside it:
  // a minimum over every rank names the same pair everywhere.
  constexpr std::int64_t kNone = std::numeric_limits<std::int64_t>::max();
  std::int64_t pair = kNone;
  for (std::size_t i = 0; i < n && pair == kNone; ++i)
    if (static_cast<std::size_t>(heard[i]) != recv_counts[i])
      pair = static_cast<std::int64_t>(i * n) + comm.rank();
  allreduce_rd(comm, MutView{&pair, sizeof pair}, DType::int64, ReduceOp::min, opts);
  if (pair == kNone) return;
  const auto sender = static_cast<std::size_t>(pair) / n,
             receiver = static_cast<std::size_t>(pair) % n;
  std::int64_t counts[2] = {kNone, kNone};  // only the receiver knows both
  if (receiver == static_cast<std::size_t>(comm.rank()))
    counts[0] = heard[sender], counts[1] = static_cast<std::int64_t>(recv_counts[sender]);
  allreduce_rd(comm, MutView{counts, sizeof counts}, DType::int64, ReduceOp::min, opts);
  throw RanksDisagree("ranks disagree on the all-to-all-v counts: rank " + std::to_string(sender) +
                      " sends " + std::to_string(counts[0]) + " elements to rank " +
                      std::to_string(receiver) + ", which receives " + std::to_string(counts[1]));
}

double alltoallv_cost(const CostQuery& q, AlltoallvAlgorithm a, std::size_t elem_size,
                      const AlltoallvLayouts& layouts) {
  if (a == AlltoallvAlgorithm::hier) return alltoallv_hier_cost(q, elem_size, layouts);
  const int p = q.dims.rank_count();
  std::size_t most_copied = 0, most_received = 0;
  for (int r = 0; r < p; ++r) {
    const std::vector<std::size_t>& from = layouts(r).second.counts;
    most_copied = std::max(most_copied, from.at(static_cast<std::size_t>(r)));
    most_received = std::max(most_received,
                             std::accumulate(from.begin(), from.end(), std::size_t{0}) * elem_size);
  }
  // The schedules' price reads no size from the query but its nonzero-ness.
  const CostQuery sized{q.dims, most_received, q.options, q.params, q.topology};
  return price_schedules(
             sized,
             [&](int r) {
               const auto [send, recv] = layouts(r);
               return std::vector<Schedule>{alltoallv_steps(a, p, r, send, recv, elem_size)};
             }) +
         local_copy_cost(q.params, most_copied * elem_size);
}

}  // namespace ddl
