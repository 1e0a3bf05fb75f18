#!/usr/bin/env python3
"""Generate the systematic families of the hostile-input corpus (crates/gpuplan/tests/hostile/gen-*.toml).

Every numeric flag of `plan` and `estimate`, every numeric workload-file key and every integer
config.json key, each with every bad value: NaN, infinity, -1, 0 (where 0 is invalid), 1e400,
u64::MAX and a word. Each case expects exit 2 and a message naming the field.

    python3 tools/gen_hostile.py        # rewrites the gen-*.toml files; commit them
"""

import json
import os

OUT = os.path.join(os.path.dirname(__file__), "..", "crates", "gpuplan", "tests", "hostile")
U64_MAX = "18446744073709551615"
BAD = ["nan", "inf", "-1", "0", "1e400", U64_MAX, "abc"]

# Values clap accepts for each flag type (the others are refused by clap, naming the flag).
CLAP_OK = {
    "u64": {"0", U64_MAX},
    "u8": {"0"},
    "usize": {"0", U64_MAX},
    "f64": {"nan", "inf", "-1", "0", "1e400", U64_MAX},
    "str": set(BAD),
}

TRAIN = ["plan", "-m", "Qwen2.5-7B", "--task", "lora", "--provider", "alibaba"]
SERVE = ["plan", "-m", "Qwen2.5-7B", "--task", "inference", "--provider", "alibaba"]
E_TRAIN = ["estimate", "-m", "Qwen2.5-7B", "--task", "lora", "--gpu", "A100"]
E_SERVE = ["estimate", "-m", "Qwen2.5-7B", "--task", "inference", "--gpu", "A100"]

# (flag, clap type, field named by gpuplan's own error, 0 allowed, base arguments)
PLAN_FLAGS = [
    ("seq-len", "u64", "seq_len", False, TRAIN),
    ("tokens", "f64", "tokens", False, TRAIN),
    ("samples", "f64", "samples", False, TRAIN),
    ("epochs", "f64", "epochs", False, TRAIN),
    ("lora-rank", "u64", "lora.rank", False, TRAIN),
    ("bytes-per-sample", "f64", "bytes_per_sample", False, TRAIN),
    ("global-batch", "u64", "global_batch", False, TRAIN),
    ("budget", "f64", "budget", False, TRAIN),
    ("max-nodes", "u64", "max_nodes", False, TRAIN),
    ("preemption-rate", "f64", "preemption_rate", True, TRAIN),
    ("reuse-hours", "f64", "reuse_hours", True, TRAIN),
    ("top", "usize", "--top", False, TRAIN),
    ("deadline", "str", "deadline", False, TRAIN),
    ("rate", "f64", "rate", False, SERVE),
    ("concurrency", "u64", "concurrency", False, SERVE),
    ("ttft", "f64", "ttft", False, SERVE),
    ("tpot", "f64", "tpot", False, SERVE),
    ("input-tokens", "u64", "input_tokens", False, SERVE),
    ("output-tokens", "u64", "output_tokens", False, SERVE),
    # Flags added since issue 7 (tools/hostile_sweep.py, 2026-12-05).
    ("attention-span", "u64", "attention_span", False, TRAIN),
    ("lora-dropout", "f64", "lora.dropout", True, TRAIN),
    ("dataset-size", "str", "--dataset-size", False, TRAIN),
    ("min-replicas", "u64", "min_replicas", False, SERVE),
    ("peak-factor", "f64", "peak_factor", False, SERVE),
]

ESTIMATE_FLAGS = [
    ("seq-len", "u64", "seq_len", False, E_TRAIN),
    ("tokens", "f64", "tokens", False, E_TRAIN),
    ("samples", "f64", "samples", False, E_TRAIN),
    ("epochs", "f64", "epochs", False, E_TRAIN),
    ("lora-rank", "u64", "lora.rank", False, E_TRAIN),
    ("gpus-per-node", "u64", "gpus_per_node", False, E_TRAIN),
    ("nodes", "u64", "nodes", False, E_TRAIN),
    ("inter-gbit", "f64", "inter_gbit", False, E_TRAIN),
    ("host-vcpus", "u64", "host_vcpus", False, E_TRAIN),
    ("micro-batch", "u64", "micro_batch", False, E_TRAIN),
    ("grad-accum", "u64", "grad_accum", False, E_TRAIN),
    ("zero", "u8", "zero", True, E_TRAIN),
    ("tp", "u64", "tp", False, E_TRAIN),
    ("pp", "u64", "pp", False, E_TRAIN),
    ("ep", "u64", "ep", False, E_TRAIN),
    ("max-model-len", "u64", "max_model_len", False, E_SERVE),
    ("gpu-memory-utilization", "f64", "gpu_memory_utilization", False, E_SERVE),
    ("batch", "u64", "batch", False, E_SERVE),
    ("input-tokens", "u64", "input_tokens", False, E_SERVE),
    ("output-tokens", "u64", "output_tokens", False, E_SERVE),
    ("weights", "str", "weights", False, E_SERVE),
    # Flags added since issue 7 (tools/hostile_sweep.py, 2026-12-05).
    ("cp", "u64", "parallel.cp", False, E_TRAIN),
    ("virtual-stages", "u64", "parallel.virtual_stages", False, E_TRAIN),
    ("last-stage-layers", "u64", "parallel.last_stage_layers", False, E_TRAIN),
    ("attention-span", "u64", "attention_span", False, E_TRAIN),
    ("global-batch", "u64", "global_batch", False, E_TRAIN),
    ("mem-fraction-static", "f64", "mem_fraction_static", False, E_SERVE),
    ("free-gpu-memory-fraction", "f64", "free_gpu_memory_fraction", False, E_SERVE),
    ("max-num-batched-tokens", "u64", "max_num_batched_tokens", False, E_SERVE),
    ("max-num-seqs", "u64", "max_num_seqs", False, E_SERVE),
    ("images-per-request", "u64", "images_per_request", True, E_SERVE),
    ("image-size", "str", "--image-size", False, E_SERVE),
]

# Tunables: (name, 0 allowed)
TUNABLES = [
    ("cuda_context_gib", True), ("nccl_buffers_gib", True), ("fragmentation", True),
    ("train_efficiency_ampere", False), ("train_efficiency_hopper", False),
    ("train_efficiency_other", False), ("fp8_train_gemm_ratio", False),
    ("prefill_efficiency", False), ("decode_bandwidth_efficiency", False),
    ("collective_efficiency", False), ("dp_overlap", True), ("tp_allreduce_latency_s", True), ("layer_overhead_s", True),
    ("vllm_non_torch_gib", True), ("vllm_cudagraph_gib", True),
    ("hf_logits_bytes_per_element", True), ("startup_hours", True),
    ("spot_price_fraction", False), ("image_decode_per_core", False),
    ("failure_rate_per_gpu_hour", True), ("failure_restart_minutes", True),
]


def flag_cases(command, flags):
    cases = []
    for flag, typ, field, zero_ok, base in flags:
        for v in BAD:
            if v == "0" and zero_ok:
                continue
            by_clap = v not in CLAP_OK[typ]
            cases.append({
                "name": f"{command} --{flag} {v}",
                "args": base + [f"--{flag}={v}"],
                "exit": 2,
                "stderr": f"--{flag}" if by_clap else field,
            })
    return cases


def set_cases():
    cases = []
    for name, zero_ok in TUNABLES:
        for v in BAD:
            if v == "0" and zero_ok:
                continue
            cases.append({
                "name": f"plan --set {name}={v}",
                "args": TRAIN + ["--set", f"{name}={v}"],
                "exit": 2,
                "stderr": name,
            })
    return cases


def toml_value(v):
    return '"abc"' if v == "abc" else v


# (section or "" for top level, key, fragment, 0 allowed, header lines, command)
def workload_keys():
    plan_train = ["plan", "-w", "{dir}/w.toml", "--provider", "alibaba"]
    est = ["estimate", "-w", "{dir}/w.toml"]
    keys = []
    for k in ["micro_batch", "seq_len", "grad_accum", "tokens", "samples", "epochs", "bytes_per_sample"]:
        keys.append(("training", k, k, False, plan_train))
    for k, z in [("tp", False), ("pp", False), ("ep", False), ("zero", True)]:
        keys.append(("training.parallel", k, k, z, plan_train))
    keys.append(("training.lora", "rank", "rank", False, plan_train))
    for k, frag, z in [("max_nodes", "max_nodes", False), ("deadline_hours", "deadline", False),
                       ("budget_cny", "budget", False), ("preemption_rate", "preemption_rate", True),
                       ("restart_minutes", "restart_minutes", True),
                       ("reuse_hours_per_month", "reuse_hours", True)]:
        keys.append(("constraints", k, frag, z, plan_train))
    keys.append(("", "global_batch", "global_batch", False, plan_train))
    for k in ["input_tokens", "output_tokens", "rate_rps", "concurrency", "ttft_s", "tpot_s",
              "gpu_memory_utilization"]:
        keys.append(("serve", k, k, False, ["plan", "-w", "{dir}/w.toml", "--provider", "alibaba"]))
    for name, z in TUNABLES:
        keys.append(("tunables", name, name, z, plan_train))
    for k in ["tp", "max_model_len", "max_num_batched_tokens", "block_size", "batch",
              "input_tokens", "output_tokens", "gpu_memory_utilization"]:
        keys.append(("inference", k, k, False, est))
    for k in ["gpus_per_node", "nodes", "inter_gbit", "intra_gbs", "host_vcpus"]:
        keys.append(("hardware", k, k, False, est))
    return keys


def workload_file(section, key, value):
    """A minimal valid workload with `key = value` in `[section]` (top level when empty)."""
    top = ['model = "Qwen2.5-7B"']
    tables = {}
    if section in ("inference", "hardware"):
        top.append(f'kind = "{"inference" if section == "inference" else "training"}"')
        tables["hardware"] = ['gpu = "A100"']
    elif section != "serve":
        tables["training"] = ['task = "lora"']
    if section:
        tables.setdefault(section, []).append(f"{key} = {value}")
    else:
        top.append(f"{key} = {value}")
    lines = top
    for name, body in tables.items():
        lines += [f"[{name}]"] + body
    return "\n".join(lines) + "\n"


def workload_cases():
    cases = []
    for section, key, frag, zero_ok, args in workload_keys():
        for v in BAD:
            if v == "0" and zero_ok:
                continue
            where = f"[{section}] " if section else ""
            cases.append({
                "name": f"{args[0]} {where}{key} = {v}",
                "args": args,
                "exit": 2,
                "stderr": frag,
                "files": {"w.toml": workload_file(section, key, toml_value(v))},
            })
    return cases


LLAMA = {
    "model_type": "llama", "hidden_size": 4096, "num_hidden_layers": 32,
    "num_attention_heads": 32, "num_key_value_heads": 8, "vocab_size": 128256,
    "intermediate_size": 14336, "max_position_embeddings": 8192, "head_dim": 128,
    "tie_word_embeddings": False,
}
GPT2 = {"model_type": "gpt2", "n_embd": 768, "n_layer": 12, "n_head": 12, "vocab_size": 50257,
        "n_positions": 1024, "n_inner": 3072}
MIXTRAL = dict(LLAMA, model_type="mixtral", num_local_experts=8, num_experts_per_tok=2)
HF_BAD = ["8", 0, -1, 1.5, 1e300, int(U64_MAX), True, [1]]


def hf_cases():
    cases = []
    families = [
        ("llama", LLAMA, [k for k in LLAMA if k not in ("model_type", "tie_word_embeddings")]),
        ("gpt2", GPT2, [k for k in GPT2 if k != "model_type"]),
        ("mixtral", MIXTRAL, ["num_local_experts", "num_experts_per_tok"]),
    ]
    for fam, base, keys in families:
        for key in keys:
            for v in HF_BAD:
                if v == 0 and key == "num_local_experts":
                    continue  # 0 experts: a dense model
                cfg = dict(base)
                cfg[key] = v
                cases.append({
                    "name": f"{fam} {key} = {json.dumps(v)}",
                    "args": ["models", "show", "--config", "{dir}/config.json"],
                    "exit": 2,
                    "stderr": f"invalid `{key}`",
                    "files": {"config.json": json.dumps(cfg)},
                })
        for key, v in [("tie_word_embeddings", "8"), ("tie_word_embeddings", 1), ("model_type", 7)]:
            cfg = dict(base)
            cfg[key] = v
            cases.append({
                "name": f"{fam} {key} = {json.dumps(v)}",
                "args": ["models", "show", "--config", "{dir}/config.json"],
                "exit": 2,
                "stderr": f"invalid `{key}`",
                "files": {"config.json": json.dumps(cfg)},
            })
    return cases


def toml_str(s):
    return json.dumps(s, ensure_ascii=False)


def write(name, header, cases):
    out = [f"# Generated by tools/gen_hostile.py: {header}. Do not edit; regenerate.", ""]
    for c in cases:
        out.append("[[case]]")
        out.append(f"name = {toml_str(c['name'])}")
        out.append("args = [" + ", ".join(toml_str(a) for a in c["args"]) + "]")
        out.append(f"exit = {c['exit']}")
        out.append(f"stderr = {toml_str(c['stderr'])}")
        if c.get("files"):
            files = ", ".join(f"{toml_str(k)} = {toml_str(v)}" for k, v in c["files"].items())
            out.append(f"files = {{ {files} }}")
        out.append("")
    with open(os.path.join(OUT, name), "w", encoding="utf-8") as f:
        f.write("\n".join(out))
    return len(cases)


def main():
    n = 0
    n += write("gen-plan-flags.toml", "every numeric flag of `plan` × bad values",
               flag_cases("plan", PLAN_FLAGS) + set_cases())
    n += write("gen-estimate-flags.toml", "every numeric flag of `estimate` × bad values",
               flag_cases("estimate", ESTIMATE_FLAGS))
    n += write("gen-workload-keys.toml", "every numeric workload-file key × bad values",
               workload_cases())
    n += write("gen-hfconfig-keys.toml", "integer/bool/string config.json keys × bad values",
               hf_cases())
    print(f"{n} cases")


if __name__ == "__main__":
    main()
