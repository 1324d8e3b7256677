#!/bin/sh
# ddlrun (auto, direct, ring) against Open MPI's MPI_Allreduce on this machine, 2 and 4 ranks,
# 1 KB .. 256 MB, on buffers in 4 KB pages and in transparent huge pages (ddlrun --pages), plus
# the machine's memcpy bandwidth on the same two kinds of buffers, measured in the same script,
# so every ratio compares numbers taken minutes apart on the same machine. Not a test: it
# asserts nothing.
#
#   experiments/bench_real.sh            # uses build/bin; BUILD=dir to use another build
#
# Writes, in experiments/results/: bench_real_<pages>_{2,4}ranks.csv and
# bench_real_memcpy_<pages>.csv (pages: 4k, huge), bench_real_memcpy_concurrent.csv (two copiers
# at once, one per core, 4 KB pages: what two ranks' memory traffic can reach),
# bench_real_summary.txt (ratios, and the memory-traffic bounds of a 2-rank allreduce) and
# bench_real_commands.txt (the exact commands run, and the load before and after).
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
  echo "# transparent huge pages: $(cat /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null || echo none)"
  echo "# load average before: $(cut -d' ' -f1-3 /proc/loadavg)"; } >> "$OUT/bench_real_commands.txt"
for pages in 4k huge; do
  run "$OUT/bench_real_memcpy_$pages.csv" "$BUILD/bin/ddl_membw" -b 1K -e 256M -n 20 --pages "$pages"
done
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
for pages in 4k huge; do
  for ranks in 2 4; do
    run "$OUT/bench_real_${pages}_${ranks}ranks.csv" $MPIRUN -np "$ranks" "$BUILD/bin/ddlrun" \
      --algo auto,direct,ring --pages "$pages" -b 1K -e 256M -f 4 -n "$ITERS" -w "$WARMUP" \
      --baseline mpi --format csv
  done
done
echo "# load average after: $(cut -d' ' -f1-3 /proc/loadavg)" >> "$OUT/bench_real_commands.txt"

/usr/bin/python3 - "$OUT" > "$OUT/bench_real_summary.txt" <<'PY'
import csv, sys
out = sys.argv[1]
print("busbw of ddlrun over MPI_Allreduce's on the same buffers (>= 1: as fast or faster), and over")
print("memcpy's GB/s on the same kind of buffers (one copier)")
for pages in ("4k", "huge"):
    memcpy = {int(r["size"]): float(r["memcpy_gbs"])
              for r in csv.DictReader(open(f"{out}/bench_real_memcpy_{pages}.csv"))}
    print()
    print(f"{pages} pages")
    print(f"{'ranks':>5} {'size':>10} {'algo':>6} {'busbw':>8} {'mpi':>8} {'vs mpi':>7} {'memcpy':>8} {'vs memcpy':>9}")
    for ranks in (2, 4):
        for r in csv.DictReader(open(f"{out}/bench_real_{pages}_{ranks}ranks.csv")):
            size, bus, mpi = int(r["size"]), float(r["busbw_gbs"]), float(r["mpi_busbw_gbs"] or "nan")
            mc = memcpy.get(size, float("nan"))
            print(f"{ranks:>5} {size:>10} {r['algo']:>6} {bus:8.3f} {mpi:8.3f} {bus / mpi:7.2f} {mc:8.2f} {bus / mc:9.2f}")
# The memory-traffic bounds of a 2-rank allreduce of N bytes (busbw = N / t). A copy of n bytes
# moves 2n through memory (read, write), so two copiers at once move 2 x aggregate_gbs. With
# one-sided copies in cache-sized chunks (direct) each rank reads its half and the peer's,
# writes its reduced half into its own buffer and into the peer's: 4N for the two ranks, 5N
# where the kernel's write into the peer's buffer first reads each line (no streaming store).
# Through two-sided messages into scratch of a whole half (ring), the reduce-scatter also writes
# and reads the scratch, and the allgather reads the peer's half and writes it: 7N.
print()
print("memory-traffic bounds of a 2-rank allreduce's busbw (two copiers at once, one per core, 4k pages):")
memcpy = {int(r["size"]): float(r["memcpy_gbs"]) for r in csv.DictReader(open(f"{out}/bench_real_memcpy_4k.csv"))}
print(f"{'size':>10} {'aggregate':>9} {'4N':>7} {'/ memcpy':>8} {'5N':>7} {'/ memcpy':>8} {'7N':>7} {'/ memcpy':>8}")
for r in csv.DictReader(open(f"{out}/bench_real_memcpy_concurrent.csv")):
    size, agg = int(r["size"]), float(r["aggregate_gbs"])
    traffic, mc = 2 * agg, memcpy.get(size, float("nan"))
    print(f"{size:>10} {agg:9.2f}" + "".join(f" {traffic / k:7.2f} {traffic / k / mc:8.2f}" for k in (4, 5, 7)))
PY
cat "$OUT/bench_real_summary.txt"
