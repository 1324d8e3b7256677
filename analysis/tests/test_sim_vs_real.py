#!/usr/bin/python3
"""Checks analysis/sim_vs_real.py on hand-made inputs: three launches of one case are combined
into their median (and spread), and the error and summary line follow from it exactly."""
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
    for i, t in enumerate([100.0, 400.0, 200.0], start=1):  # median 200 (mean 233), spread (400 - 100) / 200
        with open(os.path.join(d, f"measured_2.launch{i}.csv"), "w") as f:
            f.write("# ddlrun header line\n" + HEADER + f"1024,256,float,sum,ring,2,{t},1,1,0\n")
    with open(os.path.join(d, "simulated_2.csv"), "w") as f:
        f.write("size,count,type,redop,algo,dims,time_us,algbw_gbs,busbw_gbs,model_us,wrong\n"
                "1024,256,float,sum,ring,2,220,1,1,180,\n")
    r = subprocess.run([sys.executable, SCRIPT, d], capture_output=True, text=True)
    check(r.returncode == 3, f"exit status 3 without traces, got {r.returncode}: {r.stderr}")
    check("Gantt chart NOT drawn" in r.stderr, "the missing Gantt chart is reported")
    last = r.stdout.strip().splitlines()[-1]
    check(last == "median_abs_error_pct=10.00 max_abs_error_pct=10.00 cases=1", f"summary line, got '{last}'")
    m = pd.read_csv(os.path.join(d, "measured_2.csv"), comment="#")
    check(len(m) == 1 and m["time_us"][0] == 200.0, f"combined time is the median 200, got {m['time_us'].tolist()}")
    check(m["launch_spread_pct"][0] == 150.0, f"spread 150 %, got {m['launch_spread_pct'].tolist()}")
    check(m["launches"][0] == 3, "three launches counted")
    e = pd.read_csv(os.path.join(d, "errors.csv"))
    check(e["model_error_pct"][0] == -10.0, f"model error -10 %, got {e['model_error_pct'].tolist()}")
    check(os.path.exists(os.path.join(d, "time_vs_size_ring.png")), "time-vs-size plot written")
print("ok")
