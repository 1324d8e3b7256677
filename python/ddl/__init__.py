"""ddl: topology-aware collectives (a rebuild of IBM PowerAI DDL), Python side.

  ddl.allreduce(x, op="sum", algo="ddl", dims=None, timeout=300.0)
      in place on a numpy array or a torch CPU tensor, over MPI (run under mpirun)
  ddl.reduce_scatter, allgather, broadcast, alltoall, reduce, gather, scatter, sendrecv(x, ...)
      the other collectives, in place the same way (root= where they have one)
  ddl.alltoallv(x, send_counts, recv_counts)   a count per rank; returns the received blocks
  ddl.split(color, key=None, group=None)   a group of ranks (MPI_Comm_split); any collective
      takes group=... to run among its ranks only
  ddl.rank(), ddl.size(), ddl.algorithms(coll="allreduce")
  ddl.simulate(platform, algo, size, ...)   ddlsim's row for one collective, as a dict
  ddl.torch.allreduce_hook                  a DDP communication hook (import ddl.torch)

Import-light on purpose: `import ddl` loads neither MPI nor torch; the names above load their
module on first use (PEP 562), so `python3 -m ddl.workload` works without the compiled core.
Submodules:
  ddl.workload  python3 -m ddl.workload MODEL: a torch model's training workload CSV
  ddl.models    GPT-2-small-like and BERT-base-like torch modules for ddl.workload
"""

import importlib

_LAZY = {
    "allreduce": "ddl.collectives",
    "reduce_scatter": "ddl.collectives",
    "allgather": "ddl.collectives",
    "broadcast": "ddl.collectives",
    "alltoall": "ddl.collectives",
    "alltoallv": "ddl.collectives",
    "reduce": "ddl.collectives",
    "gather": "ddl.collectives",
    "scatter": "ddl.collectives",
    "sendrecv": "ddl.collectives",
    "split": "ddl.collectives",
    "rank": "ddl.collectives",
    "size": "ddl.collectives",
    "algorithms": "ddl.collectives",
    "simulate": "ddl.simulation",
    "SimulationError": "ddl.simulation",
}

__all__ = sorted(_LAZY)


def __getattr__(name):
    if name == "torch":  # ddl.torch without `import ddl.torch` (imports torch)
        return importlib.import_module("ddl.torch")
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'ddl' has no attribute {name!r}")
