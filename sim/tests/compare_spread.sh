#!/bin/sh
# compare_spread.sh ROWS RANKS DDLSIM MPIRUN... -- ARGS...: runs `DDLSIM ARGS` in one process and
# `MPIRUN -np RANKS DDLSIM ARGS` (the sweep spread over the ranks) and passes when both exit 0,
# their stdout is the same and it holds ROWS result rows (table, csv: the lines that start with a
# number; json: "algo" keys), so two empty outputs cannot pass.
# "The same": byte for byte for table and csv. json prints every double in full (17 digits), and
# there a case's time differs in its last digit or two: one process runs the cases one after the
# other on one simulated clock, a rank starts its share at its own first case, and a time is
# end - start on that clock. So json is compared field by field: strings and integers exactly,
# floats to 1e-12 relative (the differences seen in the tests' sweep are about 1e-15; larger
# sweeps can differ by SimGrid's timing precision, sim/README.md).
set -eu
rows=$1 ranks=$2 ddlsim=$3
shift 3
mpirun=
while [ "$1" != "--" ]; do
  mpirun="$mpirun $1"
  shift
done
shift
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$ddlsim" "$@" >"$tmp/one"
# shellcheck disable=SC2086 # the mpirun prefix is several words
$mpirun -np "$ranks" "$ddlsim" "$@" >"$tmp/spread"
same() {
  if grep -q '"algo"' "$tmp/one"; then
    /usr/bin/python3 - "$tmp/one" "$tmp/spread" <<'PY'
import json, math, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
def same(x, y):
    if isinstance(x, float) or isinstance(y, float):
        return isinstance(x, (int, float)) and isinstance(y, (int, float)) and math.isclose(x, y, rel_tol=1e-12)
    if isinstance(x, dict):
        return isinstance(y, dict) and x.keys() == y.keys() and all(same(x[k], y[k]) for k in x)
    if isinstance(x, list):
        return isinstance(y, list) and len(x) == len(y) and all(map(same, x, y))
    return x == y
sys.exit(0 if same(a, b) else 1)
PY
  else
    cmp -s "$tmp/one" "$tmp/spread"
  fi
}
if ! same; then
  echo "one process and $ranks ranks differ:"
  diff "$tmp/one" "$tmp/spread" || true
  exit 1
fi
found=$(grep -c '"algo"' "$tmp/one" || true)
if [ "$found" -eq 0 ]; then
  found=$(grep -c '^ *[0-9]' "$tmp/one" || true)
fi
if [ "$found" -ne "$rows" ]; then
  cat "$tmp/one"
  echo "expected $rows rows, found $found"
  exit 1
fi
echo "$ranks ranks: the same $rows rows as one process"
