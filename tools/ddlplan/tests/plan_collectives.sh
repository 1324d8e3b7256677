#!/usr/bin/env bash
# ddlplan --coll plans each other collective from that collective's algorithms: the plan file
# names the collective, every entry is one of its algorithms, and ddlsim --coll X --algo auto
# --plan replays it exactly (payload mode) in the very times ddlplan recorded. A plan of one
# collective given to another's auto is refused, naming both.
# Usage: plan_collectives.sh DDLPLAN DDLSIM PLATFORM
set -euo pipefail
ddlplan=$1 ddlsim=$2 platform=$3
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
for coll in reducescatter allgather alltoall broadcast; do
  "$ddlplan" --platform "$platform" --coll "$coll" -b 8 -e 2M -f 8 --confirm 2 --jobs 2 \
    --out "$dir/$coll.json" 2> "$dir/progress.txt" || { cat "$dir/progress.txt"; exit 1; }
  "$ddlplan" --platform "$platform" --coll "$coll" --list > "$dir/$coll.space"
  "$ddlsim" --platform "$platform" --coll "$coll" --algo auto --plan "$dir/$coll.json" \
    -b 8 -e 2M -f 8 --check --format csv > "$dir/$coll.csv"
  /usr/bin/python3 - "$dir" "$coll" <<'PY'
import csv, json, sys
d, coll = sys.argv[1], sys.argv[2]
name = {"reducescatter": "reduce_scatter"}.get(coll, coll)
plan = json.load(open(f"{d}/{coll}.json"))
assert plan["collective"] == name, plan["collective"]
space = [l.strip() for l in open(f"{d}/{coll}.space")]
own = (name, name + "_")  # the collective's algorithms: its name, or its name and a suffix
assert space and all(s.split(":")[0] == name or s.startswith(own[1]) for s in space), space
for e in plan["entries"]:
    assert e["algorithm"].split(":")[0] in {s.split(":")[0] for s in space}, e
ev = {e["bytes"]: e for e in plan["evidence"]}
rows = list(csv.DictReader(l for l in open(f"{d}/{coll}.csv") if not l.startswith("#")))
assert len(rows) == len(ev) == 7, (len(rows), len(ev))
for r in rows:
    e = ev[int(r["size"])]
    got, want = float(r["time_us"]), e["simulated_us"]
    assert abs(got - want) <= 1e-6 * want, (coll, r["size"], got, want, e["algorithm"])
    assert r["wrong"] == "0", r
print(coll, ": plan of", len(plan["entries"]), "entries over", len(space),
      "candidates replayed exactly:", [e["algorithm"] for e in plan["entries"]])
PY
done
if "$ddlsim" --platform "$platform" --algo auto --plan "$dir/alltoall.json" 2> "$dir/err.txt" ||
    ! grep -q "plan file '$dir/alltoall.json' is a plan for alltoall, and auto performs allreduce (make one with ddlplan --coll allreduce)" "$dir/err.txt"; then
  echo "an all-to-all plan given to the allreduce's auto was not refused:"; cat "$dir/err.txt"
  exit 1
fi
