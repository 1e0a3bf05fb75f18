#!/usr/bin/env python3
"""Measure the memory PEAK of LitGPT's own LoRA fine-tuning loop, exactly, on CPU.

The published LitGPT peaks (cases/mem-litgpt-*) are `torch.cuda.max_memory_allocated()` at the
end of `litgpt/finetune/lora.py`. This script runs that loop's code, from the LitGPT source at the
config-hub commit (00af8b0d, Sep 2024), on a tiny randomly initialised Llama-shaped model, and
counts every byte with the profiler's memory events, as tools/measure_peak.py does for HF models.

The loop body is copied from litgpt/finetune/lora.py `fit()` @00af8b0d lines 299-313:

    logits = model(input_ids, lm_head_chunk_size=128)
    logits[-1] = logits[-1][..., :-1, :]
    loss = chunked_cross_entropy(logits, targets[..., 1:])
    fabric.backward(loss / accumulation)            # plain loss.backward() on one device
    if not is_accumulating: optimizer.step(); optimizer.zero_grad()

`logits` and `loss` stay bound between iterations (they are loop locals), so the previous
micro-batch's logits are live during the next forward: that is measured, not assumed.
`validate()` (full-vocabulary logits, no chunking, under no_grad) is measured too, with the
training loop's leftovers live, because `max_memory_allocated` covers it.

    git -C <litgpt checkout> archive 00af8b0d9b43eaa3f8c812e3e8bd53ef38cbb49d litgpt | tar -x -C /tmp/lg
    pip install torch==2.4.1 lightning==2.4.0 jsonargparse   # CPU is enough
    PYTHONPATH=/tmp/lg python3 tools/measure_litgpt.py > validation/litgpt-measured.json
    git -C <litgpt checkout> archive 8641822b3249bb94f068c254aa5d13decbc9f0a0 lit_gpt | tar -x -C /tmp/lg_old
    PYTHONPATH=/tmp/lg_old python3 tools/measure_litgpt.py --old > validation/litgpt-old-measured.json

Output rows are checked by crates/gpuplan-core/tests/measured_litgpt.rs.
"""
import contextlib
import gc
import json
import sys

import torch
from torch._C._profiler import _EventType
from torch.profiler import ProfilerActivity, profile, record_function

# LitGPT at the config-hub commit (package `litgpt`, 00af8b0d, Sep 2024) or, with `--old`, lit-gpt
# at the resource-table commit (package `lit_gpt`, 8641822, Oct 2023): the two versions the
# published peaks were measured with. Their config names differ; the loop is the same.
OLD = "--old" in sys.argv
if OLD:
    import lit_gpt as litgpt
    from lit_gpt.lora import GPT, Config, mark_only_lora_as_trainable
    from lit_gpt.model import GPT as PlainGPT
    from lit_gpt.config import Config as PlainConfig
    from lit_gpt.utils import chunked_cross_entropy

    COMMIT = "8641822b3249bb94f068c254aa5d13decbc9f0a0"
else:
    import litgpt
    from litgpt.lora import GPT, Config, mark_only_lora_as_trainable
    from litgpt.model import GPT as PlainGPT
    from litgpt.config import Config as PlainConfig
    from litgpt.utils import chunked_cross_entropy

    COMMIT = "00af8b0d9b43eaa3f8c812e3e8bd53ef38cbb49d"

CHUNK = 128  # lm_head_chunk_size in fit()

# Llama-3.2-1B ratios, scaled down: vocab/hidden 64 (1B: 62.6), 4 query heads per KV group
# (1B: 32/8), intermediate 4x hidden (1B: 8192/2048), untied LM head (LitGPT builds its own).
SHAPES = {
    "llama-gqa": dict(n_embd=256, n_head=8, n_query_groups=2, intermediate_size=1024,
                      padded_vocab_size=16384, vocab_size=16384),
    # Llama-2-7B ratios: MHA (no KV expansion), vocab/hidden 8 (7B: 32000/4096), intermediate 2.7x.
    "llama-mha": dict(n_embd=512, n_head=8, n_query_groups=8, intermediate_size=1376,
                      padded_vocab_size=4096, vocab_size=4096),
}
COMMON = dict(n_layer=2, block_size=2048, bias=False, norm_class_name="RMSNorm", norm_eps=1e-5,
              mlp_class_name="LLaMAMLP", parallel_residual=False, rotary_percentage=1.0,
              rope_base=500000, lora_alpha=16, lora_dropout=0.05, lora_query=True, lora_value=True)
# Full fine-tuning rows (finetune/full.py: the plain GPT, every parameter trained, the LM head
# unchunked and the loss chunked over the flattened tokens): lora rank None.
ROWS_FULL = [
    ("llama-gqa", 512, 1, None, {}),
    ("llama-gqa", 256, 2, None, {}),
    ("llama-mha", 384, 2, None, {}),
]
# Fabric "bf16-mixed" rows (LitGPT's default training precision, get_default_supported_precision):
# fp32 weights, the module forward under torch.autocast (Fabric runs `model(...)` inside the
# precision plugin's forward context; the loss outside it).
ROWS_AMP = [
    ("llama-gqa", 512, 1, 32, {"amp": True}),
    ("llama-mha", 384, 2, 8, {"amp": True}),
]
# More than one device: LitGPT's finetune scripts run FSDPStrategy(activation_checkpointing_policy=
# {Block}) (litgpt/finetune/lora.py l.147-153, full.py l.100-106), which Lightning applies with
# torch's apply_activation_checkpointing and the non-reentrant checkpoint_wrapper
# (lightning/fabric/strategies/fsdp.py `_setup_activation_checkpointing`). One CPU process runs the
# same wrapping without the sharding: what every Block saves, not FSDP's own buffers.
ROWS_CKPT = [
    ("llama-gqa", 512, 1, 32, {"ckpt": True}),
    ("llama-mha", 384, 2, 8, {"ckpt": True}),
    ("llama-gqa", 512, 1, 32, {"amp": True, "ckpt": True}),
    ("llama-gqa", 512, 1, None, {"ckpt": True}),
]
ROWS = [  # (shape, seq, micro_batch, lora rank, extra LoRA targets)
    ("llama-gqa", 512, 1, 32, {}),
    ("llama-gqa", 512, 2, 32, {}),
    ("llama-gqa", 256, 4, 8, {"lora_key": True}),
    ("llama-mha", 512, 1, 8, {}),
    ("llama-mha", 384, 2, 8, {}),
    ("llama-mha", 1024, 1, 16, {"lora_key": True}),
]


def walk(nodes):
    for n in nodes:
        yield n
        yield from walk(n.children)


PHASES = ["forward", "loss", "backward", "optimizer", "zero_grad"]


def ranges_of(node):
    """(top-level range, phase, CPU-only copy?) of an allocation: iterN/validate/setup, then
    the phase inside; the flag marks CPU bmm's contiguous copy of a broadcast operand."""
    names = []
    while node is not None:
        names.append(node.name)
        node = node.parent
    top = next((n for n in reversed(names) if n.startswith("iter") or n in ("validate", "setup")), "outside")
    phase = next((n for n in names if n in PHASES), top)
    # The LM head on a [B, 128, h] chunk of a [B, T, h] tensor cannot be folded into one mm
    # (torch's `should_fold`: the chunk's leading dims are not contiguous), so matmul runs bmm
    # on the weight expanded over the batch (stride 0). CPU bmm (oneDNN) first makes that
    # operand contiguous (`aten::contiguous` under `aten::bmm`, B·h·V elements, in forward and
    # in BmmBackward0); CUDA's strided-batched cuBLAS GEMM reads the stride-0 operand in place.
    cpu_copy = any(a == "aten::contiguous" and b == "aten::bmm" for a, b in zip(names, names[1:]))
    return top, phase, cpu_copy


def curve(prof):
    """Per top-level range: the peak of the live-byte curve (from zero: the profile covers the
    whole run), the phase and op at it, the peak of each phase, and the live bytes when the range
    starts. `cpu_copy_bytes_at_peak`-free figures leave out CPU bmm's contiguous copies (see
    `ranges_of`): what the same step allocates on CUDA."""
    allocs = []
    for n in walk(prof.profiler.kineto_results.experimental_event_tree()):
        if n.typed[0] == _EventType.Allocation:
            op = n.parent.name if n.parent is not None else "?"
            allocs.append((n.start_time_ns, n.typed[1].alloc_size, n.typed[1].ptr, *ranges_of(n), op))
    allocs.sort(key=lambda a: a[0])
    live, out, cpu_only = 0, {}, set()
    for _, delta, ptr, top, phase, cpu_copy, op in allocs:
        if delta > 0 and cpu_copy:
            cpu_only.add(ptr)
            continue
        if delta < 0 and ptr in cpu_only:
            cpu_only.discard(ptr)
            continue
        r = out.setdefault(top, {"start_bytes": live, "peak_bytes": live, "phase_at_peak": phase,
                                 "op_at_peak": op, "phase_peaks": {}})
        live += delta
        if live > r["peak_bytes"]:
            r.update(peak_bytes=live, phase_at_peak=phase, op_at_peak=op)
        if live > r["phase_peaks"].get(phase, 0):
            r["phase_peaks"][phase] = live
    return out


def storages(tensors):
    seen = {}
    for t in tensors:
        if torch.is_tensor(t):
            st = t.untyped_storage()
            seen[st.data_ptr()] = st.nbytes()
    return seen


def config(shape, rank, extra):
    extra = {k: v for k, v in extra.items() if k not in ("amp", "ckpt")}
    if rank is None:  # the plain model: no LoRA keys
        kw = {k: v for k, v in {**COMMON, **extra, **SHAPES[shape]}.items() if not k.startswith("lora_")}
        if OLD:
            kw = {{"norm_class_name": "_norm_class", "mlp_class_name": "_mlp_class"}.get(k, k): v
                  for k, v in kw.items()}
        return PlainConfig(**kw)
    kw = {**COMMON, **extra, **SHAPES[shape], "lora_r": rank}
    if OLD:  # lit-gpt @8641822 names
        ren = {"norm_class_name": "_norm_class", "mlp_class_name": "_mlp_class", "lora_r": "r",
               "lora_alpha": "alpha", "lora_dropout": "dropout", "lora_query": "to_query",
               "lora_key": "to_key", "lora_value": "to_value"}
        kw = {ren.get(k, k): v for k, v in kw.items()}
    return Config(**kw)


def measure(shape, seq, mb, rank, extra):
    """One profile around everything (model build included), so every allocation and free is
    seen and the live curve starts from zero; peaks are read per range afterwards."""
    torch.manual_seed(0)
    full = rank is None
    amp = extra.get("amp", False)
    autocast = (lambda: torch.autocast("cpu", dtype=torch.bfloat16)) if amp else contextlib.nullcontext
    cfg = config(shape, rank, extra)
    gen = torch.Generator().manual_seed(1)
    ids = torch.randint(0, cfg.vocab_size, (mb, seq), generator=gen)
    with profile(activities=[ProfilerActivity.CPU], profile_memory=True) as prof:
        with record_function("setup"):
            # Fabric's "bf16-true" init_module builds in bf16; "bf16-mixed" keeps fp32
            torch.set_default_dtype(torch.float32 if amp else torch.bfloat16)
            model = PlainGPT(cfg) if full else GPT(cfg)
            torch.set_default_dtype(torch.float32)
            if not full:
                mark_only_lora_as_trainable(model)
            if extra.get("ckpt", False):
                from torch.distributed.algorithms._checkpoint.checkpoint_wrapper import (
                    apply_activation_checkpointing, checkpoint_wrapper)
                block = litgpt.model.Block
                apply_activation_checkpointing(model, checkpoint_wrapper_fn=checkpoint_wrapper,
                                               check_fn=lambda m: isinstance(m, block))
            model.max_seq_length = seq
            model.train()
            opt = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=2e-4,
                                    weight_decay=0.0, betas=(0.9, 0.95))
        logits = loss = None
        # micro-batches 0-1 warm up (the first optimizer step creates the AdamW states);
        # 2 (accumulating) and 3 (optimizer step) are the steady state that is reported.
        for it in range(4):
            accumulating = it % 2 == 0
            with record_function(f"iter{it}"):
                # `batch = next(train_iterator)`: a fresh batch on the device each micro-batch;
                # the previous one is freed when the names are rebound
                input_ids, targets = ids.clone(), ids.clone()
                with record_function("forward"), autocast():
                    new_logits = model(input_ids) if full else model(input_ids, lm_head_chunk_size=CHUNK)
                logits = new_logits  # the loop rebinds `logits` only when forward returns
                del new_logits
                with record_function("loss"):
                    if full:  # finetune/full.py @00af8b0d l.255-257
                        loss = chunked_cross_entropy(logits[..., :-1, :], targets[..., 1:])
                    else:
                        logits[-1] = logits[-1][..., :-1, :]
                        loss = chunked_cross_entropy(logits, targets[..., 1:])
                with record_function("backward"):
                    (loss / 2).backward()
                if not accumulating:
                    with record_function("optimizer"):
                        opt.step()
                    with record_function("zero_grad"):
                        opt.zero_grad()
        # validate(): no_grad, full logits (no lm_head chunking), chunk_size=0 loss,
        # with the training loop's leftovers (`logits`, `loss`, AdamW states) live
        model.eval()
        with torch.no_grad(), record_function("validate"):
            input_ids, targets = ids.clone(), ids.clone()
            with autocast():
                vlogits = model(input_ids)
            chunked_cross_entropy(vlogits[..., :-1, :], targets[..., 1:], chunk_size=0)
            del vlogits
    ranges = curve(prof)
    rows = {name: ranges[key] for name, key in
            (("accumulating", "iter2"), ("optimizer_step", "iter3"), ("validate", "validate"))}
    params = sum(p.numel() for p in model.parameters())
    trainable = sum(p.numel() for p in model.parameters() if p.requires_grad)
    return {"shape": shape, "config": {**COMMON, **extra, **SHAPES[shape], "lora_r": rank},
            "task": "full" if full else "lora", "precision": "bf16-mixed" if amp else "bf16-true",
            "checkpointing": bool(extra.get("ckpt", False)),
            "saved_after_forward_bytes": saved_after_forward(model, ids, full, autocast), "seq": seq,
            "micro_batch": mb, "params": params, "trainable_params": trainable,
            "param_bytes": sum(storages(model.parameters()).values()),
            "buffer_bytes": sum(storages(model.buffers()).values()), **rows}


def saved_after_forward(model, ids, full=False, autocast=contextlib.nullcontext):
    """Unique non-parameter storages saved for backward by one training forward + loss."""
    model.train()
    own = {t.untyped_storage().data_ptr() for t in list(model.parameters()) + list(model.buffers())}
    seen = {}

    def pack(t):
        st = t.untyped_storage()
        if st.data_ptr() not in own:
            seen[st.data_ptr()] = st.nbytes()
        return t

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        with autocast():
            logits = model(ids) if full else model(ids, lm_head_chunk_size=CHUNK)
        if full:
            loss = chunked_cross_entropy(logits[..., :-1, :], ids[..., 1:])
        else:
            logits[-1] = logits[-1][..., :-1, :]
            loss = chunked_cross_entropy(logits, ids[..., 1:])
    del logits, loss
    return sum(seen.values())


def main():
    torch.set_num_threads(2)
    out = {"litgpt_commit": COMMIT, "package": litgpt.__name__,
           "torch": torch.__version__, "chunk": CHUNK, "rows": []}
    for row in ROWS + ROWS_FULL + ROWS_AMP + ROWS_CKPT:
        out["rows"].append(measure(*row))
        print(json.dumps(out["rows"][-1]), file=sys.stderr, flush=True)
    json.dump(out, sys.stdout, indent=1, sort_keys=True)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
