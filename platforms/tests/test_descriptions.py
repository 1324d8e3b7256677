#!/usr/bin/env python3
"""The description format and the described families, without the simulator (standard library
only): every shipped description generates for every topology and obeys the platform contract;
routes, worked out here from the XML the way SimGrid's Floyd zones do (fewest links), are what
the hardware has; every bad description stops generate.py with its field, its value and exit 1.

  python3 platforms/tests/test_descriptions.py        (ctest runs it)
"""
import heapq
import json
import os
import subprocess
import sys
import tempfile
import unittest
import xml.etree.ElementTree as ET

HERE = os.path.dirname(os.path.abspath(__file__))
PLATFORMS = os.path.dirname(HERE)
GENERATE = os.path.join(PLATFORMS, "generate.py")
DESCRIPTIONS = os.path.join(PLATFORMS, "descriptions")
FAMILIES = ["dgx1", "dgx_a100", "dgx_h100", "s822lc", "bigbasin"]
EXAMPLES = ["examples/pcie_server", "examples/calibrated_256"]


def generate(*args):
    return subprocess.run([sys.executable, GENERATE, *args, "-o", "-"], capture_output=True, text=True)


def platform(*args):
    r = generate(*args)
    if r.returncode:
        raise AssertionError(f"generate.py {' '.join(args)} failed: {r.stderr}")
    return ET.fromstring(r.stdout)


def props(element):
    return {p.get("id"): p.get("value") for p in element.findall("prop")}


def gpu_hosts(root):
    """The hosts that run ranks: every host but those of switches that reduce (ddl_switch_level)."""
    return [h for h in root.iter("host") if "ddl_switch_level" not in props(h)]


def switch_hosts(root):
    return {h.get("id"): props(h) for h in root.iter("host") if "ddl_switch_level" in props(h)}


def zone_graph(zone):
    """Directed edges (src -> [(dst, links)]) of one zone's routes, as Floyd sees them."""
    edges = {}
    for r in zone.findall("route"):
        links = [(c.get("id"), c.get("direction")) for c in r.findall("link_ctn")]
        edges.setdefault(r.get("src"), []).append((r.get("dst"), links))
        if r.get("symmetrical", "YES").upper() != "NO":
            flip = {"UP": "DOWN", "DOWN": "UP", None: None}
            edges.setdefault(r.get("dst"), []).append((r.get("src"), [(i, flip[d]) for i, d in reversed(links)]))
    return edges


def routes_from(edges, src):
    """Fewest-link routes from src to every point (link names as SimGrid prints them), and how
    many routes of that length exist (1: the route is the only shortest one)."""
    dist, path, count, heap, done = {src: 0}, {src: []}, {src: 1}, [(0, src)], set()
    while heap:
        d, u = heapq.heappop(heap)
        if u in done:
            continue
        done.add(u)  # every route has a link, so u's count is complete once u comes off the heap
        for v, links in edges.get(u, []):
            cost = d + len(links)
            if v not in dist or cost < dist[v]:
                dist[v], path[v], count[v] = cost, path[u] + links, count[u]
                heapq.heappush(heap, (cost, v))
            elif cost == dist[v] and v not in done:
                count[v] += count[u]
    named = {v: [i + ("_" + d if d else "") for i, d in links] for v, links in path.items()}
    return named, count


def host_zone(root, host):
    for zone in root.iter("zone"):
        if any(h.get("id") == host for h in zone.findall("host")):
            return zone
    raise AssertionError(f"no host {host}")


class Contract(unittest.TestCase):
    def check_contract(self, root, gpus_per_node, nodes):
        zone = root.find("zone")
        p = props(zone)
        self.assertEqual(int(p["ddl_gpus"]), gpus_per_node * nodes)
        self.assertEqual(int(p["ddl_gpus_per_node"]), gpus_per_node)
        self.assertEqual(int(p["ddl_nodes"]), nodes)
        extents = [int(e) for e in p["ddl_dims"].split("x")]
        product = 1
        for e in extents:
            product *= e
        self.assertEqual(product, gpus_per_node * nodes, p["ddl_dims"])
        self.assertEqual(len(p["ddl_hierarchy"].split(",")), len(extents))
        hosts = gpu_hosts(root)
        ranks = sorted(int(props(h)["ddl_rank"]) for h in hosts)
        self.assertEqual(ranks, list(range(gpus_per_node * nodes)))
        for h in hosts:
            hp = props(h)
            self.assertGreater(float(hp["memory_bandwidth"]), 0)
            self.assertEqual(int(hp["ddl_node"]), int(hp["ddl_rank"]) // gpus_per_node)
            self.assertEqual(h.get("id"), f"n{hp['ddl_node']}-gpu{int(hp['ddl_rank']) % gpus_per_node}")
        links = {ln.get("id"): ln.get("sharing_policy") for ln in root.iter("link")}
        self.assertEqual(len(links), len(list(root.iter("link"))), "link names are unique")
        for c in root.iter("link_ctn"):
            self.assertIn(c.get("id"), links)
            self.assertEqual(c.get("direction") is not None, links[c.get("id")] == "SPLITDUPLEX", c.get("id"))

    def test_every_family_and_topology_generates_and_keeps_the_contract(self):
        for family in FAMILIES + EXAMPLES:
            with open(os.path.join(DESCRIPTIONS, family + ".json")) as f:
                gpn = json.load(f)["node"].get("gpus", 2)  # a calibrated node: calibrated_2.xml's 2 ranks
            for topology, nodes in [("fat_tree2", 1), ("fat_tree2", 2), ("fat_tree2", 16), ("fat_tree3", 64),
                                    ("rail", 2), ("rail", 32), ("rail3", 64)]:
                with self.subTest(family=family, topology=topology, nodes=nodes):
                    args = ["--description", os.path.join(DESCRIPTIONS, family + ".json"), "--nodes", str(nodes),
                            "--topology", topology, "--nodes-per-leaf", "4", "--leaves-per-pod", "2"]
                    self.check_contract(platform(*args), gpn, nodes)

    def test_natural_dims_follow_the_hierarchy(self):
        cases = {("dgx_h100", "fat_tree2", 4): ("8x4", "nvswitch,leaf"),
                 ("dgx_h100", "fat_tree2", 64): ("8x4x16", "nvswitch,leaf,spine"),
                 ("dgx_h100", "rail", 64): ("8x32x2", "nvswitch,rail-leaves,spine"),
                 ("dgx_h100", "fat_tree3", 1024): ("8x4x16x16", "nvswitch,leaf,pod-spine,core"),
                 ("dgx1", "fat_tree2", 1): ("8", "nvlink-mesh")}
        for (family, topology, nodes), (dims, hierarchy) in cases.items():
            with self.subTest(family=family, topology=topology, nodes=nodes):
                p = props(platform("--platform", family, "--nodes", str(nodes), "--topology", topology).find("zone"))
                self.assertEqual((p["ddl_dims"], p["ddl_hierarchy"]), (dims, hierarchy))


class InSwitchReduction(unittest.TestCase):
    def test_nvls_per_node_and_sharp_per_rail_serve_the_right_ranks(self):
        for topology, nodes in [("fat_tree2", 1), ("fat_tree2", 4), ("fat_tree2", 16), ("rail", 64),
                                ("fat_tree3", 64)]:
            with self.subTest(topology=topology, nodes=nodes):
                root = platform("--platform", "dgx_h100", "--nodes", str(nodes), "--topology", topology,
                                "--nodes-per-leaf", "4" if topology == "fat_tree2" else "32",
                                "--leaves-per-pod", "2")
                hosts = switch_hosts(root)
                expected = {f"n{n}-nvswitch-reduce": ("0", list(range(8 * n, 8 * n + 8))) for n in range(nodes)}
                if nodes > 1:
                    expected.update({f"sharp{g}": ("1", [8 * n + g for n in range(nodes)]) for g in range(8)})
                got = {h: (p["ddl_switch_level"], [int(r) for r in p["ddl_switch_members"].split(",")])
                       for h, p in hosts.items()}
                self.assertEqual(got, expected)
                for p in hosts.values():
                    self.assertNotIn("ddl_rank", p)
                    self.assertGreater(float(p["ddl_switch_reduce_rate"]), 0)
                    self.assertGreater(int(p["ddl_switch_chunk"]), 0)
                # Its link to the switch's router is never the bottleneck.
                links = {ln.get("id"): ln for ln in root.iter("link")}
                for h in hosts:
                    link = links[h + "-link"]
                    self.assertEqual(link.get("sharing_policy"), "FATPIPE")
                    self.assertEqual(link.get("latency"), "0")

    def test_families_without_the_field_have_no_switch_hosts(self):
        for family in ("dgx_a100", "dgx1", "s822lc", "bigbasin"):
            with self.subTest(family=family):
                self.assertEqual(switch_hosts(platform("--platform", family, "--nodes", "2")), {})

    def test_bad_in_switch_reduction_is_refused_naming_the_field(self):
        with open(os.path.join(DESCRIPTIONS, "dgx_h100.json")) as f:
            good = json.load(f)
        cases = [({"what": "x", "reduce_rate": "0GBps", "chunk": 1}, "in_switch_reduction.reduce_rate"),
                 ({"what": "x", "reduce_rate": "1GBps", "chunk": 0}, "in_switch_reduction.chunk"),
                 ({"what": "", "reduce_rate": "1GBps", "chunk": 1}, "in_switch_reduction.what"),
                 ({"what": "x", "reduce_rate": "1GBps"}, "in_switch_reduction.chunk: is missing"),
                 ({"what": "x", "reduce_rate": "1GBps", "chunk": 1, "extra": 1}, "unknown field")]
        for bad, message in cases:
            with self.subTest(message=message):
                d = json.loads(json.dumps(good))
                d["node"]["fabric"]["in_switch_reduction"] = bad
                with tempfile.TemporaryDirectory() as tmp:
                    path = os.path.join(tmp, "bad.json")
                    with open(path, "w") as f:
                        json.dump(d, f)
                    r = subprocess.run([sys.executable, GENERATE, "--description", path, "--nodes", "1", "-o",
                                        os.path.join(tmp, "out.xml")], capture_output=True, text=True)
                self.assertEqual(r.returncode, 1, r.stderr)
                self.assertIn(message, r.stderr)


class Routes(unittest.TestCase):
    def test_nvswitch_any_gpu_pair_is_one_hop_through_the_switch(self):
        for family in ("dgx_h100", "dgx_a100"):
            root = platform("--platform", family, "--nodes", "2")
            edges = zone_graph(host_zone(root, "n0-gpu0"))
            for a in range(8):
                routes, count = routes_from(edges, f"n0-gpu{a}")
                for b in range(8):
                    if a != b:
                        self.assertEqual(routes[f"n0-gpu{b}"], [f"n0-nvswitch-gpu{a}_UP", f"n0-nvswitch-gpu{b}_DOWN"])
                        self.assertEqual(count[f"n0-gpu{b}"], 1)

    def test_each_gpu_leaves_through_its_own_nic(self):
        for family, nic_of in (("dgx_h100", lambda g: g), ("dgx_a100", lambda g: g), ("dgx1", lambda g: g // 2)):
            root = platform("--platform", family, "--nodes", "2")
            edges = zone_graph(host_zone(root, "n0-gpu0"))
            for g in range(8):
                routes, count = routes_from(edges, f"n0-gpu{g}")
                k = nic_of(g)
                self.assertEqual(routes[f"n1-gpu{g}"], [f"n0-pcie-gpu{g}_UP", f"n0-nic{k}_UP",
                                                       f"n1-nic{k}_DOWN", f"n1-pcie-gpu{g}_DOWN"], family)
                self.assertEqual(count[f"n1-gpu{g}"], 1)

    def test_rails_put_gpu_i_of_every_node_on_leaf_i(self):
        root = platform("--platform", "dgx_h100", "--nodes", "64", "--topology", "rail")
        for h in gpu_hosts(root):
            hp = props(h)
            node, gpu = int(hp["ddl_node"]), int(hp["ddl_rank"]) % 8
            self.assertEqual(int(hp["ddl_leaf"]), (node // 32) * 8 + gpu, h.get("id"))
        group1 = host_zone(root, "n32-gpu0")
        edges = zone_graph(group1)
        for g in range(8):
            routes, count = routes_from(edges, f"n32-gpu{g}")
            # same rail: its own leaf (a router), nothing else
            self.assertEqual(routes[f"n33-gpu{g}"], [f"n32-pcie-gpu{g}_UP", f"n32-nic{g}_UP", f"n33-nic{g}_DOWN",
                                                     f"n33-pcie-gpu{g}_DOWN"])
            self.assertEqual(routes["group1-up"], [f"n32-pcie-gpu{g}_UP", f"n32-nic{g}_UP", f"leaf{8 + g}-up_UP"])
            self.assertEqual(count["group1-up"], 1)
        # Across rails inside a group: through the node's NVSwitch to the rail of the destination
        # (NCCL's PXN), never up to the spine.
        routes, _ = routes_from(edges, "n32-gpu0")
        self.assertNotIn("group1-up", " ".join(routes["n33-gpu3"]))
        self.assertEqual(len(routes["n33-gpu3"]), 6)

    def test_dgx1_cube_mesh_links_and_two_hop_pairs(self):
        root = platform("--platform", "dgx1", "--nodes", "1")
        links = {ln.get("id"): ln.get("bandwidth") for ln in root.iter("link")}
        self.assertEqual(links["n0-nvl-gpu0-gpu3"], "50GBps")  # NV2
        self.assertEqual(links["n0-nvl-gpu0-gpu1"], "25GBps")  # NV1
        self.assertEqual(sum(1 for i in links if i.startswith("n0-nvl-")), 16)
        zone = root.find("zone")
        edges = zone_graph(zone)
        # Floyd keeps a declared route when another is only as short (it relaxes on strictly
        # fewer links), so the two-hop routes the generator declares are the ones taken.
        declared = {(r.get("src"), r.get("dst")): len(r.findall("link_ctn")) for r in zone.findall("route")}
        for a in range(8):
            routes, count = routes_from(edges, f"n0-gpu{a}")
            for b in range(a + 1, 8):
                src, dst = f"n0-gpu{a}", f"n0-gpu{b}"
                self.assertIn((src, dst), declared)  # every pair: one link or a declared two-hop route
                self.assertEqual(declared[(src, dst)], len(routes[dst]), (a, b))
        two_hop = {k for k, n in declared.items() if n == 2 and k[0].startswith("n0-gpu") and k[1].startswith("n0-gpu")}
        self.assertEqual(len(two_hop), 12)  # 28 pairs, 16 linked
        via = {(r.get("src"), r.get("dst")): [c.get("id") for c in r.findall("link_ctn")] for r in zone.findall("route")}
        self.assertEqual(via[("n0-gpu0", "n0-gpu7")], ["n0-nvl-gpu0-gpu4", "n0-nvl-gpu4-gpu7"])  # the double links

    def test_s822lc_description_routes_as_the_module(self):
        root = platform("--description", os.path.join(DESCRIPTIONS, "s822lc.json"), "--nodes", "2")
        routes, _ = routes_from(zone_graph(root.find("zone")), "n0-gpu0")
        self.assertEqual(routes["n0-gpu2"], ["n0-nvl-gpu0-cpu0_UP", "n0-xbus_UP", "n0-nvl-gpu2-cpu1_DOWN"])
        self.assertEqual(routes["n1-gpu2"], ["n0-nvl-gpu0-cpu0_UP", "n0-nic0_UP", "n1-nic1_DOWN",
                                             "n1-nvl-gpu2-cpu1_DOWN"])


with open(os.path.join(DESCRIPTIONS, "dgx_h100.json")) as f:
    BASE = json.load(f)


def variant(path, value):
    """BASE with the field at `path` (a list of keys) set to value (None: removed)."""
    d = json.loads(json.dumps(BASE))
    obj = d
    for key in path[:-1]:
        obj = obj[key]
    if value is None:
        del obj[path[-1]]
    else:
        obj[path[-1]] = value
    return json.dumps(d)


BAD = [  # (description text, message after "generate.py: error: FILE: ")
    (variant(["node", "gpus"], -3), "node.gpus: must be a positive integer, got -3"),
    (variant(["node", "gpus"], "eight"), 'node.gpus: must be a positive integer, got "eight"'),
    (variant(["network", "topology"], "torus"),
     'network.topology: must be one of fat_tree2, fat_tree3, rail, rail3, got "torus"'),
    (variant(["node", "gpu", "speed"], "fast"),
     'node.gpu.speed: must be a number or a number with one of the units f, kf, Mf, Gf, Tf, Pf, got "fast"'),
    (variant(["node", "nic", "bandwidth"], 0), "node.nic.bandwidth: must be > 0, got 0"),
    (variant(["node", "pcie", "latency"], -1e-6), "node.pcie.latency: must be >= 0, got -1e-06"),
    (variant(["node", "fabric", "kind"], "ring"), 'node.fabric.kind: must be one of switch, mesh, pcie, got "ring"'),
    (variant(["node", "gpu", "sped"], 1), "node.gpu.sped: unknown field (known: speed, memory_bandwidth), got 1"),
    (variant(["node", "nics"], [{"gpus": [0, 1, 2, 3, 4, 5, 6]}]),
     'node.nics: must give every GPU 0 .. 7 exactly one NIC, got [{"gpus": [0, 1, 2, 3, 4, 5, 6]}]'),
    (variant(["node", "nics"], [{"gpus": [0, 1, 2, 3, 4, 5, 6, 9]}]),
     "node.nics[0].gpus[7]: must be a GPU index 0 .. 7, got 9"),
    (variant(["node", "nics"], [{"gpus": list(range(8)), "attach": "cpu0"}]),
     'node.nics[0].attach: must be a router of the fabric [\'nvswitch\'], got "cpu0"'),
    (variant(["network", "nodes"], 6), "network.nodes: must be <= or a multiple of nodes_per_leaf 4, got 6"),
    (variant(["network", "oversubscription"], 0), "network.oversubscription: must be a number > 0, got 0"),
    (variant(["node", "nic"], None), "node.nic: is missing (node.nics needs the NIC's figures)"),
    (json.dumps(dict(BASE, node={k: v for k, v in BASE["node"].items() if k not in ("nic", "nics")})),
     "node.nic: is missing (4 nodes need a network)"),
    (variant(["network", "switch_latency"], None), "network.switch_latency: is missing"),
    (variant(["network", "switch_latency"], {"value": "1us", "source": "a -- b"}),
     'network.switch_latency.source: must be a non-empty text without \'--\', got "a -- b"'),
    (variant(["node", "fabric"], {"kind": "mesh", "link": {"bandwidth": "25GBps", "latency": "1us"},
                                  "links": [[0, "cpu9", 1]]}),
     "node.fabric.links[0].ends[1]: must be a GPU index 0 .. 7 or a router of fabric.routers [], got \"cpu9\""),
    (variant(["node"], {"calibrated": "no/such/file.xml"}),
     "node.calibrated: cannot read a platform there (No such file or directory), got \"no/such/file.xml\""),
    ('{"name": "x", "node": ', "not JSON: Expecting value at line 1 column 23"),
    # Numbers JSON lets through (NaN, Infinity, 1e999) and figures out of range: never written as "nanGBps".
    (variant(["network", "oversubscription"], float("nan")),
     "network.oversubscription: must be a finite number (0.01 .. 100), got NaN"),
    (variant(["network", "pod_oversubscription"], 1000), "network.pod_oversubscription: must be 0.01 .. 100, got 1000"),
    (variant(["node", "nic", "bandwidth"], float("inf")),
     "node.nic.bandwidth: must be a finite number (1 .. 1e+15 B/s), got Infinity"),
    (variant(["node", "nic", "bandwidth"], "1e999Gbps"),
     'node.nic.bandwidth: must be a finite number (1 .. 1e+15 B/s), got "1e999Gbps"'),
    (variant(["node", "pcie", "latency"], {"value": float("nan"), "source": "s"}),
     "node.pcie.latency: must be a finite number (0 .. 1 s), got NaN"),
    (variant(["node", "pcie", "latency"], "2s"), 'node.pcie.latency: must be 0 .. 1 s, got "2s"'),
    (variant(["node", "gpu", "speed"], 10), "node.gpu.speed: must be 1000 .. 1e+18 flop/s, got 10"),
    (variant(["network", "switch_latency"], float("-inf")), "network.switch_latency: must be >= 0, got -Infinity"),
    (variant(["node", "fabric"], {"kind": "mesh", "link": {"bandwidth": "25GBps", "latency": "1us"},
                                  "links": [[0, 1, 1000]]}),
     'node.fabric.links[0].count: must be at most 64 (platforms/README.md, "Limits"), got 1000'),
    # Shapes: every one has a limit, checked before any XML is built (--nodes 1000000000 wrote for ever).
    (variant(["network", "nodes"], 1000000000), 'network.nodes: must be at most 65536 (platforms/README.md, "Limits"), '
     "got 1000000000"),
    (variant(["node", "gpus"], 4096), 'node.gpus: must be at most 2048 (platforms/README.md, "Limits"), got 4096'),
    (variant(["network"], dict(BASE["network"], nodes=16384, nodes_per_leaf=32)),
     "network.nodes: gives 131072 GPUs (nodes x node.gpus), more than the 65536 a generated platform may have "
     '(platforms/README.md, "Limits"), got 16384'),
    (variant(["network"], dict(BASE["network"], nodes=512, nodes_per_leaf=512)),
     "network.nodes_per_leaf: gives 4096 GPUs in one leaf group (nodes_per_leaf x node.gpus), more than the 2048 a "
     'generated platform may have (platforms/README.md, "Limits"), got 512'),
    (variant(["network", "nodes"], 4100), "network.nodes: gives 1025 leaf groups side by side, more than the 1024 a "
     "generated platform may have; more nodes_per_leaf, or a three-tier topology (platforms/README.md, \"Limits\"), "
     "got 4100"),
]


class Errors(unittest.TestCase):
    def test_each_bad_description_names_field_and_value_and_exits_1(self):
        with tempfile.TemporaryDirectory() as tmp:
            for i, (text, message) in enumerate(BAD):
                path = os.path.join(tmp, f"bad_{i}.json")
                with open(path, "w") as f:
                    f.write(text)
                with self.subTest(message=message):
                    r = generate("--description", path)
                    self.assertEqual(r.returncode, 1)
                    self.assertEqual(r.stdout, "")
                    self.assertEqual(r.stderr, f"generate.py: error: {path}: {message}\n")

    def test_missing_description_file(self):
        r = generate("--description", "/no/such/description.json")
        self.assertEqual(r.returncode, 1)
        self.assertEqual(r.stderr, "generate.py: error: /no/such/description.json: cannot read the description: "
                                   "No such file or directory\n")

    def test_command_line_network_errors_name_the_field(self):
        r = generate("--platform", "dgx_h100", "--nodes", "48", "--topology", "rail")
        self.assertEqual(r.returncode, 1)
        self.assertIn("network.nodes: must be <= or a multiple of nodes_per_leaf 32, got 48", r.stderr)


if __name__ == "__main__":
    unittest.main()
