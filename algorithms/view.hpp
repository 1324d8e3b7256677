// Non-owning byte ranges. In timing-only mode the simulator moves no payload, so a 100 MB
// buffer on 4096 ranks costs no memory: the data pointer is null, or an address of no memory
// that only tells buffers apart (sim/sim_communicator.hpp); slicing keeps either kind.
#pragma once

#include <cstddef>

#include "algorithms/error.hpp"

namespace ddl {

struct ConstView {
  const void* data = nullptr;
  std::size_t bytes = 0;

  ConstView slice(std::size_t offset, std::size_t length) const {
    DDL_CHECK(offset <= bytes && length <= bytes - offset, "view slice out of range");
    return {data ? static_cast<const std::byte*>(data) + offset : nullptr, length};
  }
};

struct MutView {
  void* data = nullptr;
  std::size_t bytes = 0;

  MutView slice(std::size_t offset, std::size_t length) const {
    DDL_CHECK(offset <= bytes && length <= bytes - offset, "view slice out of range");
    return {data ? static_cast<std::byte*>(data) + offset : nullptr, length};
  }
  operator ConstView() const { return {data, bytes}; }
};

}  // namespace ddl
