"""Tabulate evaluate.sh's runs: per platform and size, the plan's choice against the fastest
candidate of the exhaustive simulated search, the plain alpha-beta argmin (the plan's evidence),
the contention-aware model's argmin (`--algo auto` without a plan) and each fixed algorithm.
Markdown on stdout, one row per case in DIR/evaluation.csv, one summary line last.
Usage: evaluate.py DIR COMMAND WALL_S LOAD_START LOAD_END PLATFORM... (DIR/<platform>/ holds
plan.json, planned.json, auto.json, part.*.json, simulated.txt, coverage.txt)."""
import json
import pathlib
import sys

import pandas as pd

TARGET = 2.0  # percent: the plan's gap to the exhaustive best
TIE = 0.1  # percent: a choice this close to the best is not wrong (ddlplan's tie rule)
FIXED = ["ring", "rhd", "dbtree", "hier", "ddl"]


def excess(t: float, best: float) -> float:
    return (t / best - 1) * 100


def report_rows(path: pathlib.Path) -> pd.DataFrame:
    """The rows of a ddlsim --format json report (its metadata set aside)."""
    return pd.DataFrame(json.loads(path.read_text())["rows"])


def platform_rows(folder: pathlib.Path, name: str) -> pd.DataFrame:
    d = folder / name
    # ddlsim's json, not its csv: algorithm strings such as ddl:4x2:ring,hd hold commas.
    space = pd.concat(report_rows(f) for f in sorted(d.glob("part.*.json")))
    plan = report_rows(d / "planned.json").set_index("size")
    auto = report_rows(d / "auto.json").set_index("size")
    plan_file = json.loads((d / "plan.json").read_text())
    evidence = {e["bytes"]: e for e in plan_file["evidence"]}
    entries = plan_file["entries"]
    rows = []
    for size, g in space.groupby("size"):
        times = g.set_index("algo").time_us
        # The plan's and auto's runs are simulated candidates too (equal to the last bit or so).
        best = min(times.min(), plan.time_us[size], auto.time_us[size])
        # Among ties the shortest string names the best, as ddlplan's own tie rule does.
        ties = [a for a, t in times.items() if t <= best * (1 + TIE / 100)]
        best_algo = min(ties, key=lambda a: (len(a), a))
        chosen = next(e["algorithm"] for e in entries if e["min_bytes"] <= size <= e["max_bytes"])
        ab = evidence[size]["alpha_beta"]
        row = {"platform": name, "dims": plan_file["dims"], "size": size,
               "best": best_algo, "best_us": best, "plan": chosen,
               "plan_us": plan.time_us[size], "gap_pct": excess(plan.time_us[size], best),
               "alpha_beta": ab, "alpha_beta_pct": excess(times[ab], best),
               "model_auto_pct": excess(auto.time_us[size], best)}
        for f in FIXED:
            row[f + "_pct"] = excess(times[f], best)
        rows.append(row)
    return pd.DataFrame(rows)


def main() -> int:
    folder, command, wall, load_start, load_end = (pathlib.Path(sys.argv[1]), *sys.argv[2:6])
    names = sys.argv[6:]
    frames = [platform_rows(folder, n) for n in names]
    d = pd.concat(frames, ignore_index=True)
    d.to_csv(folder / "evaluation.csv", index=False, float_format="%.4f")
    out = ["# Planner vs exhaustive simulated search", "",
           f"Produced by `{command}` in {wall} s of wall time (load average "
           f"{load_start} at the start, {load_end} at the end; 2 cores). Every time is "
           "timing-only ddlsim, 64 KB..256 MB (x4). Cells are % above the fastest simulated "
           "candidate of the platform's exhaustive search at that size (0.0 = it is the best).",
           "",
           "- *plan*: `ddlplan` (defaults: 4 anchor sizes priced over the whole base space, the "
           "best 12 per anchor and their ring/order variants priced at every size, the best 3 "
           "per size and those priced within 2 % of the 3rd (50 at most) "
           "simulated, then the fastest 2 simulated again with each segment size of 64K, 256K, "
           "1M, 4M, the two largest below their largest transfer), then `ddlsim --algo "
           "auto --plan FILE`; *gap* is its excess.",
           "- *exhaustive*: every algorithm string of `ddlplan --list --max-dims M` (ring, rhd "
           "both orders, rd, dbtree, hier, ddl over every ordered factorization into at most M dims "
           "x per-dimension ring/hd (hd on power-of-two extents above 2: on 2 ranks it is "
           "ring's exchange) x rings 1, 2 (2+ dims) x order near/far (where hd occurs)), plus "
           "`ddl` on the "
           "platform's own grid and the plan's choices (segmented ones included), each simulated "
           "at every size. Segment sizes are not in the exhaustive space otherwise (its "
           "candidates run unsegmented): a segmented choice is compared with the unsegmented "
           "space and with itself.",
           "- *alpha-beta*: the plain alpha-beta-gamma argmin over the registered algorithms "
           "(what `auto` picked before the contention-aware model); *model auto*: `ddlsim --algo "
           "auto` without a plan (the contention-aware argmin over the registered algorithms).",
           "- *ring .. ddl*: the fixed algorithms (`ddl` with its defaults on the platform's grid).",
           "- *best*: the shortest string among the candidates within 0.1 % of the fastest.",
           ""]
    for name, f in zip(names, frames):
        max_dims, full = (folder / name / "coverage.txt").read_text().split()
        simulated = len((folder / name / "simulated.txt").read_text().split())
        cover = ("the whole space" if int(max_dims) >= 4 else
                 f"grids of at most {max_dims} dim{'s' if int(max_dims) > 1 else ''}, of a space "
                 f"of {full}")
        out += [f"## {name} ({f.dims.iloc[0]}; exhaustive: {simulated} candidates, {cover})", "",
                "| size (B) | best | best (us) | plan | gap | alpha-beta | a-b | model auto | "
                + " | ".join(FIXED) + " |",
                "|---:|---|---:|---|---:|---|---:|---:|" + "---:|" * len(FIXED)]
        for _, r in f.iterrows():
            out.append(f"| {r['size']} | `{r.best}` | {r.best_us:.1f} | `{r.plan}` | "
                       f"{r.gap_pct:+.1f} | `{r.alpha_beta}` | {r.alpha_beta_pct:+.1f} | "
                       f"{r.model_auto_pct:+.1f} | "
                       + " | ".join(f"{r[x + '_pct']:+.1f}" for x in FIXED) + " |")
        out.append("")
    over = d[d.gap_pct > TARGET]
    out += ["## Cases with a gap over 2 %", ""]
    out += ([f"- {r.platform} {r['size']} B: plan `{r.plan}` {r.plan_us:.1f} us, best "
             f"`{r.best}` {r.best_us:.1f} us ({r.gap_pct:+.1f} %)" for _, r in over.iterrows()]
            or ["None."])
    wrong = d[d.alpha_beta_pct > TIE]
    model_wrong = d[d.model_auto_pct > TIE]
    notes = pathlib.Path(__file__).with_name("evaluate_notes.md")
    if notes.exists():
        out += ["", notes.read_text().rstrip()]
    out += ["", f"cases={len(d)} plan_gap_max_pct={d.gap_pct.max():.2f} "
            f"plan_gap_median_pct={d.gap_pct.median():.2f} plan_over_2pct={len(over)} "
            f"alpha_beta_wrong={len(wrong)} alpha_beta_excess_max_pct="
            f"{d.alpha_beta_pct.max():.1f} model_auto_wrong={len(model_wrong)} "
            f"model_auto_excess_max_pct={d.model_auto_pct.max():.1f}"]
    print("\n".join(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
