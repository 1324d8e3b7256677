#!/bin/sh
# ddlsim --llm: one hybrid-parallel LLM step per case, its predicted step time, tokens/s and MFU,
# and the simulator's wall and CPU time (issue 34's speed targets: a Llama-2-70B step on 1024
# GPUs in <= 10 s; exact play is measured here, before any extrapolation). CPU time is user +
# system, beside the wall time (a shared machine). Cases (CASES=... overrides, ';' between):
#   dgx_h100_4 (32 GPUs): llama2_7b tp 8 pp 2 dp 2 mb 8; mixtral_8x7b tp 4 pp 2 dp 4 ep 4 mb 4
#   dgx_h100_rail_64 (512 GPUs): llama2_70b tp 8 pp 8 dp 8 mb 32
#
#   experiments/bench_llm.sh                  # uses build/bin/ddlsim
#
# Writes bench_llm.csv into a new experiments/runs/bench_llm-<time>/ (UPDATE_RESULTS=1: the
# committed experiments/results/; OUT=dir: dir; experiments/README.md).
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
. experiments/lib.sh
build=${BUILD:-build}
case $build in /*) ddlsim=$build/bin/ddlsim ;; *) ddlsim=$root/$build/bin/ddlsim ;; esac
if [ ! -x "$ddlsim" ]; then
  echo "bench_llm.sh: no ddlsim at $ddlsim: build it first, or point BUILD at the build folder" >&2
  exit 1
fi
if [ ! -x /usr/bin/time ]; then
  echo "bench_llm.sh: needs GNU time at /usr/bin/time (Debian: apt-get install time)" >&2
  exit 1
fi
cases=${CASES:-"dgx_h100_4 llama2_7b tp=8,pp=2,dp=2,mb=8,zero=1,sp;dgx_h100_4 mixtral_8x7b tp=4,pp=2,dp=4,ep=4,mb=4,zero=1,sp;dgx_h100_rail_64 llama2_70b tp=8,pp=8,dp=8,mb=32,zero=1,sp"}
results_dir bench_llm experiments/results
csv=$OUT/bench_llm.csv
tmp=$(mktemp)
out=$(mktemp)
trap 'rm -f "$tmp" "$out"' EXIT
echo "platform,model,layout,gpus,step_s,tokens_per_s,mfu_pct,wall_s,cpu_s,load1" > "$csv"
echo "$cases" | tr ';' '\n' | while read -r platform model layout; do
  [ -n "$platform" ] || continue
  load=$(cut -d' ' -f1 /proc/loadavg)
  /usr/bin/time -f "%e %U %S" -o "$tmp" "$ddlsim" --platform "platforms/$platform.xml" \
    --llm "$model" --layout "$layout" > "$out"
  gpus=$(sed -n 's/.*(\([0-9]*\) GPUs).*/\1/p' "$out" | head -n 1)
  row=$(grep -v '^#' "$out" | head -n 1 | awk '{print $1 "," $2 "," $3}')
  times=$(awk '{printf "%s,%.2f", $1, $2 + $3}' "$tmp")
  echo "$platform,$model,\"$layout\",$gpus,$row,$times,$load" >> "$csv"
  echo "bench_llm.sh: $platform $model $layout: $row, $times s" >&2
done
echo "bench_llm.sh: wrote $csv" >&2
