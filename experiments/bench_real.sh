#!/bin/sh
# ddlrun (ring, ddl) against Open MPI's MPI_Allreduce on this machine, 2 and 4 ranks, 1 KB ..
# 256 MB, plus the machine's memcpy bandwidth measured in the same script, so every ratio
# compares numbers taken minutes apart on the same machine. Not a test: it asserts nothing.
#
#   experiments/bench_real.sh            # uses build/bin; BUILD=dir to use another build
#
# Writes experiments/results/bench_real_{2,4}ranks.csv, bench_real_memcpy.csv,
# bench_real_memcpy_concurrent.csv (two copiers at once, one per core: what two ranks' memory
# traffic can reach), bench_real_summary.txt (ratios, and the memory-traffic bound on a 2-rank
# allreduce's busbw) and bench_real_commands.txt (the exact commands run).
set -eu
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
OUT=experiments/results
ITERS=${ITERS:-10}
WARMUP=${WARMUP:-3}
for tool in ddlrun ddl_membw; do
  [ -x "$BUILD/bin/$tool" ] || { echo "bench_real.sh: $BUILD/bin/$tool is missing: build first (make build)" >&2; exit 1; }
done
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl=self,vader
MPIRUN="mpirun --oversubscribe --allow-run-as-root --mca btl self,vader"

: > "$OUT/bench_real_commands.txt"
run() {  # run OUTFILE COMMAND...: record the command, then run it into OUTFILE
  out=$1
  shift
  echo "$* > $out" >> "$OUT/bench_real_commands.txt"
  "$@" > "$out"
}

{ echo "# $(date -u +%Y-%m-%dT%H:%MZ) $(uname -n), $(nproc) cores, $(mpirun --version | head -1)"
  echo "# build: $BUILD, $(grep '^CMAKE_BUILD_TYPE' "$BUILD/CMakeCache.txt" 2>/dev/null || echo 'build type unknown')"
  echo "# load average before: $(cut -d' ' -f1-3 /proc/loadavg)"; } >> "$OUT/bench_real_commands.txt"
run "$OUT/bench_real_memcpy.csv" "$BUILD/bin/ddl_membw" -b 1K -e 256M -n 20
# Two copiers at once over the large sizes (each its own buffers), as two ranks' copies are.
echo "$BUILD/bin/ddl_membw -b 64M -e 256M -n 20 (two at once) > $OUT/bench_real_memcpy_concurrent.csv" \
  >> "$OUT/bench_real_commands.txt"
copies=$(mktemp -d)
trap 'rm -rf "$copies"' EXIT
"$BUILD/bin/ddl_membw" -b 64M -e 256M -n 20 > "$copies/0.csv" &
first=$!
"$BUILD/bin/ddl_membw" -b 64M -e 256M -n 20 > "$copies/1.csv"
wait "$first"  # its own status: a failed copier stops the script (set -e)
paste -d, "$copies/0.csv" "$copies/1.csv" | awk -F, 'NR == 1 { print "size,copier0_gbs,copier1_gbs,aggregate_gbs"; next }
  { printf "%s,%s,%s,%.3f\n", $1, $2, $4, $2 + $4 }' > "$copies/concurrent.csv"
mv "$copies/concurrent.csv" "$OUT/bench_real_memcpy_concurrent.csv"
for ranks in 2 4; do
  run "$OUT/bench_real_${ranks}ranks.csv" $MPIRUN -np "$ranks" "$BUILD/bin/ddlrun" --algo auto,ring,ddl \
    -b 1K -e 256M -f 4 -n "$ITERS" -w "$WARMUP" --baseline mpi --format csv
done
echo "# load average after: $(cut -d' ' -f1-3 /proc/loadavg)" >> "$OUT/bench_real_commands.txt"

python3 - "$OUT" > "$OUT/bench_real_summary.txt" <<'PY'
import csv, sys
out = sys.argv[1]
memcpy = {int(r["size"]): float(r["memcpy_gbs"]) for r in csv.DictReader(open(f"{out}/bench_real_memcpy.csv"))}
print("busbw of ddlrun over MPI_Allreduce's (>= 1 means as fast or faster), and over memcpy GB/s")
print(f"{'ranks':>5} {'size':>10} {'algo':>5} {'busbw':>8} {'mpi':>8} {'vs mpi':>7} {'memcpy':>8} {'vs memcpy':>9}")
for ranks in (2, 4):
    for r in csv.DictReader(open(f"{out}/bench_real_{ranks}ranks.csv")):
        size, bus, mpi = int(r["size"]), float(r["busbw_gbs"]), float(r["mpi_busbw_gbs"] or "nan")
        mc = memcpy.get(size, float("nan"))
        print(f"{ranks:>5} {size:>10} {r['algo']:>5} {bus:8.3f} {mpi:8.3f} {bus / mpi:7.2f} {mc:8.2f} {bus / mc:9.2f}")
# The memory-traffic bound of a 2-rank allreduce of N bytes (busbw = N / t). A copy of n bytes
# moves 2n through memory (read, write), so two copiers at once move 2 x aggregate_gbs. Each
# rank must read its half and the peer's, write its reduced half (3 N/2), then read the peer's
# reduced half and write it into its own buffer (2 N/2): 5N in all for the two ranks, with
# direct access to the peer's memory. Through MPI's two-sided messages (a single-copy receive
# into scratch, then the reduce) the reduce-scatter also writes and reads the scratch: 7N.
print()
print("memory-traffic bound on a 2-rank allreduce's busbw (two copiers at once, one per core):")
print(f"{'size':>10} {'aggregate':>9} {'direct (5N)':>12} {'/ memcpy':>8} {'two-sided (7N)':>14} {'/ memcpy':>8}")
for r in csv.DictReader(open(f"{out}/bench_real_memcpy_concurrent.csv")):
    size, agg = int(r["size"]), float(r["aggregate_gbs"])
    traffic = 2 * agg
    direct, two_sided = traffic / 5, traffic / 7
    mc = memcpy.get(size, float("nan"))
    print(f"{size:>10} {agg:9.2f} {direct:12.2f} {direct / mc:8.2f} {two_sided:14.2f} {two_sided / mc:8.2f}")
PY
cat "$OUT/bench_real_summary.txt"
