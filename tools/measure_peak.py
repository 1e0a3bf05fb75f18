#!/usr/bin/env python3
"""Measure the memory PEAK of one whole training step of small HF models, exactly, on CPU.

Each row builds a tiny randomly initialised model from a config (no download), runs one warm-up
step (so AdamW's states exist, as in every step after the first), then profiles a second step:

    forward (model body + LM head) -> loss (HF `model.loss_function`, as HF computes it inside
    forward; the logits are dropped before backward, as HF Trainer's `compute_loss` does)
    -> backward -> optimizer step (torch.optim.AdamW, foreach=True: the GPU default path)
    -> zero_grad(set_to_none=True)

`torch.profiler.profile(profile_memory=True)` records every CPU allocation and free as a
`[memory]` event. Their running sum, started from the bytes live before the step (parameters +
optimizer states), is the live-byte curve; its maximum is the peak and the `record_function`
range containing it is the phase at the peak. Saved-after-forward bytes come from a separate
forward + loss under saved-tensor hooks (unique storages that are not parameters).

Output: validation/peak-measured.json, checked by crates/gpuplan-core/tests/measured_peak.rs.

    pip install torch transformers peft   # CPU is enough; ~20 s a bf16 row on 2 cores
    python3 tools/measure_peak.py > rows.jsonl     # one JSON line per row, priority order
    python3 tools/measure_peak.py --assemble rows.jsonl > validation/peak-measured.json
"""
import contextlib
import gc
import itertools
import json
import sys

import torch
import transformers
from torch._C._profiler import _EventType
from torch.profiler import ProfilerActivity, profile, record_function
from transformers import AutoConfig, AutoModelForCausalLM

try:
    import peft
    from peft import LoraConfig, get_peft_model
except ImportError:  # LoRA rows are skipped without peft (and the JSON says so)
    peft = None

B, S = 2, 256
LAYERS = 2
# The second shape (batch 1 x 1024 tokens, 4 layers): attention's S^2 terms 4x larger per
# sequence, the logits the same share, twice the layers; its rows' keys carry it.
SHAPE = (B, S, LAYERS)
LONG = (1, 1024, 4)
LORA_RANK, LORA_ALPHA, LORA_DROPOUT = 8, 16, 0.05
PHASES = ["forward", "loss", "backward", "optimizer", "zero_grad"]

# vocab/hidden = 32, as in Llama-3-8B (128256/4096): the logits weigh what they weigh at scale.
MODELS = {
    "llama": dict(model_type="llama", hidden_size=256, intermediate_size=688, num_attention_heads=4,
                  num_key_value_heads=2, vocab_size=8192, max_position_embeddings=1024),
    "qwen2": dict(model_type="qwen2", hidden_size=256, intermediate_size=768, num_attention_heads=4,
                  num_key_value_heads=2, vocab_size=8192, max_position_embeddings=1024),
    "gpt2": dict(model_type="gpt2", n_embd=256, n_head=4, vocab_size=8192, n_positions=1024,
                 attn_pdrop=0.0, resid_pdrop=0.0, embd_pdrop=0.0),
    "mixtral": dict(model_type="mixtral", hidden_size=256, intermediate_size=512, num_attention_heads=4,
                    num_key_value_heads=2, vocab_size=8192, max_position_embeddings=1024,
                    num_local_experts=4, num_experts_per_tok=2, sliding_window=None),
    # Qwen3: per-head RMSNorm on q and k (q_norm, k_norm) before rotary; Qwen3-MoE adds
    # routed experts (no shared ones).
    "qwen3": dict(model_type="qwen3", hidden_size=256, intermediate_size=768, num_attention_heads=4,
                  num_key_value_heads=2, head_dim=64, vocab_size=8192, max_position_embeddings=1024),
    "qwen3_moe": dict(model_type="qwen3_moe", hidden_size=256, intermediate_size=768,
                      moe_intermediate_size=128, num_attention_heads=4, num_key_value_heads=2,
                      head_dim=64, num_experts=4, num_experts_per_tok=2, decoder_sparse_step=1,
                      mlp_only_layers=[], vocab_size=8192, max_position_embeddings=1024),
    # GLM-4 (HF Glm4ForCausalLM, GLM-4-0414): fused gate_up_proj, partial rotary, four RMSNorms
    # per layer (post-attention and post-MLP norms of the branch outputs).
    "glm4": dict(model_type="glm4", hidden_size=256, intermediate_size=768, num_attention_heads=4,
                 num_key_value_heads=2, head_dim=64, vocab_size=8192, max_position_embeddings=1024,
                 partial_rotary_factor=0.5, pad_token_id=0, eos_token_id=[1, 2]),
    # DeepSeek-V3's shape scaled down: MLA (q and kv low-rank projections, decoupled rotary part),
    # a dense first layer, then routed + shared experts (HF DeepseekV3ForCausalLM).
    "deepseek": dict(model_type="deepseek_v3", hidden_size=256, intermediate_size=688,
                     moe_intermediate_size=128, num_attention_heads=4, num_key_value_heads=4,
                     n_routed_experts=4, n_shared_experts=1, num_experts_per_tok=2,
                     first_k_dense_replace=1, q_lora_rank=64, kv_lora_rank=32, qk_rope_head_dim=16,
                     qk_nope_head_dim=32, v_head_dim=32, vocab_size=8192, max_position_embeddings=1024,
                     n_group=1, topk_group=1, rope_scaling=None),
}
LORA_TARGETS = {"gpt2": ["c_attn"], "default": ["q_proj", "k_proj", "v_proj", "o_proj"]}
DTYPES = ["fp32", "bf16", "autocast-bf16"]


def config(name, hidden=None):
    """The model's config; `hidden`: a narrower width (h != s, so that a (b, s, h) tensor and a
    (b, 1, s, s) one differ in size), the heads kept (head_dim = hidden / heads)."""
    kw = dict(MODELS[name])
    if hidden is not None:
        kw["n_embd" if kw["model_type"] == "gpt2" else "hidden_size"] = hidden
    return kw


def build(name, dtype, attn, ckpt, lora, layers=LAYERS, hidden=None):
    kw = config(name, hidden)
    mt = kw.pop("model_type")
    kw["n_layer" if mt == "gpt2" else "num_hidden_layers"] = layers
    cfg = AutoConfig.for_model(mt, **kw)
    torch.manual_seed(0)
    wdtype = torch.bfloat16 if dtype == "bf16" else torch.float32
    model = AutoModelForCausalLM.from_config(cfg, attn_implementation=attn, dtype=wdtype)
    model.train()
    if ckpt:
        model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})
    if lora:
        targets = LORA_TARGETS.get(name, LORA_TARGETS["default"])
        lc = LoraConfig(r=LORA_RANK, lora_alpha=LORA_ALPHA, lora_dropout=LORA_DROPOUT,
                        target_modules=targets, task_type="CAUSAL_LM")
        model = get_peft_model(model, lc)
        model.train()
    return cfg, model


def storages_bytes(tensors):
    seen = {}
    for t in tensors:
        st = t.untyped_storage()
        seen[st.data_ptr()] = st.nbytes()
    return sum(seen.values())


def run_step(model, opt, ids, dtype, vocab):
    amp = torch.autocast("cpu", dtype=torch.bfloat16) if dtype == "autocast-bf16" else contextlib.nullcontext()
    base = model.get_base_model() if hasattr(model, "get_base_model") else model
    with amp:
        with record_function("forward"):
            logits = model(input_ids=ids).logits
        with record_function("loss"):
            loss = base.loss_function(logits, ids, vocab_size=vocab)
        del logits
    with record_function("backward"):
        loss.backward()
    with record_function("optimizer"):
        opt.step()
    with record_function("zero_grad"):
        opt.zero_grad(set_to_none=True)
    return float(loss)


def saved_after_forward(model, ids, dtype, vocab):
    params = {p.untyped_storage().data_ptr() for p in model.parameters()}
    seen = {}

    def pack(t):
        st = t.untyped_storage()
        if st.data_ptr() not in params:
            seen[st.data_ptr()] = st.nbytes()
        return t

    amp = torch.autocast("cpu", dtype=torch.bfloat16) if dtype == "autocast-bf16" else contextlib.nullcontext()
    base = model.get_base_model() if hasattr(model, "get_base_model") else model
    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t), amp:
        logits = model(input_ids=ids).logits
        loss = base.loss_function(logits, ids, vocab_size=vocab)
    del logits, loss
    return sum(seen.values())


def walk(nodes):
    for n in nodes:
        yield n
        yield from walk(n.children)


def phase_of(node):
    while node is not None and node.name not in PHASES:
        node = node.parent
    return node.name if node is not None else "outside"


def curve(prof, baseline):
    """(peak bytes, phase and op at peak, live bytes at the end of each phase, the peak inside
    each phase) from the profiler's allocation events (every CPU allocation and free, with its size)."""
    allocs = []
    for n in walk(prof.profiler.kineto_results.experimental_event_tree()):
        if n.typed[0] == _EventType.Allocation:
            op = n.parent.name if n.parent is not None else "?"
            allocs.append((n.start_time_ns, n.typed[1].alloc_size, phase_of(n), op))
    allocs.sort(key=lambda a: a[0])
    live, peak, at = baseline, baseline, ("before", "")
    end_of, phase_peaks = {}, {}
    for _, delta, phase, op in allocs:
        live += delta
        end_of[phase] = live
        phase_peaks[phase] = max(phase_peaks.get(phase, 0), live)
        if live > peak:
            peak, at = live, (phase, op)
    return peak, at, end_of, phase_peaks


def measure(name, dtype, attn, ckpt, lora, shape=SHAPE, hidden=None):
    batch, seq, layers = shape
    cfg, model = build(name, dtype, attn, ckpt, lora, layers, hidden)
    vocab = cfg.vocab_size
    trainable = [p for p in model.parameters() if p.requires_grad]
    opt = torch.optim.AdamW(trainable, lr=1e-4, foreach=True)
    ids = torch.randint(0, vocab, (batch, seq), generator=torch.Generator().manual_seed(1))
    run_step(model, opt, ids, dtype, vocab)  # warm-up: creates the optimizer states
    gc.collect()
    param_bytes = storages_bytes(model.parameters())
    trainable_bytes = sum(p.numel() * p.element_size() for p in trainable)
    state = [v for s in opt.state.values() for v in s.values() if torch.is_tensor(v)]
    opt_bytes = storages_bytes(state)
    baseline = param_bytes + opt_bytes
    with profile(activities=[ProfilerActivity.CPU], profile_memory=True, record_shapes=False) as prof:
        run_step(model, opt, ids, dtype, vocab)
    peak, (phase, op), end_of, phase_peaks = curve(prof, baseline)
    saved = saved_after_forward(model, ids, dtype, vocab)
    row = {
        "model": name, "config": config(name, hidden), "layers": layers, "dtype": dtype,
        "attn_implementation": attn, "checkpointing": ckpt,
        "lora": {"rank": LORA_RANK, "alpha": LORA_ALPHA, "dropout": LORA_DROPOUT,
                 "targets": LORA_TARGETS.get(name, LORA_TARGETS["default"])} if lora else None,
        "params": sum(p.numel() for p in model.parameters()),
        "trainable_params": sum(p.numel() for p in trainable),
        "param_bytes": param_bytes, "grad_bytes": trainable_bytes, "optimizer_bytes": opt_bytes,
        "peak_bytes": peak, "phase_at_peak": phase, "op_at_peak": op,
        "phase_peaks_bytes": phase_peaks,
        "activation_peak_bytes": peak - baseline,
        "live_after_loss_bytes": end_of.get("loss"), "live_after_backward_bytes": end_of.get("backward"),
        "saved_after_forward_bytes": saved,
    }
    if shape != SHAPE:  # the header's batch and seq are those of the rows without them
        row["batch"], row["seq"] = batch, seq
    del model, opt, prof
    gc.collect()
    return row


def grid():
    """Rows in priority order: the plain step of every model, dtype and attention first; then
    LoRA, checkpointing and both on a subset (SDPA; LoRA on Llama and GPT-2, whose target names
    differ; checkpointing on Llama, GPT-2 and Mixtral) to keep the run near 20 minutes on 2 cores;
    DeepSeek (MLA + routed and shared experts behind a dense first layer) and GLM-4 eager only."""
    for dtype, name, attn in itertools.product(DTYPES, MODELS, ["eager", "sdpa"]):
        # MLA's q/k head dim (nope + rope) differs from its v head dim: CPU SDPA has no fused
        # kernel for that and runs its math path, which saves fp32 scores; CUDA's
        # memory-efficient kernel takes it. Its SDPA rows would measure a CPU-only path.
        if name == "deepseek" and attn == "sdpa":
            continue
        # GLM-4's CPU SDPA rows keep the attention output and o_proj's input as two storages
        # (Llama's share one: the kernel returns a transposed view that `contiguous` keeps);
        # which kernel and layout CUDA takes there is not established: eager only.
        if name == "glm4" and attn == "sdpa":
            continue
        yield name, dtype, attn, False, False
    if peft:
        for dtype, name in itertools.product(DTYPES, ["llama", "gpt2"]):
            yield name, dtype, "sdpa", False, True
        # Qwen3 LoRA: the frozen q/k-norms keep no normalised copy.
        for dtype in DTYPES:
            yield "qwen3", dtype, "sdpa", False, True
    for dtype, name in itertools.product(["fp32", "bf16"], ["llama", "gpt2", "mixtral"]):
        yield name, dtype, "sdpa", True, False
    if peft:
        for dtype in ["fp32", "bf16"]:
            yield "llama", dtype, "sdpa", True, True
    # torch.autocast with checkpointing: the cast cache and the recompute's copies (full
    # fine-tuning on Llama and GPT-2, LoRA on Llama).
    for name in ["llama", "gpt2"]:
        yield name, "autocast-bf16", "sdpa", True, False
    if peft:
        yield "llama", "autocast-bf16", "sdpa", True, True
    yield from grid_extension()
    yield from grid_extension_audit()
    yield from grid_completion()
    yield from grid_narrow()


def grid_extension():
    """The rows after the first 62 (issue 9's gaps): Qwen2 with checkpointing, LoRA and both;
    Mixtral LoRA (PEFT on the attention projections: its experts are fused 3-D parameters in
    transformers 5, no `nn.Linear` for a LoRA target); then the LONG shape on Llama, GPT-2 and
    Mixtral in fp32 and bf16 (SDPA, eager, SDPA with checkpointing)."""
    for dtype in ["fp32", "bf16"]:
        yield "qwen2", dtype, "sdpa", True, False
    if peft:
        for dtype in DTYPES:
            yield "qwen2", dtype, "sdpa", False, True
        for dtype in ["fp32", "bf16"]:
            yield "qwen2", dtype, "sdpa", True, True
        for dtype in DTYPES:
            yield "mixtral", dtype, "sdpa", False, True
    for attn, ckpt in [("sdpa", False), ("eager", False), ("sdpa", True)]:
        for dtype, name in itertools.product(["bf16", "fp32"], ["llama", "gpt2", "mixtral"]):
            yield name, dtype, attn, ckpt, False, LONG


def grid_extension_audit():
    """The rows after the first 90 (issue 9's acceptance audit, docs/notes/issue9-audit.md): the
    combinations of {Llama, Qwen2, GPT-2, Mixtral} x {fp32, bf16, autocast} x {eager, SDPA} x
    checkpointing x LoRA the grid above lacks, SDPA first (Qwen2 autocast with checkpointing, with
    and without LoRA; GPT-2 and Mixtral LoRA with checkpointing in every dtype; Mixtral autocast with
    checkpointing), then eager attention with checkpointing and with LoRA in fp32 and bf16 (the S^2
    scores recomputed in backward; the adapters beside eager attention)."""
    if peft:
        for dtype in DTYPES:
            yield "gpt2", dtype, "sdpa", True, True
            yield "mixtral", dtype, "sdpa", True, True
        yield "qwen2", "autocast-bf16", "sdpa", True, True
    yield "qwen2", "autocast-bf16", "sdpa", True, False
    yield "mixtral", "autocast-bf16", "sdpa", True, False
    for dtype, name in itertools.product(["bf16", "fp32"], ["llama", "gpt2", "qwen2", "mixtral"]):
        yield name, dtype, "eager", True, False
    if peft:
        for dtype, name in itertools.product(["bf16", "fp32"], ["llama", "gpt2", "qwen2", "mixtral"]):
            yield name, dtype, "eager", False, True


def grid_completion():
    """The rows after the first 115 (stop 40): the last 20 combinations of {Llama, Qwen2, GPT-2,
    Mixtral} x {fp32, bf16, autocast} x {eager, SDPA} x checkpointing x LoRA at the base shape:
    eager attention under autocast with checkpointing or with LoRA (8), then eager attention with
    LoRA and checkpointing together in every dtype (12). With them the 96 combinations are all
    measured."""
    names = ["llama", "gpt2", "qwen2", "mixtral"]
    for name in names:
        yield name, "autocast-bf16", "eager", True, False
    if peft:
        for name in names:
            yield name, "autocast-bf16", "eager", False, True
        for dtype, name in itertools.product(["bf16", "autocast-bf16", "fp32"], names):
            yield name, dtype, "eager", True, True


def grid_narrow():
    """The proof of two mechanisms at h = 192 != s = 256 (stop 40), where the base shape's
    h = s = 256 makes a (b, s, h) tensor and a (b, 1, s, s) one the same size: eager attention with
    LoRA (the attention output no one saves) and eager attention with checkpointing (the 4-D
    mask GPT-2's checkpoint saves as a layer input and Llama's holds in its closure), fp32."""
    for name in ["llama", "gpt2"]:
        if peft:
            yield name, "fp32", "eager", False, True, SHAPE, NARROW
        yield name, "fp32", "eager", True, False, SHAPE, NARROW


NARROW = 192


def key(name, dtype, attn, ckpt, lora, shape=SHAPE, hidden=None):
    tail = "" if shape == SHAPE else "/b{}s{}l{}".format(*shape)
    tail += "" if hidden is None else f"/h{hidden}"
    return f"{name}/{dtype}/{attn}/{ckpt}/{lora}{tail}"


def row_key(r):
    shape = (r.get("batch", B), r.get("seq", S), r["layers"])
    width = r["config"].get("n_embd", r["config"].get("hidden_size"))
    base = MODELS[r["model"]]
    hidden = None if width == base.get("n_embd", base.get("hidden_size")) else width
    return key(r["model"], r["dtype"], r["attn_implementation"], r["checkpointing"], r["lora"] is not None, shape,
               hidden)


def main():
    """Rows go to stdout as JSON lines as they finish (`--resume FILE`: only those FILE lacks;
    `--only KEY`: that row alone); with `--assemble FILE`, the JSON lines of FILE become
    validation/peak-measured.json, in grid order."""
    torch.set_num_threads(2)
    head = {"torch": torch.__version__, "transformers": transformers.__version__,
            "peft": peft.__version__ if peft else None, "batch": B, "seq": S,
            "optimizer": "torch.optim.AdamW(foreach=True)"}
    flag, arg = (sys.argv[1], sys.argv[2]) if len(sys.argv) > 2 else (None, None)
    if flag == "--assemble":
        order = {key(*args): i for i, args in enumerate(grid())}
        with open(arg) as f:
            rows = [json.loads(line) for line in f if line.strip()]
        head["rows"] = sorted(rows, key=lambda r: order[row_key(r)])
        json.dump(head, sys.stdout, indent=1, sort_keys=True)
        sys.stdout.write("\n")
        return
    done = set()
    if flag == "--resume":  # skip the rows FILE already has
        with open(arg) as f:
            done = {row_key(r) for r in map(json.loads, filter(str.strip, f))}
    for args in grid():
        if key(*args) in done or (flag == "--only" and key(*args) != arg):
            continue
        row = measure(*args)
        print(json.dumps(row, sort_keys=True), flush=True)

if __name__ == "__main__":
    main()
