"""Writes a ddl training workload (format: workloads/README.md) from a torch model.

  python3 -m ddl.workload resnet50 -o workloads/resnet50.csv      a torchvision model (weights=None)
  python3 -m ddl.workload gpt2_small -o workloads/gpt2_small.csv  a model of ddl.models
  python3 -m ddl.workload mypkg.nets:make_net -o net.csv           any callable returning a module
  python3 -m ddl.workload resnet50 --measure -o r50_cpu.csv        with times measured on this CPU

A row per module that owns parameters, plus parameterless modules whose multiply-adds are
counted (attention scores, an output projection tied to an embedding). Parameters are counted
as DDP sees them: the parameters of model.named_modules() that require gradients, each once
(a tied weight belongs to the first module that registers it). Multiply-adds per sample come
from forward hooks: the module type and the shapes it saw (MACS_COUNTED says what is counted).

Order: rows are written in the registration order of the parameters (model.parameters(), each
row placed by its first parameter), the order the file format asks for; ddl's driver visits them
in reverse, which is the order DDP assumes gradients become ready and buckets them in. A
parameterless row goes right after the parametered row called last before it in the forward
pass. --order forward sorts by forward-call order instead; --order ready runs one backward pass
and writes the rows so that their reverse is the order the gradients became ready (what DDP rebuilds its
buckets from after the first iteration).

A module:callable may return a module or (module, example_input); an example input of batch 1
(one sample) is read from the module's `example_input` attribute, else it is an image,
1 x 3 x 224 x 224.

The model is built on torch's meta device (ddl/meta.py): shapes, counts and the gradient order
need no weights, so a model of billions of parameters takes no memory. --measure builds it again
with its weights, after checking that they and their gradients fit in the memory available; so
does a model whose forward pass does not run on the meta device. The file is written all or
nothing, never over a file that is there when the run fails (platforms/output_file.py).
"""
import argparse
import copy
import importlib
import importlib.util
import math
import os
import sys

import torch
from torch import nn

from ddl import models as ddl_models
from ddl.measure import measure, output_tensor, outputs_loss
from ddl.meta import is_meta, on_meta, too_large
from ddl.progress import step

try:  # platforms/output_file.py, which python/CMakeLists.txt stages and installs as ddl/_output_file.py
    from ddl import _output_file as output_file
except ImportError:  # the source tree (PYTHONPATH=python): the file itself, beside python/
    _spec = importlib.util.spec_from_file_location("ddl._output_file", os.path.join(
        os.path.dirname(os.path.abspath(__file__)), os.pardir, os.pardir, "platforms", "output_file.py"))
    output_file = importlib.util.module_from_spec(_spec)
    _spec.loader.exec_module(output_file)

MACS_COUNTED = """\
convolution: (c_in / groups) x k_h x k_w per output element (no bias; transposed: per input element)
linear: in_features per output element (no bias)
batch norm, layer norm, group norm: one per output element (the affine a*x + b)
attention (DotProductAttention, nn.MultiheadAttention): q k^T and A v, 2 x T x S x d per sample;
  nn.MultiheadAttention adds its input and output projections
embedding: none (a lookup)
not counted: activations, pooling, softmax, dropout, residual additions, the loss"""

# ResNet-50 on one P100, fp32, 32 images: about 120 ms of backprop (Goyal et al. 2017, section 5),
# 180 ms forward + backward with backward = 2 x forward (as workloads/generate.py).
RESNET50_ITERATION_MS = 180.0
RESNET50_BATCH = 32
RESNET50_MACS = 4_100_298_240
BACKWARD_TO_FORWARD = 2.0
# The GPU of the assumed times: name, peak fp32 TFLOP/s, memory GB/s (NVIDIA P100 SXM2 datasheet).
REFERENCE_GPU = ("P100", "10.6", "732")
FIRST_BUCKET_BYTES, BUCKET_BYTES = 1 << 20, 25 << 20  # DDP's defaults (and ddl's)


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


# ---------------------------------------------------------------------------------------------
# models


def model_factory(spec):
    """A function that builds the model a command-line name stands for."""
    if ":" in spec:
        module_name, _, attr = spec.partition(":")
        try:
            factory = getattr(importlib.import_module(module_name), attr)
        except (ImportError, AttributeError) as e:
            fail(f"cannot load '{spec}': {e}")

        def made():
            model = factory()
            if isinstance(model, tuple):
                model, example = model
                model.example_input = example
            return model

        return made
    if spec in ddl_models.MODELS:
        return lambda: ddl_models.build(spec)
    import torchvision.models

    factory = getattr(torchvision.models, spec, None)
    if not callable(factory) or spec.startswith("_") or spec[0].isupper():
        fail(f"unknown model '{spec}': neither ddl.models ({', '.join(ddl_models.MODELS)}), "
             "a torchvision model function (resnet50, vgg16, ...) nor module:callable")
    return lambda: factory(weights=None)


def resolve(spec, meta=False):
    """The model a command-line name stands for, with example_input, sample_unit, reference_batch;
    with `meta`, built on the meta device (no weights) unless the model cannot be built there."""
    factory = model_factory(spec)
    model = None
    if meta:
        torch.manual_seed(0)  # a factory that draws its shapes draws the same ones in both builds
        try:
            with on_meta():
                model = factory()
        except Exception as e:  # a constructor that needs real values (.item() of a tensor)
            warn(f"'{spec}' cannot be built on torch's meta device ({type(e).__name__}: {e}); "
                 "building it with its weights")
    if model is None:
        torch.manual_seed(0)  # and the weights --measure times on are the same on every run
        with step("ddl.workload", f"building {spec} with its weights"):
            model = factory()
    if not isinstance(model, nn.Module):
        fail(f"'{spec}' did not give a torch.nn.Module")
    if getattr(model, "example_input", None) is None:
        model.example_input = torch.zeros(1, 3, 224, 224)
    if not hasattr(model, "sample_unit"):
        model.sample_unit = "image" if model.example_input.dim() == 4 else "sample"
    if not hasattr(model, "reference_batch"):
        model.reference_batch = RESNET50_BATCH
    return model


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


def ddl_buckets(rows, first=FIRST_BUCKET_BYTES, cap=BUCKET_BYTES, bytes_per_param=4):
    """Bucket sizes in bytes as ddl's plan_iteration (workloads/workload.cpp) forms them from rows."""
    out, filled = [], 0
    for n, r in enumerate(reversed(rows)):
        filled += r.params * bytes_per_param
        if (filled >= (first if not out else cap) or n + 1 == len(rows)) and filled:
            out.append(filled)
            filled = 0
    return out


# ---------------------------------------------------------------------------------------------
# the file


def render(model_name, model, rows, spec, order, reference, measured=None, reference_gpu=None):
    params = sum(r.params for r in rows)
    macs = sum(r.macs for r in rows)
    ms, batch, ratio, source = reference
    unit = model.sample_unit
    shape = "x".join(str(d) for d in model.example_input.shape[1:])
    lines = [
        f"# ddl workload {model_name}: per layer parameters and forward multiply-adds per {unit}.",
        f"# Generated by `python3 -m ddl.workload {spec}` (python/ddl/workload.py, torch {torch.__version__})",
        "# from forward hooks on the torch model; format in workloads/README.md.",
        f"# {model_name}: {len(rows)} layers, {params} parameters, {macs / 1e9:.3f} G multiply-adds per {unit} (input {shape}).",
        f"# Rows in {order} order; ddl (and DDP) bucket the gradients in reverse row order.",
    ]
    lines += [f"# tied: {used} is {owner}, counted once, in the row of its owner" for r in rows for used, owner in r.tied]
    lines += [f"# reference time: {source}"]
    times = {}
    if measured:
        forward, backward, per_row, threads, reps = measured
        f_rows = sum(v[0] for v in per_row.values())
        b_rows = sum(v[1] for v in per_row.values())
        lines += [
            f"# measured whole model: forward {forward:.3f} ms, backward {backward:.3f} ms",
            f"# measured layers alone (each on its recorded input) sum to forward {f_rows:.3f} ms, backward {b_rows:.3f} ms;",
            "# the rest is in operations without a row (activations, pooling, additions, softmax):",
            "# forward_ms and backward_ms are each layer's own time scaled so the rows sum to the whole",
            "# model's (the operations without a row charged to the layers in proportion to their time).",
        ]
        # A pass no layer was seen to take time in (all 0) falls back to equal shares.
        for r in rows:
            f = per_row[r.name][0] * forward / f_rows if f_rows > 0 else forward / len(rows)
            b = per_row[r.name][1] * backward / b_rows if b_rows > 0 else backward / len(rows)
            times[r.name] = (f, b)
    lines += [
        f"# model = {model_name}",
        f"# reference_batch = {batch}",
        f"# reference_iteration_ms = {ms}",
        f"# backward_to_forward = {ratio}",
    ]
    # What one sample is (ddlsim's throughput column) and the GPU assumed times are for (ddlsim
    # scales them to the platform's); images and, for assumed times, a P100 are the defaults the
    # reader takes, written out for the models whose sample is not an image.
    if unit.startswith("sequence"):
        lines.append("# sample = sequences")
        if reference_gpu:
            lines += [f"# reference_gpu = {reference_gpu[0]}",
                      f"# reference_gpu_fp32_tflops = {reference_gpu[1]}",
                      f"# reference_gpu_memory_gbs = {reference_gpu[2]}"]
    lines += [
        f"# total_params = {params}",
        f"# total_forward_macs = {macs}",
        "layer,kind,params,forward_macs" + (",forward_ms,backward_ms" if times else ""),
    ]
    if times:
        lines += [f"{r.name},{r.kind},{r.params},{r.macs},{times[r.name][0]:.6f},{times[r.name][1]:.6f}" for r in rows]
    else:
        lines += [f"{r.name},{r.kind},{r.params},{r.macs}" for r in rows]
    return "\n".join(lines) + "\n"


def assumed_reference(model_name, macs, batch, unit):
    if model_name == "resnet50" and batch == RESNET50_BATCH:
        return (f"{RESNET50_ITERATION_MS:.1f}", batch, f"{BACKWARD_TO_FORWARD:g}",
                "Goyal et al. 2017 (arXiv 1706.02677, section 5): about 120 ms of backprop per 32 images on a P100, "
                "with backward = 2 x forward (assumed)")
    ms = RESNET50_ITERATION_MS * macs * batch / (RESNET50_MACS * RESNET50_BATCH)
    return (f"{ms:.1f}", batch, f"{BACKWARD_TO_FORWARD:g}",
            f"assumed: ResNet-50's {RESNET50_ITERATION_MS:g} ms per {RESNET50_BATCH} images on a P100 "
            f"(Goyal et al. 2017) scaled by forward multiply-adds x batch ({batch} x {unit}), "
            "the same time per multiply-add; backward = 2 x forward")


def main(argv):
    p = argparse.ArgumentParser(prog="python3 -m ddl.workload", description=__doc__.split("\n")[0],
                                epilog="Multiply-adds counted:\n" + MACS_COUNTED,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("model", help="a torchvision model name (resnet50), a ddl.models name "
                                 f"({', '.join(ddl_models.MODELS)}) or module:callable")
    p.add_argument("-o", "--output", default="-", help="output file, '-' for stdout (the default)")
    p.add_argument("--name", help="the workload's model name (default: the model argument)")
    p.add_argument("--order", choices=["registration", "forward", "ready"], default="registration",
                   help="row order (default: registration order of the parameters)")
    p.add_argument("--reference-iteration-ms", type=float, help="forward + backward ms of one reference batch on one GPU")
    p.add_argument("--reference-batch", type=int, help="samples per GPU the reference time is for")
    p.add_argument("--backward-to-forward", type=float, help=f"backward / forward time (default {BACKWARD_TO_FORWARD:g})")
    p.add_argument("--measure", action="store_true", help="time the model and each layer on this CPU and write those times")
    p.add_argument("--measure-batch", type=int, default=2, help="samples per measured run (default 2)")
    p.add_argument("--measure-reps", type=int, default=5, help="runs per median (default 5, after one warm-up)")
    p.add_argument("--threads", type=int, help="torch CPU threads for --measure")
    a = p.parse_args(argv)
    for flag in ("reference_iteration_ms", "backward_to_forward"):
        if getattr(a, flag) is not None and not (0 < getattr(a, flag) < math.inf):
            fail(f"--{flag.replace('_', '-')} must be a positive finite number")
    if a.reference_batch is not None and a.reference_batch < 1 or a.measure_batch < 1 or a.measure_reps < 1:
        fail("batches and reps must be at least 1")
    if a.measure and (a.reference_iteration_ms or a.reference_batch or a.backward_to_forward):
        fail("--measure writes the measured reference; it takes no --reference-* or --backward-to-forward")
    try:  # before any work: a file that cannot be written
        output_file.check_writable(a.output)
    except output_file.OutputError as e:
        fail(str(e))
    name = a.name or (a.model.partition(":")[2] if ":" in a.model else a.model)
    if not name or any(c in name for c in ", \t"):
        fail(f"model name '{name}' must be non-empty without commas or blanks (give --name)")
    model = resolve(a.model, meta=True)
    if a.measure and is_meta(model):  # refused up front, from the meta build's parameter count
        problem = too_large(model, True, "--measure")
        if problem:
            fail(f"{problem}: measure a smaller model, or write the workload without --measure")
    try:
        with step("ddl.workload", f"walking {a.model}"):
            rows = extract(model, a.order)
    except NeedsWeights as e:
        problem = too_large(model, False, f"'{a.model}' ({e})")
        if problem:
            fail(problem)
        warn(f"'{a.model}': {e}; building it with its weights")
        model = resolve(a.model)
        with step("ddl.workload", f"walking {a.model}"):
            rows = extract(model, a.order)
    if not rows or not sum(r.macs for r in rows):
        fail("the model has no counted multiply-adds")
    if a.order == "registration":
        forward = sorted((r for r in rows if r.params and r.first_call is not None), key=lambda r: r.first_call)
        if [r.name for r in forward] != [r.name for r in rows if r.params and r.first_call is not None]:
            warn("the forward pass calls the layers in another order than they register their parameters; "
                 "DDP rebuilds its buckets after the first iteration in the order gradients became ready "
                 "(--order ready writes that order)")
    macs = sum(r.macs for r in rows)
    measured = None
    if a.measure:
        if a.threads:
            torch.set_num_threads(a.threads)
        if is_meta(model):  # the same model (the same names), now with the weights it is timed on
            model = resolve(a.model)
        with step("ddl.workload", f"measuring {a.model} on this CPU"):
            forward, backward, per_row = measure(model, rows, a.measure_batch, a.measure_reps)
        measured = (forward, backward, per_row, torch.get_num_threads(), a.measure_reps)
        reference = (f"{forward + backward:.3f}", a.measure_batch, f"{backward / forward:.3f}",
                     f"measured on this machine's CPU: torch {torch.__version__}, threads {torch.get_num_threads()}, "
                     f"batch {a.measure_batch}, median of {a.measure_reps} runs after one warm-up")
    else:
        batch = a.reference_batch or model.reference_batch
        reference = assumed_reference(name, macs, batch, model.sample_unit)
        if a.reference_iteration_ms or a.backward_to_forward:
            reference = (f"{a.reference_iteration_ms:g}" if a.reference_iteration_ms else reference[0], batch,
                         f"{a.backward_to_forward:g}" if a.backward_to_forward else reference[2],
                         "given on the command line" if a.reference_iteration_ms else reference[3])
    # Assumed times are a P100's; measured ones and ones given on the command line are not.
    assumed = measured is None and not a.reference_iteration_ms
    text = render(name, model, rows, a.model, a.order, reference, measured,
                  REFERENCE_GPU if assumed else None)
    try:
        output_file.write_text(a.output, text)
    except output_file.OutputError as e:
        fail(str(e))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
