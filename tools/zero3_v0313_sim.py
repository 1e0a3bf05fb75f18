#!/usr/bin/env python3
"""Diagnostic (not part of gpuplan's model): a timeline of DeepSpeed v0.3.13's ZeRO-3 parameter
coordinator on Narayanan et al. 2021's GPT-3 175B rows (Table 2: 384/768/1536 A100s, TP 1, PP 1,
4/2/1 x 2048 tokens per GPU, full recompute; published 144/88/44 TFLOP/s, Megatron count).

What it replays, from microsoft/DeepSpeed v0.3.13 deepspeed/runtime/zero/stage3.py:
- `fetch_sub_module`: a sub-module's parameters are all-gathered (one collective per tensor,
  partition_parameters.py `_allgather_param`) and, if any was fetched or in flight, the host
  waits for them and calls torch.cuda.synchronize() (`_synchronize_communication`): the device
  is idle before the sub-module's compute is launched.
- `prefetch_next_sub_modules`: only when nothing is in flight, the next not-available tensors of
  the trace are gathered until stage3_prefetch_bucket_size (5e7 elements) is reached: one
  GPT-3 weight (151M-604M elements) at a time.
- tensors under stage3_param_persistence_threshold (1e5) stay gathered; a released tensor is
  kept if reused within stage3_max_reuse_distance (1e9 elements) of sub-module work.
- each gradient is reduce-scattered separately after its backward; the next fetch's
  synchronize waits for it.
Communication costs: NCCL's ring (bandwidth given per GPU, NCCL's latency model as
crates/gpuplan-core/src/comm.rs: 8.4 us + 3.4 us per NVLink hop + 9.6 us per network hop).
Compute: gpuplan's own micro-batch compute for the row (57.77 s at 4 x 2048 tokens, scaled by
the micro-batch), spread over the sub-modules by their FLOPs.

Usage: python3 tools/zero3_v0313_sim.py  (prints the three rows at the node's 8 NICs, 200 GB/s x
0.75, and at one NIC per GPU, 25 GB/s x 0.75)."""

H, L, S, V = 12288, 96, 2048, 51200
COMPUTE_S_B4 = 57.77  # gpuplan's compute of one micro-batch of 4 x 2048 tokens (384-GPU row)
MEGATRON_FLOPS_B4 = 96 * 4 * S * L * H * H * (1 + S / (6 * H) + V / (16 * L * H))


def nccl_ring_latency(n):
    nodes = n // 8
    inter = nodes - 1 if nodes > 1 else 0
    return (8.4 + (n - 1 - inter) * 3.4 + inter * 9.6) * 1e-6


def trace(b):
    """(module id, tensor sizes, relative FLOPs) per sub-module, forward then backward with each
    layer's recompute forward before its backward (Megatron's GPT layer)."""
    tok = b * S
    lin = lambda p: 2 * tok * p
    mods = [([H, H], 0.0), ([3 * H * H, 3 * H], lin(3 * H * H)), ([], 4 * tok * S * H),
            ([H * H, H], lin(H * H)), ([H, H], 0.0), ([4 * H * H, 4 * H], lin(4 * H * H)),
            ([4 * H * H, H], lin(4 * H * H))]
    seq = [((l, i), ps, f, "f") for l in range(L) for i, (ps, f) in enumerate(mods)]
    for l in reversed(range(L)):
        seq += [((l, i), ps, f, "r") for i, (ps, f) in enumerate(mods)]
        seq += [((l, i), ps, 2 * f, "b") for i, (ps, f) in reversed(list(enumerate(mods)))]
    return seq


def step_seconds(n, b, bw):
    seq = trace(b)
    scale = COMPUTE_S_B4 * b / 4 / sum(f for _, _, f, _ in seq)
    gather = lambda p: 2 * p * (n - 1) / n / bw + nccl_ring_latency(n)
    keys = lambda k: [(seq[k][0], j, p) for j, p in enumerate(seq[k][1])]
    state, inflight = {}, []
    t = gpu = comm = red = 0.0
    gone = lambda x: x[2] >= 1e5 and x[:2] not in state

    def issue(xs):
        nonlocal comm
        for x in xs:
            comm = max(comm, t) + gather(x[2])
            state[x[:2]] = "in flight"
            inflight.append(x[:2])

    for k, (mid, ps, flops, phase) in enumerate(seq):
        ks = keys(k)
        need = [x for x in ks if gone(x)]
        issue(need)
        if need or any(state.get(x[:2]) == "in flight" for x in ks):
            t = max(t, gpu, comm, red)  # handle.wait() + torch.cuda.synchronize()
            for q in inflight:
                state[q] = "available"
            inflight.clear()
        if not inflight:  # prefetch up to the bucket
            pf, tot = [], 0
            for x in (x for j in range(k + 1, len(seq)) for x in keys(j)):
                if gone(x) and x[:2] not in [y[:2] for y in pf]:
                    pf.append(x)
                    tot += x[2]
                    if tot >= 5e7:  # get_params_to_prefetch returns at the bucket
                        break
            issue(pf)
        gpu = max(gpu, t) + flops * scale
        dist, reused = 0, False
        for j in range(k + 1, len(seq)):
            if seq[j][0] == mid:
                reused = True
                break
            dist += sum(seq[j][1])
            if dist >= 1e9:
                break
        if not (reused and dist < 1e9):
            for x in ks:
                if x[2] >= 1e5 and state.get(x[:2]) == "available":
                    del state[x[:2]]
        if phase == "b":
            for x in ks:
                red = max(red, gpu, t) + gather(x[2])
    return max(t, gpu, comm, red)


if __name__ == "__main__":
    for label, bw in [("node's 8 NICs, 200 GB/s x 0.75", 150e9), ("one NIC per GPU, 25 GB/s x 0.75", 18.75e9)]:
        print(label)
        for n, b, published in [(384, 4, 144), (768, 2, 88), (1536, 1, 44)]:
            st = step_seconds(n, b, bw)
            tflops = MEGATRON_FLOPS_B4 * b / 4 / st / 1e12
            print(f"  {n:5} GPUs: step {st:6.1f} s, {tflops:5.0f} TFLOP/s vs {published} ({tflops / published - 1:+.0%})")
