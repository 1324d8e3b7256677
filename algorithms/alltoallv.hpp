// all-to-all-v (MPI_Alltoallv; NCCL's grouped sends and receives): rank r sends each peer j its
// own number of elements, send.counts[j] from send.displs[j] of its input, and receives from
// each peer i recv.counts[i] elements at recv.displs[i] of its output. Mixture-of-experts layers
// route tokens so: each rank sends each expert the tokens routed to it, a different number each.
//
// Unlike the in-place collectives (registry.hpp), input and output are separate buffers and the
// counts differ from rank to rank, so it has its own entry point. The schedules are alltoall's
// (pairwise, linear) with each block's own length; a block of no elements is not sent.
//
// Cost: pairwise: sum over its p-1 steps of α + β max(bytes sent, bytes received) (the
// schedule's price on the query's network); linear: one step with every flow at once.
#pragma once

#include <cstddef>
#include <functional>
#include <span>
#include <string_view>
#include <utility>
#include <vector>

#include "algorithms/registry.hpp"
#include "algorithms/schedule.hpp"

namespace ddl {

// One side of a rank's all-to-all-v: per peer (world rank of the communicator), a count and a
// displacement, in elements.
struct AlltoallvLayout {
  std::vector<std::size_t> counts;
  std::vector<std::size_t> displs;
};

// hier: two levels, in the node then on the rails (alltoallv_hier.hpp).
enum class AlltoallvAlgorithm { pairwise, linear, hier };
// "alltoallv_pairwise", "alltoallv_linear", "alltoallv_hier".
std::string_view to_string(AlltoallvAlgorithm a);
// The algorithm of that name; InvalidArgument listing the names otherwise.
AlltoallvAlgorithm parse_alltoallv_algorithm(std::string_view name);

// This rank's side of the call is well-formed for p ranks, or InvalidArgument naming what is
// not: a layout of other than p entries, a nonempty range past its buffer (of `input_elements` and
// `output_elements`), two receive ranges that overlap, a count to itself other than the count
// from itself.
void check_alltoallv_layout(int p, int rank, const AlltoallvLayout& send,
                            std::size_t input_elements, const AlltoallvLayout& recv,
                            std::size_t output_elements);

// Rank `r`'s schedule of pairwise or linear: byte offsets of sends are into the input, of
// receives into the output. The block to itself is not in it (alltoallv copies it).
Schedule alltoallv_steps(AlltoallvAlgorithm a, int p, int r, const AlltoallvLayout& send,
                         const AlltoallvLayout& recv, std::size_t elem_size);

// Every rank's send counts, rank q's at [q]: what alltoallv_hier's counts step delivers, for a
// caller that knows them already (alltoallv_hier.hpp).
using EverySendCounts = std::vector<std::vector<std::size_t>>;

// Runs it: checks this rank's layout (check_alltoallv_layout), copies the block to itself, and
// plays the schedule with sends reading `input`, receives writing `output`; the two must not
// overlap. Every rank's send count to j must be j's receive count from it: the library layers
// check that first (agree_on_alltoallv_counts); here a mismatch ends in a timeout or a size error.
// hier runs on opts.dims (default: the communicator's grid); `every_send_counts`: see there.
void alltoallv(Communicator& comm, ConstView input, const AlltoallvLayout& send, MutView output,
               const AlltoallvLayout& recv, DType type, const Options& opts, AlltoallvAlgorithm a,
               const EverySendCounts* every_send_counts = nullptr);

// Collective: every rank learns whether each rank's send count to each peer is that peer's
// receive count from it (one all-to-all of p counts and one allreduce of a word). Returns when
// they match; else throws RanksDisagree on every rank, with the same text everywhere, naming
// the lowest pair: "ranks disagree on the all-to-all-v counts: rank 2 sends 5 elements to
// rank 0, which receives 4".
void agree_on_alltoallv_counts(Communicator& comm, std::span<const std::size_t> send_counts,
                               std::span<const std::size_t> recv_counts, const Options& opts);

// The predicted time of every rank's schedule on the query's network (q.bytes is not read), rank
// r's layouts from layouts(r), plus each rank's copy to itself.
using AlltoallvLayouts = std::function<std::pair<AlltoallvLayout, AlltoallvLayout>(int rank)>;
double alltoallv_cost(const CostQuery& q, AlltoallvAlgorithm a, std::size_t elem_size,
                      const AlltoallvLayouts& layouts);

}  // namespace ddl
