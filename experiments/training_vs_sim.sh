#!/usr/bin/env bash
# Training predictions confirmed on the emulated cluster, one command. For 2, 4 and 8 ranks in
# turn (1 node x 2 ranks, 2 nodes x 2 ranks, 4 nodes x 2 ranks on one leaf; cluster/ddlcluster;
# 2 ranks per node throughout, since ddlcalibrate fits the node class from a node's 2 ranks):
#   1. cluster up, calibrate it (ddlcalibrate across the cluster);
#   2. the model's workload with measured per-layer times (python3 -m ddl.workload --measure on
#      experiments/training/models.py), measured by P processes at once, so each layer's time is
#      that of the CPU share a rank has when P ranks train on the machine's cores;
#   3. real training with ring, ddl and hier: (b) the PyTorch model under DDP with ddl's hook on
#      a communication thread (experiments/training/train_timed.py: per-rank, per-iteration
#      compute and communication times), and the same ranks training alone (--no-comm: the reference of the interference
#      factor); the jitter CV and the interference factor are fitted from those runs
#      (experiments/training/fit_effects.py); then (a) ddlrun --workload with that workload and
#      the fitted effects emulated (seeded: the same draws as the simulator's);
#   4. cluster down, then ddlsim --workload on the calibrated platform with the same workload
#      and effects predicts every ddlrun case, and each PyTorch case from the workload scaled to
#      that run's own compute (experiments/training/scale_workload.py: on 2 shared cores a rank's
#      compute depends on the other ranks and on the machine's other work);
#      experiments/training/analyze.py compares and prints, last, the summary line.
#
#   experiments/training_vs_sim.sh          # tools from build/bin, needs root
#   RANKS="2 4" STEPS=6 experiments/training_vs_sim.sh   # a quicker trial
#
# Environment: BUILD (default build; DDLRUN, DDLSIM, DDLCALIBRATE override single tools; BUILD/python
# holds ddl's Python module), RATE (the tc rate of every NIC and uplink, default 200mbit: why in
# experiments/results/training_vs_sim/README.md), RANKS (default "2 4 8"), ALGOS (default
# ring,ddl,hier), STEPS (timed iterations of every run, default 20), WARMUP (default 2), BATCH
# (sequences per rank, default 4), REPS (ddlcalibrate --reps, default 5), MEASURE_REPS
# (ddl.workload --measure-reps, default 7), SEED (the jitter draws, default 1), OUT (default a
# new experiments/runs/training_vs_sim-<time>/; UPDATE_RESULTS=1: the committed
# experiments/results/training_vs_sim; experiments/README.md), PYTHON (default /usr/bin/python3),
# DDLCLUSTER_PREFIX (default ddlt), RESIMULATE=1 (no cluster, no measurement: simulate and
# analyse again from the files in OUT, or the committed ones with UPDATE_RESULTS=1, after a
# change to the model; needs no root).
set -euo pipefail
cd "$(dirname "$0")/.."
. experiments/lib.sh
BUILD=${BUILD:-build}
DDLRUN=${DDLRUN:-$BUILD/bin/ddlrun}
DDLSIM=${DDLSIM:-$BUILD/bin/ddlsim}
DDLCALIBRATE=${DDLCALIBRATE:-$BUILD/bin/ddlcalibrate}
RATE=${RATE:-200mbit}
RANKS=${RANKS:-2 4 8}
ALGOS=${ALGOS:-ring,ddl,hier}
STEPS=${STEPS:-20}
WARMUP=${WARMUP:-2}
BATCH=${BATCH:-4}
REPS=${REPS:-5}
MEASURE_REPS=${MEASURE_REPS:-7}
SEED=${SEED:-1}
PYTHON=${PYTHON:-/usr/bin/python3}
RESIMULATE=${RESIMULATE:-0}
SUBNET=${SUBNET:-10.213.79.0/24}
export DDLCLUSTER_PREFIX=${DDLCLUSTER_PREFIX:-ddlt}
CLUSTER=cluster/ddlcluster
TIMEOUT=300
# DDP's defaults (bucket_cap_mb 25, first bucket 1 MB): ddlrun and ddlsim bucket as DDP does.
BUCKETS=(--bucket 25M --first-bucket 1M)

die() {
  echo "training_vs_sim.sh: $*" >&2
  exit 1
}
for tool in "$DDLRUN" "$DDLSIM" "$DDLCALIBRATE"; do
  [ -x "$tool" ] || die "$tool is missing: build it first (or set BUILD / DDLRUN / DDLSIM / DDLCALIBRATE)"
done
[ -d "$BUILD/python/ddl" ] || die "$BUILD/python/ddl is missing: build the ddl_python target"
[ "$RESIMULATE" = 1 ] || [ "$(id -u)" = 0 ] ||
  die "must run as root (the emulated cluster is made of network namespaces)"
"$PYTHON" -c 'import torch, pandas, matplotlib' 2> /dev/null ||
  die "$PYTHON lacks torch/pandas/matplotlib: apt-get install python3-torch python3-pandas python3-matplotlib"
for v in STEPS WARMUP BATCH REPS MEASURE_REPS SEED; do
  case ${!v} in '' | *[!0-9]*) die "$v must be a non-negative integer, got '${!v}'" ;; esac
done
for v in STEPS BATCH REPS MEASURE_REPS; do
  [ "${!v}" -ge 1 ] || die "$v must be at least 1, got ${!v}"
done
for p in $RANKS; do
  case $p in 2 | 4 | 8) ;; *) die "RANKS holds '$p': the configurations are 2, 4 and 8 ranks" ;; esac
done

[ "$RESIMULATE" != 1 ] || [ -n "${OUT:-}" ] || [ "${UPDATE_RESULTS:-0}" = 1 ] ||
  die "RESIMULATE=1 simulates an earlier run's measurements again: give OUT=that run's folder, or UPDATE_RESULTS=1 for the committed ones"
results_dir training_vs_sim experiments/results/training_vs_sim
export PYTHONPATH=$PWD/$BUILD/python:$PWD/experiments/training
export GLOO_SOCKET_IFNAME=nic  # gloo (DDP's parameter broadcast) on the node's cluster interface
COMMANDS=$OUT/commands.txt
LOAD=$OUT/load.csv
run() {  # log the command, then run it
  echo "$*" >> "$COMMANDS"
  "$@"
}
loadavg() { cut -d' ' -f1-3 /proc/loadavg | tr ' ' ,; }

if [ "$RESIMULATE" = 1 ]; then
  echo "# RESIMULATE=1 $(date -u +%Y-%m-%dT%H:%M:%SZ): simulated and analysed again" >> "$COMMANDS"
else
  # The cluster comes down on every exit, also when the script is interrupted or killed by a
  # signal (bash runs the EXIT trap after a trapped signal's exit).
  trap '"$CLUSTER" down > /dev/null 2>&1 || true' EXIT
  trap 'exit 130' INT
  trap 'exit 143' TERM
  {
    echo "# experiments/training_vs_sim.sh $(date -u +%Y-%m-%dT%H:%M:%SZ), $(nproc) cores, load before: $(cut -d' ' -f1-3 /proc/loadavg)"
    echo "# BUILD=$BUILD RATE=$RATE RANKS='$RANKS' ALGOS=$ALGOS STEPS=$STEPS WARMUP=$WARMUP BATCH=$BATCH REPS=$REPS MEASURE_REPS=$MEASURE_REPS SEED=$SEED"
  } > "$COMMANDS"
  echo "ranks,phase,load1,load5,load15" > "$LOAD"
  for p in $RANKS; do
    case $p in
      2) nodes=1 rpn=2 ;;
      4) nodes=2 rpn=2 ;;
      8) nodes=4 rpn=2 ;;
    esac
    rm -rf "$OUT/p$p"
    mkdir -p "$OUT/p$p"
    echo "training_vs_sim.sh: $p ranks: $nodes nodes x $rpn, one leaf, NIC $RATE" >&2
    echo "$p,start,$(loadavg)" >> "$LOAD"
    run "$CLUSTER" up --nodes "$nodes" --ranks-per-node "$rpn" --nodes-per-leaf "$nodes" --nic "$RATE" \
      --uplink "$RATE" --subnet "$SUBNET" >&2
    # rank 0's node: the rendezvous of torch.distributed (DDP's parameter broadcast).
    export MASTER_ADDR=$DDLCLUSTER_PREFIX-n0
    launch() { run "$CLUSTER" run -- -np "$p" -x PYTHONPATH -x GLOO_SOCKET_IFNAME -x MASTER_ADDR "$@"; }
    echo "training_vs_sim.sh: $p ranks: calibrating" >&2
    launch "$DDLCALIBRATE" --nodes-per-leaf "$nodes" --reps "$REPS" -b 8 -e 16M --network-maxbytes 4M \
      --timeout "$TIMEOUT" --output "$OUT/p$p/calibrated.xml" > "$OUT/p$p/calibrated.txt"
    echo "$p,calibrated,$(loadavg)" >> "$LOAD"
    echo "training_vs_sim.sh: $p ranks: measuring the workload ($p processes at once)" >&2
    pids=()
    for i in $(seq 0 $((p - 1))); do
      "$PYTHON" -m ddl.workload models:make_net --name small_transformer --order ready --measure \
        --measure-batch "$BATCH" --measure-reps "$MEASURE_REPS" --threads 1 \
        -o "$OUT/p$p/workload.m$i.csv" 2> "$OUT/p$p/workload.m$i.log" &
      pids+=($!)
    done
    echo "$PYTHON -m ddl.workload models:make_net --name small_transformer --order ready --measure --measure-batch $BATCH --measure-reps $MEASURE_REPS --threads 1 -o $OUT/p$p/workload.m<i>.csv  # $p at once" >> "$COMMANDS"
    for pid in "${pids[@]}"; do wait "$pid" || die "a workload measurement failed (see $OUT/p$p/workload.m*.log)"; done
    find "$OUT/p$p" -name 'workload.m*.log' -empty -delete
    cp "$OUT/p$p/workload.m0.csv" "$OUT/p$p/workload.csv"
    echo "training_vs_sim.sh: $p ranks: PyTorch training alone and with ddl's hook" >&2
    common=(--steps "$STEPS" --warmup "$WARMUP" --batch "$BATCH" --timeout "$TIMEOUT")
    launch "$PYTHON" experiments/training/train_timed.py --no-comm "${common[@]}" --out "$OUT/p$p/torch_nocomm"
    for algo in ${ALGOS//,/ }; do
      launch "$PYTHON" experiments/training/train_timed.py --algo "$algo" "${common[@]}" --out "$OUT/p$p/torch_$algo"
    done
    echo "$p,torch,$(loadavg)" >> "$LOAD"
    run "$PYTHON" experiments/training/fit_effects.py "$OUT/p$p" > "$OUT/p$p/effects.txt"
    read -r jitter interference < "$OUT/p$p/effects.txt"
    echo "training_vs_sim.sh: $p ranks: fitted jitter cv $jitter, interference $interference; ddlrun --workload" >&2
    launch "$DDLRUN" --workload "$OUT/p$p/workload.csv" --batch "$BATCH" "${BUCKETS[@]}" --algo "$ALGOS" \
      --jitter "$jitter" --interference "$interference" --seed "$SEED" -n "$STEPS" -w "$WARMUP" --check \
      --timeout "$TIMEOUT" --format csv > "$OUT/p$p/ddlrun.csv"
    echo "$p,ddlrun,$(loadavg)" >> "$LOAD"
    run "$CLUSTER" down >&2
  done
  trap - EXIT INT TERM
  echo "# measured in ${SECONDS} s; load after: $(cut -d' ' -f1-3 /proc/loadavg)" >> "$COMMANDS"
fi

for p in $RANKS; do
  [ -f "$OUT/p$p/effects.txt" ] || die "no measurements of $p ranks in $OUT (run without RESIMULATE)"
  read -r jitter interference < "$OUT/p$p/effects.txt"
  echo "training_vs_sim.sh: $p ranks: simulating" >&2
  run "$DDLSIM" --platform "$OUT/p$p/calibrated.xml" --workload "$OUT/p$p/workload.csv" --batch "$BATCH" \
    "${BUCKETS[@]}" --algo "$ALGOS" --jitter "$jitter" --interference "$interference" --seed "$SEED" \
    -n "$STEPS" -w "$WARMUP" --format csv > "$OUT/p$p/ddlsim.csv"
  run "$DDLSIM" --platform "$OUT/p$p/calibrated.xml" --workload "$OUT/p$p/workload.csv" --batch "$BATCH" \
    "${BUCKETS[@]}" --algo "$ALGOS" --no-effects -n "$STEPS" -w "$WARMUP" --format csv > "$OUT/p$p/ddlsim_noeffects.csv"
  # Each PyTorch run predicted from the workload scaled to that run's own compute (why in
  # experiments/training/scale_workload.py).
  for algo in ${ALGOS//,/ }; do
    run "$PYTHON" experiments/training/scale_workload.py "$OUT/p$p/workload.csv" "$OUT/p$p/torch_$algo" \
      "$OUT/p$p/workload_torch_$algo.csv"
    run "$DDLSIM" --platform "$OUT/p$p/calibrated.xml" --workload "$OUT/p$p/workload_torch_$algo.csv" --batch "$BATCH" \
      "${BUCKETS[@]}" --algo "$algo" --jitter "$jitter" --interference "$interference" --seed "$SEED" \
      -n "$STEPS" -w "$WARMUP" --format csv > "$OUT/p$p/ddlsim_torch_$algo.csv"
    run "$DDLSIM" --platform "$OUT/p$p/calibrated.xml" --workload "$OUT/p$p/workload_torch_$algo.csv" --batch "$BATCH" \
      "${BUCKETS[@]}" --algo "$algo" --no-effects -n "$STEPS" -w "$WARMUP" --format csv \
      > "$OUT/p$p/ddlsim_torch_${algo}_noeffects.csv"
  done
done

echo "# then: $PYTHON experiments/training/analyze.py $OUT" >> "$COMMANDS"
set +e
"$PYTHON" experiments/training/analyze.py "$OUT" | tee "$OUT/analysis.txt"
status=${PIPESTATUS[0]}
set -e
[ "$status" = 0 ] || die "the analysis exited with status $status (see above)"
