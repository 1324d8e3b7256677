// Step extrapolation (algorithms/step_runs.hpp): a timing-only backend may end a long run of
// alike steps early, once the ranks have settled into a common pace, and spend the time of the
// steps left without playing them. A capability (Communicator::step_pacing(), nullptr where
// there is none): the simulator offers it in timing-only mode; real backends never do, every
// step is played there, and so does a traced run (a trace shows every operation).
//
// execute() asks for it once per call, and only for schedules whose ranks all have their runs of
// alike steps at the same steps (ExecOptions::uniform_runs); it then announces every run and
// reports every step of it, and a long ring is built a window at a time only as far as it is
// played.
#pragma once

#include <cstddef>

namespace ddl {

class StepPacing {
 public:
  virtual ~StepPacing() = default;

  // A run of `length` alike steps starts; every rank begins the same runs in the same order.
  virtual void begin_alike_run(std::size_t length) = 0;
  // After each step of that run, `left` steps remaining: true when the backend has spent their
  // time, and they are then not played (every rank gets the same answer at the same step).
  virtual bool alike_step_done(std::size_t left) = 0;
};

}  // namespace ddl
