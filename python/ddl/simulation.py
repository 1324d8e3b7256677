"""ddl.simulate: one collective on a SimGrid platform, ddlsim's row as a dict.

Why a ddlsim process per call rather than the simulator linked into the module: SimGrid allows
one engine per process and no second one after it ran (a SimGrid rule, sim/ runs its tests as
separate processes for the same reason), and a platform error may end the process from inside
SimGrid. As a child process every call gets a fresh engine, a failing platform costs the caller
an exception instead of its interpreter, and the row is exactly the one `ddlsim --format json`
prints under "rows" (the same columns as the command line; the run's "metadata" is left out).
Start-up is a few tens of milliseconds.
"""

import json
import os
import subprocess

from ddl import _config


class SimulationError(RuntimeError):
    """ddlsim refused the arguments or failed; the message is ddlsim's own."""


def _ddlsim():
    path = _config.DDLSIM
    if path is None:
        raise SimulationError("ddl was built without the simulator (DDL_WITH_SIM=OFF): "
                              "there is no ddlsim to run")
    if not os.access(path, os.X_OK):
        raise SimulationError(f"ddlsim is not at {path} (build it, or reinstall ddl)")
    return path


def _size_text(name, value):
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        raise TypeError(f"ddl.simulate: {name} must be bytes as an int or a string such as '64M', "
                        f"not {type(value).__name__}")
    return str(value)


def simulate(platform, algo, size, dims=None, dtype="float", op="sum", check=False, timeout=600.0):
    """Simulate one allreduce (or another collective) of `size` bytes with ddlsim.

    platform  a SimGrid platform file (a relative path is looked up in the current directory,
              then in ddl's source tree, as ddlsim does), e.g. "platforms/s822lc_4.xml"
    algo      one algorithm name, e.g. "ddl", "ring", "auto" (ddlsim --help lists them)
    size      bytes: an int or "8", "64K", "1M", "256M", "1G"
    dims      the logical grid, "4x2" or (4, 2); None: ddlsim derives it from the platform
    dtype, op element type and reduction, as ddlsim's -d and -o
    check     move real data and count wrong elements (the row's "wrong"; None without check)
    timeout   seconds ddlsim may run before TimeoutError

    Returns ddlsim's row: {"size", "count", "type", "redop", "algo", "dims", "time_us",
    "algbw_gbs", "busbw_gbs", "model_us", "wrong"}. Raises SimulationError with ddlsim's message
    when ddlsim rejects the arguments or fails.
    """
    if not isinstance(algo, str) or not algo or "," in algo or algo == "all":
        raise ValueError(f"ddl.simulate: algo must name one algorithm, got {algo!r} "
                         "(for several, run ddlsim --algo a,b --format json)")
    size_text = _size_text("size", size)
    command = [_ddlsim(), "--platform", os.fspath(platform), "--algo", algo, "-b", size_text,
               "-e", size_text, "-d", str(dtype), "-o", str(op), "--format", "json"]
    if dims is not None:
        grid = dims if isinstance(dims, str) else "x".join(str(int(d)) for d in dims)
        command += ["--dims", grid]
    if check:
        command.append("--check")
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise TimeoutError(f"ddl.simulate: ddlsim ran longer than {timeout} s: {' '.join(command)}")
    if done.returncode != 0:
        message = done.stderr.strip() or f"ddlsim exited with status {done.returncode}"
        raise SimulationError(message)
    rows = json.loads(done.stdout)["rows"]
    if len(rows) != 1:
        raise SimulationError(f"ddlsim printed {len(rows)} rows for one size and one algorithm")
    return rows[0]
