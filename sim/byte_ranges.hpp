// A set of bytes of one rank's memory, kept as disjoint half-open address ranges [begin, end)
// merged where they touch. SimCommunicator keeps in one the bytes its rank has sent from and
// not written since (see sim_communicator.hpp: receives into them cost more). Addresses are
// only compared, never dereferenced: timing-only views carry addresses of no memory.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>

namespace ddl::sim {

class ByteRanges {
 public:
  void add(std::uintptr_t begin, std::uintptr_t end);
  void remove(std::uintptr_t begin, std::uintptr_t end);
  // How many bytes of [begin, end) are in the set.
  std::size_t overlap(std::uintptr_t begin, std::uintptr_t end) const;
  std::size_t ranges() const { return ranges_.size(); }

 private:
  std::map<std::uintptr_t, std::uintptr_t> ranges_;  // begin -> end
};

}  // namespace ddl::sim
