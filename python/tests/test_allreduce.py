"""ddl.allreduce under mpirun (2 and 4 ranks): exact results for every dtype x op on numpy
arrays and torch CPU tensors, every algorithm, in place on the caller's memory, and one clear
exception for each bad input.

Inputs are small integers (1..3), so every sum, product (<= 3^4), min, max and the averages
(sums divided by 2 or 4) are exact in every element type in any reduction order: the expected
values are exact too. Integer avg truncates toward zero, as ddl's divide does.
"""

import sys
import unittest

import numpy as np
import torch

import ddl

TIMEOUT = 30.0  # a rank that falls out of step fails within this, not at ctest's limit
P = ddl.size()
R = ddl.rank()
COUNT = 2 * P + 3  # more elements than ranks, not a multiple of them
NUMPY_DTYPES = [np.float32, np.float64, np.float16, np.int32, np.int64]
TORCH_DTYPES = [torch.float32, torch.float64, torch.float16, torch.bfloat16, torch.int32,
                torch.int64]
OPS = ["sum", "prod", "min", "max", "avg"]
IN_SWITCH = ["nvls", "sharp", "nvls_sharp"]  # need switches that reduce: the simulator's


def inputs(rank):
    """Rank `rank`'s input as exact int64 values 1..3."""
    return 1 + (np.arange(COUNT, dtype=np.int64) + rank) % 3


def expected(op, integer):
    everyone = np.stack([inputs(r) for r in range(P)])
    if op == "sum":
        return everyone.sum(axis=0).astype(np.float64)
    if op == "prod":
        return everyone.prod(axis=0).astype(np.float64)
    if op == "min":
        return everyone.min(axis=0).astype(np.float64)
    if op == "max":
        return everyone.max(axis=0).astype(np.float64)
    total = everyone.sum(axis=0)
    return (total // P if integer else total / P).astype(np.float64)


class ExactResults(unittest.TestCase):
    def test_numpy_every_dtype_and_op(self):
        for dtype in NUMPY_DTYPES:
            for op in OPS:
                with self.subTest(dtype=np.dtype(dtype).name, op=op):
                    x = inputs(R).astype(dtype)
                    ddl.allreduce(x, op=op, timeout=TIMEOUT)
                    self.assertEqual(x.dtype, np.dtype(dtype))
                    integer = np.issubdtype(dtype, np.integer)
                    np.testing.assert_array_equal(x.astype(np.float64), expected(op, integer))

    def test_torch_every_dtype_and_op(self):
        for dtype in TORCH_DTYPES:
            for op in OPS:
                with self.subTest(dtype=str(dtype), op=op):
                    t = torch.from_numpy(inputs(R)).to(dtype)
                    ddl.allreduce(t, op=op, timeout=TIMEOUT)
                    self.assertEqual(t.dtype, dtype)
                    integer = not dtype.is_floating_point
                    np.testing.assert_array_equal(t.double().numpy(), expected(op, integer))

    def test_every_algorithm(self):
        self.assertEqual(ddl.algorithms(), ["direct", "ring", "ddl", "rhd", "rd", "dbtree", "hier", "nvls",
                                            "sharp", "nvls_sharp", "native", "auto"])
        for algo in ddl.algorithms():
            if algo in IN_SWITCH:
                continue  # test_in_switch_refused
            with self.subTest(algo=algo):
                x = inputs(R).astype(np.float32)
                ddl.allreduce(x, algo=algo, timeout=TIMEOUT)
                np.testing.assert_array_equal(x, expected("sum", False))

    def test_in_switch_refused(self):
        for algo in IN_SWITCH:
            with self.subTest(algo=algo):
                x = inputs(R).astype(np.float32)
                with self.assertRaisesRegex(ValueError, rf"{algo}: this backend has no in-switch reduction"):
                    ddl.allreduce(x, algo=algo, timeout=TIMEOUT)

    def test_dims_as_string_and_sequence(self):
        grids = ["1x2", (2, 1)] if P == 2 else ["2x2", (2, 2), [4], "1x4x1"]
        grids.append(np.array([P]))  # numpy integers count as ints
        for dims in grids:
            with self.subTest(dims=dims):
                x = inputs(R).astype(np.float64)
                ddl.allreduce(x, op="max", algo="ddl", dims=dims, timeout=TIMEOUT)
                np.testing.assert_array_equal(x, expected("max", False))

    def test_multidimensional_and_empty(self):
        x = np.full((3, 4), R + 1, dtype=np.int32)
        ddl.allreduce(x, timeout=TIMEOUT)
        np.testing.assert_array_equal(x, np.full((3, 4), P * (P + 1) // 2))
        empty = np.zeros(0, dtype=np.float32)
        self.assertIs(ddl.allreduce(empty, timeout=TIMEOUT), empty)


class InPlaceWithoutCopies(unittest.TestCase):
    """The result lands in the caller's memory: a contiguous slice of a larger array (a view at an
    offset) changes inside the base array, and nothing outside the slice is touched."""

    def test_numpy_view_of_a_larger_array(self):
        base = np.full(10, 100.0 + R, dtype=np.float32)
        base[2:6] = R + 1
        view = base[2:6]
        self.assertIs(ddl.allreduce(view, timeout=TIMEOUT), view)
        np.testing.assert_array_equal(base[2:6], np.full(4, P * (P + 1) / 2))
        np.testing.assert_array_equal(base[:2], [100.0 + R] * 2)
        np.testing.assert_array_equal(base[6:], [100.0 + R] * 4)

    def test_torch_view_of_a_larger_tensor(self):
        base = torch.full((10,), 100.0 + R, dtype=torch.float64)
        base[2:6] = R + 1
        view = base[2:6]
        self.assertIs(ddl.allreduce(view, timeout=TIMEOUT), view)
        self.assertEqual(base.tolist(), [100.0 + R] * 2 + [P * (P + 1) / 2] * 4 + [100.0 + R] * 4)

    def test_torch_tensor_shared_with_numpy(self):
        t = torch.full((5,), float(R + 1))
        shared = t.numpy()  # the same memory
        ddl.allreduce(shared, timeout=TIMEOUT)
        self.assertEqual(t.tolist(), [P * (P + 1) / 2] * 5)


def read_only():
    x = np.zeros(4, dtype=np.float32)
    x.flags.writeable = False
    return x


F32 = np.zeros(4, dtype=np.float32)

# (exception, message pattern, input, keyword arguments): one row per bad input.
BAD_NUMPY = [
    (ValueError, r"^ddl.allreduce: the array is not contiguous \(shape \(4\), strides \(8\) bytes\)",
     np.zeros(8, dtype=np.float32)[::2], {}),
    (ValueError, r"not contiguous \(shape \(3, 2\), strides \(16, 4\) bytes\)",
     np.zeros((3, 4), dtype=np.float32)[:, :2], {}),
    (ValueError, r"^ddl.allreduce: the array is read-only", read_only(), {}),
    (ValueError, r"the array is read-only", b"abcd", {}),
    (TypeError, r"^ddl.allreduce: unsupported element type \(buffer format 'B', 1 bytes",
     np.zeros(4, dtype=np.uint8), {}),
    (TypeError, r"unsupported element type \(buffer format 'h'", np.zeros(4, dtype=np.int16), {}),
    (TypeError, r"unsupported element type \(buffer format '\?'", np.zeros(4, dtype=np.bool_), {}),
    (TypeError, r"unsupported element type \(buffer format 'Zf'", np.zeros(4, dtype=np.complex64), {}),
    (TypeError, r"unsupported element type \(buffer format 'L'", np.zeros(4, dtype=np.uint64), {}),
    (TypeError, r"unsupported element type \(buffer format '>f'", np.zeros(4, dtype=">f4"), {}),
    (TypeError, r"^ddl.allreduce: expected a numpy array, a torch CPU tensor or another "
     r"writable buffer, got list", [1.0, 2.0], {}),
]
BAD_TORCH = [
    (ValueError, r"^ddl.allreduce: the tensor is not contiguous \(shape \(3, 2\), strides \(1, 3\)",
     torch.zeros(2, 3).t(), {}),
    (ValueError, r"^ddl.allreduce: the tensor requires grad", torch.zeros(3, requires_grad=True), {}),
    (TypeError, r"^ddl.allreduce: unsupported dtype torch.int8", torch.zeros(3, dtype=torch.int8), {}),
    (TypeError, r"unsupported dtype torch.complex64", torch.zeros(3, dtype=torch.complex64), {}),
    (ValueError, r"layout is torch.sparse_coo", torch.zeros(3).to_sparse(), {}),
]
BAD_ARGUMENTS = [
    (ValueError, r"^ddl.allreduce: unknown reduction op 'mean' \(expected sum, prod, min, max or "
     r"avg\)", F32, {"op": "mean"}),
    (ValueError, r"^ddl.allreduce: unknown algorithm 'nope' \(known: direct, ring, ddl", F32, {"algo": "nope"}),
    (ValueError, r"'broadcast_chain' is a broadcast algorithm, not an allreduce \(allreduce "
     r"algorithms: direct, ring, ddl, rhd, rd, dbtree, hier, nvls, sharp, nvls_sharp, native, auto\)", F32,
     {"algo": "broadcast_chain"}),
    (ValueError, rf"^ddl.allreduce: dims '3x3' describe 9 ranks but there are {P}", F32,
     {"dims": "3x3"}),
    (ValueError, rf"dims '5' describe 5 ranks but there are {P}", F32, {"dims": [5]}),
    (ValueError, r"^ddl.allreduce: bad dims '2xq'", F32, {"dims": "2xq"}),
    (ValueError, r"^ddl.allreduce: dims: every dimension must be >= 1, got 0", F32, {"dims": (0, 2)}),
    (ValueError, r"dims: at least one dimension is needed", F32, {"dims": ()}),
    (TypeError, r"^ddl.allreduce: dims must be None, a string such as '2x2' or a sequence of "
     r"ints such as \(2, 2\), not float", F32, {"dims": 2.5}),
    (TypeError, r"every entry of dims must be an int, got '2'", F32, {"dims": ["2"]}),
    (TypeError, r"every entry of dims must be an int, got True", F32, {"dims": [True]}),
    (ValueError, r"^ddl.allreduce: dims entry 4294967296 is out of range", F32, {"dims": [2**32]}),
    (TypeError, r"^ddl.allreduce: op must be a string such as 'sum', not int", F32, {"op": 1}),
    (TypeError, r"algo must be a string", F32, {"algo": None}),
    (ValueError, r"^ddl.allreduce: timeout must be a positive number of seconds, got 0.0", F32,
     {"timeout": 0}),
    (ValueError, r"timeout must be a positive number of seconds, got inf", F32,
     {"timeout": float("inf")}),
    (TypeError, r"timeout must be a number of seconds, not str", F32, {"timeout": "5"}),
]


class BadInputs(unittest.TestCase):
    """Each raises on every rank after the ranks have compared the call (so they stay in step)."""

    def check(self, table):
        for error, pattern, x, kwargs in table:
            with self.subTest(pattern=pattern):
                with self.assertRaisesRegex(error, pattern):
                    ddl.allreduce(x, **{"timeout": TIMEOUT, **kwargs})

    def test_numpy_inputs(self):
        self.check(BAD_NUMPY)

    def test_refused_arrays_are_released(self):
        # A refused buffer is released: the array is left without the reference the export took.
        for x in [np.zeros(8, dtype=np.float32)[::2], read_only()]:
            before = sys.getrefcount(x)
            with self.assertRaises(ValueError):
                ddl.allreduce(x, timeout=TIMEOUT)
            self.assertEqual(sys.getrefcount(x), before)

    def test_torch_inputs(self):
        self.check(BAD_TORCH)

    def test_arguments(self):
        self.check(BAD_ARGUMENTS)
        # After all of these, the ranks are still in step.
        y = np.full(3, 1.0)
        ddl.allreduce(y, timeout=TIMEOUT)
        np.testing.assert_array_equal(y, [P] * 3)


class TorchHookArguments(unittest.TestCase):
    def test_bad_state(self):
        import ddl.torch

        with self.assertRaisesRegex(ValueError, r"^ddl.torch.HookState: unknown algorithm 'nope' "
                                    r"\(known: direct, ring, ddl, rhd, rd, dbtree, hier, nvls, sharp, "
                                    r"nvls_sharp, native, auto\)"):
            ddl.torch.HookState(algo="nope")
        with self.assertRaisesRegex(TypeError, r"^ddl.torch.allreduce_hook: state must be a "
                                    r"ddl.torch.HookState or None, not str"):
            ddl.torch.allreduce_hook("ddl", None)


if __name__ == "__main__":
    torch.set_num_threads(1)
    unittest.main(verbosity=2 if R == 0 else 0)
