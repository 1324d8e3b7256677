#!/usr/bin/env bash
# Which link rates can the emulated cluster stand for on this machine: where the tbf shaper, not
# the cores, sets the pace. For each rate, on configuration b of cluster_vs_sim.sh (4 nodes x 2
# ranks, 2 leaves of 2, uplink = NIC, so oversubscribed 2:1):
#   - tcp: 4 bulk TCP flows at once between nodes of one leaf (one out of and one into every
#     NIC, none across the uplinks, so each may reach the full NIC rate), blocking sockets (no MPI
#     polling): their goodput and the machine's CPU time per second of transfer (user + system +
#     softirq, in cores, and as a share of the 2): the CPU share of TCP at that rate;
#   - ddlrun ring and ddl (dims 2x2x2) at 16 MB, median of 3: when the network sets the pace,
#     time scales with 1 / rate.
#   experiments/cluster_rates.sh          # writes rates.csv into a new experiments/runs/cluster_rates-<time>/
#   UPDATE_RESULTS=1 experiments/cluster_rates.sh   # into the committed experiments/results/cluster_vs_sim/
# Environment: BUILD (default build), RATES (default "200mbit 500mbit 1gbit 2gbit"), OUT (any
# folder instead; experiments/README.md).
set -euo pipefail
cd "$(dirname "$0")/.."
. experiments/lib.sh
BUILD=${BUILD:-build}
RATES=${RATES:-200mbit 500mbit 1gbit 2gbit}
export DDLCLUSTER_PREFIX=${DDLCLUSTER_PREFIX:-ddlr}
CLUSTER=cluster/ddlcluster
[ "$(id -u)" = 0 ] || { echo "cluster_rates.sh: must run as root" >&2; exit 1; }
[ -x "$BUILD/bin/ddlrun" ] || { echo "cluster_rates.sh: $BUILD/bin/ddlrun is missing: build it first" >&2; exit 1; }
results_dir cluster_rates experiments/results/cluster_vs_sim
trap '"$CLUSTER" down > /dev/null 2>&1 || true' EXIT
cpu() { awk '/^cpu / { print $2 + $3 + $4 + $8 }' /proc/stat; }  # busy jiffies: user nice system softirq
hz=$(getconf CLK_TCK)
BYTES=$((64 << 20))
# A TCP sink (prints nothing) and source (sends BYTES, prints nothing) in the standard library.
SINK='import socket,sys
s=socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); s.bind(("0.0.0.0", int(sys.argv[1]))); s.listen(1)
c,_=s.accept()
while c.recv(1 << 20): pass'
SOURCE='import socket,sys,time
c=socket.create_connection((sys.argv[1], int(sys.argv[2]))); buf=bytes(1 << 20); n=int(sys.argv[3])
for _ in range(n >> 20): c.sendall(buf)
c.close()'
echo "rate,rate_bytes_s,tcp_flows,tcp_goodput_bytes_s_per_flow,tcp_goodput_of_rate,tcp_cpu_cores,tcp_cpu_share_of_2_cores,ring_16M_us,ddl_16M_us" > "$OUT/rates.csv"
for rate in $RATES; do
  "$CLUSTER" up --nodes 4 --ranks-per-node 2 --nodes-per-leaf 2 --nic "$rate" --uplink "$rate" > /dev/null
  bytes_s=$(awk -F= '/^nic_bytes_per_s=/ { print $2 }' "/run/ddlcluster/$DDLCLUSTER_PREFIX/config")
  # Flows n0->n1, n1->n0, n2->n3, n3->n2: every NIC carries one each way, no uplink any.
  pids=()
  for pair in 0:1 1:0 2:3 3:2; do
    ip netns exec "$DDLCLUSTER_PREFIX-n${pair#*:}" python3 -c "$SINK" $((5000 + ${pair%:*})) &
    pids+=($!)
  done
  sleep 0.5
  b=$(cpu)
  t0=$(date +%s.%N)
  src=()
  for pair in 0:1 1:0 2:3 3:2; do
    dst=$(awk -v n="$DDLCLUSTER_PREFIX-n${pair#*:}" '$2 == n { print $1 }' "/run/ddlcluster/$DDLCLUSTER_PREFIX/hosts")
    ip netns exec "$DDLCLUSTER_PREFIX-n${pair%:*}" python3 -c "$SOURCE" "$dst" $((5000 + ${pair%:*})) "$BYTES" &
    src+=($!)
  done
  wait "${src[@]}"
  t1=$(date +%s.%N)
  a=$(cpu)
  wait "${pids[@]}"
  med() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
  times=()
  for algo in ring ddl; do
    times+=("$(for _ in 1 2 3; do
      "$CLUSTER" run -- -np 8 "$BUILD/bin/ddlrun" --algo "$algo" --dims 2x2x2 -b 16M -e 16M -n 3 -w 1 --format csv \
        --timeout 300 | awk -F, '/^[0-9]/ { print $7 }'
    done | med)")
  done
  awk -v r="$rate" -v bs="$bytes_s" -v n="$BYTES" -v t0="$t0" -v t1="$t1" -v b="$b" -v a="$a" -v hz="$hz" \
    -v ring="${times[0]}" -v ddl="${times[1]}" 'BEGIN { w = t1 - t0; g = n / w; c = (a - b) / hz / w
      printf "%s,%d,4,%.0f,%.3f,%.3f,%.3f,%s,%s\n", r, bs, g, g / bs, c, c / 2, ring, ddl }' | tee -a "$OUT/rates.csv"
  "$CLUSTER" down > /dev/null
done
