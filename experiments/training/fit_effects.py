#!/usr/bin/env python3
"""Fits the training effects of one rank count from its PyTorch runs (training_vs_sim.sh).

    fit_effects.py DIR      # DIR = OUT/p<P>, holding torch_nocomm/ and torch_<algo>/rank*.csv

Jitter: the per-rank, per-iteration compute times (the iteration less its exposed wait for
communication) of every timed iteration of every run with communication, pooled, fitted with the
lognormal harness/training_effects.hpp draws: sigma = the standard deviation of their logs,
cv = sqrt(exp(sigma^2) - 1) (the maximum-likelihood fit; the lognormal's mean is factored out).
Interference: the median compute time of those iterations over the median compute time of the
same ranks training at once without communication (torch_nocomm), minus 1: what training beside
collectives (DDP's bucket copies, the communication thread and the other ranks' communication on
the shared cores) costs compute.
The model's factor cannot be negative: a measured value below 0 is written as 0 for the
simulator (the measured value stays in effects.csv).

Writes DIR/effects.csv (the fit and its inputs) and prints "cv interference" on one line.
"""
import glob
import math
import os
import sys

import pandas as pd


def timed(directory):
    files = sorted(glob.glob(os.path.join(directory, "rank*.csv")))
    if not files:
        raise SystemExit(f"experiments/training: no rank*.csv in {directory}")
    frame = pd.concat([pd.read_csv(f) for f in files], ignore_index=True)
    return frame[frame.warmup == 0]


def fit(directory):
    alone = timed(os.path.join(directory, "torch_nocomm"))
    runs = sorted(d for d in glob.glob(os.path.join(directory, "torch_*")) if not d.endswith("_nocomm"))
    if not runs:
        raise SystemExit(f"fit_effects.py: no torch_<algo> runs in {directory}")
    together = pd.concat([timed(d) for d in runs], ignore_index=True)
    logs = together.compute_s.map(math.log)
    sigma = float(logs.std(ddof=0))
    cv = math.sqrt(math.exp(sigma * sigma) - 1)
    measured = float(together.compute_s.median() / alone.compute_s.median() - 1)
    return {"samples": len(together), "compute_median_s": float(together.compute_s.median()),
            "alone_samples": len(alone), "alone_compute_median_s": float(alone.compute_s.median()),
            "log_sigma": sigma, "jitter_cv": cv, "interference_measured": measured,
            "interference": max(measured, 0.0)}


def main(argv):
    if len(argv) != 2 or not os.path.isdir(argv[1]):
        raise SystemExit("usage: fit_effects.py DIR (a directory of torch_nocomm/ and torch_<algo>/ runs)")
    r = fit(argv[1])
    pd.DataFrame([r]).to_csv(os.path.join(argv[1], "effects.csv"), index=False, float_format="%.6f")
    print(f"{r['jitter_cv']:.4f} {r['interference']:.4f}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
