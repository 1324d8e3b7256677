# How the tests run MPI programs (real/, calibrate/, capi/, examples/): one prefix and one
# environment for every mpirun, so each test starts its ranks the same way.

# mpirun as ctest runs it: oversubscribed (more ranks than cores), root allowed (containers),
# shared memory only (vader) so no network probing slows start-up or prints warnings.
set(DDL_MPIRUN ${MPIEXEC_EXECUTABLE} --oversubscribe --allow-run-as-root --mca btl self,vader
    CACHE STRING "mpirun command prefix used by the MPI tests")
# sigkill_timeout 0: after a rank exits non-zero (the error-path tests) mpirun would otherwise
# wait a second before cleaning up the others.
# ASAN_OPTIONS: Open MPI's dlopen'ed components keep allocations to exit and unload before
# LeakSanitizer can name them, so leak checking is off under mpirun (address checks stay on).
set(DDL_MPIRUN_ENV ASAN_OPTIONS=detect_leaks=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl=self,vader
    OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_odls_base_sigkill_timeout=0
    # auto's measured plans (real/mpi/measured_plan_cache.hpp) in the build tree, not the user's.
    DDL_CACHE_DIR=${CMAKE_BINARY_DIR}/test-cache)
# TSAN_OPTIONS: Open MPI is not built with ThreadSanitizer, so what it does (its own atomics, the
# memcpy of a message into a buffer another thread waits for) looks racy; real/mpi/tests/tsan.supp
# names only Open MPI's own libraries. A race in ddl's code is reported and fails the test.
if(DDL_SANITIZE MATCHES "thread")
  list(APPEND DDL_MPIRUN_ENV TSAN_OPTIONS=suppressions=${PROJECT_SOURCE_DIR}/real/mpi/tests/tsan.supp)
endif()

# ddl_add_mpi_test(NAME ranks command...): one ctest entry running the command on `ranks` ranks.
function(ddl_add_mpi_test name ranks)
  add_test(NAME ${name} COMMAND ${DDL_MPIRUN} -np ${ranks} ${ARGN})
  set_tests_properties(${name} PROPERTIES ENVIRONMENT "${DDL_MPIRUN_ENV}" TIMEOUT 120
                                          LABELS mpi PROCESSORS 2)
endfunction()
