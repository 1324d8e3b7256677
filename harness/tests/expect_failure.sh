#!/bin/sh
# expect_failure.sh REGEX COMMAND...: passes when COMMAND exits non-zero AND its output
# (stdout and stderr) matches the extended regular expression REGEX. For the error paths of
# the MPI tools, where both the message and the exit status matter.
pattern=$1
shift
output=$("$@" 2>&1)
status=$?
if [ "$status" -eq 0 ]; then
  printf '%s\nexpected a non-zero exit status, got 0\n' "$output"
  exit 1
fi
if ! printf '%s\n' "$output" | grep -Eq -- "$pattern"; then
  printf '%s\nexit status %s, but the output does not match: %s\n' "$output" "$status" "$pattern"
  exit 1
fi
printf 'exit status %s and the expected message: %s\n' "$status" "$pattern"
