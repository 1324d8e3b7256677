"""IBM Power System S822LC for HPC ("Minsky") clusters: 4 P100 per node on a two-level EDR fat-tree.

Layout (see README.md): one Floyd zone per leaf switch holds its nodes' GPU hosts, CPU routers
and the switch router; a top Floyd zone joins the leaves through the spine. Floyd picks the
route with the fewest links, so a GPU leaves through its own socket's HCA and enters through
the destination GPU's socket HCA (3 links) rather than crossing an X-bus on either side (4).

The switches are non-blocking, so they are routers, not links: a switch hop's latency is folded
into the links every route through it crosses (half a leaf hop into each HCA, a spine and a leaf
hop into each leaf uplink). A FATPIPE link would cap each flow at the port rate, which the HCA
already does, and SimGrid 3.32 would also slow the flows on it that have longer routes: its fair
share is weighted by route latency, and on a FATPIPE link every flow gets the bandwidth times the
shortest latency on it over its own (a flow from another leaf got 92.6 % of the port rate on a
leaf's crossbar shared with flows from inside the leaf: 2.5 us / 2.7 us). It would also put every
flow between nodes in one linear system for SimGrid's solver (experiments/results/bench_sim.md).
"""
from limits import MAX_GPUS, MAX_GROUP_GPUS, MAX_ZONES, too_big
from platform_xml import begin, finish, lat, num, switch_zone


def s822lc_notes(a):
    return [
        "IBM Power System S822LC for HPC nodes: 2 POWER8 sockets, 4 P100 (SXM2), NVLink 1.0, 2 EDR HCAs.",
        f"P100: {num(a.gpu_speed / 1e12)} TFLOP/s FP32, {num(a.gpu_memory_bandwidth / 1e9)} GB/s HBM2 (NVIDIA P100 datasheet).",
        f"NVLink 1.0: {num(a.nvlink_bw / 1e9)} GB/s per direction per link (Redbook REDP-5405); GPU-CPU and GPU-GPU "
        f"pairs use {a.nvlinks_per_pair} links each (Redbook REDP-5405); latency {lat(a.nvlink_latency)} assumed.",
        f"X-bus: {num(a.xbus_bw / 1e9)} GB/s per direction assumed; latency {lat(a.xbus_latency)} assumed.",
        f"HCA: EDR {num(a.hca_bw / 1e9)} GB/s per direction, one per socket (assumed typical configuration); "
        f"latency {lat(a.ib_latency / 2)} = {lat(a.ib_latency)} MPI end to end (assumed; it includes one switch hop) / 2.",
        f"Switches: {lat(a.switch_latency)} per hop, two-level fat-tree, {a.nodes_per_leaf} nodes per leaf, "
        f"uplinks = downlinks / {num(a.oversubscription)} (assumed). Non-blocking, so routers, not links: "
        "the leaf hop is in the HCAs' latency (half each), the spine hop and the other leaf's hop in the "
        f"leaf uplinks' ({lat(a.switch_latency)} each).",
        "Ranks: rank = node * 4 + gpu on host n<node>-gpu<gpu> (host property ddl_rank).",
        "Zones: one Floyd zone per leaf switch (GPU hosts, CPU and switch routers); above 1 leaf, a top Floyd zone "
        "joins the leaves through the spine. Routes are shortest in link count.",
    ]


def s822lc_node(x, n, a, with_hcas):
    """Node n: GPUs 2s, 2s+1 NVLinked to each other and to CPU s; the X-bus; the HCAs."""
    nvl_bw = a.nvlinks_per_pair * a.nvlink_bw
    nvl_note = f"{a.nvlinks_per_pair} x NVLink 1.0 (REDP-5405); latency assumed"
    for g in range(4):
        x.gpu(f"n{n}-gpu{g}", n * 4 + g, a)
    for s in (0, 1):
        x.add(f'<router id="n{n}-cpu{s}"/>')
    for s in (0, 1):
        g0, g1 = 2 * s, 2 * s + 1
        x.link(f"n{n}-nvl-gpu{g0}-cpu{s}", nvl_bw, a.nvlink_latency, nvl_note)
        x.link(f"n{n}-nvl-gpu{g1}-cpu{s}", nvl_bw, a.nvlink_latency, nvl_note)
        x.link(f"n{n}-nvl-gpu{g0}-gpu{g1}", nvl_bw, a.nvlink_latency, nvl_note)
    x.link(f"n{n}-xbus", a.xbus_bw, a.xbus_latency, "POWER8 X-bus: assumed")
    if with_hcas:
        for s in (0, 1):
            x.link(f"n{n}-hca{s}", a.hca_bw, a.ib_latency / 2,
                   "EDR HCA, PCIe and cable: assumed; latency half the end-to-end figure (leaf hop included), assumed")


def s822lc_node_routes(x, n, sw=None):
    """Routes of node n (the DTD wants them after every host, router and link of the zone)."""
    for s in (0, 1):
        g0, g1 = 2 * s, 2 * s + 1
        x.route(f"n{n}-gpu{g0}", f"n{n}-cpu{s}", [(f"n{n}-nvl-gpu{g0}-cpu{s}", "UP")])
        x.route(f"n{n}-gpu{g1}", f"n{n}-cpu{s}", [(f"n{n}-nvl-gpu{g1}-cpu{s}", "UP")])
        x.route(f"n{n}-gpu{g0}", f"n{n}-gpu{g1}", [(f"n{n}-nvl-gpu{g0}-gpu{g1}", "UP")])
    x.route(f"n{n}-cpu0", f"n{n}-cpu1", [(f"n{n}-xbus", "UP")])
    if sw:
        for s in (0, 1):
            x.route(f"n{n}-cpu{s}", sw, [(f"n{n}-hca{s}", "UP")], symmetrical=False)
            x.route(sw, f"n{n}-cpu{s}", [(f"n{n}-hca{s}", "DOWN")], symmetrical=False)


def s822lc_leaf(x, leaf, nodes, a):
    """The content of leaf switch `leaf`'s Floyd zone: its nodes and its switch router."""
    sw = f"leaf{leaf}-sw"
    x.add(f'<router id="{sw}"/>')
    for n in nodes:
        s822lc_node(x, n, a, with_hcas=True)
    for n in nodes:
        s822lc_node_routes(x, n, sw)


def s822lc(nodes, a):
    npl = a.nodes_per_leaf
    if nodes > npl and nodes % npl:
        raise ValueError(f"s822lc: {nodes} nodes is neither <= nor a multiple of nodes-per-leaf {npl}")
    leaves = 1 if nodes <= npl else nodes // npl
    for flag, value, problem in (
            ("--nodes", nodes, too_big(4 * nodes, MAX_GPUS, "GPUs")),
            ("--nodes-per-leaf", npl, too_big(4 * min(nodes, npl), MAX_GROUP_GPUS, "GPUs in one leaf")),
            ("--nodes", nodes, too_big(leaves, MAX_ZONES, "leaves side by side", "more --nodes-per-leaf"))):
        if problem:
            raise ValueError(f"s822lc: {flag} {value} {problem}")
    dims = "4" if nodes == 1 else (f"4x{nodes}" if leaves == 1 else f"4x{npl}x{leaves}")
    props = [("ddl_dims", dims), ("ddl_gpus", 4 * nodes), ("ddl_gpus_per_node", 4), ("ddl_nodes", nodes)]
    x = begin(f"s822lc_{nodes}", "Floyd", props, s822lc_notes(a))
    if nodes == 1:  # no network: the HCAs would carry nothing
        s822lc_node(x, 0, a, with_hcas=False)
        s822lc_node_routes(x, 0)
        return finish(x)
    if leaves == 1:
        s822lc_leaf(x, 0, range(nodes), a)
        return finish(x)
    switch_zone(x, "spine-switch", "spine-sw")
    up_bw = 2 * npl * a.hca_bw / a.oversubscription
    for leaf in range(leaves):
        x.open(f'<zone id="leaf{leaf}" routing="Floyd">')
        s822lc_leaf(x, leaf, range(leaf * npl, (leaf + 1) * npl), a)
        x.close("zone")
        x.link(f"leaf{leaf}-up", up_bw, a.switch_latency,
               f"{2 * npl} EDR uplinks / oversubscription {num(a.oversubscription)} (assumed); latency: one switch "
               "hop (the spine's half of the way, or the destination leaf's: assumed), cable delay inside it")
    for leaf in range(leaves):
        x.route(f"leaf{leaf}", "spine-switch", [(f"leaf{leaf}-up", "UP")], gw=(f"leaf{leaf}-sw", "spine-sw"),
                symmetrical=False)
        x.route("spine-switch", f"leaf{leaf}", [(f"leaf{leaf}-up", "DOWN")], gw=("spine-sw", f"leaf{leaf}-sw"),
                symmetrical=False)
    return finish(x)
