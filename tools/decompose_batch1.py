#!/usr/bin/env python3
"""Decompose the batch-1 speed-benchmark cases per model size (stop 35; an analysis, not a fit).

For each dense TP-1 case of the Qwen2.5 (vLLM 0.6.3, A100) and Qwen3 (SGLang 0.4.6, H20) speed
benchmarks (cases/s-qwen25speed-*, cases/s-qwen3speed-*), the estimate's time per token is split
into its weight and KV read time (the estimate re-run with `layer_overhead_s` = 0) and its fixed
time (the rest). Per model size, where only the weight format changes, the published times are
fitted as published = a + b x read time (least squares over the formats named in LINE_FORMATS):
a is the time that does not grow with the bytes, and decode_bandwidth_efficiency / b the share of
the datasheet bandwidth the bytes stream at. AWQ rows are printed against the line, not fitted.
Nothing here sets a constant of the model. Run from the repo root after `cargo build --release`:
    python3 tools/decompose_batch1.py

Stop 36 adds the Qwen2.5 page's vLLM rows of the sizes that are not cases (0.5B, 1.5B, 3B at input
length 1; PAGE_ROWS, read at QwenLM/Qwen2.5 docs/source/benchmark/speed_benchmark.rst @010c37c3,
whose 7B rows equal the ones the cases quote at @2abc0f32) and then fits each size's fixed time
against its layer count (a = c + k x layers): k is the fixed time per decoder layer, c the time per
step that does not grow with the layers. The fixed time per size is read off the Marlin pair
(GPTQ-Int8 and GPTQ-Int4, one kernel family, every size has both); the bf16 rows are printed
against that line. The Qwen3 (H20) page is not in this fit.
"""
import json
import os
import subprocess
import sys
import tempfile
import tomllib

BINARY = "./target/release/gpuplan"
PREFIXES = ("s-qwen25speed-", "s-qwen3speed-")
LINE_FORMATS = ("bf16", "gptq8", "gptq4", "fp8")
MARLIN_PAIR = ("gptq8", "gptq4")
# (preset, format, Speed in tokens/s): the page's '0.5B (vLLM)', '1.5B (vLLM)', '3B (vLLM)' tables,
# input length 1, one A100 80GB, vLLM 0.6.3; a token takes 1000 / Speed ms (as in the cases).
PAGE_ROWS = [
    ("Qwen2.5-0.5B", "bf16", 311.55), ("Qwen2.5-0.5B", "gptq8", 257.07),
    ("Qwen2.5-0.5B", "gptq4", 260.93), ("Qwen2.5-0.5B", "awq", 261.95),
    ("Qwen2.5-1.5B", "bf16", 183.33), ("Qwen2.5-1.5B", "gptq8", 201.67),
    ("Qwen2.5-1.5B", "gptq4", 217.03), ("Qwen2.5-1.5B", "awq", 213.74),
    ("Qwen2.5-3B", "bf16", 127.61), ("Qwen2.5-3B", "gptq8", 150.02),
    ("Qwen2.5-3B", "gptq4", 168.20), ("Qwen2.5-3B", "awq", 165.50),
]
LAYERS = {"0.5b": 24, "1.5b": 28, "3b": 36, "7b": 28, "14b": 48, "32b": 64}


# The Qwen3 speed page the cases quote (QwenLM/Qwen3 @7a2f61ff), read in a stored copy with the same
# rows: QwenLM/Qwen2.5 docs/source/getting_started/speed_benchmark.md @ac727245 (SGLang
# 0.4.6.post1 and Transformers 4.51.3 on one NVIDIA H20 96GB, batch 1, 2048 generated tokens, Speed =
# (prompt + generated tokens) / time). Shapes: torchtune torchtune/models/qwen3/_model_builders.py
# @010412e0 (num_layers, embed_dim, num_kv_heads = 8; tie_word_embeddings up to 4B), head_dim 128
# (Joinn99/GR config/modified_qwen3.py @e6d4479e for 0.6B; the presets' Qwen3-8B/32B configs);
# non-embedding parameters from the Qwen3 model cards (as the cases' texts), vocabulary 151,936.
QWEN3_VOCAB = 151936
QWEN3_SIZES = {  # size: (decoder layers, hidden, non-embedding parameters)
    "0.6B": (28, 1024, 0.44e9), "1.7B": (28, 2048, 1.4e9), "4B": (36, 2560, 3.6e9),
    "8B": (36, 4096, 6.95e9), "14B": (40, 5120, 13.2e9), "32B": (64, 5120, 31.2e9),
}
QWEN3_SGLANG_L1 = {  # size: (bf16, fp8) Speed at input length 1
    "0.6B": (414.17, 458.03), "1.7B": (227.80, 333.90), "4B": (133.13, 200.61),
    "8B": (81.73, 150.25), "14B": (47.10, 97.11), "32B": (20.72, 46.17),
}
QWEN3_HF_BF16_L1 = {"0.6B": 58.57, "1.7B": 59.83, "4B": 45.94, "8B": 45.32, "14B": 40.66,
                    "32B": 26.24}
QWEN3_06B_INPUTS = (1, 6144, 14336)
QWEN3_06B_SGLANG = {"bf16": (414.17, 1426.46, 2478.02), "fp8": (458.03, 1572.95, 2689.08),
                    "gptq8": (344.92, 1234.29, 2198.82)}
H20_SMS, H20_TBPS, GENERATED = 78, 4.0, 2048


def toml_value(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str):
        return json.dumps(v)
    return repr(v)


def toml_lines(table, prefix=""):
    out = [f"[{prefix}]"] if prefix else []
    out += [f"{k} = {toml_value(v)}" for k, v in table.items() if not isinstance(v, dict)]
    for k, v in table.items():
        if isinstance(v, dict):
            out += toml_lines(v, f"{prefix}.{k}" if prefix else k)
    return out


def time_per_token(workload, tunables):
    w = dict(workload, tunables=tunables) if tunables else workload
    with tempfile.NamedTemporaryFile("w", suffix=".toml", delete=False) as f:
        f.write("\n".join(toml_lines(w)) + "\n")
        path = f.name
    try:
        out = subprocess.run([BINARY, "estimate", "-w", path, "--format", "json"],
                             capture_output=True, text=True, check=True).stdout
    finally:
        os.remove(path)
    return json.loads(out)["estimate"]["latency"]["time_per_token"] * 1e3


def rows():
    for name in sorted(os.listdir("cases")):
        if not name.startswith(PREFIXES) or not name.endswith(".toml"):
            continue
        case = tomllib.load(open(os.path.join("cases", name), "rb"))
        w = case["workload"]
        if w["inference"]["tp"] != 1 or "-a3b-" in name or "-a22b-" in name:
            continue
        source, size, fmt = name[:-5].split("-")[1:4]
        yield (source, size), fmt, case["published"], *split(w)
    template = tomllib.load(open("cases/s-qwen25speed-7b-bf16-a100-tp1.toml", "rb"))["workload"]
    for preset, fmt, speed in PAGE_ROWS:
        yield ("qwen25speed", preset.split("-")[1].lower()), fmt, 1000 / speed, *split(
            page_workload(template, preset, fmt))


def split(w):
    """The estimate's time per token as (weight and KV read time, fixed time), in ms."""
    total = time_per_token(w, None)
    read = time_per_token(w, {"layer_overhead_s": 0.0})
    return read, total - read


def page_workload(template, preset, fmt):
    inference = {k: v for k, v in template["inference"].items() if k != "weights"}
    if fmt == "gptq8":
        inference["weights"] = {"format": "int8"}
    elif fmt in ("gptq4", "awq"):
        inference["weights"] = {"format": "int4", "group": 128}
    return dict(template, model=preset, inference=inference)


def lstsq(rows, ys):
    """Least squares by the normal equations (a few columns, no numpy)."""
    n = len(rows[0])
    a = [[sum(r[i] * r[j] for r in rows) for j in range(n)] for i in range(n)]
    b = [sum(r[i] * y for r, y in zip(rows, ys)) for i in range(n)]
    for i in range(n):
        for k in range(i + 1, n):
            f = a[k][i] / a[i][i]
            a[k] = [x - f * y for x, y in zip(a[k], a[i])]
            b[k] -= f * b[i]
    x = [0.0] * n
    for i in reversed(range(n)):
        x[i] = (b[i] - sum(a[i][j] * x[j] for j in range(i + 1, n))) / a[i][i]
    return x


def fit(points):
    xs, ys = [p[0] for p in points], [p[1] for p in points]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    b = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)
    return my - b * mx, b


def main():
    groups = {}
    for key, fmt, published, read, fixed in rows():
        groups.setdefault(key, []).append((fmt, published, read, fixed))
    for (source, size), items in sorted(groups.items()):
        per_size(source, size, items)
    across_sizes(groups)
    h20_weight_rate()
    h20_transformers()
    h20_per_sm_ceiling(h20_kv_rate())


def qwen3_seconds(speed, prompt=1):
    """A row's time per generated token (its whole time: (prompt + 2048) / Speed, over 2048)."""
    return (prompt + GENERATED) / (GENERATED * speed)


def qwen3_bytes(size, weight_bytes):
    """Bytes a decode step reads: the non-embedding weights at `weight_bytes` each and the bf16
    LM head (the tied embedding up to 4B); the input embedding is a row gather."""
    _, hidden, nonemb = QWEN3_SIZES[size]
    return nonemb * weight_bytes + QWEN3_VOCAB * hidden * 2


def h20_weight_rate():
    for col, fmt, wb in ((0, "bf16", 2), (1, "fp8", 1)):
        t = [qwen3_seconds(QWEN3_SGLANG_L1[s][col]) for s in QWEN3_SIZES]
        by = [qwen3_bytes(s, wb) for s in QWEN3_SIZES]
        layers = [QWEN3_SIZES[s][0] for s in QWEN3_SIZES]
        a, b = lstsq([[1, x] for x in by], t)
        k, b2 = lstsq([[n, x] for n, x in zip(layers, by)], t)
        print(f"h20 SGLang {fmt}, six sizes: a + bytes/B: a = {1e3 * a:.2f} ms, B = "
              f"{1e-12 / b:.2f} TB/s; k x layers + bytes/B: k = {1e6 * k:.0f} us, "
              f"B = {1e-12 / b2:.2f} TB/s")


def h20_transformers():
    for size, speed in QWEN3_HF_BF16_L1.items():
        t = qwen3_seconds(speed)
        print(f"h20 Transformers bf16 {size}: {1e3 * t:.2f} ms per token, "
              f"{1e6 * t / QWEN3_SIZES[size][0]:.0f} us per layer, GPU at >= "
              f"{1e-12 * qwen3_bytes(size, 2) / t:.2f} TB/s")


def h20_kv_rate():
    """The largest lower bound the Qwen3-0.6B rows give on SGLang's KV streaming rate (B/s)."""
    layers = QWEN3_SIZES["0.6B"][0]
    kv_token = layers * 8 * 128 * 2 * 2  # K and V, 8 heads of 128, bf16
    best = 0.0
    for fmt, speeds in QWEN3_06B_SGLANG.items():
        t = [qwen3_seconds(s, p) for s, p in zip(speeds, QWEN3_06B_INPUTS)]
        for i in range(1, len(t)):
            for j in range(i):
                added = (QWEN3_06B_INPUTS[i] - QWEN3_06B_INPUTS[j]) * kv_token
                rate = added / (t[i] - t[j])  # per decode step: bytes added over time added
                best = max(best, rate)
                print(f"h20 SGLang Qwen3-0.6B {fmt} input {QWEN3_06B_INPUTS[j]} -> "
                      f"{QWEN3_06B_INPUTS[i]}: KV streamed at >= {1e-12 * rate:.2f} TB/s "
                      f"({1e-9 * rate / H20_SMS:.1f} GB/s per SM)")
    return best


def h20_per_sm_ceiling(rate):
    eff = rate / (H20_TBPS * 1e12)
    print(f"h20 cases with the decode bandwidth capped at {1e-12 * rate:.2f} TB/s "
          f"(decode_bandwidth_efficiency {eff:.2f}):")
    for name in sorted(os.listdir("cases")):
        if not name.endswith("-h20-tp1.toml") and "h20-tp" not in name:
            continue
        case = tomllib.load(open(os.path.join("cases", name), "rb"))
        p = case["published"]
        base = time_per_token(case["workload"], None)
        capped = time_per_token(case["workload"], {"decode_bandwidth_efficiency": eff})
        print(f"  {name[:-5]}: {100 * (base / p - 1):+.1f}% -> {100 * (capped / p - 1):+.1f}%")


def across_sizes(groups):
    """The Qwen2.5 (A100) sizes' Marlin-pair intercepts against their layer counts."""
    points = []
    for (source, size), items in sorted(groups.items()):
        pair = [(r, p) for f, p, r, _ in items if f in MARLIN_PAIR]
        if source != "qwen25speed" or len(pair) != 2:
            continue
        a, b = fit(pair)
        bf16 = [p - (a + b * r) for f, p, r, _ in items if f == "bf16"]
        points.append((LAYERS[size], a, size, items[0][3], b, bf16))
    c, k = fit([(n, a) for n, a, *_ in points])
    print(f"qwen25speed across {len(points)} sizes (GPTQ-Int8/Int4 intercepts): a = {c:.2f} ms "
          f"+ {1e3 * k:.0f} us x layers")
    for n, a, size, fixed, b, bf16 in points:
        print(f"  {size}: {n} layers, a = {a:.2f} ms (line {c + k * n:.2f}); estimate's fixed "
              f"{1e3 * fixed / n:.0f} us per layer; bytes at {0.8 / b:.2f} of peak"
              + "".join(f"; bf16 {d:+.2f} ms against the pair's line" for d in bf16))


def per_size(source, size, items):
    """One size's rows: the line over LINE_FORMATS, the other formats against it."""
    line = [(r, p) for f, p, r, _ in items if f in LINE_FORMATS]
    print(f"{source} {size}: " + ", ".join(
        f"{f} published {p:.2f} read {r:.2f} fixed {x:.2f}" for f, p, r, x in items))
    if len(line) < 2:
        return
    a, b = fit(line)
    worst = max(abs(p - (a + b * r)) / p for r, p in line)
    fixed = items[0][3]
    print(f"  line over {len(line)} formats: a = {a:.2f} ms (estimate's fixed {fixed:.2f}, "
          f"missing {a - fixed:.2f}); bytes at 0.8/b = {0.8 / b:.2f} of peak; "
          f"largest residual {100 * worst:.1f}%")
    for f, p, r, _ in items:
        if f not in LINE_FORMATS:
            print(f"  {f}: {p - (a + b * r):+.2f} ms against the line")

if __name__ == "__main__":
    sys.exit(main())
