#!/bin/sh
# results_dir (experiments/lib.sh), through a fake experiment run in sh and in bash from a scratch
# root: run as it is, it writes into a new experiments/runs/<name>-<UTC time>/ and leaves the
# committed file as it was; UPDATE_RESULTS=1 writes the committed folder, OUT=DIR writes DIR; a
# bad UPDATE_RESULTS, or both, stop it with one message before anything is written. Then every
# experiment script sources lib.sh and calls results_dir, and none sets its folder to the
# committed results itself.
set -eu
experiments=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
failures=0
fail() {
  echo "FAILED: $*" >&2
  failures=$((failures + 1))
}
expect() {  # what got expected
  [ "$2" = "$3" ] || fail "$1: got '$2', expected '$3'"
}

# The fake experiment: its results folder from results_dir, one file written into it.
# shellcheck disable=SC2016 # its $OUT is expanded when it runs
{
  echo 'set -eu'
  echo ". '$experiments/lib.sh'"
  echo 'results_dir fake committed'
  echo 'echo new > "$OUT/result.txt"'
  echo 'echo "$OUT"'
} > fake.sh
reset() {  # the scratch root as a checkout has it: the committed result, no runs
  rm -rf "$work/committed" "$work/experiments" "$work/elsewhere"
  mkdir "$work/committed"
  echo tracked > "$work/committed/result.txt"
}

for shell in sh bash; do
  reset
  # As it is: a new run folder each time, even within one second; the committed file untouched.
  a=$(env -u OUT -u UPDATE_RESULTS "$shell" fake.sh 2> err) || fail "$shell: plain run failed: $(cat err)"
  b=$(env -u OUT -u UPDATE_RESULTS "$shell" fake.sh 2> /dev/null) || fail "$shell: second plain run failed"
  case $a in
    experiments/runs/fake-[0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9]T[0-9][0-9][0-9][0-9][0-9][0-9]Z*) ;;
    *) fail "$shell: run folder '$a' is not experiments/runs/fake-<UTC time>" ;;
  esac
  [ "$a" != "$b" ] || fail "$shell: two runs shared the folder $a"
  expect "$shell: stderr" "$(cat err)" \
    "fake: results go to $a (a new run folder; UPDATE_RESULTS=1 writes the committed results, committed)"
  expect "$shell: the run's file" "$(cat "$a/result.txt")" new
  expect "$shell: committed file after a plain run" "$(cat committed/result.txt)" tracked

  # UPDATE_RESULTS=1: the committed folder.
  out=$(env -u OUT UPDATE_RESULTS=1 "$shell" fake.sh 2> err) || fail "$shell: UPDATE_RESULTS=1 failed"
  expect "$shell: UPDATE_RESULTS=1 folder" "$out" committed
  expect "$shell: UPDATE_RESULTS=1 stderr" "$(cat err)" \
    "fake: results go to committed (the committed results (UPDATE_RESULTS=1))"
  expect "$shell: committed file after UPDATE_RESULTS=1" "$(cat committed/result.txt)" new

  # OUT=DIR: that folder, created.
  reset
  out=$(env -u UPDATE_RESULTS OUT=elsewhere/x "$shell" fake.sh 2> /dev/null) || fail "$shell: OUT failed"
  expect "$shell: OUT folder" "$out" elsewhere/x
  expect "$shell: OUT's file" "$(cat elsewhere/x/result.txt)" new
  expect "$shell: committed file after OUT" "$(cat committed/result.txt)" tracked

  # Bad choices: one message, exit 1, nothing written.
  reset
  status=0
  env -u OUT UPDATE_RESULTS=yes "$shell" fake.sh > /dev/null 2> err || status=$?
  expect "$shell: UPDATE_RESULTS=yes status" "$status" 1
  expect "$shell: UPDATE_RESULTS=yes stderr" "$(cat err)" \
    "fake: UPDATE_RESULTS must be 1 (write the committed results, committed) or 0, got 'yes'"
  status=0
  env OUT=x UPDATE_RESULTS=1 "$shell" fake.sh > /dev/null 2> err || status=$?
  expect "$shell: OUT and UPDATE_RESULTS status" "$status" 1
  expect "$shell: OUT and UPDATE_RESULTS stderr" "$(cat err)" \
    "fake: OUT=x and UPDATE_RESULTS=1 both say where the results go: give one"
  if [ -e experiments ] || [ -e x ]; then fail "$shell: a refused run created a folder"; fi
  expect "$shell: committed file after the refusals" "$(cat committed/result.txt)" tracked
done

# Every experiment script goes through results_dir; none names the committed folder as its own.
for script in $(cd "$experiments" && find . -name '*.sh' ! -name lib.sh ! -path './tests/*' | sort); do
  grep -q '^\. experiments/lib\.sh$' "$experiments/$script" || fail "$script does not source experiments/lib.sh"
  grep -Eq '^ *results_dir [a-z_]* experiments/' "$experiments/$script" || fail "$script does not call results_dir"
  if grep -Eq '^ *(OUT|out)=[^$]*experiments/(results|scaling)' "$experiments/$script"; then
    fail "$script sets its results folder to the committed one itself"
  fi
done

[ "$failures" = 0 ] || exit 1
echo "experiments/lib.sh: all checks passed"
