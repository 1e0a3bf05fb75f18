#!/usr/bin/env python3
"""Host (CPU) optimizer step rate on this machine's CPU (task wt-hostadam17, issues 10 and 1): what
the host does in an optimizer-offloaded step (DeepSpeed ZeRO-Offload/Infinity, FSDP cpu_offload,
torchtune's CPU-offload recipes).

Each configuration runs in a fresh subprocess with OMP_NUM_THREADS / torch.set_num_threads set to
the thread count before torch loads (DeepSpeedCPUAdam's OpenMP loop reads it at its first call).
The "model" is 16 tensors of 4M elements (64M parameters: fp32 states alone are 768 MiB, far past
any cache, so the step is memory-bound as a real partition of billions is). One warm-up step makes
the states; then RUNS timed steps, each timed by wall clock and by the process's CPU time
(time.process_time: all threads' CPU; waiting for a core on a shared VM does not count).
Per-core rate = parameters / process CPU time (1 thread: one core's rate; 2 threads: the mean
per core, OpenMP spin included, so a floor). "wall_rate" at 2 threads is what two cores gave at
once on a machine shared with other work (noisy; reported, not the figure used).

Configurations (what each framework keeps on the host, per parameter):
- torch_default_fp32: torch.optim.AdamW(params) on CPU tensors; the default there is the single-tensor
  loop (torch/optim/optimizer.py `_default_to_fused_or_foreach` picks foreach only for CUDA tensors).
- torch_foreach_fp32: foreach=True.   - torch_fused_*: fused=True (CPU fused AdamW, torch >= 2.4).
  *_fp32: fp32 parameters, gradients and states (FSDP cpu_offload with fp32 parameters): 28 B.
  *_bf16: bf16 parameters, gradients and states (torchtune `dtype: bf16`, pure bf16: the states are
  zeros_like(param), so bf16 too): 14 B moved per parameter (read p, g, m, v; write p, m, v).
- ds_cpuadam_fp32: DeepSpeedCPUAdam (adamw_mode=True) over fp32 master parameters, fp32
  gradients (ZeRO-Offload copies fp32 gradients to the host) and fp32 states: 28 B per parameter.
  DeepSpeed 0.19's `step()` takes no 16-bit copy (the fp32 partition is copied to the device and
  cast there), so none is timed here.

    python3 -m venv .venv-hostadam && .venv-hostadam/bin/pip install torch deepspeed ninja
    PATH=$PWD/.venv-hostadam/bin:$PATH python tools/measure_host_adam.py > validation/host-adam-measured.json
(.venv-hostadam is git-ignored; ninja must be on PATH; about 25 min on 2 shared cores. The DeepSpeed op is JIT-built with the
system g++ on first use and picks AVX512 or AVX2 from the CPU's flags: the build log line is kept.)
"""

import contextlib
import json
import os
import platform
import statistics
import subprocess
import sys
import time

TENSORS = 16
ELEMS = 4 * 1024 * 1024  # per tensor; 64M parameters in all
RUNS = 5
# (implementation, its keywords, dtype, bytes moved per parameter, thread counts). The 2-thread
# runs are kept to the three rates the estimator uses (time: ~8 helpers share the 2 cores).
CONFIGS = {
    "torch_default_fp32": ("torch", {}, "float32", 28, (1,)),
    "torch_foreach_fp32": ("torch", {"foreach": True}, "float32", 28, (1,)),
    "torch_fused_fp32": ("torch", {"fused": True}, "float32", 28, (1, 2)),
    "torch_fused_bf16": ("torch", {"fused": True}, "bfloat16", 14, (1, 2)),
    "ds_cpuadam_fp32": ("ds", {}, "float32", 28, (1, 2)),
}


def cpu_model():
    with open("/proc/cpuinfo") as f:
        lines = f.read().splitlines()
    name = next((l.split(":", 1)[1].strip() for l in lines if l.startswith("model name")), "?")
    flags = next((l.split(":", 1)[1].split() for l in lines if l.startswith("flags")), [])
    simd = [f for f in ("avx2", "avx512f", "avx512_bf16", "amx_bf16") if f in flags]
    model = next((l.split(":", 1)[1].strip() for l in lines if l.startswith("model\t")), "?")
    return {"model_name": name, "family_model": model, "simd": simd, "logical_cpus": os.cpu_count()}


def child(name, threads):
    import torch

    torch.set_num_threads(threads)
    kind, kw, dtype, _, _ = CONFIGS[name]
    dt = getattr(torch, dtype)
    torch.manual_seed(0)
    params = [torch.nn.Parameter(torch.randn(ELEMS, dtype=dt) * 0.02) for _ in range(TENSORS)]
    for p in params:
        p.grad = torch.randn(ELEMS, dtype=dt) * 1e-3
    extra = {}
    if kind == "torch":
        opt = torch.optim.AdamW(params, lr=1e-5, **kw)
        step = opt.step
        extra["impl"] = "torch.optim.AdamW " + json.dumps(kw)
    else:
        from deepspeed.ops.adam import DeepSpeedCPUAdam

        opt = DeepSpeedCPUAdam(params, lr=1e-5, adamw_mode=True)
        extra["impl"] = "deepspeed.ops.adam.DeepSpeedCPUAdam(adamw_mode=True)"
        step = opt.step
    step()  # warm-up: makes the states
    walls, cpus = [], []
    for _ in range(RUNS):
        w0, c0 = time.perf_counter(), time.process_time()
        step()
        cpus.append(time.process_time() - c0)
        walls.append(time.perf_counter() - w0)
    extra.update({"wall_s": walls, "cpu_s": cpus, "torch": torch.__version__})
    print(json.dumps(extra))


def run(name, threads):
    env = dict(os.environ, OMP_NUM_THREADS=str(threads), MKL_NUM_THREADS=str(threads))
    out = subprocess.run(
        [sys.executable, __file__, "--child", name, str(threads)],
        env=env,
        capture_output=True,
        text=True,
        timeout=1200,
    )
    if out.returncode != 0:
        return {"error": out.stderr.strip().splitlines()[-3:]}
    r = json.loads(out.stdout.strip().splitlines()[-1])
    n = TENSORS * ELEMS
    bpp = CONFIGS[name][3]
    per_core = [n / c for c in r["cpu_s"]]
    walls = [n / w for w in r["wall_s"]]
    r["per_core_params_per_s"] = {
        "best": max(per_core),
        "median": statistics.median(per_core),
        "worst": min(per_core),
    }
    r["wall_params_per_s"] = {"best": max(walls), "median": statistics.median(walls)}
    r["bytes_per_param"] = bpp
    r["per_core_gb_per_s_best"] = max(per_core) * bpp / 1e9
    return r


def versions():
    import torch

    v = {"torch": torch.__version__, "python": platform.python_version()}
    try:
        # DeepSpeed's logger writes its accelerator warning to stdout: keep the JSON clean.
        with contextlib.redirect_stdout(sys.stderr):
            import deepspeed

        v["deepspeed"] = deepspeed.__version__
    except Exception as e:  # noqa: BLE001 (reported, not fatal)
        v["deepspeed"] = f"not importable: {e}"
    return v


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "--child":
        child(sys.argv[2], int(sys.argv[3]))
        return
    res = {
        "cpu": cpu_model(),
        "versions": versions(),
        "parameters": TENSORS * ELEMS,
        "runs": RUNS,
        "method": "per-core rate = parameters / process CPU time of one step; best, median, worst "
        "of the timed runs (one warm-up step first)",
        "results": {},
    }
    only = sys.argv[2:] if len(sys.argv) > 2 and sys.argv[1] == "--only" else list(CONFIGS)
    for name, conf in ((n, CONFIGS[n]) for n in only):
        for t in conf[4]:
            res["results"][f"{name}@{t}t"] = run(name, t)
            print(f"{name}@{t}t done", file=sys.stderr)
    print(json.dumps(res, indent=1))


if __name__ == "__main__":
    main()
