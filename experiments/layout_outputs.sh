#!/usr/bin/env bash
# layout_outputs.sh: what the tools print for the README's commands, kept to compare two builds
# whose behaviour must not differ (a change of layout: files moved, parts split, no new
# behaviour).
#
#   experiments/layout_outputs.sh record BUILD LABEL  # every command with BUILD's tools, into OUT/LABEL
#   experiments/layout_outputs.sh compare DIR_A DIR_B # exit 0 when both hold the same outputs
#
# OUT (experiments/lib.sh): a new experiments/runs/layout_outputs-<time>/, or OUT=DIR, or with
# UPDATE_RESULTS=1 the committed experiments/results/layout_outputs/.
#
# Recorded: ddlsim's table, csv and json (times, model column, step-extrapolation notes), a
# training iteration and a sweep, a description platform, a trace and its Chrome export, ddlplan's
# plan and list and the plan run by auto, ddl.simulate from Python, and ddlrun's deterministic
# columns under mpirun (size, count, type, redop, algo, dims, #wrong: its times are measured, so
# they differ between any two runs). Each output is a file named after its command; the header
# lines that name the build directory or a temporary path are normalised.
# Run from the repository root; BUILD must hold bin/ddlsim, bin/ddlrun, bin/ddlplan, bin/ddltrace
# and python/ (make build).
set -euo pipefail
cd "$(dirname "$0")/.."
. experiments/lib.sh

usage() {
  echo "usage: $0 record BUILD LABEL | compare DIR_A DIR_B" >&2
  exit 2
}

record() {
  local build=$1 label=$2
  local bin=$build/bin
  for tool in ddlsim ddlrun ddlplan ddltrace; do
    [ -x "$bin/$tool" ] || { echo "$0: $bin/$tool is missing: make build first" >&2; exit 1; }
  done
  case $label in '' | */* | .*) echo "$0: LABEL '$label' must be a plain name" >&2; exit 2 ;; esac
  results_dir layout_outputs experiments/results/layout_outputs
  local out=$OUT/$label
  [ ! -e "$out" ] || { echo "$0: $out exists: give a new label" >&2; exit 1; }
  work=$(mktemp -d)  # global: the EXIT trap runs after this function has returned
  trap 'rm -rf "$work"' EXIT
  local mpirun=(mpirun --oversubscribe)
  [ "$(id -u)" = 0 ] && mpirun+=(--allow-run-as-root)
  # name | command: each command's stdout is the output named NAME.
  run() {
    local name=$1
    shift
    echo "layout_outputs: $name" >&2
    "$@" >"$work/$name" || { echo "$0: '$*' failed" >&2; exit 1; }
  }
  run ddlsim_default "$bin/ddlsim"
  run ddlsim_all "$bin/ddlsim" --algo all -b 1M -e 256M
  run ddlsim_256_ring_ddl "$bin/ddlsim" --platform platforms/s822lc_256.xml --algo ring,ddl -b 100M -e 100M
  run ddlsim_check_half_max "$bin/ddlsim" --platform platforms/s822lc_2.xml --algo all --check -d half -o max -e 1M
  run ddlsim_csv "$bin/ddlsim" --platform platforms/s822lc_16.xml --algo all --format csv -b 8 -e 16M -f 4
  run ddlsim_json "$bin/ddlsim" --platform platforms/bigbasin_4.xml --algo ring,ddl,rhd,auto --format json -e 1M -f 8
  run ddlsim_description "$bin/ddlsim" --platform platforms/descriptions/dgx_h100.json --algo all -b 1M -e 64M -f 8
  run ddlsim_workload "$bin/ddlsim" --workload resnet50 --algo ddl
  run ddlsim_workload_gpt2 "$bin/ddlsim" --workload gpt2_small --algo ring,ddl --platform platforms/s822lc_16.xml --format csv
  run ddlsim_workload_sweep "$bin/ddlsim" --workload resnet50 --sweep --sweep-max-gpus 64 --format csv
  "$bin/ddlsim" --algo ring -b 1M -e 1M --platform platforms/s822lc_2.xml --trace "$work/trace.csv" >"$work/ddlsim_traced"
  "$bin/ddltrace" "$work/trace.csv" --chrome "$work/trace.json"
  run ddlplan_list "$bin/ddlplan" --platform platforms/s822lc_4.xml --list
  "$bin/ddlplan" --platform platforms/s822lc_4.xml -b 8 -e 64M -f 8 --out "$work/plan.json" 2>/dev/null
  run ddlsim_plan "$bin/ddlsim" --platform platforms/s822lc_4.xml --algo auto --plan "$work/plan.json" -b 8 -e 64M -f 8
  run python_simulate env PYTHONPATH="$build/python" /usr/bin/python3 -c \
    'import ddl; print(ddl.simulate("platforms/s822lc_4.xml", "ddl", "64M"))'
  "${mpirun[@]}" -np 4 "$bin/ddlrun" --algo all -b 1K -e 4M -f 4 --check --format csv \
    >"$work/ddlrun_raw" || { echo "$0: ddlrun failed" >&2; exit 1; }
  # size,count,type,redop,algo,dims ... wrong: the columns a measurement cannot change.
  /usr/bin/python3 - "$work/ddlrun_raw" >"$work/ddlrun_check" <<'PY'
import csv, sys
rows = [r for r in csv.reader(l for l in open(sys.argv[1]) if not l.startswith("#"))]
head = rows[0]
keep = [head.index(c) for c in ("size", "count", "type", "redop", "algo", "dims", "wrong")]
for r in rows:
    print(",".join(r[i] for i in keep))
PY
  rm "$work/ddlrun_raw"
  # Paths that differ between two checkouts or two runs, not between two behaviours.
  sed -i -e "s|$work|WORK|g" -e "s|$(pwd)/||g" -e 's|/tmp/ddlsim_description_[A-Za-z0-9]*\.xml|DESCRIPTION.xml|g' \
    "$work"/*
  mkdir -p "$out"
  mv "$work"/* "$out"/
  echo "layout_outputs: $(ls "$out" | wc -l) outputs in $out" >&2
}

compare() {
  local a=$1 b=$2
  [ -d "$a" ] && [ -d "$b" ] || usage
  if diff -r "$a" "$b"; then
    echo "layout_outputs: the $(ls "$a" | wc -l) outputs of $a and $b are identical"
  else
    echo "layout_outputs: $a and $b differ (above)"
    exit 1
  fi
}

case ${1:-} in
  record) [ $# -eq 3 ] || usage; record "$2" "$3" ;;
  compare) [ $# -eq 3 ] || usage; compare "$2" "$3" ;;
  *) usage ;;
esac
