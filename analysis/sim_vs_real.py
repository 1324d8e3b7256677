#!/usr/bin/python3
"""Simulation vs measurement on this machine: the error of ddlsim (on the calibrated platform)
and of the analytical model against ddlrun, per (algorithm, ranks, size), plus plots.

    analysis/sim_vs_real.py RESULTS_DIR

RESULTS_DIR holds what experiments/sim_vs_real.sh wrote: measured_<p>.csv (ddlrun --format csv)
or measured_<p>.launch<i>.csv (separate launches of the same ddlrun command, combined here into
measured_<p>.csv: per case the median over launches, and their spread), simulated_<p>.csv
(ddlsim --format csv, with model_us) for each rank count p, and optionally trace_measured.csv /
trace_simulated.csv (--trace of one case) for the Gantt chart.
Writes errors.csv, relative_to_ring.csv (each algorithm's time as a multiple of ring's, measured
and simulated), time_vs_size_<algo>.png and gantt_<case>.png into RESULTS_DIR. The last line
printed is `median_abs_error_pct=<x> max_abs_error_pct=<y> cases=<n>` (simulation vs
measurement); with launch files, the line before it gives the same statistics of one launch
against another (launch_vs_launch_*): how far a rerun of the measurement moves, the scale at
which a prediction can be judged on this machine. Exit status 3 when the Gantt chart cannot be
drawn (no traces): the rest is still written, and the reason is printed on stderr.
"""
import glob
import os
import re
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402


def launch_vs_launch(runs, keys):
    """Per case, every ordered pair of different launches (a, b): |t_a - t_b| / t_b in percent,
    i.e. the error one launch would have as a prediction of another: the measurement's own
    reproducibility, in the terms of the prediction error."""
    rows = []
    for case, t in runs.groupby(keys, sort=False)["time_us"]:
        v = t.tolist()
        rows += [dict(zip(keys, case), diff_pct=100 * abs(a - b) / b)
                 for i, a in enumerate(v) for j, b in enumerate(v) if i != j]
    return pd.DataFrame(rows, columns=keys + ["diff_pct"])


def combine_launches(results):
    """Writes measured_<p>.csv from measured_<p>.launch<i>.csv: per case the median of each
    launch's time and the launches' spread, (max - min) / median in percent. Separate launches
    place the buffers in different physical pages, which moves a case by tens of percent; one
    launch is one draw. Returns launch_vs_launch() of every rank count (column ranks added)."""
    pairs = []
    launches = {}
    for path in glob.glob(os.path.join(results, "measured_*.launch*.csv")):
        m = re.search(r"measured_(\d+)\.launch\d+\.csv$", path)
        if m:
            launches.setdefault(int(m.group(1)), []).append(path)
    for ranks, paths in sorted(launches.items()):
        runs = pd.concat([pd.read_csv(p, comment="#") for p in sorted(paths)], ignore_index=True)
        keys = ["size", "count", "type", "redop", "algo", "dims"]
        g = runs.groupby(keys, sort=False)
        combined = g[["time_us", "algbw_gbs", "busbw_gbs"]].median().reset_index()
        combined["wrong"] = g["wrong"].max().values
        t = g["time_us"]
        combined["launch_spread_pct"] = (100 * (t.max() - t.min()) / t.median()).values
        combined["launches"] = t.size().values
        pairs.append(launch_vs_launch(runs, ["algo", "size"]).assign(ranks=ranks))
        with open(os.path.join(results, f"measured_{ranks}.csv"), "w") as out:
            out.write(f"# median over {len(paths)} launches of the same ddlrun command (measured_{ranks}.launch*.csv)\n")
            combined.to_csv(out, index=False, float_format="%.3f")
    return pd.concat(pairs, ignore_index=True) if pairs else None


def load(results):
    """The merged per-case table, and launch_vs_launch() pairs (None without launch files)."""
    pairs = combine_launches(results)
    frames = []
    for measured_path in sorted(glob.glob(os.path.join(results, "measured_*.csv"))):
        match = re.search(r"measured_(\d+)\.csv$", measured_path)
        if not match:
            continue  # a launch file, combined above
        ranks = int(match.group(1))
        simulated_path = os.path.join(results, f"simulated_{ranks}.csv")
        if not os.path.exists(simulated_path):
            sys.exit(f"sim_vs_real.py: {simulated_path} is missing (measured_{ranks}.csv has no simulation)")
        m = pd.read_csv(measured_path, comment="#")
        s = pd.read_csv(simulated_path, comment="#")
        keys = ["algo", "size"]
        spread = ["launch_spread_pct"] if "launch_spread_pct" in m.columns else []
        both = m[keys + ["dims", "time_us"] + spread].merge(
            s[keys + ["time_us", "model_us"]], on=keys, suffixes=("_measured", "_simulated"), how="inner")
        if len(both) != len(m):
            sys.exit(f"sim_vs_real.py: {measured_path} and {simulated_path} do not cover the same cases")
        both.insert(0, "ranks", ranks)
        frames.append(both)
    if not frames:
        sys.exit(f"sim_vs_real.py: no measured_<p>.csv in {results}")
    d = pd.concat(frames, ignore_index=True)
    d["sim_error_pct"] = 100 * (d["time_us_simulated"] - d["time_us_measured"]) / d["time_us_measured"]
    d["model_error_pct"] = 100 * (d["model_us"] - d["time_us_measured"]) / d["time_us_measured"]
    return d, pairs


def relative_to(d, base):
    """Per (ranks, size), each other algorithm's time as a multiple of `base`'s, measured (same
    launches) and simulated, and the error of the simulated multiple. Machine-wide drift that
    slows every algorithm alike cancels here, and this is the number that picks an algorithm."""
    rows = []
    for (ranks, size), g in d.groupby(["ranks", "size"]):
        b = g[g["algo"] == base]
        if b.empty:
            continue
        b = b.iloc[0]
        for e in g[g["algo"] != base].itertuples():
            measured = e.time_us_measured / b["time_us_measured"]
            simulated = e.time_us_simulated / b["time_us_simulated"]
            rows.append(dict(ranks=ranks, size=size, algo=e.algo, measured_ratio=measured, simulated_ratio=simulated,
                             error_pct=100 * (simulated - measured) / measured))
    return pd.DataFrame(rows, columns=["ranks", "size", "algo", "measured_ratio", "simulated_ratio", "error_pct"])


def plot_times(d, results):
    for algo, a in d.groupby("algo", sort=False):
        ranks = sorted(a["ranks"].unique())
        fig, axes = plt.subplots(1, len(ranks), figsize=(5.5 * len(ranks), 4.2), squeeze=False)
        for ax, p in zip(axes[0], ranks):
            c = a[a["ranks"] == p].sort_values("size")
            ax.loglog(c["size"], c["time_us_measured"], "o-", label="measured (ddlrun)")
            ax.loglog(c["size"], c["time_us_simulated"], "s--", label="simulated (ddlsim)")
            ax.loglog(c["size"], c["model_us"], ":", label="model (alpha-beta-gamma)")
            ax.set_title(f"{algo}, {p} ranks (dims {c['dims'].iloc[0]})")
            ax.set_xlabel("allreduce size (bytes)")
            ax.set_ylabel("time (us)")
            ax.grid(True, which="both", alpha=0.3)
            ax.legend()
        fig.tight_layout()
        fig.savefig(os.path.join(results, f"time_vs_size_{algo}.png"), dpi=110)
        plt.close(fig)


def gantt(results, suffix=""):
    """Side-by-side Gantt of one case's operations, simulated vs measured (first timed iteration),
    from trace_simulated<suffix>.csv and trace_measured<suffix>.csv into gantt_<algo>_<size><suffix>.png."""
    paths = {"simulated": os.path.join(results, f"trace_simulated{suffix}.csv"),
             "measured": os.path.join(results, f"trace_measured{suffix}.csv")}
    missing = [p for p in paths.values() if not os.path.exists(p)]
    if missing:
        return "no trace files " + ", ".join(missing) + " (the tools' --trace output; see sim_vs_real.sh)"
    colors = {"send": "tab:blue", "recv": "tab:orange", "reduce": "tab:green", "copy": "tab:purple",
              "divide": "tab:brown", "compute": "tab:gray",
              "get": "tab:cyan", "put": "tab:olive"}
    fig, axes = plt.subplots(1, 2, figsize=(14, 4.5), sharey=True)
    title = ""
    for ax, (name, path) in zip(axes, paths.items()):
        t = pd.read_csv(path)
        t = t[t["iteration"] == t["iteration"].clip(lower=0).min()]
        start = t["start_us"].min()
        for i, e in enumerate(t.itertuples()):
            lane = e.rank + {"send": 0.0, "put": 0.0, "recv": 0.27, "get": 0.27}.get(e.kind, 0.54)
            ax.broken_barh([(e.start_us - start, max(e.end_us - e.start_us, 1e-3))], (lane, 0.25),
                           color=colors.get(e.kind, "black"))
        ax.set_title(f"{name}: {t['algo'].iloc[0]}, {t['size'].iloc[0]} bytes")
        ax.set_xlabel("time since the first operation (us)")
        title = f"{t['algo'].iloc[0]}_{t['size'].iloc[0]}"
    axes[0].set_ylabel("rank (lanes: send, recv, local work)")
    handles = [plt.Rectangle((0, 0), 1, 1, color=c) for c in colors.values()]
    axes[1].legend(handles, colors.keys(), loc="upper right", fontsize=8)
    fig.tight_layout()
    fig.savefig(os.path.join(results, f"gantt_{title}{suffix}.png"), dpi=110)
    plt.close(fig)
    return None


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: analysis/sim_vs_real.py RESULTS_DIR")
    results = sys.argv[1]
    d, pairs = load(results)
    d.to_csv(os.path.join(results, "errors.csv"), index=False, float_format="%.3f")
    pd.set_option("display.width", 160)
    pd.set_option("display.max_rows", 500)
    print("Error per case, percent of the measured time ((simulated or model) - measured) / measured:")
    spread = ["launch_spread_pct"] if "launch_spread_pct" in d.columns else []
    print(d[["algo", "ranks", "dims", "size", "time_us_measured", "time_us_simulated", "model_us",
             "sim_error_pct", "model_error_pct"] + spread].to_string(index=False, float_format=lambda v: f"{v:.1f}"))
    if spread:
        print("(launch_spread_pct: (max - min) / median of the measured time over separate launches)")
    print("\nPer algorithm and rank count, |error| in percent (simulation; model):")
    g = d.assign(sim_abs=d["sim_error_pct"].abs(), model_abs=d["model_error_pct"].abs())
    columns = dict(cases=("sim_abs", "size"), sim_median=("sim_abs", "median"), sim_max=("sim_abs", "max"),
                   model_median=("model_abs", "median"), model_max=("model_abs", "max"))
    if spread:
        columns["launch_spread_median"] = ("launch_spread_pct", "median")
    summary = g.groupby(["algo", "ranks"], sort=False).agg(**columns)
    print(summary.to_string(float_format=lambda v: f"{v:.1f}"))
    relative = relative_to(d, "ring")
    if len(relative):
        relative.to_csv(os.path.join(results, "relative_to_ring.csv"), index=False, float_format="%.4f")
        r = relative.assign(abs_pct=relative["error_pct"].abs())
        print("\nRelative to ring (each algorithm's time / ring's at the same ranks and size, simulated vs"
              "\nmeasured; drift that moves every algorithm alike cancels), |error| in percent:")
        for ranks, p in r.groupby("ranks"):
            print(f"  {ranks} ranks: median {p['abs_pct'].median():.2f} max {p['abs_pct'].max():.2f} cases {len(p)}")
        print(f"  all: relative_to_ring_median_abs_error_pct={r['abs_pct'].median():.2f} "
              f"relative_to_ring_max_abs_error_pct={r['abs_pct'].max():.2f} cases={len(r)}")
    if pairs is not None and len(pairs):
        print("\nThe measurement against itself: one launch as a prediction of another launch of the same"
              "\ncommand, |difference| in percent over every case and ordered pair of launches:")
        for ranks, p in pairs.groupby("ranks"):
            print(f"  {ranks} ranks: median {p['diff_pct'].median():.2f} max {p['diff_pct'].max():.2f} pairs {len(p)}")
        print(f"  all: launch_vs_launch_median_pct={pairs['diff_pct'].median():.2f} "
              f"launch_vs_launch_max_pct={pairs['diff_pct'].max():.2f} pairs={len(pairs)}")
    plot_times(d, results)
    why = gantt(results)
    if why:
        print(f"sim_vs_real.py: Gantt chart NOT drawn: {why}", file=sys.stderr)
    print(f"median_abs_error_pct={g['sim_abs'].median():.2f} max_abs_error_pct={g['sim_abs'].max():.2f} cases={len(g)}")
    sys.exit(3 if why else 0)


if __name__ == "__main__":
    main()
