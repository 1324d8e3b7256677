#include "real/mpi/cross_memory.hpp"

#include <sys/uio.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "algorithms/error.hpp"
#include "real/mpi/bounded_mpi.hpp"
#include "real/mpi/mpi_error.hpp"

namespace ddl {
namespace {

constexpr std::uint64_t kProbe = 0x64646c2d636d6121ULL;  // what a peer must read back
// Static, so it lives at one address for the process's life, read by peers while they probe.
const volatile std::uint64_t probe_word = kProbe;

struct Member {
  int world_rank;
  int pid;
  std::uint64_t probe_address;
};

bool can_read(const Member& m) {
  std::uint64_t value = 0;
  iovec local{&value, sizeof value};
  iovec remote{reinterpret_cast<void*>(m.probe_address), sizeof value};
  return process_vm_readv(m.pid, &local, 1, &remote, 1, 0) == sizeof value && value == kProbe;
}

}  // namespace

std::vector<int> cross_memory_peers(MPI_Comm comm, double timeout_s) {
  int size = 0, rank = 0;
  check_mpi(MPI_Comm_size(comm, &size), "MPI_Comm_size");
  check_mpi(MPI_Comm_rank(comm, &rank), "MPI_Comm_rank");
  std::vector<int> pids(static_cast<std::size_t>(size), 0);
  const WatchdogGuard guard(timeout_s, "the search for ranks that share memory");
  MPI_Comm node = MPI_COMM_NULL;
  check_mpi(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node),
            "MPI_Comm_split_type(MPI_COMM_TYPE_SHARED)");
  int members = 0;
  check_mpi(MPI_Comm_size(node, &members), "MPI_Comm_size");
  const Member me{rank, static_cast<int>(getpid()), reinterpret_cast<std::uintptr_t>(&probe_word)};
  std::vector<Member> all(static_cast<std::size_t>(members));
  int ok = 1;
  int error = MPI_Allgather(&me, sizeof me, MPI_BYTE, all.data(), sizeof me, MPI_BYTE, node);
  if (error == MPI_SUCCESS) {
    for (const Member& m : all)
      if (m.world_rank != rank && !can_read(m)) ok = 0;
    error = MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, node);
  }
  MPI_Comm_free(&node);
  check_mpi(error, "exchanging process ids within the node");
  if (ok)
    for (const Member& m : all)
      if (m.world_rank != rank) pids[static_cast<std::size_t>(m.world_rank)] = m.pid;
  return pids;
}

void cross_memory_copy(CrossMemory direction, int pid, void* local, std::uint64_t remote_address,
                       std::size_t bytes) {
  auto* at = static_cast<char*>(local);
  std::uint64_t there = remote_address;
  while (bytes > 0) {
    iovec mine{at, bytes};
    iovec theirs{reinterpret_cast<void*>(there), bytes};
    const ssize_t moved = direction == CrossMemory::read
                              ? process_vm_readv(pid, &mine, 1, &theirs, 1, 0)
                              : process_vm_writev(pid, &mine, 1, &theirs, 1, 0);
    if (moved <= 0) {
      const int why = moved < 0 ? errno : EFAULT;
      throw BackendError(
          std::string(direction == CrossMemory::read ? "process_vm_readv" : "process_vm_writev") +
          " of " + std::to_string(bytes) + " bytes with process " + std::to_string(pid) + ": " +
          std::strerror(why));
    }
    at += moved;
    there += static_cast<std::uint64_t>(moved);
    bytes -= static_cast<std::size_t>(moved);
  }
}

}  // namespace ddl
