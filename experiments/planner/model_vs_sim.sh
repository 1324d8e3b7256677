#!/usr/bin/env bash
# The contention-aware model against the simulation: every allreduce algorithm (both
# halving-doubling orders of rhd) on every shipped platform (platforms/*.xml), 64 KB..256 MB,
# timing-only ddlsim (its model column is the contention-aware price over the platform's routes).
# Writes experiments/results/model_vs_sim.md. Usage: experiments/planner/model_vs_sim.sh [BUILD]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
ddlsim=${1:-$root/build}/bin/ddlsim
[[ -x $ddlsim ]] || { echo "model_vs_sim.sh: no ddlsim at $ddlsim (give the build directory)" >&2; exit 1; }
out=$root/experiments/results/model_vs_sim.md
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
algos=ring,rhd,rhd:order=far,rd,dbtree,hier,ddl,auto
for f in "$root"/platforms/*.xml; do
  p=$(basename "$f" .xml)
  echo "model_vs_sim.sh: $p" >&2
  timeout 900 "$ddlsim" --platform "$f" --algo "$algos" -b 64K -e 256M -f 4 --format csv > "$tmp/$p.csv"
done
/usr/bin/python3 "$here/model_vs_sim.py" "$tmp" "$algos" > "$tmp/table.md"
mv "$tmp/table.md" "$out"
echo "model_vs_sim.sh: wrote $out" >&2
