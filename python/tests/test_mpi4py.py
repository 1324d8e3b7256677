"""ddl beside mpi4py, imported in either order (argv[1]: mpi4py-first or ddl-first).

MPI is initialised once (by whichever comes first) and finalized once, at exit, by the one that
initialised it: Open MPI's mpirun fails the job when a rank exits without MPI_Finalize, and a
second MPI_Init or MPI_Finalize is an error, so a clean exit status checks both. Both libraries
work on the same ranks in between.
"""

import importlib.util
import sys

import numpy as np

if importlib.util.find_spec("mpi4py") is None:
    print("test_mpi4py.py: mpi4py is not installed (python3-mpi4py): skipped")
    sys.exit(77)  # ctest's SKIP_RETURN_CODE
order = sys.argv[1]
if order == "mpi4py-first":
    from mpi4py import MPI

    import ddl

    x = np.full(4, MPI.COMM_WORLD.Get_rank() + 1.0)
    ddl.allreduce(x, timeout=30)
elif order == "ddl-first":
    import ddl

    x = np.full(4, ddl.rank() + 1.0)
    ddl.allreduce(x, timeout=30)  # initialises MPI
    from mpi4py import MPI
else:
    sys.exit(f"test_mpi4py.py: unknown order {order!r} (mpi4py-first or ddl-first)")

world = MPI.COMM_WORLD
p = world.Get_size()
assert MPI.Is_initialized() and not MPI.Is_finalized()
assert (ddl.rank(), ddl.size()) == (world.Get_rank(), p), (ddl.rank(), ddl.size())
assert x.tolist() == [p * (p + 1) / 2] * 4, x
assert world.allreduce(world.Get_rank() + 1) == p * (p + 1) // 2
y = np.full(2, 2.0)
ddl.allreduce(y, op="prod", timeout=30)  # ddl still works after mpi4py's collective
assert y.tolist() == [2.0**p] * 2, y
if world.Get_rank() == 0:
    print(f"{order}: ddl and mpi4py agree on {p} ranks")
