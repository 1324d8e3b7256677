# `cmake --install <build> --prefix P` installs the package:
#   P/include/ddl/{algorithms,real,sim,harness}/*.hpp   C++ headers, the tree's include paths
#   P/include/ddl.h                                       the C API
#   P/lib/libddl_*.a, P/lib/libddl.so                     the libraries
#   P/lib/cmake/ddl/ddlConfig.cmake                       find_package(ddl), ddl::* targets
#   P/bin/ddlsim ddlrun ddlcalibrate ddltrace ddlcluster  the tools
#   P/share/ddl/{platforms,workloads,cluster}             their data (harness/data_dir.hpp)
include(CMakePackageConfigHelpers)
set(DDL_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/ddl)

install(EXPORT ddlTargets NAMESPACE ddl:: DESTINATION ${DDL_INSTALL_CMAKEDIR})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/ddlConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/ddlConfig.cmake
                              INSTALL_DESTINATION ${DDL_INSTALL_CMAKEDIR} PATH_VARS DDL_INSTALL_DATADIR)
# 0.x: a minor version may change the C++ API (the C API keeps its codes and signatures).
write_basic_package_version_file(${PROJECT_BINARY_DIR}/ddlConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/ddlConfig.cmake ${PROJECT_BINARY_DIR}/ddlConfigVersion.cmake
        DESTINATION ${DDL_INSTALL_CMAKEDIR})

# Data: the platforms (and their generator, which ddlcluster runs) and the workloads.
file(GLOB _ddl_platform_files ${PROJECT_SOURCE_DIR}/platforms/*.xml ${PROJECT_SOURCE_DIR}/platforms/*.py)
install(FILES ${_ddl_platform_files} DESTINATION ${DDL_INSTALL_DATADIR}/platforms)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/platforms/descriptions DESTINATION ${DDL_INSTALL_DATADIR}/platforms)
file(GLOB _ddl_workload_files ${PROJECT_SOURCE_DIR}/workloads/*.csv)
install(FILES ${_ddl_workload_files} DESTINATION ${DDL_INSTALL_DATADIR}/workloads)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/workloads/llm/models ${PROJECT_SOURCE_DIR}/workloads/llm/gpus
        DESTINATION ${DDL_INSTALL_DATADIR}/workloads/llm)

# The package as a user gets it: install this build into a fresh prefix, configure and build
# every example in examples/ against it with a new cmake, run each under mpirun and compare
# its output exactly; the installed tools find the installed data.
if(DDL_WITH_MPI AND NOT DDL_FUZZ)
  string(REPLACE ";" " " _ddl_mpirun "${DDL_MPIRUN}")
  set(_ddl_flags "")
  if(DDL_SANITIZE)
    string(REPLACE ";" "," _ddl_flags "-fsanitize=${DDL_SANITIZE}")
  endif()
  add_test(NAME "package: install, build examples/ against it, run them under mpirun"
           COMMAND ${PROJECT_SOURCE_DIR}/cmake/test_package.sh ${CMAKE_COMMAND} ${PROJECT_BINARY_DIR}
                   ${PROJECT_SOURCE_DIR} ${PROJECT_BINARY_DIR}/package-test ${CMAKE_C_COMPILER}
                   ${CMAKE_CXX_COMPILER} "${_ddl_flags}" "${_ddl_mpirun}")
  set_tests_properties("package: install, build examples/ against it, run them under mpirun"
                       PROPERTIES ENVIRONMENT "${DDL_MPIRUN_ENV}" TIMEOUT 600 LABELS "mpi;package"
                                  PROCESSORS 2)
endif()
