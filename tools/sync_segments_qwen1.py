#!/usr/bin/env python3
"""Stop 37 (issue 10): would the host-GPU syncs of the Qwen (v1) README's runs move its speed rows?

Between two host syncs the host may run ahead of the GPU, so a segment takes max(host, GPU) and
the segments add. This script charges that on top of the estimate's own numbers (it fits
nothing): for every case below it runs `gpuplan estimate --format json` on the case's workload
and reads the step's host time (host_dispatch.host_s), its exposed part and the optimizer step,
so the GPU's time per micro-batch is (step - exposed - optimizer) / micro-batches.

The syncs (docs/methodology.md, "Host-GPU syncs of the Qwen (v1) runs") split each micro-batch
at most as follows; every bound below is generous to the mechanism:
  * every micro-batch starts with an empty CUDA queue (HF Trainer's per-micro-batch
    isnan/isinf test of the loss; DeepSpeed ZeRO-3's reduce stream synchronized after every
    backward): the GPU cannot start the backward before the host has issued the forward, so a
    micro-batch takes max(H, G, H_fwd + G_rest) ("ramp");
  * ZeRO-3's reduce-event window (at most 2 reduce events in flight) couples host and GPU in
    the backward; as an upper bound, every phase of every layer (forward, checkpoint replay,
    backward) is charged as its own segment: sum of max(h_i, g_i) ("segments");
  * the ceiling: host and GPU never overlap, H + G ("serial").
Host phase split per layer (validation/dispatch-measured.json via train/dispatch.rs's tables):
the replay = (full recompute - no recompute) of the same stack (ops, launches and the time
outside the ops, checkpoint machinery included, so generous), the first forward under no_grad
taken equal to it, the backward the rest; ZeRO-3's hooks split the same way from their
no-recompute/recompute rows. GPU split: forward = replay = 1/3 of the compute under LoRA (the
frozen base computes no weight gradient), 1/4 with every weight trained; ZeRO-3's collectives
charged to the GPU side of the phase that waits for them.

Usage: tools/sync_segments_qwen1.py [path/to/gpuplan] > validation/sync-segments-qwen1.json
"""
import glob
import json
import os
import subprocess
import sys
import tempfile
import tomllib

OP_S, VIEW_S = 8e-6, 0.7e-6
# train/dispatch.rs QWEN_V1: (ops, launch, outside_s) per layer; frozen + 5 adapters for LoRA
# (Qwen's 4 targets are 5 adapters a layer: c_proj names the attention's and the MLP's output).
QWEN = {
    "norec": {"full": (218, 121, 436.8e-6), "frozen": (191, 116, 408.0e-6), "adapter": (32, 17, 74.8e-6)},
    "rec": {"full": (292, 166, 945.5e-6), "frozen": (265, 161, 995.4e-6), "adapter": (39, 23, 118.6e-6)},
    # Zero3Host per layer: ops, launch, collectives, outside_s
    "z3_norec": (168, 26, 13, 2179.4e-6),
    "z3_rec": (198, 26, 13, 2831.8e-6),
}


def secs(ops, launch, outside):
    return launch * OP_S + (ops - launch) * VIEW_S + outside


def layer_host(kind, lora, adapters):
    t = QWEN[kind]
    if lora:
        o, l, s = t["frozen"]
        ao, al, as_ = t["adapter"]
        return secs(o + adapters * ao, l + adapters * al, s + adapters * as_)
    return secs(*t["full"])


def z3_host(kind):
    o, l, c, s = QWEN[kind]
    return secs(o + c, l + c, s)


def estimate(gpuplan, case):
    txt = open(case).read()
    body = txt[txt.index("[workload]"):].replace("[workload.", "[").replace("[workload]\n", "")
    with tempfile.NamedTemporaryFile("w", suffix=".toml", delete=False) as f:
        f.write(body)
    out = subprocess.run([gpuplan, "estimate", "-w", f.name, "--format", "json"],
                         capture_output=True, text=True, check=True).stdout
    os.unlink(f.name)
    return json.loads(out)["estimate"]["step"]


def analyse(gpuplan, case):
    c = tomllib.load(open(case, "rb"))
    w = c["workload"]
    t = w["training"]
    step = estimate(gpuplan, case)
    hd = step.get("host_dispatch")
    mb = t.get("grad_accum", 1)
    row = {"id": c["id"], "published": c["published"], "predicted": step["tokens_per_second_per_gpu"],
           "step_s": step["step"]}
    if not hd:
        row["note"] = "no host dispatch modelled (not a counted loop): nothing to segment"
        return row
    tokens_gpu = step["tokens_per_second_per_gpu"] * step["step"]
    opt = step.get("optimizer", 0.0)
    gpu_side = step["step"] - hd["exposed_s"] - opt
    H, G = hd["host_s"] / mb, gpu_side / mb
    lora = t["task"] == "lora"
    zero3 = t.get("deepspeed") and t.get("parallel", {}).get("zero") == 3
    adapters = 5.0  # c_attn, c_proj (attention and MLP), w1, w2: 5 adapters a layer
    rec, norec = layer_host("rec", lora, adapters), layer_host("norec", lora, adapters)
    replay = max(rec - norec, 0.0)
    z3_replay = z3_host("z3_rec") - z3_host("z3_norec") if zero3 else 0.0
    z3_layer = z3_host("z3_rec") if zero3 else 0.0
    # Per-layer phases summed over the layers (the fixed part spread the same way): the number of
    # layers cancels, so each phase is a share of the micro-batch.
    share = (replay + z3_replay) / max(rec + z3_layer, 1e-12)
    h_f = h_r = share * H
    h_b = max(H - h_f - h_r, 0.0)
    gf = 1 / 3 if lora else 1 / 4
    g_f = g_r = gf * G
    g_b = G - g_f - g_r
    ramp = max(H, G, h_f + (1 - gf) * G)
    seg = max(h_f, g_f) + max(h_r, g_r) + max(h_b, g_b) if zero3 else ramp
    serial = H + G
    cur = max(H, G)

    def tput(mb_s):
        s = step["step"] - mb * cur + mb * mb_s
        return tokens_gpu / s

    pub = c["published"]
    row.update({
        "micro_batches": mb, "host_mb_s": round(H, 5), "gpu_mb_s": round(G, 5),
        "host_fwd_share": round(share, 3),
        "error_now_pct": round(100 * (row["predicted"] / pub - 1), 1),
        "error_ramp_pct": round(100 * (tput(ramp) / pub - 1), 1),
        "error_segments_pct": round(100 * (tput(seg) / pub - 1), 1),
        "error_serial_pct": round(100 * (tput(serial) / pub - 1), 1),
    })
    return row


def main():
    gpuplan = sys.argv[1] if len(sys.argv) > 1 else "target/release/gpuplan"
    cases = sorted(glob.glob("cases/t-qwen1-*.toml"))
    ds = [p for p in sorted(glob.glob("cases/*.toml"))
          if "deepspeed = true" in open(p).read() and p not in cases
          and 'kind = "train_throughput"' in open(p).read()]
    rows = [analyse(gpuplan, p) for p in cases + ds]
    json.dump({"what": __doc__.strip().splitlines()[0], "host_op_s": OP_S, "host_view_s": VIEW_S,
               "rows": rows}, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main()
