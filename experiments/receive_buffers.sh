#!/usr/bin/env bash
# Does the state of a receive buffer change what a message costs? Calibrates 2 ranks with
# messages received into buffers the receiver last wrote (own, what ddlcalibrate measures by
# default) and into buffers the peer last read (peer-read, what a ring allreduce's allgather
# receives into), in alternating launches, and prints per size the medians over launches of
# each and their ratio. This is the measurement behind the 2-rank mid-size miss discussed in
# experiments/results/sim_vs_real/README.md.
#
#   experiments/receive_buffers.sh            # tools from build/bin
#
# Environment: BUILD (default build), LAUNCHES (per state, default 4), REPS (default 21),
# OUT (default a new experiments/runs/receive_buffers-<time>/; UPDATE_RESULTS=1: the committed
# experiments/results/receive_buffers; experiments/README.md).
set -euo pipefail
cd "$(dirname "$0")/.."
. experiments/lib.sh
BUILD=${BUILD:-build}
LAUNCHES=${LAUNCHES:-4}
REPS=${REPS:-21}
CAL=$BUILD/bin/ddlcalibrate
[ -x "$CAL" ] || { echo "receive_buffers.sh: $CAL is missing: build it first (or set BUILD)" >&2; exit 1; }
for v in LAUNCHES REPS; do
  case ${!v} in '' | *[!0-9]* | 0) echo "receive_buffers.sh: $v must be a positive integer, got '${!v}'" >&2; exit 1 ;; esac
done
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
results_dir receive_buffers experiments/results/receive_buffers
rm -f "$OUT"/own.*.json "$OUT"/peer-read.*.json "$OUT"/*.xml
{
  echo "# experiments/receive_buffers.sh, $(date -u +%Y-%m-%dT%H:%M:%SZ), $(nproc) cores, load before: $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "# LAUNCHES=$LAUNCHES REPS=$REPS; each launch:"
  echo "mpirun --oversubscribe --allow-run-as-root --mca btl self,vader -np 2 $CAL --output OUT/<state>.<i>.xml --reps $REPS -b 32K -e 1M --receive-buffers <state>"
} > "$OUT/commands.txt"
for i in $(seq "$LAUNCHES"); do
  for state in own peer-read; do
    mpirun --oversubscribe --allow-run-as-root --mca btl self,vader -np 2 "$CAL" --output "$OUT/$state.$i.xml" \
      --reps "$REPS" -b 32K -e 1M --receive-buffers "$state" > /dev/null 2>&1
  done
done
rm -f "$OUT"/*.xml
/usr/bin/python3 - "$OUT" "$LAUNCHES" <<'PY' | tee "$OUT/summary.txt"
import json, statistics, sys
out, launches = sys.argv[1], int(sys.argv[2])
def medians(state, pattern):
    per_size = {}
    for i in range(1, launches + 1):
        for m in json.load(open(f"{out}/{state}.{i}.json"))["messages"]:
            per_size.setdefault(m["bytes"], []).append(m[pattern]["median_s"] * 1e6)
    return per_size
print(f"2 ranks, median over {launches} launches per state of each launch's median (us)")
for pattern in ("pingpong", "bidirectional"):
    own, peer = medians("own", pattern), medians("peer-read", pattern)
    print(f"\n{pattern}:\n{'bytes':>9} {'own':>10} {'peer-read':>10} {'ratio':>6}   per-launch ratios")
    for b in sorted(own):
        o, p = statistics.median(own[b]), statistics.median(peer[b])
        per = " ".join(f"{x / y:.2f}" for x, y in zip(peer[b], own[b]))
        print(f"{b:>9} {o:>10.2f} {p:>10.2f} {p / o:>6.2f}   {per}")
PY
