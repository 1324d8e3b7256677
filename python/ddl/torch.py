"""ddl under PyTorch DistributedDataParallel: a communication hook and the process group it needs.

    import ddl.torch
    ddl.torch.init_process_group()                     # gloo over the ranks mpirun started
    model = torch.nn.parallel.DistributedDataParallel(model)
    model.register_comm_hook(ddl.torch.HookState(algo="ddl"), ddl.torch.allreduce_hook)

DDP still needs a process group (it broadcasts the initial parameters and buffers over it);
the gradients then travel through ddl instead: each bucket is allreduced with ddl over
MPI_COMM_WORLD (or over a ddl.split group: HookState(group=...), the data-parallel replicas of a
hybrid layout) and divided by the ranks it was summed over, which is what DDP's own allreduce
does over its process group.
"""

import datetime
import os
import socket

import torch
import torch.distributed as dist

from ddl import collectives


class HookState:
    """What allreduce_hook reduces with: an algorithm, a grid, a wait bound and the ranks
    (ddl.allreduce's: group=None is every rank, else a group from ddl.split)."""

    def __init__(self, algo="ddl", dims=None, timeout=collectives.DEFAULT_TIMEOUT, group=None):
        if algo not in collectives.algorithms():
            raise ValueError(f"ddl.torch.HookState: unknown algorithm {algo!r} "
                             f"(known: {', '.join(collectives.algorithms())})")
        collectives._check_group("ddl.torch.HookState", group)
        self.algo = algo
        self.dims = dims
        self.timeout = timeout
        self.group = group


_DEFAULT_STATE = None


def allreduce_hook(state, bucket):
    """DDP communication hook (DistributedDataParallel.register_comm_hook(state, allreduce_hook)).

    state is a HookState or None (algo "ddl", the node grid, every rank). Sums the bucket's flat
    gradient buffer over the state's ranks with ddl, in place, divides it by their number (DDP's
    average) and returns it as a completed future. The reduction runs synchronously inside
    backward().
    """
    global _DEFAULT_STATE
    if state is None:
        if _DEFAULT_STATE is None:
            _DEFAULT_STATE = HookState()
        state = _DEFAULT_STATE
    if not isinstance(state, HookState):
        raise TypeError(f"ddl.torch.allreduce_hook: state must be a ddl.torch.HookState or None, "
                        f"not {type(state).__name__}")
    buffer = bucket.buffer()
    collectives.allreduce(buffer, op="sum", algo=state.algo, dims=state.dims, timeout=state.timeout,
                          group=state.group)
    buffer.div_(state.group.size if state.group is not None else collectives.size())
    done = torch.futures.Future()
    done.set_result(buffer)
    return done


def _free_port(address):
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((address, 0))
        return s.getsockname()[1]


def init_process_group(backend="gloo", timeout=60.0):
    """torch.distributed's default group over the MPI ranks: rank and size from MPI.

    backend: "gloo" (what the hook needs), or "ddl" for torch.distributed's ddl backend
    (ddl.distributed, imported here for it).

    The rendezvous is rank 0's TCP store at MASTER_ADDR (default 127.0.0.1: one node; set it to
    rank 0's address across nodes) and MASTER_PORT, or when that is unset a port rank 0 finds free
    and sends to the others with ddl (so concurrent jobs on one machine never collide on a fixed
    port). Every wait, the rendezvous included, is bounded by `timeout` seconds.
    """
    if backend == "ddl":
        import ddl.distributed  # noqa: F401 (registers the backend)
    rank, world = collectives.rank(), collectives.size()
    address = os.environ.get("MASTER_ADDR", "127.0.0.1")
    if "MASTER_PORT" in os.environ:
        port = int(os.environ["MASTER_PORT"])
    else:
        chosen = torch.tensor([_free_port(address) if rank == 0 else 0], dtype=torch.int64)
        collectives.allreduce(chosen, op="max", algo="ring", timeout=timeout)
        port = int(chosen.item())
    dist.init_process_group(backend, init_method=f"tcp://{address}:{port}", rank=rank,
                            world_size=world, timeout=datetime.timedelta(seconds=timeout))
