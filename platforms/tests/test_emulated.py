#!/usr/bin/python3
"""The nominal platform of an emulated cluster (platforms/emulated.py) has ddlcluster's
hierarchy: checked on 4 nodes x 2 ranks in 2 leaves by reading the XML back. Ranks are node-major,
every host says its node and leaf, a pair inside a node crosses only that node's shared memory,
a pair in one leaf the two NICs, a pair across leaves the NICs and both uplinks, in that order
and direction; the natural dims are G x K x leaves; rates are the tc rates in bytes/s; bad
parameters are one message and exit 1. With rails (--nics 2, ddlcluster up --nics 2) on 4 nodes x
2 ranks in 2 leaf groups: every node has n<i>-nic0 and n<i>-nic1, leaf g * 2 + k holds NIC k of
group g, a rank's slot picks its NIC, NICs on one leaf meet directly and any other pair (another
rail or group) through both leaves' uplinks; --nics 1 is the file without the flag, byte for
byte."""
import os
import subprocess
import sys
import xml.etree.ElementTree as ET

GENERATE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "generate.py")
ARGS = ["--platform", "emulated", "--nodes", "4", "--ranks-per-node", "2", "--nodes-per-leaf", "2",
        "--nic", "500mbit", "--uplink", "250mbit", "-o", "-"]


def check(condition, what):
    if not condition:
        sys.exit(f"FAILED: {what}")


def generate(args):
    r = subprocess.run([sys.executable, GENERATE] + args, capture_output=True, text=True)
    check(r.returncode == 0, f"generate.py {args}: exit {r.returncode}: {r.stderr}")
    return r.stdout


def parse(text):
    """The root zone, its hosts' properties, its links and its routes."""
    # The comments before <platform> differ in number (rails add one): parse from it.
    zone = ET.fromstring(text[text.index("<platform"):]).find("zone")
    hosts = {h.get("id"): {p.get("id"): p.get("value") for p in h.findall("prop")} for h in zone.findall("host")}
    links = {link.get("id"): link for link in zone.findall("link")}
    routes = {(x.get("src"), x.get("dst")): [(c.get("id"), c.get("direction")) for c in x.findall("link_ctn")]
              for x in zone.findall("route")}
    return zone, hosts, links, routes


one_nic = generate(ARGS)
check(generate(ARGS[:-2] + ["--nics", "1", "-o", "-"]) == one_nic, "--nics 1 differs from no --nics")
zone, hosts, links, routes = parse(one_nic)
props = {p.get("id"): p.get("value") for p in zone.findall("prop")}
check(props["ddl_dims"] == "2x2x2" and props["ddl_gpus"] == "8", f"root props {props}")
check(sorted(hosts) == [f"gpu{r}" for r in range(8)], f"hosts {sorted(hosts)}")
for r in range(8):
    p = hosts[f"gpu{r}"]
    check((p["ddl_rank"], p["ddl_node"], p["ddl_leaf"]) == (str(r), str(r // 2), str(r // 4)), f"gpu{r}: {p}")
check(links["n0-nic"].get("bandwidth") == "0.0625GBps", "NIC: 500 Mbit/s = 62.5 MB/s")
check(links["leaf1-up"].get("bandwidth") == "0.03125GBps", "uplink: 250 Mbit/s")
check(links["n0-shm"].get("sharing_policy") == "SHARED", "a node's shared memory is one shared resource")
check(len(routes) == 8 * 7, f"{len(routes)} routes, expected one per ordered pair")
check(routes[("gpu0", "gpu1")] == [("gpu0-link", "UP"), ("n0-shm", None), ("gpu1-link", "DOWN")], "same node")
check(routes[("gpu1", "gpu2")] == [("n0-nic", "UP"), ("n1-nic", "DOWN")], "same leaf")
check(routes[("gpu7", "gpu0")] == [("n3-nic", "UP"), ("leaf1-up", "UP"), ("leaf0-up", "DOWN"), ("n0-nic", "DOWN")],
      "across leaves")
for args, message in ((["--nodes", "3"], "is not a multiple of nodes-per-leaf 2"),
                      (["--nic", "1gbps"], "rate must be a number and kbit, mbit or gbit")):
    bad = ARGS[:]
    bad[bad.index(args[0]) + 1] = args[1]
    r = subprocess.run([sys.executable, GENERATE] + bad, capture_output=True, text=True)
    check(r.returncode == 1 and message in r.stderr and r.stdout == "", f"{args}: {r.returncode} {r.stderr}")

# Rails: 4 nodes x 2 ranks, 2 per leaf, 2 NICs: group 0 = nodes 0-1 (leaves 0, 1), group 1 = nodes 2-3
# (leaves 2, 3); rank r = 2 * node + slot uses NIC slot.
zone, hosts, links, routes = parse(generate(ARGS[:-2] + ["--nics", "2", "-o", "-"]))
props = {p.get("id"): p.get("value") for p in zone.findall("prop")}
check(props["ddl_dims"] == "2x2x2" and props["ddl_gpus"] == "8", f"rails: root props {props}")
for r in range(8):
    p = hosts[f"gpu{r}"]
    check((p["ddl_node"], p["ddl_leaf"]) == (str(r // 2), str(r // 4 * 2 + r % 2)), f"rails: gpu{r}: {p}")
nics = sorted(name for name in links if "-nic" in name)
check(nics == sorted(f"n{n}-nic{k}" for n in range(4) for k in range(2)), f"rails: NIC links {nics}")
check(sorted(name for name in links if name.startswith("leaf")) == [f"leaf{x}-up" for x in range(4)],
      f"rails: uplinks {sorted(links)}")
check(links["n3-nic1"].get("bandwidth") == "0.0625GBps" and links["n3-nic1"].get("sharing_policy") == "SPLITDUPLEX",
      "rails: a NIC is the tc rate, split duplex")
check(links["leaf3-up"].get("bandwidth") == "0.03125GBps", "rails: uplink at the tc rate")
check(len(routes) == 8 * 7, f"rails: {len(routes)} routes")
check(routes[("gpu0", "gpu1")] == [("gpu0-link", "UP"), ("n0-shm", None), ("gpu1-link", "DOWN")], "rails: same node")
check(routes[("gpu1", "gpu3")] == [("n0-nic1", "UP"), ("n1-nic1", "DOWN")], "rails: one rail, one leaf")
check(routes[("gpu1", "gpu2")] == [("n0-nic1", "UP"), ("leaf1-up", "UP"), ("leaf0-up", "DOWN"), ("n1-nic0", "DOWN")],
      "rails: across rails in one group, through the spine")
check(routes[("gpu0", "gpu4")] == [("n0-nic0", "UP"), ("leaf0-up", "UP"), ("leaf2-up", "DOWN"), ("n2-nic0", "DOWN")],
      "rails: one rail, two groups")
check(routes[("gpu7", "gpu0")] == [("n3-nic1", "UP"), ("leaf3-up", "UP"), ("leaf0-up", "DOWN"), ("n0-nic0", "DOWN")],
      "rails: across rails and groups")
# More ranks than NICs: slot s uses NIC s mod M (4 ranks per node on 2 NICs: slot 3 on NIC 1).
_, hosts, _, routes = parse(generate(["--platform", "emulated", "--nodes", "2", "--ranks-per-node", "4",
                                      "--nodes-per-leaf", "2", "--nics", "2", "-o", "-"]))
check(routes[("gpu3", "gpu6")] == [("n0-nic1", "UP"), ("leaf1-up", "UP"), ("leaf0-up", "DOWN"), ("n1-nic0", "DOWN")],
      "rails: slot 3 leaves through NIC 1, slot 2 enters through NIC 0")
check(hosts["gpu7"]["ddl_leaf"] == "1", f"rails: gpu7 {hosts['gpu7']}")
for value, message in (("0", '--nics must be 1 .. 16 (platforms/README.md, "Limits"), got 0'),
                       ("17", '--nics must be 1 .. 16 (platforms/README.md, "Limits"), got 17')):
    r = subprocess.run([sys.executable, GENERATE] + ARGS[:-2] + ["--nics", value, "-o", "-"], capture_output=True,
                       text=True)
    check(r.returncode == 1 and r.stderr == f"generate.py: error: {message}\n" and r.stdout == "",
          f"--nics {value}: {r.returncode} {r.stderr}")
print("emulated platform checks passed")
