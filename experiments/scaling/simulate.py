#!/usr/bin/env python3
"""Runs the ddlsim training-iteration simulations of the scaling study, in parallel processes.

One ddlsim process per (platform, model, algorithms, dims, methods): SimGrid allows one engine
per process, and separate processes let JOBS of them share the cores. Started by mpirun
(`mpirun -np N python3 simulate.py ...`, mpi4py: Debian python3-mpi4py), the simulations are
shared out over the N ranks, each running its share JOBS at a time, and rank 0 gathers the rows
and writes the one runs.csv: the same rows as one process (sorted the same way). Every run's csv rows go to
results/runs.csv with the experiment they belong to, the exact command and its wall time, so
analyze.py (and a reader) can trace each number to the command that produced it.

Experiments:
  s822lc    S822LC clusters, 4 -> 256 GPUs, ResNet-50 and ResNet-101, ring/ddl/rhd/dbtree/hier
            on the platform's natural grid (4 x 8 x nodes/8);
  dims      ddl on every other factorization of the same clusters: 4 (GPUs per node) first, then
            up to two more dimensions (4xN, 4xAxB), to find the fastest grid;
  bigbasin  Goyal et al.'s setup: ResNet-50 on Big Basin, 8 -> 256 GPUs; ddl with ring inside the
            server and halving-doubling across servers (--dims 8xN --methods ring,hd), beside the
            other algorithms;
  large     512 -> 4096 GPUs on larger S822LC clusters (128 and 256 nodes checked in, 512 and 1024
            nodes generated into a temporary folder), ResNet-50; a flat ring is simulated only up
            to RING_MAX_GPUS and hier (a ring among the node leaders) up to HIER_MAX_GPUS (their
            simulation cost grows as the square of the ring's length), ddl only on grids whose
            dimensions are all at most LARGE_MAX_EXTENT (a long ring in one dimension is both
            slow on the machine and slow to simulate);
  modern    today's machines (platforms/generate.py's DGX-1 with V100, DGX A100, DGX H100, 1 -> 32
            nodes: 8 -> 256 GPUs on a fat tree), ResNet-50 at each GPU's own speed: the workload
            file with reference_iteration_ms set from the GPU's mixed-precision training
            throughput (MODERN, sources in platforms/SOURCES.md, "Workloads"; run.sh writes the
            files), every algorithm on the natural grid;
  sensitivity  the training effects of workloads/training_effects.hpp swept at assumed values (no
            shipped workload or platform sets them): compute jitter (--jitter CV) and
            interference (--interference F), ResNet-50, ddl on its best grid and ring at 256 GPUs
            (SENSITIVITY_256) and ddl 4x32x32 alone at 4096 GPUs (SENSITIVITY_4096). Jittered
            points average several iterations (each iteration draws new factors, so the
            slowest-of-p shows as a mean rather than one draw): JITTER_ITERS at 256 GPUs,
            JITTER_ITERS_4096 at 4096, where a jittered iteration costs minutes of CPU and the
            slowest of 4096 draws varies little from one iteration to the next; without jitter
            every iteration is the same and one suffices. The (0, 0) point is the ideal run of
            s822lc / large.
"""
import argparse
import concurrent.futures
import csv
import os
import subprocess
import sys
import time

MODELS = ["resnet50", "resnet101"]
S822LC_NODES = [1, 2, 4, 8, 16, 32, 64]  # 4 .. 256 GPUs
BIGBASIN_SERVERS = [1, 2, 4, 8, 16, 32]  # 8 .. 256 GPUs
LARGE_NODES = [128, 256, 512, 1024]      # 512 .. 4096 GPUs
OTHERS = "ddl,rhd,dbtree,hier"           # cheap to simulate; ring runs in a job of its own
RING_MAX_GPUS = 4096
HIER_MAX_GPUS = 4096
LARGE_MAX_EXTENT = 128
# (jitter CV, interference F) points besides (0, 0); assumed values, swept for sensitivity.
SENSITIVITY_256 = [(0.02, 0), (0.05, 0), (0, 0.1), (0, 0.2), (0.05, 0.1)]
SENSITIVITY_4096 = [(0, 0.1), (0.02, 0), (0.05, 0)]
JITTER_ITERS = 5
JITTER_ITERS_4096 = 3
# (platform family, GPU, ResNet-50 forward + backward ms per 32-image minibatch on one GPU, mixed
# precision): 32 / images per second (platforms/SOURCES.md, "Workloads").
MODERN = [("dgx1", "v100", 32 / 1200 * 1e3), ("dgx_a100", "a100", 32 / 2470 * 1e3),
          ("dgx_h100", "h100", 32 / (2 * 2470) * 1e3)]
MODERN_NODES = [1, 2, 4, 8, 16, 32]      # 8 .. 256 GPUs


def natural_dims(nodes):
    """The generator's grid: GPUs per node x nodes per leaf (8) x leaves."""
    if nodes == 1:
        return "4"
    if nodes <= 8:
        return f"4x{nodes}"
    return f"4x8x{nodes // 8}"


def factorizations(nodes):
    """4 first (the GPUs of a node), then up to two more dimensions, each larger than 1."""
    if nodes == 1:
        return ["4"]
    grids = [f"4x{nodes}"]
    grids += [f"4x{a}x{nodes // a}" for a in range(2, nodes) if nodes % a == 0]
    return grids


def s822lc_file(nodes, tmp):
    checked_in = os.path.join("platforms", f"s822lc_{nodes}.xml")
    return checked_in if os.path.exists(checked_in) else os.path.join(tmp, f"s822lc_{nodes}.xml")


def modern_platform(family, nodes, tmp):
    return os.path.join(tmp, f"{family}_{nodes}.xml")


def workload_file(model, tmp):
    """A shipped workload by name, or one run.sh wrote into tmp (resnet50_<gpu>)."""
    return model if model in MODELS else os.path.join(tmp, f"{model}.csv")


def jobs(tmp):
    """(experiment, model, platform file, --algo, --dims or None, --methods or None, effects).

    effects: () for the workload's and platform's own parameters (none set: the ideal model), or
    (jitter CV, interference F, iterations) for a sensitivity point."""
    out = []
    for model in MODELS:
        for n in S822LC_NODES:
            plat = s822lc_file(n, tmp)
            out.append(("s822lc", model, plat, "ring", None, None, ()))
            out.append(("s822lc", model, plat, OTHERS, None, None, ()))
            for dims in factorizations(n):
                if dims != natural_dims(n):
                    out.append(("dims", model, plat, "ddl", dims, None, ()))
    for s in BIGBASIN_SERVERS:
        plat = os.path.join("platforms", f"bigbasin_{s}.xml")
        out.append(("bigbasin", "resnet50", plat, "ring," + OTHERS, None, None, ()))
        if s > 1:
            out.append(("bigbasin", "resnet50", plat, "ddl", f"8x{s}", "ring,hd", ()))
    for n in LARGE_NODES:
        plat = s822lc_file(n, tmp)
        if 4 * n <= RING_MAX_GPUS:
            out.append(("large", "resnet50", plat, "ring", None, None, ()))
        out.append(("large", "resnet50", plat, "rhd,dbtree" + (",hier" if 4 * n <= HIER_MAX_GPUS else ""), None,
                    None, ()))
        for dims in factorizations(n):
            if all(int(e) <= LARGE_MAX_EXTENT for e in dims.split("x")):
                out.append(("large", "resnet50", plat, "ddl", dims, None, ()))
    for family, gpu, _ in MODERN:
        for n in MODERN_NODES:
            plat = modern_platform(family, n, tmp)
            out.append(("modern", f"resnet50_{gpu}", plat, "ring", None, None, ()))
            out.append(("modern", f"resnet50_{gpu}", plat, OTHERS, None, None, ()))
    for jitter, interference in SENSITIVITY_256:
        point = (jitter, interference, JITTER_ITERS if jitter else 1)
        plat = s822lc_file(64, tmp)
        out.append(("sensitivity", "resnet50", plat, "ddl", "4x8x8", None, point))
        out.append(("sensitivity", "resnet50", plat, "ring", None, None, point))
    for jitter, interference in SENSITIVITY_4096:
        point = (jitter, interference, JITTER_ITERS_4096 if jitter else 1)
        out.append(("sensitivity", "resnet50", s822lc_file(1024, tmp), "ddl", "4x32x32", None, point))
    return out


def command(ddlsim, job, tmp):
    _, model, plat, algo, dims, methods, effects = job
    cmd = [ddlsim, "--platform", plat, "--workload", workload_file(model, tmp), "--algo", algo, "--format", "csv"]
    if model not in MODELS:
        # run.sh's resnet50_<gpu> files hold that GPU's own times already: not P100 times to scale.
        cmd += ["--no-compute-scaling"]
    if dims:
        cmd += ["--dims", dims]
    if methods:
        cmd += ["--methods", methods]
    if effects:
        jitter, interference, iters = effects
        cmd += ["--jitter", str(jitter), "--interference", str(interference)]
        if iters > 1:
            cmd += ["-n", str(iters)]
    return cmd


# Under mpirun a ddlsim child would take itself for a rank of the job (tools/sim_ranks/sweep_mpi.hpp): it runs
# alone without the variable that says so.
CHILD_ENV = {k: v for k, v in os.environ.items() if k != "OMPI_COMM_WORLD_SIZE"}


def run(ddlsim, job, tmp):
    cmd = command(ddlsim, job, tmp)
    start = time.monotonic()
    done = subprocess.run(cmd, capture_output=True, text=True, env=CHILD_ENV)
    wall = time.monotonic() - start
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed ({done.returncode}): {done.stderr.strip()}")
    rows = [l for l in done.stdout.splitlines() if not l.startswith("#")]  # the run's metadata
    return job, cmd, wall, list(csv.DictReader(rows))


class World:
    """The ranks mpirun started, or this process alone (no MPI without mpirun)."""

    def __init__(self, timeout_s):
        self.comm = None
        self.rank, self.size = 0, 1
        self.timeout_s = timeout_s
        if "OMPI_COMM_WORLD_SIZE" in os.environ:
            from mpi4py import MPI  # Debian python3-mpi4py; only needed under mpirun
            self.comm = MPI.COMM_WORLD
            self.rank, self.size = self.comm.Get_rank(), self.comm.Get_size()

    def gather(self, share):
        """Every rank's share (rows, or the error that stopped it) on rank 0, in rank order;
        None on the others. Waits at most timeout_s, then names the ranks that sent nothing."""
        if self.comm is None:
            return [share]
        if self.rank != 0:
            req = self.comm.isend(share, dest=0, tag=1)
            self._wait(lambda: req.test()[0], "rank 0 did not take rank %d's rows" % self.rank)
            return None
        shares, pending = [share] + [None] * (self.size - 1), set(range(1, self.size))

        def arrived():
            for r in sorted(pending):
                if self.comm.iprobe(source=r, tag=1):
                    shares[r] = self.comm.recv(source=r, tag=1)
                    pending.discard(r)
            return not pending

        self._wait(arrived, lambda: "no rows from rank " + ", ".join(map(str, sorted(pending))))
        return shares

    def _wait(self, done, why):
        deadline = time.monotonic() + self.timeout_s
        while not done():
            if time.monotonic() > deadline:
                text = why() if callable(why) else why
                print(f"simulate.py: rank {self.rank}: {text} within {self.timeout_s:.0f} s (--timeout)",
                      file=sys.stderr, flush=True)
                self.comm.Abort(1)
            time.sleep(0.1)


def ended_with_heartbeat(futures, who, every_s=30):
    """The futures as they end; while none ends for `every_s`, a line on stderr says the run is alive
    (the longest simulations go first, so the first one takes minutes)."""
    started, waiting, done = time.monotonic(), set(futures), 0
    while waiting:
        ended, waiting = concurrent.futures.wait(waiting, timeout=every_s,
                                                 return_when=concurrent.futures.FIRST_COMPLETED)
        if not ended:
            print(f"simulate.py: {who}{done} of {len(futures)} done, {len(futures) - done} to go, "
                  f"{time.monotonic() - started:.0f} s", file=sys.stderr, flush=True)
        for f in ended:
            done += 1
            yield f


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--ddlsim", required=True)
    p.add_argument("--tmp", required=True, help="folder holding the generated platforms and workloads ($GENERATED in runs.csv)")
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("-o", "--output", required=True, help="runs.csv to write")
    p.add_argument("--timeout", type=float, default=86400,
                   help="under mpirun: seconds rank 0 waits for the other ranks' rows once its own share is done")
    args = p.parse_args()
    if not 0 < args.timeout < float("inf"):
        p.error(f"--timeout must be a positive number of seconds, got {args.timeout}")
    world = World(args.timeout)

    pending = jobs(args.tmp)
    # Longest first (most GPUs, effects, ring alone), so the pool does not end waiting on one long
    # run: jitter costs about 7x the ideal's CPU (ranks no longer move in step), interference 1.6x.
    pending.sort(key=lambda j: (os.path.getsize(j[2]), bool(j[6]) and j[6][0] > 0, bool(j[6]), j[3] == "ring"),
                 reverse=True)
    missing = sorted({j[2] for j in pending if not os.path.exists(j[2])} |
                     {workload_file(j[1], args.tmp) for j in pending
                      if j[1] not in MODELS and not os.path.exists(workload_file(j[1], args.tmp))})
    if missing:
        p.error("missing (run.sh generates them): " + ", ".join(missing))
    fields = ["experiment", "model", "platform", "gpus", "algo", "methods", "dims", "jitter", "interference",
              "iters", "iter_ms", "compute_ms", "exposed_comm_ms", "images_per_s", "efficiency", "run_wall_s",
              "command"]
    total = len(pending)
    # Under mpirun, rank r runs every size-th of the longest-first list: each rank gets long and
    # short runs alike.
    pending = pending[world.rank::world.size]
    who = f"rank {world.rank}: " if world.size > 1 else ""
    rows = []
    started = time.monotonic()
    print(f"simulate.py: {who}{len(pending)} simulations, {args.jobs} at a time, the longest first", file=sys.stderr,
          flush=True)
    try:
        with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
            futures = [pool.submit(run, args.ddlsim, j, args.tmp) for j in pending]
            for i, f in enumerate(ended_with_heartbeat(futures, who), 1):
                job, cmd, wall, found = f.result()
                print(f"{who}[{i}/{len(pending)}] {wall:7.1f} s  {' '.join(cmd[1:])}", file=sys.stderr, flush=True)
                for r in found:
                    # Generated platforms live in a temporary folder: name it the way run.sh makes it.
                    shown = " ".join(["ddlsim"] + cmd[1:]).replace(args.tmp, "$GENERATED")
                    jitter, interference, iters = job[6] or (0, 0, 1)
                    r.update(experiment=job[0], model=job[1], platform=job[2].replace(args.tmp, "$GENERATED"),
                             methods=job[5] or "", jitter=jitter, interference=interference,
                             iters=iters, run_wall_s=f"{wall:.2f}", command=shown)
                    rows.append(r)
        share = ("rows", rows)
    except RuntimeError as e:
        share = ("error", str(e))
    shares = world.gather(share)
    if world.rank != 0:
        sys.exit(1 if share[0] == "error" else 0)
    rows = []
    for r, (kind, value) in enumerate(shares):
        if kind == "error":
            sys.exit(f"simulate.py: {'rank %d: ' % r if world.size > 1 else ''}{value}")
        rows += value
    rows.sort(key=lambda r: (r["experiment"], r["model"], int(r["gpus"]), r["algo"], r["dims"], float(r["jitter"]),
                             float(r["interference"])))
    with open(args.output, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields, extrasaction="ignore")
        w.writeheader()
        w.writerows(rows)
    print(f"{total} simulations, {len(rows)} rows, {time.monotonic() - started:.0f} s wall"
          f"{' on %d ranks' % world.size if world.size > 1 else ''} -> {args.output}", file=sys.stderr)


if __name__ == "__main__":
    main()
