#!/usr/bin/env bash
# ddlplan --workload ranks an LLM's layouts on a platform: small_gpt on one generated DGX H100
# node (8 GPUs), global batch 16: 9 splits x ZeRO {1, 3} = 18 layouts, all fitting
# (workloads/llm/tests/test_layout_search.cpp), each predicted; the table's rows are the CSV's
# first, sorted by step time, and the best one's step is the one ddlsim --llm predicts for it.
# Bad inputs: one message, status 1, and --out left as it was.
# Usage: plan_layouts.sh DDLPLAN DDLSIM GENERATE_PY
set -euo pipefail
ddlplan=$1 ddlsim=$2 generate=$3
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
/usr/bin/python3 "$generate" --platform dgx_h100 --nodes 1 -o "$dir/dgx_h100_1.xml" > /dev/null
args=(--workload small_gpt --gpus 8 --platform "$dir/dgx_h100_1.xml" --global-batch 16)
"$ddlplan" "${args[@]}" --top 3 --jobs 2 --out "$dir/ranking.csv" > "$dir/table.txt" \
  2> "$dir/progress.txt"
grep -q "ddlplan: wrote" "$dir/progress.txt" || { cat "$dir/progress.txt"; exit 1; }
grep -q "^# candidates: 18 searched, 18 fit memory, 18 simulated" "$dir/table.txt" ||
  { echo "unexpected header:"; cat "$dir/table.txt"; exit 1; }
best=$(/usr/bin/python3 - "$dir" <<'PY'
import csv, sys
d = sys.argv[1]
rows = list(csv.DictReader(open(f"{d}/ranking.csv")))
assert len(rows) == 18, len(rows)
steps = [float(r["step_s"]) for r in rows]
assert steps == sorted(steps), steps
table = [l.split() for l in open(f"{d}/table.txt") if not l.startswith("#")]
assert [t[0] for t in table] == [r["layout"] for r in rows[:3]], (table, rows[:3])
assert len({r["layout"] for r in rows}) == 18
print(rows[0]["layout"], rows[0]["step_s"])
PY
)
read -r layout step <<< "$best"
# ddlsim prints step_s to 4 decimals (0.0000 here) and tokens_per_s to the token: the step it
# predicted is tokens / tokens_per_s, 16 x 128 tokens, to 1e-8 at ~5e7 tokens/s.
"$ddlsim" --llm small_gpt --layout "$layout" --platform "$dir/dgx_h100_1.xml" > "$dir/ddlsim.txt"
/usr/bin/python3 - "$dir/ddlsim.txt" "$step" <<'PY'
import sys
lines = open(sys.argv[1]).read().splitlines()
row = lines[[i for i, l in enumerate(lines) if l.startswith("#   step_s")][0] + 1].split()
simulated = 16 * 128 / float(row[1])
planned = float(sys.argv[2])
assert abs(planned - simulated) <= 1e-6 * simulated, (planned, simulated)
print("best layout's step:", planned, "s; ddlsim --llm:", simulated, "s")
PY

# Bad inputs: status 1, the one message, the previous ranking untouched.
cp "$dir/ranking.csv" "$dir/kept.csv"
refused() {  # EXPECTED-MESSAGE ARGS...
  local want=$1
  shift
  if "$ddlplan" "$@" > "$dir/out.txt" 2> "$dir/err.txt"; then
    echo "accepted: $*"; exit 1
  fi
  [[ $(wc -l < "$dir/err.txt") == 1 ]] && grep -qF -- "$want" "$dir/err.txt" ||
    { echo "ddlplan $*: expected '$want', got:"; cat "$dir/err.txt"; exit 1; }
  cmp -s "$dir/ranking.csv" "$dir/kept.csv" || { echo "ddlplan $* changed --out"; exit 1; }
}
out=(--out "$dir/ranking.csv")
refused "ddlplan: --workload 'gpt5': no such model (shipped: gpt3_175b, llama2_70b" \
  --workload gpt5 --gpus 8 --platform "$dir/dgx_h100_1.xml" --global-batch 16 "${out[@]}"
refused "has 8 GPUs (platforms/generate.py makes one of any size" \
  --workload small_gpt --gpus 16 --platform "$dir/dgx_h100_1.xml" --global-batch 16 "${out[@]}"
refused "--global-batch 3 is not a multiple of dp x micro-batch size for any split of 8 GPUs (dp: 1, 2, 4, 8; --mbs 2)" \
  --workload small_gpt --gpus 8 --platform "$dir/dgx_h100_1.xml" --global-batch 3 --mbs 2 "${out[@]}"
refused "ddlplan: none of the 20 layouts of llama2_70b on 8 GPUs fits h100_sxm memory, recomputing or not; the closest, layout tp=8,pp=1,dp=1,ep=1,mb=8,mbs=1,zero=1,sp,recompute: stage 0 needs 138.7 GB" \
  --workload llama2_70b --gpus 8 --platform "$dir/dgx_h100_1.xml" --global-batch 8 "${out[@]}"
refused "--workload needs --global-batch (sequences per step: the model descriptions give no batch size)" \
  --workload small_gpt --gpus 8 --platform "$dir/dgx_h100_1.xml" "${out[@]}"
refused "--coll plans collectives and does not go with --workload" "${args[@]}" --coll alltoall
refused "--segments plans collectives and does not go with --workload" "${args[@]}" --segments none
refused "--top applies to layout planning: give --workload MODEL" \
  --platform "$dir/dgx_h100_1.xml" --out "$dir/plan.json" --top 3
refused "bad --zero '4': out of range" "${args[@]}" --zero 1,4 "${out[@]}"
refused "bad --mbs '1,1': 1 given twice" "${args[@]}" --mbs 1,1 "${out[@]}"
refused "cannot write" "${args[@]}" --out "$dir/no/such/dir.csv"
refused "is the same file as input" "${args[@]}" --out "$dir/dgx_h100_1.xml"
echo "ranking of 18 layouts; bad inputs refused"
