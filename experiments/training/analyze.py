#!/usr/bin/env python3
"""Measured training vs ddlsim's prediction (experiments/training_vs_sim.sh's analysis).

    analyze.py OUT      # OUT = experiments/results/training_vs_sim

For every rank count P (OUT/p<P>/) and algorithm, two measured cases:
  ddlrun  ddlrun --workload (ddlrun.csv): the workload's layers as timed busy-waits, the fitted
          jitter and interference emulated, real allreduces; its row is the median iteration
          (slowest rank after a barrier) and efficiency (nominal compute / iteration), predicted by
          ddlsim.csv (the same workload, the calibrated platform, the fitted effects);
  torch   the PyTorch model under DDP with ddl's hook on a communication thread
          (torch_<algo>/rank*.csv): per timed iteration the slowest rank's iteration, then the
          median; efficiency = the ranks' median compute / that; predicted by
          ddlsim_torch_<algo>.csv (the workload scaled to that run's compute,
          scale_workload.py, the calibrated platform, the fitted effects); workload_iter_ms is
          ddlsim.csv's prediction from the workload as measured, without that scaling.
ideal_iter_ms: the same prediction without any effect (ddlsim --no-effects).
error = predicted / measured - 1. Writes OUT/cases.csv, OUT/effects.csv, OUT/iteration_times.png,
OUT/jitter.png and prints a table and, last, the summary line
    median_abs_error_pct=<x> max_abs_error_pct=<y> cases=<n> efficiency_max_abs_err_pts=<e>
"""
import glob
import math
import os
import re
import sys

import pandas as pd

import fit_effects  # beside this file: the timers of the PyTorch runs, read once

ALGO_COLOURS = {"ring": "tab:blue", "ddl": "tab:orange", "hier": "tab:green"}


def read_report(path):
    return pd.read_csv(path, comment="#").set_index("algo")


def torch_rows(directory):
    return fit_effects.timed(directory)


def rank_counts(out):
    found = []
    for d in glob.glob(os.path.join(out, "p*")):
        m = re.fullmatch(r"p(\d+)", os.path.basename(d))
        if m and os.path.isfile(os.path.join(d, "ddlsim.csv")):
            found.append(int(m.group(1)))
    if not found:
        raise SystemExit(f"analyze.py: no p<P>/ddlsim.csv under {out} (run training_vs_sim.sh first)")
    return sorted(found)


def cases(out):
    rows = []
    for p in rank_counts(out):
        d = os.path.join(out, f"p{p}")
        sim, ideal = read_report(os.path.join(d, "ddlsim.csv")), read_report(os.path.join(d, "ddlsim_noeffects.csv"))
        real = read_report(os.path.join(d, "ddlrun.csv"))
        for algo in sim.index:
            s, i = sim.loc[algo], ideal.loc[algo]
            r = real.loc[algo]
            rows.append(dict(ranks=p, algo=algo, source="ddlrun", measured_iter_ms=r.iter_ms,
                             predicted_iter_ms=s.iter_ms, ideal_iter_ms=i.iter_ms, workload_iter_ms=s.iter_ms,
                             measured_efficiency=r.efficiency, predicted_efficiency=s.efficiency,
                             measured_compute_ms=r.compute_ms, predicted_compute_ms=s.compute_ms,
                             measured_exposed_comm_ms=r.exposed_comm_ms, measured_comm_busy_ms=float("nan"),
                             predicted_exposed_comm_ms=s.exposed_comm_ms))
            t = torch_rows(os.path.join(d, f"torch_{algo}"))
            slowest = t.groupby("iteration").agg(iteration_s=("iteration_s", "max"), comm_s=("comm_s", "max"),
                                                 exposed_s=("exposed_s", "max"), compute_s=("compute_s", "max"))
            it = slowest.iteration_s.median() * 1e3
            own = read_report(os.path.join(d, f"ddlsim_torch_{algo}.csv")).loc[algo]
            own_ideal = read_report(os.path.join(d, f"ddlsim_torch_{algo}_noeffects.csv")).loc[algo]
            rows.append(dict(ranks=p, algo=algo, source="torch", measured_iter_ms=it,
                             predicted_iter_ms=own.iter_ms, ideal_iter_ms=own_ideal.iter_ms, workload_iter_ms=s.iter_ms,
                             measured_efficiency=t.compute_s.median() * 1e3 / it,
                             predicted_efficiency=own.efficiency,
                             measured_compute_ms=slowest.compute_s.median() * 1e3, predicted_compute_ms=own.compute_ms,
                             measured_exposed_comm_ms=slowest.exposed_s.median() * 1e3,
                             measured_comm_busy_ms=slowest.comm_s.median() * 1e3,
                             predicted_exposed_comm_ms=own.exposed_comm_ms))
    c = pd.DataFrame(rows)
    c["error_pct"] = (c.predicted_iter_ms / c.measured_iter_ms - 1) * 100
    c["ideal_error_pct"] = (c.ideal_iter_ms / c.measured_iter_ms - 1) * 100
    c["workload_error_pct"] = (c.workload_iter_ms / c.measured_iter_ms - 1) * 100
    c["efficiency_err_pts"] = (c.predicted_efficiency - c.measured_efficiency) * 100
    return c[["ranks", "algo", "source", "measured_iter_ms", "predicted_iter_ms", "error_pct", "ideal_iter_ms",
              "ideal_error_pct", "workload_iter_ms", "workload_error_pct", "measured_efficiency",
              "predicted_efficiency", "efficiency_err_pts", "measured_compute_ms", "predicted_compute_ms",
              "measured_exposed_comm_ms", "predicted_exposed_comm_ms", "measured_comm_busy_ms"]]


def effects(out):
    frames = []
    for p in rank_counts(out):
        f = os.path.join(out, f"p{p}", "effects.csv")
        frames.append(pd.read_csv(f).assign(ranks=p))
    return pd.concat(frames, ignore_index=True)


def summary_line(c):
    err = c.error_pct.abs()
    return (f"median_abs_error_pct={err.median():.1f} max_abs_error_pct={err.max():.1f} cases={len(c)} "
            f"efficiency_max_abs_err_pts={c.efficiency_err_pts.abs().max():.1f}")


def plots(out, c):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(1, 2, figsize=(11, 4), sharey=True)
    for ax, source in zip(axes, ["ddlrun", "torch"]):
        for algo, colour in ALGO_COLOURS.items():
            s = c[(c.source == source) & (c.algo == algo)]
            if s.empty:
                continue
            ax.plot(s.ranks, s.measured_iter_ms, "o-", color=colour, label=f"{algo} measured")
            ax.plot(s.ranks, s.predicted_iter_ms, "x--", color=colour, label=f"{algo} ddlsim")
        ax.set_title(f"{source}: iteration time")
        ax.set_xlabel("ranks")
        ax.set_xticks(sorted(c.ranks.unique()))
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("ms per iteration")
    axes[1].legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "iteration_times.png"), dpi=110)
    plt.close(fig)
    fig, ax = plt.subplots(figsize=(6, 4))
    for p in sorted(c.ranks.unique()):
        d = os.path.join(out, f"p{p}")
        t = pd.concat([torch_rows(x) for x in sorted(glob.glob(os.path.join(d, "torch_*")))
                       if not x.endswith("_nocomm")], ignore_index=True)
        ax.hist(t.compute_s / t.compute_s.median(), bins=30, histtype="step", label=f"{p} ranks", density=True)
    ax.set_xlabel("per-rank, per-iteration compute / median")
    ax.set_title("PyTorch compute jitter")
    ax.legend()
    fig.tight_layout()
    fig.savefig(os.path.join(out, "jitter.png"), dpi=110)
    plt.close(fig)


def main(argv):
    if len(argv) != 2 or not os.path.isdir(argv[1]):
        raise SystemExit("usage: analyze.py OUT (the directory training_vs_sim.sh wrote)")
    out = argv[1]
    c = cases(out)
    e = effects(out)
    c.to_csv(os.path.join(out, "cases.csv"), index=False, float_format="%.3f")
    e.to_csv(os.path.join(out, "effects.csv"), index=False, float_format="%.6f")
    plots(out, c)
    with pd.option_context("display.width", 200, "display.max_columns", 20):
        print(e.to_string(index=False, float_format=lambda v: f"{v:.4f}"))
        print(c.to_string(index=False, float_format=lambda v: f"{v:.2f}"))
    for source in ["ddlrun", "torch"]:
        s = c[c.source == source]
        print(f"{source}: {summary_line(s)}")
    print(summary_line(c))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
