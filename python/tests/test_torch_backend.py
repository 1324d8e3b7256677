"""torch.distributed's backend "ddl" under mpirun (2 and 3 ranks), against gloo bitwise.

A plain torch.distributed program: the default group is init_process_group("ddl"), and a gloo
group over the same ranks (new_group(backend="gloo")) runs every operation on the same inputs;
each ddl result must equal gloo's bit for bit. Inputs: integer-valued float32 and int64 (exact
in any reduction order) and random float64 where no order is involved (moves, MIN, MAX, and
SUM of two ranks). Then subgroups (the even ranks) against a gloo subgroup of the same ranks,
send/recv in a ring, and each bad input raising its one message on every rank, the ranks still
in step afterwards. The rendezvous port is rank 0's free one, agreed with ddl.allreduce.
"""

import datetime
import unittest

import torch
import torch.distributed as dist

import ddl
import ddl.distributed
from ddl.torch import _free_port

TIMEOUT = 30.0
R, P = ddl.rank(), ddl.size()
_port = torch.tensor([_free_port("127.0.0.1") if R == 0 else 0], dtype=torch.int64)
ddl.allreduce(_port, op="max", algo="ring", timeout=TIMEOUT)
dist.init_process_group("ddl", init_method=f"tcp://127.0.0.1:{int(_port)}", rank=R, world_size=P,
                        timeout=datetime.timedelta(seconds=TIMEOUT))
GLOO = dist.new_group(backend="gloo")
EVEN = [r for r in range(P) if r % 2 == 0]  # {0} on 2 ranks, {0, 2} on 3
DDL_EVEN = dist.new_group(EVEN)
GLOO_EVEN = dist.new_group(EVEN, backend="gloo")
N = 6 * P  # elements per tensor: divisible by the group sizes


def data(kind, seed, n=N, rank=R):
    """Rank `rank`'s input: 'int' integer-valued float32 in [-3, 3], 'long' int64, 'double'
    random float64; different on every rank and for every seed."""
    g = torch.Generator().manual_seed(1000 * seed + rank)
    if kind == "int":
        return torch.randint(-3, 4, (n,), generator=g).to(torch.float32)
    if kind == "long":
        return torch.randint(-1000, 1000, (n,), generator=g)
    return torch.randn(n, generator=g, dtype=torch.float64)


KINDS = ["int", "long", "double"]
OPS = {"SUM": dist.ReduceOp.SUM, "PRODUCT": dist.ReduceOp.PRODUCT, "MIN": dist.ReduceOp.MIN,
       "MAX": dist.ReduceOp.MAX}


def order_free(kind, op, ranks=P):
    """Whether `op` over `ranks` ranks gives one result in any order for `kind`'s data."""
    return kind != "double" or op in ("MIN", "MAX") or (op == "SUM" and ranks <= 2)


def gloo_all_gather(t):
    """Every rank's `t`, gathered by gloo."""
    out = [torch.zeros_like(t) for _ in range(P)]
    dist.all_gather(out, t, group=GLOO)
    return out


class AgainstGloo(unittest.TestCase):
    def same(self, a, b, what):
        """Bitwise equality of two tensors (lists of tensors), naming `what` when they differ."""
        if isinstance(a, (list, tuple)):
            self.assertEqual(len(a), len(b), what)
            for i, (x, y) in enumerate(zip(a, b)):
                self.same(x, y, f"{what}[{i}]")
            return
        self.assertEqual(a.dtype, b.dtype, what)
        self.assertEqual(a.shape, b.shape, what)
        self.assertEqual(a.numpy().tobytes(), b.numpy().tobytes(), f"{what}: {a} != {b}")

    def both(self, call, *inputs, what):
        """call(group, *copies of inputs) on the ddl group and on gloo's; the results' equal."""
        results = []
        for group in (None, GLOO):
            copies = [x.clone() if torch.is_tensor(x) else [t.clone() for t in x] for x in inputs]
            call(group, *copies)
            results.append(copies)
        self.same(results[0], results[1], what)

    def test_all_reduce(self):
        for kind in KINDS:
            for name, op in OPS.items():
                if order_free(kind, name):
                    self.both(lambda g, t: dist.all_reduce(t, op=op, group=g), data(kind, 1),
                              what=f"all_reduce {kind} {name}")

    def test_all_reduce_avg(self):  # gloo has no AVG: against its SUM divided by the ranks
        t = data("int", 2)
        dist.all_reduce(t, op=dist.ReduceOp.AVG)
        expected = data("int", 2)
        dist.all_reduce(expected, group=GLOO)
        self.same(t, expected / P, "all_reduce AVG")

    def test_broadcast(self):
        for root in range(P):
            for kind in KINDS:
                self.both(lambda g, t: dist.broadcast(t, src=root, group=g), data(kind, 3),
                          what=f"broadcast {kind} root {root}")

    def test_reduce(self):
        for root in range(P):
            for kind in KINDS:
                for name, op in OPS.items():
                    if not order_free(kind, name):
                        continue
                    mine, ref = data(kind, 4), data(kind, 4)
                    dist.reduce(mine, dst=root, op=op)
                    dist.reduce(ref, dst=root, op=op, group=GLOO)
                    # gloo's non-root tensors are undefined; ddl's are left as they were
                    self.same(mine, ref if R == root else data(kind, 4),
                              f"reduce {kind} {name} root {root}")

    def test_all_gather(self):
        for kind in KINDS:
            self.both(lambda g, t, out: dist.all_gather(out, t, group=g), data(kind, 5),
                      [torch.zeros_like(data(kind, 5)) for _ in range(P)],
                      what=f"all_gather {kind}")
            out = torch.zeros(P * N, dtype=data(kind, 6).dtype)
            dist.all_gather_into_tensor(out, data(kind, 6))
            self.same(out, torch.cat(gloo_all_gather(data(kind, 6))),
                      f"all_gather_into_tensor {kind}")

    # gloo 1.13 has no reduce_scatter, all_to_all or all_gather_into_tensor: their references
    # are made of gloo's all_reduce and all_gather.
    def test_reduce_scatter(self):
        for kind in KINDS:
            for name, op in OPS.items():
                if not order_free(kind, name):
                    continue
                inputs = [data(kind, 7 + i) for i in range(P)]
                reference = torch.cat(inputs)
                dist.all_reduce(reference, op=op, group=GLOO)
                reference = reference.view(P, N)[R]
                out = torch.zeros(N, dtype=reference.dtype)
                dist.reduce_scatter(out, inputs, op=op)
                self.same(out, reference, f"reduce_scatter {kind} {name}")
                out = torch.zeros(N, dtype=reference.dtype)
                dist.reduce_scatter_tensor(out, torch.cat(inputs), op=op)
                self.same(out, reference, f"reduce_scatter_tensor {kind} {name}")

    def test_all_to_all(self):
        for kind in KINDS:
            x = data(kind, 9).view(P * 2, 3)  # 2 rows to each rank
            everyone = gloo_all_gather(x)
            reference = torch.cat([everyone[j].view(P, 2, 3)[R] for j in range(P)])
            for splits in (None, [2] * P):
                out = torch.zeros_like(x)
                dist.all_to_all_single(out, x, splits, splits)
                self.same(out, reference, f"all_to_all_single {kind}, splits {splits}")
            inputs = [data(kind, 10 + i) for i in range(P)]
            everyone = gloo_all_gather(torch.stack(inputs))
            outputs = [torch.zeros_like(inputs[0]) for _ in range(P)]
            dist.all_to_all(outputs, inputs)
            self.same(outputs, [everyone[j][R] for j in range(P)], f"all_to_all {kind}")

    def test_all_to_all_uneven(self):
        """Rank i sends rank j (i + j) % 3 rows (none for some pairs), as a mixture-of-experts
        layer routes tokens; gloo on the same inputs is the reference. A rank whose splits
        happen to be equal passes none."""
        def rows(i, j):
            return (i + j) % 3
        send = [rows(R, j) for j in range(P)]
        recv = [rows(i, R) for i in range(P)]
        for kind in KINDS:
            x = data(kind, 20, n=3 * sum(send)).view(sum(send), 3)
            expected = torch.zeros(sum(recv), 3, dtype=x.dtype)
            dist.all_to_all_single(expected, x, recv, send, group=GLOO)
            out = torch.zeros_like(expected)
            equal = len(set(send)) == 1 and len(set(recv)) == 1
            dist.all_to_all_single(out, x, None if equal else recv, None if equal else send)
            self.same(out, expected, f"all_to_all_single {kind}, rows {send} out, {recv} in")
            # gloo has no list form: its all_to_all_single of the concatenation is the reference.
            inputs = [data(kind, 30 + j, n=2 * rows(R, j)) for j in range(P)]
            flat = torch.zeros(2 * sum(recv), dtype=x.dtype)
            dist.all_to_all_single(flat, torch.cat(inputs), [2 * c for c in recv],
                                   [2 * c for c in send], group=GLOO)
            expected = list(flat.split([2 * c for c in recv]))
            outputs = [torch.zeros_like(t) for t in expected]
            dist.all_to_all(outputs, inputs)
            self.same(outputs, expected, f"all_to_all {kind}, unequal tensors")

    def test_gather_scatter(self):
        for root in range(P):
            for kind in KINDS:
                def gather(g, t, out):
                    dist.gather(t, out if R == root else None, dst=root, group=g)
                self.both(gather, data(kind, 11), [torch.zeros_like(data(kind, 11)) for _ in range(P)],
                          what=f"gather {kind} root {root}")

                def scatter(g, out, ins):
                    dist.scatter(out, ins if R == root else None, src=root, group=g)
                self.both(scatter, torch.zeros_like(data(kind, 12)),
                          [data(kind, 12 + i) for i in range(P)],
                          what=f"scatter {kind} root {root}")

    def test_send_recv_ring(self):
        # Send and recv complete inside the call: even ranks send first, odd ranks receive first.
        # 100000 elements: more than Open MPI sends eagerly, so a send waits for its recv.
        def ring(g, t, got):
            right, left = (R + 1) % P, (R - 1) % P
            if R % 2 == 0:
                dist.send(t, right, group=g, tag=7)
                dist.recv(got, left, group=g, tag=7)
            else:
                dist.recv(got, left, group=g, tag=7)
                dist.send(t, right, group=g, tag=7)

        for kind in KINDS:
            mine = data(kind, 13, n=100000)
            self.both(ring, mine, torch.zeros_like(mine), what=f"send/recv ring {kind}")
            got = torch.zeros_like(mine)
            ring(None, mine, got)
            self.same(got, data(kind, 13, n=100000, rank=(R - 1) % P), f"recv {kind}")

    def test_barrier(self):
        dist.barrier()
        dist.barrier(group=GLOO)

    def test_subgroup_of_even_ranks(self):
        if R not in EVEN:
            self.assertEqual(DDL_EVEN, dist.GroupMember.NON_GROUP_MEMBER)
            return
        self.assertEqual(dist.get_rank(DDL_EVEN), EVEN.index(R))
        self.assertEqual(dist.get_world_size(DDL_EVEN), len(EVEN))
        results = []
        for group in (DDL_EVEN, GLOO_EVEN):
            t = data("int", 14)
            dist.all_reduce(t, group=group)
            b = data("double", 15)
            dist.broadcast(b, src=EVEN[-1], group=group)  # global rank, as torch takes it
            out = [torch.zeros(N, dtype=torch.int64) for _ in EVEN]
            dist.all_gather(out, data("long", 16), group=group)
            results.append([t, b] + out)
        self.same(results[0], results[1], "even ranks' subgroup")
        if len(EVEN) > 1:  # send/recv between the subgroup's two members, by global rank
            other = EVEN[1] if R == EVEN[0] else EVEN[0]
            got = torch.zeros(N, dtype=torch.float64)
            if R == EVEN[0]:
                dist.send(data("double", 17), other, group=DDL_EVEN)
                dist.recv(got, other, group=DDL_EVEN)
            else:
                dist.recv(got, other, group=DDL_EVEN)
                dist.send(data("double", 17), other, group=DDL_EVEN)
            self.same(got, data("double", 17, rank=other), "subgroup recv")


class BadInputs(unittest.TestCase):
    def refused(self, call, message, error=ValueError):
        with self.assertRaises(error) as caught:
            call()
        self.assertIn(message, str(caught.exception))
        # The ranks are still in step: the next collective is exact.
        t = torch.full((4,), float(R + 1))
        dist.all_reduce(t)
        self.assertEqual(t.tolist(), [P * (P + 1) / 2] * 4)

    def test_layout(self):  # (CUDA tensors are refused the same way; torch here has no CUDA)
        self.refused(lambda: dist.all_reduce(torch.zeros(4).to_sparse()),
                     "all_reduce: the tensor has layout Sparse; the ddl backend takes dense "
                     "tensors")

    def test_not_contiguous(self):
        self.refused(lambda: dist.broadcast(torch.zeros(4, 2).t(), src=0),
                     "broadcast: the tensor is not contiguous (shape [2, 4], strides [1, 2])")

    def test_dtype(self):
        self.refused(lambda: dist.all_reduce(torch.zeros(4, dtype=torch.uint8)),
                     "all_reduce: the tensor has dtype Byte; the ddl backend takes Float, Double, "
                     "Half, BFloat16, Int and Long")

    def test_op(self):
        self.refused(lambda: dist.all_reduce(torch.zeros(4, dtype=torch.int64),
                                             op=dist.ReduceOp.BAND),
                     "all_reduce: ReduceOp BAND is not supported")

    def test_splits(self):
        # Rank 0 sends the last rank one row more than that rank expects from it.
        send = [1] * (P - 1) + [2 if R == 0 else 1]
        self.refused(lambda: dist.all_to_all_single(torch.zeros(P), torch.zeros(sum(send)),
                                                    [1] * P, send),
                     f"all_to_all_single: ranks disagree on the all-to-all-v counts: rank 0 sends "
                     f"2 elements to rank {P - 1}, which receives 1")
        self.refused(lambda: dist.all_to_all_single(torch.zeros(2 * P), torch.zeros(2 * P),
                                                    [2] * P, [1] * P),
                     f"all_to_all_single: the input's split sizes add up to {P} rows; its first "
                     f"dimension is {2 * P}")
        self.refused(lambda: dist.all_to_all_single(torch.zeros(2 * P + 1), torch.zeros(2 * P + 1)),
                     f"all_to_all_single: the input's first dimension ({2 * P + 1}) is not "
                     f"divisible by the group size ({P})")
        self.refused(lambda: dist.all_to_all([torch.zeros(1) for _ in range(P + 1)],
                                             [torch.zeros(1) for _ in range(P)]),
                     f"all_to_all: output tensors: {P + 1} tensors, expected {P} (one per rank "
                     f"of the group)")

    def test_any_source(self):
        self.refused(lambda: dist.recv(torch.zeros(4)),
                     "recv: receiving from any source (src=None) is not supported")

    def test_root(self):
        self.refused(lambda: dist.broadcast(torch.zeros(4), src=P),
                     f"broadcast: root {P} is not a rank of the group (0 .. {P - 1})")

    def test_one_rank_refused(self):  # the others learn of it at once, not at their timeout
        t = torch.zeros(4, 2).t() if R == 1 else torch.zeros(2, 4)
        self.refused(lambda: dist.all_reduce(t),
                     "the tensor is not contiguous" if R == 1 else
                     "all_reduce: ranks disagree on the call: rank 1 refused its arguments (its "
                     "own error says why)")

    def test_size_mismatch(self):
        self.refused(lambda: dist.all_reduce(torch.zeros(4 + (R == 1))),
                     "all_reduce: ranks disagree on the call: rank 1 has count 5, rank 0 has "
                     "count 4")


if __name__ == "__main__":
    unittest.main()
