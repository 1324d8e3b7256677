"""The nominal platform of an emulated cluster (cluster/ddlcluster): network namespaces as nodes,
G ranks per node on shared memory, a shaped veth NIC per node to its leaf bridge, K nodes per
leaf, a shaped veth uplink per leaf to one spine bridge.

Layout (the names calibration writes too, so traces and plots line up; see README.md):
- host gpu<r> (ddl_rank r, ddl_node, ddl_leaf), rank r = node * G + slot, node = leaf * K + i;
- same node: gpu<a>-link UP, n<i>-shm (SHARED: the node's cores and memory), gpu<b>-link DOWN;
- same leaf: n<a>-nic UP, n<b>-nic DOWN (SPLITDUPLEX: tbf shapes each direction on its own);
- across leaves: n<a>-nic UP, leaf<x>-up UP, leaf<y>-up DOWN, n<b>-nic DOWN.
The bridges are not links: a Linux bridge forwards between its ports at memory speed, far above
the shaped rates. Rates are the tc rates; everything else is assumed, and calibration
(ddlcalibrate across the cluster) replaces it.

Rails (--nics M > 1, ddlcluster up --nics M): node i has M NICs n<i>-nic<k>, NIC k of every node
on rail k; the K nodes of group g have one leaf per rail, leaf g * M + k (the rail platforms'
numbering, cluster.py), and a rank of slot s uses NIC s mod M only (ddlcluster run binds it). So
between nodes rank r leaves through n<node>-nic<a>, a = slot mod M, and enters through the
destination's NIC of its own slot, b: NICs on one leaf (same rail and group) reach each other
directly (n<x>-nic<a> UP, n<y>-nic<b> DOWN); otherwise, across rails or groups, the route crosses
the spine: leaf<x>-up UP, leaf<y>-up DOWN between the NICs, where ddlcluster routes between the
rails' subnets in its fabric at memory speed (a non-blocking spine). Without NCCL's PXN (Open
MPI's TCP transport has none), a message between NICs of different rails takes the spine, not
the node's shared memory. Hosts' ddl_leaf is the leaf of their own NIC.
"""
import re

from limits import MAX_EMULATED_RANKS, out_of_range, too_big
from platform_xml import begin, bw, finish, lat, num

RATE = re.compile(r"^([0-9]+(?:\.[0-9]+)?)(k|m|g)bit$")


def tc_rate(text, flag):
    """A tc rate as ddlcluster takes it ('500mbit') -> bytes/s."""
    m = RATE.match(text)
    if not m:
        raise ValueError(f"{flag}: rate must be a number and kbit, mbit or gbit (as ddlcluster takes it), got '{text}'")
    rate = float(m.group(1)) * {"k": 1e3, "m": 1e6, "g": 1e9}[m.group(2)] / 8
    problem = out_of_range(rate, "bandwidth")  # 0mbit, or more digits than a float holds
    if problem:
        raise ValueError(f"{flag}: rate {problem}, got '{text}'")
    return rate


def natural_dims(gpn, npl, leaves):
    """G x K x L without the outer extents of 1 (one leaf: G x K; one node: G)."""
    dims = [gpn, npl, leaves]
    while len(dims) > 1 and dims[-1] == 1:
        dims.pop()
    return "x".join(map(str, dims))


def emulated(nodes, a):
    gpn, npl, nics = a.ranks_per_node, a.nodes_per_leaf, a.nics
    if nodes % npl:
        raise ValueError(f"emulated: {nodes} nodes is not a multiple of nodes-per-leaf {npl}")
    leaves = nodes // npl  # leaf groups: with rails each has a leaf per rail
    problem = too_big(nodes * gpn, MAX_EMULATED_RANKS, "ranks (--nodes x --ranks-per-node; every pair has a route)")
    if problem:
        raise ValueError(f"emulated: --nodes {nodes} {problem}")
    nic, up = tc_rate(a.nic, "--nic"), tc_rate(a.uplink, "--uplink")
    props = [("ddl_dims", natural_dims(gpn, npl, leaves)), ("ddl_gpus", gpn * nodes),
             ("ddl_gpus_per_node", gpn), ("ddl_nodes", nodes), ("ddl_nodes_per_leaf", npl)]
    notes = [
        f"Emulated cluster (cluster/ddlcluster): {nodes} nodes x {gpn} ranks, {leaves} leaves of {npl} nodes.",
        f"NIC: tc tbf {a.nic} = {bw(nic)} per direction; uplink: tc tbf {a.uplink} = {bw(up)} per direction "
        f"(oversubscription {num(npl * nic / up)}). Nominal: TCP and shaping reach less; calibrate.",
        f"Node to node: {lat(a.tcp_latency)} one way through the TCP stack (assumed: no delay is added).",
        f"Inside a node: {bw(a.shm_bw)} per copy, {bw(a.shm_bus_bw)} for all at once, {lat(a.shm_latency)} "
        f"(assumed, shared memory on the machine's cores); memory_bandwidth {num(a.host_memory_bandwidth / 1e9)}e9 "
        "(assumed).",
        "Ranks: rank = node * ranks-per-node + slot on host gpu<rank>; node = leaf * nodes-per-leaf + i.",
    ]
    if nics > 1:
        notes[0] = (f"Emulated cluster (cluster/ddlcluster): {nodes} nodes x {gpn} ranks, {nics} NICs per node on "
                    f"{nics} rails, {leaves} leaves of {npl} nodes per rail.")
        notes += [f"Rails: NIC k of node i is n<i>-nic<k> on leaf g * {nics} + k (group g = node / nodes-per-leaf); "
                  f"slot s uses NIC s mod {nics}; NICs of different rails or groups meet through the leaves' uplinks "
                  "and the spine, which routes between the rails' subnets at memory speed."]
    x = begin(f"emulated_{nodes}x{gpn}", "Full", props, notes)
    ranks = gpn * nodes
    for r in range(ranks):
        n = r // gpn
        x.add(f'<host id="gpu{r}" speed="1Gf"><prop id="ddl_rank" value="{r}"/>'
              f'<prop id="ddl_node" value="{n}"/><prop id="ddl_leaf" value="{leaf(n, r % gpn, npl, nics)}"/>'
              f'<prop id="memory_bandwidth" value="{num(a.host_memory_bandwidth / 1e9)}e9"/></host>')
    for r in range(ranks):
        x.link(f"gpu{r}-link", a.shm_bw, a.shm_latency / 2, "one rank's copies through shared memory: assumed")
    for n in range(nodes):
        x.link(f"n{n}-shm", a.shm_bus_bw, 0, "all copies of the node share the cores: assumed", policy="SHARED")
        for k in range(nics):
            x.link(nic_link(n, k, nics), nic, a.tcp_latency / 2, f"veth shaped by tbf at {a.nic}; latency assumed")
    for lf in range(leaves * nics):
        x.link(f"leaf{lf}-up", up, 0, f"veth pair to the spine shaped by tbf at {a.uplink}")
    for s in range(ranks):
        for d in range(ranks):
            if s != d:
                x.route(f"gpu{s}", f"gpu{d}", route(s, d, gpn, npl, nics), symmetrical=False)
    return finish(x)


def nic_link(n, k, nics):
    """NIC k of node n: n<n>-nic with one NIC (the name calibration writes), n<n>-nic<k> with rails."""
    return f"n{n}-nic" if nics == 1 else f"n{n}-nic{k}"


def leaf(n, slot, npl, nics):
    """The leaf that the NIC of a rank in `slot` of node n plugs into: group * rails + rail."""
    return n // npl * nics + slot % nics


def route(s, d, gpn, npl, nics):
    ns, nd = s // gpn, d // gpn
    if ns == nd:
        return [(f"gpu{s}-link", "UP"), (f"n{ns}-shm", None), (f"gpu{d}-link", "DOWN")]
    a, b = s % gpn % nics, d % gpn % nics  # each rank's own NIC (ddlcluster run binds it)
    links = [(nic_link(ns, a, nics), "UP")]
    ls, ld = leaf(ns, a, npl, nics), leaf(nd, b, npl, nics)
    if ls != ld:
        links += [(f"leaf{ls}-up", "UP"), (f"leaf{ld}-up", "DOWN")]
    return links + [(nic_link(nd, b, nics), "DOWN")]
