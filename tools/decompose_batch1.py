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
        total = time_per_token(w, None)
        read = time_per_token(w, {"layer_overhead_s": 0.0})
        yield (source, size), fmt, case["published"], read, total - read


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
        line = [(r, p) for f, p, r, _ in items if f in LINE_FORMATS]
        print(f"{source} {size}: " + ", ".join(
            f"{f} published {p:.2f} read {r:.2f} fixed {x:.2f}" for f, p, r, x in items))
        if len(line) < 2:
            continue
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
