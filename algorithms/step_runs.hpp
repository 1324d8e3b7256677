// Runs of alike steps: the unit of step extrapolation (StepPacing, step_pacing.hpp).
//
// Two steps are *alike* when every schedule running side by side has a step at both or at
// neither, and where it has both they send to the same peers, receive from the same peers, in
// the same order, reduce or not alike, and every transfer's size differs by at most one element
// (a ring's blocks do: partition() differs by one element between blocks) and is empty in both
// or in neither (an empty transfer sends no message). A *run* is a maximal
// sequence of consecutive alike steps. A ring of g members is two runs of g-1 steps; ddl is one
// run per dimension and phase; halving-doubling is runs of one step (peers change every step).
//
// Alike steps cost the same time to within one element per transfer, once the ranks have
// settled into their common pace: that is why the rest of a long run can be costed from a few.
// The backend judges when they have settled; the algorithm says whether its runs start and end
// at the same steps on every rank (ExecOptions::uniform_runs): only then may a run end early, or
// a rank would skip steps its peer plays.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include "algorithms/schedule.hpp"

namespace ddl {

struct StepRun {
  std::size_t first = 0;  // the run is steps [first, last)
  std::size_t last = 0;
  bool operator==(const StepRun&) const = default;
};

bool alike(const Step& a, const Step& b, std::size_t elem_size);

// The runs of `schedules` side by side (step t = step t of each), covering [0, longest).
std::vector<StepRun> alike_runs(std::span<const Schedule> schedules, std::size_t elem_size);

}  // namespace ddl
