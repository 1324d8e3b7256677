#!/usr/bin/env python3
"""Generates the SimGrid 3.32 platform files of ddl (DTD 4.1). Standard library only.

  python3 platforms/generate.py            regenerate every checked-in file beside this script
  python3 platforms/generate.py --check    exit 1 if a checked-in file differs from its regeneration
  python3 platforms/generate.py --platform s822lc --nodes 1024 -o /tmp/s822lc_1024.xml
  python3 platforms/generate.py --platform emulated --nodes 4 --ranks-per-node 2 --nodes-per-leaf 2 \
      --nic 500mbit --uplink 500mbit -o emulated.xml     # the nominal platform of a ddlcluster

Every figure is a parameter; its source is written next to it in the XML. Figures that no
source pins down say "assumed". The layout (zones, gateways, link names) is described in
platforms/README.md, which is the contract the simulator relies on.
"""
import argparse
import os
import sys

sys.dont_write_bytecode = True  # keep the source tree free of __pycache__
from bigbasin import bigbasin  # noqa: E402 (after the bytecode switch)
from emulated import emulated  # noqa: E402
from s822lc import s822lc  # noqa: E402
from small import star_16, two_hosts  # noqa: E402

S822LC_NODES = [1, 2, 4, 8, 16, 32, 64, 128, 256]
BIGBASIN_SERVERS = [1, 2, 4, 8, 16, 32]


def checked_in(a):
    files = {f"s822lc_{n}.xml": (lambda n=n: s822lc(n, a)) for n in S822LC_NODES}
    files.update({f"bigbasin_{n}.xml": (lambda n=n: bigbasin(n, a)) for n in BIGBASIN_SERVERS})
    files.update({"two_hosts.xml": two_hosts, "star_16.xml": star_16})
    return files


def fail(message):
    sys.exit(f"generate.py: error: {message}")


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--platform", choices=["s822lc", "bigbasin", "emulated"], help="generate one file of this kind")
    p.add_argument("--nodes", type=int, help="S822LC nodes, Big Basin servers or emulated nodes (with --platform)")
    p.add_argument("-o", "--output", help="output file for --platform, '-' for stdout")
    p.add_argument("--check", action="store_true", help="compare the checked-in files with their regeneration")
    f = p.add_argument_group("figures (SI units: bytes/s, seconds, flop/s)")
    f.add_argument("--nodes-per-leaf", type=int, default=8, help="S822LC nodes per leaf switch (assumed)")
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
    f.add_argument("--oversubscription", type=float, default=1.0, help="leaf downlinks / uplinks (assumed)")
    f.add_argument("--pcie-bw", type=float, default=15.75e9, help="Big Basin GPU PCIe Gen3 x16 (assumed)")
    f.add_argument("--pcie-latency", type=float, default=0.5e-6, help="Big Basin PCIe hop (assumed)")
    f.add_argument("--eth-bw", type=float, default=6.25e9, help="Big Basin NIC, 50 Gbit/s (Goyal et al.)")
    f.add_argument("--eth-latency", type=float, default=2e-6, help="Big Basin NIC link (assumed)")
    f.add_argument("--eth-switch-latency", type=float, default=0.5e-6, help="Ethernet switch hop (assumed)")
    e = p.add_argument_group("emulated cluster (cluster/ddlcluster's parameters; --nodes-per-leaf as above)")
    e.add_argument("--ranks-per-node", type=int, default=2, help="ranks (GPUs) per emulated node")
    e.add_argument("--nic", default="500mbit", help="NIC rate as ddlcluster takes it (tc, bits/s)")
    e.add_argument("--uplink", default="500mbit", help="leaf uplink rate as ddlcluster takes it (tc, bits/s)")
    e.add_argument("--tcp-latency", type=float, default=30e-6, help="one-way TCP latency node to node (assumed)")
    e.add_argument("--shm-bw", type=float, default=5e9, help="one copy through shared memory (assumed)")
    e.add_argument("--shm-bus-bw", type=float, default=10e9, help="all of a node's copies at once (assumed)")
    e.add_argument("--shm-latency", type=float, default=1e-6, help="shared-memory message latency (assumed)")
    e.add_argument("--host-memory-bandwidth", type=float, default=15e9,
                   help="what the simulator divides 3n by for a reduce of n (assumed)")
    a = p.parse_args(argv)
    for key, value in vars(a).items():
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            floor_ok = value >= 0 if key.endswith("latency") else value > 0
            if not floor_ok:
                fail(f"--{key.replace('_', '-')} must be {'>= 0' if key.endswith('latency') else '> 0'}, got {value}")
    if a.switch_latency > a.ib_latency:
        fail(f"--switch-latency {a.switch_latency} exceeds --ib-latency {a.ib_latency}")
    if (a.platform is None) != (a.nodes is None) or (a.platform is None) != (a.output is None):
        fail("--platform, --nodes and -o go together (or give none to regenerate the checked-in files)")
    if a.check and a.platform:
        fail("--check compares the checked-in files; it takes no --platform")
    return a


def read_or_none(path):
    try:
        with open(path, encoding="ascii") as f:
            return f.read()
    except FileNotFoundError:
        return None


def write(path, text):
    try:
        with open(path, "w", encoding="ascii", newline="\n") as out:
            out.write(text)
    except OSError as e:
        fail(f"cannot write {path}: {e.strerror}")


def main(argv):
    a = parse_args(argv)
    if a.platform:
        try:
            text = {"s822lc": s822lc, "bigbasin": bigbasin, "emulated": emulated}[a.platform](a.nodes, a)
        except ValueError as e:
            fail(str(e))
        if a.output == "-":
            sys.stdout.write(text)
        else:
            write(a.output, text)
        return 0
    here = os.path.dirname(os.path.abspath(__file__))
    stale = []
    for name, make in checked_in(a).items():
        path, text = os.path.join(here, name), make()
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
