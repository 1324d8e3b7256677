"""Facebook Big Basin clusters (Goyal et al.): 8 P100 per server in a DGX-1 hybrid cube-mesh,
one 50 Gbit/s Ethernet NIC per server, servers joined by one switch.

The switch is non-blocking, so it is a router, not a link: its hop latency is folded into the NICs
(half each), which every route through it crosses (s822lc.py says why a FATPIPE link would not do).
"""
from limits import MAX_ZONES, too_big
from platform_xml import begin, finish, lat, num, switch_zone


def cube_mesh_pairs():
    """DGX-1 hybrid cube-mesh: two fully connected quads {0..3}, {4..7}, plus g <-> g+4."""
    quads = [(a, b) for q in (0, 4) for a in range(q, q + 4) for b in range(a + 1, q + 4)]
    return sorted(quads + [(g, g + 4) for g in range(4)])


def bigbasin_server(x, s, a):
    pcie = f"s{s}-pcie"
    pairs = cube_mesh_pairs()
    x.open(f'<zone id="s{s}" routing="Full">')
    for g in range(8):
        x.gpu(f"s{s}-gpu{g}", s * 8 + g, a)
    x.add(f'<router id="{pcie}"/>')
    for g0, g1 in pairs:
        x.link(f"s{s}-nvl-gpu{g0}-gpu{g1}", a.nvlink_bw, a.nvlink_latency,
               f"1 x NVLink 1.0, {num(a.nvlink_bw / 1e9)} GB/s per direction (REDP-5405); DGX-1 cube-mesh "
               "wiring assumed; latency assumed")
    for g in range(8):
        x.link(f"s{s}-pcie-gpu{g}", a.pcie_bw, a.pcie_latency, "PCIe Gen3 x16 to the NIC: bandwidth and latency assumed")
    linked = set(pairs)
    for g0 in range(8):
        for g1 in range(g0 + 1, 8):
            if (g0, g1) in linked:
                path = [(g0, g1)]
            else:  # not adjacent: cross to the other quad first, then one hop inside it
                mid = g0 ^ 4
                path = [(g0, mid), (mid, g1)]
            links = [(f"s{s}-nvl-gpu{min(p)}-gpu{max(p)}", "UP" if p[0] < p[1] else "DOWN") for p in path]
            x.route(f"s{s}-gpu{g0}", f"s{s}-gpu{g1}", links)
    for g in range(8):
        x.route(f"s{s}-gpu{g}", pcie, [(f"s{s}-pcie-gpu{g}", "UP")])
    x.close("zone")


def bigbasin(servers, a):
    problem = too_big(servers, MAX_ZONES, "servers side by side")  # 8192 GPUs, below MAX_GPUS
    if problem:
        raise ValueError(f"bigbasin: --nodes {servers} {problem}")
    props = [("ddl_dims", "8" if servers == 1 else f"8x{servers}"), ("ddl_gpus", 8 * servers),
             ("ddl_gpus_per_node", 8), ("ddl_nodes", servers)]
    notes = [
        "Facebook Big Basin servers (Goyal et al., arXiv 1706.02677, section 5): 8 P100 in an NVLink hybrid cube-mesh "
        "as DGX-1, one 50 Gbit/s Ethernet NIC per server.",
        "Cube-mesh pairs (DGX-1 wiring, assumed): " + " ".join(f"{p}-{q}" for p, q in cube_mesh_pairs()) + ".",
        "GPUs that share no NVLink go over two NVLinks: to the same-index GPU of the other quad, then one hop.",
        f"NIC {num(a.eth_bw / 1e9)} GB/s per direction (50 Gbit/s, Goyal et al.); NIC latency {lat(a.eth_latency)} "
        f"and switch hop {lat(a.eth_switch_latency)} assumed; one non-blocking switch (assumed), a router: its hop "
        f"is in the NICs' latency, half each ({lat(a.eth_latency + a.eth_switch_latency / 2)}).",
        "Ranks: rank = server * 8 + gpu on host s<server>-gpu<gpu> (host property ddl_rank).",
    ]
    name = f"bigbasin_{servers}"
    x = begin(name, "Full" if servers == 1 else "Floyd", props, notes)
    if servers == 1:
        bigbasin_server(x, 0, a)
        return finish(x)
    switch_zone(x, "eth-switch", "eth-sw")
    for s in range(servers):
        bigbasin_server(x, s, a)
        x.link(f"s{s}-nic", a.eth_bw, a.eth_latency + a.eth_switch_latency / 2,
               "50 Gbit/s Ethernet NIC (Goyal et al.); latency assumed, half the switch hop included")
    for s in range(servers):
        x.route(f"s{s}", "eth-switch", [(f"s{s}-nic", "UP")], gw=(f"s{s}-pcie", "eth-sw"), symmetrical=False)
        x.route("eth-switch", f"s{s}", [(f"s{s}-nic", "DOWN")], gw=("eth-sw", f"s{s}-pcie"), symmetrical=False)
    return finish(x)
