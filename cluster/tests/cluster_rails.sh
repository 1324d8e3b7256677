#!/usr/bin/env bash
# cluster_rails.sh DDLRUN CHECK_EXACT_ROWS: an emulated cluster with two NICs per node on two rails
# (ddlcluster up --nics 2): 2 nodes x 2 ranks, both nodes under one leaf per rail. Checks that
# status shows each node's two NICs on rails 0 and 1 with their source routes; that the cluster
# routes only between its rails (ip_forward in the fabric alone, no default route anywhere);
# that ring and ring:channels=2 are exact across it; and that each rank uses only the NIC of its
# node-local rank, read from the NICs' byte counters around two 64 MB runs:
# - ring:channels=2 on 2x2: channel c enters every node at local rank c and leaves it from local
#   rank 1-c, so each node's two NICs send one channel each, half of what the node sends;
# - a flat ring (--dims 4, ranks 0,1 | 2,3): the steps between nodes are 1 -> 2 and 3 -> 0, local
#   rank 1 to local rank 0, so each node sends only through nic1 (to the other node's nic0, across
#   the rails through the spine) and receives only through nic0.
# Then down, and nothing of the prefix is left; killed midway (INT or TERM), its trap brings the
# cluster down too.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
export DDLCLUSTER_PREFIX=ddlcr
skip_unless_possible "$DDLCLUSTER_PREFIX"
cluster=$here/../ddlcluster
ddlrun=$1
exact=$2
tmp=$(mktemp -d)
job=""
cleanup() {
  "$cluster" down > /dev/null 2>&1  # also kills mpirun and the ranks of a run under way
  if [ -n "$job" ]; then
    kill "$job" 2> /dev/null
    wait "$job" 2> /dev/null
  fi
  rm -rf "$tmp"
}
trap 'status=$?; trap - EXIT INT TERM; cleanup; exit $status' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# Runs a command in the background into a file and waits for it: a signal to the test then stops
# the wait at once (a foreground command would hold the trap until it ended).
waited() {  # output-file command...
  local out=$1 rc
  shift
  "$@" > "$out" 2>&1 &
  job=$!
  wait "$job"
  rc=$?
  job=""
  return $rc
}

forward_before=$(sysctl -n net.ipv4.ip_forward)
"$cluster" up --nodes 2 --ranks-per-node 2 --nodes-per-leaf 2 --nics 2 --nic 1gbit --uplink 1gbit \
  --subnet 10.214.90.0/24 || fail "up --nics 2 failed"
st=$("$cluster" status) || fail "status says not up"
printf '%s\n' "$st"
grep -q "^prefix ddlcr: 2 nodes x 2 ranks, 2 NICs per node on 2 rails, .*subnets 10.214.90.0/24,10.214.91.0/24," \
  <<< "$st" || fail "status does not show 2 NICs per node on 2 rails"
grep -q "^head: ddlcr-fabric 10.214.90.1/24 (rail 0), routing between the rails: ip_forward 1$" <<< "$st" ||
  fail "status: the head is not on rail 0 or the fabric does not route"
for n in 0 1; do
  for k in 0 1; do
    a=10.214.9$k.$((n + 2))
    grep -qx "node ddlcr-n$n nic$k: rail $k, leaf$k, $a/24, egress 1Gbit, source route: from $a table 10$k" <<< "$st" ||
      fail "status does not show node $n's nic$k on rail $k at $a with its source route"
  done
done
# Containment: routing only inside the fabric, no default route in any table of any namespace.
for ns in ddlcr-fabric ddlcr-n0 ddlcr-n1; do
  [ -z "$(ip -n "$ns" route show table all default)" ] || fail "$ns has a default route"
done
for n in 0 1; do
  [ "$(ip netns exec "ddlcr-n$n" sysctl -n net.ipv4.ip_forward)" = 0 ] || fail "node $n forwards"
  [ "$(ip netns exec "ddlcr-n$n" sysctl -n net.ipv4.conf.all.rp_filter)" = 0 ] || fail "node $n filters reverse paths"
done
[ "$(sysctl -n net.ipv4.ip_forward)" = "$forward_before" ] || fail "up changed the machine's own ip_forward"
# The nominal platform has the rails: rank 1 (node 0, NIC 1) to rank 2 (node 1, NIC 0) crosses
# rail 1's leaf uplink up and rail 0's down.
"$cluster" platform -o "$tmp/platform.xml" || fail "platform failed"
route='<link_ctn id="n0-nic1" direction="UP"/><link_ctn id="leaf1-up" direction="UP"/>'
route+='<link_ctn id="leaf0-up" direction="DOWN"/><link_ctn id="n1-nic0" direction="DOWN"/>'
grep -qF "<route src=\"gpu1\" dst=\"gpu2\" symmetrical=\"NO\">$route</route>" "$tmp/platform.xml" || fail "the platform's route from rank 1 to rank 2 is not across the rails"
# The binding as the ranks see it: local rank k gets NIC k only.
waited "$tmp/binding" "$cluster" run -- -np 4 \
  sh -c 'echo "$(hostname) $OMPI_COMM_WORLD_LOCAL_RANK $OMPI_MCA_btl_tcp_if_include"' || fail "the binding run failed: $(cat "$tmp/binding")"
[ "$(sort "$tmp/binding")" = "$(printf 'ddlcr-n0 0 nic0\nddlcr-n0 1 nic1\nddlcr-n1 0 nic0\nddlcr-n1 1 nic1')" ] ||
  fail "ranks' TCP interfaces: $(cat "$tmp/binding")"

# Exact across the rails: ring and ring:channels=2, 5 sizes each.
waited "$tmp/exact" "$exact" 10 "$cluster" run -- -np 4 "$ddlrun" --algo ring,ring:channels=2 -b 4 -e 4M -f 32 \
  -n 1 -w 0 --check --format csv --timeout 60
status=$?
cat "$tmp/exact"
[ "$status" = 0 ] || fail "the exactness run across the rails failed"
[ "$(grep -c ',2x2,' "$tmp/exact")" -ge 10 ] || fail "ranks were not 2 per node on 2 nodes (dims column)"

# Bytes per NIC: counters of node n's nic k, direction d (tx or rx).
declare -A before after
count() {  # into-array
  local -n into=$1
  local n k d
  for n in 0 1; do
    for k in 0 1; do
      for d in tx rx; do
        into[$n,$k,$d]=$(ip netns exec ddlcr-n$n cat "/sys/class/net/nic$k/statistics/${d}_bytes")
      done
    done
  done
}
delta() { echo $((after[$1,$2,$3] - before[$1,$2,$3])); }
# What each node sends to the other in 3 allreduces of 64 MiB on 4 ranks, 2 per node: the ring's
# 2 (p-1)/p of the buffer per step between nodes, one such step leaving each node per ring.
expect=$((3 * 3 * 67108864 / 2))
show() {  # what
  local n k
  echo "$1 (each node sends $expect B of data to the other):"
  for n in 0 1; do
    for k in 0 1; do
      echo "  node $n nic$k: tx $(delta $n $k tx) B, rx $(delta $n $k rx) B"
    done
  done
}
# between value low-percent high-percent (of $expect)
between() { [ $(($1 * 100)) -ge $((expect * $2)) ] && [ $(($1 * 100)) -le $((expect * $3)) ]; }

count before
waited "$tmp/channels" "$cluster" run -- -np 4 "$ddlrun" --algo ring:channels=2 -b 64M -e 64M -n 3 -w 0 \
  --timeout 60 --format csv || fail "the ring:channels=2 run failed: $(cat "$tmp/channels")"
count after
show "ring:channels=2"
# Each NIC sends one channel, half of the node's bytes (10 % slack: headers, control, retransmits).
for n in 0 1; do
  for k in 0 1; do
    between "$(delta $n $k tx)" 45 55 || fail "ring:channels=2: node $n nic$k sent $(delta $n $k tx) B, not half of $expect"
  done
done

count before
waited "$tmp/flat" "$cluster" run -- -np 4 "$ddlrun" --algo ring --dims 4 -b 64M -e 64M -n 3 -w 0 \
  --timeout 60 --format csv || fail "the flat ring run failed: $(cat "$tmp/flat")"
count after
show "flat ring (--dims 4)"
# Out through nic1 (local rank 1) only, in through nic0 (local rank 0) only: nic0's sends and
# nic1's receipts are the other direction's TCP acknowledgements and control, under 2 %.
for n in 0 1; do
  between "$(delta $n 1 tx)" 90 110 || fail "flat ring: node $n nic1 sent $(delta $n 1 tx) B, not the ring's $expect"
  between "$(delta $n 0 rx)" 90 110 || fail "flat ring: node $n nic0 received $(delta $n 0 rx) B, not the ring's $expect"
  between "$(delta $n 0 tx)" 0 2 || fail "flat ring: node $n nic0 sent $(delta $n 0 tx) B: a rank left through the wrong NIC"
  between "$(delta $n 1 rx)" 0 2 || fail "flat ring: node $n nic1 received $(delta $n 1 rx) B: a rank was reached through the wrong NIC"
done

"$cluster" down || fail "down failed"
assert_nothing_left "$DDLCLUSTER_PREFIX"
echo "cluster rails check passed"
