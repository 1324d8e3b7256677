#!/bin/sh
# check_exact_rows.sh MIN_ROWS COMMAND...: runs COMMAND (ddlrun ... --check --format csv under
# mpirun) and passes when it exits 0 and prints a csv header with a `wrong` column, then at
# least MIN_ROWS rows, every one with wrong = 0. So an empty or cut-short output fails too, not
# only a wrong result.
min_rows=$1
shift
output=$("$@" 2>&1)
status=$?
printf '%s\n' "$output"
if [ "$status" -ne 0 ]; then
  echo "exit status $status"
  exit 1
fi
printf '%s\n' "$output" | awk -F, -v min_rows="$min_rows" '
  function fail(why) { print "check failed: " why; bad = 1; exit 1 }
  /^size,/ { for (i = 1; i <= NF; ++i) if ($i == "wrong") col = i; if (!col) fail("no wrong column"); next }
  col && /^[0-9]/ { ++rows; if ($col != "0") fail("row " rows " (" $0 "): wrong = \"" $col "\", expected 0") }
  END {
    if (bad) exit 1
    if (!col) fail("no csv header")
    if (rows < min_rows) fail(rows " rows, expected at least " min_rows)
    print "check passed: " rows " rows, all exact"
  }'
