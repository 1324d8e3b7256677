#!/usr/bin/python3
"""The nominal platform of an emulated cluster (platforms/emulated.py) has ddlcluster's
hierarchy: checked on 4 nodes x 2 ranks in 2 leaves by reading the XML back. Ranks are node-major,
every host says its node and leaf, a pair inside a node crosses only that node's shared memory,
a pair in one leaf the two NICs, a pair across leaves the NICs and both uplinks, in that order
and direction; the natural dims are G x K x leaves; rates are the tc rates in bytes/s; bad
parameters are one message and exit 1."""
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


r = subprocess.run([sys.executable, GENERATE] + ARGS, capture_output=True, text=True)
check(r.returncode == 0, f"generate.py exit {r.returncode}: {r.stderr}")
zone = ET.fromstring(r.stdout.split("\n", 3)[3]).find("zone")  # after the XML declaration, doctype, note
props = {p.get("id"): p.get("value") for p in zone.findall("prop")}
check(props["ddl_dims"] == "2x2x2" and props["ddl_gpus"] == "8", f"root props {props}")
hosts = {h.get("id"): {p.get("id"): p.get("value") for p in h.findall("prop")} for h in zone.findall("host")}
check(sorted(hosts) == [f"gpu{r}" for r in range(8)], f"hosts {sorted(hosts)}")
for r in range(8):
    p = hosts[f"gpu{r}"]
    check((p["ddl_rank"], p["ddl_node"], p["ddl_leaf"]) == (str(r), str(r // 2), str(r // 4)), f"gpu{r}: {p}")
links = {link.get("id"): link for link in zone.findall("link")}
check(links["n0-nic"].get("bandwidth") == "0.0625GBps", "NIC: 500 Mbit/s = 62.5 MB/s")
check(links["leaf1-up"].get("bandwidth") == "0.03125GBps", "uplink: 250 Mbit/s")
check(links["n0-shm"].get("sharing_policy") == "SHARED", "a node's shared memory is one shared resource")
routes = {(x.get("src"), x.get("dst")): [(c.get("id"), c.get("direction")) for c in x.findall("link_ctn")]
          for x in zone.findall("route")}
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
print("emulated platform checks passed")
