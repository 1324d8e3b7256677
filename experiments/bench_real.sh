#!/bin/sh
# ddlrun (auto, direct, ring) against Open MPI's MPI_Allreduce on this machine, 2 and 4 ranks,
# 1 KB .. 256 MB, on buffers in 4 KB pages and in transparent huge pages (ddlrun --pages), plus
# the machine's memcpy bandwidth on the same two kinds of buffers, measured in the same run, so
# every ratio compares numbers taken seconds apart on the same machine; RUNS such runs (default
# 3), and the summary gives each ratio's median over them and its range. Not a test: it asserts
# nothing.
#
#   experiments/bench_real.sh            # uses build/bin; BUILD=dir to use another build
#
# Writes, in a new experiments/runs/bench_real-<time>/ (UPDATE_RESULTS=1: the committed
# experiments/results/; OUT=dir: dir; experiments/README.md): per run R, bench_real_<pages>_{2,4}ranks.runR.csv,
# bench_real_<pages>_{2,4}ranks_small.runR.csv (1 KB .. 64 KB again, -n SMALL_ITERS) and
# bench_real_memcpy_<pages>.runR.csv (pages: 4k, huge); auto_plans.runR/ (the plans auto
# measured in run R, one per rank count: plan files); bench_real_memcpy_concurrent.csv (two
# copiers at once, one per core, 4 KB pages: what two ranks' memory traffic can reach);
# bench_real_summary.txt (the ratios, what auto ran, its lowest ratio over MPI_Allreduce from
# 4 KB, and the memory-traffic bounds of a 2-rank allreduce) and
# bench_real_commands.txt (the exact commands run, and the load before and after).
set -eu
cd "$(dirname "$0")/.."
. experiments/lib.sh
BUILD=${BUILD:-build}
ITERS=${ITERS:-10}
WARMUP=${WARMUP:-3}
# The small sizes again with many iterations: there the ratios to MPI_Allreduce are within a few
# per cent (auto runs MPI_Allreduce itself where it is the fastest), and 10 iterations of a few
# microseconds spread them by 10-15 % from run to run.
SMALL_ITERS=${SMALL_ITERS:-1000}
RUNS=${RUNS:-3}
case $RUNS in '' | *[!0-9]* | 0) echo "bench_real.sh: RUNS must be a positive whole number, got '$RUNS'" >&2; exit 2 ;; esac
case $SMALL_ITERS in '' | *[!0-9]* | 0) echo "bench_real.sh: SMALL_ITERS must be a positive whole number, got '$SMALL_ITERS'" >&2; exit 2 ;; esac
for tool in ddlrun ddl_membw; do
  [ -x "$BUILD/bin/$tool" ] || { echo "bench_real.sh: $BUILD/bin/$tool is missing: build first (make build)" >&2; exit 1; }
done
results_dir bench_real experiments/results
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
  echo "# glibc: $(ldd --version | head -1); $(/lib64/ld-linux-x86-64.so.2 --list-tunables 2>/dev/null | grep x86_non_temporal_threshold || echo 'tunables not listed')"
  echo "# load average before: $(cut -d' ' -f1-3 /proc/loadavg)"; } >> "$OUT/bench_real_commands.txt"
# memcpy with glibc's switch to non-temporal stores turned off (its x86_non_temporal_threshold,
# 181.5 MiB on this machine): regular stores at every size, as every copy and reduction of an
# allreduce here makes them.
echo "GLIBC_TUNABLES=glibc.cpu.x86_non_temporal_threshold=0xfffffffffff $BUILD/bin/ddl_membw -b 64M -e 256M -n 20 > $OUT/bench_real_memcpy_regular_stores.csv" \
  >> "$OUT/bench_real_commands.txt"
GLIBC_TUNABLES=glibc.cpu.x86_non_temporal_threshold=0xfffffffffff "$BUILD/bin/ddl_membw" -b 64M -e 256M -n 20 \
  > "$OUT/bench_real_memcpy_regular_stores.csv"
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
for r in $(seq 1 "$RUNS"); do
  rm -rf "$OUT/auto_plans.run$r"  # measured afresh, not read from an earlier bench's cache
  for pages in 4k huge; do
    run "$OUT/bench_real_memcpy_$pages.run$r.csv" "$BUILD/bin/ddl_membw" -b 1K -e 256M -n 20 --pages "$pages"
    for ranks in 2 4; do
      # auto measures its plan afresh in every run (real/README.md, "auto measures the machine
      # it runs on"): the run's first auto collective per rank count, into a folder of the run's.
      export DDL_CACHE_DIR="$OUT/auto_plans.run$r"
      run "$OUT/bench_real_${pages}_${ranks}ranks.run$r.csv" $MPIRUN -np "$ranks" "$BUILD/bin/ddlrun" \
        --algo auto,direct,ring --pages "$pages" -b 1K -e 256M -f 4 -n "$ITERS" -w "$WARMUP" \
        --baseline mpi --format csv
      run "$OUT/bench_real_${pages}_${ranks}ranks_small.run$r.csv" $MPIRUN -np "$ranks" "$BUILD/bin/ddlrun" \
        --algo auto,direct,ring --pages "$pages" -b 1K -e 64K -f 4 -n "$SMALL_ITERS" -w 50 \
        --baseline mpi --format csv
    done
  done
done
echo "# load average after: $(cut -d' ' -f1-3 /proc/loadavg)" >> "$OUT/bench_real_commands.txt"

/usr/bin/python3 - "$OUT" "$RUNS" "$SMALL_ITERS" > "$copies/summary.txt" <<'PY'
import csv, statistics, sys
out, runs, small_iters = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])

def report(path):
    """ddlrun's csv rows: its '#' metadata lines skipped."""
    return csv.DictReader(l for l in open(path) if not l.startswith("#"))

def spread(values):
    return f"{statistics.median(values):5.2f} {min(values):5.2f}-{max(values):<5.2f}"

print(f"busbw of ddlrun over MPI_Allreduce's on the same buffers (>= 1: as fast or faster), and over")
print(f"memcpy's GB/s on the same kind of buffers (one copier), each ratio taken within one run:")
print(f"median over {runs} runs, then min-max. busbw: the median run's GB/s.")
chosen = {}  # (pages, ranks, size, run) -> what auto ran
for pages in ("4k", "huge"):
    ratios = {}  # (ranks, size, algo) -> ([vs mpi], [vs memcpy], [busbw])
    for r in range(1, runs + 1):
        memcpy = {int(m["size"]): float(m["memcpy_gbs"])
                  for m in csv.DictReader(open(f"{out}/bench_real_memcpy_{pages}.run{r}.csv"))}
        for ranks in (2, 4):
            for row in report(f"{out}/bench_real_{pages}_{ranks}ranks.run{r}.csv"):
                size, bus = int(row["size"]), float(row["busbw_gbs"])
                mpi = float(row["mpi_busbw_gbs"] or "nan")
                k = ratios.setdefault((ranks, size, row["algo"]), ([], [], []))
                k[0].append(bus / mpi)
                k[1].append(bus / memcpy.get(size, float("nan")))
                k[2].append(bus)
                if row["algo"] == "auto":
                    chosen[(pages, ranks, size, r)] = row["chosen"]
    print()
    print(f"{pages} pages")
    print(f"{'ranks':>5} {'size':>10} {'algo':>6} {'busbw':>7}   {'vs mpi (range)':<17} {'vs memcpy (range)':<17} {'auto ran (per run)'}")
    for (ranks, size, algo), (vs_mpi, vs_memcpy, bus) in ratios.items():
        ran = ",".join(chosen.get((pages, ranks, size, r), "?") for r in range(1, runs + 1)) if algo == "auto" else ""
        print(f"{ranks:>5} {size:>10} {algo:>6} {statistics.median(bus):7.3f}   {spread(vs_mpi):<17} {spread(vs_memcpy):<17} {ran}")
    small = {}  # (ranks, size, algo) -> [vs mpi]: the many-iteration runs of 1 KB .. 64 KB
    for r in range(1, runs + 1):
        for ranks in (2, 4):
            for row in report(f"{out}/bench_real_{pages}_{ranks}ranks_small.run{r}.csv"):
                small.setdefault((ranks, int(row["size"]), row["algo"]), []).append(
                    float(row["busbw_gbs"]) / float(row["mpi_busbw_gbs"] or "nan"))
                if row["algo"] == "auto":
                    chosen[(pages, ranks, int(row["size"]), f"small{r}")] = row["chosen"]
    print(f"the same, 1 KB .. 64 KB with -n {small_iters}: busbw over MPI_Allreduce's (median, min-max)")
    for (ranks, size, algo), vs_mpi in small.items():
        ran = ",".join(chosen.get((pages, ranks, size, f"small{r}"), "?") for r in range(1, runs + 1)) if algo == "auto" else ""
        print(f"{ranks:>5} {size:>10} {algo:>6}           {spread(vs_mpi):<17} {'':<17} {ran}")
    # auto's lowest ratio from 4 KB: the many-iteration runs where they have the size.
    auto = {(ranks, size): statistics.median(v[0]) for (ranks, size, algo), v in ratios.items() if algo == "auto"}
    auto.update({(ranks, size): statistics.median(v) for (ranks, size, algo), v in small.items() if algo == "auto"})
    worst = min(((ratio, ranks, size) for (ranks, size), ratio in auto.items() if size >= 4096), default=None)
    if worst:
        print(f"auto over MPI_Allreduce at >= 4 KB ({pages} pages; up to 64 KB from the -n {small_iters} runs): "
              f"lowest median {worst[0]:.2f} ({worst[1]} ranks, {worst[2]} B): "
              f"{'at least 1.0 everywhere' if worst[0] >= 1.0 else 'below 1.0'}")
# The memory-traffic bounds of a 2-rank allreduce of N bytes (busbw = N / t). A copy of n bytes
# moves 2n through memory (read, write), so two copiers at once move 2 x aggregate_gbs. With
# one-sided copies in cache-sized chunks (direct) each rank reads its half and the peer's,
# writes its reduced half into its own buffer and into the peer's: 4N for the two ranks, 5N
# where the kernel's write into the peer's buffer first reads each line (no streaming store).
# Through two-sided messages into scratch of a whole half (ring), the reduce-scatter also writes
# and reads the scratch, and the allgather reads the peer's half and writes it: 7N.
print()
print("memcpy as is and with regular stores only (glibc's non-temporal switch off), GB/s, and the")
print("2-rank direct busbw (median run) over the latter:")
regular = {int(r["size"]): float(r["memcpy_gbs"]) for r in csv.DictReader(open(f"{out}/bench_real_memcpy_regular_stores.csv"))}
medians = {}
for pages in ("4k", "huge"):
    for r in range(1, runs + 1):
        for row in report(f"{out}/bench_real_{pages}_2ranks.run{r}.csv"):
            if row["algo"] == "direct":
                medians.setdefault((pages, int(row["size"])), []).append(float(row["busbw_gbs"]))
        for m in csv.DictReader(open(f"{out}/bench_real_memcpy_{pages}.run{r}.csv")):
            medians.setdefault(("memcpy " + pages, int(m["size"])), []).append(float(m["memcpy_gbs"]))
print(f"{'size':>10} {'memcpy':>7} {'regular':>7} {'direct 4k':>9} {'/ regular':>9} {'direct huge':>11} {'/ regular':>9}")
for size, reg in sorted(regular.items()):
    if ("4k", size) not in medians:
        continue  # a size the sweep has no row for
    d4, dh = statistics.median(medians[("4k", size)]), statistics.median(medians[("huge", size)])
    mc = statistics.median(medians[("memcpy 4k", size)])
    print(f"{size:>10} {mc:7.2f} {reg:7.2f} {d4:9.2f} {d4 / reg:9.2f} {dh:11.2f} {dh / reg:9.2f}")
print()
print("memory-traffic bounds of a 2-rank allreduce's busbw (two copiers at once, one per core, 4k pages;")
print("/ memcpy: over run 1's single copier):")
memcpy = {int(r["size"]): float(r["memcpy_gbs"]) for r in csv.DictReader(open(f"{out}/bench_real_memcpy_4k.run1.csv"))}
print(f"{'size':>10} {'aggregate':>9} {'4N':>7} {'/ memcpy':>8} {'5N':>7} {'/ memcpy':>8} {'7N':>7} {'/ memcpy':>8}")
for r in csv.DictReader(open(f"{out}/bench_real_memcpy_concurrent.csv")):
    size, agg = int(r["size"]), float(r["aggregate_gbs"])
    traffic, mc = 2 * agg, memcpy.get(size, float("nan"))
    print(f"{size:>10} {agg:9.2f}" + "".join(f" {traffic / k:7.2f} {traffic / k / mc:8.2f}" for k in (4, 5, 7)))
PY
mv "$copies/summary.txt" "$OUT/bench_real_summary.txt"  # only once it is whole
cat "$OUT/bench_real_summary.txt"
