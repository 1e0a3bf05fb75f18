#!/usr/bin/env python3
"""Count the ops the host dispatches in one eager training micro-batch, per decoder layer, under
torch.profiler on CPU (issue 10: the host-side dispatch floor of eager HF/PEFT training;
cases t-qwen1-*-lora-s256..1024-a100). The count is a property of the code (which aten ops the
Python modules and autograd issue), not of the device or the widths, so it is taken on CPU at
tiny widths and read for the A100 runs; where it does not transfer is stated in the output's
"cpu_differences" and in docs/methodology.md ("Host dispatch floor").

What is counted, for one micro-batch (forward with the loss, backward) and for the optimizer step:
- "top_ops": aten ops with no aten op above them in the profiler's tree: each one is a call the host
  makes into the dispatcher (from Python in the forward and a reentrant checkpoint's replay, from
  the autograd engine's C++ in the backward). Ops they call inside (aten::linear -> aten::t,
  aten::matmul -> aten::mm) are not counted again.
- "launch_ops": the top ops that launch device work on CUDA: every top op less the ones that only
  make a view or new metadata (VIEW_OPS), allocate without a kernel (aten::empty*) or cast to the
  dtype the tensor has (DELEGATING), unless an op they call launches (stop 35: a reshape that
  copies, a cast that converts; before, by the top op's name alone).
- "autograd_nodes": backward functions the engine runs (each a C++ call around its ops).
Per layer = count(2 layers) - count(1 layer); the rest is the model's fixed part (embedding, final
norm, LM head, loss); widths are checked not to matter (two widths give the same counts).

Stacks (each a row): Qwen (v1) remote code @e7a368b as Qwen's finetune.py runs it (bf16 weights,
Trainer's bf16 autocast, reentrant gradient checkpointing, PEFT 0.6.2 LoRA on c_attn, c_proj, w1,
w2 with fp32 adapters and dropout 0.05; AdamW foreach) and the same without LoRA (full
fine-tuning) and without checkpointing; HF transformers' LlamaForCausalLM under the same settings.

    python3 -m venv /tmp/q && /tmp/q/bin/pip install torch==2.1.2 transformers==4.35.2 \
        peft==0.6.2 accelerate==0.25.0 einops
    git -C Qwen-7B show e7a368b:modeling_qwen.py > DIR/modeling_qwen.py   # and the other two
    /tmp/q/bin/python tools/measure_dispatch.py DIR > validation/dispatch-measured.json
    /tmp/q/bin/python tools/measure_dispatch.py DIR --time   # the CPU-time cross-check (not data)

Checked by crates/gpuplan-core/tests/host_dispatch.rs (the Rust table equals these counts).
"""
import json
import os
import sys

import torch
import transformers
from torch._C._profiler import _EventType
from torch.profiler import ProfilerActivity, profile, record_function

import peft
from peft import LoraConfig, get_peft_model

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from measure_qwen1 import load_qwen  # noqa: E402  (the same loader as the memory measurement)

# Ops that make a view or change metadata only: no kernel on CUDA.
VIEW_OPS = {"aten::view", "aten::_unsafe_view", "aten::reshape", "aten::t", "aten::transpose",
            "aten::permute", "aten::expand", "aten::expand_as", "aten::slice", "aten::select",
            "aten::unsqueeze", "aten::squeeze", "aten::as_strided", "aten::detach", "aten::alias",
            "aten::split", "aten::split_with_sizes", "aten::chunk", "aten::narrow", "aten::unbind",
            "aten::view_as", "aten::numpy_T", "aten::flatten", "aten::unflatten", "aten::lift_fresh",
            "aten::result_type", "aten::is_nonzero", "aten::empty", "aten::empty_like",
            "aten::empty_strided", "aten::new_empty", "aten::new_empty_strided", "aten::size",
            "aten::stride", "aten::is_same_size", "aten::_reshape_alias", "aten::contiguous"}
# Casts that launch a kernel only through the ops they call (aten::_to_copy), none when the
# tensor already has the dtype (autocast's bf16 weights).
DELEGATING = {"aten::to", "aten::type_as"}
# Tiny widths: the count does not depend on them (checked with WIDE).
QWEN_TINY = dict(hidden_size=64, num_attention_heads=4, kv_channels=16, intermediate_size=96,
                 vocab_size=256, max_position_embeddings=512, seq_length=512, no_bias=True,
                 tie_word_embeddings=False, layer_norm_epsilon=1e-6, rotary_emb_base=10000,
                 rotary_pct=1.0, use_dynamic_ntk=True, use_logn_attn=True, use_flash_attn=False,
                 bf16=True, fp16=False, fp32=False, use_cache=False, attn_dropout_prob=0.0,
                 emb_dropout_prob=0.0)
WIDE = dict(hidden_size=128, num_attention_heads=8, intermediate_size=192)
LLAMA_TINY = dict(hidden_size=64, num_attention_heads=4, num_key_value_heads=4, intermediate_size=96,
                  vocab_size=256, max_position_embeddings=512, use_cache=False, torch_dtype="bfloat16")
QWEN_LORA = dict(r=4, lora_alpha=16, lora_dropout=0.05, target_modules=["c_attn", "c_proj", "w1", "w2"],
                 bias="none", task_type="CAUSAL_LM")
LLAMA_LORA = dict(r=4, lora_alpha=16, lora_dropout=0.05,
                  target_modules=["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"],
                  bias="none", task_type="CAUSAL_LM")
SEQ = 32


def qwen_model(classes, layers, lora, recompute, wide=False):
    cfg = classes[0](num_hidden_layers=layers, **dict(QWEN_TINY, **(WIDE if wide else {})))
    torch.manual_seed(0)
    model = classes[1](cfg)
    model.train()
    # transformers 4.32's gradient_checkpointing_enable(): QWenModel wraps each block in
    # torch.utils.checkpoint.checkpoint (reentrant, torch's default then); see measure_qwen1.py.
    model.transformer.gradient_checkpointing = recompute
    return adapt(model, lora, recompute)


def llama_model(layers, lora, recompute, wide=False):
    wider = dict(WIDE, num_key_value_heads=WIDE["num_attention_heads"])  # MHA at both widths
    cfg = transformers.LlamaConfig(num_hidden_layers=layers, **dict(LLAMA_TINY, **(wider if wide else {})))
    torch.manual_seed(0)
    model = transformers.LlamaForCausalLM(cfg).to(torch.bfloat16)
    model.train()
    if recompute:
        model.gradient_checkpointing_enable()  # 4.35: reentrant (torch's default)
    return adapt(model, lora, recompute)


def adapt(model, lora, recompute):
    if lora:
        model = get_peft_model(model, LoraConfig(**lora))  # fp32 adapters (PEFT 0.6.2)
        if recompute:
            model.enable_input_require_grads()
    model.train()
    return model


def launches(node):
    """Whether an op launches device work on CUDA: it is not a view, metadata or allocation op nor a
    cast that only delegates (aten::to, aten::type_as: no kernel when the dtype already matches),
    or an op it calls does (a reshape or contiguous of a non-contiguous tensor copies: aten::clone)."""
    if node.name not in VIEW_OPS and node.name not in DELEGATING:
        return True
    return any(launches(ch) for ch in node.children
               if ch.typed[0] == _EventType.TorchOp and ch.name.startswith("aten::"))


def top_level(roots):
    """Aten ops with no aten op above them, and the autograd nodes, by phase, from the
    profiler's event tree (parents as recorded, not inferred from timestamps)."""
    counts = {}

    def visit(node, phase, nested):
        name = node.name
        if node.typed[0] != _EventType.TorchOp:
            return
        if name in ("micro_batch", "optimizer"):
            phase = name
        elif phase is not None:
            c = counts.setdefault(phase, {"top_ops": 0, "launch_ops": 0, "autograd_nodes": 0, "ops": {}})
            if name.startswith("autograd::engine::evaluate_function"):
                c["autograd_nodes"] += 1
            elif name.startswith("aten::") and not nested:
                c["top_ops"] += 1
                c["launch_ops"] += launches(node)
                c["ops"][name] = c["ops"].get(name, 0) + 1
        nested = nested or name.startswith("aten::")
        for ch in node.children:
            visit(ch, phase, nested)

    for r in roots:
        visit(r, None, False)
    return counts


def count(model):
    trainable = [p for p in model.parameters() if p.requires_grad]
    opt = torch.optim.AdamW(trainable, lr=1e-4, foreach=True)
    ids = torch.randint(0, 256, (1, SEQ), generator=torch.Generator().manual_seed(1))

    def step():
        with record_function("micro_batch"):
            with torch.autocast("cpu", dtype=torch.bfloat16):
                loss = model(input_ids=ids, labels=ids).loss
            loss.backward()
        with record_function("optimizer"):
            opt.step()
            opt.zero_grad(set_to_none=True)

    step()  # warm-up: AdamW's states exist from here on
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        step()
    return top_level(prof.profiler.kineto_results.experimental_event_tree()), len(trainable)


def per_layer(build):
    """Per-layer counts (2 layers - 1 layer) and the fixed rest (1 layer - per layer: negative
    where the first layer does less, e.g. no input gradient under LoRA without
    enable_input_require_grads), for the micro-batch and the optimizer step. Checked: 3 layers
    add what 2 did (the count is linear in the layers) and 2 layers at a second width count the same."""
    one, t1 = count(build(1, False))
    two, t2 = count(build(2, False))
    three, _ = count(build(3, False))
    wide, _ = count(build(2, True))
    keys = ("top_ops", "launch_ops", "autograd_nodes")
    for ph in two:
        assert all(two[ph][k] == wide[ph][k] for k in keys), f"width changed the {ph} count"
        assert all(three[ph][k] - two[ph][k] == two[ph][k] - one[ph][k] for k in keys), f"{ph} not linear"
    out = {}
    for ph in ("micro_batch", "optimizer"):
        lay = {k: two[ph][k] - one[ph][k] for k in keys}
        lay["ops"] = {n: two[ph]["ops"].get(n, 0) - one[ph]["ops"].get(n, 0)
                      for n in sorted(set(two[ph]["ops"]) | set(one[ph]["ops"]))
                      if two[ph]["ops"].get(n, 0) != one[ph]["ops"].get(n, 0)}
        fixed = {k: one[ph][k] - lay[k] for k in keys}
        out[ph] = {"per_layer": lay, "fixed": fixed}
    out["trainable_tensors_per_layer"] = t2 - t1
    return out


# (name, family, LoRA targets or None, reentrant checkpointing). The one-target rows separate a
# LoRA layer into its frozen base and a per-adapter increment (tests/host_dispatch.rs).
STACKS = [
    ("qwen1_lora_recompute", "qwen", QWEN_LORA["target_modules"], True),
    ("qwen1_lora", "qwen", QWEN_LORA["target_modules"], False),
    ("qwen1_lora1_recompute", "qwen", ["c_attn"], True),
    ("qwen1_lora1", "qwen", ["c_attn"], False),
    ("qwen1_full_recompute", "qwen", None, True),
    ("qwen1_full", "qwen", None, False),
    ("llama_lora_recompute", "llama", LLAMA_LORA["target_modules"], True),
    ("llama_lora", "llama", LLAMA_LORA["target_modules"], False),
    ("llama_lora1_recompute", "llama", ["q_proj"], True),
    ("llama_lora1", "llama", ["q_proj"], False),
    ("llama_full_recompute", "llama", None, True),
    ("llama_full", "llama", None, False),
]


def cpu_seconds_per_layer(build, reps=30):
    """Cross-check, not an input: the host's CPU time (process time, so other processes on a shared
    machine count little) of one micro-batch per layer on this CPU, 3 layers less 1 over 2, best of 5.
    It includes the CPU kernels of the tiny tensors and the Python modules and autograd engine
    around the ops, and lacks CUDA's launch calls."""
    import time
    ids = torch.randint(0, 256, (1, SEQ), generator=torch.Generator().manual_seed(1))
    best = {}
    for layers in (1, 3):
        model = build(layers, False)

        def mb():
            with torch.autocast("cpu", dtype=torch.bfloat16):
                loss = model(input_ids=ids, labels=ids).loss
            loss.backward()
        for _ in range(3):
            mb()
        runs = []
        for _ in range(5):
            t = time.process_time()
            for _ in range(reps):
                mb()
            runs.append((time.process_time() - t) / reps)
        best[layers] = min(runs)
    return (best[3] - best[1]) / 2


def main():
    torch.set_num_threads(1)
    classes = load_qwen(sys.argv[1])
    if sys.argv[2:] == ["--time"]:
        for rc in (True, False):
            s = cpu_seconds_per_layer(lambda n, w: qwen_model(classes, n, QWEN_LORA, rc, w))
            print(f"qwen1 LoRA recompute={rc}: {s * 1e3:.2f} ms CPU per layer and micro-batch")
        return
    rows = {}
    for name, fam, targets, rc in STACKS:
        if fam == "qwen":
            lora = targets and dict(QWEN_LORA, target_modules=targets)
            rows[name] = per_layer(lambda n, w: qwen_model(classes, n, lora, rc, w))
        else:
            lora = targets and dict(LLAMA_LORA, target_modules=targets)
            rows[name] = per_layer(lambda n, w: llama_model(n, lora, rc, w))
        rows[name]["lora_targets"] = targets
        print(name, rows[name]["micro_batch"]["per_layer"]["top_ops"], file=sys.stderr, flush=True)
    head = {"torch": torch.__version__, "transformers": transformers.__version__, "peft": peft.__version__,
            "qwen_code": "Qwen/Qwen-7B remote code @e7a368b (modeling_qwen.py)", "seq": SEQ,
            "qwen_lora": QWEN_LORA, "llama_lora": LLAMA_LORA, "view_ops": sorted(VIEW_OPS),
            "delegating_ops": sorted(DELEGATING),
            "cpu_differences": [
                "no flash-attn on CPU: Qwen's code falls back to its own attention (_attn with its causal mask), "
                "where on CUDA with flash-attn 2 it calls flash_attn_func (one op forward, one backward node); "
                "Llama 4.35 uses its eager attention (no SDPA) in both",
                "no fused rotary/rms_norm from flash-attn's csrc on CPU (Qwen imports them when installed); "
                "the README does not say they were",
                "CPU autocast casts as CUDA autocast does for the ops both lists hold (linear/matmul to bf16)",
                "AdamW foreach on CPU issues the same _foreach ops; on CUDA each is one multi-tensor kernel per "
                "chunk of tensors"]}
    json.dump(dict(head=head, stacks=rows), sys.stdout, indent=1, sort_keys=True)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
