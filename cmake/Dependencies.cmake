# Optional backends: each defaults to ON when its dependency is found, and configure says
# plainly what was skipped and why. Asking for one explicitly (-DDDL_WITH_X=ON) without the
# dependency is an error, not a silent skip.

find_package(Catch2 REQUIRED)  # Debian: catch2
find_package(Threads REQUIRED)

# SimGrid 3.32 (Debian libsimgrid-dev) ships a pkg-config file.
find_package(PkgConfig)
if(PkgConfig_FOUND)
  pkg_check_modules(SIMGRID IMPORTED_TARGET simgrid>=3.32)
endif()
find_package(Boost 1.74 COMPONENTS program_options)
find_package(MPI COMPONENTS C CXX)  # C: the C API's users pass an MPI_Comm
include(CheckLanguage)
check_language(CUDA)

function(ddl_backend_option name found why)
  set(reason "${why}")
  if(DEFINED ${name})
    if(${name} AND NOT ${found})
      message(FATAL_ERROR "${name}=ON but ${why}")
    endif()
    if(NOT ${name} AND ${found})
      set(reason "turned off with -D${name}=OFF")
    endif()
  else()
    set(${name} ${${found}} CACHE BOOL "")
  endif()
  if(${name})
    message(STATUS "ddl: ${name}=ON")
  else()
    message(STATUS "ddl: ${name}=OFF (${reason})")
  endif()
endfunction()

# The command-line tools (ddlsim, ddlrun, ddlcalibrate, ddltrace) parse their flags with
# Boost.Program_options; the libraries, the backends and the C API do not need it.
set(_tools_ok FALSE)
if(Boost_FOUND)
  set(_tools_ok TRUE)
endif()
ddl_backend_option(DDL_WITH_TOOLS _tools_ok
  "the command-line tools need Boost.Program_options (libboost-program-options-dev); the libraries and the C API build without")

set(_sim_ok FALSE)
if(SIMGRID_FOUND)
  set(_sim_ok TRUE)
endif()
ddl_backend_option(DDL_WITH_SIM _sim_ok "the simulator needs SimGrid >= 3.32 (libsimgrid-dev)")

set(_mpi_ok FALSE)
if(MPI_C_FOUND AND MPI_CXX_FOUND)
  set(_mpi_ok TRUE)
endif()
ddl_backend_option(DDL_WITH_MPI _mpi_ok "the real backend needs MPI (libopenmpi-dev, openmpi-bin)")

set(_cuda_ok FALSE)
if(CMAKE_CUDA_COMPILER AND _mpi_ok)
  set(_cuda_ok TRUE)
endif()
ddl_backend_option(DDL_WITH_CUDA _cuda_ok
  "the GPU path needs nvcc (CUDA toolkit at /usr/local/cuda or on PATH) and the MPI backend")
