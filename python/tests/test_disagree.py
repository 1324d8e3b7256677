"""Ranks that call ddl.allreduce with different arguments (2 and 4 ranks): the last rank differs
in one thing at a time, and every rank must raise the one ValueError naming it, never crash
(1000 floats against 1e6 died of SIGBUS), hang or return a wrong result (op "sum" against "max"
returned one silently). A rank whose own arguments are refused raises its own error and the
others learn why. Matching calls before and after are exact.
"""

import unittest

import numpy as np
import torch

import ddl

TIMEOUT = 20.0  # a disagreement that went unnoticed fails within this, not at ctest's limit
P = ddl.size()
R = ddl.rank()
LAST = P - 1
ODD = R == LAST  # the rank that differs


def disagree(what):
    return rf"^ddl.allreduce: ranks disagree on the call: rank {LAST} has {what}$"


class Disagreements(unittest.TestCase):
    def expect(self, pattern, x, **kwargs):
        with self.assertRaisesRegex(ValueError, pattern):
            ddl.allreduce(x, **{"timeout": TIMEOUT, **kwargs})

    def test_count(self):
        for algo in ["auto", "direct", "ring", "rhd", "ddl"]:
            with self.subTest(algo=algo):
                x = np.zeros(1000000 if ODD else 1000, dtype=np.float32)
                self.expect(disagree("count 1000000, rank 0 has count 1000"), x, algo=algo)

    def test_dtype(self):
        x = np.zeros(1000, dtype=np.float64 if ODD else np.float32)
        self.expect(disagree("dtype double, rank 0 has dtype float"), x, algo="ring")

    def test_op(self):
        x = np.full(8, R + 1.0)
        self.expect(disagree("op max, rank 0 has op sum"), x, op="max" if ODD else "sum",
                    algo="ring")

    def test_algorithm(self):
        x = np.full(8, R + 1.0)
        self.expect(disagree("algorithm rhd, rank 0 has algorithm ring"), x,
                    algo="rhd" if ODD else "ring")

    def test_dims(self):
        x = np.full(8, R + 1.0)
        grid = f"1x{P}" if ODD else f"{P}x1"
        self.expect(disagree(f"dims 1x{P}, rank 0 has dims {P}x1"), x, algo="ddl", dims=grid)

    def test_torch_tensor(self):
        t = torch.zeros(16 if ODD else 4, dtype=torch.bfloat16)
        self.expect(disagree("count 16, rank 0 has count 4"), t, algo="ring")

    def test_refused_on_one_rank(self):
        # Refused in the compiled core (op) and in ddl/collectives.py (a tensor that needs grad).
        x = np.full(8, R + 1.0)
        why = r"unknown reduction op 'mean' \(expected sum, prod, min, max or avg\)"
        mine = "^ddl.allreduce: " + why if ODD else \
            rf"^ddl.allreduce: ranks disagree on the call: rank {LAST} could not make the call: {why}$"
        self.expect(mine, x, op="mean" if ODD else "sum", algo="ring")
        t = torch.zeros(4, requires_grad=ODD)
        why = "the tensor requires grad"
        mine = "^ddl.allreduce: " + why if ODD else \
            rf"^ddl.allreduce: ranks disagree on the call: rank {LAST} could not make the call: {why}"
        self.expect(mine, t, algo="ring")

    def tearDown(self):
        # After every disagreement the ranks are still in step: a matching call is exact.
        y = np.full(1027, R + 1, dtype=np.int64)
        ddl.allreduce(y, algo="auto", timeout=TIMEOUT)
        np.testing.assert_array_equal(y, np.full(1027, P * (P + 1) // 2))


if __name__ == "__main__":
    torch.set_num_threads(1)
    unittest.main(verbosity=2 if R == 0 else 0)
