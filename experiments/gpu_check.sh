#!/bin/sh
# The GPU checks, for a machine with an NVIDIA GPU (nothing here runs without one):
#   1. exactness: every algorithm on device buffers, 2 and 4 ranks sharing GPU 0, through the
#      staged (pinned host) transport and the automatic choice (CUDA-aware MPI if available);
#   2. ddlrun --memory cuda --check on every algorithm, beside MPI_Allreduce where MPI can;
#   3. NCCL transport, when built in and there are at least 2 GPUs (NCCL refuses two ranks
#      on one GPU);
#   4. the reduce kernels' bandwidth against a device-to-device copy in the same run.
#
#   experiments/gpu_check.sh             # BUILD=dir to use another build directory
#
# Results: gpu_check_*.{txt,csv} in a new experiments/runs/gpu_check-<time>/ (UPDATE_RESULTS=1:
# the committed experiments/results/; OUT=dir: dir; experiments/README.md). Exits non-zero if any
# check fails.
set -eu
cd "$(dirname "$0")/.."
. experiments/lib.sh
BUILD=${BUILD:-build}
results_dir gpu_check experiments/results
if [ ! -x "$BUILD/bin/ddl_cuda_collectives" ]; then
  cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DDDL_WITH_CUDA=ON
  cmake --build "$BUILD" -j "$(nproc)" --target ddl_cuda_probe ddl_cuda_collectives ddl_cuda_reduce_bench ddlrun
fi
"$BUILD/bin/ddl_cuda_probe"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
MPIRUN="mpirun --oversubscribe --allow-run-as-root"
LOG=$OUT/gpu_check_commands.txt
{ echo "# $(date -u +%Y-%m-%dT%H:%MZ) $(uname -n)"; nvidia-smi -L 2>/dev/null || true; } > "$LOG"
run() {  # run OUTFILE COMMAND...: record the command, run it, keep its output
  out=$1
  shift
  echo "$* > $out" >> "$LOG"
  "$@" > "$out" 2>&1 || { cat "$out"; echo "gpu_check.sh: failed: $*" >&2; exit 1; }
  cat "$out"
}

for ranks in 2 4; do
  for mode in staged auto; do
    run "$OUT/gpu_check_collectives_${ranks}ranks_${mode}.txt" \
      $MPIRUN -np "$ranks" "$BUILD/bin/ddl_cuda_collectives" "$mode"
  done
done
run "$OUT/gpu_check_ddlrun_4ranks.csv" $MPIRUN -np 4 "$BUILD/bin/ddlrun" --memory cuda --algo all \
  -b 1K -e 64M -f 4 -n 5 -w 2 --check --baseline mpi --format csv
if awk -F, '/^size,/ { for (i = 1; i <= NF; ++i) if ($i == "wrong") c = i; next }
           c && /^[0-9]/ && $c != 0 { bad = 1 } END { exit !bad }' "$OUT/gpu_check_ddlrun_4ranks.csv"; then
  echo "gpu_check.sh: ddlrun --memory cuda reported wrong elements" >&2
  exit 1
fi
gpus=$(nvidia-smi -L 2>/dev/null | wc -l)
if [ "$gpus" -ge 2 ] &&
   $MPIRUN -np 1 "$BUILD/bin/ddlrun" --memory cuda --transport nccl -b 8 -e 8 -n 1 -w 0 >/dev/null 2>&1; then
  run "$OUT/gpu_check_ddlrun_nccl.csv" $MPIRUN -np "$gpus" "$BUILD/bin/ddlrun" --memory cuda \
    --transport nccl --algo all -b 1K -e 64M -f 4 -n 5 -w 2 --check --format csv
else
  echo "# nccl transport skipped: needs NCCL built in and >= 2 GPUs (found $gpus)" >> "$LOG"
fi
run "$OUT/gpu_check_reduce_bench.csv" "$BUILD/bin/ddl_cuda_reduce_bench" 256M 20
echo "gpu_check.sh: all GPU checks passed; results in $OUT/gpu_check_*"
