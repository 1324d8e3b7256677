"""ddl.alltoallv under mpirun (1 to 4 ranks): rank i sends rank j (i + j) % 3 elements (none for
some pairs), each naming sender, receiver and position, with numpy (a new output) and torch (an
output given), both algorithms, inside groups; mismatched counts and bad arguments raise one
message on every rank, and the ranks stay in step."""
import sys

import numpy as np
import torch

import ddl

failures = []


def check(cond, what):
    if not cond:
        failures.append(f"rank {ddl.rank()}: {what}")


R, P = ddl.rank(), ddl.size()


def count(i, j):
    return (i + j) % 3


def blocks(me, peers, to_me):
    """What `me` sends each peer (to_me False) or receives from it (True), packed by rank."""
    out = []
    for j in range(peers):
        i, k = (j, me) if to_me else (me, j)
        out += [1000 * i + 10 * k + e for e in range(count(i, k))]
    return out


def exchange(me, size, group):
    send = [count(me, j) for j in range(size)]
    recv = [count(i, me) for i in range(size)]
    expected = blocks(me, size, True)
    for algo in ("alltoallv_pairwise", "alltoallv_linear", "alltoallv_hier"):
        got = ddl.alltoallv(np.array(blocks(me, size, False), dtype=np.float64), send, recv,
                            algo=algo, group=group)
        check(got.dtype == np.float64 and got.tolist() == expected, f"numpy {algo}: {got}")
        out = torch.full((sum(recv),), -1, dtype=torch.int64)
        x = torch.tensor(blocks(me, size, False), dtype=torch.int64)
        check(ddl.alltoallv(x, send, recv, out=out, algo=algo, group=group) is out, "out returned")
        check(out.tolist() == expected, f"torch {algo}: {out.tolist()}")
    for dtype in (np.float32, np.int32):
        got = ddl.alltoallv(np.array(blocks(me, size, False), dtype=dtype), send, recv,
                            group=group)
        check(got.dtype == dtype and got.tolist() == expected, f"numpy {dtype.__name__}: {got}")


def raises(call, error, message):
    try:
        call()
    except error as e:
        check(message in str(e), f"{message!r} not in {str(e)!r}")
    else:
        check(False, f"no {error.__name__} for {message!r}")
    # Still in step: the next exchange is exact.
    exchange(R, P, None)


exchange(R, P, None)
if P >= 2:
    half = ddl.split(R % 2)
    exchange(half.rank, half.size, half)

    # The last rank sends rank 0 one element more than rank 0 expects.
    send = [1] * P
    if R == P - 1:
        send[0] = 2
    raises(lambda: ddl.alltoallv(np.zeros(sum(send)), send, [1] * P), ValueError,
           f"ddl.alltoallv: ranks disagree on the all-to-all-v counts: rank {P - 1} sends 2 "
           "elements to rank 0, which receives 1")
    # One rank's own mistake: the others learn that it refused.
    raises(lambda: ddl.alltoallv(np.zeros(P), [1] * P if R else [1] * (P + 1), [1] * P),
           ValueError,
           f"ddl.alltoallv: alltoallv: the input layout has {P + 1} counts and {P + 1} "
           f"displacements; the group has {P} ranks, one of each per rank" if R == 0 else
           "ddl.alltoallv: ranks disagree on the call: rank 0 could not make the call")
raises(lambda: ddl.alltoallv(np.zeros(P), [1] * P, [1] * P, out=np.zeros(P, dtype=np.float32)),
       ValueError, "ddl.alltoallv: out has dtype float, x double")
raises(lambda: ddl.alltoallv(np.zeros(P), [1.5] * P, [1] * P), TypeError,
       "ddl.alltoallv: send_counts must be a sequence of element counts (ints >= 0), one per "
       "rank")
raises(lambda: ddl.alltoallv(np.zeros(P), [1] * P, [1] * P, algo="alltoallv_bruck"), ValueError,
       "ddl.alltoallv: unknown all-to-all-v algorithm 'alltoallv_bruck' (known: "
       "alltoallv_pairwise, alltoallv_linear, alltoallv_hier)")
raises(lambda: ddl.alltoallv(bytearray(8 * P), [1] * P, [1] * P), TypeError,
       "ddl.alltoallv: pass out=... for x of type bytearray")

if failures:
    print("\n".join(failures), file=sys.stderr)
    sys.exit(1)
print(f"rank {R}: alltoallv exact")
