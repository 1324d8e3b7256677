#!/usr/bin/env python3
"""Tables, plots and REPORT.md from the simulations simulate.py recorded in runs.csv.

Presentation rules the report keeps (tests/test_analyze.py checks them): one style (colour,
marker, line) per series label in every plot (STYLES); time to train beside each row of the main
tables; generated sentences print a time only with units and precision fit for its magnitude
(fmt_ms) and say "no difference" instead of printing a number that rounds to zero.
"""
import argparse
import math
import os

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402

IMAGENET_IMAGES = 1_281_167  # ImageNet-1K training set
EPOCHS = 90
MODELS = ["resnet50", "resnet101"]
# The modern experiment's workloads (simulate.py's MODERN): ResNet-50 at each GPU's own speed.
MACHINES = {"resnet50_v100": "DGX-1 (V100)", "resnet50_a100": "DGX A100", "resnet50_h100": "DGX H100"}
VALUE_COLS = ["iter_ms", "compute_ms", "exposed_comm_ms", "images_per_s", "efficiency"]
KEY_COLS = ["experiment", "model", "platform", "algo", "methods", "dims"]
# Below this a time difference is numerical noise of the simulation, not an effect.
NIL_MS = 1e-6
# compare_ideal names each changed or new row up to this many; beyond, it counts them by group.
MAX_LISTED = 5

# One style per series label, the same in every plot. ddl best is drawn with large hollow markers
# and ddl on the natural grid with small crosses on a dashed line, so where the natural grid is
# the best one both stay visible instead of one hiding the other.
STYLES = {
    "ring": dict(color="tab:blue", marker="o", linestyle="-"),
    "rhd": dict(color="tab:orange", marker="s", linestyle="-"),
    "dbtree": dict(color="tab:green", marker="^", linestyle="-"),
    "hier": dict(color="tab:red", marker="v", linestyle="-"),
    "ddl best": dict(color="tab:purple", marker="D", linestyle="-", markerfacecolor="none", markersize=9),
    "ddl (natural grid)": dict(color="tab:pink", marker="x", linestyle="--", markersize=6, zorder=3),
    "ddl (ring,hd)": dict(color="tab:brown", marker="+", linestyle=":", markersize=10),
}
# What each plot drew, label -> colour, read back from the lines (for the test).
PLOTTED = {}


def sig(v, digits=3):
    """v with `digits` significant digits, never in exponent notation."""
    if v == 0:
        return "0"
    decimals = max(0, digits - 1 - math.floor(math.log10(abs(v))))
    return f"{v:.{decimals}f}"


def fmt_ms(ms):
    """A time difference in ns, us, ms or s, whichever fits; None where it is nil (< NIL_MS)."""
    a = abs(ms)
    if a < NIL_MS:
        return None
    for scale, unit in [(1e3, "s"), (1, "ms"), (1e-3, "us")]:
        if a >= scale:
            return f"{sig(ms / scale)} {unit}"
    return f"{sig(ms * 1e6)} ns"


def fmt_duration(seconds):
    """A time to train in s, min or h, three significant digits."""
    if seconds >= 3600:
        return f"{sig(seconds / 3600)} h"
    if seconds >= 60:
        return f"{sig(seconds / 60)} min"
    return f"{sig(seconds)} s"


def with_epochs(df):
    df = df.copy()
    df["epoch_min"] = IMAGENET_IMAGES / df["images_per_s"] / 60
    df[f"{EPOCHS}_epochs_h"] = df["epoch_min"] * EPOCHS / 60
    df["epoch"] = (df["epoch_min"] * 60).map(fmt_duration)
    df[f"{EPOCHS} epochs"] = (df[f"{EPOCHS}_epochs_h"] * 3600).map(fmt_duration)
    return df


def best_ddl(df):
    """The fastest ddl grid per (model, gpus), with how many grids were tried."""
    ddl = df[(df.algo == "ddl") & (df.methods == "")]
    idx = ddl.groupby(["model", "gpus"])["iter_ms"].idxmin()
    best = ddl.loc[idx].copy()
    best["grids_tried"] = ddl.groupby(["model", "gpus"]).size().loc[list(zip(best.model, best.gpus))].values
    best["label"] = "ddl best"
    return best


def md_table(df, cols, floats="{:.3f}", formats=None):
    """A markdown table; floats in `floats` unless `formats` names a column's own format."""
    formats = formats or {}
    head = "| " + " | ".join(cols) + " |\n|" + "---|" * len(cols) + "\n"
    body = ""
    for r in df[cols].itertuples(index=False):
        cells = ["–" if isinstance(v, float) and v != v else formats.get(c, floats).format(v) if isinstance(v, float)
                 else str(v) for c, v in zip(cols, r)]
        body += "| " + " | ".join(cells) + " |\n"
    return head + body


def pivot_eff(df, exclude_fastest=("ddl (natural grid)",)):
    """Efficiency per algorithm (columns) and size (rows), with the fastest one's time to train."""
    t = df.pivot_table(index="gpus", columns="label", values="efficiency").reset_index()
    t.columns.name = None
    pool = df[~df.label.isin(exclude_fastest)]
    fast = pool.loc[pool.groupby("gpus")["iter_ms"].idxmin()].set_index("gpus")
    t["fastest"] = t.gpus.map(fast.label)
    t["epoch"] = t.gpus.map(fast.epoch)
    t[f"{EPOCHS} epochs"] = t.gpus.map(fast[f"{EPOCHS} epochs"])
    return t


def style(label):
    if label not in STYLES:
        raise KeyError(f"analyze.py: no plot style for series '{label}': add it to STYLES")
    return STYLES[label]


def plot(df, x, y, series, title, ylabel, path, logy=False, zoom_without=()):
    """One line per series against GPUs (log2). zoom_without: series left out of a second panel
    whose y axis spans only the others (one far-off series would otherwise flatten them)."""
    zoom = [n for n in zoom_without if n in set(df[series])]
    fig, axes = plt.subplots(1, 2 if zoom else 1, figsize=(12 if zoom else 7, 4.2), squeeze=False)
    drawn = {}
    # Series in STYLES' order, so every legend lists them the same way.
    names = sorted(df[series].unique(), key=lambda n: list(STYLES).index(n) if n in STYLES else len(STYLES))
    for k, ax in enumerate(axes[0]):
        for name in names:
            if k == 1 and name in zoom:
                continue
            g = df[df[series] == name].sort_values(x)
            (line,) = ax.plot(g[x], g[y], label=name, **style(name))
            if drawn.setdefault(name, line.get_color()) != line.get_color():
                raise AssertionError(f"{path}: {name} in two colours")
        ax.set_xscale("log", base=2)
        ax.set_xticks(sorted(df[x].unique()))
        ax.get_xaxis().set_major_formatter(matplotlib.ticker.ScalarFormatter())
        if logy:
            ax.set_yscale("log")
            ax.yaxis.set_major_locator(matplotlib.ticker.LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
            ax.yaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda v, _: sig(v, 2)))
            ax.yaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
        ax.set_xlabel("GPUs")
        ax.set_ylabel(ylabel)
        ax.set_title(title if k == 0 else f"zoomed, without {', '.join(zoom)}", fontsize=10 if k else None)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    PLOTTED[os.path.basename(path)] = drawn


def compare_ideal(runs_path, baseline_path):
    """Rows of the ideal experiments against the runs.csv this run replaced, as written (text, so
    "equal" means digit for digit): the sentences to print."""
    if not baseline_path or not os.path.exists(baseline_path):
        return "No previous `runs.csv` to compare with (first run)."
    old = pd.read_csv(baseline_path, keep_default_na=False, dtype=str)
    new = pd.read_csv(runs_path, keep_default_na=False, dtype=str)
    new = new[new.experiment != "sensitivity"]
    old = old[old.experiment != "sensitivity"]
    merged = new.merge(old, on=KEY_COLS, how="outer", suffixes=("", "_old"), indicator=True)
    only_new = merged[merged._merge == "left_only"]
    only_old = merged[merged._merge == "right_only"]
    both = merged[merged._merge == "both"]
    differ = both[(both[VALUE_COLS].values != both[[c + "_old" for c in VALUE_COLS]].values).any(axis=1)]
    if len(only_new) == len(only_old) == len(differ) == 0:
        return (f"All {len(both)} rows of the ideal experiments (every row but the sensitivity sweep) equal the "
                f"previous `runs.csv` exactly, digit for digit in {', '.join(VALUE_COLS)}: with every effect "
                "off, the headline results are unchanged.")
    out = [f"{len(both) - len(differ)} of {len(both)} rows of the ideal experiments equal the previous `runs.csv` "
           "exactly."]
    tiny = True
    detail = []
    for r in differ.itertuples():
        changes = []
        for c in VALUE_COLS:
            old, new = getattr(r, c + "_old"), getattr(r, c)
            if old != new:
                step = abs(float(new) - float(old))
                tiny = tiny and c.endswith("_ms") and step < NIL_MS
                changes.append(f"{c} {old} -> {new}" + (f" ({fmt_ms(step) or 'below 1 ns'})" if c.endswith("_ms")
                                                         else ""))
        detail.append(f"Differs: {r.experiment} {r.model} {r.platform} {r.algo} {r.dims}: {'; '.join(changes)}.")
    if len(detail) <= MAX_LISTED:
        out += detail
    else:  # per (experiment, algorithm): how many rows moved and the largest move of the iteration
        d = differ.assign(step=differ.iter_ms.astype(float) - differ.iter_ms_old.astype(float))
        d = d.assign(rel=100 * d.step / d.iter_ms_old.astype(float))
        groups = []
        for (exp, algo), g in d.groupby(["experiment", "algo"]):
            w = g.loc[g.step.abs().idxmax()]
            groups.append(f"{exp} {algo}: {len(g)} row{'s' if len(g) != 1 else ''}, iteration {'+' if w.step > 0 else '-'}"
                          f"{fmt_ms(abs(w.step)) or 'below 1 ns'} ({w.rel:+.2f} %) at most ({w.model}, {w.gpus} GPUs, "
                          f"{w.dims})")
        out.append(f"{len(differ)} rows differ, by (experiment, algorithm): " + "; ".join(groups) + ".")
    if len(differ) and tiny:
        out.append("Every difference is below 1 ns, in the last printed digit: rounding, not a change of the "
                   "model's results.")
    for what, rows in (("New", only_new), ("No longer simulated", only_old)):
        if len(rows) <= MAX_LISTED:
            for r in rows.itertuples():
                out.append(f"{what} row: {r.experiment} {r.model} {r.platform} {r.algo} {r.dims}.")
        elif len(rows):
            counts = rows.groupby(["experiment", "model"]).size()
            out.append(f"{what} rows: " + ", ".join(f"{n} of {e} {m}" for (e, m), n in counts.items()) + ".")
    return " ".join(out)


def sensitivity_table(runs):
    """Each sensitivity point beside the ideal run of the same (platform, algo, dims)."""
    sens = runs[runs.experiment == "sensitivity"].copy()
    if sens.empty:
        return sens
    ideal = runs[runs.experiment.isin(["s822lc", "dims", "large"]) & (runs.model == "resnet50")]
    base = ideal.drop_duplicates(["platform", "algo", "dims"]).assign(jitter=0.0, interference=0.0, iters=1)
    keys = sens[["platform", "algo", "dims"]].drop_duplicates()
    base = base.merge(keys, on=["platform", "algo", "dims"])
    t = with_epochs(pd.concat([base, sens], ignore_index=True))
    ref = base.set_index(["platform", "algo", "dims"])
    idx = list(zip(t.platform, t.algo, t.dims))
    t["iter_added_ms"] = t.iter_ms.values - ref.loc[idx, "iter_ms"].values
    t["efficiency_lost_pts"] = 100 * (ref.loc[idx, "efficiency"].values - t.efficiency.values)
    t["series"] = t.gpus.astype(str) + " GPUs, " + t.algo + " " + t.dims
    return t.sort_values(["gpus", "algo", "jitter", "interference"], ascending=[True, False, True, True])


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--runs", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--report", required=True)
    p.add_argument("--baseline", help="the runs.csv this run replaced, to compare the ideal rows with")
    p.add_argument("--wall-s", type=float, default=0)
    p.add_argument("--jobs", type=int, default=0)
    p.add_argument("--notes", help="markdown saying why rows moved since the previous run, printed after the comparison")
    a = p.parse_args(argv)

    runs = pd.read_csv(a.runs, keep_default_na=False)
    for c in VALUE_COLS + ["run_wall_s", "jitter", "interference"]:
        runs[c] = runs[c].astype(float)
    runs["iters"] = runs["iters"].astype(int)
    runs["label"] = runs.algo
    runs.loc[(runs.algo == "ddl") & (runs.methods != ""), "label"] = "ddl (" + runs.methods + ")"
    runs.loc[(runs.algo == "ddl") & (runs.methods == ""), "label"] = "ddl (natural grid)"
    out = a.out

    # --- S822LC 4 -> 256: natural grids for every algorithm, plus ddl on its best grid.
    s = runs[runs.experiment.isin(["s822lc", "dims"])]
    natural = s[s.experiment == "s822lc"].copy()
    best = best_ddl(s)
    dims = s[(s.algo == "ddl")].copy()
    dims["winner"] = dims.index.isin(best.index)
    dims.sort_values(["model", "gpus", "iter_ms"])[
        ["model", "gpus", "dims", "iter_ms", "exposed_comm_ms", "efficiency", "winner"]
    ].to_csv(os.path.join(out, "ddl_dims.csv"), index=False)
    s822 = with_epochs(pd.concat([natural, best], ignore_index=True))
    cols = ["model", "gpus", "label", "dims", "iter_ms", "exposed_comm_ms", "images_per_s", "efficiency",
            "epoch_min", f"{EPOCHS}_epochs_h"]
    s822.sort_values(["model", "gpus", "label"])[cols].to_csv(os.path.join(out, "s822lc.csv"), index=False)
    for model in MODELS:
        m = s822[s822.model == model]
        plot(m, "gpus", "efficiency", "label", f"{model} on S822LC: scaling efficiency", "T(1 GPU) / T(iteration)",
             os.path.join(out, f"s822lc_{model}_efficiency.png"))
        plot(m, "gpus", "exposed_comm_ms", "label", f"{model} on S822LC: communication not hidden by backward",
             "exposed comm per iteration (ms, log)", os.path.join(out, f"s822lc_{model}_exposed.png"), logy=True)

    # --- Big Basin 8 -> 256.
    bb = with_epochs(runs[runs.experiment == "bigbasin"])
    bb.sort_values(["gpus", "label"])[["gpus", "label", "dims", "iter_ms", "exposed_comm_ms", "images_per_s",
                                       "efficiency", "epoch_min", f"{EPOCHS}_epochs_h"]].to_csv(
        os.path.join(out, "bigbasin.csv"), index=False)
    plot(bb, "gpus", "efficiency", "label", "resnet50 on Big Basin (8 GPUs/server, 50 GbE)",
         "T(1 GPU) / T(iteration)", os.path.join(out, "bigbasin_resnet50_efficiency.png"), zoom_without=["rhd"])

    # --- Today's machines: DGX-1 (V100), DGX A100, DGX H100, 8 -> 256 GPUs.
    modern = with_epochs(runs[runs.experiment == "modern"])
    modern = modern.assign(machine=modern.model.map(MACHINES))
    modern.sort_values(["model", "gpus", "label"])[
        ["machine", "gpus", "label", "dims", "iter_ms", "compute_ms", "exposed_comm_ms", "images_per_s",
         "efficiency", "epoch_min", f"{EPOCHS}_epochs_h"]].to_csv(os.path.join(out, "modern.csv"), index=False)
    for model, g in modern.groupby("model"):
        plot(g, "gpus", "efficiency", "label", f"resnet50 on {MACHINES[model]} (mixed precision)",
             "T(1 GPU) / T(iteration)", os.path.join(out, f"modern_{model}_efficiency.png"))

    # --- 512 -> 4096 on larger S822LC clusters.
    lg = runs[runs.experiment == "large"].copy()
    large = with_epochs(pd.concat([lg[lg.algo != "ddl"], best_ddl(lg)], ignore_index=True))
    large.sort_values(["gpus", "label"])[["gpus", "label", "dims", "iter_ms", "exposed_comm_ms", "images_per_s",
                                          "efficiency", "epoch_min", f"{EPOCHS}_epochs_h"]].to_csv(
        os.path.join(out, "large.csv"), index=False)
    ldims = lg[lg.algo == "ddl"][["gpus", "dims", "iter_ms", "efficiency"]].sort_values(["gpus", "iter_ms"])
    ldims.to_csv(os.path.join(out, "large_ddl_dims.csv"), index=False)
    allr50 = pd.concat([s822[(s822.model == "resnet50") & (s822.label != "ddl (natural grid)")], large],
                       ignore_index=True)
    allr50["lost_pct"] = 100 * (1 - allr50.efficiency)
    plot(allr50, "gpus", "lost_pct", "label",
         "resnet50 on S822LC, 4 -> 4096 GPUs: throughput short of linear scaling",
         "% of p x single-GPU images/s lost (log)", os.path.join(out, "s822lc_resnet50_throughput_4_4096.png"),
         logy=True)
    plot(allr50, "gpus", "efficiency", "label", "resnet50 on S822LC clusters, 4 -> 4096 GPUs",
         "T(1 GPU) / T(iteration)", os.path.join(out, "s822lc_resnet50_efficiency_4_4096.png"))

    # --- Sensitivity to the training effects (assumed values).
    sens = sensitivity_table(runs)
    if not sens.empty:
        sens[["gpus", "algo", "dims", "jitter", "interference", "iters", "iter_ms", "exposed_comm_ms",
              "efficiency", "iter_added_ms", "efficiency_lost_pts", "epoch_min", f"{EPOCHS}_epochs_h",
              "command"]].to_csv(os.path.join(out, "sensitivity.csv"), index=False)
        plot_sensitivity(sens, os.path.join(out, "sensitivity_resnet50.png"))

    # --- Epoch times: the fastest algorithm per setup and size.
    everything = pd.concat([s822.assign(setup="S822LC " + s822.model),
                            bb.assign(setup="Big Basin resnet50"),
                            large.assign(setup="S822LC resnet50"),
                            modern.assign(setup=modern.machine + " resnet50")], ignore_index=True)
    # Where ddl's grid was searched, "ddl best" stands for it; elsewhere the natural grid is ddl.
    searched = set(everything[everything.label == "ddl best"].setup)
    everything = everything[~((everything.label == "ddl (natural grid)") & everything.setup.isin(searched))]
    fastest = everything.loc[everything.groupby(["setup", "gpus"])["iter_ms"].idxmin()]
    fastest = fastest.sort_values(["setup", "gpus"])
    ecols = ["setup", "gpus", "label", "dims", "images_per_s", "efficiency", "epoch_min", f"{EPOCHS}_epochs_h"]
    fastest[ecols].to_csv(os.path.join(out, "epochs.csv"), index=False)

    write_report(a, runs, s822, best, bb, modern, large, ldims, allr50, fastest, sens,
                 compare_ideal(a.runs, a.baseline))


def plot_sensitivity(sens, path):
    """Efficiency against jitter (interference 0) and against interference (jitter 0), per series."""
    fig, axes = plt.subplots(1, 2, figsize=(10, 4.2), sharey=True)
    drawn = {}
    for ax, (x, other, xlabel) in zip(axes, [("jitter", "interference", "compute jitter CV (interference 0)"),
                                             ("interference", "jitter", "interference F (jitter 0)")]):
        for name, g in sens[sens[other] == 0].groupby("series", sort=False):
            g = g.sort_values(x)
            st = dict(style("ddl best" if g.algo.iloc[0] == "ddl" else g.algo.iloc[0]))
            if g.gpus.iloc[0] > 256:
                st.update(linestyle="--", marker="*", markersize=10, markerfacecolor=st["color"])
            (line,) = ax.plot(g[x], g.efficiency, label=name, **st)
            drawn[name] = line.get_color()
        ax.set_xlabel(xlabel + ", assumed")
        ax.grid(True, alpha=0.3)
    axes[0].set_ylabel("T(1 GPU) / T(iteration)")
    axes[0].legend(fontsize=8)
    fig.suptitle("resnet50 on S822LC: efficiency vs training effects (assumed values, swept)")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    PLOTTED[os.path.basename(path)] = drawn


def modern_section(modern):
    if modern.empty:
        return ""
    L = ["## Today's machines: DGX-1 (V100), DGX A100, DGX H100, 8 -> 256 GPUs (ResNet-50)\n"]
    L.append("`platforms/generate.py --platform dgx1|dgx_a100|dgx_h100 --nodes N` (1 to 32 nodes of 8 GPUs on a "
             "two-level fat tree; NVLink/NVSwitch, NICs and their figures in `platforms/SOURCES.md`). ResNet-50 runs "
             "at each GPU's own speed: the workload's forward + backward time per 32-image minibatch is set from "
             "the GPU's mixed-precision training throughput (V100 1200 images/s and A100 2470 images/s, NVIDIA's "
             "DeepLearningExamples; H100 twice the A100, assumed from Lambda's ~2x for vision models: "
             "`platforms/SOURCES.md`, \"Workloads\"), gradients fp32 in the same 25 MiB buckets. The faster the GPU, "
             "the less backward pass there is to hide an allreduce behind, so the algorithms differ far more here "
             "than on the P100 clusters above.\n")
    for model in MACHINES:  # by GPU generation
        g = modern[modern.model == model]
        if g.empty:
            continue
        L.append(f"### {MACHINES[model]}: scaling efficiency per algorithm\n")
        t = pivot_eff(g, exclude_fastest=())  # ddl runs on the natural grid only here
        L.append(md_table(t, list(t.columns), "{:.4f}"))
        L.append(f"\n![{MACHINES[model]} efficiency](results/modern_{model}_efficiency.png)\n")
    return "\n".join(L)


def write_report(a, runs, s822, best, bb, modern, large, ldims, allr50, fastest, sens, ideal_check):
    lg = runs[runs.experiment == "large"]
    sim_cpu = runs.drop_duplicates("command")["run_wall_s"].sum()
    n_runs = runs["command"].nunique()
    L = []
    L.append("# Scaling study: simulated ResNet-50/101 training on S822LC, Big Basin and DGX clusters\n")
    L.append("Produced by `experiments/scaling/run.sh` (simulations: `simulate.py`; tables, plots and this "
             "file: `analyze.py`). Every number below is a **simulation** (ddlsim, SimGrid CM02 model of the "
             "platforms in `platforms/`), not a measurement.\n")
    L.append("## How it was run\n")
    L.append("```sh\nexperiments/scaling/run.sh            # BUILD=<build folder> JOBS=<parallel simulations> MPIRUN_NP=<mpirun ranks>\n```\n")
    L.append(f"This run: {n_runs} ddlsim processes, {a.jobs} at a time, {a.wall_s:.0f} s wall for all "
             f"simulations (sum of per-process wall times {sim_cpu:.0f} s) on a 2-core machine shared with other "
             "work. Every process is one command of the form below; `results/runs.csv` lists each exact command "
             "beside its rows.\n")
    L.append("```sh\n"
             "ddlsim --platform platforms/s822lc_64.xml --workload resnet50 --algo ddl,rhd,dbtree,hier --format csv\n"
             "ddlsim --platform platforms/s822lc_64.xml --workload resnet50 --algo ddl --dims 4x16x4 --format csv\n"
             "ddlsim --platform platforms/bigbasin_32.xml --workload resnet50 --algo ddl --dims 8x32 "
             "--methods ring,hd --format csv\n"
             "python3 platforms/generate.py --platform s822lc --nodes 1024 -o /tmp/s822lc_1024.xml\n"
             "ddlsim --platform /tmp/s822lc_1024.xml --workload resnet50 --algo ddl --dims 4x32x32 --format csv\n"
             "ddlsim --platform platforms/s822lc_64.xml --workload resnet50 --algo ring --format csv "
             "--jitter 0.05 --interference 0 -n 5\n"
             "```\n")
    L.append("Workload model (`workloads/README.md`): batch 32 per GPU, 180 ms (ResNet-50) / 343.2 ms "
             "(ResNet-101) of forward + backward per iteration on a P100, fp32 gradients in PyTorch-DDP buckets "
             "(1 MiB first, then 25 MiB) whose allreduces overlap the rest of the backward pass, then the "
             "optimizer step. **Efficiency** = single-GPU iteration time / iteration time at p GPUs "
             "(= throughput relative to p x one GPU). Time to train: one epoch = 1,281,167 ImageNet-1K images, "
             f"and {EPOCHS} epochs, at the simulated images/s.\n")
    L.append("**The training effects** (`workloads/README.md`, \"What an iteration pays beyond compute and "
             "communication\": compute jitter, interference, bucket launch, data loading) are parameters of the "
             "workload and the platform. No shipped workload or platform sets any of them, so every table but "
             "the sensitivity sweep is the ideal overlap model, as before. " + ideal_check + "\n")
    if a.notes:
        L.append(open(a.notes).read().rstrip() + "\n")
    L.append("**Reading the plots**: each series keeps one colour, marker and line style in every plot. "
             "`ddl best` (hollow diamonds) and `ddl (natural grid)` (crosses, dashed) coincide wherever the "
             "natural grid is the fastest; both stay visible. The tables give every value.\n")

    L.append("## S822LC, 4 -> 256 GPUs\n")
    for model in MODELS:
        m = s822[s822.model == model]
        L.append(f"### {model}: scaling efficiency per algorithm\n")
        L.append("Natural grid (4 x 8 x nodes/8) for every algorithm; `ddl best` is ddl on the fastest of the "
                 "grids tried (4 first, up to 3 dimensions). Time to train is the fastest algorithm's.\n")
        t = pivot_eff(m)
        L.append(md_table(t, list(t.columns), "{:.4f}"))
        b = best[best.model == model][["gpus", "dims", "grids_tried", "iter_ms", "efficiency"]]
        L.append(f"\nddl's winning grids ({model}):\n")
        L.append(md_table(b, list(b.columns)))
        L.append(f"\n![{model} efficiency](results/s822lc_{model}_efficiency.png)\n"
                 f"![{model} exposed communication](results/s822lc_{model}_exposed.png)\n")

    L.append("## Facebook's setup: ResNet-50 on Big Basin, 8 -> 256 GPUs\n")
    L.append("Goyal et al. (arXiv 1706.02677) reduce with NCCL inside the server and recursive "
             "halving-doubling across servers. Here that is `ddl --dims 8xN --methods ring,hd` (ring among the "
             "8 GPUs of a server, halving-doubling among the N servers), shown as `ddl (ring,hd)`, beside the "
             "other algorithms on the natural grid 8xN.\n")
    t = pivot_eff(bb, exclude_fastest=())
    L.append(md_table(t, list(t.columns), "{:.4f}"))
    L.append("\n![Big Basin efficiency](results/bigbasin_resnet50_efficiency.png)\n")
    L.append(modern_section(modern))

    L.append("## Larger S822LC clusters: 512 -> 4096 GPUs (ResNet-50)\n")
    top = lambda algo: int(lg[lg.algo == algo].gpus.max()) if (lg.algo == algo).any() else 0
    extent = max(int(e) for d in lg[lg.algo == "ddl"].dims for e in d.split("x")) if (lg.algo == "ddl").any() else 0
    L.append("128 and 256 nodes are checked in; 512 and 1024 nodes are generated by `platforms/generate.py`. "
             f"The flat ring is simulated up to {top('ring')} GPUs and hier (a flat ring among the node leaders) "
             f"up to {top('hier')}: their message counts grow as the square of the ring's length (a flat ring "
             "of 4096 GPUs is about 170 million messages per iteration), which step extrapolation keeps "
             "affordable (sim/README.md). ddl is tried on the grids whose every dimension is at most "
             f"{extent} GPUs or nodes.\n")
    L.append(md_table(large.sort_values(["gpus", "label"]),
                      ["gpus", "label", "dims", "iter_ms", "exposed_comm_ms", "images_per_s", "efficiency", "epoch",
                       f"{EPOCHS} epochs"]))
    L.append("\nddl grids tried at these sizes:\n")
    L.append(md_table(ldims, list(ldims.columns)))
    lo, hi = allr50.gpus.min(), allr50.gpus.max()
    grow = allr50[allr50.gpus == hi].images_per_s.max() / allr50[allr50.gpus == lo].images_per_s.max()
    spread = allr50.groupby("gpus").lost_pct.agg(lambda v: v.max() - v.min()).max()
    L.append(f"\nFrom {lo} to {hi} GPUs the throughput grows {sig(grow, 2)}-fold while the algorithms differ by at "
             f"most {sig(spread, 2)} % of it at any one size, so a plot of images/s draws one line. The second plot "
             "shows instead what the algorithms change: the share of linear scaling's throughput (p x one GPU's "
             "images/s) each one loses, 100 x (1 - efficiency), on a log axis.\n")
    L.append("![efficiency 4..4096](results/s822lc_resnet50_efficiency_4_4096.png)\n"
             "![throughput lost vs linear 4..4096](results/s822lc_resnet50_throughput_4_4096.png)\n")

    ddl_best = pd.concat([best[best.model == "resnet50"], best_ddl(runs[runs.experiment == "large"])])
    L.append(sensitivity_section(sens, ddl_best, runs))

    L.append("## Time to train: one ImageNet-1K epoch and 90 epochs (fastest algorithm per size)\n")
    L.append(md_table(fastest, ["setup", "gpus", "label", "dims", "images_per_s", "efficiency", "epoch",
                                f"{EPOCHS} epochs"]))
    L.append("\n")
    L.append(observations(s822, bb, large))
    L.append("## Files\n")
    L.append("- `results/runs.csv`: every simulated row with its experiment, effect parameters, iterations and "
             "exact command\n"
             "- `results/s822lc.csv`, `results/ddl_dims.csv`, `results/bigbasin.csv`, `results/modern.csv`, "
             "`results/large.csv`, "
             "`results/large_ddl_dims.csv`, `results/sensitivity.csv`, `results/epochs.csv`: the tables above\n"
             "- `results/*.png`: the plots above\n")
    with open(a.report, "w") as f:
        f.write("\n".join(L))


def cost_phrase(row):
    """'costs X points of efficiency (Y per iteration)' (or 'gains' where it speeds the iteration
    up), 'costs nothing visible' where the difference is below what the table shows."""
    added = fmt_ms(abs(row.iter_added_ms))
    if added is None or abs(row.efficiency_lost_pts) < 0.005:
        return "costs nothing visible"
    verb = "costs" if row.efficiency_lost_pts > 0 else "gains"
    return f"{verb} {sig(abs(row.efficiency_lost_pts), 2)} points of efficiency ({added} per iteration)"


def efficiency_cell(r):
    """'0.868 (-12.49)': the efficiency and the points it lost (or gained) against the ideal run."""
    lost = r.efficiency_lost_pts
    delta = f" (-{lost:.2f})" if lost >= 0.005 else f" (+{-lost:.2f})" if lost <= -0.005 else ""
    return f"{r.efficiency:.3f}{delta}"


def sensitivity_section(sens, best, runs):
    """best: ddl's fastest grid per size (ResNet-50), to say where a swept grid is it."""
    if sens.empty:
        return ""
    where = []
    for (gpus, platform), g in sens.groupby(["gpus", "platform"], sort=True):
        fastest = best[best.gpus == gpus].dims
        what = [f"{algo} {dims}" + (" (ddl's best grid there)" if algo == "ddl" and dims in set(fastest) else "")
                for algo, dims in g[["algo", "dims"]].drop_duplicates().itertuples(index=False)]
        shown = (f"`{platform.split('/')[-1]}` from `platforms/generate.py`" if platform.startswith("$GENERATED")
                 else f"`{platform}`")
        where.append(f"{' and '.join(what)} at {gpus} GPUs ({shown})")
    L = ["## Sensitivity: which effect costs what (ResNet-50)\n"]
    L.append("**The jitter and interference values below are assumed, swept to show sensitivity: no shipped "
             "workload or platform sets them, and none is a measurement.** Compute jitter CV is the coefficient "
             "of variation of each rank's per-iteration forward + backward time (lognormal, seeded); "
             "interference F slows a backward layer by (1 + F) while a bucket of its rank is in flight. Points: "
             f"{'; '.join(where)}; (0, 0) is the ideal run of the tables above.\n")
    iters = sorted(sens[sens.jitter > 0].iters.unique())
    if iters:
        L.append(f"Jittered points average {', '.join(map(str, iters))} iterations: every iteration draws new "
                 "factors and each bucket waits for the slowest of p ranks, so one iteration shows one draw of "
                 "that maximum, the mean of several its expectation. Without jitter every iteration is the same "
                 "and one is simulated.\n")
    big = sens[sens.gpus > 256]
    if not big.empty and not (big.jitter > 0).any():
        g = big.gpus.max()
        ideal = big[(big.gpus == g) & (big.jitter == 0) & (big.interference == 0)].command.iloc[0]
        wall = runs[runs.command == ideal].run_wall_s.max()
        L.append(f"At {g} GPUs only interference is swept: jitter desynchronises the ranks, which multiplies the "
                 "simulation's cost (about 7x: ddl 4x8x8 at 256 GPUs took 0.64 s of CPU for an ideal iteration "
                 f"and 4.7 s for one with jitter CV 0.05 on this machine), and the ideal {g}-GPU ddl iteration "
                 f"took {wall:.0f} s in this run: a jittered point there would take about 7 times that per "
                 "iteration, beyond this study's budget.\n")
    L.append("Efficiency per configuration (column) and effect (row), with the points lost against the same "
             "configuration's ideal run; – where not simulated:\n")
    cell = sens.assign(cell=[efficiency_cell(r) for r in sens.itertuples()])
    grid = cell.pivot_table(index=["jitter", "interference"], columns="series", values="cell", aggfunc="first",
                            sort=False).reset_index()
    grid.columns.name = None
    grid = grid.sort_values(["interference", "jitter"]).rename(columns={"jitter": "jitter CV",
                                                                        "interference": "interference F"})
    L.append(md_table(grid.fillna("–"), list(grid.columns), formats={"jitter CV": "{:g}", "interference F": "{:g}"}))
    L.append("\nEvery point in full:\n")
    L.append(md_table(sens, ["gpus", "algo", "dims", "jitter", "interference", "iters", "iter_ms", "efficiency",
                             "efficiency_lost_pts", "epoch", f"{EPOCHS} epochs"],
                      formats={"jitter": "{:g}", "interference": "{:g}", "efficiency_lost_pts": "{:.2f}"}))
    L.append("\n(`efficiency_lost_pts`: efficiency points below the same configuration's ideal run.)\n")
    L.append("![sensitivity](results/sensitivity_resnet50.png)\n")
    o = []
    for series, g in sens.groupby("series", sort=False):
        parts = []
        for r in g[(g.jitter > 0) | (g.interference > 0)].itertuples():
            what = " with ".join(([f"jitter CV {r.jitter:g}"] if r.jitter else []) +
                                ([f"interference {r.interference:g}"] if r.interference else []))
            parts.append(f"{what} {cost_phrase(r)}")
        if parts:
            o.append(f"- **{series}**: " + "; ".join(parts) + ".")
    L.append("\n".join(o) + "\n")
    return "\n".join(L)


def observations(s822, bb, large):
    o = ["## Observations\n"]
    for model in MODELS:
        m = s822[(s822.model == model) & (s822.gpus == s822.gpus.max())].sort_values("iter_ms")
        ranking = ", ".join(f"{r.label} {r.efficiency:.3f}" for r in m.itertuples())
        o.append(f"- **{model}, {s822.gpus.max()} GPUs**: efficiency by algorithm, fastest first: {ranking}.")
    for model in MODELS:
        m = s822[(s822.model == model) & (s822.label != "ddl (natural grid)")]
        winners = m.loc[m.groupby("gpus")["iter_ms"].idxmin()]
        o.append(f"- {model}: fastest per size: " +
                 ", ".join(f"{r.gpus}: {r.label}" + (f" {r.dims}" if r.label == 'ddl best' else "")
                           for r in winners.itertuples()) + ".")
    for model in MODELS:
        m = s822[s822.model == model]
        nat = m[m.label == "ddl (natural grid)"].set_index("gpus")["iter_ms"]
        bst = m[m.label == "ddl best"].set_index("gpus")["iter_ms"]
        gains = (nat - bst).dropna()
        gain = fmt_ms(gains.max()) if len(gains) else None
        if gain is None:
            o.append(f"- {model}: the natural grid 4 x 8 x nodes/8 is ddl's fastest grid at every size.")
        else:
            o.append(f"- {model}: searching ddl's grid gains at most {gain} per iteration over the natural grid "
                     f"4 x 8 x nodes/8 (at {gains.idxmax()} GPUs): with the buckets' allreduces hidden behind the "
                     "backward pass, the grid matters little for the iteration time.")
    hd = bb[bb.label == "ddl (ring,hd)"].set_index("gpus")["iter_ms"]
    rr = bb[bb.label == "ddl (natural grid)"].set_index("gpus")["iter_ms"]
    diff = (rr - hd).dropna()
    if len(diff):
        change = fmt_ms(diff.abs().max())
        o.append("- Big Basin: halving-doubling instead of a ring across servers " +
                 (f"changes ddl's iteration by at most {change}" if change else "does not change ddl's iteration") +
                 f" ({diff.index.min()} -> {diff.index.max()} GPUs): the one 50 GbE NIC per server is the "
                 "bottleneck, the 8 concurrent rings of a server keep it busy through each other's step "
                 "latencies, and both methods push the same bytes through it.")
    flat = bb[bb.label == "rhd"].set_index("gpus")["efficiency"]
    top = bb[bb.gpus == bb.gpus.max()]
    if len(flat) and not top.empty:
        g = top.gpus.iloc[0]
        rank = int((top.efficiency > flat.get(g, 0)).sum()) + 1
        o.append(f"- Big Basin: flat rhd pairs the nearest ranks first, so its large halves stay on NVLink and "
                 f"only the small ones cross the NIC; at {g} GPUs it ranks {rank} of {len(top)} "
                 f"(efficiency {flat.get(g, 0):.3f}).")
    bmax = bb[bb.gpus == bb.gpus.max()].sort_values("iter_ms")
    if len(bmax):
        o.append(f"- **Big Basin, {bb.gpus.max()} GPUs**: " +
                 ", ".join(f"{r.label} {r.efficiency:.3f}" for r in bmax.itertuples()) + ".")
    for g in sorted(large.gpus.unique()):
        lg = large[large.gpus == g].sort_values("iter_ms")
        o.append(f"- **{g} GPUs** (ResNet-50): " + ", ".join(f"{r.label} {r.efficiency:.3f}"
                                                             for r in lg.itertuples()) + ".")
    o.append("- The PowerAI DDL paper (arXiv 1708.02188) reports a scaling efficiency at 256 GPUs; its exact "
             "figure and which model it is for are not in the sources this project keeps "
             "(`platforms/SOURCES.md`), so the comparison is **not checked here**. Likewise Goyal et al.'s "
             "measured Big Basin efficiency is not checked here.")
    o.append("- Why the ideal efficiencies are high: the backward pass (120 ms for ResNet-50) hides most of "
             "each bucket's allreduce; only the last bucket(s) and the optimizer step remain exposed. With no "
             "measured jitter, interference, launch or input-pipeline cost for these machines, the tables assume "
             "none, and the network figures (EDR InfiniBand, 50 GbE) are assumed too: read them as upper bounds "
             "on what the communication schedule allows. The sensitivity section shows how far the assumed "
             "effects pull them down.\n")
    return "\n".join(o) + "\n"


if __name__ == "__main__":
    main()
