#!/bin/sh
# Why 2-rank `direct` stays below 0.7 of memcpy at 256 MB: ddl_cma_floor times, piece by piece,
# what direct does to its half of a 256 MB buffer (tools/benches/cma_floor.cpp says each variant),
# with the memcpy yardstick in the same run; RUNS runs (default 3) of each page kind, and the
# summary gives each time's median over them and its range, the time that 0.7 of the run's
# memcpy allows, and the floor of a cross-memory-attach allreduce: the kernel's two copies plus
# one pass over the rank's own half. Not a test: it asserts nothing.
#
#   experiments/cma_floor.sh            # uses build/bin; BUILD=dir to use another build
#   SIZE=64M RUNS=5 experiments/cma_floor.sh   # another size (ddl_cma_floor -s), more runs
#
# Writes, in a new experiments/runs/cma_floor-<time>/ (UPDATE_RESULTS=1: the committed
# experiments/results/; OUT=dir: dir; experiments/README.md): cma_floor_<pages>.runR.csv (pages: 4k, huge),
# cma_floor_summary.txt and cma_floor_commands.txt (the exact commands, the load before and
# after), all at the end, once every run has succeeded.
set -eu
cd "$(dirname "$0")/.."
. experiments/lib.sh
BUILD=${BUILD:-build}
RUNS=${RUNS:-3}
SIZE=${SIZE:-256M}
case $RUNS in '' | *[!0-9]* | 0) echo "cma_floor.sh: RUNS must be a positive whole number, got '$RUNS'" >&2; exit 2 ;; esac
[ -x "$BUILD/bin/ddl_cma_floor" ] || { echo "cma_floor.sh: $BUILD/bin/ddl_cma_floor is missing: build first (make build)" >&2; exit 1; }
results_dir cma_floor experiments/results
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
trap 'exit 143' INT TERM

{ echo "# $(date -u +%Y-%m-%dT%H:%MZ) $(uname -n), $(nproc) cores, kernel $(uname -r)"
  echo "# build: $BUILD, $(grep '^CMAKE_BUILD_TYPE' "$BUILD/CMakeCache.txt" 2>/dev/null || echo 'build type unknown')"
  echo "# transparent huge pages: $(cat /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null || echo none)"
  echo "# glibc: $(ldd --version | head -1); $(/lib64/ld-linux-x86-64.so.2 --list-tunables 2>/dev/null | grep x86_non_temporal_threshold || echo 'tunables not listed')"
  echo "# load average before: $(cut -d' ' -f1-3 /proc/loadavg)"; } > "$work/cma_floor_commands.txt"
for r in $(seq 1 "$RUNS"); do
  for pages in 4k huge; do
    out=$OUT/cma_floor_$pages.run$r.csv
    echo "$BUILD/bin/ddl_cma_floor -s $SIZE -n 10 --pages $pages > $out" >> "$work/cma_floor_commands.txt"
    "$BUILD/bin/ddl_cma_floor" -s "$SIZE" -n 10 --pages "$pages" > "$work/cma_floor_$pages.run$r.csv"
  done
done
echo "# load average after: $(cut -d' ' -f1-3 /proc/loadavg)" >> "$work/cma_floor_commands.txt"

/usr/bin/python3 - "$work" "$RUNS" > "$work/cma_floor_summary.txt" <<'PY'
import csv, statistics, sys
work, runs = sys.argv[1], int(sys.argv[2])
def spread(xs):
    return f"{statistics.median(xs):7.2f} {min(xs):6.2f}-{max(xs):<6.2f}"
print("ddl_cma_floor: ms per pass of the slower of 2 processes (median over runs, then min-max);")
print("gbs: size / time. 'allowed' is the time 0.7 of that run's memcpy bandwidth allows a 2-rank")
print("allreduce; 'floor' is get+put + reduce, the kernel's two copies plus one pass over the own half.")
for pages in ("4k", "huge"):
    rows = [{r["variant"]: r for r in csv.DictReader(open(f"{work}/cma_floor_{pages}.run{k}.csv"))}
            for k in range(1, runs + 1)]
    size = int(rows[0]["memcpy"]["size"])
    print(f"\n{pages} pages, {size} bytes, segment {rows[0]['memcpy']['chunk']}")
    print(f"{'':>10} {'ms':>7} {'range':<13} {'gbs':>6}")
    for variant in rows[0]:
        ms = [float(r[variant]["ms"]) for r in rows]
        print(f"{variant:>10} {spread(ms)} {size / statistics.median(ms) / 1e6:6.2f}")
    allowed = [float(r["memcpy"]["ms"]) / 0.7 for r in rows]
    floor = [float(r["get+put"]["ms"]) + float(r["reduce"]["ms"]) for r in rows]
    ratio = [float(r["direct"]["gbs"]) / float(r["memcpy"]["gbs"]) for r in rows]
    print(f"{'allowed':>10} {spread(allowed)}")
    print(f"{'floor':>10} {spread(floor)}")
    print(f"direct / memcpy: {spread(ratio)}")
PY
mv "$work"/cma_floor_* "$OUT/"
cat "$OUT/cma_floor_summary.txt"
