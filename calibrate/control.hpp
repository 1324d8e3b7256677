// The collectives of calibration's control flow (a barrier before each repetition, the times'
// maximum over ranks after them), as point-to-point messages through rank 0 on the measuring
// communicator, every wait bounded. MPI's own collectives cannot say which rank never came;
// these can, so a rank that stopped or hangs is named, and the job ends instead of waiting:
//   - a measured message waits comm.timeout() (MpiCommunicator names the peer);
//   - rank 0 waits for the others kControlMargin longer and names the ranks that did not come;
//   - the others wait for rank 0 twice the margin longer, so rank 0 reports first unless it is
//     itself the rank that stopped.
// Every rank that times out throws ddl::Timeout; the tool aborts the job on it, so every
// surviving rank exits within the timeout plus a few seconds. Waits sleep between polls: idle
// ranks leave the cores to the ranks being measured.
#pragma once

#include <vector>

#include "real/mpi/mpi_communicator.hpp"

namespace ddl::calibrate {

inline constexpr double kControlMargin = 2.0;  // seconds

// All ranks arrive before any leaves. `what` names the place in messages ("a calibration
// barrier").
void control_barrier(MpiCommunicator& comm, const char* what);

// Element-wise maximum of every rank's `values` (the same length on every rank), on every rank.
void control_max(MpiCommunicator& comm, std::vector<double>& values, const char* what);

}  // namespace ddl::calibrate
