// ddl._ddl: the compiled half of the Python package (python/ddl/ holds the Python half). It runs
// ddl's collectives (allreduce and the others of algorithms/registry.hpp) in place on memory
// Python owns, through the real backend's
// MpiCommunicator: a writable, contiguous buffer-protocol object (numpy arrays, bytearray,
// array.array), or a raw address + element count (torch tensors, checked by ddl/collectives.py).
// No data is copied on the way in or out. Errors become ValueError (bad arguments, or ranks
// whose calls differ), TypeError (unsupported element type), TimeoutError (a wait ran out) or
// RuntimeError (MPI failures). Every call is agreed by every rank before its data moves.
// Beside them, without MPI: an LLM step's Chakra traces for ddl.workload (write_llm_chakra).
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cmath>
#include <cstdint>
#include <exception>
#include <fstream>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "algorithms/algorithm_spec.hpp"
#include "algorithms/alltoallv.hpp"
#include "algorithms/error.hpp"
#include "algorithms/registry.hpp"
#include "algorithms/types.hpp"
#include "python/held_buffer.hpp"
#include "python/mpi_session.hpp"
#include "real/mpi/call_agreement.hpp"
#include "real/mpi/call_signature.hpp"
#include "real/mpi/node_grid.hpp"
#include "workloads/llm/chakra.hpp"
#include "workloads/llm/chakra_files.hpp"
#include "workloads/llm/layout.hpp"
#include "workloads/llm/step_graph.hpp"
#include "workloads/llm/transformer.hpp"

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

// dims: None (the node grid), "2x2", or a sequence of ints such as (2, 2). `function` names
// the caller in errors ("ddl.allreduce").
std::optional<Dims> parse_dims(const py::object& dims, const std::string& function) {
  if (dims.is_none()) return std::nullopt;
  if (py::isinstance<py::str>(dims)) return Dims::parse(dims.cast<std::string>());
  if (!py::isinstance<py::sequence>(dims))
    throw py::type_error(function +
                         ": dims must be None, a string such as '2x2' or a sequence "
                         "of ints such as (2, 2), not " +
                         std::string(py::str(py::type::of(dims).attr("__name__"))));
  std::vector<int> extents;
  for (const py::handle item : dims.cast<py::sequence>()) {
    // Any integer (int, numpy.int64, ...) but not a bool, which is an int to Python.
    if (!PyIndex_Check(item.ptr()) || py::isinstance<py::bool_>(item))
      throw py::type_error(function + ": every entry of dims must be an int, got " +
                           std::string(py::repr(item)));
    try {
      extents.push_back(item.cast<int>());
    } catch (const py::cast_error&) {
      throw py::value_error(function + ": dims entry " + std::string(py::repr(item)) +
                            " is out of range");
    }
  }
  return Dims(extents);
}

// A group of ranks (ddl.split): its communicator, a duplicate of MPI_Comm_split's part as every
// MpiCommunicator holds, and its default grid, the node layout of its own members (ranks per
// node x nodes), so ddl and hier follow the group's place in the machine.
struct Group {
  std::unique_ptr<MpiCommunicator> comm;
  std::optional<Dims> dims;
  std::string dims_error;  // why there is no default grid
  int rank() const { return comm->rank(); }
  int size() const { return comm->size(); }
};

struct Request {
  Collective collective;
  int root;
  ReduceOp op;
  const Algorithm* algorithm;
  AlgorithmSpec spec;  // the same algorithm string, for the call's signature
  std::optional<Dims> dims;
  double timeout_s;
};

// "ddl.allreduce", "ddl.alltoall", ...: the Python function a collective is called by.
std::string function_of(Collective c) {
  return "ddl." + std::string(to_string(c));
}

// Everything that can be checked without MPI, checked before any rank communicates.
Request parse_request(Collective collective, const std::string& op, const std::string& algo,
                      int root, const py::object& dims, double timeout_s) {
  Request r{collective,
            root,
            parse_reduce_op(op),
            &find_algorithm(algo),
            {},
            parse_dims(dims, function_of(collective)),
            timeout_s};
  if (r.algorithm->collective != collective) {
    std::string known;
    for (const std::string& name : algorithm_names(collective)) {
      if (!known.empty()) known += ", ";
      known += name;
    }
    // "a broadcast", "an allreduce"
    auto a = [](std::string_view n) { return (n[0] == 'a' ? "an " : "a ") + std::string(n); };
    const std::string name(to_string(collective));
    throw InvalidArgument("'" + algo + "' is " + a(to_string(r.algorithm->collective)) +
                          " algorithm, not " + a(name) + " (" + name + " algorithms: " + known +
                          ")");
  }
  r.spec = parse_algorithm_spec(algo);
  if (!std::isfinite(timeout_s) || timeout_s <= 0)
    throw InvalidArgument("timeout must be a positive number of seconds, got " +
                          std::string(py::repr(py::float_(timeout_s))));
  return r;
}

// One call as this rank's checks left it: what to run, or the exception that refused it.
struct Call {
  Request request{};
  void* data = nullptr;
  std::size_t bytes = 0;
  DType type = DType::float32;
  std::exception_ptr refused;
  std::string refusal;  // its message, without "ddl.allreduce: ", for the other ranks
  std::string function = "ddl.allreduce";  // the Python function, for errors
  Group* group = nullptr;                  // null: every rank (MPI_COMM_WORLD)
};

// The communicator a call runs on, its wait bound set, and its default grid.
MpiCommunicator& comm_of(Group* group, double timeout_s) {
  if (!group) return world(timeout_s);
  group->comm->set_timeout(timeout_s);
  return *group->comm;
}
const Dims& default_dims_of(const Group* group) {
  if (!group) return default_dims();
  if (!group->dims) throw InvalidArgument(group->dims_error + " (pass dims=... to the collective)");
  return *group->dims;
}

// "ddl.allreduce: x" -> "x" (any ddl.<name>: prefix): what the other ranks quote after "rank R
// could not make the call: ".
std::string without_prefix(std::string_view what) {
  constexpr std::string_view module = "ddl.";
  const std::size_t colon = what.find(": ");
  if (what.substr(0, module.size()) == module && colon != std::string_view::npos &&
      what.substr(module.size(), colon - module.size()).find_first_of(" '") ==
          std::string_view::npos)
    what.remove_prefix(colon + 2);
  return std::string(what);
}

// Inside a catch block: records the exception being handled as the call's refusal.
void refuse_current(Call& call) {
  call.refused = std::current_exception();
  try {
    throw;
  } catch (const std::exception& e) {
    call.refusal = without_prefix(e.what());
  } catch (...) {
    call.refusal = "an exception that is no std::exception";
  }
}

// The bound of a refused call's agreement: its own timeout, unless that is what was refused.
double agreement_timeout(double timeout_s) {
  return std::isfinite(timeout_s) && timeout_s > 0 ? timeout_s : MpiCommunicator::kDefaultTimeout;
}

// Raises the exception as Python sees it: a ddl error through raise_python, pybind11's own
// (TypeError, ValueError raised while checking) as they are.
[[noreturn]] void rethrow(const std::exception_ptr& e, const std::string& function) {
  try {
    std::rethrow_exception(e);
  } catch (const Error& error) {
    raise_python(function.c_str(), error);
  }
}

// The collective part: every rank, refused or not, agrees on the call (real/mpi/call_agreement.hpp)
// before any data moves, so a rank whose call differs or was refused makes every rank raise
// instead of corrupting memory or reducing with another op. A refused call waits on the
// agreement with the default bound when its own timeout was what was refused.
void agree_and_run(Call& call) {
  const double timeout_s = agreement_timeout(call.request.timeout_s);
  std::exception_ptr failure;
  {
    py::gil_scoped_release no_gil;  // other Python threads run while ranks communicate
    const std::lock_guard<std::mutex> lock(collective_mutex);
    try {
      MpiCommunicator& comm = comm_of(call.group, timeout_s);
      const Request& r = call.request;
      Options opts;
      LocalArguments local;
      if (!call.refused) {
        try {
          opts.dims = r.dims ? *r.dims : default_dims_of(call.group);
          opts.dims.require_world(comm.size());
          if (r.root < 0 || r.root >= comm.size())
            throw InvalidArgument("root " + std::to_string(r.root) + " is not a rank (0 .. " +
                                  std::to_string(comm.size() - 1) + ")");
          opts.root = r.root;
          local.canonical = call_signature(call.bytes / dtype_size(call.type), call.type, r.op,
                                           r.spec.name, r.spec.apply(opts));
        } catch (const InvalidArgument&) {
          refuse_current(call);
        }
      }
      if (call.refused) local.error = call.refusal;
      agree_on_call(comm, local);
      if (!call.refused)
        r.algorithm->run(comm, MutView{call.data, call.bytes}, call.type, r.op, opts);
    } catch (...) {
      failure = std::current_exception();
    }
  }
  if (call.refused) rethrow(call.refused, call.function);
  if (failure) rethrow(failure, call.function);
}

void collective_buffer(const py::object& obj, const std::string& coll, const std::string& op,
                       const std::string& algo, int root, const py::object& dims, double timeout_s,
                       Group* group) {
  const Collective collective = parse_collective(coll);  // ddl/collectives.py passes known names
  Call call;
  call.group = group;
  call.function = function_of(collective);
  call.request.timeout_s = timeout_s;
  std::optional<HeldBuffer> buffer;  // held until the collective is over
  try {
    buffer.emplace(obj, call.function);
    call.type = buffer->dtype();
    call.data = buffer->data();
    call.bytes = buffer->bytes();
    call.request = parse_request(collective, op, algo, root, dims, timeout_s);
  } catch (...) {
    refuse_current(call);
  }
  agree_and_run(call);
}

// For torch tensors: ddl/collectives.py has checked device, layout, contiguity and dtype, and
// keeps the tensor alive across the call.
void collective_address(std::uintptr_t address, std::size_t count, const std::string& dtype,
                        const std::string& coll, const std::string& op, const std::string& algo,
                        int root, const py::object& dims, double timeout_s, Group* group) {
  const Collective collective = parse_collective(coll);  // ddl/collectives.py passes known names
  Call call;
  call.group = group;
  call.function = function_of(collective);
  call.request.timeout_s = timeout_s;
  try {
    call.type = parse_dtype(dtype);
    call.data = reinterpret_cast<void*>(address);
    call.bytes = count * dtype_size(call.type);
    call.request = parse_request(collective, op, algo, root, dims, timeout_s);
  } catch (...) {
    refuse_current(call);
  }
  agree_and_run(call);
}

// One side of ddl.alltoallv: a buffer-protocol object (held in `held`), or a torch tensor as
// ddl/collectives.py passes it, (address, count, dtype).
struct Region {
  void* data = nullptr;
  std::size_t bytes = 0;
  DType type = DType::float32;
};
Region region_of(const py::object& obj, const std::string& function,
                 std::optional<HeldBuffer>& held) {
  if (py::isinstance<py::tuple>(obj)) {
    const auto t = obj.cast<py::tuple>();
    Region r;
    r.type = parse_dtype(t[2].cast<std::string>());
    r.data = reinterpret_cast<void*>(t[0].cast<std::uintptr_t>());
    r.bytes = t[1].cast<std::size_t>() * dtype_size(r.type);
    return r;
  }
  held.emplace(obj, function);
  return {held->data(), held->bytes(), held->dtype()};
}

// Counts packed in peer order, as ddl.alltoallv lays blocks out.
AlltoallvLayout packed(const std::vector<std::size_t>& counts) {
  AlltoallvLayout l{counts, std::vector<std::size_t>(counts.size(), 0)};
  for (std::size_t j = 1; j < counts.size(); ++j) l.displs[j] = l.displs[j - 1] + counts[j - 1];
  return l;
}

// ddl.alltoallv: x's blocks (send_counts[j] elements for rank j, packed in rank order) to every
// rank, out receiving recv_counts[i] from rank i, packed likewise. As every collective, the
// ranks agree on the call first (a refused rank takes part), then on the counts peer to peer.
void alltoallv_call(const py::object& x, const py::object& out,
                    const std::vector<std::size_t>& send_counts,
                    const std::vector<std::size_t>& recv_counts, const std::string& algo,
                    double timeout_s, Group* group) {
  Call call;
  call.group = group;
  call.function = "ddl.alltoallv";
  std::optional<HeldBuffer> held_in, held_out;  // held until the exchange is over
  Region in, result;
  AlltoallvAlgorithm algorithm = AlltoallvAlgorithm::pairwise;
  const AlltoallvLayout send = packed(send_counts), recv = packed(recv_counts);
  try {
    in = region_of(x, call.function, held_in);
    result = region_of(out, call.function, held_out);
    if (in.type != result.type)
      throw InvalidArgument("out has dtype " + std::string(to_string(result.type)) + ", x " +
                            std::string(to_string(in.type)));
    algorithm = parse_alltoallv_algorithm(algo);
    if (!std::isfinite(timeout_s) || timeout_s <= 0)
      throw InvalidArgument("timeout must be a positive number of seconds, got " +
                            std::string(py::repr(py::float_(timeout_s))));
  } catch (...) {
    refuse_current(call);
  }
  std::exception_ptr failure;
  {
    py::gil_scoped_release no_gil;
    const std::lock_guard<std::mutex> lock(collective_mutex);
    try {
      MpiCommunicator& comm = comm_of(group, agreement_timeout(timeout_s));
      LocalArguments local;
      const std::size_t elem = dtype_size(in.type);
      if (!call.refused) {
        try {
          check_alltoallv_layout(comm.size(), comm.rank(), send, in.bytes / elem, recv,
                                 result.bytes / elem);
          local.canonical = call_signature(0, in.type, ReduceOp::sum, to_string(algorithm), {});
        } catch (const InvalidArgument&) {
          refuse_current(call);
        }
      }
      if (call.refused) local.error = call.refusal;
      agree_on_call(comm, local);
      if (!call.refused) {
        agree_on_alltoallv_counts(comm, send.counts, recv.counts, {});
        alltoallv(comm, ConstView{in.data, in.bytes}, send, MutView{result.data, result.bytes},
                  recv, in.type, {}, algorithm);
      }
    } catch (...) {
      failure = std::current_exception();
    }
  }
  if (call.refused) rethrow(call.refused, call.function);
  if (failure) rethrow(failure, call.function);
}

// ddl/collectives.py's own checks refused the call: this rank still takes part in the call's
// agreement, with `message`, so the other ranks raise too; the caller then raises its error.
void refuse(const std::string& message, double timeout_s, Group* group) {
  LocalArguments local;
  local.error = without_prefix(message);
  py::gil_scoped_release no_gil;
  const std::lock_guard<std::mutex> lock(collective_mutex);
  try {
    agree_on_call(comm_of(group, agreement_timeout(timeout_s)), local);
  } catch (const Error&) {
    // Nothing to add: the caller raises its own error, the one that refused the call.
  }
}

// ddl.split: MPI_Comm_split over `parent` (every rank when null), bounded by timeout_s; None
// for a negative color. Collective over the parent, as every call.
std::shared_ptr<Group> split(Group* parent, int color, int key, double timeout_s) {
  if (!std::isfinite(timeout_s) || timeout_s <= 0)
    throw py::value_error("ddl.split: timeout must be a positive number of seconds, got " +
                          std::string(py::repr(py::float_(timeout_s))));
  std::shared_ptr<Group> group;
  std::exception_ptr failure;
  {
    py::gil_scoped_release no_gil;
    const std::lock_guard<std::mutex> lock(collective_mutex);
    try {
      std::unique_ptr<Communicator> part = comm_of(parent, timeout_s).split(color, key);
      if (part) {
        group = std::make_shared<Group>();
        group->comm.reset(static_cast<MpiCommunicator*>(part.release()));  // MPI's split's
        try {
          group->dims = node_layout(group->comm->comm(), timeout_s).dims;
        } catch (const InvalidArgument& e) {
          group->dims_error = e.what();
        }
      }
    } catch (...) {
      failure = std::current_exception();
    }
  }
  if (failure) rethrow(failure, "ddl.split");
  return group;
}

// ddl.workload --format chakra (ddl/workload_chakra.py): every rank's step graph of the layout,
// the C++ one, written as PREFIX.RANK.et; returns the rank count. The caller passes a temporary
// prefix and renames the files once all are written.
int write_llm_chakra(const std::string& model_path, const std::string& layout_text,
                     const std::string& prefix) {
  const llm::Transformer model = llm::read_transformer(model_path);
  const llm::ParallelLayout layout = llm::parse_layout(layout_text);
  llm::check_layout(layout, model, layout.gpus());
  for (int rank = 0; rank < layout.gpus(); ++rank) {
    const std::string file = llm::chakra_file(prefix, rank);
    std::ofstream out(file, std::ios::binary);
    if (!out) throw InvalidArgument("cannot write " + file);
    llm::write_chakra(llm::step_graph(model, layout, rank), rank, layout.to_string(), out);
    out.close();
    if (!out) throw Error("cannot write " + file);
  }
  return layout.gpus();
}

// Rank `rank`'s step graph as (kind, label, after) per op: what its Chakra file must hold, for
// python/tests/test_workload_chakra.py.
std::vector<std::tuple<std::string, std::string, std::vector<std::size_t>>> llm_step_graph(
    const std::string& model_path, const std::string& layout_text, int rank) {
  const llm::Transformer model = llm::read_transformer(model_path);
  const llm::ParallelLayout layout = llm::parse_layout(layout_text);
  llm::check_layout(layout, model, layout.gpus());
  std::vector<std::tuple<std::string, std::string, std::vector<std::size_t>>> ops;
  for (const llm::Op& op : llm::step_graph(model, layout, rank)) {
    const char* kind = op.kind == llm::Op::Kind::compute      ? "compute"
                       : op.kind == llm::Op::Kind::collective ? "collective"
                       : op.kind == llm::Op::Kind::send       ? "send"
                                                              : "recv";
    ops.emplace_back(kind, op.label, op.after);
  }
  return ops;
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
  m.doc() = "ddl's compiled core: collectives over MPI (use the ddl package, not this module)";
  py::class_<Group, std::shared_ptr<Group>>(
      m, "Group", "A group of ranks made by ddl.split (its rank and size)")
      .def_property_readonly("rank", &Group::rank, "This process's rank in the group")
      .def_property_readonly("size", &Group::size, "The number of ranks in the group");
  m.def("_split", &split, py::arg("parent").none(true), py::arg("color"), py::arg("key"),
        py::arg("timeout"));
  m.def("_collective_buffer", &collective_buffer, py::arg("x"), py::arg("coll"), py::arg("op"),
        py::arg("algo"), py::arg("root"), py::arg("dims"), py::arg("timeout"),
        py::arg("group").none(true));
  m.def("_collective_address", &collective_address, py::arg("address"), py::arg("count"),
        py::arg("dtype"), py::arg("coll"), py::arg("op"), py::arg("algo"), py::arg("root"),
        py::arg("dims"), py::arg("timeout"), py::arg("group").none(true));
  m.def("_alltoallv", &alltoallv_call, py::arg("x"), py::arg("out"), py::arg("send_counts"),
        py::arg("recv_counts"), py::arg("algo"), py::arg("timeout"), py::arg("group").none(true));
  m.def("_refuse", &refuse, py::arg("message"), py::arg("timeout"), py::arg("group").none(true));
  m.def(
      "rank", [] { return translated("ddl.rank", world_rank); },
      "This process's rank in MPI_COMM_WORLD (initialises MPI if needed).");
  m.def(
      "size", [] { return translated("ddl.size", world_size); },
      "The number of ranks in MPI_COMM_WORLD (initialises MPI if needed).");
  m.def(
      "algorithms",
      [](const std::string& coll) {
        return translated("ddl.algorithms",
                          [&] { return ddl::algorithm_names(ddl::parse_collective(coll)); });
      },
      py::arg("coll") = "allreduce", "The names a collective (default allreduce) accepts as algo.");
  m.def(
      "write_llm_chakra",
      [](const std::string& model, const std::string& layout, const std::string& prefix) {
        return translated("ddl.workload", [&] { return write_llm_chakra(model, layout, prefix); });
      },
      py::arg("model_json_path"), py::arg("layout_text"), py::arg("prefix"),
      "Every rank's LLM step graph of the layout as Chakra traces PREFIX.RANK.et; the rank count.");
  m.def(
      "_llm_step_graph",
      [](const std::string& model, const std::string& layout, int rank) {
        return translated("ddl.workload", [&] { return llm_step_graph(model, layout, rank); });
      },
      py::arg("model_json_path"), py::arg("layout_text"), py::arg("rank"));
  m.def("_shutdown", &shutdown);
  // Python's atexit handlers run before the interpreter is torn down, and before mpi4py's
  // C-level exit hook, so the communicator is freed while MPI is still up.
  py::module_::import("atexit").attr("register")(m.attr("_shutdown"));
}
