// Grow-only pool of scratch buffers in one memory space. A collective's scratch is allocated
// the first time and reused afterwards: first-touch page faults cost more than the transfers on
// small machines, so buffers are touched once at allocation and kept for the program's life.
#pragma once

#include <cstddef>
#include <functional>
#include <vector>

#include "algorithms/view.hpp"

namespace ddl {

class ScratchPool {
 public:
  // allocate(bytes) returns memory that free_fn(pointer) later releases.
  ScratchPool(std::function<void*(std::size_t)> allocate, std::function<void(void*)> free_fn)
      : allocate_(std::move(allocate)), free_(std::move(free_fn)) {}
  ~ScratchPool() {
    for (Buffer& b : buffers_) free_(b.data);
  }
  ScratchPool(const ScratchPool&) = delete;
  ScratchPool& operator=(const ScratchPool&) = delete;

  // The smallest free buffer that fits, else a new one. Zero bytes -> an empty view.
  MutView acquire(std::size_t bytes) {
    if (bytes == 0) return {};
    Buffer* best = nullptr;
    for (Buffer& b : buffers_)
      if (!b.in_use && b.bytes >= bytes && (!best || b.bytes < best->bytes)) best = &b;
    if (!best) {
      buffers_.push_back({allocate_(bytes), bytes, false});
      best = &buffers_.back();
    }
    best->in_use = true;
    return {best->data, bytes};
  }

  void release(MutView view) {
    if (view.data == nullptr) return;
    for (Buffer& b : buffers_)
      if (b.data == view.data && b.in_use) {
        b.in_use = false;
        return;
      }
    throw InvalidArgument("release_scratch: the view was not acquired from this communicator");
  }

  std::size_t allocated_bytes() const {
    std::size_t total = 0;
    for (const Buffer& b : buffers_) total += b.bytes;
    return total;
  }

 private:
  struct Buffer {
    void* data;
    std::size_t bytes;
    bool in_use;
  };
  std::function<void*(std::size_t)> allocate_;
  std::function<void(void*)> free_;
  std::vector<Buffer> buffers_;
};

}  // namespace ddl
