"""torch.distributed's backend "ddl": ddl's collectives under torch.distributed's own API.

    import ddl.distributed              # registers the backend with torch.distributed
    torch.distributed.init_process_group("ddl", init_method=..., rank=..., world_size=...)
    torch.distributed.all_reduce(t)     # ... and DDP, new_group, the other collectives

Run under mpirun: the process group's ranks are MPI's (the default group's rank and size must
be MPI_COMM_WORLD's). Every collective runs through ddl's C API with the collective's default
algorithm, synchronously, on CPU tensors; send and recv use MPI on the group's communicator.
The rendezvous (init_method or env://) still provides torch's store, which torch uses for its
own bookkeeping and this module to find each new group's members. What is supported and what
is refused: python/README.md, "torch.distributed backend".
"""

import torch.distributed as dist

from ddl import collectives

try:
    from ddl import _c10d
except ImportError as e:  # pragma: no cover - depends on how ddl was built
    raise ImportError(
        "ddl's torch.distributed backend (ddl._c10d) is not importable: build it (cmake --build "
        "BUILD --target ddl_c10d; needs torch's C++ headers, Debian's libtorch-dev) and put "
        f"BUILD/python on PYTHONPATH, or install ddl ({e})"
    ) from e

BACKEND = "ddl"


def _create_process_group(store, rank, size, timeout):
    """torch 1.13's creator for a third-party backend: called as (prefix_store, group_rank,
    group_size, timeout) by the members of the new group only."""
    # MPI initialised (ddl's MPI_THREAD_MULTIPLE, unless mpi4py or the program did it first).
    world_rank, world_size = collectives.rank(), collectives.size()
    if not dist.is_initialized():  # the default group: torch's world must be MPI's
        if size != world_size or rank != world_rank:
            raise RuntimeError(
                f"ddl backend: torch's default group has rank {rank} of {size}, but MPI has "
                f"rank {world_rank} of {world_size}; launch the program under mpirun with "
                f"-np {size} and pass each process its MPI rank as torch's rank (e.g. "
                "RANK=$OMPI_COMM_WORLD_RANK, WORLD_SIZE=$OMPI_COMM_WORLD_SIZE)")
        world_ranks = list(range(size))
    else:
        # A new group: each member publishes its MPI rank in the group's own (prefixed) store
        # and reads the others', so the group's MPI communicator ranks them as torch does.
        store.set(f"ddl_world_rank_{rank}", str(world_rank))
        world_ranks = [int(store.get(f"ddl_world_rank_{r}")) for r in range(size)]
    return _c10d.ProcessGroupDDL(rank, size, world_ranks, timeout.total_seconds())


if BACKEND.upper() not in dist.Backend._plugins:  # a second import registers nothing
    dist.Backend.register_backend(BACKEND, _create_process_group)
