#!/usr/bin/env python3
"""An independent hostile-input and plan-sanity sweep of the gpuplan binary (offline).

    cargo build --release && python3 tools/hostile_sweep.py [--bin target/release/gpuplan] [--only FAMILY]

Families (each input is one gpuplan run, or one HTTP request for `api`):
  flags    every numeric/string flag added since issue 7 (and the older ones the corpus lacks) ×
           0, -1, nan, inf, 1e308, 1e400, 2^64, "", a word, a full-width digit, a huge integer
  combos   contradictory combinations (parallel degrees, cp, attention span, LoRA targets, solve
           modes, engines with MoE, …) with the exit code and field each must give
  hfconfig config.json edge cases: experts, top_k, head_dim, vocab, layers, rope scaling junk,
           multimodal text_config/vision_config missing or inconsistent
  files    workload TOML, catalog TOML and provider price JSON edge cases
  export   export into unwritable, existing, symlinked and file-in-the-way directories
  recent   the keys and configs of the ZeRO-3 gather / grad_reduce_fp32 / gpt_bigcode / fused
           q/k/v LoRA / tp_allreduce changes: bad values name the key and the choices, valid ones
           give sane estimates; MoE LoRA saves no more than 4x a full fine-tune's activations;
           LoRA plans list module names only (fused_qkv says when q/k/v are one adapter)
  api      `gpuplan serve` bodies: JSON fuzz, huge arrays, deep nesting, wrong types
  r5       round 5: a plan's JSON `setup` reads back as a workload (same memory and step time);
           `fused_qkv` by hand; catalog filters × bad values; MoE layer schedules (dense count
           against the modelling code's predicate); `accuracy --cases` without cases; the file's
           `kind` in `plan`; long values not echoed whole
  api5     `/plan` refuses `hardware`/`inference`, `/catalog/instances` bad filter values (400 + field)
  r12      round 12: empty filter values, empty provider responses, layer_overhead_s past the
           torchao rows, FP8 weights per chip, jobs below one step, each engine's title, and every
           command's text within 60/80/120 columns in en and zh
  r13      round 13: --gpu/--region values no row answers, provider responses without a GPU type,
           jobs below one token or sample, tiny jobs' GPU-hours, layer_overhead_s on training,
           --gpu against --chips
  r14      round 14: MLA configs without their rank, deepseek_v3 configs without quantization_config,
           serving TP against the KV heads (estimate refuses, plan never offers), concurrent exports
           into one folder, real HF configs (Gemma 2, gpt-oss, Qwen3-MoE, Phi-3) and workload-file
           encodings
  r15      round 15: layer kinds gpuplan does not model (linear attention, recurrence, convolution,
           DeepSeek Sparse Attention, Llama 4's schedule, Mamba by model_type) refused naming their key;
           GLM-4.5 sized with its MTP note; text_config keys; numeric quant_method; partial_rotary_factor;
           tables given as lists; empty model names; int4 group ranges
  r16      round 16: int4 groups against each rank's slice under TP (Qwen2.5-72B, a padded AWQ
           config, shared experts), UTF-8 BOMs in config/workload files, the newest flags (first/last
           stage layers, --ttft/--tpot units, --weights awq/gptq/int4-g<N>), billing × region × provider
  r17      round 17: llm.c's fused classifier beside what llm.c does not run, the int4 rule per engine, another
           stack's pp that does not divide the layers, workload keys at type boundaries (u64 max, -0, 1e309,
           dates, strings), a directory or /dev/zero as the workload, an untimed step's reason in zh
  r18      round 18: int4/int8 per chip and engine (no kernel: refused naming weights; below Marlin's
           8.0: the kernel caveat), serving plans per chip x engine, TensorRT-LLM's int4 groups,
           unknown model names, TOML values of other types in numeric keys, Megatron CP below 8.0,
           uneven interleaved splits, and 160 seeded random plan/estimate questions (zh notes checked)
  r19      round 19: every numeric workload key of estimate and plan x 0, -1, "nan", nan, 1e300, 2.5,
           "12", inf, -0.0, 2^64 (a finite answer or exit 2 naming the key; no negative zero printed),
           serving engines per compute capability (vLLM 7.0, SGLang 7.5), AWQ vs GPTQ per chip, the
           Volta int4 bundle, tiny/huge/top-k/GQA model shapes
  r20      round 20: an engine below its floor refused alone (one stderr line), `plan --weights awq`
           keeping AWQ's 7.5 floor, I/O errors of every kind in Chinese (/proc/self/mem as each file
           argument), and the estimate/plan flags x 0, -1, -0, nan, inf, 1e300, 2.5, a word, "", 2^64
  r22      round 22: NaN/inf/-inf/1e308 spelled in workload TOML per key, huge sequences, inline
           `[config]` shapes (vocab 0, layers 0, heads not dividing hidden, top-k over the experts,
           TP over the heads), empty/unicode model names, --lang and locale junk, missing/empty/binary
           files per subcommand, user prices NaN/inf/negative under a plan, odd --export paths
  api22    `/estimate` and `/plan` with r22's values spelled in JSON (NaN, Infinity, 1e999), the
           CLI's weight words as strings, config shapes, model names, `?lang=zh` / `?lang=xx`
  api16    `/estimate` and `/plan` read only JSON bodies (415 naming content-type otherwise); the
           int4 TP refusal names `tp` as the CLI does
  r23      round 23: every export launcher target into paths with spaces/unicode, a folder holding
           the user's files, a file in the way, `export --pick`; workload keys x 0/-3/1e308/nan/inf/
           wrong types, duplicated keys, near-miss spellings (the error names the right key);
           estimate's serving options; contradictory plan pins; --max-nodes 0, --budget 0/-5; one-layer
           64-wide models; HF MoE configs with 0/1 experts and every top-k spelling
  api23    every route of `gpuplan serve`: wrong JSON types per table, 10 MB bodies, deep nesting,
           query junk, the `weights` word and table forms (en and zh)
  r23c     two exports into one folder at once (training and serving bundles)
  sanity   ordinary questions: preset × task × provider × objective × size, each plan checked
           against independent invariants (memory within the GPU, MFU ≤ 0.75, priced plans first
           by cost, ¥ > 0, serving KV pool holds its batch, MoE experts held)

Every run is checked for: no panic (exit 101 / "panicked"), no other exit than 0/1/2, no hang
(60 s), no NaN/inf/negative money in the output, and, for a refusal (exit 2), a message that names
the field. Prints one line per failure and a summary per family; exit 1 when anything failed.
"""

import argparse
import itertools
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
BIN = os.path.join(ROOT, "target", "release", "gpuplan")
TIMEOUT = 60

TRAIN = ["plan", "-m", "Qwen2.5-7B", "--task", "lora", "--provider", "alibaba", "--tokens", "1e8"]
SERVE = ["plan", "-m", "Qwen2.5-7B", "--task", "inference", "--provider", "alibaba"]
E_TRAIN = ["estimate", "-m", "Qwen2.5-7B", "--task", "lora", "--gpu", "A100"]
E_FULL = ["estimate", "-m", "Llama-3.1-8B", "--task", "full", "--gpu", "A100", "--gpus-per-node", "8"]
E_SERVE = ["estimate", "-m", "Qwen2.5-7B", "--task", "inference", "--gpu", "A100"]

BAD = ["0", "-1", "nan", "inf", "-inf", "1e308", "1e400", "18446744073709551616", "", "abc", "１",
       "99999999999999999999999999"]


# ---------------------------------------------------------------------------------------------
# Running and judging one case


def shows_non_number(s):
    """NaN, infinity or negative money printed as a computed number (quoted user input excepted)."""
    low = s.lower().replace("infinity fabric", "")  # AMD's link, a name
    for needle, what in [("nan", "NaN"), ("¥-", "negative money"), ("-¥", "negative money"),
                         ("inf ", "infinity"), ("inf\n", "infinity"), ("infinity", "infinity"),
                         ("inf,", "infinity"), ("inf)", "infinity")]:
        start = 0
        while True:
            at = low.find(needle, start)
            if at < 0:
                break
            before = low[at - 1] if at > 0 else ""
            after = low[at + len(needle)] if at + len(needle) < len(low) else ""
            word_start = not needle[0].isalpha() or not before.isalnum()
            word_end = not needle[-1].isalpha() or not after.isalnum()
            quoted = before in "'`\""
            if word_start and word_end and not quoted:
                return what
            start = at + len(needle)
    return None


class Case:
    def __init__(self, family, name, args, exit=None, frag=None, files=None, env=None, check=None,
                 ok_exits=(0, 2, 3, 4), need=(), absent=()):
        self.family, self.name, self.args = family, name, args
        self.exit, self.frag = exit, frag  # exit: required code; frag: str or tuple (any)
        self.files, self.env, self.check = files or {}, env or {}, check
        self.ok_exits = ok_exits
        # A refusal's message must hold every `need` fragment (the key and its fix) and none of
        # `absent` (a fix the input cannot take).
        self.need, self.absent = need, absent
        self.check_exits = (0,)  # the exits whose output `check` reads


def run_case(c, bin_path):
    d = tempfile.mkdtemp(prefix="gpuplan-sweep-")
    try:
        os.makedirs(os.path.join(d, "cfg"), exist_ok=True)
        for name, content in c.files.items():
            p = os.path.join(d, name)
            os.makedirs(os.path.dirname(p), exist_ok=True)
            mode = "wb" if isinstance(content, bytes) else "w"
            with open(p, mode) as f:
                f.write(content if isinstance(content, bytes) else content.replace("{dir}", d))
        args = [a.replace("{dir}", d) for a in c.args]
        env = {k: v for k, v in os.environ.items() if k not in ("LANG", "LC_ALL", "LC_MESSAGES", "COLUMNS")}
        env["GPUPLAN_CONFIG_DIR"] = os.path.join(d, "cfg")
        env["GPUPLAN_TODAY"] = "2026-12-03"
        env.update({k: v.replace("{dir}", d) for k, v in c.env.items()})
        t0 = time.time()
        try:
            p = subprocess.run([bin_path] + args, capture_output=True, env=env, timeout=TIMEOUT,
                               stdin=subprocess.DEVNULL, cwd=d)
        except subprocess.TimeoutExpired:
            return [f"hang (> {TIMEOUT} s)"], None
        took = time.time() - t0
        out = p.stdout.decode("utf-8", "replace")
        err = p.stderr.decode("utf-8", "replace")
        res = {"code": p.returncode, "out": out, "err": err, "took": took, "dir": d}
        probs = judge(c, res)
        if c.check and p.returncode in c.check_exits:
            try:
                probs += c.check(res) or []
            except Exception as e:  # a check that cannot read the output is itself a finding
                probs.append(f"check raised {type(e).__name__}: {e}")
        if p.returncode == 2 and not probs and "--lang" not in args:
            probs += judge_zh(c, bin_path, args, env, d)
        return probs, res
    finally:
        shutil.rmtree(d, ignore_errors=True)


def judge(c, r):
    probs = []
    code, out, err = r["code"], r["out"], r["err"]
    if code == 101 or "panicked" in err or code < 0:
        probs.append(f"panic/signal (exit {code}): {err.strip()[-300:]}")
        return probs
    if c.exit is not None and code != c.exit:
        probs.append(f"exit {code}, expected {c.exit}")
    elif c.exit is None and code not in c.ok_exits:
        probs.append(f"exit {code} (allowed {c.ok_exits})")
    for what, text in (("stdout", out), ("stderr", err)):
        bad = shows_non_number(text)
        if bad:
            probs.append(f"{what} shows {bad}")
    if code == 2 and c.frag:
        frags = c.frag if isinstance(c.frag, tuple) else (c.frag,)
        if not any(f.lower() in err.lower() for f in frags):
            probs.append(f"error does not name {' / '.join(frags)}")
    if code == 2 and not err.strip():
        probs.append("exit 2 with nothing on stderr")
    if code == 2:
        missing = [f for f in c.need if f.lower() not in err.lower()]
        if missing:
            probs.append(f"error does not name {' and '.join(missing)}")
        offered = [f for f in c.absent if f.lower() in err.lower()]
        if offered:
            probs.append(f"error offers {' / '.join(offered)}, which this input cannot take")
    if probs:
        probs.append("stderr: " + err.strip()[:400].replace("\n", " | "))
    return probs


# Names allowed in Chinese text (crates/gpuplan/tests/common/mod.rs ALLOWED, the corpus harness's list).
ALLOWED = {w.lower() for w in """tokens token samples LoRA QLoRA ZeRO NVLink NVSwitch PCIe Gen4 eRDMA RoCE
    vLLM vCPU vCPUs Turbo AutoPL Ascend Young Daly MindSpore PyTorch DeepSpeed Megatron Core torchtitan
    Trainer Fluid JindoFS ossfs obsfs cosfs ModelArts Hub Instinct ROCm GeForce cuDNN logits autocast GiB
    MiB KiB TiB MB GB KB TB ms Gbit NVIDIA SXM PCIe""".split()}


def english_sentences(text):
    """Runs of three English words outside backticks, as the corpus harness's detector finds them."""
    parts = text.split("`")
    plain = " ".join(p if i % 2 == 0 else "\n" * p.count("\n") for i, p in enumerate(parts))
    found = []
    for line in plain.splitlines():
        for run in re.split(r"[^\x00-\x7f]", line):
            streak = 0
            for w in run.split():
                w = w.strip(",.;:!?()'\"")
                english = (len(w) >= 2 and w.isascii() and w.isalpha() and not w.isupper()
                           and w.lower() not in ALLOWED)
                streak = streak + 1 if english else 0
                if streak == 3:
                    found.append(line.strip()[:100])
    return found


def judge_zh(c, bin_path, args, env, d):
    env = dict(env, LC_ALL="zh_CN.UTF-8")
    try:
        p = subprocess.run([bin_path] + args, capture_output=True, env=env, timeout=TIMEOUT,
                           stdin=subprocess.DEVNULL, cwd=d)
    except subprocess.TimeoutExpired:
        return ["zh: hang"]
    err = p.stderr.decode("utf-8", "replace").split("Usage: ")[0]
    probs = []
    if p.returncode != 2:
        probs.append(f"zh: exit {p.returncode}, en 2")
    left = english_sentences(err)
    if left:
        probs.append(f"zh: English left: {left[0]}")
    return probs


# ---------------------------------------------------------------------------------------------
# Families


def flags():
    """(base, flag, field fragment, values that are valid)"""
    fam = []
    spec = [
        (TRAIN, "attention-span", ("attention_span", "--attention-span")),
        (TRAIN, "lora-dropout", ("dropout", "--lora-dropout")),
        (TRAIN, "lora-rank", ("rank",)),
        (TRAIN, "dataset-size", ("dataset", "--dataset-size")),
        (TRAIN, "max-price-age", ("price", "--max-price-age")),
        (TRAIN, "pick", ("--pick", "pick")),
        (TRAIN, "top", ("--top", "top")),
        (TRAIN, "deadline", ("deadline",)),
        (TRAIN, "restart-minutes", ("restart",)),
        (SERVE, "min-replicas", ("min_replicas", "--min-replicas", "replicas")),
        (SERVE, "peak-factor", ("peak_factor", "--peak-factor", "peak")),
        (SERVE, "tpot", ("tpot",)),
        (SERVE, "ttft", ("ttft",)),
        (SERVE, "input-tokens", ("input_tokens", "--input-tokens")),
        (SERVE, "output-tokens", ("output_tokens", "--output-tokens")),
        (SERVE, "weights", ("weights",)),
        (SERVE, "engine", ("engine",)),
        (E_FULL, "cp", ("cp", "--cp", "context")),
        (E_FULL, "virtual-stages", ("virtual_stages", "--virtual-stages")),
        (E_FULL, "last-stage-layers", ("last_stage_layers", "--last-stage-layers")),
        (E_FULL, "global-batch", ("global_batch", "--global-batch")),
        (E_FULL, "micro-batch", ("micro_batch", "--micro-batch")),
        (E_FULL, "seq-len", ("seq_len", "--seq-len")),
        (E_FULL, "attention-span", ("attention_span", "--attention-span")),
        (E_TRAIN, "lora-dropout", ("dropout", "--lora-dropout")),
        (E_TRAIN, "adapter-dtype", ("adapter", "--adapter-dtype")),
        (E_TRAIN, "recompute", ("recompute",)),
        (E_TRAIN, "attention", ("attention",)),
        (E_TRAIN, "precision", ("precision",)),
        (E_TRAIN, "optimizer", ("optimizer",)),
        (E_TRAIN, "profile", ("profile",)),
        (E_TRAIN, "set", ("--set", "set", "name=value")),
        (E_TRAIN, "inter-gbit", ("inter_gbit", "--inter-gbit")),
        (E_TRAIN, "tokens", ("tokens",)),
        (E_SERVE, "mem-fraction-static", ("mem_fraction_static", "--mem-fraction-static")),
        (E_SERVE, "free-gpu-memory-fraction", ("free_gpu_memory_fraction", "--free-gpu-memory-fraction")),
        (E_SERVE, "max-num-batched-tokens", ("max_num_batched_tokens", "--max-num-batched-tokens")),
        (E_SERVE, "max-num-seqs", ("max_num_seqs", "--max-num-seqs")),
        (E_SERVE, "images-per-request", ("images_per_request", "--images-per-request")),
        (E_SERVE, "image-size", ("image_size", "--image-size")),
        (E_SERVE, "gpu-memory-utilization", ("gpu_memory_utilization", "--gpu-memory-utilization")),
        (E_SERVE, "kv-dtype", ("kv", "--kv-dtype")),
        (E_SERVE, "batch", ("batch",)),
        (E_SERVE, "max-model-len", ("max_model_len", "--max-model-len")),
        (E_SERVE + ["--solve", "max-context"], "batch", ("batch",)),
        (E_SERVE + ["--solve", "max-batch"], "input-tokens", ("input_tokens", "--input-tokens")),
        (E_SERVE + ["--solve", "max-throughput"], "tpot", ("tpot",)),
        (E_SERVE + ["--engine", "sglang"], "mem-fraction-static", ("mem_fraction_static",)),
        (E_SERVE + ["--engine", "trtllm"], "free-gpu-memory-fraction", ("free_gpu_memory_fraction",)),
        (E_SERVE + ["--engine", "static"], "batch", ("batch",)),
        (E_SERVE + ["--engine", "static"], "max-model-len", ("max_model_len",)),
    ]
    for base, flag, frag in spec:
        for v in BAD:
            fam.append(Case("flags", f"{' '.join(base[:2])} --{flag}={v!r}", base + [f"--{flag}={v}"],
                            frag=frag + (f"--{flag}",)))
    # --image-size shapes
    for v in ["0x0", "1024", "x", "1024x", "-5x10", "1e9x1e9", "100000000x100000000", "1024x768x3",
              "nanxnan", "1024×768"]:
        fam.append(Case("flags", f"image-size {v}", ["estimate", "-m", "Qwen2.5-7B", "--task", "inference",
                                                     "--gpu", "A100", f"--image-size={v}"],
                        frag=("image_size", "--image-size")))
    # --set shapes
    for v in ["=", "fragmentation", "fragmentation=", "=0.1", "nosuch=1", "fragmentation=nan",
              "fragmentation=1e400", "fragmentation=0x10", "train_efficiency_hopper=2",
              "startup_hours=721", "spot_price_fraction=0"]:
        fam.append(Case("flags", f"--set {v}", TRAIN + ["--set", v], frag=("--set", v.split("=")[0] or "set")))
    return fam


def combos():
    """Contradictory or extreme combinations: expected exit and field (None: 0 or 2 both fine)."""
    L8 = ["-m", "Llama-3.1-8B"]
    MX = ["-m", "Mixtral-8x7B"]
    est = ["estimate", "--gpu", "H100", "--gpus-per-node", "8", "--zero", "3"]
    c = []

    def add(name, args, exit=None, frag=None, **kw):
        c.append(Case("combos", name, args, exit=exit, frag=frag, **kw))

    # parallel degrees
    add("tp 3 of 8 gpus", est + L8 + ["--task", "full", "--tp", "3"], 2, ("tp",))
    add("tp×pp > gpus", est + L8 + ["--task", "full", "--tp", "8", "--pp", "2"], 2, ("pp", "tp"))
    add("cp 3 of 8", est + L8 + ["--task", "full", "--cp", "3"], 2, ("cp",))
    add("cp with seq not divisible", est + L8 + ["--task", "full", "--cp", "2", "--seq-len", "1001"], 2, ("cp", "seq"))
    add("cp 8 seq 8", est + L8 + ["--task", "full", "--cp", "8", "--seq-len", "8"], None, ("cp", "seq"))
    add("cp > seq", est + L8 + ["--task", "full", "--cp", "8", "--seq-len", "4"], 2, ("cp", "seq"))
    add("tp 16 in 8-gpu node", est + L8 + ["--task", "full", "--tp", "16", "--nodes", "2"], None, ("tp",))
    add("tp > heads", est + ["-m", "Qwen2.5-0.5B", "--task", "full", "--tp", "8"], None, ("tp", "head"))
    add("pp > layers", ["estimate", "--gpu", "H100", "-m", "GPT-2", "--task", "full", "--pp", "16", "--gpus-per-node", "8", "--nodes", "2"], None, ("pp", "layer"))
    add("pp 64 > 32 layers", ["estimate", "--gpu", "H100", "--gpus-per-node", "8", "--nodes", "8"] + L8 + ["--task", "full", "--pp", "64"], 2, ("pp", "layer"))
    add("virtual stages without pp", est + L8 + ["--task", "full", "--virtual-stages", "2"], None, ("virtual",))
    add("virtual stages × pp > layers", est + L8 + ["--task", "full", "--pp", "8", "--virtual-stages", "8"], 2, ("virtual", "layer"))
    add("last stage layers > layers", est + L8 + ["--task", "full", "--pp", "2", "--last-stage-layers", "40"], 2, ("last_stage",))
    add("last stage layers = layers", est + L8 + ["--task", "full", "--pp", "2", "--last-stage-layers", "32"], 2, ("last_stage",))
    add("last stage layers without pp", est + L8 + ["--task", "full", "--last-stage-layers", "3"], None, ("last_stage",))
    add("last stage 31 of 32 pp 2", est + L8 + ["--task", "full", "--pp", "2", "--last-stage-layers", "31"], None, ("last_stage",))
    add("last stage 1 pp 8", est + L8 + ["--task", "full", "--pp", "8", "--last-stage-layers", "1"], None, ("last_stage",))
    add("ep on dense", est + L8 + ["--task", "full", "--ep", "2"], None, ("ep",))
    add("ep 3 on mixtral", est + MX + ["--task", "full", "--ep", "3"], 2, ("ep",))
    add("ep 16 > 8 experts", ["estimate", "--gpu", "H100", "--gpus-per-node", "8", "--nodes", "2"] + MX + ["--task", "full", "--ep", "16"], 2, ("ep", "expert"))
    add("zero 1 offload params", ["estimate", "--gpu", "H100", "--gpus-per-node", "8"] + L8 + ["--task", "full", "--zero", "1", "--offload-params"], 2, ("offload",))
    add("sequence parallel tp 1", est + L8 + ["--task", "full", "--sequence-parallel"], None, ("sequence",))
    add("global batch not divisible", est + L8 + ["--task", "full", "--global-batch", "7"], 2, ("global",))
    add("global batch 1 micro 4", est + L8 + ["--task", "full", "--global-batch", "1", "--micro-batch", "4"], 2, ("global",))
    add("micro-batch 65536", est + L8 + ["--task", "full", "--micro-batch", "65536"], None, ("micro",))
    add("seq 16M", est + L8 + ["--task", "full", "--seq-len", "16777216"], None, ("seq",))
    add("seq 16M recompute full", est + L8 + ["--task", "full", "--seq-len", "16777216", "--recompute", "full", "--cp", "8"], None, ("seq",))
    # attention span
    add("attention span > seq", est + L8 + ["--task", "full", "--seq-len", "1024", "--attention-span", "4096"], 2, ("attention_span",))
    add("attention span = seq", est + L8 + ["--task", "full", "--seq-len", "1024", "--attention-span", "1024"], 0)
    add("attention span 1", est + L8 + ["--task", "full", "--seq-len", "1024", "--attention-span", "1"], 0)
    add("attention span on plan > seq", TRAIN + ["--seq-len", "512", "--attention-span", "1024"], 2, ("attention_span",))
    add("attention span eager", est + L8 + ["--task", "full", "--seq-len", "1024", "--attention-span", "128", "--attention", "eager"], None, ("attention",))
    # Refused since audit r6, naming the flag.
    add("attention span on inference", E_SERVE + ["--attention-span", "64"], 2, ("attention-span",))
    add("attention span on bert", est + ["-m", "BERT-base-uncased", "--task", "full", "--seq-len", "512", "--attention-span", "64"], None, ("attention",))
    add("attention span on resnet", est + ["-m", "ResNet-50", "--task", "full", "--attention-span", "64"], None, ("attention",))
    # LoRA
    add("lora target missing", E_TRAIN + ["--lora-targets", "c_attn"], 2, ("lora",))
    add("lora target empty", E_TRAIN + ["--lora-targets", ""], 2, ("lora",))
    add("lora target commas", E_TRAIN + ["--lora-targets", ",,,"], 2, ("lora",))
    add("lora target weird", E_TRAIN + ["--lora-targets", "q_proj,\u202e,k_proj"], 2, ("lora",))
    add("lora dropout 1", E_TRAIN + ["--lora-dropout", "1"], 2, ("dropout",))
    add("lora dropout 0.999", E_TRAIN + ["--lora-dropout", "0.999"], 0)
    add("lora rank > hidden", E_TRAIN + ["--lora-rank", "65536"], None, ("rank",))
    add("lora on resnet", ["estimate", "-m", "ResNet-50", "--task", "lora", "--gpu", "A100"], 2, ("lora",))
    add("qlora on sdxl", ["estimate", "-m", "SDXL-UNet", "--task", "qlora", "--gpu", "A100"], 2, ("lora", "qlora"))
    add("lora flags on full", est + L8 + ["--task", "full", "--lora-rank", "8", "--lora-dropout", "0"], None, ("lora",))
    add("adapter dtype on full", est + L8 + ["--task", "full", "--adapter-dtype", "bf16"], None, ("adapter",))
    add("qlora on moe", est + MX + ["--task", "qlora"], None, ("qlora",))
    add("qlora bnb flags", ["estimate", "-m", "Qwen2.5-7B", "--gpu", "A100", "--task", "qlora", "--bnb-saves-inputs", "--quantized-lm-head", "--keeps-previous-graph", "--bf16-chunked-loss", "--profile", "litgpt"], 0)
    add("lora litgpt compiled chunked", E_TRAIN + ["--profile", "litgpt", "--compiled", "--chunked-loss", "--optimizer-in-backward", "--activation-offload", "--paged-optimizer"], None, ("compiled", "litgpt"))
    add("paged optimizer with sgd", E_TRAIN + ["--paged-optimizer", "--optimizer", "sgd_momentum"], None, ("paged",))
    add("optimizer in backward with grad accum", E_TRAIN + ["--optimizer-in-backward", "--grad-accum", "4"], None, ("optimizer_in_backward", "grad_accum"))
    add("activation offload on inference", E_SERVE + ["--activation-offload"], None, ("activation",))
    add("compiled fp32", est + L8 + ["--task", "full", "--compiled", "--precision", "fp32"], 0)
    add("compiled on moe", est + MX + ["--task", "full", "--compiled", "--zero", "3"], None)
    add("compiled on ascend", ["estimate", "--gpu", "910B", "--gpus-per-node", "8"] + L8 + ["--task", "lora", "--compiled"], None)
    # The refusal cites its source by title (an English proper name, not a sentence to translate).
    add("fp8 on A100", ["estimate", "--gpu", "A100", "--gpus-per-node", "8", "--lang", "en"] + L8 + ["--task", "full", "--precision", "fp8"], None, ("fp8", "precision"))
    add("flash on V100", ["estimate", "--gpu", "V100", "--gpus-per-node", "8"] + L8 + ["--task", "lora", "--attention", "flash"], None, ("flash", "attention"))
    add("pure bf16 on V100", ["estimate", "--gpu", "V100"] + ["-m", "Qwen2.5-0.5B"] + ["--task", "full", "--precision", "pure_bf16"], None, ("bf16", "precision"))
    add("offload optimizer on ascend", ["estimate", "--gpu", "910B", "--gpus-per-node", "8"] + L8 + ["--task", "full", "--zero", "3", "--offload-optimizer", "--offload-params"], None)
    add("tokens tiny", E_TRAIN + ["--tokens", "1"], 0)
    add("tokens 1e16", E_TRAIN + ["--tokens", "1e16"], 0)
    add("samples epochs product", E_TRAIN + ["--samples", "1e15", "--epochs", "1e6"], 2, ("tokens", "samples", "epochs"))
    add("tokens and samples", E_TRAIN + ["--samples", "1000", "--tokens", "1e9"], None, ("tokens", "samples"))
    add("epochs without samples", E_TRAIN + ["--epochs", "3"], None, ("epochs", "samples"))
    # serving
    add("tpot 0", SERVE + ["--tpot", "0"], 2, ("tpot",))
    add("tpot 1e-9", SERVE + ["--tpot", "1e-9"], None, ("tpot",))
    add("estimate tpot without solve", E_SERVE + ["--tpot", "0.05"], 2, ("tpot", "solve"))
    add("estimate tpot with solve max-batch", E_SERVE + ["--solve", "max-batch", "--tpot", "0.05"], 2, ("tpot", "solve"))
    add("ttft 1e-9", SERVE + ["--ttft", "1e-9"], None, ("ttft",))
    add("rate and concurrency", SERVE + ["--rate", "1", "--concurrency", "4"], None, ("rate", "concurrency"))
    add("rate 1e7", SERVE + ["--rate", "1e7"], None, ("rate",))
    add("concurrency 1e7", SERVE + ["--concurrency", "10000000"], None, ("concurrency",))
    add("min replicas 0", SERVE + ["--min-replicas", "0"], None, ("replicas",))
    add("min replicas huge", SERVE + ["--min-replicas", "100000000"], None, ("replicas",))
    add("peak factor 0.5", SERVE + ["--peak-factor", "0.5"], None, ("peak",))
    add("input beyond context", SERVE + ["--input-tokens", "200000"], 2, ("input",))
    add("output beyond context", ["plan", "-m", "GPT-2", "--task", "inference", "--output-tokens", "2000"], 2, ("output", "context"))
    add("bert serve output", ["plan", "-m", "BERT-base-uncased", "--task", "inference"], None)
    add("resnet serve", ["plan", "-m", "ResNet-50", "--task", "inference"], None)
    add("sdxl serve", ["plan", "-m", "SDXL-UNet", "--task", "inference"], None)
    add("whisper serve", ["plan", "-m", "Whisper-large-v3", "--task", "inference"], None)
    add("t5 serve", ["plan", "-m", "T5-base", "--task", "inference"], None)
    add("vit serve", ["plan", "-m", "ViT-L/16", "--task", "inference"], None)
    add("weights list empty", SERVE + ["--weights", ""], 2, ("weights",))
    add("weights list junk", SERVE + ["--weights", "bf16,,int3"], 2, ("weights",))
    add("engine static moe", ["estimate", "-m", "Mixtral-8x7B", "--task", "inference", "--gpu", "H100", "--gpus-per-node", "2", "--tp", "2", "--engine", "static"], None, ("engine", "static"))
    add("engine static deepseek plan", ["plan", "-m", "DeepSeek-V3", "--task", "inference", "--engine", "static", "--max-nodes", "4"], None, ("engine",))
    add("engine trtllm ascend", ["estimate", "-m", "Qwen2.5-7B", "--task", "inference", "--gpu", "910B", "--engine", "trtllm"], None, ("engine", "trtllm"))
    add("engine sglang mfs on vllm", E_SERVE + ["--mem-fraction-static", "0.5"], None, ("mem_fraction_static", "engine"))
    add("engine on training", E_TRAIN + ["--engine", "sglang"], None, ("engine",))
    add("max model len < input", E_SERVE + ["--max-model-len", "100", "--input-tokens", "1000"], 2, ("max_model_len", "input"))
    add("max batched tokens < max model len", E_SERVE + ["--max-num-batched-tokens", "16"], None, ("max_num_batched_tokens",))
    add("max-num-seqs < batch", E_SERVE + ["--max-num-seqs", "4", "--batch", "64"], None, ("max_num_seqs", "batch"))
    add("gpu util tiny", E_SERVE + ["--gpu-memory-utilization", "0.001"], None, ("gpu_memory_utilization",))
    add("kv int8 on vllm", E_SERVE + ["--kv-dtype", "int8"], None, ("kv",))
    add("weights bits 0.5", E_SERVE + ["--weights", "0.5"], 2, ("weights", "bits"))
    add("weights bits 33", E_SERVE + ["--weights", "33"], 2, ("weights", "bits"))
    add("weights bits 4.5", E_SERVE + ["--weights", "4.5"], 0)
    add("images on text model", E_SERVE + ["--images-per-request", "3"], None, ("images",))
    add("images 1e6 on text model", E_SERVE + ["--images-per-request", "1000000"], None, ("images",))
    add("tp 3 inference", E_SERVE[:-2] + ["--gpu", "A100", "--gpus-per-node", "4", "--tp", "3"], 2, ("tp",))
    add("tp 8 on 7 kv heads", E_SERVE[:-2] + ["--gpu", "A100", "--gpus-per-node", "8", "--tp", "8"], None, ("tp",))
    add("pp inference", E_SERVE[:-2] + ["--gpu", "A100", "--gpus-per-node", "4", "--pp", "2"], None, ("pp",))
    # solve modes
    for mode in ["max-context", "max-batch", "max-throughput"]:
        # --tpot is max-throughput's target; the other modes refuse it (audit r11 #7).
        tpot = ["--tpot", "0.05"] if mode == "max-throughput" else []
        add(f"solve {mode} on training", E_TRAIN + ["--solve", mode], 2, ("solve",))
        add(f"solve {mode} 405B on one L20", ["estimate", "-m", "Llama-3.1-405B", "--task", "inference", "--gpu", "L20", "--solve", mode] + tpot, None, ("solve", "fit", "memory"))
        add(f"solve {mode} huge batch", E_SERVE + ["--solve", mode, "--batch", "1000000"] + tpot, None, ("batch",))
        add(f"solve {mode} static", E_SERVE + ["--solve", mode, "--engine", "static"] + tpot, None)
        add(f"solve {mode} gpt2", ["estimate", "-m", "GPT-2", "--task", "inference", "--gpu", "A100", "--solve", mode] + tpot, None)
        add(f"solve {mode} bert", ["estimate", "-m", "BERT-base-uncased", "--task", "inference", "--gpu", "A100", "--solve", mode] + tpot, None)
        add(f"solve {mode} resnet", ["estimate", "-m", "ResNet-50", "--task", "inference", "--gpu", "A100", "--solve", mode] + tpot, None)
        add(f"solve {mode} mixtral sglang", ["estimate", "-m", "Mixtral-8x7B", "--task", "inference", "--gpu", "H100", "--gpus-per-node", "2", "--tp", "2", "--engine", "sglang", "--solve", mode] + tpot, None)
        add(f"solve {mode} json", E_SERVE + ["--solve", mode, "--format", "json"] + tpot, None)
    add("solve max-throughput without tpot", E_SERVE + ["--solve", "max-throughput"], None, ("tpot",))
    add("solve max-throughput tpot 1e-6", E_SERVE + ["--solve", "max-throughput", "--tpot", "1e-6"], None, ("tpot",))
    add("solve max-throughput tpot 0", E_SERVE + ["--solve", "max-throughput", "--tpot", "0"], 2, ("tpot",))
    add("solve max-throughput tpot 3600", E_SERVE + ["--solve", "max-throughput", "--tpot", "3600"], None, ("tpot",))
    add("solve max-context batch 0", E_SERVE + ["--solve", "max-context", "--batch", "0"], 2, ("batch",))
    add("solve max-batch input huge", E_SERVE + ["--solve", "max-batch", "--input-tokens", "131000", "--output-tokens", "1000"], None, ("input",))
    add("solve max-context gpu util tiny", E_SERVE + ["--solve", "max-context", "--gpu-memory-utilization", "0.05"], None, ("gpu_memory_utilization", "fit"))
    add("solve max-batch max-num-seqs 1", E_SERVE + ["--solve", "max-batch", "--max-num-seqs", "1"], None)
    # plan constraints
    add("deadline 1 second", TRAIN[:-2] + ["--tokens", "1e12", "--deadline", "0.0003"], None, ("deadline",))
    add("budget 0.01", TRAIN + ["--budget", "0.01"], None, ("budget",))
    # By design (cmd/plan.rs) --pick may reach past --top into the ranking; past the ranking it is an error.
    add("pick > top", TRAIN + ["--pick", "9", "--top", "3", "--export", "{dir}/x"], 0)
    add("pick > ranking", TRAIN + ["--pick", "100000", "--export", "{dir}/x"], 2, ("pick",))
    add("pick 0", TRAIN + ["--pick", "0", "--export", "{dir}/x"], 2, ("pick",))
    add("gpu none match", TRAIN + ["--gpu", "nosuchgpu"], None, ("gpu",))
    add("region none", TRAIN + ["--region", "mars-1"], None, ("region",))
    add("family none", TRAIN + ["--family", "zz"], None, ("family",))
    add("chips ascend only + cuda flags", TRAIN + ["--chips", "ascend", "--precision", "fp8"], None, ("fp8", "precision"))
    add("chips junk", TRAIN + ["--chips", "nvidia,,intel"], 2, ("chips",))
    add("max-price-age 0", TRAIN + ["--max-price-age", "0"], None, ("price",))
    add("max-price-age 0d", TRAIN + ["--max-price-age", "0d"], None, ("price",))
    add("max-price-age -1d", TRAIN + ["--max-price-age", "-1d"], 2, ("price", "age"))
    add("max-price-age 1e400d", TRAIN + ["--max-price-age", "1e400d"], 2, ("price", "age"))
    add("deadline 1e400d", TRAIN + ["--deadline", "1e400d"], 2, ("deadline",))
    add("deadline 5y", TRAIN + ["--deadline", "5y"], 2, ("deadline",))
    add("deadline 0h", TRAIN + ["--deadline", "0h"], 2, ("deadline",))
    add("dataset size -1TB", TRAIN + ["--dataset-size=-1TB"], 2, ("dataset",))
    add("dataset size 1e30TB", TRAIN + ["--dataset-size", "1e30TB"], 2, ("dataset",))
    add("dataset size nanTB", TRAIN + ["--dataset-size", "nanTB"], 2, ("dataset",))
    add("dataset size 5XB", TRAIN + ["--dataset-size", "5XB"], 2, ("dataset",))
    add("tokens 1.5T suffix", TRAIN[:-2] + ["--tokens", "1.5T"], 0)
    add("tokens 1e9T", TRAIN + ["--tokens", "1e9T"], 2, ("tokens",))
    add("tokens nanB", TRAIN + ["--tokens", "nanB"], 2, ("tokens",))
    add("tokens -5M", TRAIN[:-2] + ["--tokens=-5M"], 2, ("tokens",))
    add("samples 50k", TRAIN[:-2] + ["--samples", "50k", "--epochs", "3"], 0)
    # --tokens and --samples together: refused since audit r6 (--samples would have been ignored).
    add("samples 50k with tokens", TRAIN + ["--samples", "50k", "--epochs", "3"], 2, ("tokens", "samples"))
    add("samples 1e400k", TRAIN + ["--samples", "1e400k"], 2, ("samples",))
    add("interruptible spot preemption 0.99", TRAIN[:-2] + ["--interruptible", "--billing", "spot", "--preemption-rate", "0.99", "--tokens", "1e10"], None, ("preemption",))
    add("reuse hours 730 monthly", TRAIN + ["--reuse-hours", "730", "--billing", "monthly"], None)
    add("every provider, time, 405B pretrain", ["plan", "-m", "Llama-3.1-405B", "--task", "pretrain", "--tokens", "15T", "--optimize", "time", "--max-nodes", "4096"], None)
    add("deepseek full 1 node", ["plan", "-m", "DeepSeek-V3", "--task", "full", "--max-nodes", "1"], None)
    add("resnet pretrain", ["plan", "-m", "ResNet-50", "--task", "pretrain", "--samples", "1.28M", "--epochs", "90"], None)
    add("sdxl full", ["plan", "-m", "SDXL-UNet", "--task", "full", "--samples", "1M"], None)
    add("whisper lora", ["plan", "-m", "Whisper-large-v3", "--task", "lora", "--tokens", "1e8"], None)
    add("t5 lora", ["plan", "-m", "T5-base", "--task", "lora", "--tokens", "1e8"], None)
    add("bert pretrain seq 4096", ["plan", "-m", "BERT-base-uncased", "--task", "pretrain", "--seq-len", "4096"], None, ("seq",))
    add("gpt2 seq 1M", ["plan", "-m", "GPT-2", "--task", "full", "--seq-len", "1000000"], None, ("seq",))
    add("gpt2 lora target c_attn", ["plan", "-m", "GPT-2", "--task", "lora", "--tokens", "1e8", "--lora-targets", "c_attn"], 0)
    add("gpt2 lora target q_proj", ["plan", "-m", "GPT-2", "--task", "lora", "--lora-targets", "q_proj"], 2, ("lora",))
    add("framework mindspore on nvidia", TRAIN + ["--framework", "mindspore"], None, ("framework",))
    add("framework jax on ascend", TRAIN + ["--framework", "jax", "--chips", "ascend"], None, ("framework",))
    add("model unicode", ["plan", "-m", "\u0007Qwen"], 2, ("model",))
    add("model empty", ["plan", "-m", ""], 2, ("model",))
    add("model escape", ["plan", "-m", "\x1b[31mred"], 2, ("model",))
    add("model long", ["plan", "-m", "a" * 100000], 2, ("model",))
    add("model case", ["plan", "-m", "qwen2.5-7b", "--task", "lora", "--tokens", "1e8"], None, ("model",))
    add("models show unknown", ["models", "show", "zz"], 2, ("zz", "model"))
    add("catalog gpus", ["catalog", "gpus"], 0)
    add("prices by-gpu", ["prices", "--by-gpu"], 0)
    add("accuracy json", ["accuracy", "--format", "json"], 0)
    add("instance unknown", ["estimate", "-m", "Qwen2.5-7B", "--task", "lora", "--instance", "zz"], 2, ("instance",))
    add("instance with gpu", ["estimate", "-m", "Qwen2.5-7B", "--task", "lora", "--instance", "ecs.gn7e-c16g1.32xlarge", "--gpu", "A100"], 2, ("instance", "gpu"))
    add("instance with gpus-per-node", ["estimate", "-m", "Qwen2.5-7B", "--task", "lora", "--instance", "ecs.gn7e-c16g1.32xlarge", "--gpus-per-node", "4"], 2, ("instance", "gpus-per-node"))
    add("instance nodes 1e6", ["estimate", "-m", "Qwen2.5-7B", "--task", "lora", "--instance", "ecs.gn7e-c16g1.32xlarge", "--nodes", "1000000"], 2, ("nodes",))
    add("inter gbit tiny", E_FULL + ["--nodes", "2", "--inter-gbit", "1e-9"], None, ("inter_gbit",))
    add("gpus per node 1024 tp 1024", ["estimate", "-m", "Llama-3.1-405B", "--task", "full", "--gpu", "H100", "--gpus-per-node", "1024", "--tp", "1024"], None, ("tp",))
    return c


LLAMA = {
    "model_type": "llama", "hidden_size": 4096, "num_hidden_layers": 32,
    "num_attention_heads": 32, "num_key_value_heads": 8, "vocab_size": 128256,
    "intermediate_size": 14336, "max_position_embeddings": 8192,
    "tie_word_embeddings": False, "torch_dtype": "bfloat16",
}
MIXTRAL = dict(LLAMA, model_type="mixtral", num_local_experts=8, num_experts_per_tok=2)
QWEN_MOE = dict(LLAMA, model_type="qwen2_moe", num_experts=60, num_experts_per_tok=4,
                moe_intermediate_size=1408, shared_expert_intermediate_size=5632)
LLAVA = {
    "model_type": "llava", "architectures": ["LlavaForConditionalGeneration"],
    "image_token_index": 32000,
    "text_config": dict(LLAMA, vocab_size=32064, num_key_value_heads=32, intermediate_size=11008),
    "vision_config": {"model_type": "clip_vision_model", "hidden_size": 1024, "image_size": 336,
                      "intermediate_size": 4096, "num_attention_heads": 16, "num_hidden_layers": 24,
                      "patch_size": 14, "projection_dim": 768},
}
QWEN2VL = {
    "model_type": "qwen2_vl", "hidden_size": 3584, "num_hidden_layers": 28, "num_attention_heads": 28,
    "num_key_value_heads": 4, "vocab_size": 152064, "intermediate_size": 18944,
    "max_position_embeddings": 32768, "rope_scaling": {"type": "mrope", "mrope_section": [16, 24, 24]},
    "vision_config": {"depth": 32, "embed_dim": 1280, "hidden_size": 3584, "mlp_ratio": 4,
                      "num_heads": 16, "in_chans": 3, "patch_size": 14, "spatial_merge_size": 2,
                      "temporal_patch_size": 2},
}
MLLAMA = {
    "model_type": "mllama",
    "text_config": dict(LLAMA, model_type="mllama_text_model", cross_attention_layers=[3, 8, 13, 18, 23, 28, 33, 38],
                        num_hidden_layers=40),
    "vision_config": {"hidden_size": 1280, "image_size": 560, "patch_size": 14, "num_hidden_layers": 32,
                      "num_global_layers": 8, "num_attention_heads": 16, "intermediate_size": 5120,
                      "max_num_tiles": 4, "vision_output_dim": 7680},
}


def hfconfigs():
    c = []
    cmds = {
        "show": ["models", "show", "--config", "{dir}/config.json"],
        "lora": ["estimate", "--model-config", "{dir}/config.json", "--task", "lora", "--gpu", "H100", "--gpus-per-node", "8"],
        "serve": ["estimate", "--model-config", "{dir}/config.json", "--task", "inference", "--gpu", "H100", "--gpus-per-node", "4", "--tp", "4"],
        "img": ["estimate", "--model-config", "{dir}/config.json", "--task", "inference", "--gpu", "H100", "--images-per-request", "2"],
        "plan": ["plan", "--model-config", "{dir}/config.json", "--task", "inference", "--provider", "alibaba"],
        "planl": ["plan", "--model-config", "{dir}/config.json", "--task", "lora", "--provider", "alibaba", "--tokens", "1e8"],
    }

    def add(name, cfg, frag=None, exit=None, which=("show", "lora", "serve", "plan", "planl")):
        text = cfg if isinstance(cfg, (str, bytes)) else json.dumps(cfg)
        for w in which:
            c.append(Case("hfconfig", f"{name} [{w}]", cmds[w], exit=exit, frag=frag,
                          files={"config.json": text}))

    add("moe num_experts 0 with top_k", dict(MIXTRAL, num_local_experts=0), ("num_local_experts", "num_experts_per_tok"))
    add("moe top_k > experts", dict(MIXTRAL, num_experts_per_tok=9), ("num_experts_per_tok",), 2)
    add("moe top_k 0", dict(MIXTRAL, num_experts_per_tok=0), ("num_experts_per_tok",))
    add("moe experts 1e6", dict(MIXTRAL, num_local_experts=1000000), ("num_local_experts", "parameters"))
    add("qwen moe experts 0", dict(QWEN_MOE, num_experts=0), ("num_experts",))
    add("qwen moe top_k > experts", dict(QWEN_MOE, num_experts_per_tok=61), ("num_experts_per_tok",), 2)
    add("qwen moe no moe_intermediate", {k: v for k, v in QWEN_MOE.items() if k != "moe_intermediate_size"}, ("moe_intermediate_size",))
    add("head_dim × heads ≠ hidden", dict(LLAMA, head_dim=100), ("head_dim",))
    add("head_dim 0", dict(LLAMA, head_dim=0), ("head_dim",), 2)
    add("head_dim huge", dict(LLAMA, head_dim=1000000), ("head_dim", "parameters"))
    add("kv heads > heads", dict(LLAMA, num_key_value_heads=64), ("num_key_value_heads",), 2)
    add("kv heads not dividing", dict(LLAMA, num_key_value_heads=5), ("num_key_value_heads",), 2)
    add("vocab 0", dict(LLAMA, vocab_size=0), ("vocab_size",), 2)
    add("layers 1e6", dict(LLAMA, num_hidden_layers=1000000), ("num_hidden_layers",), 2)
    add("layers 10000", dict(LLAMA, num_hidden_layers=10000), ("num_hidden_layers",))
    add("hidden 1", dict(LLAMA, hidden_size=1, num_attention_heads=1, num_key_value_heads=1), ("hidden_size", "tp"))
    add("context 1", dict(LLAMA, max_position_embeddings=1), ("max_position_embeddings", "context", "input"))
    for junk in [{"type": "linear"}, {"type": "linear", "factor": -2}, {"type": "linear", "factor": "x"},
                 {"factor": 1e300, "type": "dynamic"}, {"rope_type": "yarn", "factor": 0,
                 "original_max_position_embeddings": 0}, "yes", [1, 2], {"type": "llama3", "factor": 8.0,
                 "original_max_position_embeddings": 8192, "low_freq_factor": 1, "high_freq_factor": 4},
                 {"type": "yarn", "factor": 1e9, "original_max_position_embeddings": 32768},
                 {"type": "yarn", "factor": 4, "original_max_position_embeddings": 1e30}]:
        add(f"rope_scaling {json.dumps(junk)}", dict(LLAMA, rope_scaling=junk), ("rope_scaling",))
    add("rope_theta negative", dict(LLAMA, rope_theta=-1), ("rope_theta",))
    add("sliding window > context", dict(LLAMA, sliding_window=1 << 40), ("sliding_window",))
    add("sliding window 0", dict(LLAMA, sliding_window=0), ("sliding_window",))
    add("torch_dtype junk", dict(LLAMA, torch_dtype="float7"), ("torch_dtype",))
    add("quantization_config junk", dict(LLAMA, quantization_config={"bits": -3, "quant_method": "gptq"}), ("quantization_config", "bits"))
    add("quantization_config bits 0", dict(LLAMA, quantization_config={"bits": 0, "quant_method": "awq"}), ("quantization_config", "bits"))
    add("quantization_config string", dict(LLAMA, quantization_config="gptq"), ("quantization_config",))
    add("unknown model_type", dict(LLAMA, model_type="zzz"), ("model_type",))
    add("empty object", {}, ("model_type", "missing", "hidden"), 2)
    add("array", [], ("config",), 2)
    add("not json", "{{{", ("config", "json"), 2)
    add("deep nesting", "[" * 100000 + "]" * 100000, ("config", "json", "nest", "recursion"), 2)
    add("BOM", "\ufeff" + json.dumps(LLAMA), ("config",))
    add("huge string", dict(LLAMA, model_type="l" * 10_000_000), ("model_type",))
    add("duplicate keys", '{"model_type":"llama","hidden_size":4096,"hidden_size":0,"num_hidden_layers":32,"num_attention_heads":32,"vocab_size":32000,"intermediate_size":11008}', ("hidden_size",))
    add("binary", b"\x00\xff\xfe" * 100, ("config",), 2)
    # multimodal
    add("llava ok", LLAVA, None, 0, ("show", "lora", "serve", "img"))
    add("llava no vision_config", {k: v for k, v in LLAVA.items() if k != "vision_config"}, ("vision_config",), None, ("show", "img", "serve"))
    add("llava no text_config", {k: v for k, v in LLAVA.items() if k != "text_config"}, ("text_config",), None, ("show", "img", "serve"))
    add("llava vision patch 0", dict(LLAVA, vision_config=dict(LLAVA["vision_config"], patch_size=0)), ("patch_size",), 2, ("show", "img"))
    add("llava vision patch > image", dict(LLAVA, vision_config=dict(LLAVA["vision_config"], patch_size=1000)), ("patch_size", "image_size"), None, ("show", "img"))
    add("llava vision image 0", dict(LLAVA, vision_config=dict(LLAVA["vision_config"], image_size=0)), ("image_size",), 2, ("show", "img"))
    add("llava vision heads not dividing", dict(LLAVA, vision_config=dict(LLAVA["vision_config"], num_attention_heads=7)), ("num_attention_heads",), None, ("show", "img"))
    add("llava vision hidden 0", dict(LLAVA, vision_config=dict(LLAVA["vision_config"], hidden_size=0)), ("hidden_size",), 2, ("show", "img"))
    add("llava vision layers huge", dict(LLAVA, vision_config=dict(LLAVA["vision_config"], num_hidden_layers=10**9)), ("num_hidden_layers",), 2, ("show", "img"))
    add("llava vision_config string", dict(LLAVA, vision_config="clip"), ("vision_config",), 2, ("show", "img"))
    add("llava text_config string", dict(LLAVA, text_config="llama"), ("text_config",), 2, ("show", "img"))
    add("llava vision patch string", dict(LLAVA, vision_config=dict(LLAVA["vision_config"], patch_size="14")), ("patch_size",), 2, ("show", "img"))
    add("llava text moe top_k > experts", dict(LLAVA, text_config=dict(MIXTRAL, num_experts_per_tok=9)), ("num_experts_per_tok",), 2, ("show", "img"))
    add("qwen2vl ok", QWEN2VL, None, 0, ("show", "serve", "img"))
    add("qwen2vl spatial merge 0", dict(QWEN2VL, vision_config=dict(QWEN2VL["vision_config"], spatial_merge_size=0)), ("spatial_merge_size",), 2, ("show", "img"))
    add("qwen2vl temporal patch 0", dict(QWEN2VL, vision_config=dict(QWEN2VL["vision_config"], temporal_patch_size=0)), ("temporal_patch_size",), None, ("show", "img"))
    add("qwen2vl depth 0", dict(QWEN2VL, vision_config=dict(QWEN2VL["vision_config"], depth=0)), ("depth",), None, ("show", "img"))
    add("qwen2vl mlp_ratio nan-ish", dict(QWEN2VL, vision_config=dict(QWEN2VL["vision_config"], mlp_ratio=1e300)), ("mlp_ratio",), 2, ("show", "img"))
    add("qwen2vl mlp_ratio -4", dict(QWEN2VL, vision_config=dict(QWEN2VL["vision_config"], mlp_ratio=-4)), ("mlp_ratio",), 2, ("show", "img"))
    add("qwen2vl embed_dim 0", dict(QWEN2VL, vision_config=dict(QWEN2VL["vision_config"], embed_dim=0)), ("embed_dim",), 2, ("show", "img"))
    add("qwen2vl num_heads not dividing", dict(QWEN2VL, vision_config=dict(QWEN2VL["vision_config"], num_heads=7)), ("num_heads",), None, ("show", "img"))
    add("mllama ok", MLLAMA, None, 0, ("show", "serve", "img"))
    add("mllama cross layers out of range", dict(MLLAMA, text_config=dict(MLLAMA["text_config"], cross_attention_layers=[100, -1])), ("cross_attention_layers",), 2, ("show", "img"))
    add("mllama cross layers junk", dict(MLLAMA, text_config=dict(MLLAMA["text_config"], cross_attention_layers="all")), ("cross_attention_layers",), 2, ("show", "img"))
    add("mllama tiles 0", dict(MLLAMA, vision_config=dict(MLLAMA["vision_config"], max_num_tiles=0)), ("max_num_tiles",), None, ("show", "img"))
    add("mllama tiles 1e9", dict(MLLAMA, vision_config=dict(MLLAMA["vision_config"], max_num_tiles=10**9)), ("max_num_tiles",), None, ("show", "img"))
    add("mllama global layers > layers", dict(MLLAMA, vision_config=dict(MLLAMA["vision_config"], num_global_layers=100)), ("num_global_layers",), None, ("show", "img"))
    return c


def workload_files():
    c = []
    est = ["estimate", "-w", "{dir}/w.toml"]
    plan = ["plan", "-w", "{dir}/w.toml", "--provider", "alibaba"]

    def add(name, text, args=est, exit=None, frag=None):
        c.append(Case("files", name, args, exit=exit, frag=frag, files={"w.toml": text}))

    base = 'model = "Llama-3.1-8B"\nkind = "training"\n[hardware]\ngpu = "H100"\ngpus_per_node = 8\n[training]\ntask = "full_finetune"\n'
    for k, v in [("attention_span", 0), ("attention_span", -1), ("attention_span", "nan"), ("attention_span", 1e300),
                 ("attention_span", 5000), ("compiled", 1), ("compiled", '"yes"'), ("chunked_loss", "nan"),
                 ("adapter_dtype", '"fp8"'), ("framework", '"litgptx"'), ("rmsnorm_fp32", 3)]:
        add(f"training.{k} = {v}", base + f"{k} = {v}\n", est, 2, (k,))
    for k, v in [("cp", 0), ("cp", 3), ("cp", -2), ("virtual_stages", 0), ("virtual_stages", 1e10),
                 ("last_stage_layers", 0), ("last_stage_layers", 33), ("tp_comm_overlap", 1),
                 ("overlap_grad_reduce", '"x"'), ("overlap_param_gather", "nan")]:
        add(f"parallel.{k} = {v}", base + f"[training.parallel]\n{k} = {v}\n", est, 2, (k,))
    add("lora.dropout 1", base.replace('"full_finetune"', '"lora"') + "[training.lora]\ndropout = 1\n", est, 2, ("dropout",))
    add("lora.dropout nan", base.replace('"full_finetune"', '"lora"') + "[training.lora]\ndropout = nan\n", est, 2, ("dropout",))
    add("lora.dropout -0.0", base.replace('"full_finetune"', '"lora"') + "[training.lora]\ndropout = -0.0\n", est, None, ("dropout",))
    add("lora.targets empty", base.replace('"full_finetune"', '"lora"') + "[training.lora]\ntargets = []\n", est, 2, ("targets",))
    add("lora.targets number", base.replace('"full_finetune"', '"lora"') + "[training.lora]\ntargets = [1]\n", est, 2, ("targets",))
    add("lora.base junk", base.replace('"full_finetune"', '"lora"') + '[training.lora]\nbase = "nf3"\n', est, 2, ("base",))
    inf = 'model = "Qwen2.5-7B"\nkind = "inference"\n[hardware]\ngpu = "A100"\n[inference]\n'
    for k, v in [("engine", '"tgi"'), ("mem_fraction_static", 0), ("mem_fraction_static", 1.5),
                 ("free_gpu_memory_fraction", "nan"), ("max_num_seqs", 0), ("max_num_seqs", -1),
                 ("keep_16bit_layers", "[100, 100]"), ("keep_16bit_layers", "[-1, 0]"), ("keep_16bit_layers", "[1]"),
                 ("keep_16bit_layers", '"x"'), ("keep_16bit_attention", 1), ("images_per_request", -1),
                 ("images_per_request", 1e9), ("image_size", "[0, 0]"), ("image_size", "[1e9, 1e9]"),
                 ("image_size", "[1024]"), ("image_size", "[-1, 5]"), ("kv_dtype", '"int4"'),
                 ("weights", '{ format = "int4", group = 0 }'), ("weights", '{ format = "bits", bits_per_weight = nan }'),
                 ("weights", '{ format = "bits" }'), ("weights", '"int4"'), ("weights", '{ format = "int3" }'),
                 ("block_size", 7), ("block_size", 0), ("tp", 3)]:
        add(f"inference.{k} = {v}", inf + f"{k} = {v}\n", est, None, (k,))
    sv = 'model = "Qwen2.5-7B"\n[serve]\nrate_rps = 1\n'
    for k, v in [("weights", '["int3"]'), ("weights", "[1]"), ("kv_dtype", '"x"'), ("public_generative", 1),
                 ("min_replicas", 0), ("peak_factor", 0), ("peak_factor", "nan"), ("engine", '"static"')]:
        add(f"serve.{k} = {v}", sv + f"{k} = {v}\n", plan, None, (k,))
    for k, v in [("providers", '["aws"]'), ("regions", "[1]"), ("chips", '["intel"]'),
                 ("framework", '"keras"'), ("billing", '"yearly"'), ("interruptible", 1)]:
        add(f"constraints.{k} = {v}", 'model = "Qwen2.5-7B"\n[training]\ntask = "lora"\ntokens = 1e8\n[constraints]\n' + f"{k} = {v}\n", plan, 2, (k,))
    add("objective junk", 'model = "Qwen2.5-7B"\nobjective = "fast"\n[training]\ntask = "lora"\n', plan, 2, ("objective",))
    add("inline config ok", 'kind = "training"\n[hardware]\ngpu = "H100"\n[training]\ntask = "lora"\n[config]\n' +
        "\n".join(f"{k} = {json.dumps(v)}" for k, v in LLAMA.items()) + "\n", est, 0)
    add("inline config bad", 'kind = "training"\n[hardware]\ngpu = "H100"\n[training]\ntask = "lora"\n[config]\nmodel_type = "llama"\nhidden_size = -1\n', est, 2, ("hidden_size",))
    add("inline config float", 'kind = "training"\n[hardware]\ngpu = "H100"\n[training]\ntask = "lora"\n[config]\n' +
        "\n".join(f"{k} = {json.dumps(v)}" for k, v in dict(LLAMA, hidden_size=4096.5).items()) + "\n", est, 2, ("hidden_size",))
    add("inline config nan", 'kind = "training"\n[hardware]\ngpu = "H100"\n[training]\ntask = "lora"\n[config]\n' +
        "\n".join(f"{k} = {json.dumps(v)}" for k, v in LLAMA.items() if k != "rope_theta") + "\nrope_theta = nan\n", est, None, ("rope_theta",))
    add("model_config missing file", 'model_config = "{dir}/nope.json"\n[training]\ntask="lora"\n', plan, 2, ("model_config", "nope"))
    add("model_config is dir without config", 'model_config = "{dir}"\n[training]\ntask="lora"\n', plan, 2, ("config",))
    add("both training and serve", 'model = "Qwen2.5-7B"\n[training]\ntask = "lora"\n[serve]\nrate_rps = 1\n', plan, 2, ("serve", "training"))
    add("kind inference with training table", 'model = "Qwen2.5-7B"\nkind = "inference"\n[hardware]\ngpu = "A100"\n[training]\ntask = "lora"\n', est, None, ("kind", "training"))
    add("empty file", "", est, 2, ("model",))
    add("table as key", 'model = "Qwen2.5-7B"\ntraining = 1\n', plan, 2, ("training",))
    add("unicode key", 'model = "Qwen2.5-7B"\n[training]\ntask = "lora"\n"ｓｅｑ_len" = 5\n', plan, 2, ("seq",))
    add("huge int", 'model = "Qwen2.5-7B"\n[training]\ntask = "lora"\nseq_len = 99999999999999999999\n', plan, 2, ("seq_len",))
    add("nested deep", 'model = "Qwen2.5-7B"\nx = ' + "[" * 5000 + "]" * 5000 + "\n", plan, 2, ("x", "line", "nest", "recursion"))
    add("tunables unknown", 'model = "Qwen2.5-7B"\n[training]\ntask = "lora"\n[tunables]\nzz = 1\n', plan, 2, ("zz",))
    add("binary", "\x00\x01\x02model", plan, 2, ("w.toml",))
    return c


def catalog_and_prices():
    c = []
    gpu_row = ('[[gpu]]\nid = "x1"\nname = "X1"\nvendor = "nvidia"\nmemory_gib = {mem}\nmemory_bandwidth_gbs = 2000\n'
               'tflops = {{ bf16 = {tf}, fp16 = {tf}, fp32 = 19.5 }}\nintra_link = "nvlink3"\nintra_link_gbs = 600\n'
               'tdp_w = 400\nstack = "cuda"\nsource = "s"\nas_of = "2025-06"\n')
    inst = ('[[instance]]\nid = "xi"\nprovider = "alibaba"\nfamily = "xf"\ngpu = "{g}"\ngpu_count = 8\nvcpu = 96\n'
            'ram_gib = 1024\nnetwork_gbit = 100\nsource = "s"\nas_of = "2025-06"\n')
    price = '[[price]]\ninstance = "xi"\nprovider = "alibaba"\nregion = "cn-shanghai"\nbilling = "on_demand"\ncny = {cny}\nkind = "list"\nsource = "s"\nas_of = "2025-06"\n'
    for mem, tf in [(80, 1e-300), (1e-9, 312), (80, 99999), (0.001, 312), (1024, 312)]:
        text = gpu_row.format(mem=mem, tf=tf) + inst.format(g="x1") + price.format(cny=10)
        c.append(Case("files", f"user gpu mem {mem} tf {tf}", TRAIN + ["--catalog", "{dir}/c.toml", "--gpu", "x1", "--format", "json"],
                      files={"c.toml": text}, check=lambda r: check_plan_json(r)))
    for cny in ["1e-300", "5e-324", "999999999", "0.0001"]:
        text = inst.format(g="h100-sxm") + price.format(cny=cny)
        c.append(Case("files", f"price {cny}", TRAIN + ["--catalog", "{dir}/c.toml", "--format", "json"],
                      files={"c.toml": text}, check=lambda r: check_plan_json(r)))
    return c


def export_cases():
    c = []
    base = ["plan", "-m", "Qwen2.5-7B", "--task", "lora", "--tokens", "1e8", "--provider", "alibaba"]
    sbase = ["plan", "-m", "Qwen2.5-7B", "--task", "inference", "--provider", "alibaba", "--rate", "2"]
    c.append(Case("export", "export existing file in the way", base + ["--export", "{dir}/f"], 2, ("f",), files={"f": "x"}))
    c.append(Case("export", "export existing dir with files", base + ["--export", "{dir}/d"], None, ("force", "exist"), files={"d/README.md": "mine"},
                  check=lambda r: ([] if open(os.path.join(r["dir"], "d/README.md")).read() == "mine" else ["user file overwritten without --force"])))
    c.append(Case("export", "export into /proc", base + ["--export", "/proc/gpuplan-x"], 2, ("/proc",)))
    c.append(Case("export", "export into /dev/null", base + ["--export", "/dev/null"], 2, ("/dev/null",)))
    c.append(Case("export", "export path empty", base + ["--export", ""], 2, ("export",)))
    c.append(Case("export", "export litgpt", ["plan", "-m", "Llama-3.1-8B", "--task", "lora", "--profile", "litgpt", "--tokens", "1e8", "--export", "{dir}/l"], 0))
    c.append(Case("export", "export serving", sbase + ["--export", "{dir}/s"], 0))
    c.append(Case("export", "export serve static", sbase + ["--engine", "static", "--export", "{dir}/s"], None))
    c.append(Case("export", "export serve sglang", sbase + ["--engine", "sglang", "--export", "{dir}/s"], None))
    c.append(Case("export", "export serve trtllm", sbase + ["--engine", "trtllm", "--export", "{dir}/s"], None))
    c.append(Case("export", "export cp pretrain", ["plan", "-m", "Llama-3.1-70B", "--task", "pretrain", "--tokens", "1e10", "--seq-len", "131072", "--max-nodes", "16", "--export", "{dir}/p"], None))
    c.append(Case("export", "export plan json junk", ["export", "{dir}/p.json", "--to", "{dir}/o"], 2, ("p.json", "plan document"), files={"p.json": "{\"schema_version\": 1}"}))
    c.append(Case("export", "export plan json nan", ["export", "{dir}/p.json", "--to", "{dir}/o"], 2, ("p.json",), files={"p.json": "[NaN]"}))
    c.append(Case("export", "export plan json deep", ["export", "{dir}/p.json", "--to", "{dir}/o"], 2, ("p.json",), files={"p.json": "[" * 200000}))
    c.append(Case("export", "export plan json empty", ["export", "{dir}/p.json", "--to", "{dir}/o"], 2, ("p.json",), files={"p.json": ""}))
    c.append(Case("export", "export symlink dir", base + ["--export", "{dir}/ln"], None, ("ln",), files={"target/.keep": ""}))
    return c


# ---------------------------------------------------------------------------------------------
# Plan sanity (ordinary questions)


ACTIVE = {}
MOE = {"Qwen3-30B-A3B", "Qwen3-235B-A22B", "DeepSeek-V3", "DeepSeek-R1", "Mixtral-8x7B"}


def active_params(bin_path, model):
    """Non-embedding active parameters of a preset (`models show --format json`), for the MFU bound."""
    if model not in ACTIVE:
        try:
            out = subprocess.run([bin_path, "models", "show", model, "--format", "json"], capture_output=True,
                                 timeout=TIMEOUT).stdout
            prm = json.loads(out)["model"]["params"]
            ACTIVE[model] = (prm.get("active") or prm["total"]) - prm.get("embedding", 0)
        except (ValueError, KeyError, TypeError):
            ACTIVE[model] = None
    return ACTIVE[model]


def check_plan_json(r, model=None, task=None):
    """Independent invariants on every plan of `plan --format json`."""
    probs = []
    try:
        d = json.loads(r["out"])
    except ValueError as e:
        return [f"stdout is not JSON: {e}"]
    o = d.get("outcome", {})
    plans = o.get("plans", [])
    objective = d.get("request", {}).get("objective", "cost")
    n_active = active_params(BIN, model) if model else None
    costs = []
    for i, p in enumerate(plans, 1):
        tag = f"plan {i} ({p.get('instance', {}).get('id')}x{p.get('nodes')})"
        cny = (p.get("chosen") or {}).get("cny")
        hours = p.get("hours")
        costs.append(cny)
        if cny is not None and not (cny > 0):
            probs.append(f"{tag}: CNY {cny} <= 0")
        if hours is not None and not (hours > 0):
            probs.append(f"{tag}: hours {hours} <= 0")
        gpu = p.get("gpu") or {}
        vis = gpu.get("visible_memory_gib") or gpu.get("memory_gib")
        tr = p.get("train")
        gpu = gpu or {}
        if tr:
            mem = (tr.get("memory") or {}).get("device_total")
            if isinstance(mem, (int, float)) and vis and mem / 2**30 > vis * 1.0001:
                probs.append(f"{tag}: memory {mem / 2**30:.1f} GiB > visible {vis} GiB")
            st = tr.get("step") or {}
            if st.get("mfu", 0) > 0.75:
                probs.append(f"{tag}: reported MFU {st['mfu']:.2f} > 0.75")
            tps, peak = st.get("tokens_per_second_per_gpu"), st.get("peak")
            if n_active and tps and peak and model not in ("ResNet-50", "SDXL-UNet", "ViT-L/16", "Whisper-large-v3", "T5-base"):
                k = 4.0 if task in ("lora", "qlora") else 6.0
                mfu = k * n_active * tps / peak
                if mfu > 0.75:
                    probs.append(f"{tag}: {k:.0f}N FLOPs/token x {tps:.0f} tokens/s/GPU = {mfu:.2f} of the {peak / 1e12:.0f} TFLOP/s peak")
        sv = p.get("serve")
        if sv:
            m = sv.get("memory") or {}
            if m.get("fits") is False:
                probs.append(f"{tag}: serving memory does not fit")
            b = sv.get("batch_per_replica")
            mcr = m.get("max_concurrent_requests")
            if b and mcr is not None and b > mcr:
                probs.append(f"{tag}: batch {b} > the KV pool's {mcr} requests")
            if (m.get("kv_shortfall") or 0) > 0:
                probs.append(f"{tag}: kv_shortfall {m.get('kv_shortfall')}")
            tpot = (sv.get("latency") or {}).get("time_per_token")
            bw = gpu.get("memory_bandwidth_gbs")
            w = m.get("weights")
            moe = model in MOE  # MoE decode reads only the experts its batch routes to
            if tpot and bw and w and not moe and tpot < 0.9 * w / (bw * 1e9):
                probs.append(f"{tag}: {tpot * 1e3:.2f} ms per token < reading the weights once ({w / (bw * 1e6):.2f} ms)")
    if objective == "cost":
        priced = [x is not None for x in costs]
        if any(not a and b for a, b in zip(priced, priced[1:])):
            probs.append("an unpriced plan ranked above a priced one")
    return probs


def sanity():
    presets = ["Qwen2.5-0.5B", "Qwen2.5-7B", "Qwen2.5-72B", "Qwen3-30B-A3B", "Qwen3-235B-A22B", "DeepSeek-V3",
               "Llama-2-7B", "Llama-3.1-8B", "Llama-3.1-70B", "Llama-3.1-405B", "Mixtral-8x7B", "GLM-4-9B",
               "Baichuan2-13B", "Yi-34B", "InternLM2.5-20B", "BERT-large-uncased", "T5-base", "GPT-2", "ViT-L/16",
               "Whisper-large-v3", "ResNet-50", "SDXL-UNet", "Qwen3-8B", "Mistral-7B-v0.1"]
    c = []
    for m, task, prov, obj in itertools.product(presets, ["pretrain", "full", "lora", "qlora", "inference"],
                                                ["alibaba", "huawei", "tencent", None], ["cost", "time", "balanced"]):
        if task in ("lora", "qlora") and m in ("ResNet-50", "SDXL-UNet"):
            continue
        args = ["plan", "-m", m, "--task", task, "--optimize", obj, "--format", "json", "--top", "5"]
        if prov:
            args += ["--provider", prov]
        if task == "inference":
            args += ["--rate", "5"]
        elif task == "pretrain":
            args += ["--tokens", "1e10", "--max-nodes", "64"]
        else:
            args += ["--tokens", "1e8"]
        # SDXL's stored sample size is not known: training it needs one (refused since audit r6).
        if m == "SDXL-UNet" and task != "inference":
            args += ["--bytes-per-sample", "1e6"]
        # A full fine-tune of 235B/405B/671B may need more than the 16 nodes allowed: exit 4, with the reason.
        # Qwen3-235B full on Tencent: DeepSpeed-MoE (ZeRO ≤ 2) does not fit 16 nodes; the refusal
        # names --profile megatron.
        big = m in ("DeepSeek-V3", "Llama-3.1-405B", "Qwen3-235B-A22B")
        c.append(Case("sanity", " ".join(args[1:]), args, exit=None, ok_exits=(0, 4) if big else (0,),
                       check=lambda r, m=m, t=task: check_plan_json(r, m, t)))
    for m in ["Qwen2.5-7B", "Llama-3.1-70B", "Mixtral-8x7B", "DeepSeek-V3"]:
        for chips in ["ascend", "nvidia,ascend"]:
            args = ["plan", "-m", m, "--task", "lora", "--chips", chips, "--format", "json", "--tokens", "1e8"]
            c.append(Case("sanity", " ".join(args[1:]), args, ok_exits=(0, 4) if m == "DeepSeek-V3" else (0,),
                          check=lambda r, m=m: check_plan_json(r, m, "lora")))
    return c


def check_estimate_json(r, model=None, task=None):
    """Independent bounds on `estimate --format json`: MFU from 6N (4N for LoRA) FLOPs per token at
    most 0.75 of the peak; memory finite and positive; decode no faster than one read of the
    weights (dense models); KV pool not negative."""
    d = json.loads(r["out"])
    e, hw = d["estimate"], d["hardware"]
    probs = []
    n_active = active_params(BIN, model) if model else None
    if d["kind"] == "training_estimate":
        st = e.get("step") or {}
        tps, peak = st.get("tokens_per_second_per_gpu"), st.get("peak")
        if n_active and tps and peak and model not in NON_TOKEN:
            k = 4.0 if task in ("lora", "qlora") else 6.0
            mfu = k * n_active * tps / peak
            if mfu > 0.75:
                probs.append(f"{k:.0f}N x {tps:.0f} tokens/s/GPU = {mfu:.2f} of the peak")
        mem = (e.get("memory") or {}).get("device_total")
        if not (isinstance(mem, (int, float)) and mem > 0):
            probs.append(f"device_total {mem}")
    else:
        m = e.get("memory") or {}
        lat = e.get("latency") or {}
        bw = (hw.get("gpu") or {}).get("memory_bandwidth_gbs")
        tpot, w = lat.get("time_per_token"), m.get("weights")
        if tpot and bw and w and model not in MOE and tpot < 0.9 * w / (bw * 1e9):
            probs.append(f"{tpot * 1e3:.2f} ms per token < one read of the weights ({w / (bw * 1e6):.2f} ms)")
        if (m.get("kv_pool") or 0) < 0:
            probs.append(f"kv_pool {m.get('kv_pool')} < 0")
    return probs


NON_TOKEN = ("ResNet-50", "SDXL-UNet", "ViT-L/16", "Whisper-large-v3", "T5-base", "BERT-base-uncased",
             "BERT-large-uncased")


def esanity():
    """Ordinary `estimate` questions: preset × task × chip × a few options."""
    presets = ["Qwen2.5-0.5B", "Qwen2.5-7B", "Qwen2.5-72B", "Qwen3-30B-A3B", "Llama-3.1-8B", "Llama-3.1-70B",
               "Mixtral-8x7B", "GLM-4-9B", "Baichuan2-13B", "GPT-2", "BERT-base-uncased", "T5-base",
               "Whisper-large-v3", "ViT-L/16", "ResNet-50", "SDXL-UNet", "DeepSeek-V3", "InternLM2.5-7B"]
    chips = [("H100", 8), ("A100", 8), ("L20", 4), ("910B", 8), ("V100", 8), ("rtx-4090", 1)]
    opts = [[], ["--recompute", "full"], ["--compiled", "--chunked-loss"], ["--profile", "megatron", "--tp", "2"],
            ["--profile", "litgpt"], ["--seq-len", "8192", "--cp", "2"], ["--optimizer", "adam_w8bit", "--paged-optimizer"],
            ["--activation-offload", "--optimizer-in-backward"]]
    c = []
    for m, task, (gpu, n), o in itertools.product(presets, ["full", "lora", "qlora", "pretrain"], chips, opts):
        if task in ("lora", "qlora") and m in ("ResNet-50", "SDXL-UNet"):
            continue
        args = ["estimate", "-m", m, "--task", task, "--gpu", gpu, "--gpus-per-node", str(n), "--zero", "3",
                "--tokens", "1e9", "--format", "json"] + o
        c.append(Case("esanity", " ".join(args[1:]), args, ok_exits=(0, 2, 3),
                      check=lambda r, m=m, t=task: check_estimate_json(r, m, t)))
    for m, (gpu, n), o in itertools.product(presets, chips, [[], ["--engine", "sglang"], ["--engine", "trtllm"],
                                                           ["--engine", "static"], ["--weights", "int4"],
                                                           ["--kv-dtype", "fp8", "--batch", "64"],
                                                           ["--solve", "max-batch"], ["--solve", "max-context"],
                                                           ["--solve", "max-throughput", "--tpot", "0.05"]]):
        args = ["estimate", "-m", m, "--task", "inference", "--gpu", gpu, "--gpus-per-node", str(n), "--tp", str(n),
                "--format", "json"] + o
        chk = (lambda r, m=m: check_estimate_json(r, m, "inference")) if "--solve" not in o else None
        # An unreachable --tpot is a constraint not met: exit 4, as `plan` (README exit codes).
        exits = (0, 2, 3, 4) if "max-throughput" in o else (0, 2, 3)
        c.append(Case("esanity", " ".join(args[1:]), args, ok_exits=exits, check=chk))
    return c



def misc():
    """The other commands' flags (catalog, prices, prices fetch --dry-run, serve, accuracy) × bad
    values, and serving plans over a range of loads and latency targets."""
    c = []
    spec = [
        (["catalog", "instances"], "min-gpu-memory", ("min-gpu-memory", "min_gpu_memory")),
        (["catalog", "instances"], "max-price", ("max-price", "max_price")),
        (["catalog", "instances"], "gpus", ("gpus",)),
        (["prices", "fetch", "alibaba", "--dry-run"], "max-rps", ("max-rps", "max_rps")),
        (["prices", "fetch", "alibaba", "--dry-run"], "retries", ("retries",)),
        (["prices", "fetch", "alibaba", "--dry-run"], "timeout", ("timeout",)),
        (["prices", "fetch", "alibaba", "--dry-run"], "endpoint", ("endpoint",)),
        (["serve"], "bind", ("bind",)),
        (["accuracy"], "cases", ("cases",)),  # a folder named `nan` is the user's own word
    ]
    for base, flag, frag in spec:
        for v in BAD:
            if base == ["accuracy"] and v in ("nan", "inf", "-inf"):
                continue  # a folder of that name: the user's own word, echoed
            c.append(Case("misc", f"{' '.join(base)} --{flag}={v!r}", base + [f"--{flag}={v}"],
                          frag=frag + (f"--{flag}",), ok_exits=(0, 2, 6)))
    for rate, ttft, tpot in itertools.product(["0.001", "0.5", "50", "2000"], ["0.05", "2", "600"],
                                              ["0.005", "0.05", "1"]):
        for m in ["Qwen2.5-7B", "Llama-3.1-70B", "Qwen3-30B-A3B", "GPT-2"]:
            args = ["plan", "-m", m, "--task", "inference", "--rate", rate, "--ttft", ttft, "--tpot", tpot,
                    "--format", "json"]
            c.append(Case("misc", " ".join(args[1:]), args, ok_exits=(0, 4),
                          check=lambda r, m=m: check_plan_json(r, m, "inference")))
    for conc in ["1", "64", "100000"]:
        for eng in ["vllm", "sglang", "trtllm", "static"]:
            args = ["plan", "-m", "Llama-3.1-8B", "--task", "inference", "--concurrency", conc, "--engine", eng,
                    "--format", "json", "--max-nodes", "64"]
            c.append(Case("misc", " ".join(args[1:]), args, ok_exits=(0, 4),
                          check=lambda r: check_plan_json(r, "Llama-3.1-8B", "inference")))
    return c


# ---------------------------------------------------------------------------------------------
# Inputs added with the ZeRO-3/grad_reduce_fp32/gpt_bigcode/fused-LoRA/tp_allreduce changes


BIGCODE = {  # bigcode/starcoderbase-1b config.json shapes (multi_query: one K/V head)
    "model_type": "gpt_bigcode", "n_embd": 2048, "n_layer": 24, "n_head": 16, "n_inner": 8192,
    "vocab_size": 49152, "n_positions": 8192, "multi_query": True, "activation_function": "gelu_pytorch_tanh",
}
QWEN1 = {  # Qwen/Qwen-7B config.json shapes (remote code, model_type qwen: fused c_attn)
    "model_type": "qwen", "hidden_size": 4096, "num_hidden_layers": 32, "num_attention_heads": 32,
    "intermediate_size": 22016, "vocab_size": 151936, "kv_channels": 128, "max_position_embeddings": 8192,
    "seq_length": 8192, "no_bias": True,
}


def check_lora_targets_json(fused):
    """`plan`/`estimate --format json` of a LoRA job: no internal marker among any setup's
    targets; `fused_qkv` true exactly when q/k/v are one fused adapter."""
    def check(r):
        d = json.loads(r["out"])
        probs, seen = [], []

        def walk(o, path):
            if isinstance(o, dict):
                if "targets" in o and "rank" in o:
                    seen.append((path, o))
                for k, v in o.items():
                    walk(v, f"{path}/{k}")
            elif isinstance(o, list):
                for i, v in enumerate(o):
                    walk(v, f"{path}/{i}")
        walk(d, "")
        for path, lora in seen:
            bad = [t for t in lora["targets"] if not re.fullmatch(r"[A-Za-z0-9_.\-]+", str(t))]
            if bad:
                probs.append(f"{path}/targets lists {bad}, not module names")
            # A plan's modelled setup says fused_qkv; the request and an estimate's echo of the
            # input keep the user's own form.
            if path.startswith("/outcome/") and bool(lora.get("fused_qkv")) != fused:
                probs.append(f"{path}: fused_qkv {lora.get('fused_qkv')}, expected {fused}")
        if not seen:
            probs.append("no LoRA setup in the output")
        return probs
    return check


def check_moe_lora_vs_full(model, args):
    """A LoRA job saves at most a few times a full fine-tune's activations: per adapted linear
    a dropout mask (1 B) and its fp32 input (4 B) per input element, about 47h bytes per token
    and layer over Llama's seven linears against the ~34h a layer saves (Korthikanti et al.),
    so under 2.5x; 4x is the bound. Routed-expert adapters counted once per expert (not
    top-k per token) broke it 17x."""
    def check(r):
        lora = json.loads(r["out"])["estimate"]["memory"]["saved_after_forward"]
        full_args = [a if a != "lora" else "full" for a in args]
        p = subprocess.run([BIN] + full_args, capture_output=True, timeout=TIMEOUT)
        if p.returncode not in (0, 3):
            return []
        full = json.loads(p.stdout)["estimate"]["memory"]["saved_after_forward"]
        if full > 0 and lora > 4 * full:
            return [f"LoRA saves {lora / 2**30:.1f} GiB after forward, {lora / full:.1f}x the full fine-tune's {full / 2**30:.1f} GiB"]
        return []
    return check


def recent():
    c = []

    def add(name, args, exit=None, frag=None, **kw):
        c.append(Case("recent", name, args, exit=exit, frag=frag, **kw))

    est = ["estimate", "-w", "{dir}/w.toml"]
    # grad_reduce_fp32 ([training.parallel], workload file only)
    tr = ('model = "{m}"\nkind = "training"\n[hardware]\ngpu = "H100"\ngpus_per_node = 8\nnodes = {n}\n'
          '[training]\ntask = "{t}"\ntokens = 1e9\nframework = "{f}"\n[training.parallel]\nzero = {z}\n')
    for v, ok in [("true", True), ("false", True), ('"yes"', False), ("1", False), ("nan", False),
                  ('""', False), ("[true]", False), ("{ on = true }", False)]:
        for m, t, f, z, n in [("Llama-3.1-8B", "full_finetune", "megatron", 1, 2), ("Llama-3.1-8B", "pretrain", "hugging_face", 3, 2),
                              ("GPT-2", "lora", "hugging_face", 0, 1), ("Mixtral-8x7B", "full_finetune", "megatron", 1, 4)]:
            text = tr.format(m=m, t=t, f=f, z=z, n=n) + f"grad_reduce_fp32 = {v}\n"
            add(f"grad_reduce_fp32 = {v} {m} {t} {f} zero {z}", est + ["--format", "json"], None if ok else 2,
                ("grad_reduce_fp32",), files={"w.toml": text}, need=() if ok else ("grad_reduce_fp32", "bool"),
                ok_exits=(0, 3), check=(lambda r, m=m, t=t: check_estimate_json(r, m, "lora" if "lora" in t else "full")) if ok else None)
    add("grad_reduce_fp32 in [training]", est, 2, None, need=("grad_reduce_fp32",),
        files={"w.toml": tr.format(m="Llama-3.1-8B", t="full_finetune", f="megatron", z=1, n=1).replace(
            "[training.parallel]", "grad_reduce_fp32 = true\n[training.parallel]")})
    # tp_allreduce ([inference])
    inf = ('model = "{m}"\nkind = "inference"\n[hardware]\ngpu = "{g}"\ngpus_per_node = {tp}\n[inference]\n'
           'tp = {tp}\nengine = "{e}"\n')
    for v in ['"custom"', '"nccl"']:
        for m, g, tp, e in itertools.product(["Llama-3.1-8B", "Mixtral-8x7B", "Qwen2.5-0.5B"], ["H100", "A100", "L20"],
                                             [1, 2, 4], ["trtllm", "vllm", "sglang", "static"]):
            text = inf.format(m=m, g=g, tp=tp, e=e) + f"tp_allreduce = {v}\n"
            add(f"tp_allreduce = {v} {m} {g} tp{tp} {e}", est + ["--format", "json"], None, ("tp", "tp_allreduce"),
                files={"w.toml": text}, ok_exits=(0, 2, 3),
                check=lambda r, m=m: check_estimate_json(r, m, "inference"))
    for v in ['"NCCL"', '"mpi"', '""', "true", "1", "nan", '["nccl"]', '"custom "']:
        text = inf.format(m="Llama-3.1-8B", g="H100", tp=2, e="trtllm") + f"tp_allreduce = {v}\n"
        add(f"tp_allreduce = {v}", est, 2, None, files={"w.toml": text}, need=("tp_allreduce", "custom", "nccl"))
    add("tp_allreduce = { nccl = 1 }", est, 2, None, need=("tp_allreduce",),
        files={"w.toml": inf.format(m="Llama-3.1-8B", g="H100", tp=2, e="trtllm") + "tp_allreduce = { nccl = 1 }\n"})
    add("tp_allreduce in [training]", est, 2, None, need=("tp_allreduce",),
        files={"w.toml": tr.format(m="Llama-3.1-8B", t="full_finetune", f="megatron", z=1, n=1).replace(
            "[training.parallel]", 'tp_allreduce = "nccl"\n[training.parallel]')})
    for v in ["1", "true"]:
        add(f"engine = {v} (choices named)", est, 2, None, need=("engine", "vllm"),
            files={"w.toml": inf.format(m="Llama-3.1-8B", g="H100", tp=1, e="vllm").replace('engine = "vllm"', f"engine = {v}")})
    # gpt_bigcode HF configs
    cmds = {
        "show": ["models", "show", "--config", "{dir}/config.json"],
        "lora": ["estimate", "--model-config", "{dir}/config.json", "--task", "lora", "--gpu", "H100", "--gpus-per-node", "8", "--format", "json"],
        "mlora": ["estimate", "--model-config", "{dir}/config.json", "--task", "lora", "--lora-targets", "c_attn", "--profile", "megatron", "--gpu", "H100", "--gpus-per-node", "8", "--format", "json"],
        "serve": ["estimate", "--model-config", "{dir}/config.json", "--task", "inference", "--gpu", "H100", "--gpus-per-node", "4", "--tp", "4", "--format", "json"],
        "serve1": ["estimate", "--model-config", "{dir}/config.json", "--task", "inference", "--gpu", "A100", "--format", "json"],
        "plan": ["plan", "--model-config", "{dir}/config.json", "--task", "inference", "--provider", "alibaba", "--format", "json"],
    }

    def cfg(name, config, exit=None, frag=None, which=tuple(cmds), **kw):
        text = config if isinstance(config, str) else json.dumps(config)
        for w in which:
            chk = None
            if exit == 0 and w in ("lora", "mlora", "serve", "serve1"):
                chk = lambda r, w=w: check_estimate_json(r, None, "inference" if "serve" in w else "lora")
            c.append(Case("recent", f"bigcode {name} [{w}]", cmds[w], exit=exit, frag=frag,
                          files={"config.json": text}, check=chk, **kw))

    cfg("ok", BIGCODE, 0)
    cfg("no n_inner (4h)", {k: v for k, v in BIGCODE.items() if k != "n_inner"}, 0)
    cfg("n_inner null", dict(BIGCODE, n_inner=None), 0)
    cfg("n_inner 0", dict(BIGCODE, n_inner=0), 2, ("n_inner",))
    cfg("n_inner 1e15", dict(BIGCODE, n_inner=10**15), None, ("n_inner", "parameters"))
    cfg("n_inner string", dict(BIGCODE, n_inner="8192"), 2, ("n_inner",))
    cfg("odd heads 15 not dividing n_embd", dict(BIGCODE, n_head=15), 2, ("n_embd",), absent=("head_dim",))
    cfg("odd heads 15 with head_dim (not read)", dict(BIGCODE, n_head=15, head_dim=128), 2, ("n_embd",), absent=("give head_dim",))
    cfg("odd heads 25 dividing 1600", dict(BIGCODE, n_embd=1600, n_head=25), None, ("tp", "head"), which=("show", "lora", "mlora", "serve1", "plan"))
    cfg("odd heads 25, tp 4", dict(BIGCODE, n_embd=1600, n_head=25), 2, ("tp",), which=("serve",))
    cfg("one head", dict(BIGCODE, n_embd=128, n_head=1, n_inner=512), None, ("tp", "head"))
    cfg("multi_query string", dict(BIGCODE, multi_query="true"), 2, ("multi_query",))
    cfg("multi_query 1", dict(BIGCODE, multi_query=1), 2, ("multi_query",))
    cfg("multi_query null", dict(BIGCODE, multi_query=None), 0)
    cfg("multi_query false odd heads", dict(BIGCODE, multi_query=False, n_embd=1600, n_head=25), None, ("tp", "head"))
    cfg("n_head 0", dict(BIGCODE, n_head=0), 2, ("n_head",))
    cfg("no n_positions", {k: v for k, v in BIGCODE.items() if k != "n_positions"}, 0)
    cfg("n_layer huge", dict(BIGCODE, n_layer=10**7), 2, ("n_layer",))
    # ZeRO-3 with deepspeed on tiny and huge models
    for m, task, (n, nodes), off in itertools.product(
            ["GPT-2", "Qwen2.5-0.5B", "BERT-base-uncased", "T5-base", "ResNet-50", "Llama-3.1-405B",
             "DeepSeek-V3", "Qwen3-235B-A22B", "Mixtral-8x7B"],
            ["full", "lora", "qlora", "pretrain"], [(1, 1), (8, 1), (8, 16)],
            [[], ["--offload-optimizer"], ["--offload-optimizer", "--offload-params"]]):
        if task in ("lora", "qlora") and m == "ResNet-50":
            continue
        args = ["estimate", "-m", m, "--task", task, "--gpu", "H100", "--gpus-per-node", str(n), "--nodes", str(nodes),
                "--zero", "3", "--deepspeed", "--tokens", "1e9", "--format", "json"] + off
        add(f"zero3 deepspeed {' '.join(args[2:])}", args, None, ("zero", "deepspeed", "offload", "gpu"), ok_exits=(0, 2, 3),
            check=lambda r, m=m, t=task: check_estimate_json(r, m, t))
    for m in ["Mixtral-8x7B", "Qwen3-30B-A3B", "Qwen3-235B-A22B", "DeepSeek-V3", "Llama-3.1-8B"]:
        args = ["estimate", "-m", m, "--task", "lora", "--gpu", "H100", "--gpus-per-node", "8", "--nodes", "2",
                "--zero", "3", "--deepspeed", "--tokens", "1e9", "--format", "json"]
        add(f"lora vs full activations {m}", args, None, None, ok_exits=(0, 3), check=check_moe_lora_vs_full(m, args))
        c[-1].check_exits = (0, 3)  # a plan that does not fit still reports its memory
    add("zero3 deepspeed megatron profile", ["estimate", "-m", "Llama-3.1-8B", "--task", "full", "--gpu", "H100",
        "--gpus-per-node", "8", "--zero", "3", "--deepspeed", "--profile", "megatron"], None, ("deepspeed", "profile", "megatron"))
    add("zero3 deepspeed plan", ["plan", "-m", "Llama-3.1-70B", "--task", "full", "--zero", "3", "--deepspeed",
        "--tokens", "1e9", "--format", "json"], None, ("zero", "deepspeed"), ok_exits=(0, 2, 4),
        check=lambda r: check_plan_json(r, "Llama-3.1-70B", "full"))
    # LoRA under framework = megatron on fused c_attn (GPT-2, Qwen v1) and Megatron q/k/v
    for targets, fused in [("c_attn", True), ("c_attn,c_proj", True), ("all-linear", True), ("c_proj,c_fc", False)]:
        for prof in ["megatron", "hugging_face", "litgpt"]:
            gpt2_fused = fused  # GPT-2's c_attn is one module in every profile
            args = ["plan", "-m", "GPT-2", "--task", "lora", "--tokens", "1e8", "--lora-targets", targets,
                    "--profile", prof, "--format", "json", "--top", "3"]
            add(f"gpt2 lora {targets} {prof}", args, 0, None, check=check_lora_targets_json(gpt2_fused))
    for targets, fused in [("q_proj,k_proj,v_proj", True), ("q_proj,v_proj", False), ("all-linear", True)]:
        for prof, f in [("megatron", fused), ("hugging_face", False)]:
            args = ["plan", "-m", "Llama-3.1-8B", "--task", "lora", "--tokens", "1e8", "--lora-targets", targets,
                    "--profile", prof, "--format", "json", "--top", "3"]
            add(f"llama lora {targets} {prof}", args, 0, None, check=check_lora_targets_json(f))
            est_args = ["estimate", "-m", "Llama-3.1-8B", "--task", "lora", "--gpu", "H100", "--lora-targets", targets,
                        "--profile", prof, "--format", "json"]
            add(f"llama lora estimate {targets} {prof}", est_args, 0, None, check=check_lora_targets_json(f))
    for targets, exit in [("c_attn", 0), ("c_attn,c_proj,w1,w2", 0), ("q_proj", 2), ("c_attn,zz", 2)]:
        for prof in ["megatron", "hugging_face"]:
            args = ["plan", "--model-config", "{dir}/config.json", "--task", "lora", "--tokens", "1e8",
                    "--lora-targets", targets, "--profile", prof, "--format", "json", "--top", "3"]
            add(f"qwen1 lora {targets} {prof}", args, exit, ("lora", "targets"), files={"config.json": json.dumps(QWEN1)},
                check=check_lora_targets_json("c_attn" in targets) if exit == 0 else None)
    add("qwen1 odd intermediate_size", ["models", "show", "--config", "{dir}/config.json"], None, ("intermediate_size",),
        files={"config.json": json.dumps(dict(QWEN1, intermediate_size=22017))})
    for m, targets, prof in [("GPT-2", "c_attn", "megatron"), ("Llama-3.1-8B", "q_proj,k_proj,v_proj", "megatron")]:
        add(f"export {m} {targets} {prof}", ["plan", "--export", "{dir}/out", "-m", m, "--task", "lora",
            "--tokens", "1e8", "--lora-targets", targets, "--profile", prof], 0)
    return c


# ---------------------------------------------------------------------------------------------
# serve API


def api_sweep(bin_path):
    d = tempfile.mkdtemp(prefix="gpuplan-sweep-api-")
    env = dict(os.environ, GPUPLAN_CONFIG_DIR=d)
    p = subprocess.Popen([bin_path, "serve", "--bind", "127.0.0.1:0", "--no-user-catalog"], env=env,
                         stderr=subprocess.PIPE, stdout=subprocess.DEVNULL)
    line = p.stderr.readline().decode()
    m = re.search(r"http://([0-9.:]+)", line)
    if not m:
        p.kill()
        return [("api", "start", [f"no address: {line}"])], 0
    base = f"http://{m.group(1)}/api/v1"
    bodies = []
    good = {"model": "Qwen2.5-7B", "training": {"task": "lora"}}
    bodies += [("plan", b) for b in [
        b"", b"{", b"[]", b"null", b"1", b'"x"', json.dumps(good).encode(),
        json.dumps(dict(good, training={"task": "lora", "seq_len": -1})).encode(),
        json.dumps(dict(good, training={"task": "lora", "seq_len": 1e400 if False else 1e308})).encode(),
        json.dumps(dict(good, training={"task": "lora", "attention_span": 99999})).encode(),
        json.dumps(dict(good, training={"task": "lora", "lora": {"dropout": 2}})).encode(),
        json.dumps({"model": "Qwen2.5-7B", "serve": {"rate_rps": 1, "tpot_s": 0}}).encode(),
        json.dumps({"model": "Qwen2.5-7B", "serve": {"rate_rps": 1, "weights": ["x"] * 10000}}).encode(),
        json.dumps({"model": "Qwen2.5-7B", "constraints": {"regions": ["r"] * 10000}, "training": {"task": "lora"}}).encode(),
        b'{"model":' + b"[" * 100000 + b"]" * 100000 + b"}",
        b'{"model":"Qwen2.5-7B","training":{"task":"lora","seq_len":NaN}}',
        b'{"model":"Qwen2.5-7B","training":{"task":"lora","seq_len":1e999}}',
        b'{"model":"\xff\xfe","training":{"task":"lora"}}',
        json.dumps({"model": "Qwen2.5-7B", "config": {"model_type": "llama", "hidden_size": 1 << 62}, "training": {"task": "lora"}}).encode(),
        json.dumps({"config": dict(LLAVA), "serve": {"rate_rps": 1}}).encode(),
        json.dumps({"config": dict(MIXTRAL, num_experts_per_tok=99), "serve": {"rate_rps": 1}}).encode(),
        json.dumps(dict(good, tunables={"fragmentation": -1})).encode(),
        json.dumps(dict(good, training={"task": "lora", "parallel": {"cp": 3}})).encode(),
        json.dumps(dict(good, model_config="/etc/passwd")).encode(),
        json.dumps(dict(good, model_config="/proc/self/environ")).encode(),
    ]]
    bodies += [("estimate", b) for b in [
        json.dumps({"model": "Qwen2.5-7B", "kind": "inference", "hardware": {"gpu": "A100"}, "solve": "max-context"}).encode(),
        json.dumps({"model": "Qwen2.5-7B", "kind": "inference", "hardware": {"gpu": "A100", "gpus_per_node": 1 << 40}}).encode(),
        json.dumps({"model": "Qwen2.5-7B", "kind": "inference", "hardware": {"gpu": "A100"}, "inference": {"engine": "static", "batch": 1000000}}).encode(),
        json.dumps({"model": "Mixtral-8x7B", "kind": "inference", "hardware": {"gpu": "H100", "gpus_per_node": 2}, "inference": {"engine": "static", "tp": 2}}).encode(),
        json.dumps({"model": "Qwen2.5-7B", "kind": "training", "hardware": {"gpu": "A100"}, "training": {"task": "full", "parallel": {"cp": 2}, "seq_len": 1001}}).encode(),
        b"{" * 10000,
    ]]
    fails = []
    n = 0
    for ep, body in bodies:
        n += 1
        req = urllib.request.Request(f"{base}/{ep}", data=body, method="POST",
                                     headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=TIMEOUT) as resp:
                status, text = resp.status, resp.read().decode("utf-8", "replace")
        except urllib.error.HTTPError as e:
            status, text = e.code, e.read().decode("utf-8", "replace")
        except Exception as e:
            status, text = -1, f"{type(e).__name__}: {e}"
        probs = []
        if status == -1 or status >= 500:
            probs.append(f"status {status}: {text[:300]}")
        bad = shows_non_number(text)
        if bad:
            probs.append(f"shows {bad}: {text[:200]}")
        if "root:" in text or "PATH=" in text:
            probs.append("leaks a local file")
        if p.poll() is not None:
            probs.append("server died")
            p = subprocess.Popen([bin_path, "serve", "--bind", m.group(1), "--no-user-catalog"], env=env,
                                 stderr=subprocess.PIPE, stdout=subprocess.DEVNULL)
            p.stderr.readline()
        if probs:
            fails.append(("api", f"{ep} {body[:80]!r}", probs))
    p.kill()
    shutil.rmtree(d, ignore_errors=True)
    return fails, n



# ---------------------------------------------------------------------------------------------
# Round 5: what the tool writes it reads back; filters, schedules and folders that silently
# selected nothing or everything.


def toml_value(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    if isinstance(v, str):
        return json.dumps(v)
    if isinstance(v, list):
        return "[" + ", ".join(toml_value(x) for x in v) + "]"
    raise ValueError(v)


def toml_table(name, d, out):
    """A JSON object as TOML tables (nulls left out: TOML has none)."""
    out.append(f"[{name}]")
    subs = []
    for k, v in d.items():
        if v is None:
            continue
        if isinstance(v, dict):
            subs.append((k, v))
        else:
            out.append(f"{k} = {toml_value(v)}")
    for k, v in subs:
        toml_table(f"{name}.{k}", v, out)


def check_setup_reads_back(r):
    """Every plan's `train.setup`, written as a workload file, is read back by `estimate -w` on
    the plan's instance and node count, with the same memory per device and step time."""
    d = json.loads(r["out"])
    probs = []
    for i, pl in enumerate(d["outcome"]["plans"]):
        out = [f"model = {toml_value(d['request']['model'])}", 'kind = "training"']
        toml_table("training", pl["train"]["setup"], out)
        path = os.path.join(r["dir"], f"back{i}.toml")
        with open(path, "w") as f:
            f.write("\n".join(out) + "\n")
        e = subprocess.run([BIN, "estimate", "-w", path, "--instance", pl["instance"]["id"], "--nodes",
                            str(pl["nodes"]), "--format", "json"], capture_output=True, text=True,
                           timeout=TIMEOUT, cwd=r["dir"], env=dict(os.environ, GPUPLAN_TODAY="2026-12-03"))
        if e.returncode != 0:
            probs.append(f"plan {i + 1}'s setup does not read back (exit {e.returncode}): {e.stderr.strip()[-300:]}")
            continue
        est = json.loads(e.stdout)["estimate"]
        for what, a, b in [("memory", pl["train"]["memory"]["device_total"], est["memory"]["device_total"]),
                           ("step", pl["train"]["step"]["step"], est["step"]["step"])]:
            if abs(a - b) > 1e-6 * abs(a):
                probs.append(f"plan {i + 1}: {what} {a} in the plan, {b} read back")
    return probs


QWEN2_MOE = {"model_type": "qwen2_moe", "hidden_size": 1024, "num_hidden_layers": 12, "num_attention_heads": 8,
             "num_key_value_heads": 4, "vocab_size": 1000, "intermediate_size": 2048, "num_experts": 8,
             "num_experts_per_tok": 2, "moe_intermediate_size": 512, "max_position_embeddings": 4096}
DEEPSEEK_SMALL = {"model_type": "deepseek_v3", "hidden_size": 1024, "num_hidden_layers": 12, "num_attention_heads": 8,
                  "vocab_size": 1000, "intermediate_size": 2048, "n_routed_experts": 8, "num_experts_per_tok": 2,
                  "moe_intermediate_size": 512, "kv_lora_rank": 64, "q_lora_rank": 128, "qk_rope_head_dim": 16,
                  "qk_nope_head_dim": 32, "v_head_dim": 32, "max_position_embeddings": 4096}


def expect_dense(n):
    def chk(r):
        return [] if f"{n} dense layers" in r["out"] or (n == 0 and "dense layers" not in r["out"]) else [
            f"expected {n} dense layers: {r['out'].splitlines()[0][:200]}"]
    return chk


def r5():
    c = []

    def add(name, args, exit=None, frag=None, **kw):
        c.append(Case("r5", name, args, exit=exit, frag=frag, **kw))

    # A plan's setup reads back (fused_qkv, GPT-2's resolved names, modules_to_save, foreach buffers).
    base = ["plan", "--tokens", "1e8", "--format", "json", "--top", "2"]
    for m, task, extra in [
            ("Qwen2.5-7B", "lora", []), ("Qwen2.5-7B", "qlora", []), ("Llama-3.1-8B", "full", []),
            ("Llama-3.1-8B", "lora", ["--profile", "megatron"]),
            ("Llama-3.1-8B", "lora", ["--profile", "megatron", "--lora-targets", "q_proj,k_proj,v_proj"]),
            ("Llama-3.1-8B", "lora", ["--profile", "megatron", "--lora-targets", "q_proj,v_proj"]),
            ("Llama-3.1-8B", "lora", ["--profile", "litgpt"]),
            ("GPT-2", "lora", []), ("GPT-2", "lora", ["--lora-targets", "c_attn"]),
            ("GPT-2", "lora", ["--lora-targets", "c_proj,c_fc"]), ("GPT-2", "lora", ["--profile", "megatron"]),
            ("Mixtral-8x7B", "lora", []), ("Qwen3-30B-A3B", "lora", ["--profile", "megatron"]),
            ("Llama-2-13B", "pretrain", []), ("GLM-4-9B", "lora", ["--lora-dropout", "0"])]:
        for prov in ["alibaba", "tencent"]:
            add(f"setup reads back: {m} {task} {' '.join(extra)} {prov}",
                base + ["-m", m, "--task", task, "--provider", prov] + extra, None, None, ok_exits=(0, 4),
                check=check_setup_reads_back)
    wl = ('model = "Qwen2.5-7B"\n[training]\ntask = "lora"\ntokens = 1e8\noptimizer_foreach = true\n'
          'optimizer_foreach_buffers = {b}\n[training.lora]\nmodules_to_save = {s}\n[training.parallel]\n'
          'grad_reduce_fp32 = {g}\nfsdp_wrap_embeddings = {w}\n')
    for b, s_, g, w in itertools.product([1, 2], ['[]', '["lm_head"]', '["embed_tokens", "lm_head"]'],
                                         ["true", "false"], ["true", "false"]):
        add(f"setup reads back: foreach {b} saves {s_} fp32 {g} wrap {w}",
            ["plan", "-w", "{dir}/w.toml", "--provider", "alibaba", "--format", "json", "--top", "2"], None, None,
            ok_exits=(0, 4), files={"w.toml": wl.format(b=b, s=s_, g=g, w=w)}, check=check_setup_reads_back)
    # fused_qkv given by hand: agrees → 0, disagrees or wrong type → 2 naming the key.
    fw = ('model = "{m}"\n[hardware]\ngpu = "A100"\n[training]\ntask = "lora"\ntokens = 1e8\n'
          'framework = "{f}"\n[training.lora]\ntargets = {t}\nfused_qkv = {v}\n')
    for m, f, t, fused in [("Llama-3.1-8B", "megatron", '["all-linear"]', True),
                           ("Llama-3.1-8B", "hugging_face", '["all-linear"]', False),
                           ("Llama-3.1-8B", "megatron", '["q_proj", "v_proj"]', False),
                           ("GPT-2", "hugging_face", '["c_attn"]', True),
                           ("GPT-2", "hugging_face", '["q_proj", "k_proj", "v_proj"]', True),
                           ("GPT-2", "hugging_face", '["c_proj"]', False),
                           ("GPT-2", "litgpt", '["all-linear"]', True)]:
        for v in ["true", "false", '"true"', "1", "[true]"]:
            ok = v in ("true", "false") and (v == "true") == fused
            add(f"fused_qkv = {v} {m} {f} {t}", ["estimate", "-w", "{dir}/w.toml"], 0 if ok else 2, ("fused_qkv",),
                files={"w.toml": fw.format(m=m, f=f, t=t, v=v)}, need=() if ok else ("fused_qkv",))
    # catalog instance filters: the documented ranges (docs/reliability.md), checked independently
    ranges = {"--gpus": (0.0, False, 1024.0), "--min-gpu-memory": (0.0, True, 10000.0),
              "--max-price": (0.0, False, 1e12)}
    for flag, (lo, lo_ok, hi) in ranges.items():
        for v in BAD + ["1", "8", "0.25", "24", "80", "1000", "1e12", "1e13", "10001", "1025"]:
            if v.startswith("-"):
                add(f"catalog instances {flag}={v}", ["catalog", "instances", f"{flag}={v}"], 2, (flag,), need=(flag,))
                continue
            try:
                x = float(v) if v.isascii() else float("nan")  # Rust reads ASCII digits only
                ok = x == x and (x > lo or (lo_ok and x == lo)) and x <= hi
            except ValueError:
                ok = False  # clap refuses it (its message names the flag)
            add(f"catalog instances {flag} {v!r}", ["catalog", "instances", flag, v, "--vgpu"], 0 if ok else 2, (flag,),
                need=() if ok else (flag,))
    # MoE layer schedules: the dense count follows the modelling code's predicate (computed here).
    show = ["models", "show", "--config", "{dir}/config.json"]
    for step in [1, 2, 3, 4, 12, 13]:
        for only in [[], [0], [0, 1, 2], [11, 99, -1], list(range(12))]:
            dense = sum(1 for i in range(12) if not (i not in only and (i + 1) % step == 0))
            add(f"qwen2_moe step {step} mlp_only {only}", show, 0, None,
                files={"config.json": json.dumps(dict(QWEN2_MOE, decoder_sparse_step=step, mlp_only_layers=only))},
                check=expect_dense(dense))
    for first_k in [0, 1, 3, 12]:
        for freq in [1, 2, 3, 5, 12]:
            dense = sum(1 for i in range(12) if not (i >= first_k and i % freq == 0))
            add(f"deepseek first_k {first_k} freq {freq}", show, 0, None,
                files={"config.json": json.dumps(dict(DEEPSEEK_SMALL, first_k_dense_replace=first_k, moe_layer_freq=freq))},
                check=expect_dense(dense))
    for key, cfg in [("decoder_sparse_step", QWEN2_MOE), ("moe_layer_freq", DEEPSEEK_SMALL)]:
        for v in [0, -1, 1.5, "2", [2], 10 ** 30]:
            add(f"{key} = {v!r}", show, 2, (key,), files={"config.json": json.dumps(dict(cfg, **{key: v}))}, need=(key,))
    for v in ["0,1", 3, [0.5], [[0]], {"0": 1}, ["0"]]:
        add(f"mlp_only_layers = {v!r}", show, 2, ("mlp_only_layers",),
            files={"config.json": json.dumps(dict(QWEN2_MOE, mlp_only_layers=v))}, need=("mlp_only_layers",))
    add("first_k_dense_replace above the layers", show, 2, ("first_k_dense_replace",),
        files={"config.json": json.dumps(dict(DEEPSEEK_SMALL, first_k_dense_replace=13))})
    # accuracy --cases folders without cases
    for name, files in [("empty", {"none/.keep": ""}), ("only json", {"none/a.json": "{}"}),
                        ("toml in a subfolder", {"none/sub/a.toml": ""})]:
        add(f"accuracy --cases {name}", ["accuracy", "--cases", "{dir}/none"], 2, ("case",), files=files)
    # the file's kind decides plan's task (no --task)
    k = 'model = "Qwen2.5-7B"\nkind = "{k}"\n[serve]\nrate_rps = 1\n[training]\ntask = "lora"\ntokens = 1e8\n'
    for kind, word in [("inference", "serving"), ("training", "LoRA")]:
        add(f"kind = {kind} with both tables", ["plan", "-w", "{dir}/w.toml", "--provider", "alibaba", "--top", "1"],
            0, None, files={"w.toml": k.format(k=kind)},
            check=lambda r, word=word: [] if word in r["out"].splitlines()[0] else [f"not {word}: {r['out'][:120]}"])
    # export: a hand-edited TP x PP that does not divide the plan's GPUs is refused
    doc = json.loads(subprocess.run([BIN, "plan", "-m", "Llama-3.1-8B", "--task", "full", "--tokens", "1e9",
                                     "--provider", "alibaba", "--format", "json", "--top", "3"],
                                    capture_output=True, text=True, timeout=TIMEOUT,
                                    env=dict(os.environ, GPUPLAN_TODAY="2026-12-03")).stdout)
    for pick in range(1, len(doc["outcome"]["plans"]) + 1):
        plan = doc["outcome"]["plans"][pick - 1]
        gpus = plan["cluster"]["gpus_per_node"] * plan["nodes"]
        par = plan["train"]["setup"]["parallel"]
        for tp, pp, cp in [(par["tp"], par["pp"], 1), (3, 1, 1), (1, 3, 1), (5, 7, 1), (gpus * 2, 1, 1),
                           (1024, 1024, 1), (gpus, 1, 1), (2, 1, 3), (1, 1, gpus * 2)]:
            edited = json.loads(json.dumps(doc))
            edited["outcome"]["plans"][pick - 1]["train"]["setup"]["parallel"].update(tp=tp, pp=pp, cp=cp)
            ok = gpus % (tp * pp * cp) == 0
            add(f"export pick {pick} ({gpus} GPUs) tp {tp} pp {pp} cp {cp}", ["export", "{dir}/p.json", "--to",
                "{dir}/out", "--pick", str(pick)], 0 if ok else 2, ("tp",), files={"p.json": json.dumps(edited)},
                need=() if ok else ("TP", "PP", "CP"))
    # long values are not echoed whole
    big = "x" * 1_000_000

    def short_err(r):
        return [] if len(r["err"]) < 4000 else [f"stderr of {len(r['err'])} bytes"]
    for name, text in [("model", f'model = "{big}"\n'),
                       ("lora target", f'model = "Qwen2.5-7B"\n[training]\ntask = "lora"\n[training.lora]\ntargets = ["{big}"]\n'),
                       ("tunable 1e308", 'model = "Qwen2.5-7B"\n[tunables]\nfragmentation = 1e308\n'),
                       ("gpu", f'model = "Qwen2.5-7B"\n[hardware]\ngpu = "{big}"\n')]:
        add(f"long {name} not echoed whole", ["estimate", "-w", "{dir}/w.toml", "--task", "lora", "--gpu", "A100"]
            if name != "gpu" else ["estimate", "-w", "{dir}/w.toml", "--task", "lora"], 2, None,
            files={"w.toml": text}, check=short_err)
        c[-1].check_exits = (2,)
    return c


def api_r5(bin_path):
    """`/plan` refuses the estimate-only keys; `/catalog/instances` refuses filters that select
    nothing by their value; both 400 naming the key."""
    d = tempfile.mkdtemp(prefix="gpuplan-sweep-api5-")
    p = subprocess.Popen([bin_path, "serve", "--bind", "127.0.0.1:0", "--no-user-catalog"],
                         env=dict(os.environ, GPUPLAN_CONFIG_DIR=d), stderr=subprocess.PIPE, stdout=subprocess.DEVNULL)
    m = re.search(r"http://([0-9.:]+)", p.stderr.readline().decode())
    if not m:
        p.kill()
        return [("api5", "start", ["no address"])], 0
    base = f"http://{m.group(1)}/api/v1"
    train = {"model": "Qwen2.5-7B", "training": {"task": "lora", "tokens": 1e8}}
    reqs = [("POST", "plan", dict(train, hardware=h), 400, "hardware")
            for h in [{}, {"gpu": "H100"}, {"gpu": "H100", "nodes": 0}, {"host_vcpus": 0}]]
    reqs += [("POST", "plan", {"model": "Qwen2.5-7B", "kind": "inference", "inference": i}, 400, "inference")
             for i in [{}, {"batch": 4}, {"engine": "sglang"}]]
    reqs += [("POST", "plan", train, 200, None), ("POST", "estimate", dict(train, hardware={"gpu": "A100"}), 200, None)]
    for q in ["gpus=0", "gpus=nan", "gpus=inf", "gpus=1e9", "min-gpu-memory=nan", "min-gpu-memory=1e400",
              "max-price=0", "max-price=nan", "max_price=inf"]:
        # The field is the query key as sent (audit r9 #17: it was the CLI's `--max-price`).
        reqs.append(("GET", f"catalog/instances?{q}", None, 400, q.split("=")[0]))
    reqs += [("GET", "catalog/instances?gpus=8&min-gpu-memory=80&max-price=1000", None, 200, None)]
    # Round 12: an empty filter value matched everything (gpu) or nothing (region).
    reqs += [("GET", f"{path}?{key}=", None, 400, key) for path, key in
             [("catalog/instances", "gpu"), ("catalog/instances", "region"), ("prices", "gpu")]]
    reqs.append(("POST", "plan", dict(train, constraints={"regions": [""]}), 400, "constraints.regions"))
    # Round 13: a gpu no accelerator answers, a region no row names (an empty list, HTTP 200, before).
    reqs += [("GET", f"{path}?{key}={v}", None, 400, key) for path, key, v in
             [("catalog/instances", "gpu", "zzz"), ("catalog/instances", "region", "zzz"), ("prices", "gpu", "zzz")]]
    reqs += [("GET", "catalog/instances?gpu=A100&region=cn-shanghai", None, 200, None)]
    fails = []
    for method, path, body, want, field in reqs:
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(f"{base}/{path}", data=data, method=method,
                                     headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=TIMEOUT) as resp:
                status, text = resp.status, resp.read().decode("utf-8", "replace")
        except urllib.error.HTTPError as e:
            status, text = e.code, e.read().decode("utf-8", "replace")
        probs = []
        if status != want:
            probs.append(f"status {status}, expected {want}: {text[:200]}")
        elif field is not None and json.loads(text)["error"]["field"] != field:
            probs.append(f"field {json.loads(text)['error']['field']}, expected {field}")
        if probs:
            fails.append(("api5", f"{method} {path} {str(body)[:80]}", probs))
    p.kill()
    shutil.rmtree(d, ignore_errors=True)
    return fails, len(reqs)


# ---------------------------------------------------------------------------------------------
# Round 12: empty filters, empty imports, tunables past their sources, FP8 per chip, jobs below
# one step, engine titles and text widths


def display_columns(line):
    """Terminal columns of a line (East Asian wide and full-width characters take two)."""
    import unicodedata
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in line)


def fits_width(width, tables=True):
    """No line of stdout/stderr wider than `width` (TOML records, which read back, excepted)."""
    def check(r):
        bad = []
        for line in (r["out"] + "\n" + r["err"]).splitlines():
            if " = " in line and not line.startswith(("│", " ")):
                continue  # a TOML record line (`catalog show`): data that reads back, kept whole
            if not tables and line.startswith(("│", "┌", "├", "╞", "└")):
                continue
            if display_columns(line) > width:
                bad.append(f"{display_columns(line)} columns: {line[:100]}")
        return bad[:2]
    return check


def check_job_at_least_one_step(r):
    e = json.loads(r["out"])["estimate"]
    step, wall = e["step"]["step"], e["totals"]["wall_time"]
    return [] if wall >= step * 0.999 else [f"wall {wall} s below one step {step} s"]


def check_title_fraction(engine):
    own = {"vllm": "gpu_memory_utilization", "sglang": "mem_fraction_static",
           "trtllm": "free_gpu_memory_fraction"}

    def check(r):
        title = " ".join(r["out"].split("\n\n")[0].split())
        probs = [f"{name} in the {engine} title: {title[:160]}" for name in own.values()
                 if name in title and name != own.get(engine)]
        if engine in own and own[engine] not in title:
            probs.append(f"no {own[engine]} in the title: {title[:160]}")
        return probs
    return check


# FP8 weights load where the chip computes in FP8, or on CUDA compute capability >= 8.0 (FP8
# Marlin, W8A16): docs.vllm.ai quantization/fp8. Not on Ascend 910B (SGLang's Ascend table: FP8
# "x" on A2/A3), Turing/Volta, or MI210.
FP8_LOADS = {"t4": False, "v100-sxm2-32g": False, "a10": True, "a100-80g": True, "l20": True,
             "h100-sxm": True, "h20": True, "rtx-4090": True, "mi210": False, "mi300x": True,
             "ascend-910b": False, "ascend-910b3": False, "ascend-910b4": False}


def r12():
    c = []

    def add(name, args, exit=None, frag=None, **kw):
        c.append(Case("r12", name, args, exit=exit, frag=frag, **kw))
    plan = ["plan", "-m", "Qwen2.5-7B", "--task", "lora", "--tokens", "1e8"]
    for v in ["", " ", "\t"]:
        for base, flag, field in [(["catalog", "instances"], "gpu", "--gpu"),
                                  (["catalog", "instances"], "region", "--region"),
                                  (["catalog", "instances", "--format", "json"], "region", "--region"),
                                  (["prices"], "gpu", "--gpu"), (["prices", "--by-gpu"], "gpu", "--gpu"),
                                  (plan, "gpu", "--gpu"), (plan, "region", "regions"),
                                  (plan, "family", "--family"), (SERVE, "region", "regions")]:
            add(f"empty {' '.join(base[:2])} --{flag}={v!r}", base + [f"--{flag}={v}"], 2, (field,))
    add("empty region in a workload file", ["plan", "-w", "{dir}/w.toml"], 2, ("regions",),
        files={"w.toml": 'model = "Qwen2.5-7B"\n[training]\ntask = "lora"\ntokens = 1e8\n'
                         '[constraints]\nregions = ["cn-shanghai", ""]\n'})
    for prov in ["alibaba", "huawei", "tencent"]:
        for body in ["[]", "[{}]", "{}", "null", "[[]]"]:
            add(f"import {prov} {body}", ["catalog", "import", prov, "{dir}/r.json"], 2, ("r.json",),
                files={"r.json": body})
    for v, ok in [("0", True), ("32e-6", True), ("150e-6", True), ("155e-6", True), ("156e-6", False),
                  ("1e-3", False), ("1", False)]:
        for eng, w in [("static", "int4"), ("static", "int8"), ("vllm", "bf16")]:
            add(f"layer_overhead_s {v} {eng} {w}", E_SERVE + ["--engine", eng, "--weights", w, "--set",
                f"layer_overhead_s={v}", "--format", "json"], 0 if ok else 2, ("layer_overhead_s",),
                check=lambda r: check_estimate_json(r, None, "inference"))
    for gpu, loads in FP8_LOADS.items():
        add(f"fp8 weights on {gpu}", ["estimate", "-m", "Qwen2.5-7B", "--task", "inference", "--gpu", gpu,
            "--weights", "fp8", "--format", "json"], 0 if loads else 2, ("weights",),
            ok_exits=(0, 2, 3))
        c[-1].exit = None if loads else 2  # a chip that loads FP8 may still be too small (exit 3)
    for gpu, loads in [("a100-80g", False), ("a10", False), ("h100-sxm", True), ("l20", True)]:
        add(f"fp8 weights under trtllm on {gpu}", ["estimate", "-m", "Qwen2.5-7B", "--task", "inference", "--gpu",
            gpu, "--weights", "fp8", "--engine", "trtllm", "--format", "json"], None if loads else 2, ("weights",),
            ok_exits=(0, 2, 3))
    for chips in ["ascend", "amd", "nvidia"]:
        add(f"plan fp8 only on {chips}", ["plan", "-m", "Qwen2.5-7B", "--task", "inference", "--rate", "2",
            "--weights", "fp8", "--chips", chips, "--format", "json"], None, None, ok_exits=(0, 4),
            check=lambda r: check_plan_json(r, "Qwen2.5-7B", "inference"))
    for tokens in ["1", "100", "2047", "2048", "16383", "16384", "16385", "1e9"]:
        for m, task in [("Llama-3.1-8B", "full"), ("Qwen2.5-7B", "lora"), ("GPT-2", "pretrain")]:
            add(f"job of {tokens} tokens {m} {task}", ["estimate", "-m", m, "--task", task, "--gpu", "A100",
                "--gpus-per-node", "8", "--tokens", tokens, "--format", "json"], None, None, ok_exits=(0, 3),
                check=check_job_at_least_one_step)
            c[-1].check_exits = (0, 3)
    for eng in ["vllm", "sglang", "trtllm", "static"]:
        for lang in ["en", "zh"]:
            add(f"title {eng} {lang}", E_SERVE + ["--engine", eng, "--lang", lang], 0, None,
                env={"COLUMNS": "250"}, check=check_title_fraction(eng))
    width_cmds = [
        ["plan", "-m", "Qwen2.5-7B", "--task", "lora", "--tokens", "1e8"],
        ["plan", "-m", "Qwen2.5-7B", "--task", "inference", "--rate", "5"],
        ["plan", "-m", "Mixtral-8x7B", "--task", "full", "--tokens", "1e9", "--chips", "nvidia,ascend"],
        E_SERVE, E_FULL + ["--tokens", "1e9"], ["estimate", "-m", "Mixtral-8x7B", "--task", "inference",
                                                 "--gpu", "H100", "--gpus-per-node", "2", "--tp", "2"],
        ["catalog", "instances"], ["catalog", "gpus"], ["catalog", "show", "gn7e"], ["catalog", "validate"],
        ["prices"], ["prices", "--by-gpu"], ["models"], ["models", "show", "DeepSeek-V3"], ["accuracy"],
    ]
    for args, w, lang in itertools.product(width_cmds, ["60", "80", "120"], ["en", "zh"]):
        add(f"width {w} {lang} {' '.join(args[:5])}", args + ["--lang", lang], None, None, ok_exits=(0, 3),
            env={"COLUMNS": w}, check=fits_width(int(w)))
        c[-1].check_exits = (0, 3)
    return c

def shows_gpu_hours(r):
    """The job line's GPU-hours: never "0 GPU-hours" for a job that ran, and one step singular."""
    line = next((l for l in r["out"].splitlines() if " GPU-hours" in l), "")
    m = re.search(r"([0-9.e+-]+) GPU-hours", line)
    probs = [] if m and float(m.group(1)) > 0 else [f"no positive GPU-hours in: {line[:160]}"]
    if " 1 steps" in line:
        probs.append(f"plural for one step: {line[:160]}")
    return probs


def r13():
    c = []

    def add(name, args, exit=None, frag=None, **kw):
        c.append(Case("r13", name, args, exit=exit, frag=frag, **kw))
    plan = ["plan", "-m", "Qwen2.5-7B", "--task", "lora", "--tokens", "1e8"]
    # A --gpu no accelerator answers, or a --region no row names: refused as `plan` refuses them.
    for q in ["zzz", "a1000", "Ａ100", "🚀", "x" * 300]:
        for base in [["catalog", "instances"], ["catalog", "instances", "--format", "json"], ["prices"],
                     ["prices", "--by-gpu"], plan]:
            add(f"unknown gpu {q[:20]!r} {' '.join(base[:2])}", base + ["--gpu", q], 2, ("--gpu",))
    for q in ["A100", "a10", "910B", "nvidia h100", "H20", "h100 "]:
        add(f"known gpu {q!r} catalog instances", ["catalog", "instances", "--gpu", q], 0)
    for r in ["zzz", "cn-shangai", "CN-SHANGHAI", "上海"]:
        add(f"unknown region {r!r} catalog instances", ["catalog", "instances", "--region", r], 2, ("--region",))
    for r in ["cn-shanghai", "ap-guangzhou"]:
        add(f"known region {r} catalog instances", ["catalog", "instances", "--region", r], 0)
    # Valid responses without a GPU type: nothing to import (exit 2), dry run too.
    cpu = '{"flavors":[{"name":"c7.large.2","vcpus":"2","ram":4096,"os_extra_specs":{"ecs:performancetype":"computingv3"}}]}'
    for prov, body, api in [("huawei", '{"flavors":[]}', "ListFlavors"), ("huawei", cpu, "ListFlavors"),
                            ("tencent", '{"Response":{"InstanceTypeQuotaSet":[]}}', "DescribeZoneInstanceConfigInfos"),
                            ("tencent", '{"Response":{"InstanceTypeQuotaSet":[{"InstanceType":"S5.LARGE8","GpuCount":0,'
                                        '"Cpu":4,"Memory":8,"Zone":"ap-guangzhou-3"}]}}', "DescribeZoneInstanceConfigInfos"),
                            ("alibaba", '{"InstanceTypes":{"InstanceType":[]}}', "DescribeInstanceTypes")]:
        for dry in [[], ["--dry-run"]]:
            add(f"import {prov} without a GPU type {body[:40]} {dry}", ["catalog", "import", prov, "{dir}/r.json"] + dry,
                2, ("nothing to import",), files={"r.json": body}, need=(api,))
    # Jobs below one token or sample are refused; one token is a job with positive GPU-hours.
    for v in ["0.5", "1e-5", "0.999", "1e-300"]:
        add(f"tokens {v}", E_TRAIN + ["--tokens", v], 2, ("tokens",))
        add(f"plan tokens {v}", TRAIN[:-2] + ["--tokens", v], 2, ("tokens",))
    for n, e, field in [("1e-3", "1", "samples"), ("0.5", "10", "samples"), ("1000", "1e-9", "epochs"),
                        ("10", "0.01", "epochs")]:
        add(f"samples {n} epochs {e}", ["estimate", "-m", "ResNet-50", "--task", "pretrain", "--gpu", "A100",
                                        "--samples", n, "--epochs", e], 2, (field,))
    for m, task in [("Qwen2.5-0.5B", "lora"), ("Llama-3.1-8B", "full"), ("GPT-2", "pretrain"), ("ResNet-50", "pretrain")]:
        amount = ["--samples", "1", "--epochs", "1"] if m == "ResNet-50" else ["--tokens", "1"]
        for more in [amount, ["--tokens", "1e3"] if m != "ResNet-50" else ["--samples", "1000", "--epochs", "0.5"]]:
            add(f"tiny job {m} {task} {more}", ["estimate", "-m", m, "--task", task, "--gpu", "A100",
                "--gpus-per-node", "8"] + more, None, None, ok_exits=(0, 3), check=shows_gpu_hours)
            c[-1].check_exits = (0, 3)
    # layer_overhead_s: read by the decode latency only.
    for v, ok in [("156e-6", False), ("1e-3", False), ("1", False)]:
        add(f"layer_overhead_s {v} training estimate", E_TRAIN + ["--set", f"layer_overhead_s={v}"], 0)
        add(f"layer_overhead_s {v} training plan", TRAIN + ["--set", f"layer_overhead_s={v}"], 0)
        add(f"layer_overhead_s {v} serving plan", SERVE + ["--rate", "2", "--set", f"layer_overhead_s={v}"],
            2, ("layer_overhead_s",))
    # --gpu against --chips, and chips no instance type carries.
    for args, exit, frag in [(["--gpu", "910B"], 2, ("--chips",)), (["--gpu", "H100", "--chips", "ascend"], 2, ("--chips",)),
                             (["--gpu", "MI210", "--chips", "nvidia,ascend"], 2, ("--gpu",)),
                             (["--gpu", "910B", "--chips", "ascend"], None, None),
                             (["--gpu", "910B", "--gpu", "H100"], 2, ("--chips",)),
                             (["--gpu", "910B", "--gpu", "H100", "--chips", "nvidia,ascend"], None, None),
                             (["--gpu", "MI300X", "--chips", "amd"], 2, ("--gpu",))]:
        add(f"plan {' '.join(args)}", plan + args, exit, frag, ok_exits=(0, 4))
    # --pick and --force only select and overwrite what --export writes.
    for args in [["--pick", "2"], ["--force"], ["--pick", "1", "--force"]]:
        add(f"plan {' '.join(args)} without --export", plan + args, 2, ("--export",))
    add("plan --pick 2 with --export", plan + ["--pick", "2", "--export", "{dir}/x"], 0)
    return c

DS_V3 = {"architectures": ["DeepseekV3ForCausalLM"], "model_type": "deepseek_v3", "hidden_size": 7168,
         "intermediate_size": 18432, "moe_intermediate_size": 2048, "num_hidden_layers": 61,
         "num_attention_heads": 128, "num_key_value_heads": 128, "n_routed_experts": 256, "n_shared_experts": 1,
         "num_experts_per_tok": 8, "first_k_dense_replace": 3, "moe_layer_freq": 1, "topk_method": "noaux_tc",
         "kv_lora_rank": 512, "q_lora_rank": 1536, "qk_nope_head_dim": 128, "qk_rope_head_dim": 64,
         "v_head_dim": 128, "vocab_size": 129280, "max_position_embeddings": 163840,
         "num_nextn_predict_layers": 1, "tie_word_embeddings": False, "torch_dtype": "bfloat16",
         "quantization_config": {"quant_method": "fp8", "fmt": "e4m3", "weight_block_size": [128, 128],
                                 "activation_scheme": "dynamic"}}
MOONLIGHT = dict({k: v for k, v in DS_V3.items() if k != "quantization_config"}, hidden_size=2048,
                 intermediate_size=11264, moe_intermediate_size=1408, num_hidden_layers=27, num_attention_heads=16,
                 num_key_value_heads=16, n_shared_experts=2, n_routed_experts=64, num_experts_per_tok=6,
                 first_k_dense_replace=1, q_lora_rank=None, vocab_size=163840, max_position_embeddings=8192,
                 num_nextn_predict_layers=0)
PHI3_MEDIUM = {"architectures": ["Phi3ForCausalLM"], "model_type": "phi3", "hidden_size": 5120,
               "intermediate_size": 17920, "max_position_embeddings": 4096, "num_attention_heads": 40,
               "num_hidden_layers": 40, "num_key_value_heads": 10, "rope_scaling": None, "sliding_window": 2047,
               "tie_word_embeddings": False, "torch_dtype": "bfloat16", "vocab_size": 32064}


def serve_tps_split_kv(kv):
    """A serving plan's TPs all split `kv` KV heads as vLLM asserts (kv % tp == 0, or tp % kv == 0)."""
    def check(r):
        plans = json.loads(r["out"])["outcome"]["plans"]
        bad = [p["serve"]["tp"] for p in plans if "serve" in p and
               not (kv % p["serve"]["tp"] == 0 if kv >= p["serve"]["tp"] else p["serve"]["tp"] % kv == 0)]
        return [f"TP {sorted(set(bad))} planned for {kv} KV heads"] if bad else []
    return check


def weights_title(fmt, shipped):
    """estimate's serving title sizes `fmt` weights; the "ships in" note only for a stored format."""
    def check(r):
        probs = [] if f"serving with {fmt} weights" in r["out"] else [f"not {fmt}: {r['out'][:160]}"]
        if ("ships in" in r["err"]) != shipped:
            probs.append(f"'ships in' note {'missing' if shipped else 'for a 16-bit checkpoint'}")
        return probs
    return check


def uses_positive_hours(r):
    """The monthly row's break-even note never says the job uses 0 hours."""
    bad = [w for w in ("this job uses 0 h", "本任务使用 0 小时") if w in r["out"]]
    return [f"says {bad[0]!r}"] if bad else []


def r14():
    c = []

    def add(name, args, exit=None, frag=None, **kw):
        c.append(Case("r14", name, args, exit=exit, frag=frag, **kw))
    cfg = "{dir}/config.json"
    serve8 = ["estimate", "--model-config", cfg, "--task", "inference", "--gpu", "H200", "--gpus-per-node", "8",
              "--tp", "8"]
    # MLA model types need kv_lora_rank; a null or absent one is no MHA model.
    for mt in ["deepseek_v3", "deepseek_v2"]:
        for how, cfgv in [("null", dict(DS_V3, model_type=mt, kv_lora_rank=None)),
                          ("absent", {k: v for k, v in DS_V3.items() if k != "kv_lora_rank"} | {"model_type": mt}),
                          ("zero", dict(DS_V3, model_type=mt, kv_lora_rank=0)),
                          ("string", dict(DS_V3, model_type=mt, kv_lora_rank="512"))]:
            for base in [serve8, ["models", "show", "--config", cfg]]:
                add(f"{mt} kv_lora_rank {how} {base[0]}", base, 2, ("kv_lora_rank",),
                    files={"config.json": json.dumps(cfgv)})
    add("llama with kv_lora_rank null stays MHA", ["models", "show", "--config", cfg], 0,
        files={"config.json": json.dumps(dict(LLAMA, kv_lora_rank=None))})
    # The stored format comes from quantization_config, not the model_type.
    for name, cfgv, fmt, shipped in [("moonlight bf16", MOONLIGHT, "bf16", False),
                                     ("deepseek-v3 fp8", DS_V3, "fp8", True),
                                     ("deepseek-v3 no quantization_config",
                                      {k: v for k, v in DS_V3.items() if k != "quantization_config"}, "bf16", False),
                                     ("deepseek-v3 quantization_config null", dict(DS_V3, quantization_config=None),
                                      "bf16", False)]:
        add(f"{name} weights", serve8, None, None, ok_exits=(0, 3), files={"config.json": json.dumps(cfgv)},
            check=weights_title(fmt, shipped))
    add("preset DeepSeek-V3 stays fp8", ["estimate", "-m", "DeepSeek-V3", "--task", "inference", "--gpu", "H200",
                                         "--gpus-per-node", "8", "--tp", "8"], None, None, ok_exits=(0, 3),
        check=weights_title("fp8", True))
    # Serving TP against the KV heads (vLLM llama.py LlamaAttention's asserts).
    e_serve = ["estimate", "--task", "inference", "--gpu", "H100"]
    for model, tp, exit in [(["-m", "Qwen2.5-7B"], "7", 2), (["-m", "Qwen2.5-7B"], "4", 0),
                            (["-m", "Qwen2.5-0.5B"], "7", 2), (["-m", "Qwen2.5-0.5B"], "2", 0),
                            (["-m", "Llama-3.1-8B"], "16", 0), (["--model-config", cfg], "4", 2),
                            (["--model-config", cfg], "8", 2), (["--model-config", cfg], "5", 0),
                            (["--model-config", cfg], "10", 0)]:
        nodes = ["--gpus-per-node", "8", "--nodes", "2"] if int(tp) > 8 else ["--gpus-per-node", tp]
        add(f"serve tp {tp} {' '.join(model)}", e_serve + model + ["--tp", tp] + nodes, exit, ("tp",),
            files={"config.json": json.dumps(PHI3_MEDIUM)}, need=("KV heads",) if exit == 2 else ())
    for rate, w in [("2", []), ("20", ["--weights", "bf16"]), ("200", [])]:
        add(f"plan phi3-medium rate {rate} {w}", ["plan", "--model-config", cfg, "--task", "inference", "--rate", rate,
            "--format", "json", "--top", "100"] + w, None, None, ok_exits=(0, 4),
            files={"config.json": json.dumps(PHI3_MEDIUM)}, check=serve_tps_split_kv(10))
    # The break-even note of jobs under an hour, every provider with a monthly price.
    for prov, lang in itertools.product(["alibaba", "huawei", "tencent"], ["en", "zh"]):
        add(f"break-even hours {prov} {lang}", ["plan", "-m", "Qwen2.5-0.5B", "--task", "lora", "--tokens", "1000",
            "--provider", prov, "--wide", "--lang", lang], None, None, ok_exits=(0, 4), env={"COLUMNS": "250"},
            check=uses_positive_hours)
    # Workload files: encodings and shapes previous rounds did not try.
    base = 'model = "Qwen2.5-7B"\nkind = "training"\n[training]\ntask = "lora"\ntokens = 1e8\n'
    wl = ["estimate", "--workload", "{dir}/w.toml", "--gpu", "A100"]
    for name, text, exit, frag in [("crlf", base.replace("\n", "\r\n").encode(), 0, None),
                                   ("bom crlf", b"\xef\xbb\xbf" + base.replace("\n", "\r\n").encode(), 0, None),
                                   ("utf-16", base.encode("utf-16"), 2, ("utf-8",)),
                                   ("tabs", base.replace(" = ", "\t=\t"), 0, None),
                                   ("duplicated table", base + "[training]\ntask = 'full'\n", 2, ("training",)),
                                   ("2 MB comment line", base + "# " + "x" * 2_000_000 + "\n", 0, None),
                                   ("tokens -0.0", base.replace("1e8", "-0.0"), 2, ("tokens",)),
                                   ("tokens 1e308", base.replace("1e8", "1e308"), 2, ("tokens",)),
                                   ("tokens hex", base.replace("1e8", "0x10"), 0, None),
                                   ("inline training table", 'model = "Qwen2.5-7B"\nkind = "training"\n'
                                    'training = { task = "lora", tokens = 1e8 }\n', 0, None),
                                   ("nul byte", base.encode() + b"\x00", 2, ("w.toml",))]:
        add(f"workload {name}", wl, exit, frag, files={"w.toml": text})
    # Real HF configs of families the earlier rounds did not import.
    for name, cfgv in [("gemma2-9b", GEMMA2_9B), ("qwen3-30b-a3b", QWEN3_MOE), ("phi3-medium", PHI3_MEDIUM),
                       ("qwen3 moe decoder_sparse_step 100", dict(QWEN3_MOE, decoder_sparse_step=100)),
                       ("qwen3 moe mlp_only_layers [0, 1]", dict(QWEN3_MOE, mlp_only_layers=[0, 1]))]:
        for w in ["show", "lora", "serve", "plan"]:
            add(f"{name} [{w}]", HF_CMDS[w], None, None, ok_exits=(0, 3, 4), files={"config.json": json.dumps(cfgv)})
    for bad, frag in [("kv_lora_rank", "kv_lora_rank"), ("mlp_only_layers", "mlp_only_layers")]:
        val = "x"
        add(f"qwen3 moe {bad} = 'x'", HF_CMDS["show"], 2, (frag,),
            files={"config.json": json.dumps(dict(QWEN3_MOE, **{bad: val}))})
    return c


GEMMA2_9B = {"architectures": ["Gemma2ForCausalLM"], "model_type": "gemma2", "attn_logit_softcapping": 50.0,
             "final_logit_softcapping": 30.0, "head_dim": 256, "hidden_act": "gelu_pytorch_tanh",
             "hidden_size": 3584, "intermediate_size": 14336, "max_position_embeddings": 8192,
             "num_attention_heads": 16, "num_hidden_layers": 42, "num_key_value_heads": 8,
             "query_pre_attn_scalar": 256, "sliding_window": 4096, "torch_dtype": "float32", "vocab_size": 256000}
QWEN3_MOE = {"architectures": ["Qwen3MoeForCausalLM"], "model_type": "qwen3_moe", "decoder_sparse_step": 1,
             "head_dim": 128, "hidden_size": 2048, "intermediate_size": 6144, "max_position_embeddings": 40960,
             "max_window_layers": 48, "mlp_only_layers": [], "moe_intermediate_size": 768, "norm_topk_prob": True,
             "num_attention_heads": 32, "num_experts": 128, "num_experts_per_tok": 8, "num_hidden_layers": 48,
             "num_key_value_heads": 4, "rope_scaling": None, "rope_theta": 1000000.0, "sliding_window": None,
             "tie_word_embeddings": False, "torch_dtype": "bfloat16", "use_sliding_window": False,
             "vocab_size": 151936}
HF_CMDS = {
    "show": ["models", "show", "--config", "{dir}/config.json"],
    "lora": ["estimate", "--model-config", "{dir}/config.json", "--task", "lora", "--gpu", "H100",
             "--gpus-per-node", "8"],
    "serve": ["estimate", "--model-config", "{dir}/config.json", "--task", "inference", "--gpu", "H100"],
    "plan": ["plan", "--model-config", "{dir}/config.json", "--task", "inference", "--provider", "alibaba"],
}

QWEN3_NEXT = {"architectures": ["Qwen3NextForCausalLM"], "model_type": "qwen3_next", "decoder_sparse_step": 1,
              "full_attention_interval": 4, "head_dim": 256, "hidden_size": 2048, "intermediate_size": 5120,
              "linear_conv_kernel_dim": 4, "linear_key_head_dim": 128, "linear_num_key_heads": 16,
              "linear_num_value_heads": 32, "linear_value_head_dim": 128, "max_position_embeddings": 262144,
              "moe_intermediate_size": 512, "num_attention_heads": 16, "num_experts": 512, "num_experts_per_tok": 10,
              "num_hidden_layers": 48, "num_key_value_heads": 2, "partial_rotary_factor": 0.25,
              "shared_expert_intermediate_size": 512, "tie_word_embeddings": False, "vocab_size": 151936}
LLAMA4_TEXT = {"attention_chunk_size": 8192, "head_dim": 128, "hidden_size": 5120, "interleave_moe_layer_step": 1,
               "intermediate_size": 8192, "intermediate_size_mlp": 16384, "max_position_embeddings": 10485760,
               "model_type": "llama4_text", "num_attention_heads": 40, "num_experts_per_tok": 1,
               "num_hidden_layers": 48, "num_key_value_heads": 8, "num_local_experts": 16, "vocab_size": 202048}
LLAMA4 = {"architectures": ["Llama4ForConditionalGeneration"], "model_type": "llama4", "text_config": LLAMA4_TEXT,
          "vision_config": {"hidden_size": 1408, "image_size": 336, "intermediate_size": 5632,
                            "num_attention_heads": 16, "num_hidden_layers": 34, "patch_size": 14,
                            "vision_output_dim": 4096}}
DS_V32 = dict(DS_V3, model_type="deepseek_v32", index_head_dim=128, index_n_heads=64, index_topk=2048)
GLM45 = {"architectures": ["Glm4MoeForCausalLM"], "model_type": "glm4_moe", "attention_bias": True,
         "first_k_dense_replace": 3, "head_dim": 128, "hidden_size": 5120, "intermediate_size": 12288,
         "max_position_embeddings": 131072, "moe_intermediate_size": 1536, "n_routed_experts": 160,
         "n_shared_experts": 1, "num_attention_heads": 96, "num_experts_per_tok": 8, "num_hidden_layers": 92,
         "num_key_value_heads": 8, "num_nextn_predict_layers": 1, "partial_rotary_factor": 0.5,
         "tie_word_embeddings": False, "vocab_size": 151552}
GEMMA3_4B = {"architectures": ["Gemma3ForConditionalGeneration"], "model_type": "gemma3",
             "text_config": {"hidden_size": 2560, "intermediate_size": 10240, "model_type": "gemma3_text",
                             "num_hidden_layers": 34, "sliding_window": 1024},
             "vision_config": {"hidden_size": 1152, "image_size": 896, "intermediate_size": 4304,
                               "num_attention_heads": 16, "num_hidden_layers": 27, "patch_size": 14}}


def r15():
    c = []

    def add(name, args, exit=None, frag=None, **kw):
        c.append(Case("r15", name, args, exit=exit, frag=frag, **kw))
    # Layer kinds gpuplan has no model of: refused naming the key or model_type, never sized.
    unmodelled = [
        ("qwen3-next", QWEN3_NEXT, "linear_num_value_heads"),
        ("qwen3-next no model_type", {k: v for k, v in QWEN3_NEXT.items() if k != "model_type"},
         "linear_num_value_heads"),
        ("qwen3-next layer_types only", dict({k: v for k, v in QWEN3_NEXT.items() if not k.startswith(("linear_", "full_"))},
         layer_types=["linear_attention"] * 3 + ["full_attention"]), "model_type"),
        ("minimax", dict(LLAMA, model_type="minimax", attn_type_list=[0, 1]), "attn_type_list"),
        ("kimi-linear", dict(LLAMA, model_type="kimi_linear", linear_attn_config={"kda_layers": [1]}),
         "linear_attn_config"),
        ("recurrent-gemma", dict(LLAMA, model_type="recurrent_gemma", block_types=["recurrent", "attention"]),
         "block_types"),
        ("rwkv", {"model_type": "rwkv", "hidden_size": 2560, "num_hidden_layers": 32, "vocab_size": 50277}, "model_type"),
        ("mamba", {"model_type": "mamba", "hidden_size": 2560, "num_hidden_layers": 64, "state_size": 16,
                   "vocab_size": 50280}, "model_type"),
        ("mamba2", {"model_type": "mamba2", "hidden_size": 2560, "num_hidden_layers": 64, "state_size": 128,
                    "num_heads": 80, "vocab_size": 50288}, "model_type"),
        ("lfm2", dict(LLAMA, model_type="lfm2", conv_L_cache=3), "conv_L_cache"),
        ("deepseek-v3.2", DS_V32, "index_topk"),
        ("llama4 scout", LLAMA4, "model_type"),
        ("llama4 text only", LLAMA4_TEXT, "attention_chunk_size"),
        ("llama4 keys on llama", dict(LLAMA, interleave_moe_layer_step=2), "interleave_moe_layer_step"),
    ]
    for name, cfgv, key in unmodelled:
        for w in ["show", "lora", "serve", "plan"]:
            add(f"unmodelled {name} [{w}]", HF_CMDS[w], 2, (key,), files={"config.json": json.dumps(cfgv)},
                need=("not modelled",))
    # Full-attention families stay sized; GLM-4.5's MTP layer is noted.
    for w in ["show", "lora", "serve", "plan"]:
        add(f"glm-4.5 [{w}]", HF_CMDS[w], None, None, ok_exits=(0, 3, 4), files={"config.json": json.dumps(GLM45)})
    add("glm-4.5 mtp note", HF_CMDS["show"], 0, None, files={"config.json": json.dumps(GLM45)},
        check=lambda r: [] if "multi-token-prediction" in r["err"] else ["no MTP note"])
    # Missing text_config keys are named in text_config; a numeric quant_method is invalid.
    add("gemma-3 text_config keys", HF_CMDS["show"], 2, ("text_config.vocab_size",),
        files={"config.json": json.dumps(GEMMA3_4B)})
    for qm in [8, True, [], {}]:
        add(f"quant_method {qm!r}", HF_CMDS["show"], 2, ("quantization_config.quant_method",),
            files={"config.json": json.dumps(dict(LLAMA, quantization_config={"quant_method": qm}))},
            absent=("missing",))
    for v, exit in [(2, 2), (-1, 2), (0, 2), ("x", 2), (1e308, 2), (None, 0), (0.5, 0), (1, 0)]:
        add(f"partial_rotary_factor {v!r}", HF_CMDS["show"], exit, ("partial_rotary_factor",),
            files={"config.json": json.dumps(dict(LLAMA, partial_rotary_factor=v))})
    # A table given as a list is refused naming it (it was read by position).
    head = 'model = "Qwen2.5-7B"\nkind = "training"\n'
    wl = ["estimate", "--workload", "{dir}/w.toml", "--gpu", "A100"]
    for name, body, key in [("[[training]]", '[[training]]\ntask = "lora"\ntokens = 1e8\n', "training"),
                            ("training = []", "training = []\n", "training"),
                            ("training = [lora]", 'training = ["lora"]\n', "training"),
                            ("parallel = [2]", '[training]\ntask = "lora"\ntokens = 1e8\nparallel = [2]\n',
                             "training.parallel"),
                            ("lora = [8]", '[training]\ntask = "lora"\ntokens = 1e8\nlora = [8]\n', "training.lora"),
                            ("[[hardware]]", '[training]\ntask = "lora"\ntokens = 1e8\n[[hardware]]\n', "hardware"),
                            ("tunables = []", 'tunables = []\n[training]\ntask = "lora"\ntokens = 1e8\n', "tunables")]:
        for base in [wl, ["plan", "--workload", "{dir}/w.toml"]]:
            add(f"workload {name} {base[0]}", base, 2, (key,), files={"w.toml": head + body}, need=("not a list",))
    # An empty model name is no misspelling.
    for m in ["", " "]:
        add(f"model {m!r} estimate", ["estimate", "-m", m, "--task", "lora", "--gpu", "A100"], 2, ("model",),
            absent=("did you mean",))
        add(f"model {m!r} plan", ["plan", "-m", m, "--task", "lora"], 2, ("model",), absent=("did you mean",))
    add("workload model = ''", wl, 2, ("model",), files={"w.toml": 'model = ""\nkind = "training"\n'},
        absent=("did you mean",))
    # int4 groups: the range is named; the groups the format takes run.
    for g, exit in [("int4-g0", 2), ("int4-g1048577", 2), ("int4-g99999999999999999999", 2), ("int4-g-1", 2),
                    ("int4-g1", 0), ("int4-g128", 0),
                    # 1048576 is in range but divides no linear of Qwen2.5-7B (review r16 #2's group rule).
                    ("int4-g1048576", 2)]:
        add(f"estimate --weights {g}", E_SERVE + ["--weights", g], exit, ("weights",), need=("1048576",) if exit else ())
        add(f"plan --weights {g}", SERVE + ["--rate", "1", "--weights", g], exit if exit else None, ("weights",),
            ok_exits=(0, 4), need=("1048576",) if exit else ())
    return c


QWEN25_72B_AWQ = {"architectures": ["Qwen2ForCausalLM"], "hidden_size": 8192, "intermediate_size": 29696,
                  "max_position_embeddings": 32768, "model_type": "qwen2", "num_attention_heads": 64,
                  "num_hidden_layers": 80, "num_key_value_heads": 8, "tie_word_embeddings": False,
                  "vocab_size": 152064, "quantization_config": {"bits": 4, "group_size": 128,
                                                                "quant_method": "awq", "zero_point": True}}


def r16():
    c = []

    def add(name, args, exit=None, frag=None, **kw):
        c.append(Case("r16", name, args, exit=exit, frag=frag, **kw))
    # int4 groups against each rank's slice: Qwen2.5-72B's 29568-wide down_proj at group 128 loads
    # at TP 1 only; the per-channel label and group 64 (14784 = 64 x 231) load at TP 2.
    e72 = ["estimate", "-m", "Qwen2.5-72B", "--task", "inference", "--gpu", "A100", "--gpus-per-node", "8"]
    for tp, w, exit in [("1", "int4-g128", 0), ("2", "int4-g128", 2), ("4", "int4-g128", 2), ("8", "int4-g128", 2),
                        # Per-channel / group 64 split 29568 into 3696 / 14784 per rank: no multiple of
                        # Marlin's 128 k tile, so vLLM refuses them too (review r16 #2, audit r17 #2).
                        ("8", "int4-g8192", 2), ("2", "int4-g64", 2), ("8", "awq", 2), ("8", "gptq", 2),
                        ("2", "int4-g7", 2), ("3", "int4-g128", 2)]:
        frag = ("tp",) if exit and w != "int4-g7" else (("weights",) if exit else None)
        add(f"72b tp {tp} {w}", e72 + ["--tp", tp, "--weights", w], exit, frag,
            need=("29568",) if exit and tp in "248" and w not in ("int4-g7", "int4-g8192") else ())
    for tp in ["1", "2", "4", "8"]:
        add(f"72b awq config tp {tp}", ["estimate", "--model-config", "{dir}/config.json", "--task", "inference",
                                          "--gpu", "A100", "--gpus-per-node", "8", "--tp", tp], 0, None,
            files={"config.json": json.dumps(QWEN25_72B_AWQ)})
    for tp, exit in [("4", 0), ("8", 2)]:
        add(f"qwen-moe shared expert tp {tp}", HF_CMDS["serve"] + ["--gpus-per-node", "8", "--tp", tp, "--weights",
                                                                    "int4-g128"], exit, ("tp",) if exit else None,
            files={"config.json": json.dumps(dict(QWEN_MOE, num_attention_heads=32))}, need=("5632",) if exit else ())

    def plan_tps(r):
        try:
            ps = json.loads(r["out"])["outcome"]["plans"]
        except (ValueError, KeyError):
            return ["no plan JSON"]
        bad = [p["serve"].get("tp") for p in ps if p["serve"].get("tp", 1) != 1]
        return [f"int4-g128 offered at TP {bad}"] if bad else ([] if ps else ["no plans"])
    add("plan 72b int4-g128 only at tp 1", ["plan", "-m", "Qwen2.5-72B", "--task", "inference", "--provider", "alibaba",
                                             "--weights", "int4-g128", "--rate", "1", "--format", "json", "--top", "100"],
        0, None, check=plan_tps)
    # A UTF-8 byte-order mark is read past in every input file.
    bom = "\ufeff"
    add("config.json with BOM", HF_CMDS["serve"], 0, None, files={"config.json": bom + json.dumps(LLAMA)})
    add("workload with BOM", ["estimate", "--workload", "{dir}/w.toml", "--gpu", "A100"], 0, None,
        files={"w.toml": bom + 'model = "Qwen2.5-7B"\nkind = "training"\n[training]\ntask = "lora"\ntokens = 1e8\n'})
    add("config.json with a comment", HF_CMDS["serve"], 2, ("json",),
        files={"config.json": "// exported\n" + json.dumps(LLAMA)})
    # The newest flags with hostile values: named, never a panic.
    e_pp = ["estimate", "-m", "Llama-3.1-8B", "--task", "full", "--gpu", "H100", "--gpus-per-node", "8", "--pp", "4"]
    for flag in ["--first-stage-layers", "--last-stage-layers"]:
        for v in ["0", "-1", "32", "33", "1e3", "abc", "", "99999999999999999999"]:
            add(f"{flag} {v!r}", e_pp + [flag, v], 2, ("stage", "layers"))
        add(f"{flag} 5", e_pp + [flag, "5"], None, None, ok_exits=(0, 2))
    serve_plan = ["plan", "-m", "Qwen2.5-7B", "--task", "inference", "--provider", "alibaba", "--rate", "1"]
    for flag in ["--ttft", "--tpot"]:
        for v, exit in [("500ms", None), ("2s", None), ("0.06", None), ("60 ms", None), ("0ms", 2), ("-1s", 2), ("1h", 2),
                        ("nan", 2), ("inf", 2), ("1e400ms", 2), ("ms", 2), ("1e-9s", None)]:
            add(f"{flag} {v!r}", serve_plan + [flag, v], exit, (flag.strip("-"),) if exit else None,
                ok_exits=(0, 2, 4))
    for w in ["awq", "gptq", "AWQ", "int4-g128", "int4-g", "int4-gx", "int4g128", "int4-g0128", "int4-g 128", "gptq-g64"]:
        add(f"estimate --weights {w!r}", E_SERVE + ["--weights", w], None, None, ok_exits=(0, 2))
    # Every billing mode with every region and provider: no NaN, no negative or zero money.
    for prov in ["alibaba", "tencent", "huawei"]:
        for billing in ["auto", "on-demand", "monthly", "spot"]:
            for region in [None, "cn-shanghai", "unspecified", "cn-beijing", "zz-nowhere"]:
                args = ["plan", "-m", "Qwen2.5-7B", "--task", "lora", "--tokens", "1e8", "--provider", prov,
                        "--billing", billing]
                if region:
                    args += ["--region", region]
                add(f"billing {prov} {billing} {region}", args, None, None, ok_exits=(0, 2, 4))
    return c


R17_LLAMA = ('kind = "training"\nmodel = "Llama-3.1-8B"\n[training]\ntask = "full_finetune"\nprecision = "amp_bf16"\n'
             'framework = "{fw}"\nmicro_batch = 4\nseq_len = 2048\nrecompute = "full"\ntokens = 1e6\n{extra}\n'
             '[hardware]\ngpu = "h100"\ngpus_per_node = 8\nnodes = 1\n')


def r17():
    c = []

    def add(name, args, exit=None, frag=None, **kw):
        c.append(Case("r17", name, args, exit=exit, frag=frag, **kw))
    w = ["estimate", "-w", "{dir}/w.toml"]
    # llm.c's fused classifier beside what llm.c does not run: refused naming the key.
    for fw, extra, key in [("hugging_face", "", "framework"), ("litgpt", "", "framework"),
                           ("megatron", "[training.parallel]\npp = 2", "parallel.pp"),
                           ("megatron", "[training.parallel]\ncp = 2", "parallel.cp"),
                           ("megatron", "[training.parallel]\nzero = 2", "parallel.zero"),
                           ("megatron", "[training.parallel]\nzero = 3", "parallel.zero"),
                           ("megatron", "[training.parallel]\nzero = 1\noffload_optimizer = true",
                            "parallel.offload_optimizer"),
                           ("megatron", "[training.parallel]\nzero = 0", None),
                           ("megatron", "[training.parallel]\nzero = 1", None)]:
        text = R17_LLAMA.format(fw=fw, extra="fused_classifier = true\n" + extra)
        add(f"fused_classifier {fw} {extra!r}", w, 2 if key else None, (key,) if key else None,
            files={"w.toml": text}, ok_exits=(0, 3) if not key else (2,))
    # int4 per engine: group 64 at TP 2 on Qwen2.5-72B (14784 = 64 x 231, not 128 x n).
    e72 = ["estimate", "-m", "Qwen2.5-72B", "--task", "inference", "--gpu", "A100", "--gpus-per-node", "8", "--tp", "2"]
    for engine, g, exit in [("vllm", "64", 2), ("sglang", "64", 2), ("trtllm", "64", 0), ("static", "64", 0),
                            ("trtllm", "128", 2), ("static", "128", 2), ("trtllm", "7", 2)]:
        add(f"72b tp2 int4-g{g} {engine}", e72 + ["--weights", f"int4-g{g}", "--engine", engine], exit,
            ("tp", "weights") if exit else None, ok_exits=(0, 2, 3))
    # Another stack's pp that does not divide the layers: refused with torchtitan's split, which then loads.
    q3 = ('model = "Qwen2.5-3B"\nkind = "training"\n[training]\ntask = "full_finetune"\nframework = "{fw}"\n'
          'tokens = 1e8\n[training.parallel]\npp = {pp}\n{extra}\n[hardware]\ngpu = "h100"\ngpus_per_node = 8\n')
    for fw, pp, extra, exit in [("hugging_face", 8, "", 2), ("litgpt", 8, "", 2), ("hugging_face", 5, "", 2),
                                ("hugging_face", 8, "first_stage_layers = 4\nlast_stage_layers = 4", None),
                                ("hugging_face", 36, "", None), ("hugging_face", 37, "", 2),
                                ("hugging_face", 8, "virtual_stages = 3", None)]:
        add(f"{fw} pp {pp} {extra!r}", w, exit, ("parallel.pp", "layers") if exit else None,
            files={"w.toml": q3.format(fw=fw, pp=pp, extra=extra)}, ok_exits=(0, 2, 3))
    # Workload keys at type boundaries: named, never a panic, never exit 0.
    base = 'kind = "training"\nmodel = "Qwen2.5-7B"\n[training]\ntask = "lora"\n'
    for key, v in [("tokens", "18446744073709551615"), ("tokens", "-0.0"), ("tokens", "1e309"), ("tokens", "1__0"),
 ("tokens", "1979-05-27"), ("tokens", "[1]"), ("micro_batch", "18446744073709551616"),
                   ("micro_batch", "-0"), ("micro_batch", '"4"'), ("adapter_dtype", '"fp8"'),
                   ("optimizer_foreach", '"yes"'), ("optimizer_foreach_buffers", "2"), ("fused_classifier", '"true"'),
                   ("steady_state", "1")]:
        add(f"{key} = {v}", w + ["--gpu", "A100"], 2, (key,), files={"w.toml": base + f"{key} = {v}\n"})
    add("duplicate key", w + ["--gpu", "A100"], 2, ("model",), files={"w.toml": base + 'model = "x"\n'})
    add("unknown nested table", w + ["--gpu", "A100"], 2, ("foo",),
        files={"w.toml": base + "[training.parallel.foo]\nx = 1\n"})
    add("workload is a directory", ["estimate", "-w", "{dir}", "--gpu", "A100"], 2, ("directory",))
    add("workload is /dev/zero", ["estimate", "-w", "/dev/zero", "--gpu", "A100"], 2, ("regular file",))
    # A step that cannot be timed says why in zh, and accuracy names the step's reason.
    add("untimed step zh", ["--lang", "zh", "estimate", "-m", "Qwen2.5-0.5B", "--task", "lora", "--gpu", "mi210"], 0,
        None, check=lambda r: [] if "时间：未估算：该芯片" in r["out"] else ["no zh reason"])
    return c


R18_CHIPS = {"v100": 70, "t4": 75, "p100": 60, "a10": 86, "a100": 80, "h100": 90}
R18_INT4_MIN = {"vllm": 60, "sglang": 60, "trtllm": 75, "static": 80}


def zh_notes_clean(r):
    """Under zh, no English sentence in the notes and errors (stderr)."""
    left = english_sentences(r["err"].split("Usage: ")[0])
    return [f"zh: English left: {left[0]}"] if left else []


def r18_no_impossible_int4(engine, cc):
    """A serving plan offers int4 only where the engine has an int4 kernel for the chip, and says
    when it runs below Marlin's 8.0 under vLLM/SGLang."""
    def check(r):
        probs = []
        for p in json.loads(r["out"])["outcome"]["plans"]:
            w = p["serve"]["weights"]["format"]
            if w == "int4" and cc < R18_INT4_MIN[engine]:
                probs.append(f"int4 offered under {engine} at cc {cc}")
            if w in ("int4", "int8") and engine in ("vllm", "sglang") and cc < 80:
                if "exllama" not in json.dumps(p["caveats"]):
                    probs.append(f"{w} below 8.0 without the kernel caveat")
        return probs
    return check


def r18_no_te_cp(r):
    d = json.loads(r["out"])
    return [f"CP {p['train']['setup']['parallel']['cp']} under Megatron below 8.0"
            for p in d["outcome"]["plans"] if p["train"]["setup"]["parallel"]["cp"] > 1]


def r18():
    c = []

    def add(name, args, exit=None, frag=None, **kw):
        c.append(Case("r18", name, args, exit=exit, frag=frag, **kw))
    # int4 / int8 per chip and engine: refused (naming weights) exactly where no kernel loads.
    for (gpu, cc), engine, w in itertools.product(R18_CHIPS.items(), R18_INT4_MIN,
                                                  ["int4-g128", "int4-g64", "int4-g32", "awq", "int8"]):
        args = ["estimate", "-m", "Llama-3.1-8B", "--task", "inference", "--gpu", gpu, "--weights", w,
                "--engine", engine]
        int4 = w != "int8"
        no_kernel = int4 and cc < R18_INT4_MIN[engine]
        bad_group = engine == "trtllm" and w == "int4-g32"
        exit = 2 if (no_kernel or bad_group) else None
        add(f"{w} {engine} {gpu}", args, exit, ("weights",) if exit else None, ok_exits=(0, 2, 3))
        add(f"zh {w} {engine} {gpu}", ["--lang", "zh"] + args, exit, None, ok_exits=(0, 2, 3),
            check=zh_notes_clean)
    for (gpu, cc), engine in itertools.product(R18_CHIPS.items(), R18_INT4_MIN):
        add(f"plan serve {engine} {gpu}", ["plan", "--format", "json", "--top", "100", "-m", "Llama-3.1-8B",
            "--task", "inference", "--gpu", gpu, "--engine", engine], None, None, ok_exits=(0, 4),
            check=r18_no_impossible_int4(engine, cc))
    # TensorRT-LLM's int4 groups: 64 and 128 (and per-channel) only.
    for g in ["16", "32", "64", "96", "128", "256", "4096"]:
        exit = None if g in ("64", "128", "4096") else 2
        add(f"trtllm int4-g{g}", ["estimate", "-m", "Llama-3.1-8B", "--task", "inference", "--gpu", "h100",
            "--weights", f"int4-g{g}", "--engine", "trtllm"], exit, ("weights",) if exit else None,
            ok_exits=(0, 3))
    # Unknown models name the fix.
    for name in ["xyzzy", "Lama-3.1-8B", "gpt-5", "é" * 300, "Q" * 5000, "../../etc/passwd", "Llama 3.1 8B!"]:
        add(f"unknown model {name[:12]!r}", ["estimate", "-m", name], 2, ("model",), need=("gpuplan models",))
    # A TOML value of another type where a number goes, in each table: the key, the type, in words.
    tables = {
        "training": ('kind = "training"\nmodel = "Qwen2.5-7B"\n[training]\ntask = "lora"\n',
                     ["tokens", "seq_len", "micro_batch", "grad_accum"]),
        "inference": ('kind = "inference"\nmodel = "Qwen2.5-7B"\n[inference]\n',
                      ["batch", "input_tokens", "output_tokens", "max_model_len"]),
    }
    for (table, (head, keys)), v in itertools.product(tables.items(),
                                                     ["1979-05-27", "1979-05-27T07:32:00Z", "07:32:00",
                                                      "{ a = 1 }", "[1, 2]", "true", '"12"', "nan", "-inf"]):
        for key in keys:
            text = head + f"{key} = {v}\n[hardware]\ngpu = \"a100\"\n"
            add(f"{table}.{key} = {v}", ["estimate", "-w", "{dir}/w.toml"], 2, (key,),
                files={"w.toml": text}, absent=("invalid type: map",))
    # Megatron's CP (Transformer Engine) below 8.0: refused; the search offers none there.
    for gpu, fw in itertools.product(["v100", "t4", "a100"], ["megatron", "hugging_face"]):
        refuse = fw == "megatron" and gpu != "a100"
        add(f"cp 2 {fw} {gpu}", ["estimate", "-m", "Llama-3.1-8B", "--task", "full", "--gpu", gpu,
            "--gpus-per-node", "8", "--cp", "2", "--profile", fw], 2 if refuse else None,
            ("parallel.cp",) if refuse else None, ok_exits=(0, 3))
    for gpu, seq, model in itertools.product(["v100", "t4"], ["4096", "32768"], ["Llama-3.1-8B", "Qwen2.5-14B"]):
        add(f"plan megatron {model} {gpu} s{seq}", ["plan", "--format", "json", "--top", "100", "-m", model,
            "--task", "full", "--gpu", gpu, "--profile", "megatron", "--seq-len", seq, "--tokens", "1e8"],
            None, None, ok_exits=(0, 4), check=r18_no_te_cp)
    # An interleaved split Megatron-Core builds only under a layout: estimated with the note.
    for pp, vp in [(4, 3), (4, 2), (8, 3), (2, 16), (4, 5)]:
        even = 32 % pp == 0 and (32 // pp) % vp == 0
        add(f"megatron pp {pp} vp {vp}", ["estimate", "-m", "Llama-3.1-8B", "--task", "pretrain", "--gpu", "h100",
            "--gpus-per-node", "8", "--nodes", "2", "--profile", "megatron", "--pp", str(pp),
            "--virtual-stages", str(vp)], None, None, ok_exits=(0, 2, 3),
            check=(lambda r, even=even: [] if (("pipeline-model-parallel-layout" in r["err"]) != even)
                   else ["layout note " + ("given to an even split" if even else "missing")]))
    # Random ordinary and extreme serving and training questions (seeded).
    import random
    rng = random.Random(18)
    nums = ["0", "1", "-1", "0.5", "1e-9", "7", "64", "1000", "1e6", "1e12", "1e308", "nan", "inf", "18446744073709551616"]
    for i in range(160):
        model = rng.choice(["Qwen2.5-7B", "Llama-3.1-8B", "Qwen3-30B-A3B", "DeepSeek-V3", "gpt-oss-20b", "whisper-large-v3"])
        gpu = rng.choice(list(R18_CHIPS) + ["910b", "l20", "h20"])
        if rng.random() < 0.5:
            args = ["plan", "-m", model, "--task", "inference", "--gpu", gpu, "--engine", rng.choice(list(R18_INT4_MIN))]
            for flag in rng.sample(["--rate", "--concurrency", "--ttft", "--tpot", "--input-tokens", "--output-tokens",
                                    "--min-replicas", "--peak-factor"], 2):
                args += [flag, rng.choice(nums)]
        else:
            args = ["estimate", "-m", model, "--task", rng.choice(["lora", "full", "pretrain", "qlora"]), "--gpu", gpu,
                    "--gpus-per-node", rng.choice(["1", "2", "8"])]
            for flag in rng.sample(["--tp", "--pp", "--cp", "--micro-batch", "--seq-len", "--zero", "--virtual-stages",
                                    "--grad-accum"], 2):
                args += [flag, rng.choice(nums)]
        if rng.random() < 0.3:
            args = ["--lang", "zh"] + args
        add(f"random {i}: {' '.join(args)[:80]}", args, None, None, ok_exits=(0, 2, 3, 4),
            check=zh_notes_clean if args[0] == "--lang" else None)
    return c


NEG_ZERO = re.compile(r"(?<![\w.\-])-0(\.0+)?(?![\d.])")


def no_negative_zero(r):
    """A negative zero printed as a figure ("-0.00", "-0%", JSON -0.0): audit r19 #3."""
    probs = []
    for what, text in (("stdout", r["out"]), ("stderr", r["err"])):
        m = NEG_ZERO.search(text)
        if m:
            probs.append(f"{what} shows a negative zero: …{text[max(0, m.start() - 40):m.end() + 20]!r}")
    return probs


R19_VALS = ["0", "-1", '"nan"', "nan", "1e300", "2.5", '"12"', "inf", "-0.0", "18446744073709551616"]
R19_KEYS = {
    "training": ["micro_batch", "seq_len", "attention_span", "grad_accum", "tokens", "samples", "epochs",
                 "bytes_per_sample", "optimizer_foreach_buffers", "logit_metrics"],
    "training.parallel": ["tp", "pp", "ep", "etp", "zero", "cp", "virtual_stages", "last_stage_layers",
                          "first_stage_layers", "grad_bucket_elements"],
    "training.lora": ["rank", "dropout"],
    "inference": ["tp", "gpu_memory_utilization", "mem_fraction_static", "free_gpu_memory_fraction",
                  "max_model_len", "max_num_batched_tokens", "max_num_seqs", "images_per_request", "block_size",
                  "batch", "input_tokens", "output_tokens"],
    "hardware": ["gpus_per_node", "nodes", "inter_gbit", "intra_gbs", "host_vcpus"],
    "tunables": ["fragmentation", "startup_hours", "spot_price_fraction"],
}
R19_PLAN_KEYS = {
    "serve": ["input_tokens", "output_tokens", "rate_rps", "concurrency", "ttft_s", "tpot_s",
              "gpu_memory_utilization", "steps"],
    "constraints": ["deadline_hours", "budget_cny", "max_nodes", "preemption_rate", "restart_minutes",
                    "reuse_hours_per_month"],
}
R19_ENGINE_MIN = {"vllm": 70, "sglang": 75}
R19_CHIPS = {"v100": 70, "t4": 75, "p100": 60, "p40": 61, "a100": 80, "h100": 90}


def r19_workload(table, key, v):
    """A valid small workload with `key = v` in `table` (training or inference by the table)."""
    inference = table in ("inference", "hardware")
    out = 'kind = "%s"\nmodel = "Qwen2.5-0.5B"\n' % ("inference" if inference else "training")
    if not inference:
        out += '[training]\ntask = "lora"\n'
        out += f"{key} = {v}\n" if table == "training" else "tokens = 1e7\n"
    if table not in ("training", "hardware"):
        out += f"[{table}]\n{key} = {v}\n"
    out += '[hardware]\ngpu = "a100"\n' + (f"{key} = {v}\n" if table == "hardware" else "")
    return out


def r19():
    c = []

    def add(name, args, exit=None, frag=None, **kw):
        c.append(Case("r19", name, args, exit=exit, frag=frag, **kw))
    # Every numeric workload key × hostile values: a finite answer or exit 2 naming the key (zh
    # re-run by run_case); no negative zero printed.
    for (table, keys), v in itertools.product(R19_KEYS.items(), R19_VALS):
        for key in keys:
            add(f"estimate [{table}] {key} = {v}", ["estimate", "-w", "{dir}/w.toml"], None, (key,),
                files={"w.toml": r19_workload(table, key, v)}, ok_exits=(0, 2), check=no_negative_zero)
    for (table, keys), v in itertools.product(R19_PLAN_KEYS.items(), R19_VALS):
        for key in keys:
            if table == "serve":
                extra = "" if key in ("rate_rps", "concurrency") else "rate_rps = 1.0\n"
                text = f'model = "Qwen2.5-0.5B"\n[serve]\n{extra}{key} = {v}\n[constraints]\nproviders = ["alibaba"]\n'
            else:
                text = ('model = "Qwen2.5-0.5B"\n[training]\ntask = "lora"\ntokens = 1e7\n[constraints]\n'
                        f'providers = ["alibaba"]\n{key} = {v}\n')
            add(f"plan [{table}] {key} = {v}", ["plan", "-w", "{dir}/w.toml"], None, (key,),
                files={"w.toml": text}, ok_exits=(0, 2, 4), check=no_negative_zero)
    for flag in ["--preemption-rate=-0", "--reuse-hours=-0", "--lora-dropout=-0", "--set=fragmentation=-0"]:
        add(f"plan {flag}", ["plan", "-m", "Qwen2.5-0.5B", "--task", "lora", "--tokens", "1e7", "--provider",
            "alibaba", flag], None, None, ok_exits=(0,), check=no_negative_zero)
    # Serving engines start only from their compute capability (vLLM 7.0, SGLang 7.5).
    for (gpu, cc), engine in itertools.product(R19_CHIPS.items(), ["vllm", "sglang", "trtllm", "static"]):
        below = cc < R19_ENGINE_MIN.get(engine, 0)
        add(f"{engine} on {gpu}", ["estimate", "-m", "Qwen2.5-0.5B", "--task", "inference", "--gpu", gpu,
            "--engine", engine], 2 if below else None, ("engine",) if below else None, ok_exits=(0, 2, 3))
    # AWQ vs GPTQ by name on each chip: AWQ under vLLM/SGLang from 7.5.
    for (gpu, cc), engine, w in itertools.product(R19_CHIPS.items(), ["vllm", "sglang"], ["awq", "gptq"]):
        if cc < R19_ENGINE_MIN[engine]:
            continue
        refuse = w == "awq" and cc < 75
        add(f"--weights {w} {engine} {gpu}", ["estimate", "-m", "Llama-3.1-8B", "--task", "inference", "--gpu",
            gpu, "--engine", engine, "--weights", w], 2 if refuse else None, ("weights",) if refuse else None,
            ok_exits=(0, 3))
    # Export of serving plans on Volta/Turing: GPTQ under vLLM below 7.5, no SGLang script there.
    for gpu in ["v100", "t4"]:
        add(f"export int4 {gpu}", ["plan", "-m", "Llama-3.1-8B", "--task", "inference", "--gpu", gpu, "--engine",
            "vllm", "--weights", "int4", "--export", "{dir}/out"], 0, None,
            check=(lambda r, gpu=gpu: r19_bundle_ok(r, gpu)))
    # Shapes: tiny and huge models, top-k over the experts, GQA that does not divide, TP over heads.
    tiny = {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 64,
            "intermediate_size": 256, "num_attention_heads": 4, "num_key_value_heads": 4, "num_hidden_layers": 1,
            "vocab_size": 1000, "max_position_embeddings": 2048}
    shapes = {
        "tiny": (tiny, 0), "huge": (dict(tiny, hidden_size=65536, intermediate_size=262144, num_attention_heads=512,
                                          num_key_value_heads=8, num_hidden_layers=200, vocab_size=256000,
                                          max_position_embeddings=1048576), None),
        "topk": (dict(tiny, architectures=["MixtralForCausalLM"], model_type="mixtral", num_local_experts=4,
                      num_experts_per_tok=8), 2),
        "gqa": (dict(tiny, hidden_size=896, num_attention_heads=14, num_key_value_heads=4), 2),
    }
    for (name, (cfg, exit)), task in itertools.product(shapes.items(), ["inference", "lora", "full", "pretrain"]):
        add(f"shape {name} {task}", ["estimate", "--model-config", "{dir}/c.json", "--task", task, "--gpu", "h100",
            "--gpus-per-node", "8"] + (["--tokens", "1e9"] if task != "inference" else [])
            + (["--nodes", "100"] if name == "huge" else []), exit,
            None, files={"c.json": json.dumps(cfg)}, ok_exits=(0, 2, 3), check=no_negative_zero)
    return c


def r19_bundle_ok(r, gpu):
    out = os.path.join(r["dir"], "out")
    vllm = open(os.path.join(out, "serve-vllm.sh")).read()
    sglang = os.path.exists(os.path.join(out, "serve-sglang.sh"))
    want = "gptq" if gpu == "v100" else "awq"
    probs = [] if f"--quantization {want}" in vllm else [f"serve-vllm.sh lacks --quantization {want}"]
    if sglang == (gpu == "v100"):
        probs.append("serve-sglang.sh " + ("written for a chip SGLang does not start on" if sglang else "missing"))
    return probs


def r20():
    """Round 20: an engine below its floor is refused before any note (one line on stderr);
    `plan --weights awq` keeps AWQ's 7.5 floor under vLLM/SGLang; an I/O error of any kind reads
    in Chinese under --lang zh (no "os error"); every estimate/plan flag x hostile values."""
    c = []

    def add(name, args, exit=None, frag=None, **kw):
        c.append(Case("r20", name, args, exit=exit, frag=frag, **kw))

    def one_line(r):
        lines = r["err"].strip().splitlines()
        return [] if len(lines) == 1 else [f"{len(lines)} lines on stderr before/with the refusal"]

    for gpu, engine in [("v100", "sglang"), ("p100", "vllm"), ("p40", "sglang")]:
        add(f"{engine} on {gpu} alone", ["estimate", "-m", "Qwen2.5-0.5B", "--task", "inference", "--gpu", gpu,
            "--engine", engine], 2, ("engine",), check=one_line)
        c[-1].check_exits = (2,)
    for gpu, engine, exit in [("v100", "vllm", 4), ("t4", "vllm", 0), ("a100", "sglang", 0)]:
        add(f"plan --weights awq {engine} {gpu}", ["plan", "-m", "Llama-3.1-8B", "--task", "inference", "--engine",
            engine, "--gpu", gpu, "--weights", "awq"], exit, None)
    add("plan --weights awq,gptq v100", ["plan", "-m", "Llama-3.1-8B", "--task", "inference", "--gpu", "v100",
        "--weights", "awq,gptq"], 0, None)

    def zh_io(r):
        return ["system English text in a Chinese error"] if re.search(r"os error|Input/output", r["err"]) else []

    for args in (["estimate", "-w"], ["plan", "-w"], ["estimate", "--gpu", "a100", "--model-config"],
                 ["models", "show", "--config"], ["catalog", "validate"], ["catalog", "import", "alibaba"],
                 ["export", "--to", "{dir}/out"]):
        add(f"zh {' '.join(args)} /proc/self/mem", ["--lang", "zh"] + args + ["/proc/self/mem"], 2, None,
            check=zh_io)
        c[-1].check_exits = (2,)
    vals = ["0", "-1", "-0", "nan", "inf", "1e300", "2.5", "abc", "", "18446744073709551616"]
    for cmd, base in (("estimate", ["-m", "Qwen2.5-0.5B", "--gpu", "a100"]),
                      ("plan", ["-m", "Qwen2.5-0.5B", "--provider", "alibaba"])):
        for flag, v in itertools.product(R20_FLAGS[cmd], vals):
            for task in (["--task", "lora", "--tokens", "1e7"], ["--task", "inference"]):
                add(f"{cmd} {flag}={v} {task[1]}", [cmd] + base + task + [f"{flag}={v}"], None, None,
                    ok_exits=(0, 2, 3, 4), check=no_negative_zero)
    return c


R20_FLAGS = {
    "estimate": ["--seq-len", "--batch", "--micro-batch", "--global-batch", "--grad-accum", "--tp", "--pp", "--cp",
                 "--ep", "--input-tokens", "--output-tokens", "--max-model-len", "--max-num-seqs",
                 "--max-num-batched-tokens", "--gpu-memory-utilization", "--lora-rank", "--lora-dropout",
                 "--nodes", "--gpus-per-node", "--inter-gbit", "--host-vcpus", "--virtual-stages",
                 "--first-stage-layers", "--tpot", "--samples", "--epochs", "--image-size"],
    "plan": ["--rate", "--concurrency", "--ttft", "--tpot", "--budget", "--deadline", "--max-nodes",
             "--min-replicas", "--peak-factor", "--preemption-rate", "--reuse-hours", "--max-price-age",
             "--top", "--pick", "--seq-len", "--global-batch", "--lora-rank", "--dataset-size", "--steps"],
}


def json_numbers_ok(r):
    """Every number in a JSON answer finite (no NaN/Infinity constant), and no negative money,
    time, bytes, memory or rate (keys naming them)."""
    probs = []
    if not r["out"].lstrip().startswith(("{", "[")):
        return probs
    def const(x):
        probs.append(f"JSON constant {x}")
        return 0.0
    d = json.loads(r["out"], parse_constant=const)
    money = re.compile(r"cost|price|cny|seconds|_s$|hours|time|bytes|memory|size|tokens_per|rps|throughput")

    def walk(v, path):
        if isinstance(v, dict):
            for k, x in v.items():
                walk(x, path + [k])
        elif isinstance(v, list):
            for x in v:
                walk(x, path)
        elif isinstance(v, (int, float)) and not isinstance(v, bool):
            key = path[-1] if path else ""
            if v < 0 and money.search(key) and not key.startswith(("delta", "diff", "change")):
                probs.append(f"{'.'.join(path)} = {v}")
    walk(d, [])
    return probs[:5]


R21_CHIPS = ["p100", "p40", "v100", "t4", "a10", "a100", "l40s", "h100", "h20", "ascend-910b", "ascend-310p",
             "mi300x", "alibaba-blackwell-72g"]
R21_WEIGHTS = ["bf16", "fp16", "fp8", "int8", "int4", "awq", "gptq", "mxfp4", "int4-g64", "fp32", "bnb-4bit"]


def r21():
    """Round 21: a workload file's `weights` spellings reach --weights' model or name the key;
    every engine x weight word x chip family on `estimate` (JSON numbers finite, nothing negative);
    shapes by flags (TP over heads, batch 1e9, seq 1, a 1M prompt); the other subcommands with
    hostile arguments; export targets that cannot be written."""
    c = []

    def add(name, args, exit=None, frag=None, **kw):
        c.append(Case("r21", name, args, exit=exit, frag=frag, **kw))

    # 1. `weights` spellings in a file against --weights (Llama-3.1-8B, vLLM): V100 refuses AWQ.
    for gpu in ["v100", "t4"]:
        for spell in ['"awq"', '"AWQ"', '"int4-awq"', '"gptq"', '"int4"', '{ format = "awq" }',
                      '{ format = "int4" }', '{ format = "int4", group = 128 }', '"Int4-G128"']:
            text = ('kind = "inference"\nmodel = "Llama-3.1-8B"\n[inference]\nengine = "vllm"\n'
                    f'weights = {spell}\n[hardware]\ngpu = "{gpu}"\n')
            awq = spell.strip('"').lower() == "awq"
            bad = ('"int4-awq"', '{ format = "awq" }', '{ format = "int4" }')  # no group: "missing field"
            want = 2 if (awq and gpu == "v100") or spell in bad else 0
            add(f"estimate file weights = {spell} {gpu}", ["estimate", "-w", "{dir}/w.toml"], want, ("weights",),
                files={"w.toml": text}, ok_exits=(0, 2))
        for spell in ['["awq"]', '["AWQ"]', '["int4-awq"]', '["gptq"]', '[{ format = "int4", group = 128 }]']:
            text = f'model = "Llama-3.1-8B"\n[serve]\nengine = "vllm"\nrate_rps = 1.0\nweights = {spell}\n'
            want = 2 if spell == '["int4-awq"]' else 4 if spell in ('["awq"]', '["AWQ"]') and gpu == "v100" else 0
            add(f"plan file weights = {spell} {gpu}", ["plan", "-w", "{dir}/w.toml", "--gpu", gpu], want, ("weights",),
                files={"w.toml": text}, ok_exits=(0, 2, 4))
    # 2. engine x weights x chip: JSON finite, nothing negative.
    for engine, w, gpu in itertools.product(["vllm", "sglang", "trtllm", "static"], R21_WEIGHTS, R21_CHIPS):
        add(f"serve {engine} {w} {gpu}", ["estimate", "-m", "Qwen2.5-7B", "--task", "inference", "--engine", engine,
            "--weights", w, "--gpu", gpu, "--format", "json"], None, ("weights", "engine", "gpu"),
            ok_exits=(0, 2, 3), check=lambda r: json_numbers_ok(r) + no_negative_zero(r))
    # 3. shapes by flags.
    for args in (["--task", "inference", "--tp", "64"], ["--task", "lora", "--tp", "64", "--tokens", "1e7"],
                 ["--task", "inference", "--batch", "1000000000"], ["--task", "lora", "--micro-batch", "1000000000",
                 "--tokens", "1e7"], ["--task", "lora", "--seq-len", "1", "--tokens", "1e7"],
                 ["--task", "inference", "--input-tokens", "1", "--output-tokens", "1"],
                 ["--task", "inference", "--input-tokens", "1000000"], ["--task", "inference", "--max-model-len",
                 "1048576"], ["--task", "pretrain", "--seq-len", "1048576", "--tokens", "1e9"],
                 ["--task", "lora", "--global-batch", "1000000000", "--tokens", "1e7"],
                 ["--task", "qlora", "--tokens", "1e7"], ["--task", "inference", "--tp", "3"],
                 ["--task", "inference", "--tp", "2", "--weights", "int4-g64"],
                 ["--task", "inference", "--tp", "7", "--weights", "int4"]):
        for lang in ([], ["--lang", "zh"]):
            add(f"shape {' '.join(lang + args)}", lang + ["estimate", "-m", "Qwen2.5-0.5B", "--gpu", "a100",
                "--gpus-per-node", "8", "--format", "json"] + args, None, None, ok_exits=(0, 2, 3),
                check=lambda r: json_numbers_ok(r) + no_negative_zero(r))
            add(f"plan shape {' '.join(lang + args)}", lang + ["plan", "-m", "Qwen2.5-0.5B", "--provider", "alibaba",
                "--format", "json"] + [a for a in args if a not in ("--gpus-per-node",)], None, None,
                ok_exits=(0, 2, 3, 4), check=lambda r: json_numbers_ok(r) + no_negative_zero(r))
    # 4. the other subcommands.
    # (no "nan": these commands echo the name they could not find, which is the user's text)
    vals = ["", "0", "-1", "abc", "\u00e9\u00e9", "x" * 5000, "../../etc/passwd", "--", "１"]
    for v in vals:
        for args in (["models", "show", v], ["catalog", "show", v], ["prices", "--gpu", v],
                     ["prices", "--by-gpu", "--gpu", v], ["catalog", "instances", "--gpu", v],
                     ["accuracy", "--cases", v], ["catalog", "validate", v],
                     ["export", v, "--to", "{dir}/o"]):
            for lang in ([], ["--lang", "zh"]):
                add(f"{' '.join(lang + args)[:80]}", lang + args, None, None, ok_exits=(0, 1, 2, 3))
        # clap's list of shells is names (bash, fish, ...), which the zh re-run would read as English.
        add(f"--lang zh completions {v[:20]}", ["--lang", "zh", "completions", v], None, None, ok_exits=(0, 2))
    # 5. export targets.
    base = ["plan", "-m", "Qwen2.5-0.5B", "--task", "lora", "--tokens", "1e7", "--provider", "alibaba"]
    for target, files in (("{dir}/missing/deeper/out", {}), ("{dir}/f/out", {"f": "x"}),
                          ("/proc/sys/out", {}), ("/sys/out", {})):
        for lang in ([], ["--lang", "zh"]):
            add(f"export to {target} {lang}", lang + base + ["--export", target], None, None, files=files,
                ok_exits=(0, 2))
    return c


def api_r16(bin_path):
    """`/estimate` and `/plan` read a body only as JSON (415 naming content-type otherwise), and
    refuse an int4 group against a TP slice naming `tp`, as the CLI does."""
    d = tempfile.mkdtemp(prefix="gpuplan-sweep-api16-")
    p = subprocess.Popen([bin_path, "serve", "--bind", "127.0.0.1:0", "--no-user-catalog"],
                         env=dict(os.environ, GPUPLAN_CONFIG_DIR=d), stderr=subprocess.PIPE, stdout=subprocess.DEVNULL)
    m = re.search(r"http://([0-9.:]+)", p.stderr.readline().decode())
    if not m:
        p.kill()
        return [("api16", "start", ["no address"])], 0
    base = f"http://{m.group(1)}/api/v1"
    ok = {"model": "Qwen2.5-7B", "kind": "inference", "inference": {"tp": 1}, "hardware": {"gpu": "A100"}}
    reqs = []
    for ep in ["estimate", "plan"]:
        body = ok if ep == "estimate" else {"model": "Qwen2.5-7B", "training": {"task": "lora", "tokens": 1e8}}
        for ct, want in [("text/plain", 415), ("application/x-www-form-urlencoded", 415), ("", 415),
                         ("multipart/form-data; boundary=x", 415), ("application/jsonx", 415), ("json", 415),
                         ("application/json", 200), ("application/json; charset=utf-8", 200),
                         ("APPLICATION/JSON", 200), ("application/vnd.api+json", 200)]:
            reqs.append((ep, body, ct, want, "content-type" if want == 415 else None, None))
    reqs.append(("estimate", dict(ok, inference={"tp": 1}), "application/json", 200, None, b"\xef\xbb\xbf"))
    for tp, want in [(1, 200), (2, 400), (8, 400)]:
        body = {"model": "Qwen2.5-72B", "kind": "inference", "hardware": {"gpu": "A100", "gpus_per_node": 8},
                "inference": {"tp": tp, "weights": {"format": "int4", "group": 128}}}
        reqs.append(("estimate", body, "application/json", want, "tp" if want == 400 else None, None))
    fails = []
    for ep, body, ct, want, field, prefix in reqs:
        data = (prefix or b"") + json.dumps(body).encode()
        headers = {"Content-Type": ct} if ct else {}
        req = urllib.request.Request(f"{base}/{ep}", data=data, method="POST", headers=headers)
        if not ct:
            req.remove_header("Content-type")
        try:
            with urllib.request.urlopen(req, timeout=TIMEOUT) as resp:
                status, text = resp.status, resp.read().decode("utf-8", "replace")
        except urllib.error.HTTPError as e:
            status, text = e.code, e.read().decode("utf-8", "replace")
        probs = []
        if status != want:
            probs.append(f"status {status}, expected {want}: {text[:200]}")
        elif field is not None and json.loads(text)["error"]["field"] != field:
            probs.append(f"field {json.loads(text)['error']['field']}, expected {field}")
        if probs:
            fails.append(("api16", f"{ep} {ct!r} {str(body)[:60]}", probs))
    p.kill()
    shutil.rmtree(d, ignore_errors=True)
    return fails, len(reqs)



def r22():
    """Round 22: extreme and malformed values on every subcommand: NaN/inf/-inf/1e308 spelled in
    workload TOML, huge sequences, inline `[config]` tables with vocab 0 / layers 0 / heads not
    dividing hidden / top-k over the experts / TP over the heads, empty and unicode model names,
    `--lang` junk, missing and unreadable files, unwritable outputs; `--lang zh` answers naming
    chips with qualifiers (no English left); QLoRA's default recompute."""
    c = []

    def add(name, args, exit=None, frag=None, **kw):
        c.append(Case("r22", name, args, exit=exit, frag=frag, **kw))

    finite = lambda r: json_numbers_ok(r) + no_negative_zero(r)
    base = 'model = "Llama-3.1-8B"\nkind = "training"\n[hardware]\ngpu = "A100"\ngpus_per_node = 8\n'
    # 1. numbers TOML spells as NaN / infinities, and extremes, per key (estimate and plan files).
    for table, key in [("training", "tokens"), ("training", "seq_len"), ("training", "micro_batch"),
                       ("training.lora", "dropout"), ("hardware", "inter_gbit"), ("tunables", "fragmentation")]:
        for v in ["nan", "+nan", "-nan", "inf", "+inf", "-inf", "1e308", "-1e308", "0", "-0"]:
            text = base + f'[training]\ntask = "lora"\ntokens = 1e7\n' if table != "training" else base
            if table == "training":
                text += f'[training]\ntask = "lora"\n{key} = {v}\n' + ("tokens = 1e7\n" if key != "tokens" else "")
            elif table == "hardware":
                text = text.replace("gpus_per_node = 8\n", f"gpus_per_node = 8\n{key} = {v}\nnodes = 2\n")
            else:
                text += f"[{table}]\n{key} = {v}\n"
            add(f"toml {table}.{key} = {v}", ["estimate", "-w", "{dir}/w.toml", "--format", "json"], None,
                (key,), files={"w.toml": text}, ok_exits=(0, 2), check=finite)
    for key, v in [("budget_cny", "nan"), ("budget_cny", "inf"), ("budget_cny", "-1"), ("deadline_hours", "nan"),
                   ("deadline_hours", "-inf"), ("deadline_hours", "0"), ("preemption_rate", "inf"),
                   ("restart_minutes", "nan"), ("reuse_hours_per_month", "1e308"), ("max_nodes", "0")]:
        text = f'model = "Qwen2.5-0.5B"\n[training]\ntask = "lora"\ntokens = 1e7\n[constraints]\n{key} = {v}\n'
        add(f"plan toml constraints.{key} = {v}", ["plan", "-w", "{dir}/w.toml", "--format", "json"], None, (key,),
            files={"w.toml": text}, ok_exits=(0, 2, 4), check=finite)
    for key, v in [("rate_rps", "nan"), ("rate_rps", "inf"), ("rate_rps", "1e308"), ("rate_rps", "0"),
                   ("ttft_s", "0"), ("ttft_s", "-inf"), ("input_tokens", "0"), ("output_tokens", "1000000000"),
                   ("concurrency", "0")]:
        text = f'model = "Qwen2.5-0.5B"\n[serve]\n{key} = {v}\n' + ("rate_rps = 1.0\n" if key != "rate_rps" else "")
        add(f"plan toml serve.{key} = {v}", ["plan", "-w", "{dir}/w.toml", "--format", "json"], None, (key,),
            files={"w.toml": text}, ok_exits=(0, 2, 4), check=finite)
    # 2. huge sequences and token counts by flag.
    for args in (["--task", "lora", "--seq-len", "1000000000", "--tokens", "1e9"],
                 ["--task", "pretrain", "--seq-len", "1000000000", "--tokens", "1e12"],
                 ["--task", "inference", "--input-tokens", "1000000000"],
                 ["--task", "inference", "--output-tokens", "1000000000"],
                 ["--task", "lora", "--tokens", "1e308"], ["--task", "lora", "--tokens", "nan"],
                 ["--task", "lora", "--tokens", "-inf"], ["--task", "qlora", "--tokens", "1e7"],
                 ["--task", "qlora", "--tokens", "1e7", "--recompute", "none"]):
        add(f"estimate {' '.join(args)}", ["estimate", "-m", "Llama-3.1-8B", "--gpu", "a100", "--format", "json"] + args,
            None, None, ok_exits=(0, 2, 3), check=finite)
        add(f"plan {' '.join(args)}", ["plan", "-m", "Llama-3.1-8B", "--provider", "alibaba", "--format", "json"] + args,
            None, None, ok_exits=(0, 2, 3, 4), check=finite)
    # 3. inline [config] shapes (workload file) and the same as config.json.
    shapes = {
        "vocab 0": dict(LLAMA, vocab_size=0), "layers 0": dict(LLAMA, num_hidden_layers=0),
        "heads 7 of hidden 4096": dict(LLAMA, num_attention_heads=7, num_key_value_heads=7),
        "heads 0": dict(LLAMA, num_attention_heads=0), "hidden 0": dict(LLAMA, hidden_size=0),
        "intermediate 0": dict(LLAMA, intermediate_size=0), "context 0": dict(LLAMA, max_position_embeddings=0),
        "top-k 16 of 8 experts": dict(MIXTRAL, num_experts_per_tok=16), "experts 0": dict(MIXTRAL, num_local_experts=0),
        "hidden 1e9": dict(LLAMA, hidden_size=10**9), "layers -1": dict(LLAMA, num_hidden_layers=-1),
        "heads > hidden": dict(LLAMA, hidden_size=16, num_attention_heads=32, num_key_value_heads=8),
    }
    for name, cfg in shapes.items():
        lines = "".join(f"{k} = {toml_value(v)}\n" for k, v in cfg.items())
        for task in ["lora", "inference"]:
            kind = "inference" if task == "inference" else "training"
            text = (f'kind = "{kind}"\n[hardware]\ngpu = "A100"\ngpus_per_node = 8\n'
                    + (f'[training]\ntask = "lora"\ntokens = 1e7\n' if task == "lora" else "")
                    + f"[config]\n{lines}")
            add(f"inline config {name} {task}", ["estimate", "-w", "{dir}/w.toml", "--format", "json"], None, None,
                files={"w.toml": text}, ok_exits=(0, 2, 3), check=finite)
    # TP over the heads (32 heads, TP 64 over 8 nodes), and a TP that does not divide the KV heads.
    for tp, nodes in [("64", "8"), ("3", "1"), ("0", "1")]:
        add(f"tp {tp} over 32 heads", ["estimate", "-m", "Llama-3.1-8B", "--gpu", "a100", "--gpus-per-node", "8",
            "--nodes", nodes, "--task", "full", "--tp", tp, "--tokens", "1e7", "--format", "json"], None, ("tp",),
            ok_exits=(0, 2), check=finite)
    # 4. names: empty, blank, unicode, control characters.
    for m in ["", " ", "模型", "\u00e9", "Qwen2.5-7B\u200b", "\u202eB7-5.2newQ", "../Qwen2.5-7B", "Qwen2.5-7B;rm -rf"]:
        for cmd in (["estimate", "--task", "lora", "--gpu", "a100"], ["plan", "--task", "lora", "--tokens", "1e7"],
                    ["models", "show"]):
            args = cmd[:1] + (["-m", m] if cmd[0] != "models" else ["show", m])
            args = args + (cmd[1:] if cmd[0] != "models" else [])
            for lang in ([], ["--lang", "zh"]):
                add(f"{' '.join(lang)} {cmd[0]} model {m!r}", lang + args, None, None, ok_exits=(0, 2))
    # 5. --lang junk and locale junk.
    for lang in ["xx", "", "ZH", "zh-TW", "zh_CN.UTF-8", "en-US", "\u4e2d\u6587"]:
        add(f"--lang {lang!r}", ["--lang", lang, "models"], None, ("lang",), ok_exits=(0, 2))
    for loc in ["xx_YY.UTF-8", "zh_TW.UTF-8", "C", "POSIX", ""]:
        add(f"LC_ALL={loc!r}", ["estimate", "-m", "Qwen2.5-7B", "--task", "lora", "--gpu", "a100"], 0, None,
            env={"LC_ALL": loc})
    # 6. files: missing, a directory, empty, binary, a FIFO-less special file, a huge line.
    for what, path, files in [("missing", "{dir}/nope.toml", {}), ("directory", "{dir}", {}),
                              ("empty", "{dir}/w.toml", {"w.toml": ""}),
                              ("binary", "{dir}/w.toml", {"w.toml": b"\x00\xff" * 64}),
                              ("dev null", "/dev/null", {}), ("huge line", "{dir}/w.toml", {"w.toml": "#" * 5_000_000}),
                              ("utf16", "{dir}/w.toml", {"w.toml": 'model = "Qwen2.5-7B"\n'.encode("utf-16")})]:
        for cmd in (["estimate", "-w"], ["plan", "-w"]):
            for lang in ([], ["--lang", "zh"]):
                add(f"{' '.join(lang)} {cmd[0]} workload {what}", lang + cmd + [path], None, None, files=files,
                    ok_exits=(2,))
        add(f"catalog validate {what}", ["catalog", "validate", path], None, None, files=files, ok_exits=(0, 2))
        add(f"accuracy --cases {what}", ["accuracy", "--cases", path], None, None, files=files, ok_exits=(0, 2))
        add(f"catalog import {what}", ["catalog", "import", "alibaba", path, "--dry-run"], None, None, files=files,
            ok_exits=(0, 2))
    # 7. catalog rows with NaN/inf/negative prices and memory (validate and plan with them).
    for field, v in [("price", "nan"), ("price", "inf"), ("price", "-1"), ("price", "1e308"), ("price", "0")]:
        cat = (f'[[price]]\ninstance = "ecs.gn7i-c8g1.2xlarge"\nprovider = "alibaba"\nregion = "cn-shanghai"\n'
               f'billing = "on_demand"\ncny = {v}\nkind = "user"\nas_of = "2026-12"\nsource = "test"\n')
        add(f"catalog validate price {v}", ["catalog", "validate", "{dir}/c.toml"], None, None, files={"c.toml": cat},
            ok_exits=(0, 1, 2))
        # The same row as the user's catalog under a plan: no NaN/inf/negative money reaches the plan.
        add(f"plan with user price {v}", ["plan", "-m", "Qwen2.5-0.5B", "--task", "lora", "--tokens", "1e7",
            "--provider", "alibaba", "--format", "json"], None, None, files={"cfg/catalog/user.toml": cat},
            ok_exits=(0, 2, 4), check=finite)
    # 8. unwritable and odd output paths.
    plan = ["plan", "-m", "Qwen2.5-0.5B", "--task", "lora", "--tokens", "1e7", "--provider", "alibaba"]
    for target in ["", "/proc", "/dev/null/x", "/proc/self/x", "{dir}/a\nb", "{dir}/" + "x" * 300]:
        for lang in ([], ["--lang", "zh"]):
            add(f"{' '.join(lang)} plan --export {target[:40]!r}", lang + plan + ["--export", target], None, None,
                ok_exits=(0, 2))
    return c



def api_r22(bin_path):
    """`/estimate` and `/plan` with r22's values: NaN/Infinity/1e999 spelled in JSON, the weight
    words the CLI takes (`"awq"` as a string), config shapes, empty and unicode model names, and
    `?lang=` junk. Each answer: no 5xx, no NaN/inf/negative money, a 400 names its field, and a
    zh answer has no English sentence."""
    d = tempfile.mkdtemp(prefix="gpuplan-sweep-api22-")
    p = subprocess.Popen([bin_path, "serve", "--bind", "127.0.0.1:0", "--no-user-catalog"],
                         env=dict(os.environ, GPUPLAN_CONFIG_DIR=d), stderr=subprocess.PIPE, stdout=subprocess.DEVNULL)
    m = re.search(r"http://([0-9.:]+)", p.stderr.readline().decode())
    if not m:
        p.kill()
        return [("api22", "start", ["no address"])], 0
    base = f"http://{m.group(1)}/api/v1"
    serve = lambda w, gpu="A100": json.dumps({"model": "Llama-3.1-8B", "kind": "inference", "hardware": {"gpu": gpu},
                                              "inference": {"engine": "vllm", "weights": w}})
    reqs = []  # (endpoint, body bytes, expected status or None, field or None)
    for w, gpu, want in [("awq", "T4", 200), ("awq", "V100", 400), ("AWQ", "T4", 200), ("gptq", "V100", 200),
                         ("int4", "A100", 200), ("fp8", "H100", 200), ("fp32", "A100", 200), ("int4-g64", "A100", 200),
                         ("int4-awq", "A100", 400), ("q4_k", "A100", 400), ("", "A100", 400), (5, "A100", 400),
                         (["awq"], "A100", 400), ({"format": "int4"}, "A100", 400)]:
        field = {"int4-awq": "inference.weights", "q4_k": "inference.weights", "": "inference.weights"}.get(
            w if isinstance(w, str) else None)
        reqs.append(("estimate", serve(w, gpu).encode(), want, field))
    for ws, want, field in [(["awq"], 200, None), (["awq", "gptq"], 200, None), (["int4-awq"], 400, "serve.weights"),
                            (["fp32"], 400, "serve.weights"), ("awq", 400, None)]:
        reqs.append(("plan", json.dumps({"model": "Llama-3.1-8B", "serve": {"rate_rps": 1.0, "weights": ws},
                                         "constraints": {"providers": ["alibaba"]}}).encode(), want, field))
    train = '{"model":"Qwen2.5-0.5B","kind":"training","hardware":{"gpu":"A100"},"training":{"task":"lora","tokens":%s}}'
    for v in ["NaN", "Infinity", "-Infinity", "1e999", "-1e999", "1e308", "-1", "0", "-0", "1e-320"]:
        reqs.append(("estimate", (train % v).encode(), None, None))
    seq = '{"model":"Qwen2.5-0.5B","kind":"training","hardware":{"gpu":"A100"},"training":{"task":"lora","tokens":1e7,"seq_len":%s}}'
    for v in ["1000000000", "0", "-1", "1e9", "18446744073709551616"]:
        reqs.append(("estimate", (seq % v).encode(), None, None))
    for name, cfg in [("vocab 0", dict(LLAMA, vocab_size=0)), ("layers 0", dict(LLAMA, num_hidden_layers=0)),
                      ("heads 7", dict(LLAMA, num_attention_heads=7, num_key_value_heads=7)),
                      ("top-k > experts", dict(MIXTRAL, num_experts_per_tok=16)),
                      ("hidden 0", dict(LLAMA, hidden_size=0))]:
        for ep, extra in [("estimate", {"kind": "training", "hardware": {"gpu": "A100"}, "training": {"task": "lora", "tokens": 1e7}}),
                          ("plan", {"training": {"task": "lora", "tokens": 1e7}, "constraints": {"providers": ["alibaba"]}})]:
            reqs.append((ep, json.dumps(dict(extra, config=cfg)).encode(), None, None))
    for model in ["", " ", "模型", "\u202eB7", "x" * 10000]:
        reqs.append(("estimate", json.dumps({"model": model, "kind": "training", "hardware": {"gpu": "A100"}}).encode(),
                     400, "model"))
    tp = {"model": "Llama-3.1-8B", "kind": "training", "hardware": {"gpu": "A100", "gpus_per_node": 8, "nodes": 8},
          "training": {"task": "full", "tokens": 1e7, "parallel": {"tp": 64}}}
    reqs.append(("estimate", json.dumps(tp).encode(), None, None))
    fails = []
    n = 0
    for lang in ["", "?lang=zh", "?lang=xx"]:
        for ep, body, want, field in reqs:
            n += 1
            req = urllib.request.Request(f"{base}/{ep}{lang}", data=body, method="POST",
                                         headers={"Content-Type": "application/json"})
            try:
                with urllib.request.urlopen(req, timeout=TIMEOUT) as resp:
                    status, text = resp.status, resp.read().decode("utf-8", "replace")
            except urllib.error.HTTPError as e:
                status, text = e.code, e.read().decode("utf-8", "replace")
            except Exception as e:
                status, text = -1, f"{type(e).__name__}: {e}"
            probs = []
            if status == -1 or status >= 500:
                probs.append(f"status {status}: {text[:300]}")
            elif want is not None and status != want:
                probs.append(f"status {status}, expected {want}: {text[:300]}")
            bad = shows_non_number(text)
            if bad:
                probs.append(f"shows {bad}: {text[:200]}")
            if status == 400:
                err = json.loads(text).get("error", {})
                if field is not None and err.get("field") != field:
                    probs.append(f"field {err.get('field')}, expected {field}")
                if lang == "?lang=zh" and english_sentences(err.get("message", "")):
                    probs.append(f"zh: English left: {english_sentences(err['message'])[0]}")
            elif status == 200 and text.lstrip().startswith("{"):
                probs += json_numbers_ok({"out": text})
            if probs:
                fails.append(("api22", f"{ep}{lang} {body[:90]!r}", probs))
    p.kill()
    shutil.rmtree(d, ignore_errors=True)
    return fails, n


def r23_unchanged(name):
    """A check that the user's file `name` (in the case's folder) still reads `mine`."""
    def check(r):
        p = os.path.join(r["dir"], name)
        try:
            return [] if open(p).read() == "mine" else [f"{name} overwritten"]
        except OSError as e:
            return [f"{name} gone: {e}"]
    return check


def r23_exported(sub, want=("README.txt",)):
    """A check that the bundle landed in `sub` (under the case's folder) with `want` in it."""
    def check(r):
        d = os.path.join(r["dir"], sub)
        missing = [w for w in want if not os.path.exists(os.path.join(d, w))]
        return [f"{sub}: {w} missing" for w in missing]
    return check


def r23():
    """Round 23: every export launcher target into paths with spaces and unicode, an existing
    folder with the user's files, a file where a folder is expected, the `export` subcommand's
    --pick; workload keys at 0 / negative / 1e308 / nan / inf / wrong type / duplicated / a
    near-miss spelling (the error must name the right key); estimate's serving options; plan
    pins that contradict (tp x pp x ep not dividing the GPUs, cp on a short sequence, experts
    the ep does not divide), --max-nodes 0, --budget 0 / negative; one-layer 64-wide models;
    HF MoE configs with 0 or 1 experts and every top-k spelling (audit r23 A1)."""
    c = []

    def add(name, args, exit=None, frag=None, **kw):
        c.append(Case("r23", name, args, exit=exit, frag=frag, **kw))

    finite = lambda r: json_numbers_ok(r) + no_negative_zero(r)
    # 1. export: each launcher target x a path with spaces and one in unicode.
    targets = {
        "hf lora": ["plan", "-m", "Qwen2.5-7B", "--task", "lora", "--tokens", "1e8", "--provider", "alibaba"],
        "deepspeed full": ["plan", "-m", "Qwen2.5-7B", "--task", "full", "--tokens", "1e9", "--provider", "tencent"],
        "megatron pretrain": ["plan", "-m", "Llama-3.1-8B", "--task", "pretrain", "--tokens", "1e10", "--profile",
                              "megatron", "--provider", "alibaba"],
        "litgpt": ["plan", "-m", "Llama-3.1-8B", "--task", "lora", "--tokens", "1e8", "--profile", "litgpt"],
        "ascend": ["plan", "-m", "Qwen2.5-7B", "--task", "lora", "--tokens", "1e8", "--provider", "huawei",
                   "--chips", "ascend"],
        "mindspore": ["plan", "-m", "Qwen2.5-7B", "--task", "lora", "--tokens", "1e8", "--provider", "huawei",
                      "--chips", "ascend", "--framework", "mindspore"],
        "vllm": ["plan", "-m", "Qwen2.5-7B", "--task", "inference", "--rate", "2", "--provider", "alibaba"],
        "sglang": ["plan", "-m", "Qwen2.5-7B", "--task", "inference", "--rate", "2", "--engine", "sglang"],
        "trtllm": ["plan", "-m", "Qwen2.5-7B", "--task", "inference", "--rate", "2", "--engine", "trtllm"],
        "static": ["plan", "-m", "Qwen2.5-7B", "--task", "inference", "--rate", "2", "--engine", "static"],
    }
    for tname, args in targets.items():
        for sub in ["my plans/out dir", "计划 ü/输出"]:
            add(f"export {tname} into {sub!r}", args + ["--export", "{dir}/" + sub], None, None, ok_exits=(0, 4),
                check=r23_exported(sub))
        # An existing folder holding the user's own launch.sh and README.md: refused, both kept.
        add(f"export {tname} into a folder with the user's files", args + ["--export", "{dir}/d"], 2,
            ("exist", "force"), files={"d/README.txt": "mine", "d/notes.txt": "mine"},
            check=r23_unchanged("d/README.txt"), ok_exits=(2, 4))
        # A file where the folder is expected (as the folder and as a parent).
        add(f"export {tname} under a file", args + ["--export", "{dir}/f/sub"], None, ("f",), files={"f": "mine"},
            ok_exits=(2, 4))
    # The other files of an existing folder are kept when the bundle's names are free.
    add("export into a folder with unrelated files", targets["hf lora"] + ["--export", "{dir}/d"], 0, None,
        files={"d/notes.txt": "mine"}, check=lambda r: r23_unchanged("d/notes.txt")(r) + r23_exported("d")(r))
    # `export` from a saved plan: --pick out of range, 0; a plan file with spaces in its path.
    for pick in ["0", "-1", "99", "1e3", "x"]:
        add(f"export --pick {pick}", ["export", "{dir}/p j.json", "--to", "{dir}/o u t", "--pick", pick], None,
            ("pick",), files={"p j.json": "PLAN_JSON"}, ok_exits=(0, 2))
    add("export --pick 1 into unicode", ["export", "{dir}/p j.json", "--to", "{dir}/导出 x"], 0, None,
        files={"p j.json": "PLAN_JSON"}, check=r23_exported("导出 x"))
    add("export --to a file", ["export", "{dir}/p j.json", "--to", "{dir}/p j.json"], 2, ("p j.json",),
        files={"p j.json": "PLAN_JSON"})
    add("export a plan with no plans", ["export", "{dir}/p.json", "--to", "{dir}/o"], 2, ("plan",),
        files={"p.json": '{"schema_version": 1, "kind": "plan", "outcome": {"plans": []}}'})
    # 2. workload keys x hostile values (estimate file; plan file for the constraints).
    base = 'model = "Qwen2.5-0.5B"\nkind = "training"\n[hardware]\ngpu = "A100"\ngpus_per_node = 8\n'
    keys = [("training", "micro_batch"), ("training", "grad_accum"), ("training", "global_batch"),
            ("training", "epochs"), ("training", "samples"), ("training.lora", "rank"),
            ("training.lora", "alpha"), ("training.parallel", "tp"), ("training.parallel", "zero"),
            ("hardware", "nodes"), ("hardware", "gpus_per_node"), ("tunables", "mfu")]
    for table, key in keys:
        for v in ["0", "-3", "1e308", "nan", "inf", '"8"', "[1]", "{ a = 1 }", "true"]:
            t = base
            if table.startswith("training"):
                t += '[training]\ntask = "lora"\ntokens = 1e7\n'
                t += f"{key} = {v}\n" if table == "training" else f"[{table}]\n{key} = {v}\n"
            elif table == "hardware":
                t = t.replace("gpus_per_node = 8\n", "") + f"{key} = {v}\n" + (
                    "gpus_per_node = 8\n" if key != "gpus_per_node" else "")
                t += '[training]\ntask = "lora"\ntokens = 1e7\n'
            else:
                t += f'[training]\ntask = "lora"\ntokens = 1e7\n[{table}]\n{key} = {v}\n'
            add(f"toml {table}.{key} = {v}", ["estimate", "-w", "{dir}/w.toml", "--format", "json"], None, (key,),
                files={"w.toml": t}, ok_exits=(0, 2), check=finite)
    # Duplicated keys and near-miss spellings: the error names the key (and suggests the right one).
    dup = base + '[training]\ntask = "lora"\ntokens = 1e7\nseq_len = 2048\nseq_len = 4096\n'
    add("toml duplicated key", ["estimate", "-w", "{dir}/w.toml"], 2, ("seq_len",), files={"w.toml": dup})
    add("toml duplicated table", ["estimate", "-w", "{dir}/w.toml"], 2, ("training",),
        files={"w.toml": base + '[training]\ntask = "lora"\n[training]\ntokens = 1e7\n'})
    for wrong, right, table in [("seq_length", "seq_len", "training"), ("micro_batch_size", "micro_batch", "training"),
                                ("tokenz", "tokens", "training"), ("gpu_per_node", "gpus_per_node", "hardware"),
                                ("gpus_per_nodes", "gpus_per_node", "hardware"), ("lora_rank", "rank", "training.lora"),
                                ("deadline_hour", "deadline_hours", "constraints"), ("budget", "budget_cny", "constraints"),
                                ("max_node", "max_nodes", "constraints"), ("rate", "rate_rps", "serve"),
                                ("ttft", "ttft_s", "serve"), ("input_token", "input_tokens", "serve")]:
        if table in ("constraints", "serve"):
            t = 'model = "Qwen2.5-0.5B"\n' + ('[training]\ntask = "lora"\ntokens = 1e7\n' if table == "constraints" else
                                             "[serve]\nrate_rps = 1.0\n")
            t += (f"[{table}]\n" if table == "constraints" else "") + f"{wrong} = 1\n"
            cmd = ["plan", "-w", "{dir}/w.toml"]
        else:
            t = base + '[training]\ntask = "lora"\ntokens = 1e7\n'
            t = t.replace("gpus_per_node = 8\n", f"{wrong} = 8\n") if table == "hardware" else (
                t + (f"{wrong} = 8\n" if table == "training" else f"[{table}]\n{wrong} = 8\n"))
            cmd = ["estimate", "-w", "{dir}/w.toml"]
        add(f"near-miss {table}.{wrong}", cmd, 2, None, need=(wrong, right), files={"w.toml": t})
    # 3. estimate with the serving options x hostile values.
    for flag in ["--ttft", "--tpot", "--input-tokens", "--output-tokens", "--max-model-len", "--batch",
                 "--gpu-memory-utilization", "--max-num-seqs", "--max-num-batched-tokens", "--images-per-request"]:
        for v in ["0", "-1", "nan", "1e308", "0.5"]:
            add(f"estimate serve {flag} {v}", E_SERVE + ["--format", "json", flag, v], None, (flag.strip("-"),
                flag.strip("-").replace("-", "_")), ok_exits=(0, 2), check=finite)
    # 4. plan pins that contradict, and impossible constraints.
    pin = 'model = "{m}"\n[training]\ntask = "full"\ntokens = 1e8\n[training.parallel]\n{p}\n'
    for m, p in [("Llama-3.1-8B", "tp = 3\npp = 5"), ("Llama-3.1-8B", "tp = 8\npp = 3"), ("Mixtral-8x7B", "ep = 3"),
                 ("Mixtral-8x7B", "tp = 2\nep = 16"), ("Llama-3.1-8B", "cp = 3"), ("Qwen2.5-0.5B", "cp = 16"),
                 ("Qwen2.5-0.5B", "tp = 16"), ("Llama-3.1-8B", "pp = 64"), ("Llama-3.1-8B", "tp = 0"),
                 ("Llama-3.1-8B", "zero = 4")]:
        add(f"plan pins {m} {p.replace(chr(10), ' ')}", ["plan", "-w", "{dir}/w.toml", "--format", "json"], None,
            ("tp", "pp", "ep", "cp", "zero", "experts", "heads", "layers"), files={"w.toml": pin.format(m=m, p=p)},
            ok_exits=(0, 2, 4), check=finite)
    for flag, v in [("--max-nodes", "0"), ("--budget", "0"), ("--budget", "-5"), ("--budget", "nan"),
                    ("--deadline", "0"), ("--deadline", "-1h"), ("--max-nodes", "100000"), ("--budget", "1e308"),
                    ("--top", "0"), ("--gpus", "0"), ("--preemption-rate", "2"), ("--reuse-hours", "-1")]:
        for lang in ([], ["--lang", "zh"]):
            add(f"{' '.join(lang)} plan {flag} {v}", lang + TRAIN + ["--format", "json", flag, v], None,
                (flag.strip("-"), flag.strip("-").replace("-", "_")), ok_exits=(0, 2, 4), check=finite)
    # 5. very small models: one layer, hidden 64.
    tiny = dict(LLAMA, hidden_size=64, num_hidden_layers=1, num_attention_heads=1, num_key_value_heads=1,
                intermediate_size=128, vocab_size=256, max_position_embeddings=512)
    for name, cfg in [("1 layer hidden 64", tiny), ("1 layer hidden 64 2 heads", dict(tiny, num_attention_heads=2,
                      num_key_value_heads=2)), ("tiny moe 4x top-1", dict(tiny, model_type="mixtral",
                      num_local_experts=4, num_experts_per_tok=1))]:
        for args in (["estimate", "--task", "lora", "--gpu", "A100", "--tokens", "1e6"],
                     ["estimate", "--task", "pretrain", "--gpu", "A100", "--gpus-per-node", "8", "--tokens", "1e6"],
                     ["estimate", "--task", "inference", "--gpu", "T4"],
                     ["plan", "--task", "lora", "--tokens", "1e6", "--provider", "alibaba"],
                     ["plan", "--task", "inference", "--rate", "5", "--provider", "tencent"]):
            add(f"{name} {' '.join(args[:3])}", args + ["--model-config", "{dir}/config.json", "--format", "json"],
                None, None, files={"config.json": json.dumps(cfg)}, ok_exits=(0, 2, 4), check=finite)
    # 6. HF MoE configs with 0 or 1 experts and every top-k spelling (A1).
    for ek in ["num_local_experts", "num_experts", "n_routed_experts"]:
        for n, k, want in [(0, 2, 2), (1, 2, 2), (1, 1, 0), (0, None, 0), (1, None, 0)]:
            cfg = {x: v for x, v in LLAMA.items()}
            cfg[ek] = n
            if k is not None:
                cfg["num_experts_per_tok"] = k
            add(f"config {ek} = {n} top-k {k}", ["models", "show", "--config", "{dir}/config.json"], want,
                ("num_experts_per_tok",) if want == 2 else None, files={"config.json": json.dumps(cfg)},
                ok_exits=(0, 2))
    for key, v in [("moe_topk", 8), ("moe_top_k", 4), ("moe_k", 8), ("moe_num_experts", 64), ("num_experts_per_tok", 2),
                   ("moe_topk", [8])]:
        cfg = dict(LLAMA, **{key: v})
        add(f"config {key} = {v} without an expert count", ["models", "show", "--config", "{dir}/config.json"], 2,
            (key,), files={"config.json": json.dumps(cfg)})
    return c


def r23_plan_json():
    """A saved `plan --format json` document for the `export` cases (made by the binary under test)."""
    env = dict(os.environ, GPUPLAN_TODAY="2026-12-03")
    p = subprocess.run([BIN, "plan", "-m", "Qwen2.5-0.5B", "--task", "lora", "--tokens", "1e7", "--provider",
                        "alibaba", "--format", "json", "--no-user-catalog"], capture_output=True, env=env,
                       timeout=TIMEOUT)
    return p.stdout.decode()


def r23_with_plan():
    cases = r23()
    text = None
    for c in cases:
        for k, v in c.files.items():
            if v == "PLAN_JSON":
                text = text or r23_plan_json()
                c.files[k] = text
    return cases


def api_r23(bin_path):
    """Every route of `gpuplan serve` with bodies of the wrong JSON type (top level and each
    table), a 10 MB body, deep nesting, query values of the wrong type, and the `weights` forms
    the OpenAPI document must describe (a word and a table). Each answer: no 5xx, no
    NaN/inf/negative money; a 400 names a field; a zh 400 has no English sentence; the server
    lives on."""
    d = tempfile.mkdtemp(prefix="gpuplan-sweep-api23-")
    env = dict(os.environ, GPUPLAN_CONFIG_DIR=d)
    p = subprocess.Popen([bin_path, "serve", "--bind", "127.0.0.1:0", "--no-user-catalog"], env=env,
                         stderr=subprocess.PIPE, stdout=subprocess.DEVNULL)
    m = re.search(r"http://([0-9.:]+)", p.stderr.readline().decode())
    if not m:
        p.kill()
        return [("api23", "start", ["no address"])], 0
    base = f"http://{m.group(1)}/api/v1"
    reqs = []  # (method, path, body bytes or None, expected status or None, field or None)
    train = {"model": "Qwen2.5-0.5B", "training": {"task": "lora", "tokens": 1e7}}
    est = {"model": "Qwen2.5-0.5B", "kind": "training", "hardware": {"gpu": "A100"}, "training": {"task": "lora"}}
    for ep, good in [("plan", train), ("estimate", est)]:
        for table in ["training", "constraints", "serve", "hardware", "inference", "tunables", "config", "model",
                      "kind"]:
            for junk in [5, "x", [], True, None, {"zz": 1}]:
                body = dict(good)
                body[table] = junk
                reqs.append(("POST", ep, json.dumps(body).encode(), None, None))
        for top in [b"[]", b"5", b'"plan"', b"true", b"null", b"{}"]:
            reqs.append(("POST", ep, top, 400, None))
        reqs.append(("POST", ep, json.dumps(dict(good, pad="x" * (10 << 20))).encode(), None, None))
        reqs.append(("POST", ep, b"[" * (10 << 20), None, None))
        reqs.append(("POST", ep, b'{"model":"Qwen2.5-0.5B","config":' + b'{"a":' * 50000 + b"1" + b"}" * 50001,
                     None, None))
        reqs.append(("POST", ep, b'{"model":"Qwen2.5-0.5B","training":' + b"[" * 50000 + b"]" * 50000 + b"}",
                     413, None))
        reqs.append(("POST", ep, b'{"model":"Qwen2.5-0.5B","training":' + b"[" * 20000 + b"]" * 20000 + b"}",
                     400, None))
    # The weight forms the OpenAPI document describes (A2): a word and a table, both answered.
    for w in ["awq", " Int8 ", {"format": "int4", "group": 64}, {"format": "fp8"}]:
        reqs.append(("POST", "estimate", json.dumps({"model": "Qwen2.5-7B", "kind": "inference",
                     "hardware": {"gpu": "A100"}, "inference": {"weights": w}}).encode(), 200, None))
    for ws in [["awq", {"format": "fp8"}], [" FP8 "]]:
        reqs.append(("POST", "plan", json.dumps({"model": "Qwen2.5-7B", "serve": {"rate_rps": 1, "weights": ws},
                     "constraints": {"providers": ["alibaba"]}}).encode(), 200, None))
    # GET routes: wrong query types, odd names, a body sent to a GET.
    for path in ["healthz", "models", "models/Qwen2.5-7B", "models/..%2F..%2Fetc%2Fpasswd", "models/%00",
                 "catalog/gpus", "catalog/gpus?format=x", "catalog/instances?gpu=%00", "catalog/instances?max_price=nan",
                 "catalog/instances?max_price=-1", "catalog/instances?vgpu=maybe", "prices?gpu=" + "x" * 5000,
                 "prices?provider=zz", "prices?billing=nan", "messages/xx", "messages/zh", "messages/" + "z" * 3000,
                 "openapi.json", "openapi.json?lang=zh", "plan", "nope"]:
        reqs.append(("GET", path, None, None, None))
    reqs.append(("GET", "models", b"{}", None, None))
    reqs.append(("POST", "models", b"{}", None, None))
    for q in ["top=x", "top=0", "top=-1", "top=1e9", "deadline=nan", "budget=-1", "optimize=fast", "explain=2"]:
        reqs.append(("POST", f"plan?{q}", json.dumps(train).encode(), None, None))
    fails, n = [], 0
    for lang in ["", "zh"]:
        for method, path, body, want, field in reqs:
            n += 1
            sep = "&" if "?" in path else "?"
            url = f"{base}/{path}" + (f"{sep}lang={lang}" if lang else "")
            req = urllib.request.Request(url, data=body, method=method,
                                         headers={"Content-Type": "application/json"} if body is not None else {})
            try:
                with urllib.request.urlopen(req, timeout=TIMEOUT) as resp:
                    status, text = resp.status, resp.read().decode("utf-8", "replace")
            except urllib.error.HTTPError as e:
                status, text = e.code, e.read().decode("utf-8", "replace")
            except Exception as e:
                status, text = -1, f"{type(e).__name__}: {e}"
            probs = []
            if status == -1 or status >= 500:
                probs.append(f"status {status}: {text[:300]}")
            elif want is not None and status != want:
                probs.append(f"status {status}, expected {want}: {text[:300]}")
            bad = shows_non_number(text) if "openapi" not in path else None
            if bad:
                probs.append(f"shows {bad}: {text[:200]}")
            if "root:" in text:
                probs.append("leaks a local file")
            if status == 400:
                err = json.loads(text).get("error", {})
                if field is not None and err.get("field") != field:
                    probs.append(f"field {err.get('field')}, expected {field}")
                if lang == "zh" and english_sentences(err.get("message", "")):
                    probs.append(f"zh: English left: {english_sentences(err['message'])[0]}")
            elif status == 200 and text.lstrip().startswith("{") and "openapi" not in path:
                probs += json_numbers_ok({"out": text})
            if p.poll() is not None:
                probs.append("server died")
                p = subprocess.Popen([bin_path, "serve", "--bind", m.group(1), "--no-user-catalog"], env=env,
                                     stderr=subprocess.PIPE, stdout=subprocess.DEVNULL)
                p.stderr.readline()
            if probs:
                fails.append(("api23", f"{method} {path[:60]}{' zh' if lang else ''} {(body or b'')[:80]!r}", probs))
    p.kill()
    shutil.rmtree(d, ignore_errors=True)
    return fails, n


def r23_concurrent_exports(bin_path):
    """Two `plan --export` runs into one folder at once (each launcher family): the folder ends
    with one whole bundle, and a run that lost says so (exit 2), never both "exported" with a
    mixed folder."""
    fails, n = [], 0
    for args in (["plan", "-m", "Qwen2.5-0.5B", "--task", "lora", "--tokens", "1e7", "--provider", "alibaba"],
                 ["plan", "-m", "Qwen2.5-0.5B", "--task", "inference", "--rate", "2", "--provider", "tencent"]):
        for _ in range(3):
            n += 1
            d = tempfile.mkdtemp(prefix="gpuplan-sweep-r23c-")
            env = dict(os.environ, GPUPLAN_CONFIG_DIR=os.path.join(d, "cfg"), GPUPLAN_TODAY="2026-12-03")
            out = os.path.join(d, "same folder")
            ps = [subprocess.Popen([bin_path] + args + ["--export", out], env=env, stdout=subprocess.DEVNULL,
                                   stderr=subprocess.PIPE, cwd=d) for _ in range(2)]
            codes, errs = [], []
            for q in ps:
                _, e = q.communicate(timeout=TIMEOUT)
                codes.append(q.returncode)
                errs.append(e.decode("utf-8", "replace"))
            probs = []
            if any(c not in (0, 2) for c in codes) or any("panicked" in e for e in errs):
                probs.append(f"exits {codes}: {errs}")
            if 0 not in codes:
                probs.append(f"neither run exported: {codes} {errs}")
            left = [f for f in os.listdir(out) if ".tmp-" in f] if os.path.isdir(out) else ["no folder"]
            if left:
                probs.append(f"leftovers {left}")
            if probs:
                fails.append(("r23c", " ".join(args[:6]), probs))
            shutil.rmtree(d, ignore_errors=True)
    return fails, n


# ---------------------------------------------------------------------------------------------


FAMILIES = {"flags": flags, "combos": combos, "hfconfig": hfconfigs, "files": lambda: workload_files() + catalog_and_prices(),
            "export": export_cases, "sanity": sanity, "esanity": esanity, "misc": misc, "recent": recent, "r5": r5,
            "r12": r12, "r13": r13, "r14": r14, "r15": r15, "r16": r16, "r17": r17, "r18": r18, "r19": r19, "r20": r20, "r21": r21, "r22": r22,
            "r23": r23_with_plan}


def main():
    global BIN
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default=BIN)
    ap.add_argument("--only", action="append")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("-v", action="store_true", help="print every case's exit code")
    a = ap.parse_args()
    BIN = a.bin = os.path.abspath(a.bin)  # each run's cwd is its own scratch directory
    names = a.only or list(FAMILIES) + ["api", "api5", "api16", "api22", "api23", "r23c"]
    total_fail = 0
    for fam in names:
        if fam == "api":
            fails, n = api_sweep(a.bin)
        elif fam == "api5":
            fails, n = api_r5(a.bin)
        elif fam == "api16":
            fails, n = api_r16(a.bin)
        elif fam == "api22":
            fails, n = api_r22(a.bin)
        elif fam == "api23":
            fails, n = api_r23(a.bin)
        elif fam == "r23c":
            fails, n = r23_concurrent_exports(a.bin)
        else:
            cases = FAMILIES[fam]()
            n = len(cases)
            with ThreadPoolExecutor(a.jobs) as ex:
                results = list(ex.map(lambda c: (c, run_case(c, a.bin)), cases))
            fails = []
            for c, (probs, res) in results:
                if a.v:
                    print(f"  [{res['code'] if res else 'hang'}] {c.name}")
                if probs:
                    fails.append((fam, c.name, probs))
        for fam_, name, probs in fails:
            print(f"FAIL [{fam_}] {name}")
            for pr in probs:
                print(f"    {pr}")
        print(f"== {fam}: {n} inputs, {len(fails)} failing")
        total_fail += len(fails)
    sys.exit(1 if total_fail else 0)


if __name__ == "__main__":
    main()
