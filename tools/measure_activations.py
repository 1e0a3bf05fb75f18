#!/usr/bin/env python3
"""Count the activation bytes HuggingFace models keep for backward, exactly, on CPU.

Builds small models from configs (random weights: no download), runs one training forward
(+ causal-LM loss) in bf16 under torch.autograd.graph.saved_tensors_hooks, and sums the bytes
of the unique storages saved for backward, excluding parameters. Running each config with L and
L+1 layers isolates the per-layer cost; the rest is embeddings + final norm + logits/loss.

Output: validation/activations-measured.json, checked by the Rust test
crates/gpuplan-core/tests/measured_activations.rs against gpuplan's HuggingFace profile.

    pip install torch transformers   # CPU is enough
    python3 tools/measure_activations.py > validation/activations-measured.json
    python3 tools/measure_activations.py 512 > validation/activations-measured-s512.json

The optional argument is the sequence length (default 256). The second file separates per-token
terms from per-attention-score terms (a·s doubles, h does not): GPT-2's extra 4h per layer over
SDPA stays 4h at 512 tokens, so it is a per-token term (the fused c_attn output that SDPA's saved
query keeps alive), not a per-score one.
"""
import json
import sys

import torch
import transformers
from transformers import AutoModelForCausalLM, AutoConfig

B, S = 2, int(sys.argv[1]) if len(sys.argv) > 1 else 256

CONFIGS = {
    "llama-gqa-tiny": dict(model_type="llama", hidden_size=512, intermediate_size=1408, num_attention_heads=8,
                           num_key_value_heads=2, vocab_size=4096, max_position_embeddings=1024),
    "qwen2-tiny": dict(model_type="qwen2", hidden_size=512, intermediate_size=1536, num_attention_heads=8,
                       num_key_value_heads=4, vocab_size=4096, max_position_embeddings=1024),
    "mistral-mha-tiny": dict(model_type="mistral", hidden_size=384, intermediate_size=1024, num_attention_heads=6,
                             num_key_value_heads=6, vocab_size=4096, max_position_embeddings=1024, sliding_window=None),
    "gpt2-tiny": dict(model_type="gpt2", n_embd=384, n_head=6, vocab_size=4096, n_positions=1024,
                      attn_pdrop=0.0, resid_pdrop=0.0, embd_pdrop=0.0),
}


def measure(cfg_kwargs, layers, attn):
    kw = dict(cfg_kwargs)
    mt = kw.pop("model_type")
    if mt == "gpt2":
        kw["n_layer"] = layers
    else:
        kw["num_hidden_layers"] = layers
    cfg = AutoConfig.for_model(mt, **kw)
    torch.manual_seed(0)
    model = AutoModelForCausalLM.from_config(cfg, attn_implementation=attn, torch_dtype=torch.bfloat16)
    model.train()
    params = {p.untyped_storage().data_ptr() for p in model.parameters()}
    seen = {}

    def pack(t):
        st = t.untyped_storage()
        ptr = st.data_ptr()
        if ptr not in params and ptr not in seen:
            seen[ptr] = st.nbytes()
        return t

    ids = torch.randint(0, cfg.vocab_size, (B, S))
    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        out = model(input_ids=ids, labels=ids)
    total = sum(seen.values())
    del out
    return total


def main():
    results = {"torch": torch.__version__, "transformers": transformers.__version__, "batch": B, "seq": S, "cases": {}}
    for name, cfg in CONFIGS.items():
        for attn in ["eager", "sdpa"]:
            one = measure(cfg, 1, attn)
            two = measure(cfg, 2, attn)
            results["cases"][f"{name}-{attn}"] = {
                "config": cfg,
                "attn_implementation": attn,
                "per_layer_bytes": two - one,
                "outside_layers_bytes": one - (two - one),
                "total_bytes_1_layer": one,
            }
    json.dump(results, sys.stdout, indent=1, sort_keys=True)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
