#!/usr/bin/env python3
"""Per-kind host costs of eager PyTorch on this machine's CPU (issue 10, stop 35; the parts of an
eager training micro-batch's host time that tools/measure_dispatch.py counts but `host_op_seconds`
does not price: views, the autograd engine's per-node work, nn.Module calls).

Every figure is host time by construction: 1-8 element tensors on CPU, one thread, process time
(so other processes on a shared machine count little), best of 7 runs of N back-to-back calls.
- "py_op_s": torch.add(a, b) called from a Python loop (the dispatcher, the Python binding and a
  CPU kernel of 8 elements): the CPU twin of the CUDA figure `host_op_seconds` is sourced from.
- "py_view_s": a.view(8) from the same loop: a dispatch that makes a tensor and no kernel
  (on CUDA too: a view launches nothing).
- "node_s": the autograd engine's own work per backward node, nothing else: backward through a
  chain of N `y = y + 1.0` (AddBackward1 hands the gradient on unchanged and calls no aten op), the
  graph kept (retain_graph) and run again, time / N.
- "node_with_op_s": the same chain of `y = y * 2.0` (MulBackward1 calls one aten::mul from C++):
  node_with_op_s - node_s is one op dispatched from the engine's C++ (no Python binding).
- "module_call_s": nn.Module.__call__ around a forward that returns its input, less calling the
  forward directly: what the module machinery adds per call (torch 2.1's _call_impl, no hooks).
- "module_calls": nn.Module calls per decoder layer and micro-batch for the stacks of
  measure_dispatch.py (a global forward pre-hook counts them; 2 layers - 1 layer), the checkpoint's
  replay included.
- "binding_s": what a torch.add from Python costs outside its aten op (the Python call and argument
  parsing before the dispatcher): py_op_s less the median aten::add event under the profiler.
- "profiler_event_s": the profiler's own cost per recorded op (torch.add with and without it).
- "outside": per stack, the micro-batch's CPU time outside its top-level aten ops, per layer
  (3 layers - 1 layer, over 2) and fixed: the loop's process time less each top-level op's shortest
  duration over 10 profiled runs, less profiler_event_s per event nested in the ops, less binding_s
  per op Python called (the CUDA per-op figure holds the binding); "_uncorrected": without the two
  corrections, a lower bound. This is what train/dispatch.rs charges besides the ops.
- "loop_s": the whole micro-batch's CPU time per layer (Qwen (v1) LoRA, reentrant recompute) at
  three widths, and its intercept at zero width (least squares in hidden_size²): the tiny kernels'
  share is small at these widths (a cross-check, not an input).
The transfer to the CUDA machines of the published runs is an assumption stated where the figures
are used (docs/methodology.md, "Host dispatch floor"): a server CPU of the same era runs the same
C++ and Python at a like speed; nothing here measures a CUDA launch.

    /tmp/q/bin/python tools/measure_host_costs.py DIR > validation/host-costs-measured.json
(DIR and the venv as in measure_dispatch.py; the CPU model is read from /proc/cpuinfo; about 3 min.
Timings move between runs on a shared machine, about +-0.1 ms a layer in "outside"; the committed
file is one run, and crates/gpuplan-core/tests/host_dispatch.rs checks the Rust table against it.)
"""
import json
import platform
import sys
import time

import torch
from torch._C._profiler import _EventType
from torch.profiler import ProfilerActivity, profile

import measure_dispatch as md
from measure_qwen1 import load_qwen

N = 2000
RUNS = 7


def best(fn, n=N):
    """Best of RUNS: process time per call of `fn` run n times."""
    fn()
    out = []
    for _ in range(RUNS):
        t = time.process_time()
        for _ in range(n):
            fn()
        out.append((time.process_time() - t) / n)
    return min(out)


def per_node(step):
    """Engine time per node of a chain of N nodes made by `step`, run again with the graph kept."""
    x = torch.ones(8, requires_grad=True)
    y = x
    for _ in range(N):
        y = step(y)
    g = torch.ones(8)
    loss = y

    def back():
        torch.autograd.backward(loss, g, retain_graph=True)
    return best(back, n=20) / N


class Ident(torch.nn.Module):
    def forward(self, x):
        return x


def module_calls(build):
    """nn.Module calls per layer and micro-batch (2 layers - 1 layer)."""
    ids = torch.randint(0, 256, (1, md.SEQ), generator=torch.Generator().manual_seed(1))
    counts = []
    for layers in (1, 2):
        model = build(layers, False)
        n = [0]

        def hook(_m, _a):
            n[0] += 1
        h = torch.nn.modules.module.register_module_forward_pre_hook(hook)
        try:
            with torch.autocast("cpu", dtype=torch.bfloat16):
                loss = model(input_ids=ids, labels=ids).loss
            loss.backward()
        finally:
            h.remove()
        counts.append(n[0])
    return counts[1] - counts[0]


def top_durations(prof):
    """The top-level aten ops of a profiled micro-batch in tree order: (wall duration in s, the
    profiler events nested in it, whether Python called it rather than the autograd engine)."""
    out = []

    def events(node):
        return 1 + sum(events(ch) for ch in node.children if ch.typed[0] == _EventType.TorchOp)

    def visit(node, engine):
        if node.typed[0] != _EventType.TorchOp:
            return
        if node.name.startswith("aten::"):
            out.append((node.duration_time_ns * 1e-9, events(node) - 1, not engine))
            return
        if node.name.startswith("autograd::engine::evaluate_function"):
            # A reentrant checkpoint's backward is Python (it replays the forward from Python);
            # every other node of these stacks is the engine's C++.
            engine = not node.name.endswith("CheckpointFunctionBackward")
        for ch in node.children:
            visit(ch, engine)

    for r in prof.profiler.kineto_results.experimental_event_tree():
        visit(r, False)
    return out


def profiler_event_s():
    """The profiler's own cost per recorded op: torch.add from Python under the profiler less
    without it."""
    a = torch.ones(8)
    with profile(activities=[ProfilerActivity.CPU]):
        on = best(lambda: torch.add(a, a), n=500)
    return on - best(lambda: torch.add(a, a), n=500)


def binding_s():
    """What a torch.add from Python costs outside its aten op: the Python call and argument parsing
    before the dispatcher (in the CUDA per-op figure too, so not charged again): py_op_s less the
    median duration of the aten::add events of 2000 such calls under the profiler (best of 5)."""
    a = torch.ones(8)
    med = []
    for _ in range(5):
        with profile(activities=[ProfilerActivity.CPU]) as p:
            for _ in range(2000):
                torch.add(a, a)
        d = sorted(e.duration_time_ns for e in p.profiler.kineto_results.experimental_event_tree()
                   if e.name == "aten::add")
        med.append(d[len(d) // 2] * 1e-9)
    return best(lambda: torch.add(a, a)) - min(med)


def outside_s(model, costs, runs=10, reps=10):
    """CPU time of one micro-batch spent outside the top-level aten ops: the micro-batch's process
    time (best of RUNS x reps) less the ops' own time under the profiler (each op's shortest duration
    over `runs` profiled micro-batches, so a descheduled op counts its best), the profiler's own cost
    per event nested in them taken off the ops, and the Python binding of each op Python called taken
    off the rest (the CUDA per-op figure holds it). Returns (loop, outside with these corrections,
    outside without them: a lower bound, top-level ops Python called)."""
    ids = torch.randint(0, 256, (1, md.SEQ), generator=torch.Generator().manual_seed(1))

    def mb():
        with torch.autocast("cpu", dtype=torch.bfloat16):
            loss = model(input_ids=ids, labels=ids).loss
        loss.backward()
    loop = best(mb, n=reps)
    durs = None
    for _ in range(runs):
        with profile(activities=[ProfilerActivity.CPU]) as prof:
            mb()
        d = top_durations(prof)
        durs = d if durs is None else [(min(a[0], b[0]), a[1], a[2]) for a, b in zip(durs, d)]
    ops = sum(d for d, _, _ in durs)
    ops_own = ops - costs["profiler_event_s"] * sum(n for _, n, _ in durs)
    py_ops = sum(1 for _, _, py in durs if py)
    return loop, loop - ops_own - py_ops * costs["binding_s"], loop - ops, py_ops


def outside_per_layer(build, costs):
    """Seconds outside the ops per layer (3 layers - 1 layer, over 2) and the fixed rest (the
    profiler's cost taken off the ops; "_uncorrected": not, a lower bound); with the whole
    micro-batch's CPU time per layer beside it."""
    one = outside_s(build(1, False), costs)
    three = outside_s(build(3, False), costs)
    lay = (three[1] - one[1]) / 2
    low = (three[2] - one[2]) / 2
    return {"outside_per_layer_s": lay, "outside_fixed_s": one[1] - lay,
            "outside_per_layer_uncorrected_s": low, "outside_fixed_uncorrected_s": one[2] - low,
            "loop_per_layer_s": (three[0] - one[0]) / 2, "python_ops_per_layer": (three[3] - one[3]) / 2}


def loop_s(classes):
    """CPU time per layer of the Qwen LoRA recompute micro-batch at three widths, and the zero-width
    intercept of a least-squares line in hidden_size²."""
    widths = (64, 128, 256)
    pts = []
    for h in widths:
        wide = dict(hidden_size=h, num_attention_heads=h // 16, intermediate_size=h * 3 // 2)
        saved = md.WIDE
        md.WIDE = wide
        try:
            s = md.cpu_seconds_per_layer(lambda n, w: md.qwen_model(classes, n, md.QWEN_LORA, True, True), reps=10)
        finally:
            md.WIDE = saved
        pts.append((h * h, s))
    xs, ys = [p[0] for p in pts], [p[1] for p in pts]
    mx, my = sum(xs) / 3, sum(ys) / 3
    slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)
    return {"widths": list(widths), "seconds_per_layer": ys, "intercept_s": my - slope * mx}


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor()


def main():
    torch.set_num_threads(1)
    a, b = torch.ones(8), torch.ones(8)
    ident = Ident()
    out = {
        "head": {"torch": torch.__version__, "cpu": cpu_model(), "python": platform.python_version(),
                 "threads": 1, "calls": N, "runs": RUNS},
        "py_op_s": best(lambda: torch.add(a, b)),
        "py_view_s": best(lambda: a.view(8)),
        "node_s": per_node(lambda y: y + 1.0),
        "node_with_op_s": per_node(lambda y: y * 2.0),
        "module_call_s": best(lambda: ident(a)) - best(lambda: ident.forward(a)),
    }
    out["profiler_event_s"] = profiler_event_s()
    out["binding_s"] = binding_s()
    classes = load_qwen(sys.argv[1])
    out["module_calls"], out["outside"] = {}, {}
    for name, fam, targets, rc in md.STACKS:
        if fam == "qwen":
            lora = targets and dict(md.QWEN_LORA, target_modules=targets)
            build = (lambda lo, r: lambda n, w: md.qwen_model(classes, n, lo, r, w))(lora, rc)
        else:
            lora = targets and dict(md.LLAMA_LORA, target_modules=targets)
            build = (lambda lo, r: lambda n, w: md.llama_model(n, lo, r, w))(lora, rc)
        out["module_calls"][name] = module_calls(build)
        out["outside"][name] = outside_per_layer(build, out)
        print(name, out["module_calls"][name], out["outside"][name], file=sys.stderr, flush=True)
    if "--no-loop" not in sys.argv:
        out["loop_s"] = loop_s(classes)
    json.dump(out, sys.stdout, indent=1, sort_keys=True)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
