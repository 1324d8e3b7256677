// The backend's own collective library (Open MPI's MPI_Allreduce under the MPI backend): a
// capability of some backends (Communicator::native_library(), nullptr where there is none: the
// simulator, loopback, CUDA). Through it the `native` allreduce runs the library's own, and
// `auto` chooses between ddl's algorithms and it from times measured on the machine itself.
//
// Why measured: the analytical model prices ddl's schedules, not another library's internals,
// and the figures it would need (a message's latency, a copy's rate) differ between machines
// of the same kind by more than the differences auto decides on (1-4 KB `direct` costs 2.8 us on
// one 2-core VM and 10 us on another). So on a backend with a library, auto follows a plan
// measured where it runs (measured_choice.hpp); elsewhere it keeps the model.
#pragma once

#include <memory>
#include <string>

#include "algorithms/dims.hpp"
#include "algorithms/plan.hpp"
#include "algorithms/types.hpp"
#include "algorithms/view.hpp"

namespace ddl {

class NativeLibrary {
 public:
  virtual ~NativeLibrary() = default;

  // What `native` runs ("MPI_Allreduce"), for messages.
  virtual std::string native_name() const = 0;
  // Whether the library reduces this element type (MPI has no 16-bit floats).
  virtual bool native_supports(DType type) const = 0;
  // The library's allreduce, in place, every rank with the same bytes, type and op; `op` is not
  // avg (sum, then divide). Bounded by the backend's timeout like its other waits.
  virtual void native_allreduce(MutView data, DType type, ReduceOp op) = 0;
  // The plan `auto` follows here for algorithms run on `grid` (plain options, types the library
  // supports): each size's fastest of ddl's algorithms and the library's, measured on these
  // ranks (measured_choice.hpp). Collective the first time for a grid (every rank calls it at
  // the same point: auto does, in its first collective); the backend measures then, or reads
  // what it measured before on this node (its cache), and keeps it. `basis` (when not null)
  // receives where it came from: "measured here in 2.5 s, cached in PATH" or "read from PATH,
  // ...", without parentheses (a table header's "auto picks (...)" holds it).
  virtual std::shared_ptr<const Plan> measured_plan(const Dims& grid, std::string* basis) = 0;
};

}  // namespace ddl
