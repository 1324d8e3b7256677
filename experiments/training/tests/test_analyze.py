#!/usr/bin/env python3
"""fit_effects.py, scale_workload.py and analyze.py on a hand-made 2-rank result directory: exact
fitted effects, an exactly scaled workload, exact cases and the exact summary line."""
import math
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import analyze  # noqa: E402
import fit_effects  # noqa: E402
import scale_workload  # noqa: E402

WORKLOAD = """# model = tiny
# reference_batch = 4
# reference_iteration_ms = 30.000
# backward_to_forward = 2.000
layer,kind,params,forward_macs,forward_ms,backward_ms
a,fc,10,100,4.000000,5.000000
b,fc,20,200,6.000000,15.000000
"""

HEADER = "rank,iteration,warmup,forward_s,backward_s,comm_s,exposed_s,optimizer_s,compute_s,iteration_s,bucket_bytes\n"
REPORT = "gpus,algo,dims,iter_ms,compute_ms,exposed_comm_ms,images_per_s,efficiency\n"


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def rank_file(path, rank, rows):
    """rows: (warmup, comm_s, exposed_s, compute_s, iteration_s) per iteration."""
    text = HEADER + "".join(f"{rank},{i},{w},0,0,{comm},{exposed},0,{compute},{it},\n"
                            for i, (w, comm, exposed, compute, it) in enumerate(rows))
    write(path, text)


def fixture(out):
    d = os.path.join(out, "p2")
    # Alone: the warm-up (9 s) is left out; median of 0.1, 0.1, 0.1, 0.12 is 0.1 s.
    rank_file(os.path.join(d, "torch_nocomm", "rank0.csv"), 0, [(1, 0, 0, 9, 9), (0, 0, 0, 0.1, 0.1), (0, 0, 0, 0.1, 0.1)])
    rank_file(os.path.join(d, "torch_nocomm", "rank1.csv"), 1, [(1, 0, 0, 9, 9), (0, 0, 0, 0.1, 0.1), (0, 0, 0, 0.12, 0.12)])
    # With ddl: slowest rank per timed iteration 0.21 and 0.25 s (median 0.23), compute 0.14 and
    # 0.15 (median 0.145), exposed 0.05 and 0.09 (median 0.07), communication 0.08 and 0.12
    # (median 0.1); every rank's compute 0.12, 0.15, 0.14, 0.12 (median 0.13).
    rank_file(os.path.join(d, "torch_ring", "rank0.csv"), 0,
              [(1, 5, 5, 5, 10), (0, 0.08, 0.05, 0.12, 0.20), (0, 0.10, 0.07, 0.15, 0.25)])
    rank_file(os.path.join(d, "torch_ring", "rank1.csv"), 1,
              [(1, 5, 5, 5, 10), (0, 0.07, 0.04, 0.14, 0.21), (0, 0.12, 0.09, 0.12, 0.24)])
    write(os.path.join(d, "ddlsim.csv"), "# a comment line\n" + REPORT + "2,ring,1x2,264.000,100.000,164.000,30.303,0.400000\n")
    write(os.path.join(d, "ddlsim_noeffects.csv"), REPORT + "2,ring,1x2,200.000,100.000,100.000,40.000,0.500000\n")
    write(os.path.join(d, "ddlsim_torch_ring.csv"), REPORT + "2,ring,1x2,253.000,101.200,151.800,31.621,0.400000\n")
    write(os.path.join(d, "ddlsim_torch_ring_noeffects.csv"), REPORT + "2,ring,1x2,207.000,101.200,105.800,38.647,0.488889\n")
    write(os.path.join(d, "ddlrun.csv"), REPORT + "2,ring,1x2,220.000,110.000,110.000,36.364,0.500000\n")
    return d


def close(a, b, what):
    assert math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-9), f"{what}: {a} != {b}"


def main():
    with tempfile.TemporaryDirectory() as out:
        d = fixture(out)
        e = fit_effects.fit(d)
        assert e["samples"] == 4 and e["alone_samples"] == 4, e
        close(e["compute_median_s"], 0.13, "compute median")
        close(e["alone_compute_median_s"], 0.1, "alone median")
        close(e["interference_measured"], 0.3, "interference")
        close(e["interference"], 0.3, "interference for the simulator")
        # logs of 0.12, 0.15, 0.14, 0.12: population standard deviation 0.0974265651...
        close(e["log_sigma_pooled"], 0.09742656512877451, "pooled sigma")
        # The slowest rank of the two iterations: 0.14 and 0.15, median 0.145; over the median
        # 0.13: R = 1.1153846...; the median of the larger of 2 standard normals is the quantile
        # at sqrt(0.5) = 0.7071067..., z = 0.5449521...; sigma = ln(R) / z = 0.2003833...
        assert e["ranks"] == 2, e
        close(e["slowest_median_s"], 0.145, "slowest rank's median")
        assert abs(e["log_sigma"] - 0.2003833) < 1e-6, e["log_sigma"]
        assert abs(e["jitter_cv"] - math.sqrt(math.exp(0.2003833 ** 2) - 1)) < 1e-6, e["jitter_cv"]
        out_fit = subprocess.run([sys.executable, os.path.join(os.path.dirname(analyze.__file__), "fit_effects.py"), d],
                                 check=True, capture_output=True, text=True).stdout
        assert out_fit == "0.2024 0.3000\n", repr(out_fit)

        # The workload scaled to a run's compute: forward 10 -> 20 ms, backward 20 -> 60 ms.
        forward_ms, backward_ms = 20.0, 60.0
        scaled = scale_workload.scale(WORKLOAD, forward_ms, backward_ms, "run")
        lines = scaled.splitlines()
        assert "# reference_iteration_ms = 80.000" in lines and "# backward_to_forward = 3.000" in lines, scaled
        assert lines[-2:] == ["a,fc,10,100,8.000000,15.000000", "b,fc,20,200,12.000000,45.000000"], lines[-2:]

        c = analyze.cases(out).set_index("source")
        assert list(c.index) == ["ddlrun", "torch"], list(c.index)
        t, r = c.loc["torch"], c.loc["ddlrun"]
        close(t.measured_iter_ms, 230.0, "torch iteration")
        close(t.measured_efficiency, 130 / 230, "torch efficiency")
        close(t.measured_compute_ms, 145.0, "torch compute")
        close(t.measured_exposed_comm_ms, 70.0, "torch exposed communication")
        close(t.measured_comm_busy_ms, 100.0, "torch communication")
        close(t.error_pct, 10.0, "torch error")
        close(t.ideal_error_pct, -10.0, "torch ideal error")
        close(t.workload_error_pct, (264 / 230 - 1) * 100, "torch error from the workload as measured")
        close(t.efficiency_err_pts, (0.4 - 130 / 230) * 100, "torch efficiency error")
        close(r.error_pct, 20.0, "ddlrun error")
        close(r.ideal_error_pct, (200 / 220 - 1) * 100, "ddlrun ideal error")
        close(r.efficiency_err_pts, -10.0, "ddlrun efficiency error")
        assert math.isnan(r.measured_comm_busy_ms), r.measured_comm_busy_ms
        # errors 10.0 % and 20.0 %: median 15.0; efficiency 0.4 vs 130 / 230: 16.52 points
        line = analyze.summary_line(analyze.cases(out))
        assert line == "median_abs_error_pct=15.0 max_abs_error_pct=20.0 cases=2 efficiency_max_abs_err_pts=16.5", line

        # The whole script: its last line is the summary line, and it writes its files.
        result = subprocess.run([sys.executable, os.path.join(os.path.dirname(analyze.__file__), "analyze.py"), out],
                                check=True, capture_output=True, text=True)
        assert result.stdout.splitlines()[-1] == line, result.stdout
        for name in ["cases.csv", "effects.csv", "iteration_times.png", "jitter.png"]:
            assert os.path.isfile(os.path.join(out, name)), name

        # Bad input: one clear message, non-zero exit.
        bad = subprocess.run([sys.executable, os.path.join(os.path.dirname(analyze.__file__), "analyze.py"),
                              os.path.join(out, "p2", "torch_ring")], capture_output=True, text=True)
        assert bad.returncode != 0 and "no p<P>/ddlsim.csv" in bad.stderr, (bad.returncode, bad.stderr)
        # The jitter fit needs every run on the same ranks, at least 2: a run of 1 rank is refused.
        rank_file(os.path.join(d, "torch_ddl", "rank0.csv"), 0, [(1, 5, 5, 5, 10), (0, 0.08, 0.05, 0.12, 0.20)])
        bad = subprocess.run([sys.executable, os.path.join(os.path.dirname(analyze.__file__), "fit_effects.py"), d],
                             capture_output=True, text=True)
        assert bad.returncode != 0 and "need the same 2 or more ranks each" in bad.stderr, (bad.returncode, bad.stderr)
        assert len(bad.stderr.strip().splitlines()) == 1, bad.stderr
    print("training analysis: fitted effects, cases and summary line exact")
    return 0


if __name__ == "__main__":
    sys.exit(main())
