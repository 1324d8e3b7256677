#!/usr/bin/env bash
# A plan ddlplan made on the simulated S822LC node (s822lc_1.plan.json, 4 GPUs: `ddlplan
# --platform platforms/s822lc_1.xml -b 8 -e 16M -f 8`; its 16 MB entry is segmented) runs
# unchanged in ddlrun on 4 MPI ranks: every size exact, and auto runs what the plan names.
# Usage: plan_in_ddlrun.sh PLAN MPIRUN-AND-ITS-ARGS... -- DDLRUN
set -euo pipefail
plan=$1
shift
mpirun=()
while [[ $1 != -- ]]; do mpirun+=("$1"); shift; done
ddlrun=$2
grep -q '"algorithm": "[^"]*segment=' "$plan" || { echo "$plan names no segmented algorithm"; exit 1; }
out=$("${mpirun[@]}" -np 4 "$ddlrun" --algo auto --plan "$plan" -b 8 -e 16M -f 8 -c 1 -n 1 -w 0 \
  --format csv)
/usr/bin/python3 - "$out" "$plan" <<'PY'
import csv, json, sys
rows = list(csv.DictReader(l for l in sys.argv[1].splitlines() if not l.startswith("#")))
entries = json.load(open(sys.argv[2]))["entries"]
assert len(rows) == 8, rows
for r in rows:
    assert r["algo"] == "auto" and r["wrong"] == "0", r
    size = int(r["size"])
    named = [e["algorithm"] for e in entries if e["min_bytes"] <= size <= e["max_bytes"]]
    assert [r["chosen"]] == named, (size, r["chosen"], named)
print("8 sizes exact under the plan, each running the plan's algorithm")
PY
