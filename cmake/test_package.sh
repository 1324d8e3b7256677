#!/usr/bin/env bash
# The package as a user gets it (ctest "package: ..."): install the build into a fresh prefix,
# configure and build each of examples/ against it with a new cmake (nothing of the build tree
# on its paths), run it under mpirun on 2 and 4 ranks and compare its output line exactly;
# check that the installed tools are there and find the installed data.
#   test_package.sh CMAKE BUILD_DIR SOURCE_DIR WORK_DIR CC CXX "FLAGS" "MPIRUN..."
# FLAGS: the build's sanitizer flags, which code linking its instrumented libraries needs too.
set -euo pipefail
cmake=$1 build=$2 src=$3 work=$4 cc=$5 cxx=$6 flags=$7 mpirun=$8
prefix=$work/prefix

rm -rf "$work"
mkdir -p "$work"
log=$work/log
run() {  # run a step quietly; on failure show its output and stop
  if ! "$@" > "$log" 2>&1; then
    echo "FAILED: $*" >&2
    cat "$log" >&2
    exit 1
  fi
}
expect() {  # expect WHAT GOT WANTED
  if [[ "$2" != "$3" ]]; then
    printf 'FAILED: %s\n  got:      %s\n  expected: %s\n' "$1" "$2" "$3" >&2
    exit 1
  fi
  echo "ok: $1"
}

run "$cmake" --install "$build" --prefix "$prefix"
for f in include/ddl.h include/ddl/algorithms/registry.hpp include/ddl/real/mpi/mpi_communicator.hpp \
         lib/cmake/ddl/ddlConfig.cmake lib/cmake/ddl/ddlConfigVersion.cmake \
         share/ddl/platforms/s822lc_2.xml share/ddl/workloads/resnet50.csv; do
  [[ -f $prefix/$f ]] || { echo "FAILED: $prefix/$f was not installed" >&2; exit 1; }
done
echo "ok: headers, config and data installed"

for example in cpp_allreduce c_allreduce; do
  run "$cmake" -S "$src/examples/$example" -B "$work/$example" -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_C_COMPILER="$cc" -DCMAKE_CXX_COMPILER="$cxx" \
    -DCMAKE_C_FLAGS="$flags" -DCMAKE_CXX_FLAGS="$flags" -DCMAKE_EXE_LINKER_FLAGS="$flags"
  run "$cmake" --build "$work/$example"
  echo "ok: $example configured and built against $prefix"
done

# Every installed C++ header, in one program linking every C++ target: the headers include only
# what was installed, and the targets' link interfaces (MPI, SimGrid, ...) resolve.
components="algorithms mpi report trace workload" targets="ddl::mpi ddl::report ddl::trace ddl::workload"
skip=""
if [[ -f $prefix/lib/libddl_sim.a ]]; then
  components+=" sim" targets+=" ddl::sim"
else
  skip="./sim/"
fi
if [[ -f $prefix/lib/libddl_real_cuda.a ]]; then
  components+=" cuda" targets+=" ddl::cuda"
fi
mkdir -p "$work/headers-src"
(cd "$prefix/include/ddl" && find . -name '*.hpp' | sort | { [[ -n $skip ]] && grep -v "^$skip" || cat; } |
  sed 's|^\./\(.*\)|#include "\1"|'; echo 'int main() { return 0; }') > "$work/headers-src/all_headers.cpp"
cat > "$work/headers-src/CMakeLists.txt" << EOF2
cmake_minimum_required(VERSION 3.25)
project(all_headers LANGUAGES C CXX)
find_package(ddl REQUIRED COMPONENTS $components)
add_executable(all_headers all_headers.cpp)
target_link_libraries(all_headers PRIVATE $targets)
EOF2
run "$cmake" -S "$work/headers-src" -B "$work/headers" -DCMAKE_PREFIX_PATH="$prefix" \
  -DCMAKE_C_COMPILER="$cc" -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_C_FLAGS="$flags" \
  -DCMAKE_CXX_FLAGS="$flags" -DCMAKE_EXE_LINKER_FLAGS="$flags"
run "$cmake" --build "$work/headers"
echo "ok: $(grep -c '^#include' "$work/headers-src/all_headers.cpp") installed headers compile and link with $targets"

for np in 2 4; do
  # $mpirun is a command line (the build's DDL_MPIRUN): split on purpose.
  # shellcheck disable=SC2086
  got=$($mpirun -np $np "$work/cpp_allreduce/cpp_allreduce" ddl)
  expect "cpp_allreduce on $np ranks" "$got" \
    "cpp_allreduce: $np ranks, dims $np, ddl allreduce of 1048576 floats: every element $((np * (np + 1) / 2)) on every rank"
  for algo in auto ring; do
    # shellcheck disable=SC2086
    got=$($mpirun -np $np "$work/c_allreduce/c_allreduce" $algo)
    expect "c_allreduce $algo on $np ranks" "$got" \
      "c_allreduce: $np ranks, $algo allreduce (avg) of 100000 doubles: every element exact on every rank"
  done
done

# A bad algorithm reaches the C program as a code and a message.
# shellcheck disable=SC2086
if got=$($mpirun -np 2 "$work/c_allreduce/c_allreduce" rign 2>&1); then
  echo "FAILED: c_allreduce rign succeeded" >&2
  exit 1
fi
grep -q "c_allreduce: DDL_ERROR_UNKNOWN_ALGORITHM: ddl_allreduce: unknown algorithm 'rign'" <<< "$got" ||
  { echo "FAILED: c_allreduce rign said: $got" >&2; exit 1; }
echo "ok: c_allreduce rign: DDL_ERROR_UNKNOWN_ALGORITHM named"

# The installed tools; ddlsim, run from elsewhere, takes its platform from share/ddl.
for tool in ddlsim ddlrun ddlcalibrate ddltrace; do
  if [[ -e $build/bin/$tool ]]; then
    [[ -x $prefix/bin/$tool ]] || { echo "FAILED: $tool not installed" >&2; exit 1; }
  fi
done
if [[ -x $build/bin/ddlrun ]]; then
  [[ -x $prefix/bin/ddlcluster && -f $(dirname "$(readlink -f "$prefix/bin/ddlcluster")")/../platforms/generate.py ]] ||
    { echo "FAILED: ddlcluster not installed beside platforms/generate.py" >&2; exit 1; }
  echo "ok: tools installed"
fi
if [[ -x $prefix/bin/ddlsim ]]; then
  cd "$work"
  got=$("$prefix/bin/ddlsim" --platform platforms/s822lc_2.xml --algo ring -b 1K -e 1K | grep '^# ddlsim: platform' | cut -d, -f1)
  expect "installed ddlsim's platform" "$got" "# ddlsim: platform $prefix/share/ddl/platforms/s822lc_2.xml"
  # The same binary away from share/ddl falls back to the source tree it was built from.
  mkdir -p "$work/elsewhere/bin"
  cp "$prefix/bin/ddlsim" "$work/elsewhere/bin/"
  got=$("$work/elsewhere/bin/ddlsim" --platform platforms/s822lc_2.xml --algo ring -b 1K -e 1K | grep '^# ddlsim: platform' | cut -d, -f1)
  expect "relocated ddlsim's platform" "$got" "# ddlsim: platform $src/platforms/s822lc_2.xml"
  # A description runs through the installed generator (share/ddl/platforms/generate.py): with
  # the source tree's generator out of reach the installed one must still be found.
  got=$("$prefix/bin/ddlsim" --platform "$prefix/share/ddl/platforms/descriptions/examples/pcie_server.json" \
    --algo ring -b 1K -e 1K --format csv | tail -1 | cut -d, -f1,5)
  expect "installed ddlsim on a description" "$got" "1024,ring"
fi
echo "package: all checks passed"
