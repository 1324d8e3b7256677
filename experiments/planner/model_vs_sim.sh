#!/usr/bin/env bash
# The contention-aware model against the simulation: every allreduce algorithm (both
# halving-doubling orders of rhd) on every shipped platform (platforms/*.xml), 64 KB..256 MB,
# timing-only ddlsim (its model column is the contention-aware price over the platform's routes);
# then today's algorithms on the shipped machines that have their fabrics (rail-aware channels,
# the pipelined ddl, in-switch reduction where the platform's switches reduce), same sizes.
# Writes model_vs_sim.md (every shipped platform) and model_vs_sim_today.md (today's algorithms)
# into a new experiments/runs/model_vs_sim-<time>/ (UPDATE_RESULTS=1: the committed
# experiments/results/; OUT=dir: dir; experiments/README.md).
# Usage: [PART=all|classic|today] experiments/planner/model_vs_sim.sh [BUILD]
#   PART=today: only model_vs_sim_today.md (seconds); classic: only model_vs_sim.md (an hour or more).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${1:-$root/build}
[[ -d $build ]] || { echo "model_vs_sim.sh: no build directory '$build'" >&2; exit 1; }
ddlsim=$(cd "$build" && pwd)/bin/ddlsim  # before the cd to the root below
[[ -x $ddlsim ]] || { echo "model_vs_sim.sh: no ddlsim at $ddlsim (give the build directory)" >&2; exit 1; }
PART=${PART:-all}
case $PART in all | classic | today) ;; *) echo "model_vs_sim.sh: PART must be all, classic or today, got '$PART'" >&2; exit 2 ;; esac
cd "$root"
. experiments/lib.sh
results_dir model_vs_sim experiments/results
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
algos=ring,rhd,rhd:order=far,rd,dbtree,hier,ddl,auto
# An hour per platform: on dgx_h100_rail_64 auto picks the pipelined ddl from 64 MB, whose
# independent play of 512 ranks x 32 chunks takes SimGrid many minutes (fabrics.md's wall times).
if [[ $PART != today ]]; then
  mkdir "$tmp/classic"
  for f in "$root"/platforms/*.xml; do
    p=$(basename "$f" .xml)
    echo "model_vs_sim.sh: $p" >&2
    timeout 3600 "$ddlsim" --platform "$f" --algo "$algos" -b 64K -e 256M -f 4 --format csv \
      > "$tmp/classic/$p.csv"
  done
  /usr/bin/python3 "$here/model_vs_sim.py" "$tmp/classic" "$algos" > "$tmp/classic.md"
  mv "$tmp/classic.md" "$OUT/model_vs_sim.md"
  echo "model_vs_sim.sh: wrote $OUT/model_vs_sim.md" >&2
fi
[[ $PART != classic ]] || exit 0
# Today's algorithms: the channels are one per GPU of a node (a NIC each); the pipeline at 4 and
# 16 chunks; nvls and sharp only where the description says its switches reduce (dgx_h100).
mkdir "$tmp/modern"
modern() {  # modern PLATFORM ALGOS
  echo "model_vs_sim.sh: $1 (today's algorithms)" >&2
  timeout 900 "$ddlsim" --platform "$root/platforms/$1.xml" --algo "$2" -b 64K -e 256M -f 4 \
    --format csv > "$tmp/modern/$1.csv"
}
modern dgx_h100_4 ring:channels=8,ddl:chunks=4,ddl:chunks=16,nvls,sharp,nvls_sharp
modern dgx_a100_2 ring:channels=8,ddl:chunks=4,ddl:chunks=16
/usr/bin/python3 "$here/model_vs_sim.py" --today "$tmp/modern" > "$tmp/today.md"
mv "$tmp/today.md" "$OUT/model_vs_sim_today.md"
echo "model_vs_sim.sh: wrote $OUT/model_vs_sim_today.md" >&2
