"""Models built without their weights, on torch's meta device, and what real weights would need.

ddl.workload needs a model's structure (parameter counts, shapes, the order gradients become
ready), not its values: built on the meta device a 7-billion-parameter model takes a fraction of
a second and no memory, where its real weights (28 GB in float32) got the process killed. Only
--measure times real arithmetic; it first checks, from the meta build, that the weights and their
gradients fit in the memory available.

torch 1.13 has no `with torch.device("meta")`; `on_meta()` does what it does in later versions:
a TorchFunctionMode that gives the factory functions (torch.empty, torch.zeros, ...) the meta
device when the caller names none, so every layer's parameters are created there.
"""
import os

import torch
from torch.overrides import TorchFunctionMode

# The factory functions of torch 2.0's torch.utils._device._device_constructors() that 1.13 has.
_FACTORIES = {getattr(torch, name) for name in (
    "empty", "empty_strided", "empty_quantized", "ones", "arange", "bartlett_window", "blackman_window", "eye",
    "full", "hamming_window", "hann_window", "kaiser_window", "linspace", "logspace", "rand", "randn", "randint",
    "randperm", "range", "sparse_coo_tensor", "sparse_csr_tensor", "tril_indices", "triu_indices", "zeros",
    "asarray", "tensor", "as_tensor", "scalar_tensor") if hasattr(torch, name)}


class on_meta(TorchFunctionMode):
    """with on_meta(): model = make() -- the model's parameters and buffers on the meta device."""

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = dict(kwargs or {})
        if func in _FACTORIES and kwargs.get("device") is None:
            kwargs["device"] = "meta"
        return func(*args, **kwargs)


def is_meta(model):
    return any(t.is_meta for t in list(model.parameters()) + list(model.buffers()))


def weight_bytes(model):
    """(parameters, bytes of the parameters, bytes of the buffers), each tensor once."""
    params = {id(p): p for p in model.parameters()}.values()
    buffers = {id(b): b for b in model.buffers()}.values()
    return (sum(p.numel() for p in params), sum(p.numel() * p.element_size() for p in params),
            sum(b.numel() * b.element_size() for b in buffers))


def available_memory():
    """Bytes the kernel says a new allocation can take without swapping (MemAvailable), else the free pages."""
    try:
        with open("/proc/meminfo", encoding="ascii") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")


def too_large(model, gradients, why):
    """None when the real weights of `model` (a meta build) fit in the memory available, with their
    gradients when `gradients`; else the message saying what they would take and why they are needed."""
    params, param_bytes, buffer_bytes = weight_bytes(model)
    need = param_bytes * (2 if gradients else 1) + buffer_bytes
    available = available_memory()
    if need <= available:
        return None
    what = "weights and their gradients" if gradients else "weights"
    return (f"{why} needs the model's real {what}: {params:,} parameters, {need / 1e9:.1f} GB, more than the "
            f"{available / 1e9:.1f} GB of memory available (MemAvailable)")
