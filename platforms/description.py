"""A platform description users write (JSON): the node and the network, checked field by field.

`load(path, overrides)` reads a description and returns it as plain objects with every figure
parsed to SI units (bytes/s, seconds, flop/s) and its source attached; `cluster.py` turns that
into SimGrid XML. The format is documented in platforms/README.md ("Describing a machine").
Every error names the field and the value: `node.gpus: must be a positive integer, got -3`.
"""
import json
import os
import re
from types import SimpleNamespace as Obj

from limits import MAX_GPUS, MAX_GROUP_GPUS, MAX_LINK_COUNT, MAX_ZONES, out_of_range, too_big

TOPOLOGIES = ("fat_tree2", "fat_tree3", "rail", "rail3")  # rail*: GPU i of every node on leaf i
FABRICS = ("switch", "mesh", "pcie")
NO_SOURCE = "given in the description without a source"

UNITS = {  # SimGrid's own unit spellings, so a figure reads the same here and in the XML
    "bandwidth": {"Bps": 1, "kBps": 1e3, "MBps": 1e6, "GBps": 1e9, "TBps": 1e12,
                  "bps": 1 / 8, "kbps": 1e3 / 8, "Mbps": 1e6 / 8, "Gbps": 1e9 / 8, "Tbps": 1e12 / 8},
    "latency": {"s": 1, "ms": 1e-3, "us": 1e-6, "ns": 1e-9},
    "speed": {"f": 1, "kf": 1e3, "Mf": 1e6, "Gf": 1e9, "Tf": 1e12, "Pf": 1e15},
}
NUMBER_WITH_UNIT = re.compile(r"^([0-9]+(?:\.[0-9]*)?(?:[eE][-+]?[0-9]+)?)\s*([A-Za-z]+)$")
NAME = re.compile(r"^[a-z][a-z0-9_]*(-[a-z0-9_]+)*$")  # no escaping in XML, no '--' in comments


MISSING = object()  # the value of a field that is not there: the message says so, no "got"


class DescriptionError(ValueError):
    def __init__(self, field, message, value):
        super().__init__(f"{field}: {message}" + ("" if value is MISSING else f", got {json.dumps(value)}"))


def fields(obj, field, required, optional=()):
    """obj must be an object with every required key and nothing unknown."""
    if not isinstance(obj, dict):
        raise DescriptionError(field, "must be an object", obj)
    for key in obj:
        if key not in required and key not in optional:
            known = ", ".join(list(required) + list(optional))
            raise DescriptionError(f"{field}.{key}" if field else key, f"unknown field (known: {known})", obj[key])
    for key in required:
        if key not in obj:
            raise DescriptionError(f"{field}.{key}" if field else key, "is missing", MISSING)
    return obj


def integer(value, field, low=1, high=None):
    if isinstance(value, bool) or not isinstance(value, int) or value < low:
        raise DescriptionError(field, "must be a positive integer" if low == 1 else f"must be an integer >= {low}",
                               value)
    if high is not None and value > high:
        raise DescriptionError(field, f"must be at most {high} (platforms/README.md, \"Limits\")", value)
    return value


def name(value, field):
    if not isinstance(value, str) or not NAME.match(value):
        raise DescriptionError(field, "must be a name of lower-case letters, digits, '_' and single '-'", value)
    return value


def figure(value, field, kind):
    """A number (SI units), a string with a SimGrid unit ('400Gbps', '0.5us', '67Tf'), or
    {"value": either, "source": "where it comes from"}; -> Obj(value, source)."""
    source = NO_SOURCE
    if isinstance(value, dict):
        fields(value, field, ("value", "source"))
        source = value["source"]
        if not isinstance(source, str) or not source.strip() or "--" in source:
            raise DescriptionError(f"{field}.source", "must be a non-empty text without '--'", source)
        value = value["value"]
    number = value
    if isinstance(value, str):
        m = NUMBER_WITH_UNIT.match(value.strip())
        if not m or m.group(2) not in UNITS[kind]:
            units = ", ".join(UNITS[kind])
            raise DescriptionError(field, f"must be a number or a number with one of the units {units}", value)
        number = float(m.group(1)) * UNITS[kind][m.group(2)]
    if isinstance(number, bool) or not isinstance(number, (int, float)):
        raise DescriptionError(field, f"must be a {kind} (a number or a text with a unit)", value)
    if number < 0 or (number == 0 and kind != "latency"):
        raise DescriptionError(field, "must be >= 0" if kind == "latency" else "must be > 0", value)
    problem = out_of_range(float(number), kind)  # NaN, infinity, 1e999 and the absurd
    if problem:
        raise DescriptionError(field, problem, value)
    return Obj(value=float(number), source=source)


def link_figures(obj, field, defaults=None):
    """{"bandwidth": .., "latency": ..}; missing ones come from `defaults` when given."""
    fields(obj, field, () if defaults else ("bandwidth", "latency"), ("bandwidth", "latency"))
    bw = figure(obj["bandwidth"], f"{field}.bandwidth", "bandwidth") if "bandwidth" in obj else defaults.bandwidth
    lat = figure(obj["latency"], f"{field}.latency", "latency") if "latency" in obj else defaults.latency
    return Obj(bandwidth=bw, latency=lat)


def in_switch_reduction(obj, field):
    """A switch that reduces what passes through it (NVLS in an NVSwitch, SHARP in InfiniBand
    switches): {"what": text with its source, "reduce_rate": input bytes/s it reduces (a
    bandwidth figure), "chunk": bytes it works on at a time ({"value": n, "source": ..} or n)};
    None when absent."""
    if obj is None:
        return None
    fields(obj, field, ("what", "reduce_rate", "chunk"))
    what = obj["what"]
    if not isinstance(what, str) or not what.strip() or "--" in what:
        raise DescriptionError(f"{field}.what", "must be a non-empty text without '--'", what)
    chunk, source = obj["chunk"], NO_SOURCE
    if isinstance(chunk, dict):
        fields(chunk, f"{field}.chunk", ("value", "source"))
        source = chunk["source"]
        if not isinstance(source, str) or not source.strip() or "--" in source:
            raise DescriptionError(f"{field}.chunk.source", "must be a non-empty text without '--'", source)
        chunk = chunk["value"]
    return Obj(what=what, reduce_rate=figure(obj["reduce_rate"], f"{field}.reduce_rate", "bandwidth"),
               chunk=Obj(value=integer(chunk, f"{field}.chunk", high=1 << 30), source=source))


def gpu_list(value, field, gpus):
    if not isinstance(value, list) or not value:
        raise DescriptionError(field, "must be a non-empty list of GPU indices", value)
    for i, g in enumerate(value):
        if isinstance(g, bool) or not isinstance(g, int) or not 0 <= g < gpus:
            raise DescriptionError(f"{field}[{i}]", f"must be a GPU index 0 .. {gpus - 1}", g)
    if len(set(value)) != len(value):
        raise DescriptionError(field, "lists a GPU twice", value)
    return value


def mesh_end(value, field, gpus, routers):
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < gpus:
        return f"gpu{value}"
    if isinstance(value, str) and value in routers:
        return value
    raise DescriptionError(field, f"must be a GPU index 0 .. {gpus - 1} or a router of fabric.routers {routers}",
                           value)


def fabric(obj, field, gpus):
    if not isinstance(obj, dict) or obj.get("kind") not in FABRICS:
        raise DescriptionError(f"{field}.kind", f"must be one of {', '.join(FABRICS)}",
                               obj.get("kind") if isinstance(obj, dict) else obj)
    kind = obj["kind"]
    if kind == "switch":  # every GPU has one port (all its links) into a non-blocking switch
        fields(obj, field, ("kind", "bandwidth", "latency"), ("name", "in_switch_reduction"))
        return Obj(kind=kind, name=name(obj.get("name", "nvswitch"), f"{field}.name"),
                   port=link_figures({k: obj[k] for k in ("bandwidth", "latency")}, field),
                   reduction=in_switch_reduction(obj.get("in_switch_reduction"), f"{field}.in_switch_reduction"))
    if kind == "mesh":  # point-to-point links between GPUs and routers (e.g. CPUs)
        fields(obj, field, ("kind", "link", "links"), ("routers",))
        routers = obj.get("routers", [])
        if not isinstance(routers, list):
            raise DescriptionError(f"{field}.routers", "must be a list of names", routers)
        for i, r in enumerate(routers):
            name(r, f"{field}.routers[{i}]")
            if r.startswith("gpu") or r.startswith("nic"):
                raise DescriptionError(f"{field}.routers[{i}]", "must not start with 'gpu' or 'nic'", r)
        default = link_figures(obj["link"], f"{field}.link")
        if not isinstance(obj["links"], list) or not obj["links"]:
            raise DescriptionError(f"{field}.links", "must be a non-empty list", obj["links"])
        links, seen = [], set()
        for i, entry in enumerate(obj["links"]):
            f = f"{field}.links[{i}]"
            if isinstance(entry, list):  # [end, end, count]
                if len(entry) != 3:
                    raise DescriptionError(f, "must be [end, end, count] or an object", entry)
                entry = {"ends": entry[:2], "count": entry[2]}
            fields(entry, f, ("ends",), ("count", "id", "bandwidth", "latency"))
            ends = entry["ends"]
            if not isinstance(ends, list) or len(ends) != 2:
                raise DescriptionError(f"{f}.ends", "must be two ends", ends)
            a, b = (mesh_end(e, f"{f}.ends[{j}]", gpus, routers) for j, e in enumerate(ends))
            if a == b or (a, b) in seen or (b, a) in seen:
                raise DescriptionError(f"{f}.ends", "must be two different ends not linked before", ends)
            seen.add((a, b))
            count = integer(entry.get("count", 1), f"{f}.count", high=MAX_LINK_COUNT)
            figs = link_figures({k: entry[k] for k in ("bandwidth", "latency") if k in entry}, f, default)
            link_id = name(entry["id"], f"{f}.id") if "id" in entry else f"nvl-{a}-{b}"
            links.append(Obj(a=a, b=b, count=count, id=link_id, figures=figs))
        return Obj(kind=kind, name="nvlink-mesh", routers=routers, links=links, default=default)
    # pcie: GPUs under PCIe switches, switches under CPU sockets, sockets joined by an SMP link
    fields(obj, field, ("kind", "switches", "gpu_link", "switch_link"), ("sockets", "socket_link"))
    switches = obj["switches"]
    if not isinstance(switches, list) or not switches:
        raise DescriptionError(f"{field}.switches", "must be a non-empty list of GPU lists", switches)
    covered = []
    for i, s in enumerate(switches):
        covered += gpu_list(s, f"{field}.switches[{i}]", gpus)
    if sorted(covered) != list(range(gpus)):
        raise DescriptionError(f"{field}.switches", f"must hold every GPU 0 .. {gpus - 1} exactly once", switches)
    sockets = obj.get("sockets", [list(range(len(switches)))])
    flat = [s for group in sockets for s in group] if isinstance(sockets, list) and all(
        isinstance(g, list) for g in sockets) else None
    if flat is None or sorted(flat) != list(range(len(switches))):
        raise DescriptionError(f"{field}.sockets", f"must hold every switch 0 .. {len(switches) - 1} exactly once",
                               sockets)
    if len(sockets) > 1 and "socket_link" not in obj:
        raise DescriptionError(f"{field}.socket_link", "is missing (more than one socket)", MISSING)
    return Obj(kind=kind, name="pcie", switches=switches, sockets=sockets,
               gpu_link=link_figures(obj["gpu_link"], f"{field}.gpu_link"),
               switch_link=link_figures(obj["switch_link"], f"{field}.switch_link"),
               socket_link=link_figures(obj["socket_link"], f"{field}.socket_link") if len(sockets) > 1 else None)


def fabric_routers(fab):
    if fab.kind == "switch":
        return [fab.name]
    if fab.kind == "mesh":
        return list(fab.routers)
    return [f"pcisw{k}" for k in range(len(fab.switches))] + [f"cpu{s}" for s in range(len(fab.sockets))]


def nics(value, field, gpus, routers, calibrated):
    if not isinstance(value, list) or not value:
        raise DescriptionError(field, "must be a non-empty list of {\"gpus\": [...]} objects", value)
    out, covered = [], []
    for k, nic in enumerate(value):
        f = f"{field}[{k}]"
        fields(nic, f, ("gpus",), ("attach",))
        users = gpu_list(nic["gpus"], f"{f}.gpus", gpus)
        covered += users
        attach = nic.get("attach")
        if attach is not None and (calibrated or attach not in routers):
            where = "a calibrated node has no routers to attach to; give gpus only" if calibrated else \
                f"must be a router of the fabric {routers}"
            raise DescriptionError(f"{f}.attach", where, attach)
        out.append(Obj(gpus=users, attach=attach))
    if sorted(covered) != list(range(gpus)):
        raise DescriptionError(field, f"must give every GPU 0 .. {gpus - 1} exactly one NIC", value)
    return out


def node(obj, field, base_dir):
    if isinstance(obj, dict) and "calibrated" in obj:
        from calibrated import read_calibrated  # only this kind of node needs it
        fields(obj, field, ("calibrated",), ("nic", "pcie", "nics", "message_factors"))
        path = obj["calibrated"]
        if not isinstance(path, str):
            raise DescriptionError(f"{field}.calibrated", "must be the path of a ddlcalibrate platform", path)
        full = path if os.path.isabs(path) else os.path.join(base_dir, path)
        cal = read_calibrated(full, f"{field}.calibrated", path)
        keep = obj.get("message_factors", True)
        if not isinstance(keep, bool):
            raise DescriptionError(f"{field}.message_factors", "must be true or false", keep)
        gpus, fab, gpu = cal.gpus, Obj(kind="calibrated", name="calibrated", file=path, path=full, cal=cal,
                                        message_factors=keep), None
    else:
        fields(obj, field, ("gpus", "gpu", "fabric"), ("nic", "pcie", "nics"))
        gpus = integer(obj["gpus"], f"{field}.gpus", high=MAX_GROUP_GPUS)
        g = fields(obj["gpu"], f"{field}.gpu", ("speed", "memory_bandwidth"))
        gpu = Obj(speed=figure(g["speed"], f"{field}.gpu.speed", "speed"),
                  memory_bandwidth=figure(g["memory_bandwidth"], f"{field}.gpu.memory_bandwidth", "bandwidth"))
        fab = fabric(obj["fabric"], f"{field}.fabric", gpus)
    calibrated = fab.kind == "calibrated"
    routers = [] if calibrated else fabric_routers(fab)
    n = Obj(gpus=gpus, gpu=gpu, fabric=fab, nic=None, pcie=None, nics=None)
    if "nics" in obj and "nic" not in obj:
        raise DescriptionError(f"{field}.nic", "is missing (node.nics needs the NIC's figures)", MISSING)
    if "nic" in obj:
        n.nic = link_figures(obj["nic"], f"{field}.nic")
        n.nics = nics(obj.get("nics", [{"gpus": list(range(gpus))}]), f"{field}.nics", gpus, routers, calibrated)
        if any(nic.attach is None for nic in n.nics):
            if "pcie" not in obj:
                raise DescriptionError(f"{field}.pcie", "is missing (a NIC without attach is reached over PCIe)",
                                       MISSING)
            if fab.kind == "pcie":
                raise DescriptionError(f"{field}.nics", "on a pcie fabric a NIC sits on a PCIe switch: give attach",
                                       obj.get("nics"))
            n.pcie = link_figures(obj["pcie"], f"{field}.pcie")
    return n


def per_topology(value, field, topology, high):
    """An integer, or an object that gives one per topology ({"fat_tree2": 4, "rail": 32})."""
    if isinstance(value, dict):
        for key in value:
            if key not in TOPOLOGIES:
                raise DescriptionError(f"{field}.{key}", f"unknown topology (known: {', '.join(TOPOLOGIES)})",
                                       value[key])
        if topology not in value:
            raise DescriptionError(f"{field}.{topology}", "is missing (the topology in use)", MISSING)
        return integer(value[topology], f"{field}.{topology}", high=high)
    return integer(value, field, high=high)


def positive(value, field):
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
        raise DescriptionError(field, "must be a number > 0", value)
    problem = out_of_range(float(value), "oversubscription")
    if problem:
        raise DescriptionError(field, problem, value)
    return float(value)


def network(obj, field, overrides):
    fields(obj, field, ("nodes", "topology", "nodes_per_leaf", "switch_latency"),
           ("leaves_per_pod", "oversubscription", "pod_oversubscription", "in_switch_reduction"))
    obj = dict(obj, **{k: v for k, v in overrides.items() if v is not None})
    topology = obj["topology"]
    if topology not in TOPOLOGIES:
        raise DescriptionError(f"{field}.topology", f"must be one of {', '.join(TOPOLOGIES)}", topology)
    three = topology in ("fat_tree3", "rail3")
    if three and "leaves_per_pod" not in obj:
        raise DescriptionError(f"{field}.leaves_per_pod", f"is missing (topology {topology})", MISSING)
    net = Obj(topology=topology, rails=topology.startswith("rail"), tiers=3 if three else 2,
              nodes=integer(obj["nodes"], f"{field}.nodes", high=MAX_GPUS),
              nodes_per_leaf=per_topology(obj["nodes_per_leaf"], f"{field}.nodes_per_leaf", topology, MAX_GROUP_GPUS),
              leaves_per_pod=per_topology(obj["leaves_per_pod"], f"{field}.leaves_per_pod", topology, MAX_ZONES)
              if three else 1,
              oversubscription=positive(obj.get("oversubscription", 1), f"{field}.oversubscription"),
              pod_oversubscription=positive(obj.get("pod_oversubscription", 1), f"{field}.pod_oversubscription"),
              switch_latency=figure(obj["switch_latency"], f"{field}.switch_latency", "latency"),
              reduction=in_switch_reduction(obj.get("in_switch_reduction"), f"{field}.in_switch_reduction"))
    npl, per_pod = net.nodes_per_leaf, net.nodes_per_leaf * net.leaves_per_pod
    if net.nodes > npl and net.nodes % npl:
        raise DescriptionError(f"{field}.nodes", f"must be <= or a multiple of nodes_per_leaf {npl}", net.nodes)
    if three and net.nodes > per_pod and net.nodes % per_pod:
        raise DescriptionError(f"{field}.nodes", f"must be <= or a multiple of nodes_per_leaf x leaves_per_pod "
                               f"= {per_pod}", net.nodes)
    # Groups (or pods) side by side in one zone: SimGrid's Floyd routing over them grows with the cube.
    zones = -(-net.nodes // npl) if not three else -(-net.nodes // per_pod)
    problem = too_big(zones, MAX_ZONES, "leaf groups side by side" if not three else "pods",
                      "more nodes_per_leaf" + (", or a three-tier topology" if not three else " or leaves_per_pod"))
    if problem:
        raise DescriptionError(f"{field}.nodes", problem, net.nodes)
    return net


def load(path, overrides=None):
    """The description in `path` with network fields replaced by `overrides` (None: keep)."""
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except OSError as e:
        raise ValueError(f"cannot read the description: {e.strerror}") from None
    try:
        obj = json.loads(text)
    except json.JSONDecodeError as e:
        raise ValueError(f"not JSON: {e.msg} at line {e.lineno} column {e.colno}") from None
    fields(obj, "", ("name", "node", "network"), ("about", "notes"))
    notes = obj.get("notes", [])
    if not isinstance(notes, list) or not all(isinstance(s, str) and "--" not in s for s in notes):
        raise DescriptionError("notes", "must be a list of texts without '--'", notes)
    about = obj.get("about", "")
    if not isinstance(about, str) or "--" in about:
        raise DescriptionError("about", "must be a text without '--'", about)
    n = node(obj["node"], "node", os.path.dirname(os.path.abspath(path)))
    net = network(obj["network"], "network", overrides or {})
    shape = (("network.nodes", net.nodes, too_big(n.gpus * net.nodes, MAX_GPUS, "GPUs (nodes x node.gpus)")),
             ("network.nodes_per_leaf", net.nodes_per_leaf,
              too_big(n.gpus * min(net.nodes, net.nodes_per_leaf), MAX_GROUP_GPUS,
                      "GPUs in one leaf group (nodes_per_leaf x node.gpus)")))
    for field, value, problem in shape:
        if problem:
            raise DescriptionError(field, problem, value)
    if net.nodes > 1 and n.nic is None:
        raise DescriptionError("node.nic", f"is missing ({net.nodes} nodes need a network)", MISSING)
    return Obj(name=name(obj["name"], "name"), about=about, notes=notes, node=n, network=net, path=path)
