// Algorithms by name, so --algo NAME and the tests can iterate over all of them.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "algorithms/communicator.hpp"
#include "algorithms/cost_params.hpp"
#include "algorithms/dims.hpp"

namespace ddl {

enum class Collective { allreduce, reduce_scatter, allgather, broadcast };
std::string_view to_string(Collective c);

// How one dimension of `ddl` exchanges inside a group.
enum class IntraMethod { ring, halving_doubling };

struct Options {
  // Logical grid; empty means one dimension holding every rank.
  Dims dims;
  // Pipelining granularity of every transfer; 0 = unsegmented.
  std::size_t segment_bytes = 0;
  // ddl: number of concurrent rotated-order slices (>= 1).
  int rings = 1;
  // ddl: per-dimension method; empty = ring everywhere; else one entry per dimension.
  std::vector<IntraMethod> methods;
  // broadcast: source rank.
  int root = 0;
  // Link and reduction costs of the machine, for `auto`; empty per_dim = a uniform network.
  CostParams cost;
  // Base of the tags this collective uses; collectives issued back to back may share it.
  int tag_base = 0;
};

// The shared signature. The buffer is in place and holds `count = bytes / dtype_size` elements:
//   allreduce      - every rank's input, replaced by the reduction over ranks;
//   reduce_scatter - every rank's input; on return block r (partition(count, p)) of rank r
//                    holds the reduction of everyone's block r; other bytes are undefined;
//   allgather      - block r of rank r is the input; on return every block is everywhere;
//   broadcast      - the root's buffer is copied to every rank.
using AlgorithmFn = std::function<void(Communicator&, MutView, DType, ReduceOp, const Options&)>;

struct Algorithm {
  std::string name;
  Collective collective;
  AlgorithmFn run;
  std::string summary;  // one line for --help
};

// Every algorithm, in a stable order (allreduce first).
const std::vector<Algorithm>& algorithms();
// Throws InvalidArgument listing the known names when `name` is unknown.
const Algorithm& find_algorithm(std::string_view name);
std::vector<std::string> algorithm_names(Collective c);

// Resolve opts.dims against the world: empty -> flat; mismatch -> InvalidArgument.
Dims effective_dims(const Options& opts, int world);

// bus bandwidth factor, as nccl-tests: allreduce 2(p-1)/p, reduce_scatter and allgather
// (p-1)/p, broadcast 1.
double bus_factor(Collective c, int ranks);

}  // namespace ddl
