// One-sided copies between the processes of one machine through the kernel's cross-memory
// attach (process_vm_readv / process_vm_writev: one copy, no shared mapping), the mechanism
// behind MpiCommunicator::get/put. Linux only, as Open MPI's own single-copy path (vader's cma).
#pragma once

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace ddl {

// For each rank of `comm`: the process id by which this rank reaches its memory, or 0 where it
// cannot (another node, or itself). Ranks of one MPI_COMM_TYPE_SHARED group share memory when
// each of them could read a probe word of every other; the group agrees on that (a kernel or
// container that forbids it, e.g. Yama ptrace_scope 2 or seccomp, makes all of them answer 0),
// so both ranks of a pair give the same answer. Collective over `comm`; every wait is bounded by
// `timeout_s` (the watchdog ends a run that never arrives).
std::vector<int> cross_memory_peers(MPI_Comm comm, double timeout_s);

// Copies `bytes` between `local` and `remote_address` in process `pid`: read (remote to local)
// or write. Throws BackendError naming the operation and errno when the kernel refuses or the
// range is not mapped there.
enum class CrossMemory { read, write };
void cross_memory_copy(CrossMemory direction, int pid, void* local, std::uint64_t remote_address,
                       std::size_t bytes);

}  // namespace ddl
