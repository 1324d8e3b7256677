#!/usr/bin/env python3
"""Tables, plots and REPORT.md from the simulations simulate.py recorded in runs.csv."""
import argparse
import os

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402

IMAGENET_IMAGES = 1_281_167  # ImageNet-1K training set
EPOCHS = 90
ALGOS = ["ring", "rhd", "dbtree", "hier", "ddl"]


def label(r):
    return f"{r.algo} ({r.methods})" if r.methods else r.algo


def with_epochs(df):
    df = df.copy()
    df["epoch_min"] = IMAGENET_IMAGES / df["images_per_s"] / 60
    df[f"{EPOCHS}_epochs_h"] = df["epoch_min"] * EPOCHS / 60
    return df


def best_ddl(df):
    """The fastest ddl grid per (model, gpus), with how many grids were tried."""
    ddl = df[(df.algo == "ddl") & (df.methods == "")]
    idx = ddl.groupby(["model", "gpus"])["iter_ms"].idxmin()
    best = ddl.loc[idx].copy()
    best["grids_tried"] = ddl.groupby(["model", "gpus"]).size().loc[list(zip(best.model, best.gpus))].values
    best["algo"] = "ddl best"
    return best


def md_table(df, cols, floats="{:.3f}"):
    head = "| " + " | ".join(cols) + " |\n|" + "---|" * len(cols) + "\n"
    body = ""
    for r in df[cols].itertuples(index=False):
        cells = ["–" if isinstance(v, float) and v != v else floats.format(v) if isinstance(v, float) else str(v)
                 for v in r]
        body += "| " + " | ".join(cells) + " |\n"
    return head + body


def plot(df, x, y, series, title, ylabel, path, logy=False):
    fig, ax = plt.subplots(figsize=(7, 4.2))
    for name, g in df.groupby(series, sort=False):
        g = g.sort_values(x)
        ax.plot(g[x], g[y], marker="o", label=name)
    ax.set_xscale("log", base=2)
    if logy:
        ax.set_yscale("log")
    ax.set_xticks(sorted(df[x].unique()))
    ax.get_xaxis().set_major_formatter(matplotlib.ticker.ScalarFormatter())
    ax.set_xlabel("GPUs")
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--runs", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--report", required=True)
    p.add_argument("--wall-s", type=float, default=0)
    p.add_argument("--jobs", type=int, default=0)
    p.add_argument("--ddlsim", default="ddlsim")
    a = p.parse_args()

    runs = pd.read_csv(a.runs, keep_default_na=False)
    for c in ["iter_ms", "compute_ms", "exposed_comm_ms", "images_per_s", "efficiency", "run_wall_s"]:
        runs[c] = runs[c].astype(float)
    runs["label"] = runs.apply(label, axis=1)
    out = a.out
    rep = []

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
    s822["label"] = s822.algo.where(s822.algo != "ddl", "ddl (natural grid)")
    s822["grids_tried"] = s822.get("grids_tried", pd.Series(dtype=float)).fillna(1).astype(int)
    cols = ["model", "gpus", "label", "dims", "iter_ms", "exposed_comm_ms", "images_per_s", "efficiency",
            "epoch_min", f"{EPOCHS}_epochs_h"]
    s822.sort_values(["model", "gpus", "label"])[cols].to_csv(os.path.join(out, "s822lc.csv"), index=False)
    for model in ["resnet50", "resnet101"]:
        m = s822[s822.model == model]
        plot(m, "gpus", "efficiency", "label", f"{model} on S822LC: scaling efficiency", "T(1 GPU) / T(iteration)",
             os.path.join(out, f"s822lc_{model}_efficiency.png"))
        plot(m, "gpus", "exposed_comm_ms", "label", f"{model} on S822LC: communication not hidden by backward",
             "exposed comm per iteration (ms)", os.path.join(out, f"s822lc_{model}_exposed.png"))

    # --- Big Basin 8 -> 256.
    bb = with_epochs(runs[runs.experiment == "bigbasin"]).copy()
    bb.sort_values(["gpus", "label"])[["gpus", "label", "dims", "iter_ms", "exposed_comm_ms", "images_per_s",
                                       "efficiency", "epoch_min", f"{EPOCHS}_epochs_h"]].to_csv(
        os.path.join(out, "bigbasin.csv"), index=False)
    plot(bb, "gpus", "efficiency", "label", "resnet50 on Big Basin (8 GPUs/server, 50 GbE)",
         "T(1 GPU) / T(iteration)", os.path.join(out, "bigbasin_resnet50_efficiency.png"))

    # --- 512 -> 4096 on larger S822LC clusters.
    lg = runs[runs.experiment == "large"].copy()
    lbest = best_ddl(lg)
    large = with_epochs(pd.concat([lg[lg.algo != "ddl"], lbest], ignore_index=True))
    large["label"] = large.algo
    large.sort_values(["gpus", "label"])[["gpus", "label", "dims", "iter_ms", "exposed_comm_ms", "images_per_s",
                                          "efficiency", "epoch_min", f"{EPOCHS}_epochs_h"]].to_csv(
        os.path.join(out, "large.csv"), index=False)
    ldims = lg[lg.algo == "ddl"][["gpus", "dims", "iter_ms", "efficiency"]].sort_values(["gpus", "iter_ms"])
    ldims.to_csv(os.path.join(out, "large_ddl_dims.csv"), index=False)
    allr50 = pd.concat([s822[(s822.model == "resnet50") & (s822.label != "ddl (natural grid)")], large],
                       ignore_index=True)
    plot(allr50, "gpus", "images_per_s", "label", "resnet50 on S822LC clusters: throughput", "images/s",
         os.path.join(out, "s822lc_resnet50_throughput_4_4096.png"), logy=True)
    plot(allr50, "gpus", "efficiency", "label", "resnet50 on S822LC clusters, 4 -> 4096 GPUs",
         "T(1 GPU) / T(iteration)", os.path.join(out, "s822lc_resnet50_efficiency_4_4096.png"))

    # --- Epoch times: the fastest algorithm per setup and size.
    everything = pd.concat([s822.assign(setup="S822LC " + s822.model),
                            bb.assign(setup="Big Basin resnet50"),
                            large.assign(setup="S822LC resnet50")], ignore_index=True)
    everything = everything[everything.label != "ddl (natural grid)"]
    fastest = everything.loc[everything.groupby(["setup", "gpus"])["iter_ms"].idxmin()]
    fastest = fastest.sort_values(["setup", "gpus"])
    ecols = ["setup", "gpus", "label", "dims", "images_per_s", "efficiency", "epoch_min", f"{EPOCHS}_epochs_h"]
    fastest[ecols].to_csv(os.path.join(out, "epochs.csv"), index=False)

    write_report(a, rep, runs, s822, dims, best, bb, large, ldims, fastest, ecols)


def pivot_eff(df, gpus_col="gpus"):
    t = df.pivot_table(index=gpus_col, columns="label", values="efficiency").reset_index()
    return t


def write_report(a, rep, runs, s822, dims, best, bb, large, ldims, fastest, ecols):
    sim_cpu = runs.drop_duplicates("command")["run_wall_s"].sum()
    n_runs = runs["command"].nunique()
    L = []
    L.append("# Scaling study: simulated ResNet-50/101 training on S822LC and Big Basin clusters\n")
    L.append("Produced by `experiments/scaling/run.sh` (simulations: `simulate.py`; tables, plots and this "
             "file: `analyze.py`). Every number below is a **simulation** (ddlsim, SimGrid CM02 model of the "
             "platforms in `platforms/`), not a measurement.\n")
    L.append("## How it was run\n")
    L.append("```sh\nexperiments/scaling/run.sh            # BUILD=<build folder> JOBS=<parallel simulations>\n```\n")
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
             "```\n")
    L.append("Workload model (`workloads/README.md`): batch 32 per GPU, 180 ms (ResNet-50) / 343.2 ms "
             "(ResNet-101) of forward + backward per iteration on a P100, fp32 gradients in PyTorch-DDP buckets "
             "(1 MiB first, then 25 MiB) whose allreduces overlap the rest of the backward pass, then the "
             "optimizer step. **Efficiency** = single-GPU iteration time / iteration time at p GPUs "
             "(= per-GPU throughput relative to one GPU). Epoch = 1,281,167 ImageNet-1K images.\n")

    L.append("## S822LC, 4 -> 256 GPUs\n")
    for model in ["resnet50", "resnet101"]:
        m = s822[s822.model == model]
        L.append(f"### {model}: scaling efficiency per algorithm\n")
        L.append("Natural grid (4 x 8 x nodes/8) for every algorithm; `ddl best` is ddl on the fastest of the "
                 "grids tried (4 first, up to 3 dimensions).\n")
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
    t = pivot_eff(bb)
    L.append(md_table(t, list(t.columns), "{:.4f}"))
    L.append("\n![Big Basin efficiency](results/bigbasin_resnet50_efficiency.png)\n")

    L.append("## Larger S822LC clusters: 512 -> 4096 GPUs (ResNet-50)\n")
    L.append("128 and 256 nodes are checked in; 512 and 1024 nodes are generated by `platforms/generate.py`. "
             "The flat ring is simulated only up to 512 GPUs and hier (a flat ring among the node leaders) up "
             "to 2048: their message counts grow as the square of the ring's length (a flat ring of 4096 GPUs "
             "is about 170 million simulated messages per iteration), far beyond this study's time budget. ddl is "
             "tried only on grids whose every dimension is at most 32 GPUs/nodes (a long ring in one dimension "
             "is slow on the machine and slow to simulate: 4x8x128 at 4096 GPUs took 270 s of CPU for one "
             "iteration).\n")
    L.append(md_table(large.sort_values(["gpus", "label"]),
                      ["gpus", "label", "dims", "iter_ms", "exposed_comm_ms", "images_per_s", "efficiency"]))
    L.append("\nddl grids tried at these sizes:\n")
    L.append(md_table(ldims, list(ldims.columns)))
    L.append("\n![efficiency 4..4096](results/s822lc_resnet50_efficiency_4_4096.png)\n"
             "![throughput 4..4096](results/s822lc_resnet50_throughput_4_4096.png)\n")

    L.append("## Time to train: one ImageNet-1K epoch and 90 epochs (fastest algorithm per size)\n")
    L.append(md_table(fastest, ecols, "{:.3f}"))
    L.append("\n")
    L.append(observations(s822, best, bb, large))
    L.append("## Files\n")
    L.append("- `results/runs.csv`: every simulated row with its experiment and exact command\n"
             "- `results/s822lc.csv`, `results/ddl_dims.csv`, `results/bigbasin.csv`, `results/large.csv`, "
             "`results/large_ddl_dims.csv`, `results/epochs.csv`: the tables above\n"
             "- `results/*.png`: the plots above\n")
    with open(a.report, "w") as f:
        f.write("\n".join(L))


def observations(s822, best, bb, large):
    o = ["## Observations\n"]
    for model in ["resnet50", "resnet101"]:
        m = s822[(s822.model == model) & (s822.gpus == 256)].sort_values("iter_ms")
        ranking = ", ".join(f"{r.label} {r.efficiency:.3f}" for r in m.itertuples())
        o.append(f"- **{model}, 256 GPUs**: efficiency by algorithm, fastest first: {ranking}.")
    for model in ["resnet50", "resnet101"]:
        m = s822[(s822.model == model) & (s822.label != "ddl (natural grid)")]
        winners = m.loc[m.groupby("gpus")["iter_ms"].idxmin()]
        o.append(f"- {model}: fastest per size: " +
                 ", ".join(f"{r.gpus}: {r.label}" + (f" {r.dims}" if r.label == 'ddl best' else "")
                           for r in winners.itertuples()) + ".")
    for model in ["resnet50", "resnet101"]:
        m = s822[s822.model == model]
        nat = m[m.label == "ddl (natural grid)"].set_index("gpus")["iter_ms"]
        bst = m[m.label == "ddl best"].set_index("gpus")["iter_ms"]
        gain = (nat - bst).max()
        o.append(f"- {model}: searching ddl's grid gains at most {gain * 1e3:.1f} us per iteration over the "
                 "natural grid 4 x 8 x nodes/8: with the buckets' allreduces hidden behind the backward pass, "
                 "the grid matters little for the iteration time.")
    hd = bb[bb.label == "ddl (ring,hd)"].set_index("gpus")["iter_ms"]
    rr = bb[bb.label == "ddl"].set_index("gpus")["iter_ms"]
    diff = (rr - hd).dropna()
    if len(diff):
        o.append(f"- Big Basin: halving-doubling instead of a ring across servers changes ddl's iteration by at "
                 f"most {diff.abs().max() * 1e3:.1f} us (8 -> 256 GPUs): the one 50 GbE NIC per server is the "
                 "bottleneck, the 8 concurrent rings of a server keep it busy through each other's step "
                 "latencies, and both methods push the same bytes through it. Flat rhd, which ignores the "
                 "server boundary, sends most of its volume across the NIC and falls far behind.")
    b256 = bb[bb.gpus == 256].sort_values("iter_ms")
    if len(b256):
        o.append("- **Big Basin, 256 GPUs**: " + ", ".join(f"{r.label} {r.efficiency:.3f}"
                                                        for r in b256.itertuples()) + ".")
    for g in sorted(large.gpus.unique()):
        lg = large[large.gpus == g].sort_values("iter_ms")
        o.append(f"- **{g} GPUs** (ResNet-50): " + ", ".join(f"{r.label} {r.efficiency:.3f}"
                                                             for r in lg.itertuples()) + ".")
    o.append("- The PowerAI DDL paper (arXiv 1708.02188) reports a scaling efficiency at 256 GPUs; its exact "
             "figure and which model it is for are not in the sources this project keeps "
             "(`platforms/SOURCES.md`), so the comparison is **not checked here**. Likewise Goyal et al.'s "
             "measured Big Basin efficiency is not checked here.")
    o.append("- Why the simulated efficiencies are high: the backward pass (120 ms for ResNet-50) hides most "
             "of each bucket's allreduce; only the last bucket(s) and the optimizer step remain exposed. The "
             "model has no stragglers, no contention between reduction kernels and compute, no input pipeline, "
             "no framework overhead and assumed network figures (EDR InfiniBand, 50 GbE): read these as upper "
             "bounds on what the communication schedule allows, not as predicted wall-clock training times.\n")
    return "\n".join(o) + "\n"


if __name__ == "__main__":
    main()
