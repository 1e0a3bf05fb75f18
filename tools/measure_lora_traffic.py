#!/usr/bin/env python3
"""List the element-wise ops PEFT's LoRA layer runs around one adapter's GEMMs, with the bytes
each reads and writes, per element of the adapter's input (d_in) and output (d_out), for one
forward and one backward (issue 10, stop 42: cases t-qwen1-*; compute.rs `peft_adapter_pass`).

One frozen bf16 nn.Linear(D_IN, D_OUT) wrapped by PEFT LoRA (r 8, alpha 16, dropout 0.05,
PEFT's default fp32 adapters, autocast_adapter_dtype=True) runs under torch.autocast(bf16) as the
HF Trainer's --bf16 runs it; its input requires a gradient (a layer's input under
enable_input_require_grads). A TorchDispatchMode sees every aten op below autograd, those of the
forward and those the autograd engine runs in backward, with its real tensors: bytes = the
tensor inputs read + the outputs written. The GEMMs (mm, addmm, ...) are set apart (compute.rs
times them on the roofline), and so are the ops on the adapter weights alone (autocast's per-call
bf16 copy of lora_A/lora_B and their gradients' casts: r x d elements, not per token).

Where CPU differs from CUDA: `F.dropout` runs CUDA's fused `native_dropout` (read p, write p and a
1-byte bool mask; backward `native_dropout_backward`: read the gradient and the mask, write p),
while CPU's `_dropout_impl` makes a float noise tensor (`bernoulli_`, `div_`, `mul`). The script
reports the CPU ops as run and states the dropout by CUDA's kernel ("dropout_cuda_bytes").

    /tmp/mem20venv/bin/python tools/measure_lora_traffic.py > validation/lora-traffic-measured.json
"""
import json
import sys

import torch
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_flatten

import peft
from peft import LoraConfig, get_peft_model

D_IN, D_OUT, TOKENS, RANK = 64, 96, 512, 8
GEMMS = {"mm", "addmm", "bmm", "matmul", "linear", "baddbmm"}
DROPOUT_CPU = {"bernoulli_", "bernoulli", "div_", "div"}


class Log(TorchDispatchMode):
    def __init__(self):
        super().__init__()
        self.ops = []

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        ins = [t for t in tree_flatten((args, kwargs))[0] if isinstance(t, torch.Tensor)]
        outs = [t for t in tree_flatten(out)[0] if isinstance(t, torch.Tensor)]
        self.ops.append(dict(op=func.overloadpacket.__name__,
                             inputs=[(str(t.dtype), t.numel(), t.element_size()) for t in ins],
                             outputs=[(str(t.dtype), t.numel(), t.element_size()) for t in outs]))
        return out


class Base(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = torch.nn.Linear(D_IN, D_OUT, bias=False)

    def forward(self, x):
        return self.proj(x)


VIEWS = {"t", "detach", "view", "_unsafe_view", "transpose", "expand", "alias", "as_strided",
         "ones_like"}  # ones_like: the script's own output gradient


def per_element(ops, weights):
    """Each op's bytes (tensor inputs read + outputs written) per element of the adapter's input
    (its tensors have TOKENS x D_IN elements) or output (TOKENS x D_OUT). Left out: the GEMMs,
    views, and ops whose every tensor is weight-sized (the adapters' per-call weight casts, not
    per token). CPU's dropout ops (two-fp32-input mul, bernoulli_, div_, empty_like of the noise)
    are marked `cpu_dropout`: CUDA runs native_dropout(_backward) instead."""
    rows, total = [], {"per_in": 0.0, "per_out": 0.0, "cpu_dropout_per_in": 0.0}
    for o in ops:
        tensors = o["inputs"] + o["outputs"]
        sizes = [n for _, n, _ in tensors]
        if o["op"] in GEMMS or o["op"] in VIEWS or all(n in weights or n == 1 for n in sizes):
            continue
        side = "per_in" if TOKENS * D_IN in sizes else "per_out"
        width = D_IN if side == "per_in" else D_OUT
        b = sum(n * e for _, n, e in tensors) / (TOKENS * width)
        fp32_pair = o["op"] == "mul" and len(o["inputs"]) == 2 and all(d == "torch.float32"
                                                                     for d, _, _ in o["inputs"])
        dropout = o["op"] in DROPOUT_CPU or o["op"] == "empty_like" or fp32_pair
        rows.append(dict(o, side=side, bytes_per_element=b, cpu_dropout=dropout))
        total["cpu_dropout_per_in" if dropout else side] += b
    return rows, total


def run(phase_fn):
    log = Log()
    with log:
        phase_fn()
    return log.ops


def main():
    torch.manual_seed(0)
    model = Base().to(torch.bfloat16)
    model = get_peft_model(model, LoraConfig(r=RANK, lora_alpha=16, lora_dropout=0.05,
                                             target_modules=["proj"], bias="none"))
    model.train()
    lora_a = model.base_model.model.proj.lora_A["default"].weight
    weights = {RANK * D_IN, RANK * D_OUT, D_IN * D_OUT}
    x = torch.randn(TOKENS, D_IN, dtype=torch.bfloat16, requires_grad=True)
    state = {}

    def fwd():
        with torch.autocast("cpu", dtype=torch.bfloat16):
            state["y"] = model(x)

    def bwd():
        state["y"].backward(torch.ones_like(state["y"]))

    f_rows, f_tot = per_element(run(fwd), weights)
    b_rows, b_tot = per_element(run(bwd), weights)
    p, a = lora_a.element_size(), 2
    cuda_dropout = 2 * p + 1
    out = dict(
        versions=dict(torch=torch.__version__, peft=peft.__version__),
        shape=dict(d_in=D_IN, d_out=D_OUT, tokens=TOKENS, rank=RANK, adapter_dtype=str(lora_a.dtype),
                   base_dtype="torch.bfloat16", autocast="bf16", lora_dropout=0.05),
        forward_ops=f_rows, backward_ops=b_rows,
        forward=f_tot, backward=b_tot,
        dropout_cuda_bytes_per_in=dict(forward=cuda_dropout, backward=cuda_dropout,
                                       note="native_dropout: read p, write p + 1-byte mask; backward: "
                                            "read p + mask, write p"),
        # The join of the adapter to the base path, already in compute.rs adapter_seconds:
        # `result + ...` (forward, per_out) and the input gradient's sum (backward, per_in).
        join_add=dict(forward_per_out=3 * a, backward_per_in=3 * a),
        # What compute.rs peft_adapter_pass charges per pass (each of forward and backward).
        model_per_pass=dict(per_in=(a + p) + cuda_dropout + (p + 2), per_out=2 * a),
        measured_per_pass=dict(
            forward=dict(per_in=f_tot["per_in"] + cuda_dropout, per_out=f_tot["per_out"] - 3 * a),
            backward=dict(per_in=b_tot["per_in"] - 3 * a + cuda_dropout, per_out=b_tot["per_out"])),
    )
    json.dump(out, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main()
