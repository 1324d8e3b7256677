#!/usr/bin/env bash
# The planner on a measured network, one command (as root): brings up an emulated cluster
# (cluster/ddlcluster: 4 nodes x 2 ranks, 2 leaves of 2 nodes, every NIC and uplink shaped to
# RATE, so each leaf's uplink is oversubscribed 2:1), calibrates it with ddlcalibrate into a
# platform, plans 64 KB..4 MB (x4) on that platform with ddlplan, then measures with ddlrun on
# the cluster, in LAUNCHES launches, every candidate of the planner's space (`ddlplan --list`:
# ring, rhd both orders, dbtree, hier, ddl over every grid x method x rings x order), ddl on the
# natural grid and the plan's own choices (segment sizes included). cluster_eval.py reports per
# size the planned choice's measured time against the measured best, the alpha-beta argmin's
# and each fixed algorithm's, with the launch-to-launch spread. The cluster is always torn
# down. Writes cluster/ into a new experiments/runs/planner_cluster-<time>/ (UPDATE_RESULTS=1:
# the committed experiments/results/planner/cluster/ and the cluster section of
# experiments/results/planner/evaluation.md; OUT=dir: dir/cluster/; experiments/README.md).
#
#   experiments/planner/cluster_eval.sh [BUILD]      # tools from BUILD/bin (default build)
#
# Environment: RATE (tc rate of every NIC and uplink, default 200mbit: at 500mbit 8 ranks on 2
# cores set the pace instead of the shaper, experiments/results/cluster_vs_sim/README.md),
# LAUNCHES (default 2), ITERS (ddlrun -n, default 3), WARMUP (default 1), DDLCLUSTER_PREFIX
# (default ddlp). Without root or network namespaces it says so and exits 0 (nothing measured).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${1:-$root/build}
[[ -d $build ]] || { echo "cluster_eval.sh: no build directory '$build'" >&2; exit 1; }
build=$(cd "$build" && pwd)
RATE=${RATE:-200mbit}
LAUNCHES=${LAUNCHES:-2}
ITERS=${ITERS:-3}
WARMUP=${WARMUP:-1}
export DDLCLUSTER_PREFIX=${DDLCLUSTER_PREFIX:-ddlp}
for v in LAUNCHES ITERS WARMUP; do
  [[ ${!v} =~ ^[0-9]+$ ]] || { echo "cluster_eval.sh: $v must be a non-negative integer, not '${!v}'" >&2; exit 1; }
done
[[ $LAUNCHES -ge 1 && $ITERS -ge 1 ]] || { echo "cluster_eval.sh: LAUNCHES and ITERS must be at least 1" >&2; exit 1; }
for t in ddlrun ddlplan ddlcalibrate; do
  [[ -x $build/bin/$t ]] || { echo "cluster_eval.sh: no $t at $build/bin/$t (give the build directory)" >&2; exit 1; }
done
if [[ $(id -u) != 0 ]]; then
  echo "cluster_eval.sh: skipped: the emulated cluster needs root (network namespaces)" >&2
  exit 0
fi
if ! unshare --net true 2> /dev/null; then
  echo "cluster_eval.sh: skipped: this machine does not allow network namespaces" >&2
  exit 0
fi
cluster=$root/cluster/ddlcluster
cd "$root"
. experiments/lib.sh
results_dir planner_cluster experiments/results/planner
out=$OUT/cluster
tmp=$(mktemp -d)
# The cluster goes down however the script ends; INT and TERM end it through EXIT.
trap '"$cluster" down > /dev/null 2>&1 || true; rm -rf "$tmp"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
start=$SECONDS
say() { echo "cluster_eval.sh: $* ($((SECONDS - start)) s)" >&2; }
commands=$tmp/commands.txt
# Paths as given in the commands file: relative to the root, BUILD for the build directory.
run() {
  echo "$*" | sed -e "s|$build|BUILD|g" -e "s|$tmp/||g" -e "s|$root/||g" >> "$commands"
  "$@"
}
sizes=(-b 64K -e 4M -f 4)
P=8
{
  echo "# experiments/planner/cluster_eval.sh, $(date -u +%Y-%m-%dT%H:%M:%SZ), $(nproc) cores, load before: $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "# RATE=$RATE LAUNCHES=$LAUNCHES ITERS=$ITERS WARMUP=$WARMUP; BUILD: a Release build of this tree"
} > "$commands"

run "$cluster" up --nodes 4 --ranks-per-node 2 --nodes-per-leaf 2 --nic "$RATE" --uplink "$RATE" >&2
say "cluster up; calibrating"
run "$cluster" run -- -np "$P" "$build/bin/ddlcalibrate" --nodes-per-leaf 2 --reps 3 -b 8 -e 4M \
  --network-maxbytes 4M --timeout 600 --output "$tmp/calibrated.xml" > "$tmp/calibrated.txt"
say "calibrated; planning"
run "$build/bin/ddlplan" --platform "$tmp/calibrated.xml" "${sizes[@]}" --jobs 2 \
  --out "$tmp/plan.json" 2> "$tmp/ddlplan.log"
run "$build/bin/ddlplan" --platform "$tmp/calibrated.xml" --list > "$tmp/space.txt"
grid=$(/usr/bin/python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["dims"])' "$tmp/plan.json")
{ cat "$tmp/space.txt"; echo ddl
  /usr/bin/python3 -c 'import json,sys; [print(e["algorithm"]) for e in json.load(open(sys.argv[1]))["evidence"]]' \
    "$tmp/plan.json"; } | awk '!seen[$0]++' > "$tmp/measured.txt"
say "planned (grid $grid); measuring $(wc -l < "$tmp/measured.txt") algorithms x 4 sizes x $LAUNCHES launches"
for i in $(seq "$LAUNCHES"); do
  run "$cluster" run -- -np "$P" "$build/bin/ddlrun" --algo "$(paste -sd, "$tmp/measured.txt")" \
    --dims "$grid" "${sizes[@]}" -n "$ITERS" -w "$WARMUP" --check --timeout 600 --format csv \
    > "$tmp/measured.launch$i.csv"
  say "launch $i of $LAUNCHES measured"
done
run "$cluster" down >&2
echo "# then: /usr/bin/python3 experiments/planner/cluster_eval.py $out" >> "$commands"
mkdir -p "$tmp/result"
cp "$tmp"/calibrated.* "$tmp/plan.json" "$tmp/space.txt" "$tmp/measured.txt" \
  "$tmp"/measured.launch*.csv "$commands" "$tmp/result/"
rm -rf "$out"
mv "$tmp/result" "$out"
/usr/bin/python3 "$here/cluster_eval.py" "$out" "$((SECONDS - start))"
say "wrote $out"
tail -n 1 "$out/summary.md"
