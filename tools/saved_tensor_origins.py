#!/usr/bin/env python3
"""List every tensor one forward + loss saves for backward, with its size, shape, dtype and the
transformers/PEFT/checkpoint source line that saved it: the per-tensor reading behind the
mechanisms in tests/measured_peak.rs (the same models, builds and saved-tensor hooks as
tools/measure_peak.py; unique storages that are not parameters).

    python3 tools/saved_tensor_origins.py MODEL DTYPE ATTN CKPT LORA [HIDDEN]
    python3 tools/saved_tensor_origins.py llama fp32 eager 0 1 192   # eager + LoRA at h = 192
    python3 tools/saved_tensor_origins.py gpt2 fp32 eager 1 0 192    # eager + checkpointing

Read at stop 40 (torch 2.15.0, transformers 5.24.0, peft 0.21.2, h = 192 != s = 256): eager
attention with LoRA saves no (b, s, h) attention output (SDPA saves its output), and GPT-2's
checkpoint saves the (b, 1, s, s) eager mask as a layer input (Llama's passes it as a keyword).
"""
import contextlib
import sys
import traceback

import torch

import measure_peak as m

KEEP = ("transformers", "peft", "checkpoint")


def origin():
    frames = [f for f in traceback.extract_stack()[:-2] if any(k in f.filename for k in KEEP)]
    return " <- ".join(f"{f.filename.split('/')[-1]}:{f.lineno}:{f.name}" for f in frames[-2:][::-1])


def main():
    name, dtype, attn = sys.argv[1:4]
    ckpt, lora = sys.argv[4] == "1", sys.argv[5] == "1"
    hidden = int(sys.argv[6]) if len(sys.argv) > 6 else None
    torch.set_num_threads(1)
    cfg, model = m.build(name, dtype, attn, ckpt, lora, hidden=hidden)
    ids = torch.randint(0, cfg.vocab_size, (m.B, m.S), generator=torch.Generator().manual_seed(1))
    params = {p.untyped_storage().data_ptr() for p in model.parameters()}
    seen = {}

    def pack(t):
        st = t.untyped_storage()
        if st.data_ptr() not in params and st.data_ptr() not in seen:
            seen[st.data_ptr()] = (st.nbytes(), tuple(t.shape), str(t.dtype), origin())
        return t

    amp = torch.autocast("cpu", dtype=torch.bfloat16) if dtype == "autocast-bf16" else contextlib.nullcontext()
    base = model.get_base_model() if hasattr(model, "get_base_model") else model
    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t), amp:
        logits = model(input_ids=ids).logits
        base.loss_function(logits, ids, vocab_size=cfg.vocab_size)
    for nbytes, shape, dt, where in seen.values():
        print(f"{nbytes:10d} {str(shape):24s} {dt:15s} {where}")
    print("total", sum(v[0] for v in seen.values()))


if __name__ == "__main__":
    main()
