#!/usr/bin/env python3
"""Measure one step of torchtune's lora_finetune_distributed recipe (@30b8519e8, the commit of the
README table the torchtune-llama31-70b-lora-8xa100 and -405b-qlora-8xa100 cases quote) on CPU.

The model is Llama 3.1 built by torchtune's own `lora_llama3_1` builder, shrunk (layers, width,
vocab; everything else as the 70B_lora.yaml of that commit sets it: LoRA rank 16, alpha 32,
dropout 0 on q/k/v, no MLP or output LoRA, bf16, AdamW fused, CEWithChunkedOutputLoss, activation
checkpointing on). The recipe's `_setup_model` steps are repeated in its order (l.396-436):
meta-device build under bf16, `set_trainable_params`, `set_activation_checkpointing(model,
{TransformerSelfAttentionLayer})`, `shard_model(model, [_is_layer_name], reshard_after_forward=True)`
(FSDP2 `fully_shard` on each `layers.i`, then on the root). Its training step is the recipe's
`train` body (l.720-757): forward, labels shifted with the ignore column, chunked loss,
`del logits`, backward, optimizer step, zero_grad(set_to_none=True). compile is off (CPU).

FSDP2 (torch 2.6; 2.5 refuses CPU: "FSDP requires CUDA for streams") runs on one gloo rank: its
all-gathers still copy the shard into a separate all-gather output and copy that out into the
unsharded parameters, so what FSDP holds gathered is visible at world size 1, as on each of 8 GPUs.
A zero-length profiler range at each layer's forward start marks the layer in forward and its
recomputation in backward; the 1 x 16-token row leaves FSDP's buffers and the root alone beside
the resident bytes.

`torch.profiler.profile(profile_memory=True)` records every CPU allocation and free; their running
sum from the bytes live before the step is the live-byte curve (as tools/measure_peak.py).

    python3 -m venv .venv && .venv/bin/pip install torch==2.6.0 torchao==0.5.0 omegaconf \
        sentencepiece tiktoken blobfile "numpy<=1.26.4" "pyarrow<18" "datasets<3.1" "pandas<2.3"
    git -C <torchtune clone> archive 30b8519e8 torchtune | tar -x -C /tmp/tt
    PYTHONPATH=/tmp/tt .venv/bin/python tools/measure_torchtune_lora.py > validation/torchtune-lora-measured.json
"""
import gc
import json
import os
import sys

import torch
import torch.distributed as dist
from torch._C._profiler import _EventType
from torch.profiler import ProfilerActivity, profile, record_function

from torchtune import modules, training
from torchtune.models.llama3_1._component_builders import lora_llama3_1
from torchtune.modules.loss import CEWithChunkedOutputLoss
from torchtune.modules.peft import get_adapter_params, set_trainable_params
from torchtune.modules.peft.lora import LoRALinear

# Shrunk Llama-3.1-70B: the 70B's ratios (64 heads / 8 KV heads -> 8 / 1, MLP 3.5 x width), small
# widths so a step runs in seconds on 2 cores. Vocabulary large enough that the root unit
# (embedding + final norm + LM head) is a visible share, as the 70B's 2.1B of 70.6B is not: the
# rows below vary it.
LAYER = dict(embed_dim=1024, num_heads=8, num_kv_heads=1, intermediate_dim=3584)
# (shape, batch, seq): twice the layers; twice the vocabulary (root); 1 x 16 tokens, where the
# activations are negligible and what is live beside the root is FSDP's own buffers.
SHAPES = [
    (dict(LAYER, num_layers=4, vocab_size=4096), 2, 256),
    (dict(LAYER, num_layers=8, vocab_size=4096), 2, 256),
    (dict(LAYER, num_layers=4, vocab_size=8192), 2, 256),
    (dict(LAYER, num_layers=4, vocab_size=4096), 1, 16),
]
LORA = dict(lora_attn_modules=["q_proj", "k_proj", "v_proj"], apply_lora_to_mlp=False,
            apply_lora_to_output=False, lora_rank=16, lora_alpha=32, lora_dropout=0.0)
PHASES = ("forward", "loss", "backward", "optimizer")


def cpu_streams():
    """FSDP2 (torch 2.6) takes its streams from the device module; torch.cpu.Stream only has
    wait_stream. CPU work is synchronous, so recording and waiting on events orders nothing that
    program order does not already order; which tensors FSDP2 keeps alive is decided by the Python
    references it holds (all_gather_state, the unsharded parameters), the same as on CUDA."""
    torch.cpu.Stream.record_event = lambda self, event=None: torch.cpu.Event()
    torch.cpu.Stream.wait_event = lambda self, event: None


def is_layer_name(name, module):
    """lora_finetune_distributed.py @30b8519e8 l.418-428."""
    parts = name.split(".")
    return len(parts) == 2 and parts[0] == "layers" and str.isdigit(parts[1])


def build(shape, SEQ):
    with training.set_default_dtype(torch.bfloat16), torch.device("meta"):
        model = lora_llama3_1(**LORA, max_seq_len=SEQ, **shape)
    set_trainable_params(model, get_adapter_params(model))
    training.set_activation_checkpointing(model, auto_wrap_policy={modules.TransformerSelfAttentionLayer})
    training.shard_model(model=model, shard_conditions=[is_layer_name], cpu_offload=False,
                         reshard_after_forward=True)
    model.to_empty(device="cpu")
    gen = torch.Generator().manual_seed(0)
    with torch.no_grad(), training.set_default_dtype(torch.bfloat16):
        for p in model.parameters():
            local = p.to_local() if hasattr(p, "to_local") else p
            local.copy_(torch.randn(local.shape, generator=gen) * 0.02)
        for m in model.modules():
            if isinstance(m, LoRALinear):
                m.initialize_parameters()
            if hasattr(m, "rope_init"):
                m.rope_init()
    return model


def add_markers(model):
    """A zero-length profiler range at each layer's forward start: in forward it marks the layer,
    in backward the layer's recomputation (the checkpoint wrapper reruns the inner module)."""
    for i, layer in enumerate(model.layers):
        inner = getattr(layer, "_checkpoint_wrapped_module", layer)

        def pre(module, args, i=i):
            with record_function(f"layer{i}"):
                pass
        inner.register_forward_pre_hook(pre)


def step(model, opt, loss_fn, tokens, labels, ignore):
    with record_function("forward"):
        logits = model(tokens)
    with record_function("loss"):
        labels = torch.hstack((labels[..., 1:], ignore))
        if not isinstance(logits, list):
            labels = labels.reshape(-1)
            logits = logits.reshape(-1, logits.size(-1))
        loss = loss_fn(logits, labels)
        del logits
    with record_function("backward"):
        loss.backward()
    with record_function("optimizer"):
        opt.step()
        opt.zero_grad(set_to_none=True)


def walk(nodes):
    for n in nodes:
        yield n
        yield from walk(n.children)


def phase_of(node):
    while node is not None and node.name not in PHASES:
        node = node.parent
    return node.name if node is not None else "outside"


def curve(prof, baseline):
    """Peak, its phase, each phase's peak and end, and per layer marker (forward, recompute in
    backward) the live bytes at the marker and the peak until the next marker."""
    events = []
    for n in walk(prof.profiler.kineto_results.experimental_event_tree()):
        if n.typed[0] == _EventType.Allocation:
            events.append((n.start_time_ns, n.typed[1].alloc_size, phase_of(n)))
        elif n.name.startswith("layer") and n.name[5:].isdigit():
            events.append((n.start_time_ns, None, phase_of(n) + ":" + n.name))
    events.sort(key=lambda a: (a[0], a[1] is not None))
    live, peak, at, phase_peaks, end_of = baseline, baseline, "before", {}, {}
    marks, current = [], None
    for _, delta, phase in events:
        if delta is None:
            current = {"marker": phase, "live_at_bytes": live, "peak_until_next_bytes": live}
            marks.append(current)
            continue
        live += delta
        end_of[phase] = live
        phase_peaks[phase] = max(phase_peaks.get(phase, 0), live)
        if current is not None:
            current["peak_until_next_bytes"] = max(current["peak_until_next_bytes"], live)
        if live > peak:
            peak, at = live, phase
    return peak, at, phase_peaks, end_of, marks


def storages(tensors):
    seen = {}
    for t in tensors:
        t = t.to_local() if hasattr(t, "to_local") else t
        st = t.untyped_storage()
        seen[st.data_ptr()] = st.nbytes()
    return sum(seen.values())


def measure(shape, BATCH, SEQ):
    model = build(shape, SEQ)
    add_markers(model)
    trainable = [p for p in model.parameters() if p.requires_grad]
    try:
        opt = torch.optim.AdamW(trainable, lr=3e-4, weight_decay=0.01, fused=True)
        fused = True
    except RuntimeError:
        opt = torch.optim.AdamW(trainable, lr=3e-4, weight_decay=0.01, foreach=True)
        fused = False
    loss_fn = CEWithChunkedOutputLoss()
    model.set_num_output_chunks(loss_fn.num_output_chunks)
    gen = torch.Generator().manual_seed(1)
    tokens = torch.randint(0, shape["vocab_size"], (BATCH, SEQ), generator=gen)
    labels = tokens.clone()
    ignore = torch.full((BATCH, 1), loss_fn.ignore_index, dtype=labels.dtype)
    step(model, opt, loss_fn, tokens, labels, ignore)  # warm-up: optimizer states exist
    gc.collect()
    params = storages(model.parameters())
    buffers = storages(model.buffers())
    state = [v for s in opt.state.values() for v in s.values() if torch.is_tensor(v) and v.dim() > 0]
    opt_bytes = storages(state)
    baseline = params + buffers + opt_bytes
    with profile(activities=[ProfilerActivity.CPU], profile_memory=True) as prof:
        step(model, opt, loss_fn, tokens, labels, ignore)
    peak, at, phase_peaks, end_of, marks = curve(prof, baseline)
    h, v, L = shape["embed_dim"], shape["vocab_size"], shape["num_layers"]
    layer_params = sum(p.numel() for n, p in model.named_parameters() if n.startswith("layers.0."))
    return {
        "shape": shape, "batch": BATCH, "seq": SEQ, "lora": LORA, "optimizer_fused": fused,
        "params": sum(p.numel() for p in model.parameters()),
        "trainable_params": sum(p.numel() for p in trainable),
        "layer_params": layer_params,
        "root_params": 2 * v * h + h,
        "param_bytes": params, "buffer_bytes": buffers, "optimizer_bytes": opt_bytes,
        "baseline_bytes": baseline, "peak_bytes": peak, "phase_at_peak": at,
        "phase_peaks_bytes": phase_peaks, "live_after_phase_bytes": end_of, "layer_marks": marks,
        "checkpointed_inputs_bytes": L * BATCH * SEQ * h * 2,
        "root_gathered_bytes": (2 * v * h + h) * 2,
        "layer_gathered_bytes": layer_params * 2,
    }


def main():
    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    os.environ.setdefault("MASTER_PORT", "29517")
    dist.init_process_group("gloo", rank=0, world_size=1)
    cpu_streams()
    torch.set_num_threads(2)
    rows = [measure(*s) for s in SHAPES]
    json.dump({"source": "torchtune @30b8519e8 lora_finetune_distributed.py (_setup_model, train), "
                         "torch " + torch.__version__ + ", CPU, FSDP2 on 1 gloo rank",
               "rows": rows}, sys.stdout, indent=1)
    print()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
