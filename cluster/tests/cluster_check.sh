#!/usr/bin/env bash
# cluster_check.sh DDLRUN CHECK_EXACT_ROWS: brings up a 2-node emulated cluster with the nodes
# on different leaves (so messages cross NICs, uplinks and the spine), checks that a run gets
# the TCP eager limit given to up, runs every algorithm on 4 ranks with --check across it
# (exact, every row), checks that the ranks did run 2 per node, tears it down and checks
# nothing is left.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
export DDLCLUSTER_PREFIX=ddlct1
skip_unless_possible "$DDLCLUSTER_PREFIX"
cluster=$here/../ddlcluster
trap '"$cluster" down > /dev/null 2>&1' EXIT
"$cluster" up --nodes 2 --ranks-per-node 2 --nodes-per-leaf 1 --nic 1gbit --uplink 1gbit \
  --subnet 10.213.78.0/24 --eager 1048576 || fail "up failed"
st=$("$cluster" status) || fail "status says not up"
printf '%s\n' "$st"
grep -q "TCP eager limit 1048576 B" <<< "$st" || fail "status does not show the eager limit given to up"
# What a launched process sees is the limit given to up (ompi_info reads the same parameters).
seen=$("$cluster" run -- -np 1 ompi_info --parsable --param btl tcp --level 9 |
  grep -E '^mca:btl:tcp:param:btl_tcp_(eager_limit|rndv_eager_limit|max_send_size):value:' | sort)
[ "$seen" = "$(printf 'mca:btl:tcp:param:btl_tcp_eager_limit:value:1048576
mca:btl:tcp:param:btl_tcp_max_send_size:value:1048576
mca:btl:tcp:param:btl_tcp_rndv_eager_limit:value:1048576')" ] || fail "the run's TCP limits: $seen"
[ "$("$cluster" hostfile)" = "$(printf 'ddlct1-n0 slots=2\nddlct1-n1 slots=2')" ] || fail "hostfile: $("$cluster" hostfile)"
out=$("$2" 25 "$cluster" run -- -np 4 "$1" --algo all -b 4 -e 4M -f 32 -n 1 -w 0 --check \
  --format csv --timeout 60 2>&1)
status=$?
printf '%s\n' "$out"
[ "$status" = 0 ] || fail "the run across the cluster failed"
# Without --dims, ddlrun's grid is the layout MPI found: 2 ranks per node x 2 nodes (namespaces
# with their own hostnames), where one shared-memory node would give the flat grid 4.
[ "$(grep -c ',2x2,' <<< "$out")" -ge 25 ] || fail "ranks were not 2 per node on 2 nodes (dims column)"
# A cluster brought up by an older ddlcluster (no eager limit in its state file, which ddlcluster
# keeps in /run/ddlcluster/<prefix>/config): status says so, and run refuses rather than launch
# with Open MPI's default limit.
sed -i '/^tcp_eager_bytes=/d' "/run/ddlcluster/$DDLCLUSTER_PREFIX/config"
grep -q "TCP eager limit unknown (made by an older ddlcluster)" <<< "$("$cluster" status)" ||
  fail "status of an older cluster: $("$cluster" status)"
out=$("$cluster" run -- -np 1 true 2>&1) && fail "run on an older cluster exited 0"
[ "$out" = "ddlcluster: error: the cluster up was made by an older ddlcluster: run ddlcluster down, then up" ] ||
  fail "run on an older cluster said: $out"
"$cluster" down || fail "down failed"
trap - EXIT
assert_nothing_left "$DDLCLUSTER_PREFIX"
echo "cluster check passed"
