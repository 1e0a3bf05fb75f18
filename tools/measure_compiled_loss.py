#!/usr/bin/env python3
"""What torchtune's chunked cross-entropy keeps alive, eager and under torch.compile, on CPU.

torchtune's `CEWithChunkedOutputLoss` (torchtune/modules/loss/ce_chunked_output_loss.py @30b8519e)
takes the model's output as a list of `num_output_chunks` (8) bf16 logits chunks — the output
projection runs per chunk (`TransformerDecoder.chunked_output`) — and sums
`F.cross_entropy(logits_chunk.float(), labels_chunk, reduction="sum")` over them; with
`compile: True` the recipes compile that per-chunk function (`training.compile_loss`:
`loss.compute_cross_entropy = torch.compile(loss.compute_cross_entropy)`), and the recipe drops its
own reference to the logits list before `loss.backward()` (`del logits`).

This script runs exactly that — a bf16 hidden state, the chunked output projection, the chunked
loss, `del logits`, backward — under `torch.profiler.profile(profile_memory=True)`, which records
every CPU allocation and free, and reports, beyond the inputs (hidden state, head weight, labels):

- `loss_extra_bytes`: the most bytes live in the loss phase beyond the bf16 logits themselves
  (eager: each chunk's fp32 upcast and its saved fp32 log-softmax output, which stay saved for
  backward chunk after chunk; compiled: what Inductor's fused kernels and AOTAutograd's min-cut
  partitioner keep);
- `saved_after_loss_bytes`: live bytes after the loss beyond the logits (what is saved for
  backward besides them);
- `backward_peak_extra_bytes`: the most bytes live in backward beyond the logits' size.

Every figure is also given per logit element (bytes ÷ (tokens × vocab)), the unit the estimator
uses (crates/gpuplan-core/src/timeline.rs `loss_buffers`). Output: one JSON document
(validation/compiled-loss-measured.json), compared by crates/gpuplan-core/tests/compiled_loss.rs.

Usage: python tools/measure_compiled_loss.py > validation/compiled-loss-measured.json
"""
import gc
import json
import platform
import sys

import torch
import torch.nn.functional as F
from torch._C._profiler import _EventType
from torch.profiler import ProfilerActivity, profile, record_function

CHUNKS = 8
HIDDEN = 64
PHASES = ("forward", "loss", "backward")


def compute_cross_entropy(logits, labels):
    # torchtune CEWithChunkedOutputLoss.compute_cross_entropy @30b8519e
    return F.cross_entropy(logits.float(), labels, reduction="sum", ignore_index=-100)


def chunked_loss(ce, logits, labels):
    # torchtune CEWithChunkedOutputLoss.forward @30b8519e: the chunk references die with the call.
    n = labels.numel()
    labs = [t.reshape(-1) for t in labels.chunk(CHUNKS, dim=1)]
    flat = [t.reshape(-1, t.size(-1)) for t in logits]
    total = 0.0
    for lg, lb in zip(flat, labs):
        total = total + ce(lg, lb)
    return total / n


def step(ce, x, w, labels):
    with record_function("forward"):
        logits = [F.linear(c, w) for c in x.chunk(CHUNKS, dim=1)]
    with record_function("loss"):
        loss = chunked_loss(ce, logits, labels)
        del logits  # the recipe's `del logits` before backward
    with record_function("backward"):
        loss.backward()
    return float(loss)


def walk(nodes):
    for n in nodes:
        yield n
        yield from walk(n.children)


def phase_of(node):
    while node is not None and node.name not in PHASES:
        node = node.parent
    return node.name if node is not None else "outside"


def curve(prof):
    allocs = []
    for n in walk(prof.profiler.kineto_results.experimental_event_tree()):
        if n.typed[0] == _EventType.Allocation:
            allocs.append((n.start_time_ns, n.typed[1].alloc_size, phase_of(n)))
    allocs.sort(key=lambda a: a[0])
    live, peaks, end_of = 0, {}, {}
    for _, delta, phase in allocs:
        live += delta
        peaks[phase] = max(peaks.get(phase, 0), live)
        end_of[phase] = live
    return peaks, end_of


def measure(compiled, b, s, vocab):
    torch.manual_seed(0)
    ce = torch.compile(compute_cross_entropy) if compiled else compute_cross_entropy
    x = torch.randn(b, s, HIDDEN, dtype=torch.bfloat16, requires_grad=True)
    w = (torch.randn(vocab, HIDDEN, dtype=torch.bfloat16) * 0.02).requires_grad_(True)
    labels = torch.randint(0, vocab, (b, s))
    step(ce, x, w, labels)  # warm-up: compiles, creates .grad
    x.grad = None
    w.grad = None
    gc.collect()
    with profile(activities=[ProfilerActivity.CPU], profile_memory=True) as prof:
        step(ce, x, w, labels)
    peaks, end_of = curve(prof)
    logits = b * s * vocab * 2  # the bf16 chunks
    elems = b * s * vocab
    fwd_end = end_of.get("forward", 0)
    loss_extra = peaks.get("loss", 0) - fwd_end
    saved_after = end_of.get("loss", 0) - fwd_end
    # Backward allocates the input gradients (x.grad, w.grad) too: leave them out.
    grads = b * s * HIDDEN * 2 + vocab * HIDDEN * 2
    bwd_extra = peaks.get("backward", 0) - grads - logits
    row = {
        "compiled": compiled, "batch": b, "seq_len": s, "vocab": vocab, "chunks": CHUNKS,
        "logits_bytes": logits, "forward_end_bytes": fwd_end,
        "loss_extra_bytes": loss_extra, "saved_after_loss_bytes": saved_after,
        "backward_peak_extra_bytes": bwd_extra,
        "loss_extra_per_logit": loss_extra / elems,
        "saved_after_loss_per_logit": saved_after / elems,
        "backward_peak_extra_per_logit": bwd_extra / elems,
    }
    del prof
    gc.collect()
    return row


def main():
    torch.set_num_threads(2)
    rows = []
    for compiled in (False, True):
        for b, s, vocab in ((2, 256, 32000), (2, 512, 32000), (1, 512, 128256)):
            rows.append(measure(compiled, b, s, vocab))
            print(json.dumps(rows[-1]), file=sys.stderr)
    doc = {
        "generated_by": "tools/measure_compiled_loss.py",
        "torch": torch.__version__, "python": platform.python_version(),
        "what": "torchtune CEWithChunkedOutputLoss (8 bf16 logits chunks, per-chunk fp32 "
                "cross-entropy), eager and torch.compile'd per chunk, CPU allocation events",
        "rows": rows,
    }
    json.dump(doc, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main()
