#!/bin/sh
# stopped_rank.sh BOUND_S RANK COMMAND...
# Runs COMMAND (an mpirun of ddlcalibrate) and, once it is measuring (its first "one-way" line),
# stops rank RANK with SIGSTOP (the process whose environment has OMPI_COMM_WORLD_RANK=RANK and
# this script's marker). Passes when the job then exits non-zero within BOUND_S seconds and says
# "rank RANK did not answer": whichever rank timed out first, perhaps one waiting on a rank that
# itself waits on the stopped one, the ranks still running name the one that is not. The stopped
# process is killed at the end whatever happened, by its pid.
bound=$1 rank=$2
shift 2
marker=DDL_STOPPED_RANK_TEST=$$
log=$(mktemp /tmp/ddl_stopped_rank.XXXXXX)
env "$marker" timeout -s KILL $((bound * 6)) "$@" > "$log" 2>&1 &
job=$!
fail() { cat "$log"; printf -- '---\nFAILED: %s\n' "$1"; [ -n "$pid" ] && kill -KILL "$pid" 2>/dev/null; rm -f "$log"; exit 1; }
waited=0
until grep -q "one-way" "$log"; do
  kill -0 "$job" 2>/dev/null || fail "the job ended before it measured anything"
  sleep 0.2; waited=$((waited + 1))
  [ "$waited" -lt $((bound * 25)) ] || fail "no measurement started"
done
pid=
# Other processes come and go during the scan, and some are not ours to read: quietly skipped.
for environ in /proc/[0-9]*/environ; do
  vars=$( { tr '\0' '\n' < "$environ"; } 2>/dev/null) || continue
  if printf '%s\n' "$vars" | grep -qx "$marker" &&
     printf '%s\n' "$vars" | grep -qx "OMPI_COMM_WORLD_RANK=$rank"; then
    pid=${environ#/proc/}; pid=${pid%/environ}
  fi
done
[ -n "$pid" ] || fail "rank $rank not found"
kill -STOP "$pid"
start=$(date +%s)
wait "$job"
status=$?
elapsed=$(($(date +%s) - start))
kill -KILL "$pid" 2>/dev/null
[ "$status" -ne 0 ] || fail "expected a non-zero exit status, got 0"
[ "$elapsed" -le "$bound" ] || fail "ended ${elapsed} s after the stop, more than the bound of ${bound} s"
grep -q "rank $rank did not answer" "$log" || fail "no line says rank $rank did not answer"
grep "rank $rank did not answer" "$log" | head -1
printf 'exit status %s %s s after rank %s stopped (bound %s s)\n' "$status" "$elapsed" "$rank" "$bound"
rm -f "$log"
