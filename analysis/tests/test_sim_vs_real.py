#!/usr/bin/python3
"""Checks analysis/sim_vs_real.py on hand-made inputs: three launches of two cases are combined
into their medians (and spread), the errors and summary line follow from them exactly, and so
do the launches' differences from each other and the errors relative to ring."""
import os
import subprocess
import sys
import tempfile

import pandas as pd

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "sim_vs_real.py")
HEADER = "size,count,type,redop,algo,dims,time_us,algbw_gbs,busbw_gbs,wrong\n"


def check(condition, what):
    if not condition:
        sys.exit(f"FAILED: {what}")


with tempfile.TemporaryDirectory() as d:
    # ring: median 200 (mean 233), spread (400 - 100) / 200; rhd: 250 in every launch.
    for i, t in enumerate([100.0, 400.0, 200.0], start=1):
        with open(os.path.join(d, f"measured_2.launch{i}.csv"), "w") as f:
            f.write("# ddlrun header line\n" + HEADER + f"1024,256,float,sum,ring,2,{t},1,1,0\n"
                    "1024,256,float,sum,rhd,2,250,1,1,0\n")
    with open(os.path.join(d, "simulated_2.csv"), "w") as f:
        f.write("size,count,type,redop,algo,dims,time_us,algbw_gbs,busbw_gbs,model_us,wrong\n"
                "1024,256,float,sum,ring,2,220,1,1,180,\n"
                "1024,256,float,sum,rhd,2,330,1,1,300,\n")
    r = subprocess.run([sys.executable, SCRIPT, d], capture_output=True, text=True)
    check(r.returncode == 3, f"exit status 3 without traces, got {r.returncode}: {r.stderr}")
    check("Gantt chart NOT drawn" in r.stderr, "the missing Gantt chart is reported")
    last = r.stdout.strip().splitlines()[-1]
    # ring (220 - 200) / 200 = 10 %, rhd (330 - 250) / 250 = 32 %.
    check(last == "median_abs_error_pct=21.00 max_abs_error_pct=32.00 cases=2", f"summary line, got '{last}'")
    lines = [line.strip() for line in r.stdout.strip().splitlines()]
    # Ordered launch pairs |a - b| / b, ring: 100 vs 400 75 %, vs 200 50 %; 400 vs 100 300 %,
    # vs 200 100 %; 200 vs 100 100 %, vs 400 50 %; rhd: six pairs of 0 %. Median (0 + 50) / 2.
    check(lines[-2] == "all: launch_vs_launch_median_pct=25.00 launch_vs_launch_max_pct=300.00 pairs=12",
          f"launch-vs-launch line, got '{lines[-2]}'")
    # rhd / ring: simulated 330 / 220 = 1.5, measured 250 / 200 = 1.25: 20 % too high.
    rel = [line for line in lines if line.startswith("all: relative_to_ring")]
    check(rel == ["all: relative_to_ring_median_abs_error_pct=20.00 relative_to_ring_max_abs_error_pct=20.00 cases=1"],
          f"relative-to-ring line, got {rel}")
    m = pd.read_csv(os.path.join(d, "measured_2.csv"), comment="#").set_index("algo")
    check(m.loc["ring", "time_us"] == 200.0, f"combined ring time is the median 200, got {m['time_us'].tolist()}")
    check(m.loc["ring", "launch_spread_pct"] == 150.0, f"spread 150 %, got {m['launch_spread_pct'].tolist()}")
    check(m.loc["ring", "launches"] == 3, "three launches counted")
    e = pd.read_csv(os.path.join(d, "errors.csv")).set_index("algo")
    check(e.loc["ring", "model_error_pct"] == -10.0, f"model error -10 %, got {e['model_error_pct'].tolist()}")
    rt = pd.read_csv(os.path.join(d, "relative_to_ring.csv"))
    check(rt["algo"].tolist() == ["rhd"] and rt["simulated_ratio"][0] == 1.5 and rt["measured_ratio"][0] == 1.25,
          f"relative_to_ring.csv, got {rt.to_dict('records')}")
    check(os.path.exists(os.path.join(d, "time_vs_size_ring.png")), "time-vs-size plot written")
print("ok")
