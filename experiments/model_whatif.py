#!/usr/bin/python3
"""Would another contention or local-work rule have predicted a sim_vs_real run better? Each
variant edits the run's calibrated platforms (calibrated_<p>.xml, with the figures in
calibrated_<p>.json), simulates every case again with ddlsim and compares with the run's
measurements (measured_<p>.csv), in the terms of analysis/sim_vs_real.py (|error| median, max).

    experiments/model_whatif.py RESULTS_DIR [DDLSIM]     # DDLSIM default build/bin/ddlsim

experiments/sim_vs_real.sh runs it after each run (RESULTS_DIR/model_whatif.txt). It first
checks that its copy of the capacity fit gives back the bus each platform was written with
and that the unedited platform reproduces the run's simulated_<p>.csv.

Variants (none of them is what ddlcalibrate writes; "as written" is the platform unchanged):
  one bus capacity          one capacity for every count of flows in flight, fitted to all the
                            contended points (what ddlcalibrate wrote before it fitted one per count)
  bus without two_each_way  the bus capacities fitted as ddlcalibrate does (calibrate/platform_model.cpp,
                            choose_capacities: one per flow count) to the other patterns only
  bus per size              capacities fitted to each size's contended points alone, the case
                            simulated on a platform with the capacities of its size (its footprint)
  local work alone          memory factors from the float reduce with one rank reducing, not all
  reduce at its own size    the platform's memory factors moved from 2n to n: a reduce of n
                            received operands looked up at its own size, not at the 2n-byte
                            collective step it times (only for reports of received operands)
"""
import io
import json
import os
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

import pandas as pd

ALGOS = "ring,ddl,rhd,dbtree,hier"
DIMS = {2: "2", 4: "2x2"}
HEADER = '<?xml version="1.0"?>\n<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">\n'


class Calibration:
    """One rank count's calibration: the ping-pong fit, capacities and contended points."""

    def __init__(self, report):
        self.report = report
        self.R = report["platform"]["host_link_Bps"]
        self.segments = report["pingpong_fit"]["segments"]

    def segment(self, n):
        s = self.segments[0]
        for c in self.segments:
            if c["from_bytes"] <= n:
                s = c
        return s

    def predict(self, n, flows, per_host, k):
        """calibrate::predict with a bus of k R."""
        s = self.segment(n)
        ref = min(self.R, k * self.R)
        share = min(self.R / max(per_host, 1), k * self.R / max(flows, 1))
        return s["latency_s"] + n / (s["bandwidth_Bps"] * min(1.0, share / ref))

    def points(self, keep=lambda name, n: True):
        """Contended medians (bytes, seconds, flows, flows per host) whose lone time is mostly
        transfer, as choose_capacities takes them."""
        out = []
        for m in self.report["messages"]:
            n, s = m["bytes"], self.segment(m["bytes"])
            if n / s["bandwidth_Bps"] < s["latency_s"]:
                continue
            out += [(n, v["median_s"], v["flows"], v["flows_per_host"]) for name, v in m.items()
                    if isinstance(v, dict) and "flows" in v and keep(name, n)]
        return out

    def candidates(self, points):
        """The k at which each point's speed is what a bus of k R predicts, and 1000."""
        ks = [1000.0]
        for n, t, f, _ in points:
            s = self.segment(n)
            if t > s["latency_s"]:
                ks.append(max(1.0, f * (n / (t - s["latency_s"])) / s["bandwidth_Bps"]))
        return ks

    def fit_k(self, points, ks=None):
        """One capacity for every point: the candidate k of least squared relative error."""
        ks = self.candidates(points) if ks is None else ks
        return min(ks, key=lambda k: sum(((self.predict(n, f, h, k) - t) / t) ** 2 for n, t, f, h in points))

    def fit_by_flows(self, points):
        """choose_capacities: per flow count, fit_k over that count's points, every point's
        candidate k in the running."""
        ks = self.candidates(points)
        return {c: self.fit_k([p for p in points if p[2] == c], ks) for c in sorted({p[2] for p in points})}


def edit_platform(xml_path, out_path, bus=None, R=None, memory_factors=None):
    """bus: {flow count: k} (a capacity per count, as ddlcalibrate writes it) or {None: k} (one
    capacity for every count)."""
    tree = ET.parse(xml_path)
    zone = tree.getroot().find("zone")
    if bus is not None:
        link = zone.find("link[@id='bus']")
        widest = max(bus.values())
        link.set("bandwidth", f"{widest * R!r}Bps")
        for prop in link.findall("prop[@id='ddl_capacity_by_flows']"):
            link.remove(prop)
        if None not in bus:
            ET.SubElement(link, "prop", id="ddl_capacity_by_flows",
                          value=";".join(f"{c}:{k / widest!r}" for c, k in sorted(bus.items())))
    if memory_factors is not None:
        zone.find("prop[@id='ddl_memory_factors']").set("value", memory_factors)
    with open(out_path, "w") as f:
        f.write(HEADER + ET.tostring(tree.getroot(), encoding="unicode"))


def simulate(ddlsim, platform, ranks, sizes):
    command = [ddlsim, "--platform", platform, "--algo", ALGOS, "--dims", DIMS[ranks],
               "-b", str(sizes[0]), "-e", str(sizes[1]), "-f", "2", "--format", "csv"]
    try:
        out = subprocess.run(command, capture_output=True, text=True, check=True, timeout=600).stdout
    except (OSError, subprocess.SubprocessError) as e:
        stderr = getattr(e, "stderr", None) or ""
        raise Failure(f"{' '.join(command)} failed: {e} {stderr.strip()}") from e
    return pd.read_csv(io.StringIO(out), comment="#")[["algo", "size", "time_us"]]


class Failure(Exception):
    """One message for the user, then exit status 1."""


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    results = sys.argv[1]
    ddlsim = sys.argv[2] if len(sys.argv) == 3 else "build/bin/ddlsim"
    with tempfile.TemporaryDirectory() as tmp:
        whatif(results, ddlsim, os.path.join(tmp, "platform.xml"))


def whatif(results, ddlsim, scratch):
    rows = []
    for p in DIMS:
        measured = pd.read_csv(os.path.join(results, f"measured_{p}.csv"), comment="#")[["algo", "size", "time_us"]]
        sizes = (int(measured["size"].min()), int(measured["size"].max()))
        xml = os.path.join(results, f"calibrated_{p}.xml")
        with open(os.path.join(results, f"calibrated_{p}.json")) as f:
            report = json.load(f)
        cal = Calibration(report)
        # This file re-implements the capacity fit of calibrate/platform_model.cpp: it must give back
        # the bus the platform was written with before its variants mean anything.
        if "bus_by_flows" in report["platform"]:
            written = {c["flows"]: c["bus_Bps"] / cal.R for c in report["platform"]["bus_by_flows"]}
            fitted = cal.fit_by_flows(cal.points())
        else:  # a report from before the bus was fitted per count of flows
            written, fitted = {None: report["platform"]["bus_Bps"] / cal.R}, {None: cal.fit_k(cal.points())}
        if fitted.keys() != written.keys() or any(abs(fitted[c] - k) > 1e-6 * k for c, k in written.items()):
            raise Failure(f"the capacity fit here ({fitted}) does not reproduce calibrated_{p}.json's bus by "
                          f"flows ({written}, lone flows' worth): calibrate/platform_model.cpp changed")
        by_size = report["reduce_float_by_size"]
        mem = report["platform"]["memory_bandwidth_Bps"] / 3

        # A received-operands reduce of n is the step of a collective over 2n: ddlcalibrate keys it there.
        key = 2 if report.get("reduce_float_by_size_operands", "hot") == "received" else 1

        def factors(throughput, per_byte=key):
            return ";".join(f"{0 if i == 0 else x['bytes'] * per_byte}:{throughput(x) / mem:.6g}"
                            for i, x in enumerate(by_size))

        variants = {
            "as written": {},
            "one bus capacity": {"bus": {None: cal.fit_k(cal.points())}, "R": cal.R},
            "bus without two_each_way": {"bus": cal.fit_by_flows(cal.points(lambda name, n: name != "two_each_way")),
                                         "R": cal.R},
            "local work alone": {"memory_factors": factors(lambda x: x["alone_Bps"])},
        }
        if key == 2:
            written_factors = ET.parse(xml).getroot().find("zone/prop[@id='ddl_memory_factors']").get("value")
            variants["reduce at its own size"] = {"memory_factors": ";".join(
                f"{int(b) // 2}:{f}" for b, f in (step.split(":") for step in written_factors.split(";")))}
        for name, edits in variants.items():
            edit_platform(xml, scratch, **edits)
            rows.append(simulate(ddlsim, scratch, p, sizes).assign(ranks=p, variant=name))
        for n in sorted(measured["size"].unique()):
            by_flows = cal.fit_by_flows(cal.points(lambda name, size: size == n))
            edit_platform(xml, scratch, bus=by_flows or {None: 1000.0}, R=cal.R)
            rows.append(simulate(ddlsim, scratch, p, (n, n)).assign(ranks=p, variant="bus per size"))
        rows.append(measured.assign(ranks=p, variant="measured"))
    d = pd.concat(rows, ignore_index=True)
    # The platform as written must give back the run's own simulation, or the edits above are
    # not what they claim to be.
    for p in DIMS:
        run = pd.read_csv(os.path.join(results, f"simulated_{p}.csv"), comment="#")[["algo", "size", "time_us"]]
        again = d[(d.variant == "as written") & (d.ranks == p)].merge(run, on=["algo", "size"], suffixes=("", "_run"))
        if len(again) != len(run) or ((again.time_us - again.time_us_run).abs() > 1e-6 * again.time_us_run).any():
            raise Failure(f"the unedited calibrated_{p}.xml does not reproduce simulated_{p}.csv")
    measured = d[d.variant == "measured"].drop(columns="variant").rename(columns={"time_us": "measured_us"})
    d = d[d.variant != "measured"].merge(measured, on=["algo", "size", "ranks"])
    d["abs_error_pct"] = (100 * (d.time_us - d.measured_us) / d.measured_us).abs()
    print("|error| in percent of the measured time, per variant (median / max):")
    for name, g in d.groupby("variant", sort=False):
        per = "  ".join(f"{p} ranks {x.abs_error_pct.median():5.2f} / {x.abs_error_pct.max():5.1f}" for p, x in g.groupby("ranks"))
        print(f"  {name:26s} all {g.abs_error_pct.median():5.2f} / {g.abs_error_pct.max():5.1f}   {per}")


if __name__ == "__main__":
    try:
        main()
    except Failure as e:
        sys.exit(f"model_whatif.py: {e}")
    except (OSError, ValueError, KeyError, ET.ParseError) as e:
        sys.exit(f"model_whatif.py: {sys.argv[1]} is not a complete sim_vs_real run: {type(e).__name__}: {e}")
