#!/usr/bin/env python3
"""The described families in the simulator: every family loads; SimGrid's routes are what the
hardware has; on contention-free paths ddlsim's time is the α-β-γ closed form computed here by
hand from the descriptions' figures (as sim/tests/test_closed_form.cpp does for its fixtures);
the S822LC and Big Basin descriptions simulate exactly as their modules' checked-in files; a
calibrated node replicated once simulates exactly as the file ddlcalibrate wrote.

  python3 platforms/tests/test_simulated.py DDLSIM SIM_PROBE      (ctest passes both)
"""
import atexit
import csv
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
PLATFORMS = os.path.dirname(HERE)
ROOT = os.path.dirname(PLATFORMS)
DESCRIPTIONS = os.path.join(PLATFORMS, "descriptions")
DDLSIM, SIM_PROBE = (sys.argv[1:3] if len(sys.argv) >= 3 else
                     [os.path.join(ROOT, "build", "bin", b) for b in ("ddlsim", "sim_probe")])
TMP = tempfile.mkdtemp(prefix="ddl_platform_tests_")
atexit.register(shutil.rmtree, TMP, True)
us, GB = 1e-6, 1e9


def generate(name, *args):
    path = os.path.join(TMP, name + ".xml")
    r = subprocess.run([sys.executable, os.path.join(PLATFORMS, "generate.py"), *args, "-o", path],
                       capture_output=True, text=True)
    if r.returncode:
        raise AssertionError(r.stderr)
    return path


def simulate(platform, *args):
    """{(algo, bytes): seconds} of `ddlsim --format csv`."""
    r = subprocess.run([DDLSIM, "--platform", platform, "--format", "csv", *args], capture_output=True, text=True)
    if r.returncode:
        raise AssertionError(f"ddlsim on {platform}: {r.stderr}")
    rows = csv.DictReader(l for l in r.stdout.splitlines() if not l.startswith("#"))  # metadata
    return {(row["algo"], int(row["size"])): float(row["time_us"]) * us for row in rows}


def route(platform, src, dst):
    r = subprocess.run([SIM_PROBE, platform, "route", str(src), str(dst)], capture_output=True, text=True)
    if r.returncode:
        raise AssertionError(r.stderr)
    return r.stdout.split()


def dimensional_rings(dims, step_time, gamma, size):
    """Reduce-scatter then allgather along each dimension in turn; step_time(d, piece) is the
    slowest ring neighbour pair's α + piece β in dimension d."""
    t, piece = 0.0, float(size)
    for d, g in enumerate(dims):
        piece /= g
        t += 2 * (g - 1) * step_time(d, piece) + (g - 1) * piece * gamma
    return t


def per_dim(alphas, bandwidths):
    return lambda d, piece: alphas[d] + piece / bandwidths[d]


SIZES = (65536, 1048576, 16777216)

# Figures of the shipped descriptions (descriptions/*.json), restated so a changed figure shows.
H100 = dict(nvl=0.25 * us, nvl_bw=450 * GB, pcie=0.5 * us, nic=0.7 * us, nic_bw=50 * GB, hop=0.13 * us, mem=3350 * GB)
A100 = dict(nvl=0.25 * us, nvl_bw=300 * GB, pcie=0.5 * us, nic=0.7 * us, nic_bw=25 * GB, hop=0.13 * us, mem=1555 * GB)


def leaf_alpha(f):  # GPU -> PCIe -> NIC -> leaf -> NIC -> PCIe -> GPU
    return 2 * (f["pcie"] + f["nic"]) + f["hop"]


class ClosedForm(unittest.TestCase):
    def check(self, platform, algo, expected, *args):
        times = simulate(platform, "--algo", algo, "-b", "64K", "-e", "16M", "-f", "16", *args)
        for size in SIZES:
            with self.subTest(platform=os.path.basename(platform), size=size):
                self.assertAlmostEqual(times[(algo, size)] / expected(size), 1, delta=0.01,
                                       msg=f"simulated {times[(algo, size)]}, closed form {expected(size)}")

    def test_two_gpus_on_two_nodes_ring(self):
        # One H100 and its NIC per node: ring on 2 ranks = 2 (p-1) (α + S/p β) + (p-1) S/p γ.
        desc = os.path.join(TMP, "h100_one_gpu.json")
        with open(os.path.join(DESCRIPTIONS, "dgx_h100.json")) as f:
            d = json.load(f)
        d["node"]["gpus"], d["node"]["nics"] = 1, [{"gpus": [0]}]
        with open(desc, "w") as f:
            json.dump(d, f)
        p = generate("h100_one_gpu", "--description", desc, "--nodes", "2")
        self.assertEqual(route(p, 0, 1), ["n0-pcie-gpu0_UP", "n0-nic0_UP", "n1-nic0_DOWN", "n1-pcie-gpu0_DOWN"])
        self.check(p, "ring", lambda s: 2 * (leaf_alpha(H100) + s / 2 / H100["nic_bw"]) + s / 2 * 3 / H100["mem"])

    def test_dgx_h100_fat_tree_ddl_8x2(self):
        p = generate("dgx_h100_2", "--platform", "dgx_h100", "--nodes", "2")
        step = per_dim([2 * H100["nvl"], leaf_alpha(H100)], [H100["nvl_bw"], H100["nic_bw"]])
        self.check(p, "ddl", lambda s: dimensional_rings([8, 2], step, 3 / H100["mem"], s))

    def test_dgx_h100_rails_and_oversubscribed_uplinks_ddl_8x2x2(self):
        # Two groups of 2 nodes: rail r's leaf uplink carries the 2 GPUs r of its group.
        spine = 2 * (H100["pcie"] + H100["nic"] + H100["hop"]) + H100["hop"]  # two leaves and the spine
        for over in (1, 2):
            p = generate(f"dgx_h100_rail_4_{over}", "--platform", "dgx_h100", "--nodes", "4", "--topology", "rail",
                         "--nodes-per-leaf", "2", "--oversubscription", str(over))
            up = 2 * H100["nic_bw"] / over / 2  # uplink bundle shared by the group's 2 flows of the rail
            step = per_dim([2 * H100["nvl"], leaf_alpha(H100), spine], [H100["nvl_bw"], H100["nic_bw"],
                                                                         min(H100["nic_bw"], up)])
            self.check(p, "ddl", lambda s: dimensional_rings([8, 2, 2], step, 3 / H100["mem"], s))

    def test_dgx_a100_three_tiers_ddl_8x2x2x2(self):
        p = generate("dgx_a100_3tier_8", "--platform", "dgx_a100", "--nodes", "8", "--topology", "fat_tree3",
                     "--nodes-per-leaf", "2", "--leaves-per-pod", "2")
        edge = 2 * (A100["pcie"] + A100["nic"] + A100["hop"])
        self.assertEqual(route(p, 0, 63), ["n0-pcie-gpu0_UP", "n0-nic0_UP", "leaf0-up_UP", "group0-spine_UP",
                                           "pod0-up_UP", "pod1-up_DOWN", "group3-spine_DOWN", "leaf3-up_DOWN",
                                           "n7-nic7_DOWN", "n7-pcie-gpu7_DOWN"])
        step = per_dim([2 * A100["nvl"], leaf_alpha(A100), edge + A100["hop"], edge + 3 * A100["hop"]],
                       [A100["nvl_bw"]] + [A100["nic_bw"]] * 3)
        self.check(p, "ddl", lambda s: dimensional_rings([8, 2, 2, 2], step, 3 / A100["mem"], s))

    def test_dgx1_flat_ring_is_bound_by_the_cross_node_pairs(self):
        # Rank order: inside a node the cube-mesh (>= 25 GB/s, <= 1 us); 7 -> 8 and 15 -> 0 cross
        # nodes on NICs 3 and 0 (12.5 GB/s, 2 (0.5 + 0.7) + 0.1 us), every direction used once.
        p = generate("dgx1_2", "--platform", "dgx1", "--nodes", "2")
        self.assertEqual(route(p, 7, 8), ["n0-pcie-gpu7_UP", "n0-nic3_UP", "n1-nic0_DOWN", "n1-pcie-gpu0_DOWN"])
        alpha = 2 * (0.5 + 0.7) * us + 0.1 * us
        self.check(p, "ring", lambda s: 30 * (alpha + s / 16 / 12.5e9) + 15 * s / 16 * 3 / 900e9)


class Routes(unittest.TestCase):
    def test_nvswitch_pairs_and_rails(self):
        p = generate("dgx_h100_rail_64", "--platform", "dgx_h100", "--nodes", "64", "--topology", "rail")
        for a in range(8):
            for b in range(8):
                if a != b:
                    self.assertEqual(route(p, a, b), [f"n0-nvswitch-gpu{a}_UP", f"n0-nvswitch-gpu{b}_DOWN"])
        for g in range(8):
            # node 0 -> node 1, same rail: its own leaf, a router between the two NICs
            self.assertEqual(route(p, g, 8 + g), [f"n0-pcie-gpu{g}_UP", f"n0-nic{g}_UP", f"n1-nic{g}_DOWN",
                                                  f"n1-pcie-gpu{g}_DOWN"])
            across = route(p, g, 32 * 8 + g)  # node 0 -> node 32 (the other group), same rail
            self.assertEqual(across, [f"n0-pcie-gpu{g}_UP", f"n0-nic{g}_UP", f"leaf{g}-up_UP", "group0-spine_UP",
                                      "group1-spine_DOWN", f"leaf{8 + g}-up_DOWN", f"leaf{8 + g}-down_UP",
                                      f"n32-nic{g}_DOWN", f"n32-pcie-gpu{g}_DOWN"])
        # Across rails in a group: over the NVSwitch to the destination's rail (PXN).
        self.assertEqual(route(p, 0, 8 + 3), ["n0-nvswitch-gpu0_UP", "n0-nvswitch-gpu3_DOWN", "n0-pcie-gpu3_UP",
                                              "n0-nic3_UP", "n1-nic3_DOWN", "n1-pcie-gpu3_DOWN"])

    def test_dgx1_nic_affinity(self):
        p = generate("dgx1_2", "--platform", "dgx1", "--nodes", "2")
        for g in range(8):
            self.assertEqual(route(p, g, 8 + g)[1], f"n0-nic{g // 2}_UP")


class SameAsModules(unittest.TestCase):
    def test_s822lc_and_bigbasin_descriptions_simulate_as_the_checked_in_files(self):
        for family, nodes in (("s822lc", 1), ("s822lc", 4), ("s822lc", 16), ("bigbasin", 1), ("bigbasin", 2)):
            with self.subTest(family=family, nodes=nodes):
                described = generate(f"{family}_{nodes}_described", "--description",
                                     os.path.join(DESCRIPTIONS, f"{family}.json"), "--nodes", str(nodes))
                args = ("--algo", "all", "-b", "1K", "-e", "64M", "-f", "64")
                self.assertEqual(simulate(described, *args),
                                 simulate(os.path.join(PLATFORMS, f"{family}_{nodes}.xml"), *args))


class Calibrated(unittest.TestCase):
    DESCRIPTION = os.path.join(DESCRIPTIONS, "examples", "calibrated_256.json")
    MEASURED = os.path.join(ROOT, "experiments", "results", "sim_vs_real", "calibrated_2.xml")

    def test_one_calibrated_node_simulates_as_the_calibrated_file(self):
        p = generate("calibrated_1", "--description", self.DESCRIPTION, "--nodes", "1")
        args = ("--algo", "all", "-b", "1K", "-e", "64M", "-f", "8")
        self.assertEqual(simulate(p, *args), simulate(self.MEASURED, *args))

    def test_calibrated_nodes_scale_out_on_the_described_network(self):
        p = generate("calibrated_32", "--description", self.DESCRIPTION, "--nodes", "32")
        self.assertEqual(route(p, 0, 1), ["n0-gpu0-link_UP", "n0-bus", "n0-gpu1-link_DOWN"])
        self.assertEqual(route(p, 0, 2), ["n0-pcie-gpu0_UP", "n0-nic0_UP", "n1-nic0_DOWN", "n1-pcie-gpu0_DOWN"])
        times = simulate(p, "--algo", "ddl,rhd", "-b", "1M", "-e", "1M")
        self.assertEqual(len(times), 2)
        self.assertTrue(all(t > 0 for t in times.values()))


class CalibratedFactorsAreTheNodeClass(unittest.TestCase):
    def test_scaled_out_calibrated_factors_are_written_as_ddl_node_factors(self):
        import xml.etree.ElementTree as ET
        measured = {p.get("id"): p.get("value") for p in ET.parse(Calibrated.MEASURED).getroot().find("zone")
                    .findall("prop")}
        for nodes in (1, 4):
            with self.subTest(nodes=nodes):
                p = generate(f"calibrated_props_{nodes}", "--description", Calibrated.DESCRIPTION, "--nodes", str(nodes))
                zone = ET.parse(p).getroot().find("zone")
                props = {e.get("id"): e.get("value") for e in zone.findall("prop")}
                self.assertEqual(props["ddl_node_lat_factors"], measured["ddl_lat_factors"])
                self.assertEqual(props["ddl_node_bw_factors"], measured["ddl_bw_factors"])
                self.assertNotIn("ddl_lat_factors", props)
                self.assertNotIn("ddl_bw_factors", props)
                self.assertEqual(props["ddl_memory_factors"], measured["ddl_memory_factors"])


class DdlsimTakesDescriptionsAndGeneratedClusters(unittest.TestCase):
    def test_a_description_runs_as_the_file_it_generates(self):
        description = os.path.join(DESCRIPTIONS, "dgx_h100.json")
        args = ("--algo", "ring,ddl,rhd", "-b", "1M", "-e", "16M", "-f", "16")
        direct = simulate(description, *args)
        self.assertEqual(len(direct), 6)
        self.assertEqual(direct, simulate(generate("dgx_h100_described", "--description", description), *args))
        r = subprocess.run([DDLSIM, "--platform", description, "-b", "1M", "-e", "1M"], capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn(f"\n# ddlsim: platform {description}, 32 GPUs, dims 8x4,", r.stdout)

    def test_a_bad_description_stops_ddlsim_with_the_generators_message(self):
        bad = os.path.join(TMP, "bad.json")
        with open(os.path.join(DESCRIPTIONS, "dgx_h100.json")) as f:
            d = json.load(f)
        d["network"]["topology"] = "ring"
        with open(bad, "w") as f:
            json.dump(d, f)
        r = subprocess.run([DDLSIM, "--platform", bad], capture_output=True, text=True)
        self.assertEqual(r.returncode, 1)
        self.assertEqual(r.stdout, "")
        self.assertEqual(len(r.stderr.splitlines()), 1, r.stderr)
        self.assertIn(f"platform description '{bad}': ", r.stderr)
        self.assertIn(f"generate.py: error: {bad}: network.topology: ", r.stderr)

    def test_a_32_node_dgx_h100_cluster_generated_now_runs(self):
        for topology, dims in (("fat_tree2", "8x4x8"), ("rail", "8x32")):
            with self.subTest(topology=topology):
                p = generate(f"dgx_h100_32_{topology}", "--platform", "dgx_h100", "--nodes", "32", "--topology", topology)
                r = subprocess.run([DDLSIM, "--platform", p, "--algo", "ddl,rhd", "-b", "1M", "-e", "1M", "--format", "csv"],
                                   capture_output=True, text=True)
                self.assertEqual(r.returncode, 0, r.stderr)
                rows = list(csv.DictReader(l for l in r.stdout.splitlines() if not l.startswith("#")))
                self.assertEqual([row["algo"] for row in rows], ["ddl", "rhd"])
                self.assertEqual(rows[0]["dims"], dims)
                self.assertTrue(all(float(row["time_us"]) > 0 for row in rows))


class EveryFamilyLoads(unittest.TestCase):
    def test_every_family_and_topology_simulates(self):
        families = [("--platform", f) for f in ("dgx1", "dgx_a100", "dgx_h100")] + [
            ("--description", os.path.join(DESCRIPTIONS, f)) for f in
            ("s822lc.json", "bigbasin.json", "examples/pcie_server.json", "examples/calibrated_256.json")]
        for family in families:
            for topology in ("fat_tree2", "fat_tree3", "rail", "rail3"):
                with self.subTest(family=family[1], topology=topology):
                    p = generate("loads", *family, "--nodes", "16", "--topology", topology, "--nodes-per-leaf", "4",
                                 "--leaves-per-pod", "2")
                    self.assertEqual(len(simulate(p, "--algo", "ddl", "-b", "1M", "-e", "1M")), 1)


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1])
