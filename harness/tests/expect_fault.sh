#!/bin/sh
# expect_fault.sh BOUND_S REGEX FAULT [--keep FILE] -- COMMAND...
# Runs COMMAND (an mpirun of ddlrun) with DDLRUN_FAULT=FAULT, so one rank stops (SIGSTOP) or dies
# (SIGKILL) at a named point (real/mpi/bounded_mpi.hpp, fault_point). Passes when the job exits
# non-zero within BOUND_S seconds, its output matches the extended regular expression REGEX
# (the message naming the unresponsive rank), and, with --keep FILE, FILE still holds what it
# held before (a failed --trace run must not destroy an existing trace).
bound=$1 pattern=$2 fault=$3
shift 3
keep=
if [ "$1" = --keep ]; then keep=$2; shift 2; fi
[ "$1" = -- ] && shift
if [ -n "$keep" ]; then printf 'previous contents\n' > "$keep"; fi
start=$(date +%s%N)
# The hard limit only keeps a broken build from hanging ctest; the bound is checked below.
output=$(DDLRUN_FAULT=$fault timeout -s KILL $((bound * 3)) "$@" 2>&1)
status=$?
elapsed_ms=$(( ($(date +%s%N) - start) / 1000000 ))
elapsed=$((elapsed_ms / 1000)).$(( (elapsed_ms % 1000) / 100 ))
fail() { printf '%s\n---\nFAILED: %s\n' "$output" "$1"; exit 1; }
[ "$status" -ne 0 ] || fail "expected a non-zero exit status, got 0"
[ "$elapsed_ms" -le $((bound * 1000)) ] || fail "took ${elapsed} s, more than the bound of ${bound} s"
printf '%s\n' "$output" | grep -Eq -- "$pattern" || fail "exit status $status, but no line matches: $pattern"
if [ -n "$keep" ]; then
  [ "$(cat "$keep")" = "previous contents" ] || fail "$keep was changed by the failed run"
  rm -f "$keep"
fi
printf 'exit status %s after %s s (bound %s s), and the expected message: %s\n' "$status" "$elapsed" "$bound" \
  "$pattern"
