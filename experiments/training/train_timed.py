"""Data-parallel training with ddl's DDP hook, timed per rank and iteration (training_vs_sim.sh).

    ddlcluster run -- -np 4 -x PYTHONPATH -x MASTER_ADDR -x GLOO_SOCKET_IFNAME \
        /usr/bin/python3 experiments/training/train_timed.py --algo ring --out DIR

Trains models.SmallTransformer as examples/python/train_ddp.py trains its models (SGD with
momentum, synthetic batches, one thread per rank) under DistributedDataParallel with
ddl.torch.allreduce_hook run on a communication thread (CommStream: the allreduces overlap the
rest of the backward pass, as DDP's do on a GPU and as ddl's training model assumes), and writes
DIR/rank<r>.csv: per iteration the forward and backward seconds (backward until DDP has every
bucket reduced), the communication thread's seconds in ddl (comm), the exposed wait for it after
the last bucket (exposed), the optimizer step, the compute (the iteration less the exposed wait)
and the iteration.
--no-comm trains each rank's copy alone (no DDP, no communication) with all ranks running at
once: the compute of the same CPU share without any collective in flight, the reference of the
interference factor. The first --warmup iterations are written too, marked warmup=1 (DDP
rebuilds its buckets after the first).
"""
import argparse
import os
import queue
import sys
import threading
import time

import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel

import ddl
import ddl.torch
from ddl import collectives

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import models  # noqa: E402


class CommStream:
    """The hook's communication stream: one thread that allreduces the buckets in the order DDP
    hands them over, while backward() goes on computing (as DDP's allreduces on their own CUDA
    stream do; ddl.torch.allreduce_hook itself runs synchronously inside backward). ddl's Python
    module initialises MPI with MPI_THREAD_MULTIPLE and releases the GIL while it communicates.
    Records per iteration the seconds this thread spent in ddl, the bucket sizes and when the
    last bucket was handed over (the end of the backward pass's compute)."""

    def __init__(self, state):
        self.state = state
        self.jobs = queue.Queue()
        self.reset()
        threading.Thread(target=self._run, daemon=True).start()

    def reset(self):
        self.seconds = 0.0
        self.buckets = []
        self.last_handed = None

    def _run(self):
        while True:
            bucket, future = self.jobs.get()
            t = time.perf_counter()
            try:
                ddl.torch.allreduce_hook(self.state, bucket)
            except Exception as e:  # the waiting backward() raises it
                future.set_exception(e)
                continue
            self.seconds += time.perf_counter() - t
            future.set_result(bucket.buffer())


def overlapped_hook(stream, bucket):
    """DDP communication hook: hands the bucket to the comm stream, returns its future."""
    stream.last_handed = time.perf_counter()
    stream.buckets.append(bucket.buffer().numel() * bucket.buffer().element_size())
    future = torch.futures.Future()
    stream.jobs.put((bucket, future))
    return future


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--algo", default="ring", help=f"ddl's algorithm: {', '.join(ddl.algorithms())}")
    p.add_argument("--dims", default=None, help="ddl's grid (default: ranks per node x nodes)")
    p.add_argument("--steps", type=int, default=20, help="timed iterations (default 20)")
    p.add_argument("--warmup", type=int, default=2, help="iterations before them (default 2)")
    p.add_argument("--batch", type=int, default=4, help="sequences per rank (default 4)")
    p.add_argument("--no-comm", action="store_true", help="each rank alone, no DDP")
    p.add_argument("--out", required=True, help="directory for rank<r>.csv")
    p.add_argument("--timeout", type=float, default=120.0, help="seconds any wait may take")
    args = p.parse_args()
    if args.steps < 1 or args.warmup < 0 or args.batch < 1:
        p.error("--steps and --batch must be at least 1, --warmup at least 0")
    torch.set_num_threads(1)  # the ranks share the machine's cores
    rank = collectives.rank()
    net = models.make_net()
    hook = None
    if args.no_comm:
        model = net
    else:
        hook = CommStream(ddl.torch.HookState(args.algo, args.dims, args.timeout))
        ddl.torch.init_process_group(timeout=args.timeout)
        model = DistributedDataParallel(net)
        model.register_comm_hook(hook, overlapped_hook)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    loss_fn = nn.CrossEntropyLoss()
    g = torch.Generator().manual_seed(1000 + rank)
    # Every rank starts its timed loop together (in --no-comm too, so the ranks share the cores
    # as they do when training together).
    collectives.allreduce(torch.zeros(1), algo="ring", timeout=args.timeout)
    rows = []
    for it in range(args.warmup + args.steps):
        x = torch.randint(0, models.VOCABULARY, (args.batch, models.TOKENS), generator=g)
        y = torch.randint(0, models.CLASSES, (args.batch,), generator=g)
        if hook:
            hook.reset()
        t0 = time.perf_counter()
        optimizer.zero_grad()
        loss = loss_fn(model(x), y)
        t1 = time.perf_counter()
        loss.backward()
        t2 = time.perf_counter()
        optimizer.step()
        t3 = time.perf_counter()
        comm = hook.seconds if hook else 0.0
        # exposed: backward() waiting for the allreduces after its last bucket was handed over.
        exposed = t2 - hook.last_handed if hook else 0.0
        buckets = "+".join(str(b) for b in hook.buckets) if hook else ""
        rows.append(f"{rank},{it},{int(it < args.warmup)},{t1 - t0:.6f},{t2 - t1:.6f},{comm:.6f},"
                    f"{exposed:.6f},{t3 - t2:.6f},{t3 - t0 - exposed:.6f},{t3 - t0:.6f},{buckets}")
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, f"rank{rank}.csv"), "w") as f:
        f.write("rank,iteration,warmup,forward_s,backward_s,comm_s,exposed_s,optimizer_s,compute_s,"
                "iteration_s,bucket_bytes\n")
        f.write("\n".join(rows) + "\n")
    if not args.no_comm:
        torch.distributed.destroy_process_group()
    return 0


if __name__ == "__main__":
    sys.exit(main())
