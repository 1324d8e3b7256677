"""A node measured by ddlcalibrate, read from the platform it wrote, to be replicated per node.

ddlcalibrate (real/) writes one machine as one zone: hosts gpu<r> (ddl_rank, memory_bandwidth),
a link per rank, a shared bus (with ddl_capacity_by_flows), explicit host-to-host routes, and
root properties with its per-size factors (sim/README.md). All of that is the node: this module
keeps every element and attribute as written (the figures are measurements, so no rounding) and
`cluster.py` renames them n<node>-... for each node. The format read is ddlcalibrate's
single-machine one (experiments/results/sim_vs_real/calibrated_2.xml).
"""
import xml.etree.ElementTree as ET
from types import SimpleNamespace as Obj

from description import DescriptionError

# Root properties that describe the node's messages and local work; anything else (ddl_dims,
# ddl_gpus) describes the calibrated platform as a whole and is recomputed for the cluster.
NODE_PROPERTIES = ("ddl_memory_factors", "ddl_peer_read_factors")
MESSAGE_PROPERTIES = ("ddl_lat_factors", "ddl_bw_factors")


def read_calibrated(path, field, shown):
    """The node in the ddlcalibrate platform at `path` (`shown`: the path as the description gives it)."""
    try:
        root = ET.parse(path).getroot()
    except (OSError, ET.ParseError) as e:
        raise DescriptionError(field, f"cannot read a platform there ({getattr(e, 'strerror', None) or e})",
                               shown) from None
    zones = root.findall("zone")
    if root.tag != "platform" or len(zones) != 1 or zones[0].findall("zone"):
        raise DescriptionError(field, "must be a ddlcalibrate platform: one zone, no zones inside", shown)
    zone = zones[0]
    props = {p.get("id"): p.get("value") for p in zone.findall("prop")}
    hosts = []
    for h in zone.findall("host"):
        hp = {p.get("id"): p.get("value") for p in h.findall("prop")}
        if "ddl_rank" not in hp or "memory_bandwidth" not in hp or h.get("speed") is None:
            raise DescriptionError(field, f"host {h.get('id')} lacks ddl_rank, memory_bandwidth or speed", shown)
        hosts.append(Obj(id=h.get("id"), rank=int(hp["ddl_rank"]), speed=h.get("speed"),
                         memory_bandwidth=hp["memory_bandwidth"]))
    hosts.sort(key=lambda h: h.rank)
    if not hosts or [h.rank for h in hosts] != list(range(len(hosts))):
        raise DescriptionError(field, "must have hosts with ddl_rank 0 .. p-1", shown)
    links = []
    for link in zone.findall("link"):
        links.append(Obj(id=link.get("id"), attrs={k: v for k, v in link.attrib.items() if k != "id"},
                         props=[(p.get("id"), p.get("value")) for p in link.findall("prop")]))
    routes = []
    for r in zone.findall("route"):
        ctn = [(c.get("id"), c.get("direction")) for c in r.findall("link_ctn")]
        routes.append(Obj(src=r.get("src"), dst=r.get("dst"), links=ctn,
                          symmetrical=r.get("symmetrical", "YES").upper() != "NO"))
    return Obj(gpus=len(hosts), hosts=hosts, routers=[r.get("id") for r in zone.findall("router")], links=links,
               routes=routes, node_props=[(k, props[k]) for k in NODE_PROPERTIES if k in props],
               message_props=[(k, props[k]) for k in MESSAGE_PROPERTIES if k in props])
