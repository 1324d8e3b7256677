"""Data-parallel training on CPU ranks with ddl: as DDP's communication hook, or as its backend.

    mpirun --oversubscribe -np 2 /usr/bin/python3 examples/python/train_ddp.py
    mpirun --oversubscribe -np 4 /usr/bin/python3 examples/python/train_ddp.py \
        --model transformer --algo ring
    mpirun --oversubscribe -np 2 /usr/bin/python3 examples/python/train_ddp.py --backend ddl

Each rank trains the same seeded model on its own synthetic batch (torchvision's ResNet-18 on
random 32x32 images and 10 classes, or a small transformer encoder on random tokens).
--backend hook (the default): DistributedDataParallel over gloo averages the gradients through
ddl.torch.allreduce_hook. --backend ddl: plain DistributedDataParallel (no hook) over
torch.distributed's "ddl" backend (ddl.distributed), which also broadcasts the initial
parameters and checks their shapes; its collectives run ddl's default algorithms.

--compare-gloo also trains a second copy with plain DDP over gloo (no hook) on the same batches
and compares the parameters after the last step: it exits 1 when they differ by more than
--tolerance (fp32 epsilons of each tensor's largest magnitude; 0, the default, demands bitwise
equality). PYTHONPATH must reach the ddl package (BUILD/python in a build tree; nothing when ddl
is installed for this interpreter).
"""

import argparse
import sys
import time

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel

import ddl
import ddl.torch


class TinyTransformer(nn.Module):
    """Two encoder layers over 32 tokens of a 1000-word vocabulary, mean-pooled into 10 classes."""

    def __init__(self, vocabulary=1000, width=64, heads=4, layers=2, classes=10):
        super().__init__()
        self.embed = nn.Embedding(vocabulary, width)
        layer = nn.TransformerEncoderLayer(width, heads, dim_feedforward=4 * width, dropout=0.0,
                                           batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, layers)
        self.head = nn.Linear(width, classes)

    def forward(self, tokens):
        return self.head(self.encoder(self.embed(tokens)).mean(dim=1))


def make_model(name, seed):
    torch.manual_seed(seed)  # every rank and both copies start from the same parameters
    if name == "resnet18":
        import torchvision

        return torchvision.models.resnet18(num_classes=10)
    return TinyTransformer()


def make_batches(name, steps, batch, seed, rank):
    """This rank's synthetic batches: different on every rank, the same for both copies."""
    g = torch.Generator().manual_seed(seed * 1000 + rank)
    batches = []
    for _ in range(steps):
        if name == "resnet18":
            x = torch.randn(batch, 3, 32, 32, generator=g)
        else:
            x = torch.randint(0, 1000, (batch, 32), generator=g)
        batches.append((x, torch.randint(0, 10, (batch,), generator=g)))
    return batches


def train(model, batches, lr):
    optimizer = torch.optim.SGD(model.parameters(), lr=lr, momentum=0.9)
    loss_fn = nn.CrossEntropyLoss()
    losses = []
    for x, y in batches:
        optimizer.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return losses


def max_difference(a, b):
    """The largest difference between two models' parameters, each tensor's measured against its
    largest magnitude, in fp32 epsilons (2^-23): 0 is bitwise equality, 1 is one rounding step of
    the tensor's largest entry. (Element-wise ulps would be meaningless for entries near 0, such
    as biases that started at 0: their ulp is far below any reduction's rounding.)"""
    eps = torch.finfo(torch.float32).eps
    worst = 0.0
    for pa, pb in zip(a.parameters(), b.parameters()):
        scale = max(pa.detach().abs().max().item(), pb.detach().abs().max().item())
        if scale > 0:
            worst = max(worst, (pa - pb).abs().max().item() / (scale * eps))
    return worst


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--model", choices=["resnet18", "transformer"], default="resnet18")
    p.add_argument("--steps", type=int, default=5, help="optimizer steps (default 5)")
    p.add_argument("--batch", type=int, default=8, help="samples per rank and step (default 8)")
    p.add_argument("--lr", type=float, default=0.01, help="SGD learning rate (default 0.01)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--backend", choices=["hook", "ddl"], default="hook",
                   help="hook: DDP over gloo with ddl's allreduce as its communication hook "
                   "(default); ddl: plain DDP over torch.distributed's ddl backend")
    p.add_argument("--algo", default=None,
                   help=f"--backend hook: ddl's algorithm (default ddl): {', '.join(ddl.algorithms())}")
    p.add_argument("--dims", default=None,
                   help="--backend hook: ddl's grid, e.g. 2x2 (default: ranks per node x nodes)")
    p.add_argument("--compare-gloo", action="store_true",
                   help="also train with plain DDP over gloo and compare the parameters")
    p.add_argument("--tolerance", type=float, default=0.0,
                   help="--compare-gloo: largest allowed difference of any parameter tensor, in "
                   "fp32 epsilons of its largest magnitude (0: bitwise)")
    p.add_argument("--timeout", type=float, default=60.0,
                   help="seconds any wait may take (default 60)")
    args = p.parse_args()
    if args.steps < 1 or args.batch < 1:
        p.error("--steps and --batch must be at least 1")

    if args.backend == "ddl" and (args.algo is not None or args.dims is not None):
        p.error("--algo and --dims choose the hook's algorithm; --backend ddl runs ddl's defaults")

    torch.set_num_threads(1)  # ranks share the cores
    if args.backend == "hook":
        hook_state = ddl.torch.HookState(args.algo or "ddl", args.dims, args.timeout)  # checks --algo
    ddl.torch.init_process_group(backend="ddl" if args.backend == "ddl" else "gloo",
                                 timeout=args.timeout)
    # The reference's group: gloo over every rank (the default group itself under the hook).
    gloo = dist.new_group(backend="gloo") if args.backend == "ddl" and args.compare_gloo else None
    rank, world = ddl.rank(), ddl.size()
    batches = make_batches(args.model, args.steps, args.batch, args.seed, rank)

    model = DistributedDataParallel(make_model(args.model, args.seed))
    if args.backend == "hook":
        model.register_comm_hook(hook_state, ddl.torch.allreduce_hook)
    start = time.perf_counter()
    losses = train(model, batches, args.lr)
    seconds = time.perf_counter() - start
    if rank == 0:
        how = (f"ddl algorithm {args.algo or 'ddl'} as DDP's hook" if args.backend == "hook"
               else "DDP over the ddl backend")
        print(f"{args.model} on {world} ranks, {how}: {args.steps} steps in {seconds:.2f} s; "
              f"loss {' '.join(f'{l:.4f}' for l in losses)}")
    if not args.compare_gloo:
        torch.distributed.destroy_process_group()
        return 0

    reference = DistributedDataParallel(make_model(args.model, args.seed), process_group=gloo)
    reference_losses = train(reference, batches, args.lr)
    difference = max_difference(model.module, reference.module)
    # Every rank holds the same parameters (DDP's invariant): every rank reaches the same verdict.
    ok = difference <= args.tolerance
    if rank == 0:
        losses_text = " ".join(f"{l:.4f}" for l in reference_losses)
        print(f"plain DDP over gloo: loss {losses_text}; largest "
              f"parameter difference {difference:g} eps ({'within' if ok else 'OVER'} tolerance "
              f"{args.tolerance:g} eps)")
    torch.distributed.destroy_process_group()
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
