#include "real/mpi/mpi_control_variable.hpp"

#include <mpi.h>

#include <type_traits>

namespace ddl {
namespace {

// MPI_T_init_thread / MPI_T_finalize pair, reference counted by the library.
struct ToolSession {
  bool open = false;
  ToolSession() {
    // Open MPI's MPI_T_init_thread sets the thread level of the whole library, the one
    // MPI_Init_thread chose included: asking for MPI_THREAD_SINGLE there turned Open MPI's own
    // locking off under an MPI_THREAD_MULTIPLE program (MPI_Query_thread then said 0). So the
    // session asks for the level MPI already runs at.
    int level = MPI_THREAD_SINGLE, initialised = 0, finalized = 0;
    MPI_Initialized(&initialised);
    MPI_Finalized(&finalized);
    if (initialised && !finalized) MPI_Query_thread(&level);
    int provided = 0;
    open = MPI_T_init_thread(level, &provided) == MPI_SUCCESS;
  }
  ~ToolSession() {
    if (open) MPI_T_finalize();
  }
  ToolSession(const ToolSession&) = delete;
  ToolSession& operator=(const ToolSession&) = delete;
};

template <typename T>
std::optional<unsigned long long> read_as(MPI_T_cvar_handle handle) {
  T value{};
  if (MPI_T_cvar_read(handle, &value) != MPI_SUCCESS) return std::nullopt;
  if constexpr (std::is_signed_v<T>)
    if (value < 0) return std::nullopt;
  return static_cast<unsigned long long>(value);
}

}  // namespace

std::optional<unsigned long long> mpi_control_variable(const char* name) {
  const ToolSession session;
  if (!session.open) return std::nullopt;
  int index = 0;
  if (MPI_T_cvar_get_index(name, &index) != MPI_SUCCESS) return std::nullopt;
  int name_length = 0, description_length = 0, verbosity = 0, binding = 0, scope = 0;
  MPI_Datatype type = MPI_DATATYPE_NULL;
  MPI_T_enum enumeration = MPI_T_ENUM_NULL;
  if (MPI_T_cvar_get_info(index, nullptr, &name_length, &verbosity, &type, &enumeration, nullptr,
                          &description_length, &binding, &scope) != MPI_SUCCESS ||
      binding != MPI_T_BIND_NO_OBJECT)
    return std::nullopt;
  MPI_T_cvar_handle handle = MPI_T_CVAR_HANDLE_NULL;
  int count = 0;
  if (MPI_T_cvar_handle_alloc(index, nullptr, &handle, &count) != MPI_SUCCESS) return std::nullopt;
  std::optional<unsigned long long> value;
  if (count == 1) {
    if (type == MPI_UNSIGNED_LONG) value = read_as<unsigned long>(handle);
    if (type == MPI_UNSIGNED_LONG_LONG) value = read_as<unsigned long long>(handle);
    if (type == MPI_UNSIGNED) value = read_as<unsigned>(handle);
    if (type == MPI_INT) value = read_as<int>(handle);
    if (type == MPI_LONG) value = read_as<long>(handle);
    if (type == MPI_LONG_LONG) value = read_as<long long>(handle);
  }
  MPI_T_cvar_handle_free(&handle);
  return value;
}

}  // namespace ddl
