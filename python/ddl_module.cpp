// ddl._ddl: the compiled half of the Python package (python/ddl/ holds the Python half). It runs
// ddl's allreduce algorithms in place on memory Python owns, through the real backend's
// MpiCommunicator: a writable, contiguous buffer-protocol object (numpy arrays, bytearray,
// array.array), or a raw address + element count (torch tensors, checked by ddl/collectives.py).
// No data is copied on the way in or out. Errors become ValueError (bad arguments), TypeError
// (unsupported element type), TimeoutError (a wait ran out) or RuntimeError (MPI failures).
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cmath>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "algorithms/error.hpp"
#include "algorithms/registry.hpp"
#include "algorithms/types.hpp"
#include "python/mpi_session.hpp"

namespace py = pybind11;

namespace ddl::python {
namespace {

// One collective at a time: the GIL is released while a collective runs, and two Python threads
// allreducing on the one communicator at once would mix their messages.
std::mutex collective_mutex;

// Sets the Python exception that stands for `e` (prefixed with the function's name) and throws
// pybind11's marker for "a Python error is set".
[[noreturn]] void raise_python(const char* function, const Error& e) {
  PyObject* type = PyExc_RuntimeError;
  if (dynamic_cast<const InvalidArgument*>(&e)) type = PyExc_ValueError;
  if (dynamic_cast<const Timeout*>(&e)) type = PyExc_TimeoutError;
  PyErr_SetString(type, (std::string(function) + ": " + e.what()).c_str());
  throw py::error_already_set();
}

// dims: None (the node grid), "2x2", or a sequence of ints such as (2, 2).
std::optional<Dims> parse_dims(const py::object& dims) {
  if (dims.is_none()) return std::nullopt;
  if (py::isinstance<py::str>(dims)) return Dims::parse(dims.cast<std::string>());
  if (!py::isinstance<py::sequence>(dims))
    throw py::type_error(
        "ddl.allreduce: dims must be None, a string such as '2x2' or a sequence "
        "of ints such as (2, 2), not " +
        std::string(py::str(py::type::of(dims).attr("__name__"))));
  std::vector<int> extents;
  for (const py::handle item : dims.cast<py::sequence>()) {
    // Any integer (int, numpy.int64, ...) but not a bool, which is an int to Python.
    if (!PyIndex_Check(item.ptr()) || py::isinstance<py::bool_>(item))
      throw py::type_error("ddl.allreduce: every entry of dims must be an int, got " +
                           std::string(py::repr(item)));
    try {
      extents.push_back(item.cast<int>());
    } catch (const py::cast_error&) {
      throw py::value_error("ddl.allreduce: dims entry " + std::string(py::repr(item)) +
                            " is out of range");
    }
  }
  return Dims(extents);
}

struct Request {
  ReduceOp op;
  const Algorithm* algorithm;
  std::optional<Dims> dims;
  double timeout_s;
};

// Everything that can be checked without MPI, checked before any rank communicates.
Request parse_request(const std::string& op, const std::string& algo, const py::object& dims,
                      double timeout_s) {
  Request r{parse_reduce_op(op), &find_algorithm(algo), parse_dims(dims), timeout_s};
  if (r.algorithm->collective != Collective::allreduce) {
    std::string known;
    for (const std::string& name : algorithm_names(Collective::allreduce)) {
      if (!known.empty()) known += ", ";
      known += name;
    }
    throw InvalidArgument("'" + algo + "' is a " + std::string(to_string(r.algorithm->collective)) +
                          " algorithm, not an allreduce (allreduce algorithms: " + known + ")");
  }
  if (!std::isfinite(timeout_s) || timeout_s <= 0)
    throw InvalidArgument("timeout must be a positive number of seconds, got " +
                          std::string(py::repr(py::float_(timeout_s))));
  return r;
}

void run_allreduce(const Request& r, void* data, std::size_t bytes, DType type) {
  py::gil_scoped_release no_gil;  // other Python threads run while ranks communicate
  const std::lock_guard<std::mutex> lock(collective_mutex);
  MpiCommunicator& comm = world(r.timeout_s);
  Options opts;
  opts.dims = r.dims ? *r.dims : default_dims();
  opts.dims.require_world(comm.size());
  r.algorithm->run(comm, MutView{data, bytes}, type, r.op, opts);
}

// The element type of a buffer-protocol format ("f", "<d", "=q", ...) with `itemsize` bytes.
DType buffer_dtype(std::string format, std::size_t itemsize) {
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
  throw py::type_error("ddl.allreduce: unsupported element type (buffer format '" + given + "', " +
                       std::to_string(itemsize) +
                       " bytes per element); ddl reduces float32, float64, float16, int32 and "
                       "int64 arrays (and bfloat16 torch tensors), in native byte order");
}

// A writable, contiguous buffer held for the duration of the collective.
class HeldBuffer {
 public:
  explicit HeldBuffer(const py::object& obj) {
    if (PyObject_GetBuffer(obj.ptr(), &view_, PyBUF_STRIDES | PyBUF_FORMAT) != 0) {
      PyErr_Clear();
      throw py::type_error(
          "ddl.allreduce: expected a numpy array, a torch CPU tensor or another writable buffer, "
          "got " +
          std::string(py::str(py::type::of(obj).attr("__name__"))));
    }
    held_ = true;
    if (view_.readonly)
      throw py::value_error(
          "ddl.allreduce: the array is read-only (e.g. a numpy array with flags.writeable == "
          "False, or bytes); the result is written in place, so pass a writable array");
    if (!PyBuffer_IsContiguous(&view_, 'A')) {
      std::string strides, shape;
      for (int d = 0; d < view_.ndim; ++d) {
        if (d > 0) {
          strides += ", ";
          shape += ", ";
        }
        strides += std::to_string(view_.strides[d]);
        shape += std::to_string(view_.shape[d]);
      }
      throw py::value_error("ddl.allreduce: the array is not contiguous (shape (" + shape +
                            "), strides (" + strides +
                            ") bytes); the result is written in place, so pass a contiguous "
                            "array (np.ascontiguousarray(x), then copy the result back)");
    }
  }
  ~HeldBuffer() {
    if (held_) PyBuffer_Release(&view_);
  }
  HeldBuffer(const HeldBuffer&) = delete;
  HeldBuffer& operator=(const HeldBuffer&) = delete;

  void* data() const { return view_.buf; }
  std::size_t bytes() const { return static_cast<std::size_t>(view_.len); }
  DType dtype() const {
    return buffer_dtype(view_.format ? view_.format : "B",
                        static_cast<std::size_t>(view_.itemsize));
  }

 private:
  Py_buffer view_{};
  bool held_ = false;
};

void allreduce_buffer(const py::object& obj, const std::string& op, const std::string& algo,
                      const py::object& dims, double timeout_s) {
  try {
    const HeldBuffer buffer(obj);
    const DType type = buffer.dtype();
    const Request r = parse_request(op, algo, dims, timeout_s);
    run_allreduce(r, buffer.data(), buffer.bytes(), type);
  } catch (const Error& e) {
    raise_python("ddl.allreduce", e);
  }
}

// For torch tensors: ddl/collectives.py has checked device, layout, contiguity and dtype, and
// keeps the tensor alive across the call.
void allreduce_address(std::uintptr_t address, std::size_t count, const std::string& dtype,
                       const std::string& op, const std::string& algo, const py::object& dims,
                       double timeout_s) {
  try {
    const DType type = parse_dtype(dtype);
    const Request r = parse_request(op, algo, dims, timeout_s);
    run_allreduce(r, reinterpret_cast<void*>(address), count * dtype_size(type), type);
  } catch (const Error& e) {
    raise_python("ddl.allreduce", e);
  }
}

template <typename F>
auto translated(const char* function, F f) {
  try {
    return f();
  } catch (const Error& e) {
    raise_python(function, e);
  }
}

}  // namespace
}  // namespace ddl::python

PYBIND11_MODULE(_ddl, m) {
  using namespace ddl::python;
  m.doc() = "ddl's compiled core: allreduce over MPI (use the ddl package, not this module)";
  m.def("_allreduce_buffer", &allreduce_buffer, py::arg("x"), py::arg("op"), py::arg("algo"),
        py::arg("dims"), py::arg("timeout"));
  m.def("_allreduce_address", &allreduce_address, py::arg("address"), py::arg("count"),
        py::arg("dtype"), py::arg("op"), py::arg("algo"), py::arg("dims"), py::arg("timeout"));
  m.def(
      "rank", [] { return translated("ddl.rank", world_rank); },
      "This process's rank in MPI_COMM_WORLD (initialises MPI if needed).");
  m.def(
      "size", [] { return translated("ddl.size", world_size); },
      "The number of ranks in MPI_COMM_WORLD (initialises MPI if needed).");
  m.def(
      "algorithms", [] { return ddl::algorithm_names(ddl::Collective::allreduce); },
      "The names ddl.allreduce accepts as algo.");
  m.def("_shutdown", &shutdown);
  // Python's atexit handlers run before the interpreter is torn down, and before mpi4py's
  // C-level exit hook, so the communicator is freed while MPI is still up.
  py::module_::import("atexit").attr("register")(m.attr("_shutdown"));
}
