// ProcessGroupDDL's construction and its way into the C API (process_group_ddl.hpp): the
// collectives themselves are in collectives.cpp, send and recv in point_to_point.cpp.
#include "python/c10d/process_group_ddl.hpp"

#include <cmath>
#include <string>
#include <string_view>

namespace ddl::c10d_backend {
namespace {

// Tag of MPI_Comm_create_group: groups are created one at a time, as torch creates them.
constexpr int kCreateGroupTag = 4242;

// An element type the C API refuses (ddl_dtype_t ends at 5): what a rank whose own arguments
// were refused passes, so that it still joins the call's agreement (ProcessGroupDDL::refuse).
constexpr ddl_dtype_t kRefusedDtype = static_cast<ddl_dtype_t>(7);

[[noreturn]] void value_error(const std::string& what) {
  throw c10::ValueError({__func__, __FILE__, static_cast<uint32_t>(__LINE__)}, what);
}

[[noreturn]] void runtime_error(const std::string& what) {
  throw c10::Error({__func__, __FILE__, static_cast<uint32_t>(__LINE__)}, what);
}

std::string prefixed(const char* function, std::string_view what) {
  return std::string("ddl backend: ") + function + ": " + std::string(what);
}

// The C API's message without its function name ("ddl_collective_inplace: ..."), and with a
// rank's deliberate refusal (kRefusedDtype) said as what it is.
std::string api_message() {
  std::string_view what = ddl_last_error_message();
  if (what.substr(0, 4) == "ddl_" && what.find(": ") != std::string_view::npos)
    what.remove_prefix(what.find(": ") + 2);
  std::string text(what);
  const std::string refused =
      "could not make the call: dtype " + std::to_string(static_cast<int>(kRefusedDtype)) + " ";
  if (const std::size_t at = text.find(refused); at != std::string::npos)
    text = text.substr(0, at) + "refused its arguments (its own error says why)";
  return text;
}

}  // namespace

ProcessGroupDDL::ProcessGroupDDL(int rank, int size, const std::vector<int>& world_ranks,
                                 double timeout_s)
    : ProcessGroup(rank, size), timeout_s_(timeout_s) {
  int initialised = 0, finalized = 0;
  MPI_Initialized(&initialised);
  MPI_Finalized(&finalized);
  if (!initialised || finalized)
    runtime_error(std::string("ddl backend: MPI is ") +
                  (finalized ? "already finalized" : "not initialised") +
                  " (create ddl groups through torch.distributed after `import ddl.distributed`)");
  int level = MPI_THREAD_SINGLE;
  MPI_Query_thread(&level);
  if (level < MPI_THREAD_MULTIPLE)
    runtime_error("ddl backend: MPI was initialised at thread level " + std::to_string(level) +
                  ", below MPI_THREAD_MULTIPLE (" + std::to_string(MPI_THREAD_MULTIPLE) +
                  "); torch may call the process group from its own threads (initialise MPI "
                  "with MPI_THREAD_MULTIPLE, as ddl and mpi4py do by default)");
  if (!std::isfinite(timeout_s) || !(timeout_s > 0))
    value_error("ddl backend: the timeout must be a finite number of seconds > 0, got " +
                std::to_string(timeout_s));
  int world_rank = 0, world_size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &world_size);
  if (world_ranks.size() != static_cast<std::size_t>(size) || rank < 0 || rank >= size ||
      world_ranks[static_cast<std::size_t>(rank)] != world_rank)
    value_error("ddl backend: group rank " + std::to_string(rank) + " of " + std::to_string(size) +
                " is not MPI rank " + std::to_string(world_rank) + " in the members' list");
  std::vector<bool> seen(static_cast<std::size_t>(world_size), false);
  bool whole_world = size == world_size;
  for (int r = 0; r < size; ++r) {
    const int w = world_ranks[static_cast<std::size_t>(r)];
    if (w < 0 || w >= world_size || seen[static_cast<std::size_t>(w)])
      value_error("ddl backend: group rank " + std::to_string(r) + " is MPI rank " +
                  std::to_string(w) + ", which is " +
                  (w < 0 || w >= world_size
                       ? "no rank of MPI_COMM_WORLD (size " + std::to_string(world_size) + ")"
                       : "another member's too") +
                  "; are the processes one mpirun job?");
    seen[static_cast<std::size_t>(w)] = true;
    whole_world = whole_world && w == r;
  }

  // The group's communicator, its members ranked as torch ranks them. Creating it involves only
  // the members (torch calls the backend on the members of a new group only).
  if (whole_world) {
    MPI_Comm_dup(MPI_COMM_WORLD, &mpi_comm_);
  } else {
    MPI_Group world_group = MPI_GROUP_NULL, members = MPI_GROUP_NULL;
    MPI_Comm_group(MPI_COMM_WORLD, &world_group);
    MPI_Group_incl(world_group, size, world_ranks.data(), &members);
    MPI_Comm_create_group(MPI_COMM_WORLD, members, kCreateGroupTag, &mpi_comm_);
    MPI_Group_free(&members);
    MPI_Group_free(&world_group);
  }
  // Failures of send and recv (a message longer than the tensor) come back as codes.
  MPI_Comm_set_errhandler(mpi_comm_, MPI_ERRORS_RETURN);
  if (ddl_comm_create(mpi_comm_, &comm_) != DDL_SUCCESS ||
      ddl_comm_set_timeout(comm_, timeout_s) != DDL_SUCCESS) {
    const std::string why = api_message();
    ddl_comm_destroy(comm_);
    MPI_Comm_free(&mpi_comm_);
    runtime_error("ddl backend: creating the group's communicator: " + why);
  }
}

ProcessGroupDDL::~ProcessGroupDDL() {
  // ddl's atexit handler may have finalized MPI before torch lets go of the group: then the
  // process is ending, and freeing anything (a request left by a timed-out call included) would
  // be an MPI call after MPI_Finalize, which Open MPI aborts on.
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (finalized) return;
  ddl_comm_destroy(comm_);
  if (mpi_comm_ != MPI_COMM_NULL) MPI_Comm_free(&mpi_comm_);
}

void ProcessGroupDDL::run(const char* function, ddl_collective_t collective, void* buf,
                          std::size_t count, ddl_dtype_t dtype, ddl_op_t op, int root) {
  const ddl_result_t r =
      collective == DDL_ALLREDUCE
          ? ddl_allreduce_inplace(comm_, buf, count, dtype, op, "auto")
          : ddl_collective_inplace(comm_, collective, buf, count, dtype, op, root, nullptr);
  if (r != DDL_SUCCESS) raise_api_error(function, r);
}

void ProcessGroupDDL::raise_api_error(const char* function, ddl_result_t r) {
  const std::string what = prefixed(function, api_message());
  if (r == DDL_ERROR_TIMEOUT || r == DDL_ERROR_MPI || r == DDL_ERROR_OUT_OF_MEMORY ||
      r == DDL_ERROR_INTERNAL)
    runtime_error(what);
  value_error(what);  // a refused argument, or ranks whose calls differ
}

void ProcessGroupDDL::refuse(const char* function, ddl_collective_t collective,
                             const std::string& why) {
  ddl_collective_inplace(comm_, collective, nullptr, 0, kRefusedDtype, DDL_SUM, 0, nullptr);
  value_error(prefixed(function, why));
}

void ProcessGroupDDL::refuse_alltoallv(const char* function, const std::string& why) {
  const std::vector<std::size_t> none(static_cast<std::size_t>(size_), 0);
  ddl_alltoallv(comm_, nullptr, none.data(), none.data(), nullptr, none.data(), none.data(),
                kRefusedDtype, nullptr);
  value_error(prefixed(function, why));
}

int ProcessGroupDDL::root_of(const char* function, ddl_collective_t collective, int64_t root) {
  if (root < 0 || root >= size_)
    refuse(function, collective,
           "root " + std::to_string(root) + " is not a rank of the group (0 .. " +
               std::to_string(size_ - 1) + ")");
  return static_cast<int>(root);
}

}  // namespace ddl::c10d_backend
