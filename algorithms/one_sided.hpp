// One-sided access to the memory of ranks that share it: processes of one machine (the kernel's
// cross-memory attach), threads of one process, GPUs of one simulated node. A capability of some
// backends (Communicator::one_sided(), nullptr where there is none): `direct` runs on it and
// `auto` weighs `direct` only where every rank has it towards every other.
//
// A rank copies a byte range of a peer's buffer into its own memory (get) or its own bytes into
// it (put) while the peer does something else; the algorithm exchanges handles by messages and
// orders the accesses itself (allreduce_direct.cpp).
//
// The eager limit lives here rather than on the core because it is a fact about messages
// between ranks that share memory, read only where every rank does (auto's pricing, ddlrun's
// header): a backend without one-sided access has no such peers as far as algorithms know.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "algorithms/error.hpp"
#include "algorithms/view.hpp"

namespace ddl {

// How ranks that share memory reach a buffer of this rank (get/put below): plain words that an
// algorithm sends to its peers as a message. `owner` is the backend's (a process id on MPI).
struct MemoryHandle {
  std::uint64_t address = 0;
  std::uint64_t bytes = 0;
  std::uint64_t owner = 0;
};

class OneSided {
 public:
  virtual ~OneSided() = default;

  // Whether get/put reach that peer; the answer is the same on both ranks (false for itself).
  virtual bool shares_memory_with(int peer) const = 0;
  // The message size from which a message to a peer that shares memory goes by rendezvous
  // (the send completes only once the receiver has copied it and said so), as the transport
  // reports it; 0 when it is not known or every message goes eagerly. `auto` prices those
  // messages one α dearer (LinkCost::rendezvous_bytes).
  virtual std::size_t eager_limit() const = 0;
  // This rank's buffer as peers reach it.
  virtual MemoryHandle handle(MutView buffer) = 0;
  // Copy between `local` and bytes [offset, offset + local.bytes) of the peer's buffer behind
  // `remote` (a range outside it is an error); return when the copy is done.
  virtual void get(int peer, const MemoryHandle& remote, std::size_t offset, MutView local) = 0;
  virtual void put(int peer, const MemoryHandle& remote, std::size_t offset, ConstView local) = 0;
};

// For backends' get/put: throws InvalidArgument unless [offset, offset + bytes) lies inside the
// buffer behind `remote`.
inline void check_remote_range(const MemoryHandle& remote, std::size_t offset, std::size_t bytes,
                               const char* op, int peer) {
  if (offset > remote.bytes || bytes > remote.bytes - offset)
    throw InvalidArgument(std::string(op) + ": bytes [" + std::to_string(offset) + ", " +
                          std::to_string(offset + bytes) + ") are outside peer " +
                          std::to_string(peer) + "'s buffer of " + std::to_string(remote.bytes) +
                          " bytes");
}

}  // namespace ddl
