#!/usr/bin/env python3
"""A workload file with the compute of one PyTorch run (training_vs_sim.sh).

    scale_workload.py WORKLOAD.csv RUN_DIR OUT.csv

WORKLOAD.csv is what `python3 -m ddl.workload --measure` wrote (per-layer forward_ms and
backward_ms); RUN_DIR holds train_timed.py's rank*.csv of one run. OUT.csv is the same workload
with its layers' times scaled so that the forward pass sums to the run's median forward time and
the backward pass to its median backward time without the exposed wait for communication at its
end (every rank's timed iterations pooled): the per-layer split stays the measured one, the whole is the compute
the ranks had in that run. Why: on this machine the ranks share 2 cores with each other and with
whatever else runs, so a rank's compute depends on when it ran and on what the other ranks did
meanwhile (while they wait in an allreduce they leave it their core); the prediction from this
file tests what ddl's model adds to the compute (communication, waits for the slowest rank,
overlap), not the compute itself. The file says so in its comments.
"""
import glob
import os
import sys

import pandas as pd


def run_compute(run_dir):
    files = sorted(glob.glob(os.path.join(run_dir, "rank*.csv")))
    if not files:
        raise SystemExit(f"scale_workload.py: no rank*.csv in {run_dir}")
    t = pd.concat([pd.read_csv(f) for f in files], ignore_index=True)
    t = t[t.warmup == 0]
    return float(t.forward_s.median() * 1e3), float((t.backward_s - t.exposed_s).median() * 1e3)


def scale(workload_text, forward_ms, backward_ms, source):
    lines = workload_text.splitlines()
    header = next(i for i, l in enumerate(lines) if not l.startswith("#"))
    if lines[header] != "layer,kind,params,forward_macs,forward_ms,backward_ms":
        raise SystemExit("scale_workload.py: the workload has no measured forward_ms,backward_ms columns")
    rows = [l.split(",") for l in lines[header + 1:] if l]
    f_sum = sum(float(r[4]) for r in rows)
    b_sum = sum(float(r[5]) for r in rows)
    if f_sum <= 0 or b_sum <= 0:
        raise SystemExit("scale_workload.py: the workload's measured times sum to 0")
    out = []
    for l in lines[:header]:
        if l.startswith("# reference_iteration_ms ="):
            l = f"# reference_iteration_ms = {forward_ms + backward_ms:.3f}"
        elif l.startswith("# backward_to_forward ="):
            l = f"# backward_to_forward = {backward_ms / forward_ms:.3f}"
        out.append(l)
    out.insert(4, f"# compute of {source}: median forward {forward_ms:.3f} ms, backward without "
               f"the exposed wait {backward_ms:.3f} ms; every layer's measured time scaled to those sums "
               f"(experiments/training/scale_workload.py)")
    out.append(lines[header])
    for r in rows:
        r[4] = f"{float(r[4]) * forward_ms / f_sum:.6f}"
        r[5] = f"{float(r[5]) * backward_ms / b_sum:.6f}"
        out.append(",".join(r))
    return "\n".join(out) + "\n"


def main(argv):
    if len(argv) != 4:
        raise SystemExit("usage: scale_workload.py WORKLOAD.csv RUN_DIR OUT.csv")
    forward_ms, backward_ms = run_compute(argv[2])
    with open(argv[1]) as f:
        text = scale(f.read(), forward_ms, backward_ms, argv[2])
    with open(argv[3], "w") as f:
        f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
