#!/bin/sh
# run_bad_inputs.sh TABLE FIXTURES TOOL=COMMAND...: the table of bad inputs (bad_inputs.txt) run
# against the tools given. Each row "tool | exit | arguments | message" passes when
# `COMMAND arguments` exits with exactly that status and its output (stdout and stderr) holds the
# message on exactly one line (said once, by one rank). Rows of tools not given are skipped.
# @TMP@ in a row is a fresh copy of FIXTURES (so a broken same-file check cannot destroy a
# committed fixture), plus the generated dir.csv/ (a directory), deep.xml (500 nested zones),
# fifo.csv and fifo.json (named pipes) and zero.csv (a link to /dev/zero). A row's arguments may
# redirect standard output (> /dev/full: a full disk).
table=$1 fixtures=$2
shift 2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp "$fixtures"/* "$tmp"/
mkdir "$tmp/dir.csv"
mkfifo "$tmp/fifo.csv" "$tmp/fifo.json"  # inputs that would block a reader forever
ln -s /dev/zero "$tmp/zero.csv"          # and one that never ends
{
  echo '<?xml version="1.0"?>'
  echo '<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">'
  echo '<platform version="4.1">'
  i=0
  while [ $i -lt 500 ]; do echo "<zone id=\"z$i\" routing=\"Full\">"; i=$((i + 1)); done
  echo '<host id="h" speed="1f"/>'
  while [ $i -gt 0 ]; do echo '</zone>'; i=$((i - 1)); done
  echo '</platform>'
} > "$tmp/deep.xml"

failures=0 runs=0
while IFS= read -r row; do
  case $row in '' | '#'*) continue ;; esac
  tool=$(printf '%s' "$row" | awk -F' [|] ' '{print $1}')
  want=$(printf '%s' "$row" | awk -F' [|] ' '{print $2}')
  args=$(printf '%s' "$row" | awk -F' [|] ' '{print $3}' | sed "s|@TMP@|$tmp|g")
  message=$(printf '%s' "$row" | awk -F' [|] ' '{print $4}' | sed "s|@TMP@|$tmp|g")
  cmd=
  for spec in "$@"; do
    case $spec in "$tool="*) cmd=${spec#*=} ;; esac
  done
  [ -n "$cmd" ] || continue
  runs=$((runs + 1))
  output=$(eval "timeout -s KILL 20 $cmd $args" < /dev/null 2>&1)  # mpirun would eat the table
  status=$?
  # Once: a message from every rank (not only rank 0) is a failure too.
  said=$(printf '%s\n' "$output" | grep -cF -- "$message")
  if [ "$status" != "$want" ] || [ "$said" -ne 1 ]; then
    printf 'FAILED: %s %s\n  expected exit %s and once: %s\n  got exit %s and (%s times):\n%s\n\n' "$tool" \
      "$args" "$want" "$message" "$status" "$said" "$(printf '%s' "$output" | sed 's/^/    /')"
    failures=$((failures + 1))
  fi
done < "$table"
[ "$runs" -gt 0 ] || { echo "no row of $table was run"; exit 1; }
echo "$runs bad inputs, $failures failed"
[ "$failures" -eq 0 ]
