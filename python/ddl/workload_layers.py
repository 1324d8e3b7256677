"""The rows of a ddl training workload, read off a torch model (ddl.workload's first half).

A row per module that owns parameters, plus parameterless modules whose multiply-adds are
counted; parameters counted as DDP sees them; multiply-adds per sample from forward hooks
(MACS_COUNTED); rows in parameter registration order, forward-call order or gradient-ready order.
"""
import copy
import math
import sys

import torch
from torch import nn

from ddl import models as ddl_models
from ddl.measure import output_tensor, outputs_loss
from ddl.meta import is_meta

MACS_COUNTED = """\
convolution: (c_in / groups) x k_h x k_w per output element (no bias; transposed: per input element)
linear: in_features per output element (no bias)
batch norm, layer norm, group norm: one per output element (the affine a*x + b)
attention (DotProductAttention, nn.MultiheadAttention): q k^T and A v, 2 x T x S x d per sample;
  nn.MultiheadAttention adds its input and output projections
embedding: none (a lookup)
not counted: activations, pooling, softmax, dropout, residual additions, the loss"""


def fail(message):
    sys.exit(f"ddl.workload: error: {message}")


def warn(message):
    print(f"ddl.workload: {message}", file=sys.stderr)


_warned = set()


def warn_once(message):
    if message not in _warned:
        _warned.add(message)
        warn(message)


class Row:
    def __init__(self, name, kind, params, macs, first_call, key, tied):
        self.name, self.kind, self.params, self.macs = name, kind, params, macs
        self.first_call = first_call  # index of the forward pre-hook call, None if never called
        self.key = key  # index of the row's first parameter in ddp_parameters()
        self.tied = tied  # names of parameters used here but owned by an earlier module
        self.param_indices = []


def ddp_parameters(model):
    """(module name, parameter name, parameter) in the order DDP's _build_params_for_reducer lists them."""
    out, seen = [], set()
    for module_name, module in model.named_modules():
        for name, p in module.named_parameters(recurse=False):
            if p.requires_grad and id(p) not in seen:
                seen.add(id(p))
                out.append((module_name, name, p))
    return out


def macs_of(module, inputs, output):
    """(kind, multiply-adds of this call for the whole batch), or None for a type that is not counted."""
    out = output_tensor(output)
    if isinstance(module, nn.modules.conv._ConvNd):
        taps = math.prod(module.kernel_size)
        if module.transposed:
            return "conv", inputs[0].numel() * (module.out_channels // module.groups) * taps
        return "conv", out.numel() * (module.in_channels // module.groups) * taps
    if isinstance(module, nn.Linear):
        return "fc", out.numel() * module.in_features
    if isinstance(module, nn.modules.batchnorm._BatchNorm):
        return "bn", out.numel()
    if isinstance(module, (nn.LayerNorm, nn.GroupNorm, nn.modules.instancenorm._InstanceNorm)):
        return "ln" if isinstance(module, nn.LayerNorm) else "norm", out.numel()
    if isinstance(module, (nn.Embedding, nn.EmbeddingBag)):
        return "embedding", 0
    if isinstance(module, ddl_models.DotProductAttention):
        q, k, v = inputs[:3]
        s = k.shape[-2]
        return "attention", q.numel() * s + (q.numel() // q.shape[-1]) * s * v.shape[-1]
    if isinstance(module, nn.MultiheadAttention):
        if len(inputs) >= 2:
            q, k = inputs[0], inputs[1]
        else:  # called with keywords, which torch 1.13's hooks do not pass: assume self-attention
            q = k = out
            warn_once("nn.MultiheadAttention called with keyword arguments: counted as self-attention "
                      "(keys as many as queries)")
        if not module.batch_first and q.dim() == 3:
            q, k = q.transpose(0, 1), k.transpose(0, 1)
        n, t, e = q.shape[-3:] if q.dim() == 3 else (1, *q.shape)
        s = k.shape[-2]
        return "attention", n * ((t + 2 * s) * e * e + 2 * t * s * e + t * e * e)
    return None


def trace_forward(model, example):
    """Module name -> [first call index, multiply-adds summed over calls, kind or None]."""
    calls = {}
    handles = []
    for name, module in model.named_modules():
        def pre(mod, inputs, name=name):
            calls.setdefault(name, [len(calls), 0, None])

        def post(mod, inputs, output, name=name):
            counted = macs_of(mod, inputs, output)
            if counted is not None:
                calls[name][2] = counted[0]
                calls[name][1] += counted[1]

        handles += [module.register_forward_pre_hook(pre), module.register_forward_hook(post)]
    try:
        with torch.no_grad():
            model(example)
    finally:
        for h in handles:
            h.remove()
    return calls


class NeedsWeights(Exception):
    """The model, built on the meta device, has to be built with its weights to be walked."""


def shapes_pass(model):
    """trace_forward on the meta device (shapes only, instant), else on the CPU."""
    try:
        meta = model if is_meta(model) else copy.deepcopy(model).to("meta")
        return trace_forward(meta, model.example_input.to("meta"))
    except Exception as e:  # an operator without a meta kernel: run it for real
        if is_meta(model):
            raise NeedsWeights(f"its forward pass does not run on torch's meta device ({type(e).__name__}: {e})") \
                from e
        return trace_forward(model, model.example_input)


def extract(model, order="registration"):
    """The workload's rows of `model` (see the module docstring)."""
    batch = model.example_input.shape[0]
    calls = shapes_pass(model)
    params = ddp_parameters(model)
    index = {id(p): i for i, (_, _, p) in enumerate(params)}
    owned = {}
    for i, (module_name, _, p) in enumerate(params):
        owned.setdefault(module_name, []).append(i)
    mha = [n for n, m in model.named_modules() if isinstance(m, nn.MultiheadAttention)]
    rows = []
    for name, module in model.named_modules():
        mine = owned.get(name, [])
        call = calls.get(name)
        counted = call is not None and call[2] is not None
        if not mine and not (counted and call[1] > 0):
            continue
        label = name or "root"
        inside_mha = any(name.startswith(m + ".") for m in mha)  # its projections are the attention row's
        if mine and call is None and not inside_mha:
            warn(f"{label} is not called in the forward pass of the example input: 0 multiply-adds written")
        elif mine and not counted and not inside_mha:
            what = ("holds parameters of its own (used by its forward directly)" if any(module.children())
                    else "is a module type whose multiply-adds are not counted")
            warn(f"{label} ({type(module).__name__}) {what}: 0 multiply-adds written")
        kind = call[2] if counted else ("fc" if inside_mha and isinstance(module, nn.Linear)
                                        else "parameter" if any(module.children()) else type(module).__name__.lower())
        macs = call[1] if counted else 0
        if macs % batch:
            fail(f"{label}: {macs} multiply-adds do not divide by the example's batch {batch}")
        tied = [(f"{label}.{n}", ".".join(x for x in params[index[id(p)]][:2] if x))
                for n, p in module.named_parameters(recurse=False)
                if p.requires_grad and id(p) in index and index[id(p)] not in mine]
        row = Row(label, kind,
                  sum(params[i][2].numel() for i in mine), macs // batch,
                  call[0] if call else None, min(mine) if mine else None, tied)
        row.param_indices = mine
        rows.append(row)
    return order_rows(rows, order, model)


def order_rows(rows, order, model):
    ranked = [r for r in rows if r.params]
    if order == "registration":
        ranked.sort(key=lambda r: r.key)
    elif order == "forward":
        ranked.sort(key=lambda r: (r.first_call is None, r.first_call or 0, r.key))
    elif order == "ready":
        ready = {i: n for n, i in enumerate(gradient_ready_order(model))}
        never = len(ready)
        ranked.sort(key=lambda r: -min(ready.get(i, never) for i in r.param_indices))
    else:
        raise ValueError(f"unknown order '{order}'")
    placed = list(ranked)
    for r in sorted((r for r in rows if not r.params), key=lambda r: r.first_call):
        at = 0
        anchors = [n for n, x in enumerate(placed) if x.params and x.first_call is not None and x.first_call < r.first_call]
        if anchors:
            at = max(anchors, key=lambda n: placed[n].first_call) + 1
        while at < len(placed) and not placed[at].params and placed[at].first_call < r.first_call:
            at += 1
        placed.insert(at, r)
    return placed


def gradient_ready_order(model):
    """Indices into ddp_parameters() in the order one backward pass makes their gradients ready."""
    example = getattr(model, "short_input", model.example_input)
    if is_meta(model):
        example = example.to("meta")
    params = ddp_parameters(model)
    ready = []
    handles = [p.register_hook(lambda g, i=i: ready.append(i)) for i, (_, _, p) in enumerate(params)]
    try:
        model.train()
        try:
            outputs_loss(model(example)).backward()
        except Exception as e:
            if is_meta(model):
                raise NeedsWeights(f"its backward pass does not run on torch's meta device ({type(e).__name__}: {e})") \
                    from e
            raise
    finally:
        for h in handles:
            h.remove()
        model.zero_grad(set_to_none=True)
    seen = set()
    return [i for i in ready if not (i in seen or seen.add(i))]
