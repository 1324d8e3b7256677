"""ddl.allreduce and the other collectives: the Python face of the compiled core ddl._ddl.

numpy arrays (and any writable buffer-protocol object) go to the core through the buffer
protocol; torch CPU tensors by address (data_ptr) and element count, after the checks below.
Either way the collective runs on the caller's memory: nothing is copied.
"""

import sys

try:
    from ddl import _ddl
except ImportError as e:  # pragma: no cover - depends on how ddl was built
    raise ImportError(
        "ddl's compiled core (ddl._ddl) is not importable: build it (cmake --build BUILD "
        "--target ddl_python; needs MPI, python3-dev and pybind11-dev) and put BUILD/python "
        f"on PYTHONPATH, or install ddl ({e})"
    ) from e

DEFAULT_TIMEOUT = 300.0  # seconds any single wait may take (as ddlrun's --timeout)

# torch dtype name -> ddl's element type name (algorithms/types.hpp).
_TORCH_DTYPES = {
    "torch.float32": "float32",
    "torch.float64": "float64",
    "torch.float16": "float16",
    "torch.bfloat16": "bfloat16",
    "torch.int32": "int32",
    "torch.int64": "int64",
}


def rank():
    """This process's rank in MPI_COMM_WORLD (MPI is initialised on first use)."""
    return _ddl.rank()


def size():
    """The number of ranks in MPI_COMM_WORLD."""
    return _ddl.size()


def algorithms(coll="allreduce"):
    """The algorithm names `algo` accepts for a collective: allreduce ('ring', 'ddl', ...,
    'auto'), reduce_scatter, allgather, broadcast, alltoall, reduce, gather, scatter, sendrecv."""
    return list(_ddl.algorithms(coll))


def _name(x):
    return type(x).__name__


def _is_torch_tensor(x):
    torch = sys.modules.get("torch")  # never import torch for a numpy caller
    return torch is not None and isinstance(x, torch.Tensor)


def _tensor_arguments(t, function, writes=True):
    """The address, element count and ddl dtype name of a torch tensor ddl can reduce in place
    (or, writes=False, read from: it may then require grad)."""
    if t.device.type != "cpu":
        raise ValueError(
            f"{function}: the tensor is on {t.device}; ddl's Python module reduces CPU tensors "
            "(host memory) only"
        )
    if t.layout is not sys.modules["torch"].strided:
        raise ValueError(
            f"{function}: the tensor's layout is {t.layout}; pass a dense (strided) tensor"
        )
    if not t.is_contiguous():
        raise ValueError(
            f"{function}: the tensor is not contiguous (shape {tuple(t.shape)}, strides "
            f"{t.stride()} elements); the result is written in place, so pass a contiguous "
            "tensor (t.contiguous(), then copy the result back)"
        )
    if writes and t.requires_grad:
        raise ValueError(
            f"{function}: the tensor requires grad, and an in-place change would bypass "
            "autograd; pass t.detach() (the same memory)"
        )
    dtype = _TORCH_DTYPES.get(str(t.dtype))
    if dtype is None:
        raise TypeError(
            f"{function}: unsupported dtype {t.dtype}; ddl reduces "
            + ", ".join(_TORCH_DTYPES)
        )
    return t.data_ptr(), t.numel(), dtype


def _check_arguments(function, op, algo, root, timeout):
    if not isinstance(op, str):
        raise TypeError(f"{function}: op must be a string such as 'sum', not {_name(op)}")
    if not isinstance(algo, str):
        raise TypeError(f"{function}: algo must be a string such as 'ddl', not {_name(algo)}")
    if isinstance(root, bool) or not isinstance(root, int):
        raise TypeError(f"{function}: root must be an int (a rank), not {_name(root)}")
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)):
        raise TypeError(f"{function}: timeout must be a number of seconds, not {_name(timeout)}")


def _check_group(function, group):
    if group is not None and not isinstance(group, _ddl.Group):
        raise TypeError(
            f"{function}: group must be None (every rank) or a group from ddl.split, not "
            f"{_name(group)}"
        )


def split(color, key=None, group=None, timeout=DEFAULT_TIMEOUT):
    """A group of ranks, as MPI_Comm_split: every rank of `group` (None: every rank) calls it;
    those passing the same color form a group, ranked by key (default: their rank in `group`),
    then by that rank. A negative color returns None (the rank joins no group). Pass the group
    to any collective (group=...): it then runs among the group's ranks only, with the group's
    ranks as root and blocks, and by default on the group's own grid (its ranks per node x
    nodes). A tensor-parallel and a data-parallel group of a 2 x 2 layout:

        tp = ddl.split(ddl.rank() // 2)      # ranks {0, 1} and {2, 3}
        dp = ddl.split(ddl.rank() % 2)       # ranks {0, 2} and {1, 3}
        ddl.allreduce(x, group=tp)
    """
    _check_group("ddl.split", group)
    for name, value in (("color", color), ("key", key)):
        if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
            raise TypeError(f"ddl.split: {name} must be an int, not {_name(value)}")
    if key is None:
        key = group.rank if group is not None else rank()
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)):
        raise TypeError(f"ddl.split: timeout must be a number of seconds, not {_name(timeout)}")
    return _ddl._split(group, color, key, float(timeout))


def _run(coll, x, op, algo, root, dims, timeout, group):
    """Every collective's way in: checks here, then the core's own, the ranks' agreement, the run."""
    function = f"ddl.{coll}"
    _check_group(function, group)
    if algo is None and coll != "allreduce":  # allreduce's default is "ddl", None is refused
        algo = algorithms(coll)[0]
    try:
        _check_arguments(function, op, algo, root, timeout)
        tensor = _tensor_arguments(x, function) if _is_torch_tensor(x) else None
    except (TypeError, ValueError) as e:
        # The other ranks are in the call already: they learn why this one is not.
        bound = timeout if isinstance(timeout, (int, float)) and not isinstance(timeout, bool) else 0
        _ddl._refuse(str(e), float(bound), group)
        raise
    if tensor is not None:
        _ddl._collective_address(*tensor, coll, op, algo, root, dims, float(timeout), group)
    else:
        _ddl._collective_buffer(x, coll, op, algo, root, dims, float(timeout), group)
    return x


def allreduce(x, op="sum", algo="ddl", dims=None, timeout=DEFAULT_TIMEOUT, group=None):
    """Reduce x over every rank of MPI_COMM_WORLD, in place, and return x.

    x       a numpy array, a torch CPU tensor or another writable buffer: contiguous, of dtype
            float32, float64, float16, int32 or int64 (torch also bfloat16), the same shape
            and dtype on every rank
    op      "sum", "prod", "min", "max" or "avg"
    algo    an allreduce algorithm: "ddl", "ring", "rhd", "dbtree", "hier", "native"
            (MPI_Allreduce) or "auto" (the fastest measured on these ranks, cached per
            machine: real/README.md) (ddl.algorithms())
    dims    the logical grid, innermost first: "2x2" or (2, 2); None is ranks-per-node x nodes
    timeout seconds any single wait may take; a rank that waits longer raises TimeoutError
    group   None (every rank) or a group from ddl.split: the collective runs among its ranks

    Every rank must call it with the same arguments (it is a collective), and the ranks check
    that they did before any data moves: where a rank's count, dtype, op, algo or dims differ,
    or its arguments were refused, every rank raises (ValueError "ranks disagree on the call:
    rank 1 has count 8, rank 0 has count 4"; the refused rank its own error). Raises ValueError
    (unknown op or algo, bad dims, read-only or non-contiguous input, ranks that disagree),
    TypeError (unsupported dtype or object), TimeoutError, or RuntimeError (an MPI failure).
    """
    return _run("allreduce", x, op, algo, 0, dims, timeout, group)


# The other collectives, in place on x as with MPI_IN_PLACE, p ranks, block r = rank r's share
# of x's elements (split into p blocks, the first len % p one element longer). Each takes the
# same x, dims and timeout as allreduce, is checked across the ranks the same way, and returns
# x; algo=None runs the collective's first algorithm (ddl.algorithms(coll) lists them).


def reduce_scatter(x, op="sum", algo=None, dims=None, timeout=DEFAULT_TIMEOUT, group=None):
    """Rank r's block r ends with the reduction of every rank's block r (other bytes undefined)."""
    return _run("reduce_scatter", x, op, algo, 0, dims, timeout, group)


def allgather(x, algo=None, dims=None, timeout=DEFAULT_TIMEOUT, group=None):
    """Block r of rank r is its input; every rank ends with every block."""
    return _run("allgather", x, "sum", algo, 0, dims, timeout, group)


def broadcast(x, root=0, algo=None, dims=None, timeout=DEFAULT_TIMEOUT, group=None):
    """Every rank ends with the root's x."""
    return _run("broadcast", x, "sum", algo, root, dims, timeout, group)


def alltoall(x, algo=None, dims=None, timeout=DEFAULT_TIMEOUT, group=None):
    """Blocks of len(x) // p elements: block j of rank r goes to block r of rank j (the last
    len(x) % p elements stay as they are)."""
    return _run("alltoall", x, "sum", algo, 0, dims, timeout, group)


def reduce(x, root=0, op="sum", algo=None, dims=None, timeout=DEFAULT_TIMEOUT, group=None):
    """The root ends with the reduction over ranks (the others' x: undefined)."""
    return _run("reduce", x, op, algo, root, dims, timeout, group)


def gather(x, root=0, algo=None, dims=None, timeout=DEFAULT_TIMEOUT, group=None):
    """Block r of rank r is its input; the root ends with every block."""
    return _run("gather", x, "sum", algo, root, dims, timeout, group)


def scatter(x, root=0, algo=None, dims=None, timeout=DEFAULT_TIMEOUT, group=None):
    """Rank r's block r ends with the root's block r."""
    return _run("scatter", x, "sum", algo, root, dims, timeout, group)


def sendrecv(x, algo=None, dims=None, timeout=DEFAULT_TIMEOUT, group=None):
    """Every rank sends x to rank r+1 and ends with rank r-1's (mod p)."""
    return _run("sendrecv", x, "sum", algo, 0, dims, timeout, group)


def alltoallv(x, send_counts, recv_counts, out=None, algo="alltoallv_pairwise",
              timeout=DEFAULT_TIMEOUT, group=None):
    """All-to-all with a count per rank (MPI_Alltoallv), as a mixture-of-experts layer routes
    tokens: x holds send_counts[j] elements for rank j, packed in rank order; returns `out`
    (by default a new array or tensor of x's kind and dtype, sum(recv_counts) elements) holding
    recv_counts[i] elements from rank i, packed likewise. Counts are in elements, one per rank
    of the group. Rank i's send_counts[j] must be rank j's recv_counts[i]: the ranks check that
    (and the call, as every collective) before any data moves, and every rank raises
    ValueError "ranks disagree on the all-to-all-v counts: rank 2 sends 5 elements to rank 0,
    which receives 4" otherwise. algo: "alltoallv_pairwise" (p-1 steps, one peer each way per
    step), "alltoallv_linear" (every peer at once) or "alltoallv_hier" (in the node, then one
    step per other node along the rails, on the group's node grid).
    """
    function = "ddl.alltoallv"
    _check_group(function, group)
    try:
        if not isinstance(algo, str):
            raise TypeError(f"{function}: algo must be a string such as 'alltoallv_pairwise', "
                            f"not {_name(algo)}")
        if isinstance(timeout, bool) or not isinstance(timeout, (int, float)):
            raise TypeError(f"{function}: timeout must be a number of seconds, not "
                            f"{_name(timeout)}")
        counts = []
        for name, value in (("send_counts", send_counts), ("recv_counts", recv_counts)):
            if isinstance(value, (str, bytes)) or not hasattr(value, "__len__") or any(
                    isinstance(c, bool) or not isinstance(c, int) or c < 0 for c in value):
                raise TypeError(f"{function}: {name} must be a sequence of element counts "
                                f"(ints >= 0), one per rank, not {value!r}")
            counts.append([int(c) for c in value])
        if out is None:
            out = _new_like(x, sum(counts[1]), function)
        if _is_torch_tensor(x):
            x_arg = _tensor_arguments(x, function, writes=False)
        else:
            x_arg = x
        out_arg = _tensor_arguments(out, function) if _is_torch_tensor(out) else out
    except (TypeError, ValueError) as e:
        bound = timeout if isinstance(timeout, (int, float)) and not isinstance(timeout, bool) else 0
        _ddl._refuse(str(e), float(bound), group)
        raise
    _ddl._alltoallv(x_arg, out_arg, counts[0], counts[1], algo, float(timeout), group)
    return out


def _new_like(x, count, function):
    """An empty one-dimensional array (numpy) or tensor (torch) of x's dtype and `count` elements."""
    if _is_torch_tensor(x):
        return x.new_empty(count)
    numpy = sys.modules.get("numpy")
    if numpy is not None and isinstance(x, numpy.ndarray):
        return numpy.empty(count, dtype=x.dtype)
    raise TypeError(f"{function}: pass out=... for x of type {_name(x)} (a new output is made "
                    "for numpy arrays and torch tensors only)")
