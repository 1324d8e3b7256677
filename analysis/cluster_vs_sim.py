#!/usr/bin/python3
"""Prediction vs measurement on the emulated cluster: the error of ddlsim (on the calibrated
platform, and on the nominal one) and of the analytical model against ddlrun, per case, and
whether the simulator ranks the algorithms as the measurement does.

    analysis/cluster_vs_sim.py RESULTS_DIR

RESULTS_DIR holds what experiments/cluster_vs_sim.sh wrote, per configuration C and variant V
(natural: every algorithm on the natural grid; rings2: ddl with 2 rings; grid: ddl on another
grid; the rails configuration r has natural only): measured_<C>_<V>.launch<i>.csv (ddlrun --format csv, one file per launch; per case the
median over launches is the measurement), simulated_<C>_<V>.csv (ddlsim on the calibrated
platform, with model_us) and nominal_<C>_<V>.csv (ddlsim on the nominal platform), and
optionally trace_measured_<C>.csv / trace_simulated_<C>.csv for a Gantt chart.
A case is (configuration, algorithm label, size); labels: the algorithm for `natural`,
`ddl:rings=2` and `ddl:<dims>` for the others.
Writes errors.csv, measured.csv (the combined launches), ranking.csv, speedup.csv,
time_vs_size_<C>.png and gantt_ddl_<size>_<C>.png. speedup.csv: ddl over ring on b, and the
two channels over the one ring on the rails (ring:channels=2 over ring on r), measured and
predicted. The ranking: per configuration and size,
the label with the least simulated time (the prediction's choice) against the one with the
least measured time; the choice agrees when its measured time is within 5 % of the measured
best. The last line printed is exactly
`median_abs_error_pct=<x> max_abs_error_pct=<y> cases=<n> best_choice_agreement_pct=<z>`.
"""
import glob
import os
import re
import sys

sys.dont_write_bytecode = True  # keep the source tree free of __pycache__
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import matplotlib  # noqa: E402

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402
from sim_vs_real import gantt, launch_vs_launch  # noqa: E402

KEYS = ["config", "label", "size"]
CHOICE_TOLERANCE = 0.05  # the predicted choice "agrees" within 5 % of the measured best


def label(algo, variant, dims):
    return algo if variant == "natural" else ("ddl:rings=2" if variant == "rings2" else f"{algo}:{dims}")


def read_rows(path, config, variant):
    t = pd.read_csv(path, comment="#")
    if t.empty:
        sys.exit(f"cluster_vs_sim.py: {path} has no rows")
    if "wrong" in t.columns and t["wrong"].fillna(0).astype(int).any():
        sys.exit(f"cluster_vs_sim.py: {path} has rows with wrong elements: the measurement is not exact")
    t["config"] = config
    t["label"] = [label(a, variant, d) for a, d in zip(t["algo"], t["dims"])]
    return t


def load(results):
    """The merged per-case table and the launch-vs-launch pairs."""
    measured, pairs = [], []
    pattern = re.compile(r"measured_([a-z0-9]+)_([a-z0-9]+)\.launch(\d+)\.csv$")
    files = sorted(glob.glob(os.path.join(results, "measured_*_*.launch*.csv")))
    if not files:
        sys.exit(f"cluster_vs_sim.py: no measured_<config>_<variant>.launch<i>.csv in {results}")
    for path in files:
        m = pattern.search(path)
        if m:
            measured.append(read_rows(path, m.group(1), m.group(2)).assign(launch=int(m.group(3))))
    runs = pd.concat(measured, ignore_index=True)
    pairs = launch_vs_launch(runs, KEYS)
    g = runs.groupby(KEYS, sort=False)["time_us"]
    m = g.median().rename("time_us_measured").reset_index()
    m["launch_spread_pct"] = (100 * (g.max() - g.min()) / g.median()).values
    m["launches"] = g.size().values
    m["dims"] = runs.groupby(KEYS, sort=False)["dims"].first().values
    sims = []
    for config, variant in sorted({(c, v) for c, v in (pattern.search(p).groups()[:2] for p in files)}):
        frames = {}
        for kind in ("simulated", "nominal"):
            path = os.path.join(results, f"{kind}_{config}_{variant}.csv")
            if not os.path.exists(path):
                sys.exit(f"cluster_vs_sim.py: {path} is missing (measured_{config}_{variant} has no {kind} run)")
            frames[kind] = read_rows(path, config, variant)
        s = frames["simulated"][KEYS + ["time_us", "model_us"]].rename(columns={"time_us": "time_us_simulated"})
        n = frames["nominal"][KEYS + ["time_us"]].rename(columns={"time_us": "time_us_nominal"})
        sims.append(s.merge(n, on=KEYS, how="inner"))
    d = m.merge(pd.concat(sims, ignore_index=True), on=KEYS, how="left")
    if d["time_us_simulated"].isna().any():
        missing = d[d["time_us_simulated"].isna()][KEYS].to_string(index=False)
        sys.exit(f"cluster_vs_sim.py: measured cases without a simulation:\n{missing}")
    for kind in ("simulated", "nominal"):
        d[f"{kind}_error_pct"] = 100 * (d[f"time_us_{kind}"] - d["time_us_measured"]) / d["time_us_measured"]
    d["model_error_pct"] = 100 * (d["model_us"] - d["time_us_measured"]) / d["time_us_measured"]
    return d, pairs


def ranking(d, column="time_us_simulated"):
    """Per (config, size): the label `column` ranks fastest, the measured fastest, and how much
    slower (measured) the chosen label is than the measured best."""
    rows = []
    for (config, size), g in d.groupby(["config", "size"]):
        chosen = g.loc[g[column].idxmin()]
        best = g.loc[g["time_us_measured"].idxmin()]
        slower = 100 * (chosen["time_us_measured"] - best["time_us_measured"]) / best["time_us_measured"]
        rows.append(dict(config=config, size=size, predicted=chosen["label"], measured_best=best["label"],
                         chosen_slower_pct=slower, agrees=slower <= 100 * CHOICE_TOLERANCE))
    return pd.DataFrame(rows)


def speedup(d, config="b", fast="ddl", base="ring"):
    """`base` time / `fast` time per size on `config`, measured and predicted, and the
    prediction's error."""
    c = d[d["config"] == config].set_index(["label", "size"])
    rows = []
    for size in sorted(d[d["config"] == config]["size"].unique()):
        if (fast, size) in c.index and (base, size) in c.index:
            r, f = c.loc[(base, size)], c.loc[(fast, size)]
            measured = r["time_us_measured"] / f["time_us_measured"]
            predicted = r["time_us_simulated"] / f["time_us_simulated"]
            rows.append(dict(config=config, fast=fast, base=base, size=size, measured=measured,
                             predicted=predicted, error_pct=100 * (predicted - measured) / measured))
    return pd.DataFrame(rows, columns=["config", "fast", "base", "size", "measured", "predicted", "error_pct"])


def plot_times(d, results):
    for config, c in d.groupby("config"):
        labels = list(dict.fromkeys(c["label"]))
        cols = min(4, len(labels))
        rows = (len(labels) + cols - 1) // cols
        fig, axes = plt.subplots(rows, cols, figsize=(4 * cols, 3.4 * rows), squeeze=False, sharey=True)
        for ax in axes.flat[len(labels):]:
            ax.set_visible(False)
        for ax, name in zip(axes.flat, labels):
            a = c[c["label"] == name].sort_values("size")
            ax.loglog(a["size"], a["time_us_measured"], "o-", color="black", label="measured")
            ax.loglog(a["size"], a["time_us_simulated"], "s--", color="tab:blue", label="simulated, calibrated")
            ax.loglog(a["size"], a["time_us_nominal"], "^:", color="tab:orange", label="simulated, nominal")
            ax.loglog(a["size"], a["model_us"], ":", color="tab:green", label="model")
            ax.set_title(f"{name} ({a['dims'].iloc[0]})", fontsize=9)
            ax.set_xlabel("bytes")
            ax.grid(True, which="both", alpha=0.3)
        axes[0][0].set_ylabel("time (us)")
        axes[0][0].legend(fontsize=7)
        fig.suptitle(f"configuration {config}")
        fig.tight_layout()
        fig.savefig(os.path.join(results, f"time_vs_size_{config}.png"), dpi=100)
        plt.close(fig)


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: analysis/cluster_vs_sim.py RESULTS_DIR")
    results = sys.argv[1]
    d, pairs = load(results)
    d.to_csv(os.path.join(results, "errors.csv"), index=False, float_format="%.3f")
    pd.set_option("display.width", 200)
    pd.set_option("display.max_rows", 500)
    print("Error per case, percent of the measured time (median over launches):")
    print(d[KEYS + ["dims", "time_us_measured", "launch_spread_pct", "time_us_simulated", "simulated_error_pct",
                    "time_us_nominal", "nominal_error_pct", "model_us", "model_error_pct"]]
          .to_string(index=False, float_format=lambda v: f"{v:.1f}"))
    a = d.assign(sim=d["simulated_error_pct"].abs(), nominal=d["nominal_error_pct"].abs(),
                 model=d["model_error_pct"].abs())
    print("\nPer configuration and algorithm, |error| in percent (median / max):")
    summary = a.groupby(["config", "label"], sort=False).agg(
        cases=("sim", "size"), calibrated_median=("sim", "median"), calibrated_max=("sim", "max"),
        nominal_median=("nominal", "median"), model_median=("model", "median"),
        launch_spread_median=("launch_spread_pct", "median"))
    print(summary.to_string(float_format=lambda v: f"{v:.1f}"))
    for kind in ("sim", "nominal", "model"):
        print(f"  {kind}: median {a[kind].median():.2f} max {a[kind].max():.2f}")
    print("\nThe measurement against itself (one launch as a prediction of another):")
    print(f"  launch_vs_launch_median_pct={pairs['diff_pct'].median():.2f} "
          f"launch_vs_launch_max_pct={pairs['diff_pct'].max():.2f} pairs={len(pairs)}")
    rank = ranking(d)
    rank.to_csv(os.path.join(results, "ranking.csv"), index=False, float_format="%.3f")
    print("\nRanking per size: the simulator's choice vs the measured best (agrees within 5 %):")
    print(rank.to_string(index=False, float_format=lambda v: f"{v:.1f}"))
    model_rank = ranking(d, "model_us")
    print(f"  the alpha-beta model's choice agrees at {100 * model_rank['agrees'].mean():.1f} % of sizes, "
          f"the nominal platform's at {100 * ranking(d, 'time_us_nominal')['agrees'].mean():.1f} %")
    speedups = [speedup(d), speedup(d, "r", fast="ring:channels=2")]
    if any(len(sp) for sp in speedups):
        pd.concat([sp for sp in speedups if len(sp)]).to_csv(
            os.path.join(results, "speedup.csv"), index=False, float_format="%.4f")
    for sp in speedups:
        if not len(sp):
            continue
        config, fast, base = sp.iloc[0][["config", "fast", "base"]]
        print(f"\n{fast} over {base} on configuration {config} ({base} time / {fast} time), measured vs predicted:")
        print(sp[["size", "measured", "predicted", "error_pct"]].to_string(index=False, float_format=lambda v: f"{v:.3f}"))
        print(f"  speedup |error|: median {sp['error_pct'].abs().median():.2f} max {sp['error_pct'].abs().max():.2f}")
    plot_times(d, results)
    for config in sorted(d["config"].unique()):
        why = gantt(results, f"_{config}")
        if why:
            print(f"cluster_vs_sim.py: Gantt chart of {config} not drawn: {why}", file=sys.stderr)
    print(f"median_abs_error_pct={a['sim'].median():.2f} max_abs_error_pct={a['sim'].max():.2f} cases={len(a)} "
          f"best_choice_agreement_pct={100 * rank['agrees'].mean():.2f}")


if __name__ == "__main__":
    main()
