#!/usr/bin/env bash
# Prediction vs measurement on this machine, one command: calibrate it (ddlcalibrate), then for
# ring, ddl, rhd, dbtree, hier on 2 ranks (dims 2) and 4 ranks (dims 2x2), sizes 64 KB..64 MB,
# measure (ddlrun), simulate on the calibrated platform (ddlsim, with the analytical model
# column) and compare (analysis/sim_vs_real.py: errors, plots, a Gantt chart of one case).
#
#   experiments/sim_vs_real.sh                   # tools from build/bin
#   BUILD=build-rel experiments/sim_vs_real.sh   # another build directory
#
# Environment: BUILD (default build; DDLRUN, DDLSIM, DDLCALIBRATE override single tools),
# ITERS (ddlrun -n, default 12; time = median), WARMUP (default 3), LAUNCHES (separate
# ddlcalibrate and ddlrun launches per rank count, alternating, default 3: each launch places
# the buffers in different physical pages and meets the machine's co-tenants anew, one launch
# is one draw; the platform is fitted to the median over the calibration launches
# (ddlcalibrate --combine) and the analysis takes the median over the measurement launches),
# REPS (ddlcalibrate --reps, default 15), OUT (default a new experiments/runs/sim_vs_real-<time>/;
# UPDATE_RESULTS=1: the committed experiments/results/sim_vs_real; experiments/README.md), PYTHON
# (default /usr/bin/python3, Debian's, which has python3-pandas and python3-matplotlib).
# Writes into OUT: calibrated_<p>.launch<i>.xml/.json/.txt (each calibration launch) and
# calibrated_<p>.xml/.json/.txt (their combination, what ddlsim runs on),
# measured_<p>.launch<i>.csv and their combination measured_<p>.csv, simulated_<p>.csv,
# errors.csv, time_vs_size_<algo>.png, trace_*.csv + gantt_*.png, analysis.txt, commands.txt,
# model_whatif.txt (experiments/model_whatif.py: the cases simulated again under other rules).
# The calibrations and measurements of each rank count run back to back (ratios in one run,
# as platforms/SOURCES.md asks for this noisy machine); machine load is recorded in commands.txt.
set -euo pipefail
cd "$(dirname "$0")/.."
. experiments/lib.sh
BUILD=${BUILD:-build}
DDLRUN=${DDLRUN:-$BUILD/bin/ddlrun}
DDLSIM=${DDLSIM:-$BUILD/bin/ddlsim}
DDLCALIBRATE=${DDLCALIBRATE:-$BUILD/bin/ddlcalibrate}
ITERS=${ITERS:-12}
WARMUP=${WARMUP:-3}
LAUNCHES=${LAUNCHES:-3}
REPS=${REPS:-15}
PYTHON=${PYTHON:-/usr/bin/python3}
ALGOS=ring,ddl,rhd,dbtree,hier
SIZES=(-b 64K -e 64M -f 2)
GANTT_RANKS=4 GANTT_ALGO=ring GANTT_SIZE=4M

for tool in "$DDLRUN" "$DDLSIM" "$DDLCALIBRATE"; do
  [ -x "$tool" ] || { echo "sim_vs_real.sh: $tool is missing: build it first (or set BUILD / DDLRUN / DDLSIM / DDLCALIBRATE)" >&2; exit 1; }
done
"$PYTHON" -c 'import pandas, matplotlib' 2> /dev/null ||
  { echo "sim_vs_real.sh: $PYTHON lacks pandas/matplotlib: apt-get install python3-pandas python3-matplotlib" >&2; exit 1; }
for v in ITERS WARMUP REPS LAUNCHES; do
  case ${!v} in '' | *[!0-9]*) echo "sim_vs_real.sh: $v must be a non-negative integer, got '${!v}'" >&2; exit 1 ;; esac
done
[ "$LAUNCHES" -ge 1 ] || { echo "sim_vs_real.sh: LAUNCHES must be at least 1, got '$LAUNCHES'" >&2; exit 1; }

export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
MPIRUN=(mpirun --oversubscribe --allow-run-as-root --mca btl self,vader)
results_dir sim_vs_real experiments/results/sim_vs_real
COMMANDS=$OUT/commands.txt
{
  echo "# experiments/sim_vs_real.sh, $(date -u +%Y-%m-%dT%H:%M:%SZ), $(nproc) cores, load before: $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "# BUILD=$BUILD ITERS=$ITERS WARMUP=$WARMUP LAUNCHES=$LAUNCHES REPS=$REPS"
} > "$COMMANDS"
run() {  # log the command, then run it
  echo "$*" >> "$COMMANDS"
  "$@"
}

for p in 2 4; do
  dims=$([ "$p" = 4 ] && echo 2x2 || echo 2)
  rm -f "$OUT"/measured_"$p".csv "$OUT"/measured_"$p".launch*.csv "$OUT"/calibrated_"$p".*
  # Calibration and measurement launches alternate, so both sample the same launch-to-launch
  # draws and drift; the platform is fitted to the median over the calibration launches.
  for i in $(seq "$LAUNCHES"); do
    echo "sim_vs_real.sh: $p ranks, launch $i of $LAUNCHES: calibrating, measuring" >&2
    run "${MPIRUN[@]}" -np "$p" "$DDLCALIBRATE" --output "$OUT/calibrated_$p.launch$i.xml" --reps "$REPS" -b 8 -e 64M \
      > "$OUT/calibrated_$p.launch$i.txt"
    # --check writes fresh inputs before every iteration (untimed), as training writes fresh
    # gradients, and verifies every result: the cache state ddlcalibrate measures messages in.
    run "${MPIRUN[@]}" -np "$p" "$DDLRUN" --algo "$ALGOS" --dims "$dims" "${SIZES[@]}" -n "$ITERS" -w "$WARMUP" \
      --check --format csv > "$OUT/measured_$p.launch$i.csv"
  done
  echo "# load after $p ranks: $(cut -d' ' -f1-3 /proc/loadavg)" >> "$COMMANDS"
  mapfile -t reports < <(for i in $(seq "$LAUNCHES"); do echo "$OUT/calibrated_$p.launch$i.json"; done)
  run "$DDLCALIBRATE" --combine "${reports[@]}" --output "$OUT/calibrated_$p.xml" > "$OUT/calibrated_$p.txt"
  echo "sim_vs_real.sh: $p ranks: simulating" >&2
  run "$DDLSIM" --platform "$OUT/calibrated_$p.xml" --algo "$ALGOS" --dims "$dims" "${SIZES[@]}" --format csv \
    > "$OUT/simulated_$p.csv"
done

# One case traced by both tools for the Gantt chart (separate runs: tracing must not perturb
# the timings above).
rm -f "$OUT"/trace_measured.csv "$OUT"/trace_simulated.csv
gdims=$([ "$GANTT_RANKS" = 4 ] && echo 2x2 || echo 2)
# Help texts are captured first: grep -q would close the pipe early and pipefail would count it.
sim_help=$("$DDLSIM" --help 2>&1 || true)
run_help=$("${MPIRUN[@]}" -np 1 "$DDLRUN" --help 2>&1 || true)
if grep -q -- '--trace' <<< "$sim_help" && grep -q -- '--trace' <<< "$run_help"; then
  run "${MPIRUN[@]}" -np "$GANTT_RANKS" "$DDLRUN" --algo "$GANTT_ALGO" --dims "$gdims" -b "$GANTT_SIZE" -e "$GANTT_SIZE" \
    -n 1 -w 1 --check --trace "$OUT/trace_measured.csv" --format csv > /dev/null
  run "$DDLSIM" --platform "$OUT/calibrated_$GANTT_RANKS.xml" --algo "$GANTT_ALGO" --dims "$gdims" -b "$GANTT_SIZE" \
    -e "$GANTT_SIZE" --trace "$OUT/trace_simulated.csv" --format csv > /dev/null
else
  echo "sim_vs_real.sh: $DDLRUN or $DDLSIM has no --trace flag: no traces, so no Gantt chart" >&2
fi

echo "$PYTHON analysis/sim_vs_real.py $OUT" >> "$COMMANDS"
set +e
"$PYTHON" analysis/sim_vs_real.py "$OUT" | tee "$OUT/analysis.txt"
status=${PIPESTATUS[0]}
set -e
[ "$status" = 0 ] || { echo "sim_vs_real.sh: the analysis exited with status $status (see above)" >&2; exit "$status"; }
# After the analysis, which writes the measured_<p>.csv the what-ifs compare with; into its own
# file, so that the summary stays the last line printed.
echo "$PYTHON experiments/model_whatif.py $OUT $DDLSIM > $OUT/model_whatif.txt" >> "$COMMANDS"
"$PYTHON" experiments/model_whatif.py "$OUT" "$DDLSIM" > "$OUT/model_whatif.txt"
