#!/usr/bin/env bash
# cluster_teardown.sh DDLRUN: `down` leaves no namespace, bridge, veth, file or process behind,
# also after a run was killed (mpirun killed -9 while its ranks are moving data), after an `up`
# interrupted half-way (its trap removes what it made), and `up` over a stale cluster rebuilds
# it; the same for an interrupted `up --nics 2` (rails: policy routes, rail bridges, a veth per
# NIC). Also: refusals (not root, bad arguments) are one message and a non-zero exit.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
export DDLCLUSTER_PREFIX=ddlct2
skip_unless_possible "$DDLCLUSTER_PREFIX"
cluster=$here/../ddlcluster
trap '"$cluster" down > /dev/null 2>&1' EXIT
up() { "$cluster" up --nodes 2 --ranks-per-node 1 --nodes-per-leaf 2 --nic 100mbit --uplink 100mbit \
  --subnet 10.213.79.0/24 > /dev/null || fail "up failed"; }

# 1. A killed run: 64 MB allreduces at 100 Mbit/s take seconds each, so the ranks are mid-transfer.
up
"$cluster" run -- -np 2 "$1" --algo ring -b 64M -e 64M -n 50 -w 0 --timeout 60 > /dev/null 2>&1 &
run=$!
for _ in $(seq 100); do
  [ -n "$(ip netns pids ddlct2-n1 2> /dev/null)" ] && break
  sleep 0.1
done
[ -n "$(ip netns pids ddlct2-n1)" ] || fail "no rank started in node 1"
sleep 1
kill -9 "$run"
wait "$run" 2> /dev/null
[ -n "$(ip netns pids ddlct2-n1)" ] || echo "note: the ranks exited with mpirun"
"$cluster" down > /dev/null || fail "down after a killed run failed"
assert_nothing_left ddlct2
! pgrep -f "ddlrun --algo ring -b 64M" > /dev/null || fail "ranks still running after down"

# 2. up over a stale cluster (a killed session left one): rebuilt, still one of each.
up
ip netns del ddlct2-n1  # a half-removed leftover
up
[ "$(ip netns list | grep -c '^ddlct2-')" = 3 ] || fail "up over a stale cluster: $(ip netns list)"
"$cluster" down > /dev/null

# 3. up interrupted half-way: its trap removes what it had made. interrupted_up TRIES WHAT
# ARGS...: starts up with ARGS, waits (TRIES x 50 ms at most) until node 3 exists, stops it with
# TERM, and checks it failed and left nothing.
interrupted_up() {
  local tries=$1 what=$2
  shift 2
  "$cluster" up "$@" > /dev/null 2>&1 &
  pid=$!
  for _ in $(seq "$tries"); do
    ip netns list | grep -q '^ddlct2-n3' && break
    sleep 0.05
  done
  kill -TERM "$pid"
  wait "$pid"
  status=$?
  [ "$status" != 0 ] || fail "an interrupted $what exited 0"
  assert_nothing_left ddlct2
  "$cluster" status > /dev/null && fail "status says up after an interrupted $what"
}
interrupted_up 100 up --nodes 40 --ranks-per-node 1 --nodes-per-leaf 4 --nic 100mbit --uplink 100mbit \
  --subnet 10.213.79.0/24
# 3b. The same with rails (2 NICs per node, rails on 10.213.79 and 10.213.80): interrupted while
# it builds the nodes' NICs and source routes, it removes them all. The rails' leaves and
# uplinks come first: more to build before node 3, so twice the wait.
interrupted_up 200 "up --nics 2" --nodes 40 --ranks-per-node 2 --nodes-per-leaf 4 --nics 2 --nic 100mbit \
  --uplink 100mbit --subnet 10.213.79.0/24

# 4. Refusals: one message naming the problem, non-zero exit, nothing made.
expect() {  # message command...
  local msg=$1
  shift
  out=$("$@" 2>&1) && fail "'$*' exited 0"
  grep -qF -- "$msg" <<< "$out" || fail "'$*' said '$out', expected '$msg'"
  [ "$(grep -c . <<< "$out")" = 1 ] || fail "'$*' said more than one line: $out"
}
# The unprivileged user runs a copy it can read: the clone's own directory may be private (a clone
# under /root or in `mktemp -d` is 0700, and nobody could not even open the script there).
public=$(mktemp -d)
trap '"$cluster" down > /dev/null 2>&1; rm -rf "$public"' EXIT
chmod 755 "$public"
install -m 755 "$cluster" "$public/ddlcluster"
expect "must run as root" setpriv --reuid 65534 --regid 65534 --clear-groups "$public/ddlcluster" up \
  --nodes 2 --ranks-per-node 1 --nodes-per-leaf 1 --nic 1gbit --uplink 1gbit
rm -rf "$public"
expect "--nic must be a rate" "$cluster" up --nodes 2 --ranks-per-node 1 --nodes-per-leaf 1 --nic 1gbps --uplink 1gbit
expect "is not a multiple of --nodes-per-leaf 2" "$cluster" up --nodes 3 --ranks-per-node 1 --nodes-per-leaf 2 \
  --nic 1gbit --uplink 1gbit
expect "--eager must be between 65536 and 1073741824 bytes, got 4096" "$cluster" up --nodes 2 \
  --ranks-per-node 1 --nodes-per-leaf 1 --nic 1gbit --uplink 1gbit --eager 4096
expect "--nics must be at most 16, got 17" "$cluster" up --nodes 2 --ranks-per-node 1 --nodes-per-leaf 1 \
  --nic 1gbit --uplink 1gbit --nics 17
expect "--subnet 10.1.255.0/24 with --nics 2 needs the /24s 10.1.255 .. 10.1.256, past .255" "$cluster" up \
  --nodes 2 --ranks-per-node 1 --nodes-per-leaf 1 --nic 1gbit --uplink 1gbit --nics 2 --subnet 10.1.255.0/24
expect "--subnet must be a private /24" "$cluster" up --nodes 2 --ranks-per-node 1 --nodes-per-leaf 1 \
  --nic 1gbit --uplink 1gbit --subnet 192.0.2.0/24
expect "up needs --uplink" "$cluster" up --nodes 2 --ranks-per-node 1 --nodes-per-leaf 1 --nic 1gbit
expect "no cluster with prefix 'ddlct2' is up" "$cluster" run -- -np 2 true
expect "DDLCLUSTER_PREFIX must be" env DDLCLUSTER_PREFIX=Bad_Prefix "$cluster" status
assert_nothing_left ddlct2
trap - EXIT
echo "cluster teardown check passed"
