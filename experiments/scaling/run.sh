#!/bin/sh
# The scaling study in one command: simulated ResNet-50/101 training iterations on S822LC
# clusters (4 -> 256 GPUs, every algorithm, ddl's grid searched), Goyal et al.'s Big Basin setup
# (8 -> 256 GPUs), larger S822LC clusters (512 -> 4096 GPUs), DGX-1 / DGX A100 / DGX H100 clusters
# (8 -> 256 GPUs), and the sensitivity of ResNet-50's efficiency at 256 and 4096 GPUs to compute
# jitter and interference (assumed values, swept); then
# tables, plots and REPORT.md, which compares the ideal rows with the committed runs.csv.
#
#   experiments/scaling/run.sh                 # uses build/bin/ddlsim
#   BUILD=build-rel experiments/scaling/run.sh # another build folder (relative to the repository)
#   JOBS=1 experiments/scaling/run.sh          # simulations at once (default 2)
#   MPIRUN_NP=4 JOBS=1 experiments/scaling/run.sh   # shared out over 4 mpirun ranks, JOBS each
#   MPIRUN="mpirun --hostfile hosts" MPIRUN_NP=16 experiments/scaling/run.sh   # over a cluster
# (under mpirun simulate.py needs mpi4py, Debian python3-mpi4py; rank 0 writes runs.csv)
#
# Writes results/{runs.csv,*.csv,*.png} and REPORT.md into a new
# experiments/runs/scaling-<time>/ (UPDATE_RESULTS=1: the committed experiments/scaling/; OUT=dir:
# dir; experiments/README.md). Progress goes to stderr: the longest simulations run first, so
# the first of them ends only after minutes.
# Needs python3 with pandas and matplotlib (Debian: python3-pandas python3-matplotlib).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
cd "$root"
. experiments/lib.sh

build=${BUILD:-build}
case $build in /*) ddlsim=$build/bin/ddlsim ;; *) ddlsim=$root/$build/bin/ddlsim ;; esac
if [ ! -x "$ddlsim" ]; then
  echo "run.sh: no ddlsim at $ddlsim: build it first (make, or cmake --build $build --target ddlsim)," >&2
  echo "        or point BUILD at the build folder that has bin/ddlsim" >&2
  exit 1
fi
# The first Python that has pandas and matplotlib: $PYTHON, python3 on PATH, then the system's
# (a pyenv or venv python3 on PATH may lack the Debian packages).
python=
for candidate in ${PYTHON:-} python3 /usr/bin/python3; do
  if "$candidate" -c 'import pandas, matplotlib' 2>/dev/null; then python=$candidate; break; fi
done
if [ -z "$python" ]; then
  echo "run.sh: no python3 with pandas and matplotlib (Debian: apt-get install python3-pandas python3-matplotlib;" >&2
  echo "        or set PYTHON to an interpreter that has them)" >&2
  exit 1
fi

results_dir scaling experiments/scaling
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "run.sh: generating the platforms and workloads that are not checked in" >&2
# 512 and 1024 nodes (2048 and 4096 GPUs) are generated, not checked in; so are the DGX clusters
# of the modern experiment, 1 to 32 nodes, and ResNet-50 at each of their GPUs' speed
# (reference_iteration_ms from simulate.py's MODERN; sources in platforms/SOURCES.md).
for nodes in 512 1024; do
  "$python" platforms/generate.py --platform s822lc --nodes "$nodes" -o "$tmp/s822lc_$nodes.xml"
done
"$python" - "$tmp" "$here" <<'PY'
import subprocess, sys
tmp, here = sys.argv[1:]
sys.path.insert(0, here)
from simulate import MODERN, MODERN_NODES
for family, gpu, ms in MODERN:
    for n in MODERN_NODES:
        subprocess.run([sys.executable, "platforms/generate.py", "--platform", family, "--nodes", str(n),
                        "-o", f"{tmp}/{family}_{n}.xml"], check=True)
    text = open("workloads/resnet50.csv").read()
    line = next(l for l in text.splitlines() if l.startswith("# reference_iteration_ms = "))
    with open(f"{tmp}/resnet50_{gpu}.csv", "w") as f:
        f.write(text.replace(line, f"# reference_iteration_ms = {ms:.4f}"))
PY

mkdir -p "$OUT/results"
# The committed results, for the report's check that the ideal model's numbers are unchanged.
baseline=
if [ -f "$here/results/runs.csv" ]; then
  cp "$here/results/runs.csv" "$tmp/previous_runs.csv"
  baseline="--baseline $tmp/previous_runs.csv"
fi
start=$(date +%s)
echo "run.sh: simulating (each run is listed as it ends)" >&2
if [ -n "${MPIRUN_NP:-}" ]; then
  if ! "$python" -c 'import mpi4py' 2>/dev/null; then
    echo "run.sh: MPIRUN_NP needs mpi4py for $python (Debian: apt-get install python3-mpi4py)" >&2
    exit 1
  fi
  # shellcheck disable=SC2086 # $MPIRUN is a command and its flags
  ${MPIRUN:-mpirun} -np "$MPIRUN_NP" "$python" "$here/simulate.py" --ddlsim "$ddlsim" --tmp "$tmp" \
    --jobs "${JOBS:-2}" -o "$OUT/results/runs.csv"
else
  "$python" "$here/simulate.py" --ddlsim "$ddlsim" --tmp "$tmp" --jobs "${JOBS:-2}" -o "$OUT/results/runs.csv"
fi
end=$(date +%s)
# shellcheck disable=SC2086 # $baseline is empty or two words
# notes.md (optional, hand-written): why rows moved since the previous run, for the report.
notes=
[ -f "$here/notes.md" ] && notes="--notes $here/notes.md"
echo "run.sh: tables, plots and the report" >&2
# shellcheck disable=SC2086 # $notes is empty or two words
"$python" "$here/analyze.py" --runs "$OUT/results/runs.csv" --out "$OUT/results" --report "$OUT/REPORT.md" \
  --wall-s $((end - start)) --jobs $(( ${JOBS:-2} * ${MPIRUN_NP:-1} )) $baseline $notes
echo "run.sh: $((end - start)) s of simulation; results in $OUT/results, report $OUT/REPORT.md"
