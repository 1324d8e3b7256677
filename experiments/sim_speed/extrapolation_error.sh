#!/usr/bin/env bash
# What step extrapolation (sim/step_extrapolation.hpp) costs in accuracy and gives in speed:
# every case simulated twice, by default and with --exact (every step played), in the same run:
# ring and ddl (the platform's grid, and a 2 x p/2 grid whose outer ring is long enough to be
# extrapolated) on s822lc_64 (256 GPUs) and s822lc_256 (1024 GPUs), 64 KB..256 MB x4, plus one
# 100 MB case of each at 4096 GPUs when EXACT_4096=1 (the exact 4096-GPU ring takes ~11 min).
#
#   experiments/sim_speed/extrapolation_error.sh            # tools from build/bin
#   BUILD=build-rel EXACT_4096=1 experiments/sim_speed/extrapolation_error.sh
#
# Writes sim_extrapolation.csv into a new experiments/runs/sim_extrapolation-<time>/ (OUT=dir:
# dir; UPDATE_RESULTS=1: the committed experiments/results/; experiments/README.md) (one line per case: times, error, CPU seconds
# of both runs) and prints a summary; the last line is
#   max_abs_error_pct=<x> median_abs_error_pct=<y> cases=<n> cpu_ratio_median=<r>
set -euo pipefail
cd "$(dirname "$0")/../.."
. experiments/lib.sh
BUILD=${BUILD:-build}
DDLSIM=$BUILD/bin/ddlsim
[ -x "$DDLSIM" ] || { echo "extrapolation_error.sh: $DDLSIM is missing: run make first (or set BUILD=dir)" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "extrapolation_error.sh: /usr/bin/time is missing (Debian package 'time')" >&2; exit 1; }
results_dir sim_extrapolation experiments/results
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
trap 'exit 143' INT TERM
ROWS=$WORK/rows.csv
echo "gpus,algo,size,extrapolated_us,exact_us,error_pct,extrapolated_cpu_s,exact_cpu_s" > "$ROWS"

# One sweep both ways; CPU seconds are the whole sweep's, so they are written on its first row.
sweep() {  # gpus platform algo sizes(-b -e -f args...)
  local gpus=$1 platform=$2 algo=$3
  shift 3
  local cpu=()
  for mode in default exact; do
    local extra=()
    [ "$mode" = exact ] && extra=(--exact)
    echo "extrapolation_error.sh: $gpus GPUs $algo $mode" >&2
    /usr/bin/time -f "%U %S" -o "$WORK/time" "$DDLSIM" --platform "$platform" --algo "$algo" "$@" \
      --format csv "${extra[@]}" > "$WORK/$mode.csv" 2> /dev/null
    cpu+=("$(awk '{ printf "%.2f", $1 + $2 }' "$WORK/time")")
  done
  # The rows only (ddlsim's '#' metadata and notes left out), side by side: exact's time_us is
  # column 7 of the second half, 14 columns on.
  paste -d, <(grep '^[0-9]' "$WORK/default.csv") <(grep '^[0-9]' "$WORK/exact.csv") |
    awk -F, -v g="$gpus" -v a="$algo" -v c1="${cpu[0]}" -v c2="${cpu[1]}" '
      { e = ($7 - $21) / $21 * 100
        printf "%s,%s,%s,%.6f,%.6f,%+.4f,%s,%s\n", g, a, $1, $7, $21, e, NR == 1 ? c1 : "", NR == 1 ? c2 : "" }' >> "$ROWS"
}

for spec in "256 platforms/s822lc_64.xml 2x128" "1024 platforms/s822lc_256.xml 2x512"; do
  set -- $spec
  for algo in ring ddl "ddl:$3"; do sweep "$1" "$2" "$algo" -b 64K -e 256M -f 4; done
done
if [ "${EXACT_4096:-0}" = 1 ]; then
  python3 platforms/generate.py --platform s822lc --nodes 1024 -o "$WORK/s822lc_1024.xml"
  for algo in ring ddl; do sweep 4096 "$WORK/s822lc_1024.xml" "$algo" -b 100M -e 100M; done
fi
cp "$ROWS" "$OUT/sim_extrapolation.csv"
/usr/bin/python3 - "$ROWS" <<'PY'
import sys, pandas as pd
d = pd.read_csv(sys.argv[1])
d["abs"] = d.error_pct.abs()
print(d.groupby(["gpus", "algo"]).agg(cases=("abs", "size"), max_abs_error_pct=("abs", "max"),
      median_error_pct=("error_pct", "median")).to_string())
c = d.dropna(subset=["extrapolated_cpu_s"])
ratio = (c.exact_cpu_s / c.extrapolated_cpu_s)
print("\nCPU seconds per sweep (extrapolated, exact, ratio):")
for _, r in c.iterrows():
    print(f"  {r.gpus} GPUs {r.algo}: {r.extrapolated_cpu_s:.2f} s, {r.exact_cpu_s:.2f} s, "
          f"{r.exact_cpu_s / r.extrapolated_cpu_s:.1f}x")
print(f"max_abs_error_pct={d['abs'].max():.3f} median_abs_error_pct={d['abs'].median():.3f} "
      f"cases={len(d)} cpu_ratio_median={ratio.median():.1f}")
PY
