"""Times a model and each of its workload rows on this machine's CPU (python3 -m ddl.workload --measure).

The whole model: the median of `reps` forward passes and of `reps` forward + backward passes
(a sum of the outputs as the loss), after one warm-up each, at `batch` copies of the example
input; backward = the difference. Each row alone: its module run on the input it received in a
training forward pass (recorded by a forward pre-hook, with each input's requires_grad as it
was, so the first layer computes no input gradient), forward and backward (a gradient of ones)
timed separately, medians of `reps` after one warm-up. The rows' times do not add up to the
whole model's: activations, pooling, additions and softmax have no row.
"""
import statistics
import time

import torch


def output_tensor(output):
    if isinstance(output, torch.Tensor):
        return output
    if isinstance(output, (tuple, list)) and output and isinstance(output[0], torch.Tensor):
        return output[0]
    return None


def outputs_loss(output):
    tensors = [output] if isinstance(output, torch.Tensor) else [t for t in output if isinstance(t, torch.Tensor)]
    return sum(t.float().sum() for t in tensors)


def median_ms(run, reps):
    run()  # warm-up
    times = []
    for _ in range(reps):
        t = time.perf_counter()
        run()
        times.append((time.perf_counter() - t) * 1e3)
    return statistics.median(times)


def measure(model, rows, batch, reps):
    """Whole-model forward / backward ms and per-row (forward, backward) ms on this CPU at `batch`."""
    model.train()
    example = model.example_input
    x = example.repeat(batch, *[1] * (example.dim() - 1))
    forward = median_ms(lambda: model(x), reps)
    both = median_ms(lambda: outputs_loss(model(x)).backward(), reps)
    model.zero_grad(set_to_none=True)
    modules = dict(model.named_modules())
    modules["root"] = model
    captured, handles = {}, []
    for r in rows:
        def pre(mod, inputs, name=r.name):  # with each input's requires_grad of a training step
            captured.setdefault(name, tuple((t.detach().clone(), t.requires_grad) if isinstance(t, torch.Tensor)
                                            else (t, None) for t in inputs))
        handles.append(modules[r.name].register_forward_pre_hook(pre))
    model(x)
    for h in handles:
        h.remove()
    per_row = {}
    for r in rows:
        module, inputs = modules[r.name], captured.get(r.name)
        if inputs is None:
            per_row[r.name] = (0.0, 0.0)
            continue

        def fresh():
            return tuple(t.clone().requires_grad_(grad) if grad is not None else t for t, grad in inputs)

        f = median_ms(lambda: module(*fresh()), reps)
        backs = []
        for _ in range(reps + 1):
            out = output_tensor(module(*fresh()))
            if out is None or not out.requires_grad:
                break
            grad = torch.ones_like(out)
            t = time.perf_counter()
            out.backward(grad)
            backs.append((time.perf_counter() - t) * 1e3)
        module.zero_grad(set_to_none=True)
        per_row[r.name] = (f, statistics.median(backs[1:]) if len(backs) > 1 else 0.0)
    return forward, both - forward, per_row
