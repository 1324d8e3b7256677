#include "python/held_buffer.hpp"

#include <utility>

namespace py = pybind11;

namespace ddl::python {
namespace {

// Why `view` cannot be reduced in place, or "" when it can.
std::string unusable(const Py_buffer& view, const std::string& function) {
  if (view.readonly)
    return function +
           ": the array is read-only (e.g. a numpy array with flags.writeable == "
           "False, or bytes); the result is written in place, so pass a writable array";
  if (PyBuffer_IsContiguous(&view, 'A')) return "";
  std::string strides, shape;
  for (int d = 0; d < view.ndim; ++d) {
    if (d > 0) {
      strides += ", ";
      shape += ", ";
    }
    strides += std::to_string(view.strides[d]);
    shape += std::to_string(view.shape[d]);
  }
  return function + ": the array is not contiguous (shape (" + shape + "), strides (" + strides +
         ") bytes); the result is written in place, so pass a contiguous array "
         "(np.ascontiguousarray(x), then copy the result back)";
}

}  // namespace

DType buffer_dtype(std::string format, std::size_t itemsize, const std::string& function) {
  const std::string given = format;
  // '@' and '=' mean native order, '<' little-endian: native on the x86-64 and arm64 hosts.
  if (!format.empty() && (format[0] == '@' || format[0] == '=' || format[0] == '<'))
    format.erase(0, 1);
  const bool is_signed_int = format == "i" || format == "l" || format == "q";
  if (format == "f" && itemsize == 4) return DType::float32;
  if (format == "d" && itemsize == 8) return DType::float64;
  if (format == "e" && itemsize == 2) return DType::float16;
  if (is_signed_int && itemsize == 4) return DType::int32;
  if (is_signed_int && itemsize == 8) return DType::int64;
  throw py::type_error(function + ": unsupported element type (buffer format '" + given + "', " +
                       std::to_string(itemsize) +
                       " bytes per element); ddl reduces float32, float64, float16, int32 and "
                       "int64 arrays (and bfloat16 torch tensors), in native byte order");
}

HeldBuffer::HeldBuffer(const py::object& obj, std::string function)
    : function_(std::move(function)) {
  if (PyObject_GetBuffer(obj.ptr(), &view_, PyBUF_STRIDES | PyBUF_FORMAT) != 0) {
    PyErr_Clear();
    throw py::type_error(function_ +
                         ": expected a numpy array, a torch CPU tensor or another writable buffer, "
                         "got " +
                         std::string(py::str(py::type::of(obj).attr("__name__"))));
  }
  // A constructor that throws runs no destructor: release the export here, or the array
  // would stay exported (numpy then refuses to resize it).
  const std::string why = unusable(view_, function_);
  if (why.empty()) return;
  PyBuffer_Release(&view_);
  throw py::value_error(why);
}

DType HeldBuffer::dtype() const {
  return buffer_dtype(view_.format ? view_.format : "B", static_cast<std::size_t>(view_.itemsize),
                      function_);
}

}  // namespace ddl::python
