#!/usr/bin/env bash
# ddlplan --workload under mpirun shares its layouts out over the ranks (layout k on rank k mod
# N) and prints, from rank 0, the very table and CSV one process writes, with rank 0's progress.
# Usage: plan_layouts_spread.sh RANKS DDLPLAN GENERATE_PY MPIRUN...
set -euo pipefail
ranks=$1 ddlplan=$2 generate=$3
shift 3
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
/usr/bin/python3 "$generate" --platform dgx_h100 --nodes 1 -o "$dir/dgx_h100_1.xml" > /dev/null
args=(--workload small_gpt --gpus 8 --platform "$dir/dgx_h100_1.xml" --global-batch 16 --jobs 1)
"$ddlplan" "${args[@]}" --out "$dir/one.csv" > "$dir/one.txt" 2> /dev/null
"$@" -np "$ranks" "$ddlplan" "${args[@]}" --out "$dir/spread.csv" > "$dir/spread.txt" \
  2> "$dir/progress.txt"
for f in csv txt; do
  cmp "$dir/one.$f" "$dir/spread.$f" ||
    { echo "$ranks ranks' $f differs from one process's:"; diff "$dir/one.$f" "$dir/spread.$f"; exit 1; }
done
grep -q "of rank 0's layouts" "$dir/progress.txt" || { echo "no progress of rank 0's share:"; cat "$dir/progress.txt"; exit 1; }
[[ $(grep -c "ddlplan: wrote" "$dir/progress.txt") == 1 ]] || { cat "$dir/progress.txt"; exit 1; }
echo "layouts on $ranks ranks: the ranking of one process ($(($(wc -l < "$dir/one.csv") - 1)) layouts)"
