#!/usr/bin/env python3
"""Tensor-parallel serving rows against a single-GPU row of equal per-GPU work (stop 42; an analysis).

A TP rank of Llama-2-70B at TP 4 holds 213.9M parameters per layer (q, o: 8192^2; k, v: 8192 x 1024;
gate, up, down: 8192 x 28672; all / 4), Llama-2-7B at TP 1 202.4M (4 x 4096^2 + 3 x 4096 x 11008):
the same weight bytes and, at one prompt length, the same GEMM FLOPs per layer and rank (x1.057),
with GEMMs of similar depth after split-K. Falcon-180B at TP 8 holds 277.5M (qkv 14848 x 15872,
dense 14848^2, MLP 2 x 14848 x 59392; / 8; x1.371). So within one table (same engine release, same
chip, same harness, batch 1, 128 prompt tokens, one output token) the per-layer time of the TP row
less `ratio` x the per-layer time of the Llama-7B TP 1 row is what the TP rank pays that the single
GPU does not: its two all-reduces per layer (TensorRT-LLM v0.5 passes tp_group to the attention and
MLP row-parallel layers; the Falcon of v0.5 too, infer.rs `tp_allreduces_per_layer`), up to the
shape differences of the GEMMs. The fixed time per call F (host work, embedding, LM head, sampling)
is unknown; the model charges 3 ms (engine_prefill_overhead_s), so 0, 1.5 and 3 ms are shown.

The same comparison is made for the modelled times (docs/accuracy.md at 300bc29a), which gives what
the model charges per all-reduce in the same frame; the published residual per all-reduce minus the
modelled one is what an all-reduce term would have to add. Published figures are whole ms
(TensorRT-LLM docs/source/performance.md @138f96d4, low-latency tables, data from v0.5), so a 7 ms
row is 6.5-7.5 ms: the columns `lo`/`hi` carry that rounding for both rows.

Nothing here sets a constant of the model. Run from the repo root: python3 tools/tp_equal_work.py
"""

LAYER_PARAMS = {
    "llama7b": 4 * 4096**2 + 3 * 4096 * 11008,
    "llama70b": (2 * 8192**2 + 2 * 8192 * 1024 + 3 * 8192 * 28672),
    "falcon180b": (14848 * (232 + 16) * 64 + 14848**2 + 2 * 14848 * 59392),
}
LAYERS = {"llama7b": 32, "llama70b": 80, "falcon180b": 80}

# (chip, model, tp, published ms, modelled ms) at 128 prompt tokens, batch 1: the cases
# s-trtllm-ttft-<model>-<chip>-tp<tp>-128 and their estimate in docs/accuracy.md @300bc29a.
ROWS = [
    ("a100 fp16", "llama7b", 1, 16.0, 13.42),
    ("a100 fp16", "llama70b", 4, 47.0, 37.38),
    ("a100 fp16", "falcon180b", 8, 61.0, 50.03),
    ("h100 fp8", "llama7b", 1, 7.0, 6.86),
    ("h100 fp8", "llama70b", 4, 26.0, 18.68),
    ("h100 fp8", "falcon180b", 8, 27.0, 27.13),
]


def per_layer(total_ms, fixed_ms, model):
    return (total_ms - fixed_ms) / LAYERS[model] * 1000.0


def per_allreduce(tp_ms, ref_ms, fixed_ms, model, tp):
    """Microseconds per all-reduce the TP row pays beyond `ratio` x the reference row's layer."""
    ratio = LAYER_PARAMS[model] / tp / LAYER_PARAMS["llama7b"]
    return (per_layer(tp_ms, fixed_ms, model) - ratio * per_layer(ref_ms, fixed_ms, "llama7b")) / 2.0


# (model, tp, tokens, A100 fp16 published, H100 FP8 published, A100 modelled, H100 modelled) ms:
# every first-token row of the same two tables, docs/accuracy.md @300bc29a for the estimates.
RATIOS = [
    ("gptj6b", 1, 128, 12.0, 7.0, 11.93, 6.46),
    ("llama7b", 1, 128, 16.0, 7.0, 13.42, 6.86),
    ("llama70b", 4, 128, 47.0, 26.0, 37.38, 18.68),
    ("falcon180b", 8, 128, 61.0, 27.0, 50.03, 27.13),
    ("gptj6b", 1, 2048, 129.0, 29.0, 122.97, 28.90),
    ("llama7b", 1, 2048, 133.0, 36.0, 140.59, 32.71),
    ("llama70b", 4, 2048, 377.0, 109.0, 399.19, 107.28),
    ("falcon180b", 8, 2048, 509.0, 205.0, 547.45, 159.69),
]


def ratios():
    """A100 fp16 over H100 FP8 for the same model, TP and prompt: published (with the whole-ms
    rounding of both rows) against modelled."""
    print()
    print("model       tp tokens | A100/H100 published (lo..hi) | modelled")
    for model, tp, n, a, h, ma, mh in RATIOS:
        lo, hi = (a - 0.5) / (h + 0.5), (a + 0.5) / (h - 0.5)
        print(f"{model:11s} {tp:2d} {n:6d} | {a / h:5.2f} ({lo:5.2f}..{hi:5.2f})            | {ma / mh:5.2f}")


def main():
    print("chip       model       tp  F ms | published us/AR (lo..hi) | modelled us/AR | missing us/AR")
    for chip in ("a100 fp16", "h100 fp8"):
        ref = next(r for r in ROWS if r[0] == chip and r[2] == 1)
        for _, model, tp, pub, est in (r for r in ROWS if r[0] == chip and r[2] > 1):
            for fixed in (0.0, 1.5, 3.0):
                p = per_allreduce(pub, ref[3], fixed, model, tp)
                lo = per_allreduce(pub - 0.5, ref[3] + 0.5, fixed, model, tp)
                hi = per_allreduce(pub + 0.5, ref[3] - 0.5, fixed, model, tp)
                m = per_allreduce(est, ref[4], fixed, model, tp)
                print(
                    f"{chip:10s} {model:11s} {tp:2d} {fixed:4.1f} | {p:6.1f} ({lo:6.1f}..{hi:6.1f})"
                    f"        | {m:6.1f}         | {p - m:6.1f}"
                )


if __name__ == "__main__":
    main()
    ratios()
