"""What a generated platform may hold, checked before any XML is built (platforms/README.md, "Limits").

Every number must be finite and in its range, every shape below its limit: a NaN or an infinite
figure would be written as "nanGBps" for SimGrid to choke on, and a shape without a limit (--nodes
1000000000) writes XML for ever. The limits are well above the shipped platforms and the 4096 GPUs
the simulator is exercised on, at what SimGrid 3.32 loads on this 24 GiB machine in minutes
(measured with sim_probe, load and one route):
- 65536 GPUs: a DGX H100 rail cluster of 8192 nodes, 89 MB of XML, loads in 88 s and 1.1 GB;
- 2048 GPUs in one leaf group (one Floyd zone): 16 s to load; 4096 took 160 s (Floyd's cube);
- 1024 zones joined in one Floyd zone (leaf groups, Big Basin servers, pods): 1024 S822LC leaves
  load in 102 s;
- 1024 emulated ranks: every pair has its own route, 237 MB of XML, 7 s to load;
- 16 NICs (rails) per emulated node: what cluster/ddlcluster builds (a DGX has 8; assumed bound,
  the routes stay one per rank pair whatever the NICs).
"""
import math

MAX_GPUS = 65536
MAX_GROUP_GPUS = 2048
MAX_ZONES = 1024
MAX_EMULATED_RANKS = 1024
MAX_EMULATED_NICS = 16  # cluster/ddlcluster's MAX_NICS
MAX_LINK_COUNT = 64  # parallel links in one bundle (NVLinks of a GPU pair)

# (lowest, highest, unit) of each kind of figure. Bandwidths from 1 B/s (the platform files write
# GB/s to 9 decimals, so less would read as 0) to 1 PB/s; speeds from 1 kflop/s (Tf to 9 decimals)
# to 1 Eflop/s; latencies from 0 to 1 s; an oversubscription from 1/100 to 100.
RANGES = {
    "bandwidth": (1.0, 1e15, "B/s"),
    "speed": (1e3, 1e18, "flop/s"),
    "latency": (0.0, 1.0, "s"),
    "oversubscription": (0.01, 100.0, ""),
}


def out_of_range(value, kind):
    """None when `value` is a finite number in the range of `kind`, else what is wrong."""
    low, high, unit = RANGES[kind]
    unit = f" {unit}" if unit else ""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        return f"must be a finite number ({low:g} .. {high:g}{unit})"
    if not low <= value <= high:
        return f"must be {low:g} .. {high:g}{unit}"
    return None


def too_big(count, limit, what, remedy=""):
    """None when count <= limit, else the message: what it comes to, the limit and where it is explained."""
    if count <= limit:
        return None
    return (f"gives {count} {what}, more than the {limit} a generated platform may have"
            f"{'; ' + remedy if remedy else ''} (platforms/README.md, \"Limits\")")
