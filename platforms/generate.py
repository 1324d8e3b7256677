#!/usr/bin/env python3
"""Generates the SimGrid 3.32 platform files of ddl (DTD 4.1). Standard library only.

  python3 platforms/generate.py            regenerate every checked-in file beside this script
  python3 platforms/generate.py --check    exit 1 if a checked-in file differs from its regeneration
  python3 platforms/generate.py --platform s822lc --nodes 1024 -o /tmp/s822lc_1024.xml
  python3 platforms/generate.py --platform emulated --nodes 4 --ranks-per-node 2 --nodes-per-leaf 2 \
      --nic 500mbit --uplink 500mbit [--nics 2] -o emulated.xml   # the nominal platform of a ddlcluster
  python3 platforms/generate.py --platform dgx_h100 --nodes 1024 --topology rail -o /tmp/h100_1024.xml
  python3 platforms/generate.py --description my_cluster.json -o my_cluster.xml   # a machine you describe

Every figure is a parameter; its source is written next to it in the XML. Figures that no
source pins down say "assumed". The layout (zones, gateways, link names) is described in
platforms/README.md, which is the contract the simulator relies on.
"""
import argparse
import os
import sys

sys.dont_write_bytecode = True  # keep the source tree free of __pycache__
from bigbasin import bigbasin  # noqa: E402 (after the bytecode switch)
from cluster import cluster  # noqa: E402
from description import TOPOLOGIES, load  # noqa: E402
from emulated import emulated  # noqa: E402
from limits import (MAX_EMULATED_NICS, MAX_EMULATED_RANKS, MAX_GPUS, MAX_GROUP_GPUS, MAX_LINK_COUNT,  # noqa: E402
                    MAX_ZONES, out_of_range)
from output_file import OutputError, check_distinct_files, check_writable, write_text  # noqa: E402
from s822lc import s822lc  # noqa: E402
from small import star_16, two_hosts  # noqa: E402

S822LC_NODES = [1, 2, 4, 8, 16, 32, 64, 128, 256]
BIGBASIN_SERVERS = [1, 2, 4, 8, 16, 32]
HERE = os.path.dirname(os.path.abspath(__file__))
DESCRIBED = ["dgx1", "dgx_a100", "dgx_h100"]  # shipped descriptions under descriptions/, by --platform
# Checked-in examples from shipped descriptions: file -> (description, network overrides).
DESCRIBED_FILES = {
    "dgx1_2.xml": ("dgx1", {"nodes": 2}),
    "dgx_a100_2.xml": ("dgx_a100", {"nodes": 2}),
    "dgx_h100_4.xml": ("dgx_h100", {"nodes": 4}),
    "dgx_h100_rail_64.xml": ("dgx_h100", {"nodes": 64, "topology": "rail"}),  # 2 scalable units of 32
}


def checked_in(a):
    files = {f"s822lc_{n}.xml": (lambda n=n: s822lc(n, a)) for n in S822LC_NODES}
    files.update({f"bigbasin_{n}.xml": (lambda n=n: bigbasin(n, a)) for n in BIGBASIN_SERVERS})
    files.update({"two_hosts.xml": two_hosts, "star_16.xml": star_16})
    files.update({name: (lambda d=d, o=o: described(shipped(d), o)) for name, (d, o) in DESCRIBED_FILES.items()})
    return files


def shipped(name):
    return os.path.join(HERE, "descriptions", f"{name}.json")


def described(path, overrides, output=None):
    """The XML of the description in `path`; errors name the file, the field and the value. A
    calibrated node's platform is an input too: `output` must not be it."""
    shown = os.path.relpath(os.path.abspath(path), os.path.dirname(HERE))
    shown = path if shown.startswith("..") else shown  # inside the project: stable, cwd-independent
    try:
        d = load(path, overrides)
    except ValueError as e:
        fail(f"{shown}: {e}")
    if d.node.fabric.kind == "calibrated":
        distinct([d.node.fabric.path], output)
    d.path_text = shown
    try:
        return cluster(d)
    except ValueError as e:
        fail(f"{shown}: {e}")


def distinct(inputs, output):
    try:
        check_distinct_files(inputs, [output])
    except OutputError as e:
        fail(str(e))


def fail(message):
    sys.exit(f"generate.py: error: {message}")


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--platform", choices=["s822lc", "bigbasin", "emulated"] + DESCRIBED,
                   help="generate one file of this kind (dgx*: the shipped descriptions/<name>.json)")
    p.add_argument("--description", metavar="FILE", help="generate the machine described in FILE (JSON, see README)")
    p.add_argument("--nodes", type=int, help="nodes (S822LC nodes, Big Basin servers, DGX or described nodes)")
    p.add_argument("-o", "--output", help="output file for --platform, '-' for stdout")
    p.add_argument("--check", action="store_true", help="compare the checked-in files with their regeneration")
    f = p.add_argument_group("figures (SI units: bytes/s, seconds, flop/s)")
    f.add_argument("--nodes-per-leaf", type=int, help="nodes per leaf switch (S822LC default 8, assumed; "
                   "described machines: their description's)")
    f.add_argument("--gpu-speed", type=float, default=10.6e12, help="P100 FP32 peak (datasheet)")
    f.add_argument("--gpu-memory-bandwidth", type=float, default=732e9, help="P100 HBM2 (datasheet)")
    f.add_argument("--nvlink-bw", type=float, default=20e9, help="one NVLink 1.0 link per direction (REDP-5405)")
    f.add_argument("--nvlinks-per-pair", type=int, default=2, help="S822LC links GPU-CPU and GPU-GPU (REDP-5405)")
    f.add_argument("--nvlink-latency", type=float, default=0.5e-6, help="per NVLink hop (assumed)")
    f.add_argument("--xbus-bw", type=float, default=38.4e9, help="POWER8 X-bus per direction (assumed)")
    f.add_argument("--xbus-latency", type=float, default=0.2e-6, help="X-bus hop (assumed)")
    f.add_argument("--hca-bw", type=float, default=12.5e9, help="EDR InfiniBand per direction (assumed)")
    f.add_argument("--ib-latency", type=float, default=1.5e-6, help="MPI end to end over EDR, one switch (assumed)")
    f.add_argument("--switch-latency", type=float, default=0.1e-6, help="per switch hop (assumed)")
    f.add_argument("--oversubscription", type=float, help="leaf downlinks / uplinks (default 1, assumed)")
    f.add_argument("--pcie-bw", type=float, default=15.75e9, help="Big Basin GPU PCIe Gen3 x16 (assumed)")
    f.add_argument("--pcie-latency", type=float, default=0.5e-6, help="Big Basin PCIe hop (assumed)")
    f.add_argument("--eth-bw", type=float, default=6.25e9, help="Big Basin NIC, 50 Gbit/s (Goyal et al.)")
    f.add_argument("--eth-latency", type=float, default=2e-6, help="Big Basin NIC link (assumed)")
    f.add_argument("--eth-switch-latency", type=float, default=0.5e-6, help="Ethernet switch hop (assumed)")
    n = p.add_argument_group("network of a described machine (default: the description's; also --nodes, --nodes-per-leaf, --oversubscription)")
    n.add_argument("--topology", choices=TOPOLOGIES, help="two- or three-tier fat tree, all NICs of a node on one "
                   "leaf (fat_tree*) or NIC i of every node on leaf i (rail*)")
    n.add_argument("--leaves-per-pod", type=int, help="leaf groups per pod (three tiers)")
    n.add_argument("--pod-oversubscription", type=float, help="pod downlinks / uplinks (three tiers)")
    e = p.add_argument_group("emulated cluster (cluster/ddlcluster's parameters; --nodes-per-leaf as above)")
    e.add_argument("--ranks-per-node", type=int, default=2, help="ranks (GPUs) per emulated node")
    e.add_argument("--nic", default="500mbit", help="NIC rate as ddlcluster takes it (tc, bits/s)")
    e.add_argument("--uplink", default="500mbit", help="leaf uplink rate as ddlcluster takes it (tc, bits/s)")
    e.add_argument("--nics", type=int, default=1, help="NICs per node, NIC k of every node on rail k "
                   "(ddlcluster up --nics; 1: one NIC, no rails)")
    e.add_argument("--tcp-latency", type=float, default=30e-6, help="one-way TCP latency node to node (assumed)")
    e.add_argument("--shm-bw", type=float, default=5e9, help="one copy through shared memory (assumed)")
    e.add_argument("--shm-bus-bw", type=float, default=10e9, help="all of a node's copies at once (assumed)")
    e.add_argument("--shm-latency", type=float, default=1e-6, help="shared-memory message latency (assumed)")
    e.add_argument("--host-memory-bandwidth", type=float, default=15e9,
                   help="what the simulator divides 3n by for a reduce of n (assumed)")
    a = p.parse_args(argv)
    for key, value in vars(a).items():
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            check_number(f"--{key.replace('_', '-')}", key, value)
    if a.switch_latency > a.ib_latency:
        fail(f"--switch-latency {a.switch_latency} exceeds --ib-latency {a.ib_latency}")
    if a.platform and a.description:
        fail("--platform and --description exclude each other")
    if a.description:
        if a.output is None:
            fail("--description needs -o (a file, or '-' for stdout)")
    elif (a.platform is None) != (a.nodes is None) or (a.platform is None) != (a.output is None):
        fail("--platform, --nodes and -o go together (or give none to regenerate the checked-in files)")
    if a.check and (a.platform or a.description):
        fail("--check compares the checked-in files; it takes no --platform or --description")
    # What a described machine takes from the command line: only what was given.
    a.network_overrides = {"nodes": a.nodes, "topology": a.topology, "nodes_per_leaf": a.nodes_per_leaf,
                           "leaves_per_pod": a.leaves_per_pod, "oversubscription": a.oversubscription,
                           "pod_oversubscription": a.pod_oversubscription}
    a.nodes_per_leaf = 8 if a.nodes_per_leaf is None else a.nodes_per_leaf  # S822LC, emulated (assumed)
    a.oversubscription = 1.0 if a.oversubscription is None else a.oversubscription
    return a


# The largest value of each count flag (limits.py says why); every other number is a figure.
COUNT_LIMITS = {"nodes": MAX_GPUS, "nodes_per_leaf": MAX_GROUP_GPUS, "leaves_per_pod": MAX_ZONES,
                "ranks_per_node": MAX_EMULATED_RANKS, "nvlinks_per_pair": MAX_LINK_COUNT, "nics": MAX_EMULATED_NICS}


def check_number(flag, key, value):
    """A count flag in 1 .. its limit; a figure finite and in the range of its kind (limits.py)."""
    if isinstance(value, int):
        if not 1 <= value <= COUNT_LIMITS[key]:
            fail(f"{flag} must be 1 .. {COUNT_LIMITS[key]} (platforms/README.md, \"Limits\"), got {value}")
        return
    kind = ("latency" if key.endswith("latency") else "oversubscription" if key.endswith("oversubscription")
            else "speed" if key == "gpu_speed" else "bandwidth")
    if value < 0 or (value == 0 and kind != "latency"):  # NaN is neither: out_of_range names it
        fail(f"{flag} must be {'>= 0' if kind == 'latency' else '> 0'}, got {value}")
    problem = out_of_range(value, kind)
    if problem:
        fail(f"{flag} {problem}, got {value}")


def read_or_none(path):
    try:
        with open(path, encoding="ascii") as f:
            return f.read()
    except FileNotFoundError:
        return None


def write(path, text):
    """All or nothing (output_file.py): a failed write leaves the previous file as it was."""
    try:
        write_text(path, text)
    except OutputError as e:
        fail(str(e))


def main(argv):
    a = parse_args(argv)
    if a.output is not None:  # before any work: a file that cannot be written, or that is an input
        try:
            check_writable(a.output)
        except OutputError as e:
            fail(str(e))
        distinct([a.description or (shipped(a.platform) if a.platform in DESCRIBED else None)], a.output)
    if a.description or a.platform in DESCRIBED:
        text = described(a.description or shipped(a.platform), a.network_overrides, a.output)
    elif a.platform:
        try:
            text = {"s822lc": s822lc, "bigbasin": bigbasin, "emulated": emulated}[a.platform](a.nodes, a)
        except ValueError as e:
            fail(str(e))
    if a.platform or a.description:
        write(a.output, text)
        return 0
    stale = []
    for name, make in checked_in(a).items():
        path, text = os.path.join(HERE, name), make()
        if read_or_none(path) == text:
            continue  # unchanged files keep their timestamps
        if a.check:
            stale.append(name)
        else:
            write(path, text)
    if stale:
        print("out of date (run python3 platforms/generate.py): " + ", ".join(stale), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
