#!/bin/sh
# Simulator speed on training iterations, against two targets:
#   (a) one 256-GPU ResNet-50 iteration (ddlsim --platform platforms/s822lc_64.xml --workload
#       resnet50, ddl by default; the other algorithms are timed too) in <= 2 s of wall time;
#   (b) the whole S822LC 4 -> 256 GPU sweep (7 platforms, one process each) for ring, ddl, rhd,
#       dbtree and hier in <= 60 s of wall time.
# Each case runs REPEATS times (default 3); the median wall time is compared with the target.
# CPU time (user + system) is recorded beside it: on a shared machine wall time includes waiting
# for a core, CPU time does not. The 1-minute load average is recorded before each run.
#
#   experiments/bench_workload.sh                  # uses build/bin/ddlsim
#   BUILD=build-rel experiments/bench_workload.sh  # another build folder (Release recommended)
#
# Writes bench_workload.csv (every run) and bench_workload.md (summary) into a new
# experiments/runs/bench_workload-<time>/ (UPDATE_RESULTS=1: the committed experiments/results/;
# OUT=dir: dir; experiments/README.md).
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
. experiments/lib.sh
build=${BUILD:-build}
case $build in /*) ddlsim=$build/bin/ddlsim ;; *) ddlsim=$root/$build/bin/ddlsim ;; esac
if [ ! -x "$ddlsim" ]; then
  echo "bench_workload.sh: no ddlsim at $ddlsim: build it first, or point BUILD at the build folder" >&2
  exit 1
fi
if [ ! -x /usr/bin/time ]; then
  echo "bench_workload.sh: needs GNU time at /usr/bin/time (Debian: apt-get install time)" >&2
  exit 1
fi
repeats=${REPEATS:-3}
results_dir bench_workload experiments/results
out=$OUT
csv=$out/bench_workload.csv
md=$out/bench_workload.md
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT

iteration_cmd="ddlsim --platform platforms/s822lc_64.xml --workload resnet50"
sweep_cmd="ddlsim --platform platforms/s822lc_64.xml --workload resnet50 --sweep --sweep-max-gpus 256 --algo ring,ddl,rhd,dbtree,hier"

echo "case,target_s,run,wall_s,cpu_s,load1" > "$csv"
# bench CASE TARGET ARGS...: REPEATS runs of ddlsim ARGS, one csv line each.
bench() {
  name=$1 target=$2
  shift 2
  i=1
  while [ "$i" -le "$repeats" ]; do
    load=$(cut -d' ' -f1 /proc/loadavg)
    /usr/bin/time -f "%e %U %S" -o "$tmp" "$ddlsim" "$@" > /dev/null
    read -r wall user sys < "$tmp"
    cpu=$(echo "$user $sys" | awk '{printf "%.2f", $1 + $2}')
    echo "$name,$target,$i,$wall,$cpu,$load" >> "$csv"
    echo "$name run $i: $wall s wall, $cpu s cpu (load $load)" >&2
    i=$((i + 1))
  done
}

bench "iteration 256 GPUs resnet50 ddl" 2 --platform platforms/s822lc_64.xml --workload resnet50
for algo in ring rhd dbtree hier; do
  bench "iteration 256 GPUs resnet50 $algo" 2 --platform platforms/s822lc_64.xml --workload resnet50 --algo "$algo"
done
bench "sweep 4-256 GPUs resnet50 5 algorithms" 60 --platform platforms/s822lc_64.xml --workload resnet50 \
  --sweep --sweep-max-gpus 256 --algo ring,ddl,rhd,dbtree,hier

# Summary: medians per case against the target.
awk -F, -v iteration_cmd="$iteration_cmd" -v sweep_cmd="$sweep_cmd" -v build="$build" -v repeats="$repeats" '
  NR == 1 { next }
  { key = $1; target[key] = $2; n[key]++; w[key, n[key]] = $4; c[key, n[key]] = $5
    l[key, n[key]] = $6; if (!(key in seen)) { seen[key] = 1; order[++k] = key } }
  function median(key, arr,    i, j, t, v, m) {
    m = n[key]
    for (i = 1; i <= m; i++) v[i] = arr[key, i] + 0
    for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++) if (v[j] < v[i]) { t = v[i]; v[i] = v[j]; v[j] = t }
    return m % 2 ? v[(m + 1) / 2] : (v[m / 2] + v[m / 2 + 1]) / 2
  }
  END {
    print "# Simulator speed on training iterations\n"
    print "Produced by `experiments/bench_workload.sh` (BUILD=" build ", " repeats " runs per case; every run in"
    print "`bench_workload.csv`). Commands:\n"
    print "```sh\n" iteration_cmd "                 # (a), ddl; also --algo ring|rhd|dbtree|hier"
    print sweep_cmd "   # (b)\n```\n"
    print "| case | target (s) | median wall (s) | median cpu (s) | load (1 min) | verdict |"
    print "|---|---|---|---|---|---|"
    for (i = 1; i <= k; i++) {
      key = order[i]; mw = median(key, w); mc = median(key, c); ml = median(key, l)
      verdict = mw <= target[key] ? "met" : (mc <= target[key] ? "missed in wall time, met in cpu time" : "missed")
      printf "| %s | %s | %.2f | %.2f | %.1f | %s |\n", key, target[key], mw, mc, ml, verdict
    }
    print "\nWall time on this 2-core machine includes waiting for a core while other work runs (see the load"
    print "column); CPU time is what the simulation itself costs. Targets: one 256-GPU ResNet-50 iteration"
    print "<= 2 s; the S822LC 4 -> 256 sweep for 5 algorithms <= 60 s."
  }' "$csv" > "$md"
cat "$md"
