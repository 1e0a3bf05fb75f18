#!/usr/bin/env python3
"""One whole training step of tiny HF models under torch.compile, on CPU: peak, phase peaks and
saved-after-forward bytes, as tools/measure_peak.py measures the eager step.

Each decoder layer's `forward` is wrapped in `torch.compile` (Inductor; AOTAutograd's min-cut
partitioner chooses what the compiled graph saves for backward), as torchtune compiles its layers
(`training.compile_model`); the embedding, final norm, LM head and loss stay eager. (HF Trainer's
`torch_compile=True` compiles the whole forward instead: with gradient checkpointing its single
backward graph was measured to recompute every layer before the first gradient, so the
checkpointed backward peak is not one layer's: not modelled.) bf16 weights (pure bf16), SDPA, Llama and Qwen2 shapes, full
fine-tuning and LoRA (dropout 0: torchtune's default; PEFT's dropout under Inductor is a separate
mechanism not measured here), with and without HF's non-reentrant gradient checkpointing.
Two warm-up steps compile the graphs before the measured one.

Usage: python tools/measure_compiled.py > validation/compiled-peak-measured.json
(torch 2.15, transformers 5.24, peft 0.21.2 as in validation/peak-measured.json)
"""
import gc
import json
import sys

import torch
import transformers
from torch.profiler import ProfilerActivity, profile

sys.path.insert(0, __file__.rsplit("/", 1)[0])
import measure_peak as mp  # noqa: E402

mp.LORA_DROPOUT = 0.0
TARGETS = {"attn": ["q_proj", "k_proj", "v_proj", "o_proj"],
           "all": ["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"]}


def measure(name, ckpt, lora):
    mp.LORA_TARGETS["default"] = TARGETS[lora] if lora else TARGETS["attn"]
    cfg, model = mp.build(name, "bf16", "sdpa", ckpt, bool(lora))
    vocab = cfg.vocab_size
    # torchtune's layout (training.compile_model): each decoder layer compiled on its own, the
    # embedding, final norm, LM head and loss eager; under checkpointing the (eager) checkpoint
    # wrapper sits outside the compiled layer, so backward recomputes one layer at a time.
    base = model.get_base_model() if hasattr(model, "get_base_model") else model
    for layer in base.model.layers:
        layer.forward = torch.compile(layer.forward)
    trainable = [p for p in model.parameters() if p.requires_grad]
    opt = torch.optim.AdamW(trainable, lr=1e-4, foreach=True)
    ids = torch.randint(0, vocab, (mp.B, mp.S), generator=torch.Generator().manual_seed(1))
    for _ in range(2):  # compile, then a step with the optimizer states in place
        mp.run_step(model, opt, ids, "bf16", vocab)
    gc.collect()
    param_bytes = mp.storages_bytes(model.parameters())
    state = [v for s in opt.state.values() for v in s.values() if torch.is_tensor(v)]
    opt_bytes = mp.storages_bytes(state)
    baseline = param_bytes + opt_bytes
    with profile(activities=[ProfilerActivity.CPU], profile_memory=True) as prof:
        mp.run_step(model, opt, ids, "bf16", vocab)
    peak, (phase, op), end_of, phase_peaks = mp.curve(prof, baseline)
    saved = mp.saved_after_forward(model, ids, "bf16", vocab)
    row = {
        "model": name, "config": mp.MODELS[name], "layers": mp.LAYERS, "dtype": "bf16",
        "attn_implementation": "sdpa", "checkpointing": ckpt, "compiled": True,
        "lora": {"rank": mp.LORA_RANK, "alpha": mp.LORA_ALPHA, "dropout": 0.0,
                 "targets": TARGETS[lora]} if lora else None,
        "param_bytes": param_bytes, "grad_bytes": sum(p.numel() * p.element_size() for p in trainable),
        "optimizer_bytes": opt_bytes, "peak_bytes": peak, "phase_at_peak": phase, "op_at_peak": op,
        "phase_peaks_bytes": phase_peaks, "live_after_forward_bytes": end_of.get("forward"),
        "saved_after_forward_bytes": saved,
    }
    del model, opt, prof
    gc.collect()
    torch._dynamo.reset()
    return row


# The same Llama with a 256-token vocabulary: the logits no longer dominate, so the peak falls in
# the layers' backward (the recomputed layer's saved set under checkpointing).
mp.MODELS["llama_v256"] = dict(mp.MODELS["llama"], vocab_size=256)


def main():
    torch.set_num_threads(2)
    rows = []
    grid = [(n, ck, lo) for n in ["llama", "qwen2"] for ck in [False, True] for lo in [None, "attn", "all"]]
    grid += [("llama_v256", ck, lo) for ck in [False, True] for lo in [None, "all"]]
    for name, ckpt, lora in grid:
        rows.append(measure(name, ckpt, lora))
        print(json.dumps({k: rows[-1][k] for k in ("model", "checkpointing", "lora", "peak_bytes",
                                                    "phase_at_peak", "op_at_peak")}), file=sys.stderr)
    doc = {"generated_by": "tools/measure_compiled.py", "torch": torch.__version__,
           "transformers": transformers.__version__, "peft": mp.peft.__version__ if mp.peft else None,
           "batch": mp.B, "seq": mp.S, "optimizer": "torch.optim.AdamW(foreach=True)", "rows": rows}
    json.dump(doc, sys.stdout, indent=1, sort_keys=True)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
