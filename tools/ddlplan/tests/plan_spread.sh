#!/usr/bin/env bash
# ddlplan under mpirun shares its simulations out over the ranks and writes, from rank 0, the
# very plan one process writes (byte for byte), with rank 0's progress only.
# Usage: plan_spread.sh RANKS DDLPLAN PLATFORM MPIRUN...
set -euo pipefail
ranks=$1 ddlplan=$2 platform=$3
shift 3
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
args=(--platform "$platform" -b 8 -e 64M -f 8 --confirm 2 --jobs 1)
"$ddlplan" "${args[@]}" --out "$dir/one.json" 2> "$dir/one.txt"
"$@" -np "$ranks" "$ddlplan" "${args[@]}" --out "$dir/spread.json" 2> "$dir/spread.txt"
cmp "$dir/one.json" "$dir/spread.json" ||
  { echo "the plan of $ranks ranks differs from one process's:"; diff "$dir/one.json" "$dir/spread.json"; exit 1; }
wrote=$(grep -c "ddlplan: wrote" "$dir/spread.txt" || true)
[[ $wrote == 1 ]] || { echo "expected one 'wrote' line (rank 0's), got $wrote:"; cat "$dir/spread.txt"; exit 1; }
grep -q "of rank 0's sizes" "$dir/spread.txt" || { echo "no progress of rank 0's share:"; cat "$dir/spread.txt"; exit 1; }
echo "plan on $ranks ranks: same as one process ($(grep -c '"algorithm"' "$dir/one.json") strings)"
