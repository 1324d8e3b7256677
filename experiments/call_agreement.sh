#!/bin/sh
# What the per-call agreement of the C API and the Python module costs (real/mpi/call_agreement.hpp):
# ddl_call_agreement_bench times, in one process, batches of allreduces alone and with the
# call's signature + agreement, alternately; RUNS launches (default 5) each of 2 and 4 ranks,
# sizes 8 B..2 MB. The summary gives, per ranks and size, the median over launches of each
# launch's medians, and the range of the ratio. Not a test: it asserts nothing.
#
#   experiments/call_agreement.sh             # uses build/bin; BUILD=dir to use another build
#   RUNS=9 ALGO=ring experiments/call_agreement.sh
#
# Writes, in OUT (experiments/lib.sh: a new experiments/runs/call_agreement-<time>/, or with
# UPDATE_RESULTS=1 experiments/results/): call_agreement_p<ranks>.run<R>.csv, call_agreement_summary.txt
# and call_agreement_commands.txt (the exact commands, the load before and after), all at the
# end, once every run has succeeded.
set -eu
cd "$(dirname "$0")/.."
. experiments/lib.sh
BUILD=${BUILD:-build}
RUNS=${RUNS:-5}
ALGO=${ALGO:-auto}
case $RUNS in '' | *[!0-9]* | 0) echo "call_agreement.sh: RUNS must be a positive whole number, got '$RUNS'" >&2; exit 2 ;; esac
bench=$BUILD/bin/ddl_call_agreement_bench
[ -x "$bench" ] || { echo "call_agreement.sh: $bench is missing: build first (make build)" >&2; exit 1; }
results_dir call_agreement experiments/results
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
trap 'exit 143' INT TERM
mpirun="mpirun --oversubscribe --allow-run-as-root --mca btl self,vader"

{ echo "# $(date -u +%Y-%m-%dT%H:%MZ) $(uname -n), $(nproc) cores, kernel $(uname -r)"
  echo "# build: $BUILD, $(grep '^CMAKE_BUILD_TYPE' "$BUILD/CMakeCache.txt" 2>/dev/null || echo 'build type unknown')"
  echo "# load average before: $(cut -d' ' -f1-3 /proc/loadavg)"; } > "$work/call_agreement_commands.txt"
for r in $(seq 1 "$RUNS"); do
  for p in 2 4; do
    cmd="$mpirun -np $p $bench -b 8 -e 2M -f 8 -n 21 --algo $ALGO"
    echo "$cmd > $OUT/call_agreement_p$p.run$r.csv" >> "$work/call_agreement_commands.txt"
    $cmd > "$work/call_agreement_p$p.run$r.csv"
  done
done
echo "# load average after: $(cut -d' ' -f1-3 /proc/loadavg)" >> "$work/call_agreement_commands.txt"

/usr/bin/python3 - "$work" "$RUNS" > "$work/call_agreement_summary.txt" <<'PY'
import csv, statistics, sys
work, runs = sys.argv[1], int(sys.argv[2])
print("ddl_call_agreement_bench: us per allreduce, the slowest rank's, median of 21 batches per")
print("launch; here the median over launches (ratio: also its min-max over launches).")
print("plain: the algorithm alone; checked: signature + agreement + the algorithm, as the C API")
print("and the Python module run every call.")
print(f"{'ranks':>5} {'algo':>5} {'size':>8} {'plain':>8} {'checked':>8} {'added':>7} {'ratio':>6} range")
for p in (2, 4):
    launches = [list(csv.DictReader(open(f"{work}/call_agreement_p{p}.run{k}.csv")))
                for k in range(1, runs + 1)]
    for i, row in enumerate(launches[0]):
        col = lambda name: [float(l[i][name]) for l in launches]
        ratio = col("ratio")
        print(f"{p:>5} {row['algo']:>5} {row['size']:>8} {statistics.median(col('plain_us')):8.2f}"
              f" {statistics.median(col('checked_us')):8.2f} {statistics.median(col('added_us')):7.2f}"
              f" {statistics.median(ratio):6.2f} {min(ratio):.2f}-{max(ratio):.2f}")
PY
mv "$work"/call_agreement_* "$OUT/"
cat "$OUT/call_agreement_summary.txt"
