#!/usr/bin/env python3
"""LMDeploy v0.1.0a1's static-inference table: the mean step against the p50 (stop 41; an analysis).

The s-lmdeploy-* cases quote InternLM/lmdeploy docs/en/benchmark/a100_fp16.md @ebe90bc9 (TurboMind,
fp16, A100-80G, `benchmark/profile_generation.py` at the same commit). That harness runs
`concurrency` Python threads, each streaming `test_round` (6) requests of `prompt_tokens` random
tokens and `output_tokens` generated tokens; 'throughput(out tok/s)' is every generated token over
the wall time of all threads (`token_latency_stats.size / elapsed_time`), the percentiles are of
the per-token intervals each thread sees between two streamed outputs (a token it skipped gets 0,
the interval goes to the first token of the new ones), and FTL is the time from a request's
`stream_infer` call to its first output.

For the rows with a one-token prompt and 128 generated tokens (decode only), this prints the mean
step the throughput implies (concurrency / throughput; the threads' requests are decode steps at the
full batch, their first tokens a few steps: FTL(ave)) against the published p50, p99 and FTL(max).
A per-step cost of the engine at a batch would show in every model's row at that batch; stalls
specific to one run show as a mean far above the p50 with outliers of hundreds of ms (FTL max, p99).
Nothing here sets a constant of the model. Run from the repo root: python3 tools/lmdeploy_tail.py
"""

# (model, batch, tp, throughput out tok/s, FTL ave, FTL max, p50, p99) in seconds: the doc's rows
# with prompt_tokens 1 and output_tokens 128, copied from the tables '### llama2-7b',
# '### llama2-13b', '### internlm-20b', '### llama2-70b' at @ebe90bc943eeace841b33fa54fbf1726311b63db.
ROWS = [
    ("llama2-7b", 1, 1, 100.02, 0.011, 0.011, 0.009, 0.011),
    ("llama2-7b", 16, 1, 1504.72, 0.021, 0.031, 0.010, 0.013),
    ("llama2-7b", 32, 1, 2136.73, 0.079, 0.725, 0.011, 0.021),
    ("llama2-7b", 64, 1, 4154.81, 0.042, 0.210, 0.012, 0.041),
    ("llama2-13b", 1, 1, 57.49, 0.018, 0.019, 0.017, 0.017),
    ("llama2-13b", 16, 1, 869.45, 0.036, 0.053, 0.018, 0.020),
    ("llama2-13b", 32, 1, 1667.5, 0.034, 0.057, 0.019, 0.023),
    ("llama2-13b", 64, 1, 3049.16, 0.044, 0.073, 0.020, 0.029),
    ("internlm-20b", 1, 2, 61.14, 0.018, 0.019, 0.016, 0.018),
    ("internlm-20b", 16, 2, 903.01, 0.034, 0.051, 0.017, 0.020),
    ("internlm-20b", 32, 2, 1673.64, 0.037, 0.066, 0.019, 0.023),
    ("internlm-20b", 64, 2, 2954.34, 0.050, 0.074, 0.021, 0.030),
    ("llama2-70b", 1, 4, 33.94, 0.031, 0.031, 0.029, 0.030),
    ("llama2-70b", 16, 4, 468.52, 0.071, 0.939, 0.030, 0.251),
    ("llama2-70b", 32, 4, 906.03, 0.098, 0.253, 0.032, 0.178),
    ("llama2-70b", 64, 4, 1425.79, 0.213, 1.264, 0.037, 0.329),
]
# Decoder layers (Llama-2 7B/13B/70B: 32/40/80; InternLM-20B: 60).
LAYERS = {"llama2-7b": 32, "llama2-13b": 40, "internlm-20b": 60, "llama2-70b": 80}
OUTPUT_TOKENS = 128


def main():
    print("model         batch tp  mean step  p50    mean/p50  p99    FTL max  p50 - p50(b1)"
          "  per layer")
    base = {}
    for model, batch, tp, tput, _ftl_ave, ftl_max, p50, p99 in ROWS:
        # The throughput counts every generated token of every thread: one decode step at the full
        # batch yields `batch` tokens, so the mean step is batch / throughput (the table's
        # throughput is for all the row's GPUs; TP does not change the step count).
        mean_step = batch / tput
        if batch == 1:
            base[model] = p50
        grow = p50 - base[model]
        per_layer_us = grow / LAYERS[model] * 1e6
        print(f"{model:13s} {batch:5d} {tp:2d}  {mean_step * 1e3:7.2f} ms {p50 * 1e3:4.0f} ms"
              f"  {mean_step / p50:6.2f}  {p99 * 1e3:5.0f} ms {ftl_max * 1e3:6.0f} ms"
              f"  {grow * 1e3:+5.0f} ms  {per_layer_us:6.0f} us")
    print(f"(p50 and p99 are published to 1 ms; {OUTPUT_TOKENS} tokens a request, 6 rounds.)")


if __name__ == "__main__":
    main()
