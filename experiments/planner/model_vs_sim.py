"""Tabulate ddlsim's csv (model_us beside time_us) per platform as markdown: the error of the
contention-aware model against the simulation, (model - sim) / sim in %, per algorithm and size.
Usage: model_vs_sim.py DIR ALGOS (the ALGOS columns) or model_vs_sim.py --today DIR (the columns
each csv holds, in the order ddlsim ran them); DIR holds <platform>.csv."""
import pathlib
import sys

import pandas as pd

TARGET = 10.0  # percent


def tables(folder: pathlib.Path, algos, out, worst) -> None:
    """One table per <platform>.csv of folder; algos: the columns (None: the csv's own)."""
    for csv in sorted(folder.glob("*.csv")):
        d = pd.read_csv(csv, comment="#")
        d["err"] = (d.model_us - d.time_us) / d.time_us * 100
        columns = algos or list(dict.fromkeys(d.algo))
        t = d.pivot(index="size", columns="algo", values="err")[columns]
        out += [f"## {csv.stem} ({d.dims.iloc[0]}, {len(d)} cases)", "",
                "| size (B) | " + " | ".join(columns) + " |",
                "|---:|" + "---:|" * len(columns)]
        for size, row in t.iterrows():
            out.append(f"| {size} | " + " | ".join(f"{v:+.1f}" for v in row) + " |")
        out.append("")
        miss = d[d.err.abs() > TARGET]
        for _, m in miss.iterrows():
            worst.append(f"{csv.stem} {m.algo} {m['size']} B: {m.err:+.1f} % "
                         f"(model {m.model_us:.1f} us, simulated {m.time_us:.1f} us)")
        worst_abs = d.err.abs().max()
        out.append(f"Largest |error| on {csv.stem}: {worst_abs:.1f} %.")
        out.append("")


def main() -> int:
    today = sys.argv[1] == "--today"
    if today:
        folder, algos, notes = pathlib.Path(sys.argv[2]), None, "model_vs_sim_today_notes.md"
        out = ["# Today's algorithms: contention-aware model vs simulation", "",
               "Produced by `PART=today experiments/planner/model_vs_sim.sh` (timing-only "
               "`ddlsim --platform P --algo A -b 64K -e 256M -f 4 --format csv`, A a table's "
               "columns) on the shipped machines that have the "
               "fabrics: `ring:channels=8` (one channel per NIC), ddl pipelined over 4 and 16 "
               "chunks, and the in-switch reductions where the platform's switches reduce "
               "(columns: the algorithms run on that platform). Cells: (model - simulated) / "
               "simulated in %; target |error| <= 10 %.", ""]
    else:
        folder, algos, notes = pathlib.Path(sys.argv[1]), sys.argv[2].split(","), "model_vs_sim_notes.md"
        out = ["# Contention-aware model vs simulation", "",
               "Produced by `experiments/planner/model_vs_sim.sh` (timing-only `ddlsim --algo "
               + sys.argv[2] + " -b 64K -e 256M -f 4 --format csv` per platform). Cells: "
               "(model - simulated) / simulated in %; target |error| <= 10 %.", ""]
    worst = []
    tables(folder, algos, out, worst)
    out += ["## Cases beyond the 10 % target", ""]
    out += [f"- {w}" for w in worst] if worst else ["None."]
    text = pathlib.Path(__file__).with_name(notes)
    if text.exists():
        out += ["", text.read_text().rstrip()]
    print("\n".join(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
