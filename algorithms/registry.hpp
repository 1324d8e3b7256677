// Algorithms by name, so --algo NAME and the tests can iterate over all of them.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "algorithms/collective.hpp"
#include "algorithms/communicator.hpp"
#include "algorithms/cost_params.hpp"
#include "algorithms/dims.hpp"

namespace ddl {

struct Plan;

// How one dimension of `ddl` exchanges inside a group.
enum class IntraMethod { ring, halving_doubling };

// The order of halving-doubling's distances (rhd, and ddl's hd dimensions): near = 1, 2, 4, ...
// first (the largest halves between neighbours), far = the largest distance first.
enum class HdOrder { near, far };

struct Options {
  // Logical grid; empty means one dimension holding every rank.
  Dims dims;
  // Pipelining granularity of every transfer; 0 = unsegmented.
  std::size_t segment_bytes = 0;
  // ddl: number of concurrent rotated-order slices (>= 1).
  int rings = 1;
  // ring: channels, each a ring over every rank in its own order that crosses between nodes
  // (dims' innermost dimension) through its own GPU, so through its own NIC (>= 1).
  int channels = 1;
  // ddl: chunks the buffer is pipelined over, each walking the dimensions as a schedule of its
  // own, a chunk starting once the previous one has left the first dimension (>= 1).
  int chunks = 1;
  // ddl: per-dimension method; empty = ring everywhere; else one entry per dimension.
  std::vector<IntraMethod> methods;
  // rhd and ddl's hd dimensions: the order of the reduce-scatter's distances.
  HdOrder hd_order = HdOrder::near;
  // broadcast, reduce, gather, scatter: the root rank.
  int root = 0;
  // Link and reduction costs of the machine, for `auto`; empty per_dim = a uniform network.
  CostParams cost;
  // auto: run the plan's algorithm for the size instead of the cost model's argmin.
  std::shared_ptr<const Plan> plan;
  // Base of the tags this collective uses; collectives issued back to back may share it.
  int tag_base = 0;
};

// The shared signature. The buffer is in place and holds `count = bytes / dtype_size` elements:
//   allreduce      - every rank's input, replaced by the reduction over ranks;
//   reduce_scatter - every rank's input; on return block r (partition(count, p)) of rank r
//                    holds the reduction of everyone's block r; other bytes are undefined;
//   allgather      - block r of rank r is the input; on return every block is everywhere;
//   broadcast      - the root's buffer is copied to every rank;
//   alltoall       - block j of rank r is for rank j, in blocks of b = count / p elements each
//                    (nccl-tests' convention: the last count % p elements are not sent and keep
//                    their value); on return block j of rank r holds what rank j sent to r;
//   reduce         - every rank's input; on return the root's buffer holds the reduction over
//                    ranks; the other ranks' bytes are undefined;
//   gather         - block r (partition(count, p)) of rank r is the input; on return the root
//                    holds every block; the other ranks' bytes outside their block are undefined;
//   scatter        - the root's buffer is the input; on return block r of rank r holds the
//                    root's block r; other bytes are undefined;
//   sendrecv       - every rank sends its buffer to rank r+1 and receives rank r-1's (mod p), as
//                    nccl-tests' sendrecv: on return the buffer holds rank r-1's input.
using AlgorithmFn = std::function<void(Communicator&, MutView, DType, ReduceOp, const Options&)>;

class Topology;

// What an algorithm's cost function is asked: the predicted time of one collective of `bytes`
// on the machine grid `dims` (whose dimensions are the link classes: params.per_dim has one
// entry per dimension) with `options` (whose dims, when set, are the algorithm's own grid over
// the same ranks); over `topology`'s routes with contention when it is set.
struct CostQuery {
  Dims dims;
  std::size_t bytes = 0;
  const Options& options;
  const CostParams& params;
  const Topology* topology = nullptr;
};
using CostFn = std::function<double(const CostQuery&)>;

// One entry of the table: the runner and, beside it, its cost (the table `auto` takes the
// argmin over, NCCL's cost-table shape).
// The fields of an algorithm string (algorithm_spec.hpp) an algorithm takes beyond segment.
enum SpecField : unsigned {
  kSpecDims = 1,
  kSpecMethods = 2,
  kSpecRings = 4,
  kSpecOrder = 8,
  kSpecChannels = 16,
  kSpecChunks = 32,
};

// What the planner (planner/candidates.hpp) searches of a collective's algorithms (ddlplan
// --coll: each collective's own); none: not a candidate
// (auto picks others, direct needs shared memory). The variants of each candidate follow from
// its SpecField bits: ring counts (kSpecRings) on a grid of two dims or more, far-first
// (kSpecOrder) where halving-doubling occurs: in every exchange of an algorithm that takes an
// order but no methods, in the hd dimensions of one that takes methods.
enum PlanRole : unsigned {
  kPlanPlain = 1,      // its name alone is a candidate (on the machine grid)
  kPlanGrids = 2,      // so is every factorization of the ranks (kSpecDims) x method (kSpecMethods)
  kPlanEverySize = 4,  // its name alone is priced at every size, whatever the anchors ranked
};

// An upper bound of the largest transfer one rank makes in one collective of `bytes` on the
// machine grid `grid`, run with `options` (whose dims, when set, are its own grid). The planner
// tries segment sizes below it only: a segment at least that large cuts nothing.
using TransferFn =
    std::function<std::size_t(const Dims& grid, std::size_t bytes, const Options& options)>;

struct Algorithm {
  std::string name;
  Collective collective;
  AlgorithmFn run;
  CostFn cost;
  std::string summary;  // one line for --help
  unsigned fields = 0;  // SpecField bits
  // Runs only where every rank reaches every other's memory (OneSided::shares_memory_with):
  // `--algo all` leaves it out elsewhere.
  bool needs_shared_memory = false;
  // Picks another allreduce per call (auto): the tools' --rings and --methods reach its picks.
  bool picks_others = false;
  unsigned plan = 0;                 // PlanRole bits
  TransferFn largest_transfer = {};  // empty: the whole buffer
  // Runs only where the backend's switches reduce (switch_reduction.hpp): bit 1 << SwitchLevel
  // for each level it needs. `--algo all` leaves it out elsewhere.
  unsigned needs_in_switch = 0;
  // Runs the backend's own library (native_library.hpp): only where the backend has one.
  // `--algo all` leaves it out elsewhere.
  bool needs_native_library = false;
};

// Every algorithm, in a stable order (allreduce first).
const std::vector<Algorithm>& algorithms();
// Tests only: `a` joins the table, after the shipped algorithms, for the rest of the process,
// so a test sees a new algorithm planned and priced as a shipped one is. Call it before other
// threads use the table. Throws InvalidArgument for a name already registered, and past a few
// such additions per process (references into the table stay valid: it never grows beyond the
// room it was given at start).
void register_test_algorithm(Algorithm a);
// A registered name, or an algorithm string (algorithm_spec.hpp): its algorithm with the
// string's fields applied to the options it is run and priced with, named by the canonical
// string (kept for the life of the process). Throws InvalidArgument listing the known names
// when the name is unknown, or naming the bad token of a bad string.
const Algorithm& find_algorithm(std::string_view name);
// The registered entry of that exact name, or null.
const Algorithm* find_registered(std::string_view name);
std::vector<std::string> algorithm_names(Collective c);

// Resolve opts.dims against the world: empty -> flat; mismatch -> InvalidArgument.
Dims effective_dims(const Options& opts, int world);
// The grid a cost query's algorithm runs on: options.dims, else the machine grid (the tools
// run with options.dims = the machine grid).
Dims algorithm_grid(const CostQuery& query);

// bus bandwidth factor, as nccl-tests: allreduce 2(p-1)/p; reduce_scatter, allgather,
// alltoall, gather and scatter (p-1)/p; broadcast, reduce and sendrecv 1.
double bus_factor(Collective c, int ranks);

}  // namespace ddl
