#!/usr/bin/env bash
# Topology predictions confirmed on a real multi-level network, one command: brings up three
# emulated clusters (cluster/ddlcluster) in turn,
#   a: 2 nodes x 2 ranks on one leaf (dims 2x2),
#   b: 4 nodes x 2 ranks in 2 leaves of 2, the uplink oversubscribed (dims 2x2x2),
#   r: rails: 4 nodes x 2 ranks x 2 NICs, NIC k of every node on rail k's leaf, the two rails'
#      leaves joined by their uplinks (dims 2x4; cluster/README.md "Rails"),
# calibrates each (ddlcalibrate across the cluster, LAUNCHES launches combined), measures ring,
# ddl (natural dims with 1 and 2 rings, and another grid), rhd, dbtree and hier at 64 KB..64 MB
# (r: ring, ring:channels=2, hier and ddl; and how much faster the two channels are than the one
# ring) with ddlrun (LAUNCHES launches, median and spread), simulates every case with ddlsim on the
# calibrated platform (predicted) and on the nominal one (platforms/generate.py), traces one ddl
# case both ways, tears the cluster down, and runs analysis/cluster_vs_sim.py: errors per case,
# plots, a Gantt chart, the ranking and, last, the summary line.
#
#   experiments/cluster_vs_sim.sh                 # tools from build/bin, needs root
#   CONFIGS=b RATE_b=100mbit experiments/cluster_vs_sim.sh   # one configuration again
#
# Environment: BUILD (default build; DDLRUN, DDLSIM, DDLCALIBRATE override single tools),
# RATE_a, RATE_b and RATE_r (the tc rate of every NIC and uplink of each configuration, default
# 500mbit, 200mbit and 100mbit: b's leaf has 2 x NIC below one uplink, so its uplink is
# oversubscribed 2:1; b and r run 8 ranks on the machine's 2 cores, which at 500mbit (b) and
# 200mbit (r: twice the NICs) set the pace instead of the shaper: why these rates in
# experiments/results/cluster_vs_sim/README.md), ITERS (ddlrun -n, default 3),
# WARMUP (default 1), LAUNCHES (default 2), REPS (ddlcalibrate --reps, default 5), OUT (default
# a new experiments/runs/cluster_vs_sim-<time>/; UPDATE_RESULTS=1: the committed
# experiments/results/cluster_vs_sim; experiments/README.md), PYTHON (default /usr/bin/python3),
# DDLCLUSTER_PREFIX (default ddlx), CONFIGS (default "a b r"; one configuration reruns only its own
# files: give OUT or UPDATE_RESULTS=1 to keep the other's beside them), MAXBYTES (the largest
# size, default 64M: smaller for a quick trial), RESIMULATE=1 (no cluster, no measurement: refit
# the platforms from the calibration reports in OUT, or the committed ones with UPDATE_RESULTS=1,
# and simulate and analyse again, after a change to the model; needs no root).
# The machine's CPU time during every measured launch is recorded (cpu.csv): idle cores show
# that the network, not the 2 cores, set the pace.
set -euo pipefail
cd "$(dirname "$0")/.."
. experiments/lib.sh
BUILD=${BUILD:-build}
DDLRUN=${DDLRUN:-$BUILD/bin/ddlrun}
DDLSIM=${DDLSIM:-$BUILD/bin/ddlsim}
DDLCALIBRATE=${DDLCALIBRATE:-$BUILD/bin/ddlcalibrate}
RATE_a=${RATE_a:-500mbit}
RATE_b=${RATE_b:-200mbit}
RATE_r=${RATE_r:-100mbit}
ITERS=${ITERS:-3}
WARMUP=${WARMUP:-1}
LAUNCHES=${LAUNCHES:-2}
REPS=${REPS:-5}
PYTHON=${PYTHON:-/usr/bin/python3}
CONFIGS=${CONFIGS:-a b r}
export DDLCLUSTER_PREFIX=${DDLCLUSTER_PREFIX:-ddlx}
CLUSTER=cluster/ddlcluster
ALGOS=ring,ddl,rhd,dbtree,hier
MAXBYTES=${MAXBYTES:-64M}
SIZES=(-b 64K -e "$MAXBYTES" -f 4)
GANTT_SIZE=4M
TIMEOUT=900
RESIMULATE=${RESIMULATE:-0}

die() {
  echo "cluster_vs_sim.sh: $*" >&2
  exit 1
}
for tool in "$DDLRUN" "$DDLSIM" "$DDLCALIBRATE"; do
  [ -x "$tool" ] || die "$tool is missing: build it first (or set BUILD / DDLRUN / DDLSIM / DDLCALIBRATE)"
done
[ "$RESIMULATE" = 1 ] || [ "$(id -u)" = 0 ] ||
  die "must run as root (the emulated cluster is made of network namespaces)"
"$PYTHON" -c 'import pandas, matplotlib' 2> /dev/null ||
  die "$PYTHON lacks pandas/matplotlib: apt-get install python3-pandas python3-matplotlib"
for v in ITERS WARMUP REPS LAUNCHES; do
  case ${!v} in '' | *[!0-9]*) die "$v must be a non-negative integer, got '${!v}'" ;; esac
done
[ "$LAUNCHES" -ge 1 ] || die "LAUNCHES must be at least 1"
for c in $CONFIGS; do
  case $c in a | b | r) ;; *) die "CONFIGS holds '$c': the configurations are a, b and r" ;; esac
done
[ "$RESIMULATE" != 1 ] || [ -n "${OUT:-}" ] || [ "${UPDATE_RESULTS:-0}" = 1 ] ||
  die "RESIMULATE=1 simulates an earlier run's measurements again: give OUT=that run's folder, or UPDATE_RESULTS=1 for the committed ones"
results_dir cluster_vs_sim experiments/results/cluster_vs_sim

trap '"$CLUSTER" down > /dev/null 2>&1 || true' EXIT
CPU=$OUT/cpu.csv
[ -f "$CPU" ] || echo "config,variant,launch,wall_s,user_s,system_s,softirq_s,idle_s,busy_cores" > "$CPU"
run() {  # log the command, then run it
  echo "$*" >> "$COMMANDS"
  "$@"
}
cpu_jiffies() { awk '/^cpu / { print $2 + $3, $4, $8, $5 + $6 }' /proc/stat; }  # user system softirq idle
# measured CONFIG VARIANT LAUNCH OUTFILE ddlrun-arguments...: one ddlrun launch, with CPU use.
measured() {
  local c=$1 variant=$2 launch=$3 file=$4
  shift 4
  local before after t0 t1
  before=$(cpu_jiffies)
  t0=$(date +%s.%N)
  run "$CLUSTER" run -- -np "$P" "$DDLRUN" "$@" "${SIZES[@]}" -n "$ITERS" -w "$WARMUP" --check --format csv \
    --timeout "$TIMEOUT" > "$file"
  t1=$(date +%s.%N)
  after=$(cpu_jiffies)
  awk -v c="$c" -v v="$variant" -v l="$launch" -v t0="$t0" -v t1="$t1" -v hz="$(getconf CLK_TCK)" \
    -v b="$before" -v a="$after" 'BEGIN { split(b, x, " "); split(a, y, " "); w = t1 - t0
      u = (y[1] - x[1]) / hz; s = (y[2] - x[2]) / hz; q = (y[3] - x[3]) / hz; i = (y[4] - x[4]) / hz
      printf "%s,%s,%s,%.2f,%.2f,%.2f,%.2f,%.2f,%.2f\n", c, v, l, w, u, s, q, i, (u + s + q) / w }' >> "$CPU"
}

for c in $CONFIGS; do
  # algos: the natural variant's algorithms; other: ddl's other grid (none: no rings2 and grid
  # variants); nics: NICs per node (rails).
  algos=$ALGOS nics=1
  case $c in
    a) nodes=2 npl=2 dims=2x2 other=4 ;;
    b) nodes=4 npl=2 dims=2x2x2 other=2x4 ;;
    r) nodes=4 npl=4 dims=2x4 other="" nics=2 algos=ring,ring:channels=2,hier,ddl ;;
  esac
  P=$((nodes * 2))
  rate_var=RATE_$c
  rate=${!rate_var}
  COMMANDS=$OUT/commands_$c.txt
  if [ "$RESIMULATE" = 1 ]; then
    [ -f "$OUT/calibrated_$c.launch1.json" ] || die "RESIMULATE: no calibration reports of $c in $OUT"
    echo "# RESIMULATE=1 $(date -u +%Y-%m-%dT%H:%M:%SZ): refitted and simulated again from the files above" >> "$COMMANDS"
  else
  rm -f "$OUT"/measured_"$c"_* "$OUT"/simulated_"$c"_* "$OUT"/nominal_"$c"* "$OUT"/calibrated_"$c".* \
    "$OUT"/trace_*_"$c".csv
  sed -i "/^$c,/d" "$CPU"
  {
    echo "# experiments/cluster_vs_sim.sh, config $c, $(date -u +%Y-%m-%dT%H:%M:%SZ), $(nproc) cores, load before: $(cut -d' ' -f1-3 /proc/loadavg)"
    echo "# BUILD=$BUILD RATE_$c=$rate ITERS=$ITERS WARMUP=$WARMUP LAUNCHES=$LAUNCHES REPS=$REPS MAXBYTES=$MAXBYTES"
  } > "$COMMANDS"
  echo "cluster_vs_sim.sh: config $c: $nodes nodes x 2 ranks, $npl per leaf, $nics NIC(s) per node, NIC and uplink $rate" >&2
  run "$CLUSTER" up --nodes "$nodes" --ranks-per-node 2 --nodes-per-leaf "$npl" --nics "$nics" --nic "$rate" \
    --uplink "$rate" >&2
  run "$CLUSTER" platform -o "$OUT/nominal_$c.xml"
  for i in $(seq "$LAUNCHES"); do
    echo "cluster_vs_sim.sh: config $c, launch $i of $LAUNCHES: calibrating, measuring" >&2
    run "$CLUSTER" run -- -np "$P" "$DDLCALIBRATE" --nodes-per-leaf "$npl" --nics "$nics" --reps "$REPS" -b 8 -e 64M \
      --network-maxbytes 16M --timeout "$TIMEOUT" --output "$OUT/calibrated_$c.launch$i.xml" > "$OUT/calibrated_$c.launch$i.txt"
    measured "$c" natural "$i" "$OUT/measured_${c}_natural.launch$i.csv" --algo "$algos" --dims "$dims"
    [ -n "$other" ] || continue
    measured "$c" rings2 "$i" "$OUT/measured_${c}_rings2.launch$i.csv" --algo ddl --dims "$dims" --rings 2
    measured "$c" grid "$i" "$OUT/measured_${c}_grid.launch$i.csv" --algo ddl --dims "$other"
  done
  # One ddl case traced for the Gantt chart (a separate run: tracing must not perturb the
  # timings above).
  run "$CLUSTER" run -- -np "$P" "$DDLRUN" --algo ddl --dims "$dims" -b "$GANTT_SIZE" -e "$GANTT_SIZE" -n 1 -w 1 \
    --check --timeout "$TIMEOUT" --trace "$OUT/trace_measured_$c.csv" --format csv > /dev/null
  run "$CLUSTER" down >&2
  fi
  mapfile -t reports < <(for i in $(seq "$LAUNCHES"); do echo "$OUT/calibrated_$c.launch$i.json"; done)
  run "$DDLCALIBRATE" --combine "${reports[@]}" --output "$OUT/calibrated_$c.xml" > "$OUT/calibrated_$c.txt"
  echo "cluster_vs_sim.sh: config $c: simulating" >&2
  for platform in calibrated nominal; do
    prefix=$([ "$platform" = calibrated ] && echo simulated || echo nominal)
    run "$DDLSIM" --platform "$OUT/${platform}_$c.xml" --algo "$algos" --dims "$dims" "${SIZES[@]}" --format csv \
      > "$OUT/${prefix}_${c}_natural.csv"
    [ -n "$other" ] || continue
    run "$DDLSIM" --platform "$OUT/${platform}_$c.xml" --algo ddl --dims "$dims" --rings 2 "${SIZES[@]}" \
      --format csv > "$OUT/${prefix}_${c}_rings2.csv"
    run "$DDLSIM" --platform "$OUT/${platform}_$c.xml" --algo ddl --dims "$other" "${SIZES[@]}" --format csv \
      > "$OUT/${prefix}_${c}_grid.csv"
  done
  run "$DDLSIM" --platform "$OUT/calibrated_$c.xml" --algo ddl --dims "$dims" -b "$GANTT_SIZE" -e "$GANTT_SIZE" \
    --trace "$OUT/trace_simulated_$c.csv" --format csv > /dev/null
done
trap - EXIT

echo "# then: $PYTHON analysis/cluster_vs_sim.py $OUT" >> "$COMMANDS"
set +e
"$PYTHON" analysis/cluster_vs_sim.py "$OUT" | tee "$OUT/analysis.txt"
status=${PIPESTATUS[0]}
set -e
[ "$status" = 0 ] || die "the analysis exited with status $status (see above)"
