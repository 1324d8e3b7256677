#!/usr/bin/python3
"""check_csv_report.py TOOL COMMAND...: runs COMMAND (ddlsim or ddlrun, --format csv, possibly under
mpirun) and passes when its output is the report every tool writes:
  - '#' metadata lines first: tool = TOOL, version, arguments = the tool's own arguments as given;
  - then the one csv header of both tools, exact;
  - a row's chosen cell names what ran: its algo, or for an auto row the pick that the header's
    "auto picks" line states for the row's size;
  - ddlsim leaves the measured baseline empty, ddlrun the model column.
"""
import csv
import io
import os
import re
import shlex
import subprocess
import sys

HEADER = ("size,count,type,redop,algo,dims,time_us,algbw_gbs,busbw_gbs,model_us,wrong,mpi_time_us,"
          "mpi_busbw_gbs,chosen")
UNITS = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30}


def fail(why, out=""):
    print(out)
    print(f"check failed: {why}")
    sys.exit(1)


def size(text):
    return int(text[:-1]) * UNITS[text[-1]] if text[-1] in UNITS else int(text)


def main():
    tool, command = sys.argv[1], sys.argv[2:]
    done = subprocess.run(command, capture_output=True, text=True, timeout=300)
    out = done.stdout
    if done.returncode != 0:
        fail(f"exit status {done.returncode}: {done.stderr}", out)
    lines = out.splitlines()
    comments = [l for l in lines if l.startswith("#")]
    fields = dict(l[2:].split(" = ", 1) for l in comments if re.match(r"# [a-z_0-9]+ = ", l))
    data = [l for l in lines if not l.startswith("#")]
    if not lines[0].startswith("# tool = ") or fields.get("tool") != tool:
        fail(f"the first line is not '# tool = {tool}'", out)
    if not re.fullmatch(r"\d+\.\d+\.\d+", fields.get("version", "")):
        fail("no version field", out)
    at = next(i for i, a in enumerate(command) if os.path.basename(a) == tool)
    if fields.get("arguments") != " ".join(shlex.quote(a) for a in command[at + 1:]):
        fail(f"arguments field '{fields.get('arguments')}'", out)
    if data[0] != HEADER:
        fail(f"header '{data[0]}'", out)
    picks = {}
    for l in comments:
        m = re.match(r"# auto picks \([^)]*\): (.*)", l)
        if m:
            for part in m.group(1).split(", "):
                algo, sizes = part.split(" for ")
                first, _, last = sizes.partition("..")
                picks[(size(first), size(last or first))] = algo
    rows = list(csv.DictReader(io.StringIO("\n".join(data))))
    if not rows:
        fail("no rows", out)
    for r in rows:
        if r["algo"] == "auto":
            want = [a for (lo, hi), a in picks.items() if lo <= int(r["size"]) <= hi]
            if len(want) != 1 or r["chosen"] != want[0]:
                fail(f"auto row of {r['size']} B chose '{r['chosen']}', the header says {want}", out)
        elif r["chosen"] != r["algo"]:
            fail(f"{r['algo']} row's chosen is '{r['chosen']}'", out)
        empty = ("mpi_time_us", "mpi_busbw_gbs") if tool == "ddlsim" else ("model_us",)
        if any(r[c] for c in empty):
            fail(f"{tool} filled {empty}", out)
    print(f"check passed: {len(rows)} rows, {tool}'s metadata, the common header, auto's picks named")


main()
