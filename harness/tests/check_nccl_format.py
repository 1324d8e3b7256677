#!/usr/bin/python3
"""check_nccl_format.py ROWS COLLS -- COMMAND...: runs COMMAND once per collective of COLLS
(comma-separated; '{coll}' in COMMAND becomes its name) and reads each output as nccl-tests' log
parsers read all_reduce_perf's: the data lines by their usual pattern (size count type redop
root, then time algbw busbw #wrong out of place and in place), the closing
'# Out of bounds values' and '# Avg bus bandwidth' lines. Passes when every run exits 0 with
exactly ROWS data lines, each size once and increasing, every #wrong 0 in both groups, '0 OK',
and the average equal to the mean of the printed busbw cells (to their rounding)."""
import re
import subprocess
import sys

LINE = re.compile(r"^\s*(\d+)\s+(\d+)\s+(\w+)\s+(\w+)\s+(-?\d+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)"
                  r"\s+(\S+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+(\S+)$")
AVG = re.compile(r"^# Avg bus bandwidth\s*:\s*([\d.eE+-]+)")


def check(coll, rows, command):
    run = subprocess.run([a.replace("{coll}", coll) for a in command], capture_output=True,
                         text=True, timeout=600)
    sys.stdout.write(run.stdout)
    sys.stderr.write(run.stderr)
    if run.returncode != 0:
        return f"exit status {run.returncode}"
    data = [l for l in run.stdout.splitlines() if l and not l.startswith("#")]
    if len(data) != rows:
        return f"{len(data)} data lines, expected {rows}"
    sizes, busbw = [], []
    for line in data:
        m = LINE.match(line)
        if not m:
            return f"a line nccl-tests' pattern does not read: {line!r}"
        if m.group(9) != "0" or m.group(13) != "0":
            return f"#wrong not 0 out of place and in place: {line!r}"
        sizes.append(int(m.group(1)))
        busbw += [float(m.group(8)), float(m.group(12))]
    if sizes != sorted(set(sizes)):
        return f"sizes not once each and increasing: {sizes}"
    if "# Out of bounds values : 0 OK" not in run.stdout.splitlines():
        return "no '# Out of bounds values : 0 OK' line"
    avg = [float(m.group(1)) for m in map(AVG.match, run.stdout.splitlines()) if m]
    if len(avg) != 1:
        return f"{len(avg)} '# Avg bus bandwidth' lines, expected 1"
    mean = sum(busbw) / len(busbw)
    if abs(avg[0] - mean) > 0.005 + 1e-5 * mean:  # cells keep 2 decimals, the average 6 digits
        return f"average bus bandwidth {avg[0]}, the cells' mean is {mean}"
    return None


def main():
    if len(sys.argv) < 5 or sys.argv[3] != "--":
        sys.exit(__doc__)
    rows, colls, command = int(sys.argv[1]), sys.argv[2].split(","), sys.argv[4:]
    failed = 0
    for coll in colls:
        why = check(coll, rows, command)
        print(f"{coll}: {'check passed' if why is None else 'check failed: ' + why}")
        failed += why is not None
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
