#!/usr/bin/env python3
"""Bytes per token one BERT layer saves for backward (bf16, CPU, no dropout), at 256 and 512 tokens.

A check of the LayerNorm accounting outside GPT-2 (round 10): BERT's post-LN layers have separate
q/k/v projections, so GPT-2's fused c_attn storage does not apply and each LayerNorm saves its
input alone (2h). Same method as tools/measure_activations.py (saved-tensor hooks, unique
storages, parameters excluded, 2 layers minus 1).

    python3 tools/measure_bert_layernorm.py > validation/bert-layernorm-measured.json
"""
import json
import sys

import torch
import transformers
from transformers import AutoConfig, AutoModelForMaskedLM

B = 2
CONFIG = dict(hidden_size=384, num_attention_heads=6, intermediate_size=1536, vocab_size=4096,
              hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0, max_position_embeddings=1024)


def measure(seq, layers, attn):
    cfg = AutoConfig.for_model("bert", num_hidden_layers=layers, **CONFIG)
    torch.manual_seed(0)
    model = AutoModelForMaskedLM.from_config(cfg, attn_implementation=attn, dtype=torch.bfloat16)
    model.train()
    params = {p.untyped_storage().data_ptr() for p in model.parameters()}
    seen = {}

    def pack(t):
        st = t.untyped_storage()
        if st.data_ptr() not in params and st.data_ptr() not in seen:
            seen[st.data_ptr()] = st.nbytes()
        return t

    ids = torch.randint(0, cfg.vocab_size, (B, seq))
    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        model(input_ids=ids, labels=ids)
    return sum(seen.values())


def main():
    out = {"torch": torch.__version__, "transformers": transformers.__version__, "batch": B,
           "config": CONFIG, "per_layer_bytes": {}}
    for seq in (256, 512):
        for attn in ("sdpa", "eager"):
            out["per_layer_bytes"][f"{attn}-s{seq}"] = measure(seq, 2, attn) - measure(seq, 1, attn)
    json.dump(out, sys.stdout, indent=1, sort_keys=True)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
