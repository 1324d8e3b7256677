#!/usr/bin/env python3
"""Fits the training effects of one rank count from its PyTorch runs (training_vs_sim.sh).

    fit_effects.py DIR      # DIR = OUT/p<P>, holding torch_nocomm/ and torch_<algo>/rank*.csv

Jitter: from the per-rank, per-iteration compute times (the iteration less its exposed wait for
communication) of every timed iteration of every run with communication. The model draws one
lognormal factor per rank and iteration (workloads/training_effects.hpp) for one purpose: a bucket
waits for the slowest of the P ranks. So sigma is fitted to that: the median over iterations of
the slowest rank's compute, over the median compute of all ranks, is R; for P independent
lognormal draws that ratio is exp(sigma z) with z = the standard normal quantile at 0.5^(1/P)
(the median of the maximum of P), so sigma = ln(R) / z (0 when R <= 1), and
cv = sqrt(exp(sigma^2) - 1). The standard deviation of all the logs (the maximum-likelihood
fit of the pooled times) is kept beside it as log_sigma_pooled; it is not used: on shared cores
a rank that computes while others wait gets their cores and runs fast (a long lower tail, down
to 0.57x the median at 4 ranks), which widens the pooled fit but never makes a rank the
slowest (measured: the pooled fit put the slowest of 4 ranks 25 % above the median compute,
measured 10 %; experiments/results/training_vs_sim/README.md).
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
from statistics import NormalDist

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
    together = pd.concat([timed(d).assign(run=d) for d in runs], ignore_index=True)
    ranks = together.groupby("run")["rank"].nunique()
    if ranks.min() != ranks.max() or ranks.min() < 2:
        raise SystemExit(f"fit_effects.py: the runs in {directory} need the same 2 or more ranks each, got {dict(ranks)}")
    p = int(ranks.min())
    median = float(together.compute_s.median())
    slowest = float(together.groupby(["run", "iteration"]).compute_s.max().median())
    z = NormalDist().inv_cdf(0.5 ** (1.0 / p))
    sigma = max(math.log(slowest / median), 0.0) / z
    cv = math.sqrt(math.exp(sigma * sigma) - 1)
    measured = float(median / alone.compute_s.median() - 1)
    return {"samples": len(together), "ranks": p, "compute_median_s": median, "slowest_median_s": slowest,
            "alone_samples": len(alone), "alone_compute_median_s": float(alone.compute_s.median()),
            "log_sigma_pooled": float(together.compute_s.map(math.log).std(ddof=0)), "log_sigma": sigma,
            "jitter_cv": cv, "interference_measured": measured, "interference": max(measured, 0.0)}


def main(argv):
    if len(argv) != 2 or not os.path.isdir(argv[1]):
        raise SystemExit("usage: fit_effects.py DIR (a directory of torch_nocomm/ and torch_<algo>/ runs)")
    r = fit(argv[1])
    pd.DataFrame([r]).to_csv(os.path.join(argv[1], "effects.csv"), index=False, float_format="%.6f")
    print(f"{r['jitter_cv']:.4f} {r['interference']:.4f}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
