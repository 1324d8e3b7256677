"""ddl's other collectives from Python under mpirun (2 and 3 ranks): every rank's result written
out by hand for numpy arrays and torch CPU tensors, every algorithm of each collective, and one
clear exception for a wrong algorithm, a root that is no rank and a root of the wrong type.

Rank r's element i is 100 r + i: each output element says which rank and element it came from.
"""

import unittest

import numpy as np
import torch

import ddl

TIMEOUT = 30.0
P = ddl.size()
R = ddl.rank()
PER = 3
COUNT = PER * P + 1  # alltoall: one element over count / p blocks, not sent
ROOT = P - 1


def mine(rank=R, dtype=np.float32):
    return (100 * rank + np.arange(COUNT)).astype(dtype)


def blocks():
    """Block r's range of COUNT elements split over P ranks (the first COUNT % P one longer)."""
    base, extra = divmod(COUNT, P)
    out, at = [], 0
    for r in range(P):
        n = base + (1 if r < extra else 0)
        out.append((at, at + n))
        at += n
    return out


class Collectives(unittest.TestCase):
    def run_all(self, coll, call, check, make=mine):
        """Every algorithm of `coll` on numpy float32 and torch int32 inputs make(R, dtype),
        checked by `check`."""
        for algo in ddl.algorithms(coll):
            with self.subTest(coll=coll, algo=algo, kind="numpy"):
                x = make(R, np.float32)
                self.assertIs(call(x, algo), x)
                check(x)
            with self.subTest(coll=coll, algo=algo, kind="torch"):
                t = torch.from_numpy(make(R, np.int32))
                self.assertIs(call(t, algo), t)
                check(t.numpy())

    def test_alltoall(self):
        def check(x):
            for i in range(PER * P):
                j, k = divmod(i, PER)
                self.assertEqual(x[i], 100 * j + R * PER + k)
            self.assertEqual(x[-1], 100 * R + COUNT - 1)  # not sent
        self.run_all("alltoall", lambda x, a: ddl.alltoall(x, algo=a, timeout=TIMEOUT), check)

    def test_sendrecv(self):
        def check(x):
            np.testing.assert_array_equal(x, mine((R - 1) % P))
        self.run_all("sendrecv", lambda x, a: ddl.sendrecv(x, algo=a, timeout=TIMEOUT), check)

    def test_reduce(self):
        def check(x):
            if R == ROOT:
                np.testing.assert_array_equal(x, sum(mine(r) for r in range(P)))
        self.run_all("reduce", lambda x, a: ddl.reduce(x, root=ROOT, algo=a, timeout=TIMEOUT),
                     check)

    def test_gather_scatter_broadcast(self):
        def gathered(x):
            if R == ROOT:
                for r, (lo, hi) in enumerate(blocks()):
                    np.testing.assert_array_equal(x[lo:hi], mine(r)[lo:hi])
        self.run_all("gather", lambda x, a: ddl.gather(x, root=ROOT, algo=a, timeout=TIMEOUT),
                     gathered)

        def scattered(x):
            lo, hi = blocks()[R]
            np.testing.assert_array_equal(x[lo:hi], mine(ROOT)[lo:hi])
        self.run_all("scatter", lambda x, a: ddl.scatter(x, root=ROOT, algo=a, timeout=TIMEOUT),
                     scattered)

        def broadcast(x):
            np.testing.assert_array_equal(x, mine(ROOT))
        self.run_all("broadcast",
                     lambda x, a: ddl.broadcast(x, root=ROOT, algo=a, timeout=TIMEOUT), broadcast)

    def test_reduce_scatter_allgather(self):
        def reduced(x):
            lo, hi = blocks()[R]
            np.testing.assert_array_equal(x[lo:hi], sum(mine(r) for r in range(P))[lo:hi])
        self.run_all("reduce_scatter",
                     lambda x, a: ddl.reduce_scatter(x, algo=a, timeout=TIMEOUT), reduced)

        def gathered(x):
            for r, (lo, hi) in enumerate(blocks()):
                np.testing.assert_array_equal(x[lo:hi], mine(r)[lo:hi])

        def own_block(rank, dtype):
            x = np.full(COUNT, -1, dtype=dtype)
            lo, hi = blocks()[rank]
            x[lo:hi] = mine(rank, dtype)[lo:hi]
            return x
        self.run_all("allgather", lambda x, a: ddl.allgather(x, algo=a, timeout=TIMEOUT),
                     gathered, own_block)

    def test_bad_inputs(self):
        x = mine()
        names = ", ".join(ddl.algorithms("alltoall"))
        with self.assertRaisesRegex(
                ValueError, rf"^ddl.alltoall: 'ring' is an allreduce algorithm, not an alltoall "
                rf"\(alltoall algorithms: {names}\)$"):
            ddl.alltoall(x, algo="ring", timeout=TIMEOUT)
        with self.assertRaisesRegex(ValueError, rf"^ddl.reduce: root {P} is not a rank \(0 \.\. {P - 1}\)$"):
            ddl.reduce(x, root=P, timeout=TIMEOUT)
        with self.assertRaisesRegex(TypeError, r"^ddl.gather: root must be an int \(a rank\), not bool$"):
            ddl.gather(x, root=True, timeout=TIMEOUT)
        with self.assertRaisesRegex(ValueError, r"^ddl.scatter: the array is read-only"):
            ro = mine()
            ro.flags.writeable = False
            ddl.scatter(ro, timeout=TIMEOUT)
        # After the refusals the ranks are still in step.
        y = mine()
        ddl.sendrecv(y, timeout=TIMEOUT)
        np.testing.assert_array_equal(y, mine((R - 1) % P))


if __name__ == "__main__":
    unittest.main()
