"""The planner's choices measured on the emulated cluster (cluster_eval.sh's files in DIR).

Per size: each algorithm's measured time is the median over launches of ddlrun's per-launch
time (itself the median of its iterations); the measured best is the fastest of those medians.
Writes DIR/summary.md (also printed) and the cluster section of ../evaluation.md; the last line
of summary.md is the summary line.
Usage: cluster_eval.py DIR WALL_S
       cluster_eval.py --insert DIR   (DIR/summary.md into ../evaluation.md again, after
                                       evaluate.sh rewrote it)
"""
import csv
import json
import re
import statistics
import sys
from pathlib import Path

FIXED = ["ring", "rhd", "dbtree", "hier", "ddl"]
SECTION = "## Measured on the emulated cluster"


def insert(d, text):
    """The section goes before evaluation.md's summary line (its last), replacing an older one."""
    ev = d.parent / "evaluation.md"
    if not ev.exists():
        return
    body = ev.read_text().rstrip("\n").split("\n")
    last = body.pop() if body and re.match(r"^cases=", body[-1]) else None
    if SECTION in body:
        body = body[: body.index(SECTION)]
    while body and body[-1] == "":
        body.pop()
    body += [""] + text.rstrip("\n").split("\n")
    if last is not None:
        body += ["", last]
    ev.write_text("\n".join(body) + "\n")


def main():
    if sys.argv[1] == "--insert":
        d = Path(sys.argv[2])
        insert(d, (d / "summary.md").read_text())
        return
    d = Path(sys.argv[1])
    wall = sys.argv[2]
    plan = json.loads((d / "plan.json").read_text())
    launches = sorted(d.glob("measured.launch*.csv"))
    times = {}  # (bytes, algo) -> [us per launch]
    for f in launches:
        for r in csv.DictReader(f.open()):
            if r["wrong"] != "0":
                sys.exit(f"cluster_eval.py: {f.name}: {r['algo']} at {r['size']} B is wrong")
            times.setdefault((int(r["size"]), r["algo"]), []).append(float(r["time_us"]))
    evidence = {e["bytes"]: e for e in plan["evidence"]}
    commands = (d / "commands.txt").read_text().splitlines()
    lines = [
        SECTION,
        "",
        f"`experiments/planner/cluster_eval.sh` ({wall} s of wall time; commands: "
        "[cluster/commands.txt](cluster/commands.txt)): an emulated cluster (cluster/ddlcluster: "
        "4 nodes x 2 ranks, 2 leaves of 2 nodes, TCP over veth shaped by `tc tbf`; "
        f"{commands[1].lstrip('# ')}) calibrated by ddlcalibrate into a platform "
        "(`cluster/calibrated.xml`), planned on it by ddlplan (`cluster/plan.json`), then "
        f"{len(set(a for _, a in times))} algorithms measured by ddlrun on the cluster in "
        f"{len(launches)} launches: the planner's whole space (`ddlplan --list`), `ddl` on the "
        "platform's grid and the plan's choices. Times are the median over launches (each "
        "launch's time the median of its iterations); *gap* is % above the fastest measured "
        "median at that size; *spread* is (max - min) / median over the launches. The machine's 2 "
        "cores are shared by every node, the TCP stacks and the shapers, and were shared with other "
        "work during the run: launch-to-launch spread is large (cluster/README.md), and gaps "
        "below it are not distinguished.",
        "",
        "| size (B) | measured best | best (us) | plan | plan (us) | gap | plan's simulated (us) "
        "| alpha-beta | a-b gap | ring | rhd | dbtree | hier | ddl | spread of the best, plan |",
        "|---:|---|---:|---|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---|",
    ]
    spreads, gaps, ab_gaps = [], [], []
    for size in sorted({s for s, _ in times}):
        here = {a: t for (s, a), t in times.items() if s == size}
        med = {a: statistics.median(t) for a, t in here.items()}
        spread = {a: (max(t) - min(t)) / statistics.median(t) * 100 for a, t in here.items()}
        spreads += spread.values()
        best = min(med, key=med.get)
        e = evidence[size]

        def gap(a):
            if a not in med:
                sys.exit(f"cluster_eval.py: {a} was not measured at {size} B")
            return (med[a] / med[best] - 1) * 100

        gaps.append(gap(e["algorithm"]))
        ab_gaps.append(gap(e["alpha_beta"]))
        fixed = " | ".join(f"+{gap(a):.1f}" for a in FIXED)
        lines.append(
            f"| {size} | `{best}` | {med[best]:.0f} | `{e['algorithm']}` | {med[e['algorithm']]:.0f} "
            f"| +{gap(e['algorithm']):.1f} | {e['simulated_us']:.0f} | `{e['alpha_beta']}` "
            f"| +{gap(e['alpha_beta']):.1f} | {fixed} | {spread[best]:.0f} %, "
            f"{spread[e['algorithm']]:.0f} % |"
        )
    summary = (
        f"cluster_sizes={len(gaps)} plan_gap_median_pct={statistics.median(gaps):.1f} "
        f"plan_gap_max_pct={max(gaps):.1f} alpha_beta_gap_median_pct={statistics.median(ab_gaps):.1f} "
        f"alpha_beta_gap_max_pct={max(ab_gaps):.1f} "
        f"launch_spread_median_pct={statistics.median(spreads):.1f} "
        f"launch_spread_max_pct={max(spreads):.1f}"
    )
    lines += ["", summary]
    text = "\n".join(lines) + "\n"
    (d / "summary.md").write_text(text)
    print(text, end="")
    insert(d, text)

if __name__ == "__main__":
    main()
