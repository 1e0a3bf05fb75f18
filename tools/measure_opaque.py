#!/usr/bin/env python3
"""Measure FLOPs per sample and activation bytes kept for backward (bf16) for the presets given
by totals: ResNet-50 (torchvision) at 224x224 and the SDXL UNet (diffusers, SDXL-base config,
random weights) at a 1024x1024 image = 128x128 latent. FLOPs come from
torch.utils.flop_counter.FlopCounterMode (multiply and add counted separately); activation bytes
from unique storages saved for backward (parameters excluded), as in measure_activations.py.

    pip install torch torchvision diffusers
    python3 tools/measure_opaque.py > validation/opaque-measured.json
"""
import json
import sys

import torch
from torch.utils.flop_counter import FlopCounterMode


def saved_bytes(model, run):
    params = {p.untyped_storage().data_ptr() for p in model.parameters()}
    seen = {}

    def pack(t):
        st = t.untyped_storage()
        if st.data_ptr() not in params and st.data_ptr() not in seen:
            seen[st.data_ptr()] = st.nbytes()
        return t

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        out = run()
    del out
    return sum(seen.values())


def flops(run):
    with torch.no_grad():
        fc = FlopCounterMode(display=False)
        with fc:
            run()
    return fc.get_total_flops()


def resnet50():
    import torchvision
    m = torchvision.models.resnet50().to(torch.bfloat16).train()
    x = torch.randn(2, 3, 224, 224, dtype=torch.bfloat16)
    return {
        "params": sum(p.numel() for p in m.parameters()),
        "forward_flops_per_sample": flops(lambda: m(x)) / 2,
        "activation_bytes_per_sample": saved_bytes(m, lambda: m(x).float().sum()) / 2,
        "reference_input": "224x224 RGB image, batch 2, bf16, train mode (BatchNorm)",
    }


SDXL_UNET = dict(
    sample_size=128, in_channels=4, out_channels=4, layers_per_block=2,
    block_out_channels=(320, 640, 1280),
    down_block_types=("DownBlock2D", "CrossAttnDownBlock2D", "CrossAttnDownBlock2D"),
    up_block_types=("CrossAttnUpBlock2D", "CrossAttnUpBlock2D", "UpBlock2D"),
    transformer_layers_per_block=(1, 2, 10), attention_head_dim=(5, 10, 20), cross_attention_dim=2048,
    use_linear_projection=True, addition_embed_type="text_time", addition_time_embed_dim=256,
    projection_class_embeddings_input_dim=2816,
)


def sdxl_unet(latent):
    from diffusers import UNet2DConditionModel
    m = UNet2DConditionModel(**SDXL_UNET).to(torch.bfloat16).train()
    x = torch.randn(1, 4, latent, latent, dtype=torch.bfloat16)
    t = torch.tensor([500])
    enc = torch.randn(1, 77, 2048, dtype=torch.bfloat16)
    cond = {"text_embeds": torch.randn(1, 1280, dtype=torch.bfloat16), "time_ids": torch.randn(1, 6, dtype=torch.bfloat16)}
    run = lambda: m(x, t, encoder_hidden_states=enc, added_cond_kwargs=cond).sample
    r = {"params": sum(p.numel() for p in m.parameters()), "forward_flops_per_sample": flops(run)}
    r["activation_bytes_per_sample"] = saved_bytes(m, lambda: run().float().sum())
    r["reference_input"] = f"{latent * 8}x{latent * 8} image = {latent}x{latent}x4 latent, 77 text tokens, batch 1, bf16"
    return r


def main():
    which = sys.argv[1:] or ["resnet50", "sdxl"]
    out = {"torch": torch.__version__, "models": {}}
    if "resnet50" in which:
        out["models"]["ResNet-50"] = resnet50()
    if "sdxl" in which:
        out["models"]["SDXL-UNet"] = sdxl_unet(128)
    json.dump(out, sys.stdout, indent=1, sort_keys=True)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
