// ddl._c10d: the compiled half of the torch.distributed backend "ddl" (python/ddl/distributed.py
// is the Python half, which registers it with torch and finds each group's members). It exposes
// ProcessGroupDDL as a subclass of torch's ProcessGroup, so torch.distributed drives it like
// gloo: its Python methods (allreduce, broadcast, ...) are torch's own bindings, which call the
// C++ overrides with the GIL released.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <torch/csrc/utils/pybind.h>

#include "python/c10d/process_group_ddl.hpp"

namespace py = pybind11;
using ddl::c10d_backend::ProcessGroupDDL;

PYBIND11_MODULE(_c10d, m) {
  m.doc() = "ddl's torch.distributed backend (use it through `import ddl.distributed`)";
  // torch's ProcessGroup class must be known to pybind11 before a subclass can name it.
  py::module_::import("torch.distributed");
  py::class_<ProcessGroupDDL, c10d::ProcessGroup, c10::intrusive_ptr<ProcessGroupDDL>>(
      m, "ProcessGroupDDL")
      .def(py::init<int, int, const std::vector<int>&, double>(), py::arg("rank"), py::arg("size"),
           py::arg("world_ranks"), py::arg("timeout"),
           // Collective over the members: others may still be on their way.
           py::call_guard<py::gil_scoped_release>())
      .def_property_readonly("timeout", &ProcessGroupDDL::timeout);
}
