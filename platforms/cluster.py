"""SimGrid XML of a cluster from a description (description.py): nodes of one type on a two- or
three-tier fat tree, all NICs of a node on one leaf or rail-optimised (NIC i of every node of a
group on leaf i).

Layout (platforms/README.md, "Described clusters"): a group is the nodes under one set of leaves
(one leaf, or one leaf per rail). Each group is one Floyd zone holding its nodes' GPU hosts, the
node fabrics' routers and the leaf switch routers, so routes inside a group are shortest in link
count per GPU pair: a GPU reaches the network through its own NIC, and across rails it crosses
its node's fabric first to the GPU on the destination's rail (NCCL's PXN) rather than the
spine. Above one group, a router group<k>-up joins the group's leaf uplinks; groups meet in a
spine zone (three tiers: pod zones of groups, pod spines, a core).

Switches are non-blocking, so they are routers, not links, and each hop's latency is folded into
links that every route through the switch crosses (s822lc.py says why a FATPIPE link would not
do): half a leaf hop into each NIC link; above one group, half a hop into each leaf uplink and
each group uplink (group<k>-spine, the group's uplinks together, which also keeps the zoneRoute
to the spine from being empty, as SimGrid requires), and with three tiers a whole hop into each
pod uplink. A route crosses as many switch hops' latency as switches.
"""
from platform_xml import begin, bw, finish, lat, num, switch_zone

# A calibrated node's class-less message factors, written as its node class's
# (calibrate/platform_properties.hpp names them).
NODE_CLASS = {"ddl_lat_factors": "ddl_node_lat_factors", "ddl_bw_factors": "ddl_node_bw_factors"}


# A switch's host reaches its router over a link that is never the bottleneck: a fat pipe (every
# flow at full rate) at 1 PB/s, the largest figure a platform may hold, with no latency.
SWITCH_HOST_BANDWIDTH = 1e15


def switch_host(x, host, level, members, red, router, link):
    """The host where a switch that reduces runs its actor (sim/switch_model.hpp), no rank on it,
    and its link to the switch's router."""
    x.add(f'<host id="{host}" speed="1Gf"><prop id="ddl_switch_level" value="{level}"/>'
          f'<prop id="ddl_switch_members" value="{",".join(map(str, members))}"/>'
          f'<prop id="ddl_switch_reduce_rate" value="{num(red.reduce_rate.value / 1e9)}e9"/>'
          f'<prop id="ddl_switch_chunk" value="{red.chunk.value}"/></host>')
    x.link(link, SWITCH_HOST_BANDWIDTH, 0, f"{host} to {router}: never the bottleneck", policy="FATPIPE")


def reduction_note(red, where):
    return (f"In-switch reduction in {where}: {red.what}; reduces {bw(red.reduce_rate.value)} of input "
            f"({red.reduce_rate.source}) in chunks of {red.chunk.value} bytes ({red.chunk.source}); "
            "its actor runs on a host of its own with no rank.")


def figure_note(link):
    return f"bandwidth: {link.bandwidth.source}; latency: {link.latency.source}"


class Cluster:
    def __init__(self, d):
        self.d, self.node, self.net = d, d.node, d.network
        net, G, N = self.net, self.node.gpus, self.net.nodes
        self.npl = min(N, net.nodes_per_leaf)
        self.groups = N // self.npl
        self.leaves_per_group = len(self.node.nics) if (net.rails and N > 1) else 1
        self.three = net.tiers == 3 and self.groups > net.leaves_per_pod
        self.groups_per_pod = net.leaves_per_pod if self.three else self.groups
        self.pods = self.groups // self.groups_per_pod
        nic_bw = self.node.nic.bandwidth.value if self.node.nic else 0
        nics_per_leaf = 1 if self.leaves_per_group > 1 else (len(self.node.nics) if self.node.nics else 0)
        self.leaf_up_bw = self.npl * nics_per_leaf * nic_bw / net.oversubscription
        self.pod_up_bw = self.groups_per_pod * self.leaves_per_group * self.leaf_up_bw / net.pod_oversubscription
        self.nic_of_gpu = {}
        for k, nic in enumerate(self.node.nics or []):
            for g in nic.gpus:
                self.nic_of_gpu[g] = k

    # -- names and numbers -------------------------------------------------------------------
    def leaf(self, n, k):
        """Global index of the leaf switch that NIC k of node n plugs into."""
        return (n // self.npl) * self.leaves_per_group + (k if self.leaves_per_group > 1 else 0)

    def leaf_of_gpu(self, g):
        """The leaf router the NIC of GPU g of node 0 plugs into (in one group, every node's)."""
        return f"leaf{self.leaf(0, self.nic_of_gpu[g])}-sw"

    def dims(self):
        G, N, net = self.node.gpus, self.net.nodes, self.net
        fabric, leaf = self.node.fabric.name, "rail-leaves" if net.rails else "leaf"
        if N == 1:
            grid = [(G, fabric)]
        elif self.groups == 1:
            grid = [(G, fabric), (N, leaf)]
        elif not self.three:
            grid = [(G, fabric), (self.npl, leaf), (self.groups, "spine")]
        else:
            grid = [(G, fabric), (self.npl, leaf), (self.groups_per_pod, "pod-spine"), (self.pods, "core")]
        grid = [g for g in grid if g[0] > 1] or grid[:1]  # a one-GPU node is no dimension
        return "x".join(str(e) for e, _ in grid), ",".join(h for _, h in grid)

    def notes(self):
        d, node, net = self.d, self.node, self.net
        fab = node.fabric
        lines = [f"{d.name}: {net.nodes} nodes x {node.gpus} GPUs, generated from the description {d.path_text}."]
        lines += [d.about] if d.about else []
        lines += d.notes
        if fab.kind == "calibrated":
            lines.append(f"Node: measured by ddlcalibrate ({fab.file}); hosts, links, bus and routes as written there, "
                         "renamed n<node>-<name>.")
            if fab.message_factors and fab.cal.message_props:
                lines.append("The calibrated ddl_lat_factors / ddl_bw_factors are the node class's here "
                             "(ddl_node_lat_factors / ddl_node_bw_factors): they shape messages inside a node; "
                             "messages between nodes cost the network's latency + bytes / bandwidth.")
        else:
            lines.append(f"GPU: {num(node.gpu.speed.value / 1e12)} TFLOP/s ({node.gpu.speed.source}); memory "
                         f"{num(node.gpu.memory_bandwidth.value / 1e9)} GB/s ({node.gpu.memory_bandwidth.source}).")
            lines += self.fabric_notes(fab)
            if fab.kind == "switch" and fab.reduction:
                lines.append(reduction_note(fab.reduction, f"each node's {fab.name} (host n<node>-{fab.name}-reduce)"))
        if net.nodes > 1:
            nic = node.nic
            lines.append(f"NIC: {bw(nic.bandwidth.value)} per direction ({nic.bandwidth.source}), "
                         f"{lat(nic.latency.value)} ({nic.latency.source}); GPUs per NIC: "
                         + " ".join("/".join(map(str, n.gpus)) + (f"@{n.attach}" if n.attach else "")
                                    for n in node.nics) + ".")
            if node.pcie:
                lines.append(f"GPU to NIC over PCIe: {bw(node.pcie.bandwidth.value)} ({node.pcie.bandwidth.source}), "
                             f"{lat(node.pcie.latency.value)} ({node.pcie.latency.source}).")
            leaves = "one leaf" if self.leaves_per_group == 1 else f"{self.leaves_per_group} leaves (one per rail)"
            lines.append(f"Network: {net.topology}; groups of {self.npl} nodes under {leaves}, {self.groups} "
                         f"group(s)" + (f", {self.groups_per_pod} groups per pod, {self.pods} pods" if self.three else "")
                         + f"; leaf uplinks = downlinks / {num(net.oversubscription)}"
                         + (f", pod uplinks = leaf uplinks / {num(net.pod_oversubscription)}" if self.three else "")
                         + f"; {lat(net.switch_latency.value)} per switch hop ({net.switch_latency.source}); "
                         "switch ports at the NIC rate, non-blocking: switches are routers, their hops folded "
                         "into the NIC links (half a hop each) and the uplinks.")
        if net.nodes > 1 and net.reduction:
            lines.append(reduction_note(net.reduction, "the network's switches, one domain per GPU index (the GPUs of "
                                        "one rail), its host at the top switch (sharp<gpu>)"))
        lines.append(f"Ranks: rank = node * {node.gpus} + gpu on host n<node>-gpu<gpu> (ddl_rank, ddl_node, ddl_leaf).")
        return lines

    @staticmethod
    def fabric_notes(fab):
        if fab.kind == "switch":
            return [f"Fabric: {fab.name}, every GPU one port of {bw(fab.port.bandwidth.value)} per direction "
                    f"({fab.port.bandwidth.source}), {lat(fab.port.latency.value)} ({fab.port.latency.source}); "
                    "any GPU pair is one hop through it."]
        if fab.kind == "mesh":
            pairs = " ".join(f"{ln.a}-{ln.b}" + (f"x{ln.count}" if ln.count > 1 else "") for ln in fab.links)
            return [f"Fabric: links of {bw(fab.default.bandwidth.value)} per direction "
                    f"({fab.default.bandwidth.source}), {lat(fab.default.latency.value)} "
                    f"({fab.default.latency.source}): {pairs}.",
                    "GPUs that share no link but a neighbour GPU go through it (widest, then highest-numbered)."]
        return [f"Fabric: PCIe switches {fab.switches} under sockets {fab.sockets}; GPU link "
                f"{bw(fab.gpu_link.bandwidth.value)} ({figure_note(fab.gpu_link)}), switch uplink "
                f"{bw(fab.switch_link.bandwidth.value)} ({figure_note(fab.switch_link)})"
                + (f", socket link {bw(fab.socket_link.bandwidth.value)} ({figure_note(fab.socket_link)})"
                   if fab.socket_link else "") + "."]

    # -- one node ------------------------------------------------------------------------------
    def node_elements(self, x, n):
        node, fab, G = self.node, self.node.fabric, self.node.gpus
        p = f"n{n}-"
        for g in range(G):
            leaf = self.leaf(n, self.nic_of_gpu[g]) if self.net.nodes > 1 else 0
            if fab.kind == "calibrated":
                h = fab.cal.hosts[g]
                speed, membw = h.speed, h.memory_bandwidth
            else:
                speed, membw = f"{num(node.gpu.speed.value / 1e12)}Tf", f"{num(node.gpu.memory_bandwidth.value / 1e9)}e9"
            x.add(f'<host id="{p}gpu{g}" speed="{speed}"><prop id="ddl_rank" value="{n * G + g}"/>'
                  f'<prop id="ddl_node" value="{n}"/><prop id="ddl_leaf" value="{leaf}"/>'
                  f'<prop id="memory_bandwidth" value="{membw}"/></host>')
        if fab.kind == "switch":
            x.add(f'<router id="{p}{fab.name}"/>')
            for g in range(G):
                x.link(f"{p}{fab.name}-gpu{g}", fab.port.bandwidth.value, fab.port.latency.value,
                       f"GPU {g}'s {fab.name} port: {figure_note(fab.port)}")
            if fab.reduction:
                switch_host(x, f"{p}{fab.name}-reduce", 0, range(n * G, (n + 1) * G), fab.reduction,
                            f"{p}{fab.name}", f"{p}{fab.name}-reduce-link")
        elif fab.kind == "mesh":
            for r in fab.routers:
                x.add(f'<router id="{p}{r}"/>')
            for ln in fab.links:
                x.link(f"{p}{ln.id}", ln.count * ln.figures.bandwidth.value, ln.figures.latency.value,
                       f"{ln.count} x link {ln.a}-{ln.b}: {figure_note(ln.figures)}")
        elif fab.kind == "pcie":
            for k in range(len(fab.switches)):
                x.add(f'<router id="{p}pcisw{k}"/>')
            for s in range(len(fab.sockets)):
                x.add(f'<router id="{p}cpu{s}"/>')
            for k, gpus in enumerate(fab.switches):
                for g in gpus:
                    x.link(f"{p}pcie-gpu{g}", fab.gpu_link.bandwidth.value, fab.gpu_link.latency.value,
                           f"GPU {g} to PCIe switch {k}: {figure_note(fab.gpu_link)}")
                x.link(f"{p}pcisw{k}-up", fab.switch_link.bandwidth.value, fab.switch_link.latency.value,
                       f"PCIe switch {k} to its CPU: {figure_note(fab.switch_link)}")
            for a in range(len(fab.sockets)):
                for b in range(a + 1, len(fab.sockets)):
                    x.link(f"{p}smp-cpu{a}-cpu{b}", fab.socket_link.bandwidth.value, fab.socket_link.latency.value,
                           f"socket link: {figure_note(fab.socket_link)}")
        else:
            self.calibrated_elements(x, p, fab.cal)
        if self.net.nodes > 1:
            for k, nic in enumerate(node.nics):
                x.link(f"{p}nic{k}", node.nic.bandwidth.value,
                       node.nic.latency.value + self.net.switch_latency.value / 2,
                       f"NIC {k} and cable, and half the leaf hop: {figure_note(node.nic)}; hop: "
                       f"{self.net.switch_latency.source}")
                if nic.attach is None:
                    for g in nic.gpus:
                        x.link(f"{p}pcie-gpu{g}", node.pcie.bandwidth.value, node.pcie.latency.value,
                               f"GPU {g} to NIC {k} over PCIe: {figure_note(node.pcie)}")

    @staticmethod
    def calibrated_elements(x, p, cal):
        for r in cal.routers:
            x.add(f'<router id="{p}{r}"/>')
        for ln in cal.links:
            attrs = " ".join(f'{k}="{v}"' for k, v in ln.attrs.items())
            if ln.props:
                x.open(f'<link id="{p}{ln.id}" {attrs}><!-- measured by ddlcalibrate -->')
                x.props(ln.props)
                x.close("link")
            else:
                x.add(f'<link id="{p}{ln.id}" {attrs}/><!-- measured by ddlcalibrate -->')

    def node_routes(self, x, n):
        fab, G, p = self.node.fabric, self.node.gpus, f"n{n}-"
        if fab.kind == "switch":
            for g in range(G):
                x.route(f"{p}gpu{g}", f"{p}{fab.name}", [(f"{p}{fab.name}-gpu{g}", "UP")])
            if fab.reduction:
                x.route(f"{p}{fab.name}-reduce", f"{p}{fab.name}", [(f"{p}{fab.name}-reduce-link", None)])
        elif fab.kind == "mesh":
            for ln in fab.links:
                x.route(f"{p}{ln.a}", f"{p}{ln.b}", [(f"{p}{ln.id}", "UP")])
            for a, b, path in two_hop_routes(fab, G):
                x.route(f"{p}gpu{a}", f"{p}gpu{b}", [(f"{p}{ln.id}", d) for ln, d in path])
        elif fab.kind == "pcie":
            socket_of = {k: s for s, ks in enumerate(fab.sockets) for k in ks}
            for k, gpus in enumerate(fab.switches):
                for g in gpus:
                    x.route(f"{p}gpu{g}", f"{p}pcisw{k}", [(f"{p}pcie-gpu{g}", "UP")])
                x.route(f"{p}pcisw{k}", f"{p}cpu{socket_of[k]}", [(f"{p}pcisw{k}-up", "UP")])
            for a in range(len(fab.sockets)):
                for b in range(a + 1, len(fab.sockets)):
                    x.route(f"{p}cpu{a}", f"{p}cpu{b}", [(f"{p}smp-cpu{a}-cpu{b}", "UP")])
        else:
            cal = fab.cal
            rename = {h.id: f"gpu{h.rank}" for h in cal.hosts}
            for r in cal.routes:
                x.route(p + rename.get(r.src, r.src), p + rename.get(r.dst, r.dst), [(p + i, d) for i, d in r.links],
                        symmetrical=r.symmetrical)

    def nic_routes(self, x, n):
        """Each NIC's way into its leaf (the leaf's hop is half in each NIC link)."""
        p = f"n{n}-"
        for k, nic in enumerate(self.node.nics):
            sw, link = f"leaf{self.leaf(n, k)}-sw", f"{p}nic{k}"
            if nic.attach:
                x.route(p + nic.attach, sw, [(link, "UP")], symmetrical=False)
                x.route(sw, p + nic.attach, [(link, "DOWN")], symmetrical=False)
                continue
            for g in nic.gpus:  # no router between: a GPU cannot reach a neighbour through its NIC
                x.route(f"{p}gpu{g}", sw, [(f"{p}pcie-gpu{g}", "UP"), (link, "UP")], symmetrical=False)
                x.route(sw, f"{p}gpu{g}", [(link, "DOWN"), (f"{p}pcie-gpu{g}", "DOWN")], symmetrical=False)

    # -- groups, pods, the whole -------------------------------------------------------------
    def group_body(self, x, group):
        nodes = range(group * self.npl, (group + 1) * self.npl)
        leaves = range(group * self.leaves_per_group, (group + 1) * self.leaves_per_group)
        sl = self.net.switch_latency
        up = f"group{group}-up" if self.groups > 1 else None
        for leaf in leaves:
            x.add(f'<router id="leaf{leaf}-sw"/>')
        if up:
            x.add(f'<router id="{up}"/>')
        # Rails: a route from one rail's leaf to another's inside the group could go over the spine
        # (up router) in as few links as NCCL's PXN path through the node's fabric; Floyd keeps
        # the fewest links, so the way down gets one more link, of no latency, to make PXN shorter.
        detour = up is not None and self.leaves_per_group > 1
        for leaf in leaves:
            if up:
                x.link(f"leaf{leaf}-up", self.leaf_up_bw, sl.value / 2, f"all uplinks of leaf {leaf}: downlinks / "
                       f"{num(self.net.oversubscription)}; half a switch hop ({sl.source}), cable delay inside it")
            if detour:
                x.link(f"leaf{leaf}-down", self.leaf_up_bw, 0, f"leaf {leaf}'s side of its uplinks on the way "
                       "down: as wide, no latency; one link more than PXN for a detour over the spine")
        for n in nodes:
            self.node_elements(x, n)
        if self.groups == 1:
            self.sharp_hosts(x, self.leaf_of_gpu)
        for n in nodes:
            self.node_routes(x, n)
            self.nic_routes(x, n)
        if self.groups == 1:
            self.sharp_hosts(x, self.leaf_of_gpu, routes=True)
        if up:
            for leaf in leaves:
                x.route(f"leaf{leaf}-sw", up, [(f"leaf{leaf}-up", "UP")], symmetrical=False)
                down = [(f"leaf{leaf}-up", "DOWN")] + ([(f"leaf{leaf}-down", "UP")] if detour else [])
                x.route(up, f"leaf{leaf}-sw", down, symmetrical=False)

    def sharp_hosts(self, x, router_of_gpu, routes=False):
        """The network's in-switch reduction: per GPU index g, a switch host serving the GPUs of
        index g of every node, joined to router_of_gpu(g) (the top switch their routes meet at);
        with `routes`, the routes to it instead (SimGrid wants a zone's routes after its hosts)."""
        red, G, N = self.net.reduction, self.node.gpus, self.net.nodes
        if not red or N == 1:
            return
        for g in range(G):
            if routes:
                x.route(f"sharp{g}", router_of_gpu(g), [(f"sharp{g}-link", None)])
            else:
                switch_host(x, f"sharp{g}", 1, [n * G + g for n in range(N)], red, router_of_gpu(g),
                            f"sharp{g}-link")

    def top_zone(self, x, zone, router):
        """switch_zone, with the network's switch hosts in it when it has them."""
        if not self.net.reduction:
            switch_zone(x, zone, router)
            return
        x.open(f'<zone id="{zone}" routing="Full">')
        x.add(f'<router id="{router}"/>')
        self.sharp_hosts(x, lambda g: router)
        self.sharp_hosts(x, lambda g: router, routes=True)
        x.close("zone")

    def groups_under(self, x, groups, spine_zone, spine_sw):
        sl = self.net.switch_latency
        for g in groups:
            x.open(f'<zone id="group{g}" routing="Floyd">')
            self.group_body(x, g)
            x.close("zone")
            x.link(f"group{g}-spine", self.leaves_per_group * self.leaf_up_bw, sl.value / 2,
                   f"group {g}'s uplinks together (its leaves' uplinks: never the tighter); half a switch hop "
                   f"({sl.source})")
        for g in groups:
            x.route(f"group{g}", spine_zone, [(f"group{g}-spine", "UP")], gw=(f"group{g}-up", spine_sw),
                    symmetrical=False)
            x.route(spine_zone, f"group{g}", [(f"group{g}-spine", "DOWN")], gw=(spine_sw, f"group{g}-up"),
                    symmetrical=False)

    def xml(self):
        G, N = self.node.gpus, self.net.nodes
        dims, hierarchy = self.dims()
        props = [("ddl_dims", dims), ("ddl_gpus", G * N), ("ddl_gpus_per_node", G), ("ddl_nodes", N),
                 ("ddl_hierarchy", hierarchy)]
        if N > 1:
            props += [("ddl_nodes_per_leaf", self.npl), ("ddl_topology", self.net.topology)]
        fab = self.node.fabric
        if fab.kind == "calibrated":
            # Measured inside one machine, so they are the node class's (sim/README.md): the hosts carry
            # ddl_node and ddl_leaf, and the network's messages keep factor 1.
            props += fab.cal.node_props + ([(NODE_CLASS[k], v) for k, v in fab.cal.message_props]
                                           if fab.message_factors else [])
        x = begin(f"{self.d.name}_{N}", "Floyd", props, self.notes())
        if N == 1:  # no network: the NICs would carry nothing
            self.node_elements(x, 0)
            self.node_routes(x, 0)
        elif self.groups == 1:
            self.group_body(x, 0)
        elif not self.three:
            self.top_zone(x, "spine", "spine-sw")
            self.groups_under(x, range(self.groups), "spine", "spine-sw")
        else:
            self.top_zone(x, "core", "core-sw")
            gpp = self.groups_per_pod
            sl = self.net.switch_latency
            for pod in range(self.pods):
                x.open(f'<zone id="pod{pod}" routing="Floyd">')
                switch_zone(x, f"pod{pod}-spine", f"pod{pod}-spine-sw")
                self.groups_under(x, range(pod * gpp, (pod + 1) * gpp), f"pod{pod}-spine", f"pod{pod}-spine-sw")
                x.close("zone")
                x.link(f"pod{pod}-up", self.pod_up_bw, sl.value, f"all uplinks of pod {pod}: leaf uplinks / "
                       f"{num(self.net.pod_oversubscription)}; a switch hop ({sl.source}): the core's on the way up, "
                       "the destination pod spine's on the way down, cable delay inside it")
            for pod in range(self.pods):
                sw = f"pod{pod}-spine-sw"
                x.route(f"pod{pod}", "core", [(f"pod{pod}-up", "UP")], gw=(sw, "core-sw"), symmetrical=False)
                x.route("core", f"pod{pod}", [(f"pod{pod}-up", "DOWN")], gw=("core-sw", sw), symmetrical=False)
        return finish(x)


def two_hop_routes(fab, gpus):
    """(a, b, [(link, direction), (link, direction)]) for GPU pairs a < b with no link of their own
    but a neighbour GPU c in common: CUDA does not forward, so this stands for the forwarding
    NCCL-style rings do. The widest such path wins, then the highest-numbered c (in a DGX-1
    cube-mesh: the same-index GPU of the other quad first, as Big Basin's routes go)."""
    by_pair = {}
    for ln in fab.links:
        by_pair[(ln.a, ln.b)] = (ln, "UP")
        by_pair[(ln.b, ln.a)] = (ln, "DOWN")

    def width(hop):
        ln = hop[0]
        return ln.count * ln.figures.bandwidth.value

    out = []
    for a in range(gpus):
        for b in range(a + 1, gpus):
            ga, gb = f"gpu{a}", f"gpu{b}"
            if (ga, gb) in by_pair:
                continue
            best = None
            for c in range(gpus):
                gc = f"gpu{c}"
                if (ga, gc) in by_pair and (gc, gb) in by_pair:
                    key = (min(width(by_pair[(ga, gc)]), width(by_pair[(gc, gb)])), c)
                    if best is None or key > best[0]:
                        best = (key, [by_pair[(ga, gc)], by_pair[(gc, gb)]])
            if best:
                out.append((a, b, best[1]))
    return out


def cluster(d):
    return Cluster(d).xml()
