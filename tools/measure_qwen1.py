#!/usr/bin/env python3
"""Measure one training step of Qwen-1 (v1, remote code) under Qwen's finetune.py LoRA settings on
CPU, exactly (torch.profiler allocation events), to look for bytes the estimate does not charge
in the Qwen-1.8B LoRA rows (issue 9; cases/mem-qwen1-18b-lora-*.toml, known_deviation).

The model is Qwen-1.8B's shape (hidden 2048, 16 heads x kv_channels 128, intermediate_size 11008,
vocab 151936, untied head, no bias but q/k/v) with LAYERS layers instead of 24: the question is
a term outside the layers (per token or fixed, e.g. around the 151936 x 2048 embedding and head)
or a per-layer term, which two layer counts separate. The step is finetune.py @e8e1596's:
config.use_cache False, bf16 weights (config.bf16), PEFT LoRA r=64 alpha 16 dropout 0.05 on
c_attn, c_proj, w1, w2 (task CAUSAL_LM, no modules_to_save: the README's "LoRA" row),
gradient_checkpointing_enable() then enable_input_require_grads(), the HF Trainer's --bf16
autocast around the model's own loss (labels = input_ids, as preprocess's targets for a full
sample), loss.backward(), torch.optim.AdamW(foreach=True) (the CUDA default; CPU's default is
the per-tensor loop), zero_grad(set_to_none=True).

The modeling code is not vendored: pass a directory holding modeling_qwen.py,
configuration_qwen.py and qwen_generation_utils.py of the Qwen/Qwen-7B hub repository (mirrored
at github.com/zhangningboo/Qwen-7B; commit e7a368b of 2023-11-30 is the one current when the
1.8B rows were published):

    python3 -m venv /tmp/q && /tmp/q/bin/pip install torch==2.1.2 transformers==4.35.2 \
        peft==0.6.2 einops accelerate==0.25.0
    git -C Qwen-7B show e7a368b:modeling_qwen.py > DIR/modeling_qwen.py   # and the other two
    /tmp/q/bin/python tools/measure_qwen1.py DIR 1x256 2x256 1x512 > rows.jsonl  # ~2.5 min a row
    python3 tools/measure_qwen1.py --assemble rows.jsonl > validation/qwen1-measured.json

Checked by crates/gpuplan-core/tests/measured_peak.rs (`qwen1_lora_case_matches_its_code`).

CPU differences, stated: no flash-attn (Qwen falls back to torch SDPA with its b x 1 x s x s
causal mask; the rows say how many bytes the attention itself takes so it can be set apart),
no CUDA caching allocator (bytes allocated, not reserved), and CPU dropout saves its float
mask rather than CUDA's bool mask.
"""
import atexit
import gc
import json
import os
import shutil
import sys
import tempfile

import torch
import transformers
from torch._C._profiler import _EventType
from torch.profiler import ProfilerActivity, profile, record_function

import peft
from peft import LoraConfig, get_peft_model

QWEN_18B = dict(hidden_size=2048, num_attention_heads=16, kv_channels=128, intermediate_size=11008,
                vocab_size=151936, max_position_embeddings=8192, seq_length=8192, no_bias=True,
                tie_word_embeddings=False, layer_norm_epsilon=1e-6, rotary_emb_base=10000,
                rotary_pct=1.0, use_dynamic_ntk=True, use_logn_attn=True, use_flash_attn=False,
                bf16=True, fp16=False, fp32=False, use_cache=False, attn_dropout_prob=0.0,
                emb_dropout_prob=0.0)
LORA = dict(r=64, lora_alpha=16, lora_dropout=0.05, target_modules=["c_attn", "c_proj", "w1", "w2"],
            bias="none", task_type="CAUSAL_LM")
PHASES = ["forward", "backward", "optimizer", "zero_grad"]


def load_qwen(src):
    """Import Qwen's remote code from `src` as a package (it uses relative imports)."""
    pkg = tempfile.mkdtemp(prefix="qwen1_")
    atexit.register(shutil.rmtree, pkg, True)
    dst = os.path.join(pkg, "qwen1")
    os.mkdir(dst)
    for f in ["modeling_qwen.py", "configuration_qwen.py", "qwen_generation_utils.py"]:
        shutil.copy(os.path.join(src, f), dst)
    open(os.path.join(dst, "__init__.py"), "w").close()
    sys.path.insert(0, pkg)
    from qwen1.configuration_qwen import QWenConfig
    from qwen1.modeling_qwen import QWenLMHeadModel
    return QWenConfig, QWenLMHeadModel


def build(classes, layers):
    QWenConfig, QWenLMHeadModel = classes
    cfg = QWenConfig(num_hidden_layers=layers, **QWEN_18B)
    torch.manual_seed(0)
    model = QWenLMHeadModel(cfg)  # config.bf16: the remote code casts itself to bf16
    model.train()
    # What transformers 4.32's gradient_checkpointing_enable() does (the version Qwen's
    # requirements.txt pins): QWenPreTrainedModel._set_gradient_checkpointing sets the flag on
    # QWenModel, whose forward then wraps each block in torch.utils.checkpoint.checkpoint
    # (reentrant, torch's default then). Newer transformers call it with another signature.
    model.transformer.gradient_checkpointing = True
    model = get_peft_model(model, LoraConfig(**LORA))
    model.enable_input_require_grads()
    model.train()
    return model


def run_step(model, opt, ids):
    with torch.autocast("cpu", dtype=torch.bfloat16):
        with record_function("forward"):
            loss = model(input_ids=ids, labels=ids).loss
    with record_function("backward"):
        loss.backward()
    with record_function("optimizer"):
        opt.step()
    with record_function("zero_grad"):
        opt.zero_grad(set_to_none=True)
    return float(loss)


def walk(nodes):
    for n in nodes:
        yield n
        yield from walk(n.children)


def phase_of(node):
    while node is not None and node.name not in PHASES:
        node = node.parent
    return node.name if node is not None else "outside"


def curve(prof, baseline):
    """Peak live bytes, where it happened, and the peak of each phase."""
    allocs = []
    for n in walk(prof.profiler.kineto_results.experimental_event_tree()):
        if n.typed[0] == _EventType.Allocation:
            op = n.parent.name if n.parent is not None else "?"
            allocs.append((n.start_time_ns, n.typed[1].alloc_size, phase_of(n), op))
    allocs.sort(key=lambda a: a[0])
    live, peak, at, phase_peaks = baseline, baseline, ("before", ""), {}
    big = {}
    for _, delta, phase, op in allocs:
        live += delta
        phase_peaks[phase] = max(phase_peaks.get(phase, 0), live)
        if delta >= 1 << 20:
            big[f"{phase}/{op}/{delta}"] = big.get(f"{phase}/{op}/{delta}", 0) + 1
        if live > peak:
            peak, at = live, (phase, op)
    return peak, at, phase_peaks, big


def storages(tensors):
    return sum({t.untyped_storage().data_ptr(): t.untyped_storage().nbytes() for t in tensors}.values())


def measure(classes, layers, seq):
    model = build(classes, layers)
    trainable = [p for p in model.parameters() if p.requires_grad]
    opt = torch.optim.AdamW(trainable, lr=1e-4, foreach=True)
    ids = torch.randint(0, QWEN_18B["vocab_size"], (1, seq), generator=torch.Generator().manual_seed(1))
    run_step(model, opt, ids)  # warm-up: the AdamW states exist from here on
    gc.collect()
    params = storages(model.parameters())
    buffers = storages(model.buffers())
    state = [v for s in opt.state.values() for v in s.values() if torch.is_tensor(v)]
    opt_bytes = storages(state)
    baseline = params + buffers + opt_bytes
    with profile(activities=[ProfilerActivity.CPU], profile_memory=True) as prof:
        run_step(model, opt, ids)
    peak, (phase, op), phase_peaks, big = curve(prof, baseline)
    row = {"layers": layers, "seq": seq, "params": sum(p.numel() for p in model.parameters()),
           "trainable_params": sum(p.numel() for p in trainable),
           "param_bytes": params, "buffer_bytes": buffers, "optimizer_bytes": opt_bytes,
           "grad_bytes": sum(p.numel() * p.element_size() for p in trainable),
           "peak_bytes": peak, "activation_peak_bytes": peak - baseline,
           "phase_at_peak": phase, "op_at_peak": op, "phase_peaks_bytes": phase_peaks,
           "allocations_of_1mib_or_more": big}
    del model, opt, prof
    gc.collect()
    return row


def assemble(files):
    """The JSON lines of one or more runs as validation/qwen1-measured.json: one head (the runs
    must agree on it) and the rows ordered by layers, then length."""
    head, rows = None, []
    for name in files:
        with open(name) as f:
            for r in map(json.loads, filter(str.strip, f)):
                if "head" in r:
                    assert head in (None, r["head"]), "runs with different versions or settings"
                    head = r["head"]
                else:
                    rows.append(r)
    rows.sort(key=lambda r: (r["layers"], r["seq"]))
    json.dump(dict(head, rows=rows), sys.stdout, indent=1, sort_keys=True)
    sys.stdout.write("\n")


def main():
    """`DIR [LAYERSxSEQ ...]`: JSON lines to stdout; `--assemble FILE...`: the validation file."""
    if sys.argv[1] == "--assemble":
        return assemble(sys.argv[2:])
    torch.set_num_threads(2)
    classes = load_qwen(sys.argv[1])
    head = {"torch": torch.__version__, "transformers": transformers.__version__,
            "peft": peft.__version__, "lora": LORA, "config": QWEN_18B}
    print(json.dumps({"head": head}), flush=True)
    grid = [(int(a), int(b)) for a, b in (x.split("x") for x in sys.argv[2:])] or [(1, 256), (2, 256), (1, 512)]
    for layers, seq in grid:
        print(json.dumps(measure(classes, layers, seq), sort_keys=True), flush=True)


if __name__ == "__main__":
    main()
