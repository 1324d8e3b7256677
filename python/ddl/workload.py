"""Writes a ddl training workload (format: workloads/README.md) from a torch model.

  python3 -m ddl.workload resnet50 -o workloads/resnet50.csv      a torchvision model (weights=None)
  python3 -m ddl.workload gpt2_small -o workloads/gpt2_small.csv  a model of ddl.models
  python3 -m ddl.workload mypkg.nets:make_net -o net.csv           any callable returning a module
  python3 -m ddl.workload resnet50 --measure -o r50_cpu.csv        with times measured on this CPU
  python3 -m ddl.workload small_gpt --layout tp=2,pp=2,dp=1,mb=4 --format chakra -o trace
      an LLM step of workloads/llm/models as Chakra traces, trace.RANK.et (ddl/workload_chakra.py)

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
import importlib
import math
import sys

import torch
from torch import nn

from ddl import models as ddl_models
from ddl import workload_chakra
from ddl.measure import measure
from ddl.meta import is_meta, on_meta, too_large
from ddl.progress import step
# The rows and the file, re-exported: tests and callers use ddl.workload's names.
from ddl.workload_file import (BACKWARD_TO_FORWARD, BUCKET_BYTES, FIRST_BUCKET_BYTES,  # noqa: F401
                               REFERENCE_GPU, RESNET50_BATCH, assumed_reference, ddl_buckets,
                               output_file, render)
from ddl.workload_layers import (MACS_COUNTED, NeedsWeights, ddp_parameters, extract, fail,  # noqa: F401
                                 gradient_ready_order, warn)


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


def main(argv):
    p = argparse.ArgumentParser(prog="python3 -m ddl.workload", description=__doc__.split("\n")[0],
                                epilog="Multiply-adds counted:\n" + MACS_COUNTED,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("model", help="a torchvision model name (resnet50), a ddl.models name "
                                 f"({', '.join(ddl_models.MODELS)}) or module:callable; with "
                                 "--format chakra an LLM of workloads/llm/models or a .json file")
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
    p.add_argument("--format", choices=["csv", "chakra"], default="csv",
                   help="csv: the training workload of a torch model (the default); chakra: an LLM "
                        "step of workloads/llm/models as Chakra traces, -o PREFIX.RANK.et per rank")
    p.add_argument("--layout", help="--format chakra: the parallel layout, tp=..,pp=..,dp=..,mb=.. "
                                    "(and ep, zero, sp, mbs, recompute)")
    a = p.parse_args(argv)
    if a.format == "chakra" or a.layout is not None:
        return chakra_main(a)
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


def chakra_main(a):
    """--format chakra: MODEL, --layout and -o only."""
    if a.layout is None:
        fail("--format chakra needs --layout (tp=..,pp=..,dp=..,mb=..): the traces are one step "
             "of a parallel layout")
    if a.format != "chakra":
        fail("--layout is for --format chakra (an LLM step's Chakra traces); the CSV workload "
             "of a torch model has no layout")
    csv_only = (("--name", a.name, None), ("--order", a.order, "registration"),
                ("--reference-iteration-ms", a.reference_iteration_ms, None),
                ("--reference-batch", a.reference_batch, None),
                ("--backward-to-forward", a.backward_to_forward, None), ("--measure", a.measure, False),
                ("--measure-batch", a.measure_batch, 2), ("--measure-reps", a.measure_reps, 5),
                ("--threads", a.threads, None))
    given = [flag for flag, value, default in csv_only if value != default]
    if given:
        fail(f"--format chakra takes MODEL, --layout and -o only, not {', '.join(given)}")
    if a.output == "-":
        fail("--format chakra writes files PREFIX.RANK.et: give -o PREFIX")
    workload_chakra.write(a.model, a.layout, a.output)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
