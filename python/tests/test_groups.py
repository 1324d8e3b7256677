"""ddl.split and collectives in groups, under mpirun on 4 ranks: the tensor- and data-parallel
groups of a 2 x 2 layout, each collective exact by hand inside them (numpy and torch), two
groups' collectives one after the other on the same buffers, keys that reverse the order, a
negative color, nested splits, and bad group arguments named."""
import sys

import numpy as np
import torch

import ddl

failures = []


def check(cond, what):
    if not cond:
        failures.append(f"rank {ddl.rank()}: {what}")


r, p = ddl.rank(), ddl.size()
assert p == 4, "run on 4 ranks"

tp = ddl.split(r // 2)  # {0, 1}, {2, 3}
dp = ddl.split(r % 2)  # {0, 2}, {1, 3}
check((tp.rank, tp.size) == (r % 2, 2), f"tp rank/size {tp.rank}/{tp.size}")
check((dp.rank, dp.size) == (r // 2, 2), f"dp rank/size {dp.rank}/{dp.size}")

# allreduce in each group: the sum of its two members' world ranks.
x = np.full(5, float(r), dtype=np.float32)
ddl.allreduce(x, group=tp)
check((x == float(2 * (r // 2) * 2 + 1)).all(), f"tp allreduce {x}")
t = torch.full((7,), float(r), dtype=torch.float64)
ddl.allreduce(t, algo="ring", group=dp)
check(bool((t == float(2 * (r % 2) + 2)).all()), f"dp allreduce {t}")

# broadcast from the group's rank 1 (world ranks 1 and 3 in tp, 2 and 3 in dp).
b = np.arange(4, dtype=np.int32) + 100 * r
ddl.broadcast(b, root=1, group=tp)
check((b == np.arange(4) + 100 * (r // 2 * 2 + 1)).all(), f"tp broadcast {b}")

# alltoall in dp: block j of member i goes to member j.
a = np.array([10 * r + j for j in range(2)], dtype=np.int64)
ddl.alltoall(a, group=dp)
members = [r % 2, r % 2 + 2]
check(list(a) == [10 * m + dp.rank for m in members], f"dp alltoall {a}")

# reduce_scatter then allgather in tp: block i of the sum, then every block.
v = np.arange(4, dtype=np.float32) + r
ddl.reduce_scatter(v, group=tp)
base = r // 2 * 2
mine = slice(2 * tp.rank, 2 * tp.rank + 2)
check((v[mine] == 2 * np.arange(4, dtype=np.float32)[mine] + 2 * base + 1).all(), f"tp rs {v}")
ddl.allgather(v, group=tp)
check((v == 2 * np.arange(4, dtype=np.float32) + 2 * base + 1).all(), f"tp allgather {v}")

# Keys reverse the order; a negative color joins no group; a group splits again.
rev = ddl.split(0, key=-r)
check((rev.rank, rev.size) == (3 - r, 4), f"reversed rank {rev.rank}")
none = ddl.split(-1 if r == 0 else 1)
check((none is None) == (r == 0), f"negative color gave {none}")
if none is not None:
    check(none.size == 3, f"three ranks {none.size}")
    inner = ddl.split(none.rank % 2, group=none)  # {1, 3}, {2}
    check(inner.size == (2 if r in (1, 3) else 1), f"nested size {inner.size}")
    s = np.array([r], dtype=np.int32)
    ddl.allreduce(s, group=inner)
    check(s[0] == (4 if r in (1, 3) else 2), f"nested allreduce {s}")

# Ranks of a group that disagree raise in that group, not elsewhere.
try:
    ddl.allreduce(np.zeros(4 if tp.rank == 0 else 8, dtype=np.float32), group=tp)
    check(False, "a disagreeing call did not raise")
except ValueError as e:
    check("ranks disagree on the call" in str(e), f"disagreement message {e}")

# Bad group arguments, named (every rank alike: nobody waits).
for bad, message in (("tp", "group must be None (every rank) or a group from ddl.split"),):
    try:
        ddl.split(0, group=bad)
        check(False, "a string group was taken")
    except TypeError as e:
        check(message in str(e), f"bad group message {e}")
try:
    ddl.split(0.5)
    check(False, "a float color was taken")
except TypeError as e:
    check("color must be an int" in str(e), f"bad color message {e}")

if failures:
    print("\n".join(failures), file=sys.stderr)
    sys.exit(1)
print(f"rank {r}: groups exact")
