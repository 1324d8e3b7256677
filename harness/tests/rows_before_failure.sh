#!/bin/sh
# rows_before_failure.sh ROWS REGEX COMMAND...: runs COMMAND (a ddlsim or ddlrun sweep with
# --format csv, one of whose later cases fails) and passes when it exits non-zero, its stderr
# matches the extended regular expression REGEX, and its stdout holds the csv header and exactly
# ROWS rows: those finished before the failure, printed as they finished.
rows=$1 pattern=$2
shift 2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$@" >"$tmp/out" 2>"$tmp/err"
status=$?
fail() {
  cat "$tmp/out" "$tmp/err"
  echo "FAILED: $1"
  exit 1
}
[ "$status" -ne 0 ] || fail "expected a non-zero exit status, got 0"
grep -Eq -- "$pattern" "$tmp/err" || fail "no line of stderr matches: $pattern"
grep -q '^size,count,type,redop,algo,' "$tmp/out" || fail "no csv header on stdout"
found=$(grep -c '^[0-9]' "$tmp/out")
[ "$found" -eq "$rows" ] || fail "$found rows printed before the failure, expected $rows"
echo "exit status $status, and the $found row(s) finished before the failure were printed"
