#!/usr/bin/env python3
"""Fit `fp8_gemm_ratio_current` (constants.rs) on NeMo 24.07's 11 FP8 pretraining rows.

The ratio is the one value that brings the signed median error of those rows to zero (bisection;
the error falls monotonically as the ratio rises). Every other case is out-of-sample for it.
Run from the repository root after `cargo build --release`:

    python3 tools/fit_fp8_current.py [path/to/gpuplan]

It copies the 11 case files to a temporary folder with `[workload.tunables]
fp8_gemm_ratio_current = x`, runs `gpuplan accuracy --cases DIR --format json` and prints the fit.
"""
import json
import os
import statistics
import subprocess
import sys
import tempfile

ROWS = [f"t-nemo-{m}-h100-fp8" for m in (
    "gpt3-5b", "gpt3-20b", "gpt3-175b-128gpu", "gpt3-175b-512gpu", "llama2-7b", "llama2-13b",
    "llama2-70b", "llama3-8b", "llama3-70b", "nemotron-8b", "nemotron-22b")]


def errors(exe, ratio):
    with tempfile.TemporaryDirectory() as d:
        for cid in ROWS:
            text = open(f"cases/{cid}.toml").read()
            assert "[workload.tunables]" not in text, cid
            with open(os.path.join(d, f"{cid}.toml"), "w") as f:
                f.write(text.rstrip("\n") + f"\n[workload.tunables]\nfp8_gemm_ratio_current = {ratio}\n")
        out = subprocess.run([exe, "accuracy", "--cases", d, "--format", "json"],
                             check=True, capture_output=True, text=True).stdout
    return {c["id"]: c["error"] for c in json.loads(out)["cases"]}


def main(exe="target/release/gpuplan"):
    lo, hi = 0.5, 1.0
    for _ in range(30):
        mid = (lo + hi) / 2
        if statistics.median(errors(exe, mid).values()) < 0:
            lo = mid
        else:
            hi = mid
    ratio = round((lo + hi) / 2, 2)
    e = errors(exe, ratio)
    print(f"fp8_gemm_ratio_current = {ratio:.2f} (signed median {statistics.median(e.values()):+.2%},"
          f" median |error| {statistics.median(abs(v) for v in e.values()):.2%})")
    for cid in ROWS:
        print(f"  {cid}: {e[cid]:+.1%}")


if __name__ == "__main__":
    main(*sys.argv[1:])
