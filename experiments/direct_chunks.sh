#!/bin/sh
# direct's chunk size on this machine: 2 ranks, buffers in huge pages and in 4 KB pages,
# chunks of 64 KB .. 2 MB (direct:segment=BYTES), 16 / 64 / 256 MB, RUNS runs (default 3).
# What kDirectChunkBytes (algorithms/allreduce_direct.hpp) rests on. Not a test.
#
#   experiments/direct_chunks.sh         # uses build/bin; BUILD=dir to use another build
#
# Writes direct_chunks.csv (every run's rows) and direct_chunks.txt (the median busbw per page
# kind, size and chunk over the runs, and each over the best chunk's) into a new
# experiments/runs/direct_chunks-<time>/ (UPDATE_RESULTS=1: the committed experiments/results/;
# OUT=dir: dir; experiments/README.md).
set -eu
cd "$(dirname "$0")/.."
. experiments/lib.sh
BUILD=${BUILD:-build}
RUNS=${RUNS:-3}
case $RUNS in '' | *[!0-9]* | 0) echo "direct_chunks.sh: RUNS must be a positive whole number, got '$RUNS'" >&2; exit 2 ;; esac
[ -x "$BUILD/bin/ddlrun" ] || { echo "direct_chunks.sh: $BUILD/bin/ddlrun is missing: build first (make build)" >&2; exit 1; }
results_dir direct_chunks experiments/results
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl=self,vader
algos=""
for chunk in 65536 131072 262144 524288 1048576 2097152; do algos="$algos${algos:+,}direct:segment=$chunk"; done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "run,pages,size,algo,busbw_gbs" > "$work/rows.csv"
for r in $(seq 1 "$RUNS"); do
  for pages in huge 4k; do
    mpirun --oversubscribe --allow-run-as-root --mca btl self,vader -np 2 "$BUILD/bin/ddlrun" \
      --algo "$algos" --pages "$pages" -b 16M -e 256M -f 4 -n 10 -w 3 --format csv > "$work/run.csv"
    awk -F, -v r="$r" -v p="$pages" '/^[0-9]/ { print r "," p "," $1 "," $5 "," $9 }' "$work/run.csv" >> "$work/rows.csv"
  done
done
/usr/bin/python3 - "$work/rows.csv" "$RUNS" > "$work/summary.txt" <<'PY'
import csv, statistics, sys
rows, runs = list(csv.DictReader(open(sys.argv[1]))), sys.argv[2]
print(f"2-rank direct busbw (GB/s), median of {runs} runs, by chunk; in brackets over the best chunk's")
cells = {}
for r in rows:
    cells.setdefault((r["pages"], int(r["size"])), {}).setdefault(
        int(r["algo"].split("segment=")[1]), []).append(float(r["busbw_gbs"]))
for (pages, size), by_chunk in sorted(cells.items()):
    med = {c: statistics.median(v) for c, v in by_chunk.items()}
    best = max(med.values())
    print(f"{pages:>4} {size >> 20:>4} MB: " +
          "  ".join(f"{c >> 10}K {m:.2f} ({m / best:.2f})" for c, m in sorted(med.items())))
PY
mv "$work/rows.csv" "$OUT/direct_chunks.csv"
mv "$work/summary.txt" "$OUT/direct_chunks.txt"
cat "$OUT/direct_chunks.txt"
