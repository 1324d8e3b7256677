// The three numbers of the α-β-γ model, per link class. Kept apart from cost_model.hpp so
// Options can carry them (the `auto` algorithm and the model column read them).
#pragma once

#include <vector>

namespace ddl {

struct LinkCost {
  double alpha = 0;  // s
  double beta = 0;   // s per byte
};

struct CostParams {
  // One entry per dimension of the grid (innermost first). Flat algorithms over a multi-
  // dimensional grid pay the slowest class that their ring or tree crosses.
  std::vector<LinkCost> per_dim;
  double gamma = 0;  // s per reduced byte
};

}  // namespace ddl
