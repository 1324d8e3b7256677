#!/bin/sh
# run.sh BIN_DIR SECONDS [TARGET...]: runs each fuzz target for SECONDS under the sanitizers it
# was built with, starting from its committed seeds (fuzz/corpus/TARGET, never written to) and
# growing a working corpus under BIN_DIR/../fuzz-corpus/TARGET. A crash, a leak, a sanitizer
# report, an input that takes over 10 s or 2 GiB is a finding: its input is kept in
# BIN_DIR/../fuzz-findings/ and the run fails. One line per target goes to
# BIN_DIR/../fuzz-log.txt (seconds, executions, coverage) for experiments/results/fuzzing.md.
set -u
bin=$1 seconds=$2
shift 2
here=$(cd "$(dirname "$0")" && pwd)
work=$(cd "$bin/.." && pwd)
targets=${*:-$(cd "$here/corpus" && ls)}
failed=0
for t in $targets; do
  [ -x "$bin/$t" ] || { echo "fuzz: $t was not built (see fuzz/CMakeLists.txt)"; failed=1; continue; }
  mkdir -p "$work/fuzz-corpus/$t" "$work/fuzz-findings/$t"
  log="$work/fuzz-findings/$t/last.log"
  echo "fuzz: $t for $seconds s"
  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 "$bin/$t" -max_total_time="$seconds" -timeout=10 \
    -rss_limit_mb=2048 -max_len=65536 -print_final_stats=1 -artifact_prefix="$work/fuzz-findings/$t/" \
    "$work/fuzz-corpus/$t" "$here/corpus/$t" > "$log" 2>&1
  status=$?
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
  cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1)
  echo "$(date -u +%F) $t ${seconds}s status=$status runs=${runs:-?} ${cov:-cov: ?}" >> "$work/fuzz-log.txt"
  if [ "$status" -ne 0 ]; then
    echo "fuzz: $t FOUND A PROBLEM (exit $status); its input is in $work/fuzz-findings/$t/:"
    grep -E 'ERROR|SUMMARY|property violated|terminate|what\(\)' "$log" | head -20
    failed=1
  else
    echo "fuzz: $t ok: ${runs:-?} runs, ${cov:-cov: ?}"
  fi
done
exit $failed
