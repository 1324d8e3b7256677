#!/bin/sh
# trace_signal.sh DDLSIM PLATFORM: a traced sweep ended by SIGTERM or SIGINT (Ctrl-C) leaves
# neither its trace nor the hidden temporary file the trace is written to until it is complete
# (harness/output_file.hpp).
set -u
# A background job of a non-interactive shell starts with SIGINT ignored (and the shell has no
# job control without a terminal), so the run would ignore it and finish, status 0. Ctrl-C
# reaches a foreground run whose SIGINT has its default action: `env --default-signal=INT` starts
# this one so.
ddlsim=$1 platform=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for sig in TERM INT; do
  env --default-signal=INT "$ddlsim" --platform "$platform" --algo ring -b 64M -e 256M --trace "$tmp/t.csv" \
    >/dev/null 2>&1 &
  pid=$!
  # Wait (at most 60 s) until the temporary file is there: the run has started writing.
  i=0
  until ls -A "$tmp" | grep -q '^\.t\.csv\.tmp\.'; do
    i=$((i + 1))
    if [ $i -gt 600 ] || ! kill -0 $pid 2>/dev/null; then
      echo "SIG$sig: the traced run never opened its temporary file"
      kill -KILL $pid 2>/dev/null
      exit 1
    fi
    sleep 0.1
  done
  kill -s "$sig" $pid
  wait $pid
  status=$?
  left=$(ls -A "$tmp")
  if [ "$status" -eq 0 ] || [ -n "$left" ]; then
    echo "SIG$sig: exit status $status, left behind: ${left:-nothing}"
    exit 1
  fi
  echo "SIG$sig: exit status $status, nothing left behind"
done
