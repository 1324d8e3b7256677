"""IBM Power System S822LC for HPC ("Minsky") clusters: 4 P100 per node on a two-level EDR fat-tree.

Layout (see README.md): one Floyd zone per leaf switch holds its nodes' GPU hosts, CPU routers
and the switch router; a top Floyd zone joins the leaves through the spine. Floyd picks the
route with the fewest links, so a GPU leaves through its own socket's HCA and enters through
the destination GPU's socket HCA (3 links) rather than crossing an X-bus on either side (4).
"""
from platform_xml import begin, finish, lat, num, switch_zone


def s822lc_notes(a):
    hca_lat = (a.ib_latency - a.switch_latency) / 2
    return [
        "IBM Power System S822LC for HPC nodes: 2 POWER8 sockets, 4 P100 (SXM2), NVLink 1.0, 2 EDR HCAs.",
        f"P100: {num(a.gpu_speed / 1e12)} TFLOP/s FP32, {num(a.gpu_memory_bandwidth / 1e9)} GB/s HBM2 (NVIDIA P100 datasheet).",
        f"NVLink 1.0: {num(a.nvlink_bw / 1e9)} GB/s per direction per link (Redbook REDP-5405); GPU-CPU and GPU-GPU "
        f"pairs use {a.nvlinks_per_pair} links each (Redbook REDP-5405); latency {lat(a.nvlink_latency)} assumed.",
        f"X-bus: {num(a.xbus_bw / 1e9)} GB/s per direction assumed; latency {lat(a.xbus_latency)} assumed.",
        f"HCA: EDR {num(a.hca_bw / 1e9)} GB/s per direction, one per socket (assumed typical configuration); "
        f"latency {lat(hca_lat)} = ({lat(a.ib_latency)} MPI end to end, assumed, minus one switch hop) / 2.",
        f"Switches: {lat(a.switch_latency)} per hop, two-level fat-tree, {a.nodes_per_leaf} nodes per leaf, "
        f"uplinks = downlinks / {num(a.oversubscription)} (assumed).",
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
            x.link(f"n{n}-hca{s}", a.hca_bw, (a.ib_latency - a.switch_latency) / 2,
                   "EDR HCA, PCIe and cable: assumed; latency from the end-to-end figure, assumed")


def s822lc_node_routes(x, n, sw=None, leaf=None):
    """Routes of node n (the DTD wants them after every host, router and link of the zone)."""
    for s in (0, 1):
        g0, g1 = 2 * s, 2 * s + 1
        x.route(f"n{n}-gpu{g0}", f"n{n}-cpu{s}", [(f"n{n}-nvl-gpu{g0}-cpu{s}", "UP")])
        x.route(f"n{n}-gpu{g1}", f"n{n}-cpu{s}", [(f"n{n}-nvl-gpu{g1}-cpu{s}", "UP")])
        x.route(f"n{n}-gpu{g0}", f"n{n}-gpu{g1}", [(f"n{n}-nvl-gpu{g0}-gpu{g1}", "UP")])
    x.route(f"n{n}-cpu0", f"n{n}-cpu1", [(f"n{n}-xbus", "UP")])
    if sw:
        for s in (0, 1):
            # Asymmetric so that the crossbar appears once on CPU -> switch -> CPU.
            x.route(f"n{n}-cpu{s}", sw, [(f"n{n}-hca{s}", "UP"), (f"leaf{leaf}", None)], symmetrical=False)
            x.route(sw, f"n{n}-cpu{s}", [(f"n{n}-hca{s}", "DOWN")], symmetrical=False)


def s822lc_leaf(x, leaf, nodes, a):
    """The content of leaf switch `leaf`'s Floyd zone: its nodes, its switch router and crossbar."""
    sw = f"leaf{leaf}-sw"
    x.add(f'<router id="{sw}"/>')
    x.link(f"leaf{leaf}", a.hca_bw, a.switch_latency, "leaf crossbar, non-blocking: EDR port rate, one hop (assumed)",
           policy="FATPIPE")
    for n in nodes:
        s822lc_node(x, n, a, with_hcas=True)
    for n in nodes:
        s822lc_node_routes(x, n, sw, leaf)


def s822lc(nodes, a):
    npl = a.nodes_per_leaf
    if nodes > npl and nodes % npl:
        raise ValueError(f"s822lc: {nodes} nodes is neither <= nor a multiple of nodes-per-leaf {npl}")
    leaves = 1 if nodes <= npl else nodes // npl
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
    x.link("spine", a.hca_bw, a.switch_latency, "spine level, non-blocking: EDR port rate per flow, one hop (assumed)",
           policy="FATPIPE")
    up_bw = 2 * npl * a.hca_bw / a.oversubscription
    for leaf in range(leaves):
        x.open(f'<zone id="leaf{leaf}" routing="Floyd">')
        s822lc_leaf(x, leaf, range(leaf * npl, (leaf + 1) * npl), a)
        x.close("zone")
        x.link(f"leaf{leaf}-up", up_bw, 0, f"{2 * npl} EDR uplinks / oversubscription {num(a.oversubscription)} "
               "(assumed); cable delay inside the hop figure")
    for leaf in range(leaves):
        # Going up crosses the spine; coming down crosses the destination leaf's crossbar.
        x.route(f"leaf{leaf}", "spine-switch", [(f"leaf{leaf}-up", "UP"), ("spine", None)],
                gw=(f"leaf{leaf}-sw", "spine-sw"), symmetrical=False)
        x.route("spine-switch", f"leaf{leaf}", [(f"leaf{leaf}-up", "DOWN"), (f"leaf{leaf}", None)],
                gw=("spine-sw", f"leaf{leaf}-sw"), symmetrical=False)
    return finish(x)
