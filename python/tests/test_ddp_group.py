"""DDP with ddl's hook in data-parallel groups, under mpirun on 4 ranks: ranks {0, 2} and {1, 3}
are two replicas groups (as in a hybrid layout whose other dimension splits the model), each
training on its own data. The hook allreduces each bucket in its ddl.split group and divides by
the group's size; the reference is plain DDP over gloo in the same torch group. Two members per
group: each element is the sum of two numbers, exact in any order, and halving is exact, so the
parameters must be bitwise equal after every step (and differ between the groups, whose data
differ: a hook that reduced over every rank would make them equal)."""
import copy
import sys

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel

import ddl
import ddl.torch

ddl.torch.init_process_group(timeout=60.0)
r, p = ddl.rank(), ddl.size()
assert p == 4, "run on 4 ranks"
groups = [dist.new_group([0, 2]), dist.new_group([1, 3])]  # every rank makes every group
replicas = groups[r % 2]
dp = ddl.split(r % 2)

torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.ReLU(), torch.nn.Linear(32, 4))
hooked = DistributedDataParallel(copy.deepcopy(model), process_group=replicas)
hooked.register_comm_hook(ddl.torch.HookState(algo="ring", group=dp, timeout=60.0),
                          ddl.torch.allreduce_hook)
reference = DistributedDataParallel(copy.deepcopy(model), process_group=replicas)
optimizers = [torch.optim.SGD(m.parameters(), lr=0.1) for m in (hooked, reference)]

failures = []
data = torch.Generator().manual_seed(100 + r)  # every rank its own data
for step in range(3):
    x = torch.randn(8, 16, generator=data)
    y = torch.randn(8, 4, generator=data)
    for m, opt in zip((hooked, reference), optimizers):
        opt.zero_grad()
        torch.nn.functional.mse_loss(m(x), y).backward()
        opt.step()
    for (name, a), b in zip(hooked.module.named_parameters(), reference.module.parameters()):
        if not torch.equal(a, b):
            failures.append(f"rank {r} step {step}: {name} differs by {(a - b).abs().max()}")

# Replicas of one group hold the same parameters; the two groups, trained on different data,
# different ones.
mine = torch.cat([q.detach().flatten() for q in hooked.module.parameters()])
every = [torch.empty_like(mine) for _ in range(p)]
dist.all_gather(every, mine)
if not (torch.equal(every[0], every[2]) and torch.equal(every[1], every[3])):
    failures.append(f"rank {r}: the replicas of a group differ")
if torch.equal(every[0], every[1]):
    failures.append(f"rank {r}: both groups ended with the same parameters")

if failures:
    print("\n".join(failures), file=sys.stderr)
    sys.exit(1)
print(f"rank {r}: DDP in its group = gloo bitwise")
dist.destroy_process_group()
