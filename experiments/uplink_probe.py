#!/usr/bin/env python3
"""Flows through the uplinks of an emulated cluster, timed alone (mpi4py): what the step of ddl,
rhd or ddl:rings=2 between two leaves sends, or what ring:channels=2 sends between rails, next
to what ddlcalibrate measures there.

    cluster/ddlcluster up --nodes 4 --ranks-per-node 2 --nodes-per-leaf 2 --nic 200mbit --uplink 200mbit
    cluster/ddlcluster run -- -np 8 /usr/bin/python3 experiments/uplink_probe.py --bytes 8388608
    cluster/ddlcluster up --nodes 2 --ranks-per-node 2 --nodes-per-leaf 2 --nics 2 --nic 500mbit --uplink 500mbit
    cluster/ddlcluster run -- -np 4 /usr/bin/python3 experiments/uplink_probe.py --rails 2 --poll

Two leaves (default): ranks 0..P/2-1 are leaf 0, the rest leaf 1 (node-major ranks, K nodes of
G ranks per leaf); rank r's peer is r + P/2 (mod P). Patterns:
  one      every rank of leaf 0 sends --bytes to its peer: P/2 flows one way through each uplink;
  both     every rank sends to its peer and receives from it: P/2 flows each way;
  crossed  rank 0 -> P/2 and P/2+1 -> 1 only: one flow each way (ddlcalibrate's uplink_crossed).
Rails (--rails G: G ranks per node, G NICs, the rank in slot s on rail s, one group; N nodes):
  one       slot 0 of node i -> slot 1 of node i+1, every i: N flows from rail 0 to rail 1, one
            way through each uplink (ddlcalibrate's uplink pattern on rails);
  both      the same and back: N flows each way (ddlcalibrate's uplink_bidirectional);
  rail_one  slot s of node 0 -> slot s of node 1, every s: one flow one way through each NIC, on
            its own rail (no uplink);
  rail_both the same and back: one flow each way through each NIC.
Each pattern is timed --reps times between barriers (median and every time printed by rank 0).
Waits sleep 0.5 ms between polls, which leaves the shared cores to the transfers; --poll polls
without sleeping, as ddlrun's and ddlcalibrate's ranks wait. Every wait is bounded by
--timeout: past it the rank names what it waited for and aborts the job.
"""
import argparse
import statistics
import sys
import time

import numpy as np
from mpi4py import MPI


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bytes", type=int, default=8 << 20, help="message size (default 8 MiB)")
    parser.add_argument("--reps", type=int, default=5, help="timed repetitions per pattern (default 5)")
    parser.add_argument("--timeout", type=float, default=300,
                        help="longest any wait may take, in seconds; then the job is aborted (default 300)")
    parser.add_argument("--rails", type=int, default=0, metavar="G",
                        help="rails: G ranks per node, each on its own NIC (default: two leaves)")
    parser.add_argument("--poll", action="store_true", help="poll without sleeping while waiting")
    args = parser.parse_args()
    comm = MPI.COMM_WORLD
    rank, size = comm.rank, comm.size
    if size < 4 or size % 2:
        if rank == 0:
            print(f"uplink_probe.py: needs an even number of ranks, at least 4, got {size}", file=sys.stderr)
        return 2
    if args.bytes < 1 or args.reps < 1 or not args.timeout > 0:
        if rank == 0:
            print("uplink_probe.py: --bytes, --reps and --timeout must be positive", file=sys.stderr)
        return 2
    if args.rails and (args.rails < 2 or size % args.rails or size // args.rails < 2):
        if rank == 0:
            print(f"uplink_probe.py: --rails {args.rails} needs at least 2 ranks per node and 2 nodes of that "
                  f"many ranks, got {size} ranks", file=sys.stderr)
        return 2
    half = size // 2
    g = args.rails
    nodes = size // g if g else 0
    if g:
        up = [(i * g, (i + 1) % nodes * g + 1) for i in range(nodes)]
        rail = [(s, g + s) for s in range(g)]
        flows = {"one": up, "both": up + [(b, a) for a, b in up],
                 "rail_one": rail, "rail_both": rail + [(b, a) for a, b in rail]}
    else:
        one = [(r, r + half) for r in range(half)]
        flows = {"one": one, "both": one + [(b, a) for a, b in one], "crossed": [(0, half), (half + 1, 1)]}
    send = np.ones(args.bytes, np.uint8)
    recv = [np.empty(args.bytes, np.uint8) for _ in range(2)]

    def wait(reqs, what):
        # Polled against a deadline: a rank that stops must not leave the others waiting forever.
        # The 0.5 ms sleeps leave the shared cores to the transfers (a busy Python loop of 8 ranks
        # on 2 cores slowed one flow each way of 1 MB from 48-60 to 84 ms).
        deadline = time.monotonic() + args.timeout
        while not MPI.Request.Testall(reqs):
            if not args.poll:
                time.sleep(0.0005)
            if time.monotonic() > deadline:
                print(f"uplink_probe.py: rank {rank} waited more than {args.timeout:g} s for {what}; aborting",
                      file=sys.stderr, flush=True)
                comm.Abort(3)

    def once(pattern):
        wait([comm.Ibarrier()], "the barrier before " + pattern)
        start = time.perf_counter()
        # A rank receives at most two flows of a pattern, one from each side.
        into = [a for a, b in flows[pattern] if b == rank]
        reqs = [comm.Irecv(recv[k], a) for k, a in enumerate(into)]
        reqs += [comm.Isend(send, b) for a, b in flows[pattern] if a == rank]
        wait(reqs, "the messages of " + pattern)
        wait([comm.Ibarrier()], "the barrier after " + pattern)
        return time.perf_counter() - start

    for pattern in flows:
        times = [once(pattern) * 1e3 for _ in range(args.reps)]
        if rank == 0:
            print(f"{pattern} {args.bytes} B: median {statistics.median(times):.1f} ms, all "
                  + " ".join(f"{t:.0f}" for t in times), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
