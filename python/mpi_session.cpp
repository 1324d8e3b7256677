#include "python/mpi_session.hpp"

#include <memory>
#include <optional>

#include "algorithms/error.hpp"
#include "real/mpi/bounded_mpi.hpp"
#include "real/mpi/mpi_error.hpp"
#include "real/mpi/node_grid.hpp"

namespace ddl::python {
namespace {

struct Session {
  bool we_initialised = false;
  std::unique_ptr<MpiCommunicator> comm;
  std::optional<Dims> dims;  // the node grid; empty with `dims_error` when there is none
  std::string dims_error;
};

Session& session() {
  static Session s;
  return s;
}

void ensure_initialised() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (finalized) throw BackendError("MPI was already finalized (MPI.Finalize() was called?)");
  int initialised = 0;
  MPI_Initialized(&initialised);
  if (initialised) return;
  // MPI_THREAD_MULTIPLE is what mpi4py asks for by default, so a program behaves the same
  // whichever of ddl and mpi4py initialises MPI. ddl's own calls are serialised by the module.
  int provided = 0;
  check_mpi(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_MULTIPLE, &provided), "MPI_Init_thread");
  session().we_initialised = true;
}

}  // namespace

int world_rank() {
  ensure_initialised();
  int rank = 0;
  check_mpi(MPI_Comm_rank(MPI_COMM_WORLD, &rank), "MPI_Comm_rank");
  return rank;
}

int world_size() {
  ensure_initialised();
  int size = 1;
  check_mpi(MPI_Comm_size(MPI_COMM_WORLD, &size), "MPI_Comm_size");
  return size;
}

MpiCommunicator& world(double timeout_s) {
  ensure_initialised();
  Session& s = session();
  if (!s.comm) {
    // So a wait that times out can name a stopped rank of this node (bounded_mpi.hpp).
    record_ranks(MPI_COMM_WORLD, timeout_s);
    try {
      s.dims = node_layout(MPI_COMM_WORLD, timeout_s).dims;
    } catch (const InvalidArgument& e) {
      s.dims_error = e.what();
    }
    s.comm = std::make_unique<MpiCommunicator>(MPI_COMM_WORLD, timeout_s);
  }
  s.comm->set_timeout(timeout_s);
  return *s.comm;
}

const Dims& default_dims() {
  const Session& s = session();
  if (!s.dims) throw InvalidArgument(s.dims_error + " (pass dims=... to the collective)");
  return *s.dims;
}

void shutdown() {
  Session& s = session();
  s.comm.reset();  // frees its duplicate unless MPI is already finalized
  int initialised = 0, finalized = 0;
  MPI_Initialized(&initialised);
  MPI_Finalized(&finalized);
  if (s.we_initialised && initialised && !finalized) MPI_Finalize();
}

}  // namespace ddl::python
