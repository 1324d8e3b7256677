"""DistributedDataParallel with ddl's hook on ranks whose hook states differ (2 ranks): rank 1
reduces its buckets with rhd, rank 0 with ring. backward() must raise on both ranks with the
message naming the difference, not mix two schedules' messages; matching hooks still reduce
the gradients exactly (the sum of the ranks' gradients, divided by 2)."""

import torch
from torch.nn.parallel import DistributedDataParallel

import ddl
import ddl.torch

TIMEOUT = 20.0
R = ddl.rank()
if ddl.size() != 2:
    raise SystemExit("test_ddp_disagree.py runs on 2 ranks")
torch.set_num_threads(1)
ddl.torch.init_process_group(timeout=TIMEOUT)


def backward(algo):
    """One backward pass of a linear model whose weight gradient is (R + 1) * ones."""
    model = torch.nn.Linear(4, 1, bias=False)
    ddp = DistributedDataParallel(model)
    ddp.register_comm_hook(ddl.torch.HookState(algo=algo, timeout=TIMEOUT),
                           ddl.torch.allreduce_hook)
    ddp(torch.full((1, 4), float(R + 1))).sum().backward()
    return model.weight.grad


expected = "ranks disagree on the call: rank 1 has algorithm rhd, rank 0 has algorithm ring"
try:
    backward("rhd" if R == 1 else "ring")
except Exception as e:  # DDP's reducer may wrap what the hook raised
    assert expected in str(e), f"rank {R}: {type(e).__name__}: {e}"
    print(f"rank {R}: {type(e).__name__} names the difference")
else:
    raise AssertionError(f"rank {R}: backward() returned although the hooks' algorithms differ")

grad = backward("ring")
assert grad.tolist() == [[1.5] * 4], f"rank {R}: averaged gradient {grad.tolist()}"
torch.distributed.destroy_process_group()
print(f"rank {R}: matching hooks average the gradients exactly")
