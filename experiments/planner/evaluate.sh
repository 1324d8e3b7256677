#!/usr/bin/env bash
# The planner against an exhaustive simulated search. Per shipped platform, 64 KB..256 MB (x4):
# ddlplan writes a plan; `ddlsim --algo auto --plan` runs it; every algorithm string of the
# planner's search space (`ddlplan --list`, grids of at most MAX_DIMS dims: see PLATFORMS) is
# simulated at every size; `ddlsim --algo auto` gives the contention-aware model's argmin. All
# simulation is timing-only. evaluate.py compares the plan's choice with the fastest simulated
# candidate, the plain alpha-beta argmin (from the plan's evidence) and each fixed algorithm.
# Writes evaluation.md, evaluation.csv and the plans into a new experiments/runs/planner-<time>/
# (UPDATE_RESULTS=1: the committed experiments/results/planner/, whose cluster/ section it keeps;
# OUT=dir: dir; experiments/README.md).
# Usage: experiments/planner/evaluate.sh [BUILD]   (JOBS=N simulations at once, default 2)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${1:-$root/build}
[[ -d $build ]] || { echo "evaluate.sh: no build directory '$build'" >&2; exit 1; }
build=$(cd "$build" && pwd)  # before the cd to the root below
ddlsim=$build/bin/ddlsim
ddlplan=$build/bin/ddlplan
for t in "$ddlsim" "$ddlplan"; do
  [[ -x $t ]] || { echo "evaluate.sh: no $(basename "$t") at $t (give the build directory)" >&2; exit 1; }
done
jobs=${JOBS:-2}
[[ $jobs =~ ^[1-9][0-9]*$ ]] || { echo "evaluate.sh: JOBS must be a positive integer, not '$jobs'" >&2; exit 1; }
sizes=(-b 64K -e 256M -f 4)
# platform:MAX_DIMS. The exhaustive search covers every candidate ddlplan's space holds for grids
# of at most MAX_DIMS dims (4 = all of it), plus the plan's own choices: s822lc_64's 256 ranks
# cost 2.5 s (quiet) to 10 s (load 20) of simulation per candidate (7 sizes), so its 1154
# candidates are cut to the 90 of at most 2 dims; the 512-rank dgx_h100_rail_64 (3-12 s a
# candidate) to the flat ones (1 dim).
platforms=(s822lc_2:4 bigbasin_2:4 dgx1_2:4 dgx_a100_2:4 dgx_h100_4:4 s822lc_16:4 bigbasin_8:4
           s822lc_64:2 dgx_h100_rail_64:1)
tmp=$(mktemp -d)
group=  # the running simulations' process group, ended with the script
trap '[[ -n $group ]] && kill -- "-$group" 2> /dev/null; rm -rf "$tmp"' EXIT
cd "$root"
. experiments/lib.sh
results_dir planner experiments/results/planner
out=$OUT
start=$SECONDS
load_start=$(cut -d' ' -f1-3 /proc/loadavg)
say() { echo "evaluate.sh: $* ($((SECONDS - start)) s)" >&2; }

for entry in "${platforms[@]}"; do
  p=${entry%%:*}
  max_dims=${entry##*:}
  xml=platforms/$p.xml  # relative: the plans record it as given
  mkdir -p "$tmp/$p"
  timeout 900 "$ddlplan" --platform "$xml" "${sizes[@]}" --jobs "$jobs" \
    --out "$tmp/$p/plan.json" 2> "$tmp/$p/ddlplan.log" ||
    { cat "$tmp/$p/ddlplan.log" >&2; exit 1; }
  say "$p: planned"
  timeout 900 "$ddlsim" --platform "$xml" --algo auto --plan "$tmp/$p/plan.json" "${sizes[@]}" \
    --format json > "$tmp/$p/planned.json" 2> /dev/null
  timeout 900 "$ddlsim" --platform "$xml" --algo auto "${sizes[@]}" --format json \
    > "$tmp/$p/auto.json" 2> /dev/null
  # The space, ddl on the platform's own grid, and whatever the plan chose (its 4-dim grids
  # where MAX_DIMS cuts them), once each.
  timeout 60 "$ddlplan" --platform "$xml" --list --max-dims "$max_dims" > "$tmp/$p/space.txt"
  timeout 60 "$ddlplan" --platform "$xml" --list > "$tmp/$p/full_space.txt"
  { cat "$tmp/$p/space.txt"; echo ddl
    /usr/bin/python3 -c 'import json,sys; [print(e["algorithm"]) for e in json.load(open(sys.argv[1]))["entries"]]' \
      "$tmp/$p/plan.json"; } | awk '!seen[$0]++' > "$tmp/$p/simulated.txt"
  n=$(wc -l < "$tmp/$p/simulated.txt")
  # Parts of about 25 candidates, `jobs` at a time; each part is one timing-only sweep.
  parts=$(( (n + 24) / 25 ))
  split -n "r/$parts" -d -a 3 "$tmp/$p/simulated.txt" "$tmp/$p/part."
  say "$p: simulating $n candidates x 7 sizes in $parts parts"
  ls "$tmp/$p"/part.* | setsid xargs -P "$jobs" -I{} sh -c '
    timeout 1800 "$1" --platform "$2" --algo "$(paste -sd, "$3")" -b 64K -e 256M -f 4 \
      --format json > "$3.json" 2> "$3.log" || { cat "$3.log" >&2; exit 255; }
    echo "evaluate.sh: '"$p"': part $(basename "$3") done" >&2' sh "$ddlsim" "$xml" {} &
  group=$!
  wait "$group"
  group=
  say "$p: exhaustive search done"
  echo "$max_dims $(wc -l < "$tmp/$p/full_space.txt")" > "$tmp/$p/coverage.txt"
done

mkdir -p "$tmp/result/plans"
for entry in "${platforms[@]}"; do
  p=${entry%%:*}
  cp "$tmp/$p/plan.json" "$tmp/result/plans/$p.plan.json"
done
command="experiments/planner/evaluate.sh BUILD (JOBS=$jobs; BUILD: a Release build of this tree)"
/usr/bin/python3 "$here/evaluate.py" "$tmp" "$command" "$((SECONDS - start))" \
  "$load_start" "$(cut -d' ' -f1-3 /proc/loadavg)" \
  "${platforms[@]%%:*}" > "$tmp/result/evaluation.md"
mv "$tmp/evaluation.csv" "$tmp/result/evaluation.csv"
# What this script writes is replaced; the emulated cluster's measurements (cluster_eval.sh) in
# cluster/ are kept, and their section with them.
rm -rf "$out/plans" "$out/evaluation.md" "$out/evaluation.csv"
mv "$tmp/result"/* "$out/"
[[ -f $out/cluster/summary.md ]] && /usr/bin/python3 "$here/cluster_eval.py" --insert "$out/cluster"
say "wrote $out"
tail -n 1 "$out/evaluation.md"
