#!/usr/bin/env bash
# Today's fabrics at full bandwidth: ddlsim's allreduce busbw on DGX H100 / A100 clusters against
# the per-node bound, for the flat ring, ring with one channel per GPU (rail-aware), ddl, ddl
# pipelined over chunks, and the in-switch reductions nvls, sharp and nvls_sharp where the DGX
# H100's switches reduce (algorithms/allreduce_ring.cpp, allreduce_ddl.cpp, allreduce_nvls.cpp,
# allreduce_sharp.cpp, allreduce_nvls_sharp.cpp). Not a test: it
# simulates and reports; every row carries ddlsim's own command and its wall time.
#
#   experiments/fabrics.sh                     # uses build/bin/ddlsim (run make first)
#   UPDATE_RESULTS=1 experiments/fabrics.sh    # rewrite experiments/results/fabrics/
#
# Environment: BUILD (default build), SIZES (default "256M 1G"), CASES (subset of the names
# below), OUT / UPDATE_RESULTS (experiments/lib.sh).
# The bound of a multi-node case is a node's NICs: 8 x 400 Gb/s = 400 GB/s (DGX H100), 8 x 200
# Gb/s = 200 GB/s (DGX A100) (platforms/descriptions/dgx_*.json, their sources); a flat ring's
# busbw cannot pass it. ddl crosses the network with already reduced pieces, so its busbw can.
# One node's bound is a GPU's NVLink port, 450 GB/s (dgx_h100.json). In-switch reduction passes
# either bound the same way: data goes to a switch once and comes back once, where a ring sends
# and receives 2(p-1)/p of it.
set -euo pipefail
cd "$(dirname "$0")/.."
. experiments/lib.sh
BUILD=${BUILD:-build}
SIZES=${SIZES:-256M 1G}
DDLSIM=$BUILD/bin/ddlsim
[ -x "$DDLSIM" ] || { echo "fabrics.sh: $DDLSIM is missing: run make first (or set BUILD=dir)" >&2; exit 1; }
results_dir fabrics experiments/results/fabrics
gen=$(mktemp -d)
trap 'rm -rf "$gen"' EXIT
python3 platforms/generate.py --platform dgx_h100 --nodes 1 -o "$gen/dgx_h100_1.xml"
python3 platforms/generate.py --platform dgx_h100 --nodes 16 -o "$gen/dgx_h100_16.xml"
python3 platforms/generate.py --platform dgx_a100 --nodes 4 -o "$gen/dgx_a100_4.xml"

# name | platform | bound GB/s | algorithms, separated by ';'
cases=(
  "h100_1|$gen/dgx_h100_1.xml|450|ring;ring:channels=8;nvls;auto"
  "h100_4|platforms/dgx_h100_4.xml|400|ring;ring:channels=8;ddl;ddl:chunks=16;nvls;sharp;nvls_sharp;auto"
  "h100_16|$gen/dgx_h100_16.xml|400|ring:channels=8;ddl;ddl:chunks=32;nvls;nvls_sharp;auto"
  "h100_rail_64|platforms/dgx_h100_rail_64.xml|400|ring:channels=8;ddl;ddl:8x32x2:ring,hd,ring:chunks=16;nvls;nvls_sharp"
  "a100_4|$gen/dgx_a100_4.xml|200|ring:channels=8;ddl;ddl:chunks=32;auto"
)
csv=$OUT/fabrics.csv
echo "case,bound_gbs,algo,size,time_us,busbw_gbs,model_us,wall_s,command" > "$csv.tmp"
min=$(echo "$SIZES" | awk '{print $1}')
max=$(echo "$SIZES" | awk '{print $NF}')
for c in "${cases[@]}"; do
  IFS='|' read -r name platform bound algos <<< "$c"
  [ -n "${CASES:-}" ] && ! [[ " $CASES " == *" $name "* ]] && continue
  IFS=';' read -r -a list <<< "$algos"
  for algo in "${list[@]}"; do
    cmd="$DDLSIM --platform $platform --algo $algo -b $min -e $max -f 4 --format csv"
    start=$(date +%s.%N)
    $cmd 2> /dev/null | grep -v '^#' | tail -n +2 > "$gen/rows"
    wall=$(awk "BEGIN { print $(date +%s.%N) - $start }")
    python3 - "$name" "$bound" "$algo" "$wall" "$cmd" "$gen/rows" >> "$csv.tmp" << 'PY'
import csv, os, sys
name, bound, algo, wall, cmd, rows = sys.argv[1:]
w = csv.writer(sys.stdout)
gen = os.path.dirname(rows)
fields = ["size", "count", "type", "redop", "algo", "dims", "time_us", "algbw_gbs", "busbw_gbs",
          "model_us", "wrong", "mpi_time_us", "mpi_busbw_gbs", "chosen"]
for r in csv.DictReader(open(rows), fieldnames=fields):
    label = algo if r["chosen"] == algo else f"{algo} -> {r['chosen']}"
    w.writerow([name, bound, label, r["size"], r["time_us"], r["busbw_gbs"], r["model_us"],
                f"{float(wall):.1f}", cmd.replace(gen, "<generated>")])
PY
    echo "fabrics.sh: $name $algo done in ${wall%.*} s" >&2
  done
done
mv "$csv.tmp" "$csv"
python3 - "$csv" > "$OUT/fabrics.md.tmp" << 'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
print("# Allreduce busbw against the per-node bound (ddlsim, float sum)\n")
print("Written by `experiments/fabrics.sh` (commands per row in fabrics.csv; `<generated>` is")
print("`python3 platforms/generate.py --platform dgx_h100 --nodes 1|16` and `--platform dgx_a100")
print("--nodes 4`). Bound: a node's NICs (DGX H100 400 GB/s, DGX A100 200 GB/s); one node: a GPU's")
print("NVLink port (450 GB/s). ddl reduces before it crosses the network, so it can pass the bound;")
print("so can in-switch reduction (nvls, sharp), whose GPUs send their data to a switch once and")
print("receive the result once, where a ring sends and receives 2(p-1)/p of it.\n")
print("| case | algorithm | size | busbw GB/s | of bound | model vs sim | ddlsim wall s |")
print("|---|---|---|---|---|---|---|")
for r in rows:
    size = int(r["size"])
    label = f"{size >> 30} GiB" if size >= 1 << 30 else f"{size >> 20} MiB"
    err = (float(r["model_us"]) - float(r["time_us"])) / float(r["time_us"]) * 100
    print(f"| {r['case']} | `{r['algo']}` | {label} | {float(r['busbw_gbs']):.0f} | "
          f"{float(r['busbw_gbs']) / float(r['bound_gbs']) * 100:.0f} % | {err:+.1f} % | {r['wall_s']} |")
PY
mv "$OUT/fabrics.md.tmp" "$OUT/fabrics.md"
echo "fabrics.sh: wrote $csv and $OUT/fabrics.md" >&2
