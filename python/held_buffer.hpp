// The memory of a Python buffer-protocol object (numpy arrays, bytearray, array.array), held
// for the duration of a collective: writable and contiguous, or refused with the reason.
#pragma once

#include <pybind11/pybind11.h>

#include <cstddef>
#include <string>

#include "algorithms/types.hpp"

namespace ddl::python {

// The element type of a buffer-protocol format ("f", "<d", "=q", ...) with `itemsize` bytes.
// Throws pybind11::type_error naming the format for any other, prefixed by `function` (the
// Python function called, "ddl.allreduce").
DType buffer_dtype(std::string format, std::size_t itemsize, const std::string& function);

class HeldBuffer {
 public:
  // Throws pybind11::type_error (no buffer protocol) or value_error (read-only, not
  // contiguous), the buffer then released; messages start with `function` ("ddl.allreduce").
  HeldBuffer(const pybind11::object& obj, std::string function);
  ~HeldBuffer() { PyBuffer_Release(&view_); }
  HeldBuffer(const HeldBuffer&) = delete;
  HeldBuffer& operator=(const HeldBuffer&) = delete;

  void* data() const { return view_.buf; }
  std::size_t bytes() const { return static_cast<std::size_t>(view_.len); }
  DType dtype() const;

 private:
  Py_buffer view_{};
  std::string function_;
};

}  // namespace ddl::python
