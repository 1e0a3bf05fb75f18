#!/usr/bin/env python3
"""The host time DeepSpeed ZeRO-3 adds to an eager micro-batch, per decoder layer, measured on CPU
with DeepSpeed's real engine (issue 10; cases t-qwen1-7b-full-s*-2xa100: Qwen (v1)'s finetune_ds.sh,
the HF Trainer over DeepSpeed's engine, ds_config_zero3.json, reentrant gradient checkpointing).

What ZeRO-3 adds around every submodule (deepspeed/runtime/zero/parameter_offload.py
`_register_hooks_recursively`, partitioned_param_coordinator.py `fetch_sub_module` /
`release_sub_module`): forward pre/post hooks that all-gather the submodule's partitioned
parameters and release them, run again by the reentrant checkpoint's replay; the autograd functions
(PreBackwardFunction / PostBackwardFunction) whose backward fetches and releases them once more; and
per parameter the gradient hook that copies the gradient into the reduce bucket and reduce-scatters
it (stage3.py `reduce_partition_and_remove_grads`). All of it is Python on the host.

Method: the same micro-batch (forward with the loss, reentrant recompute, backward, and the engine's
step() the Trainer calls after every backward, never an accumulation boundary here) is run on
Qwen's remote code at tiny widths (the count does not depend on them; the ratios of every linear
to the buckets are the 7B's) with and without DeepSpeed's engine, at 1 and 3 layers. The collectives
are replaced by no-ops that return a finished handle (their own time is the transfer, modelled
elsewhere; their calls are counted). For each run: the top-level aten ops and those that launch a
kernel on CUDA (tools/measure_dispatch.py's rules), and the CPU time outside the ops
(tools/measure_host_costs.py's method: the micro-batch's process time less the ops' own time under
the profiler). ZeRO-3's share per layer = (DeepSpeed - plain) at 3 layers less at 1 layer, over 2.

Version: DeepSpeed 0.11.1, the last release before the row's commit (QwenLM/Qwen e6f2a7a,
2023-10-11; 0.11.1's sdist files are dated 2023-10-09); Qwen's remote code @c9bdb95 (2023-10-11,
the Qwen-7B hub repository's, mirrored at github.com/zhangningboo/Qwen-7B); torch 2.1.2 as the
other host measurements (the README says PyTorch 2.0; the hooks are DeepSpeed's Python).

CPU stand-ins, stated: DS_ACCELERATOR=cpu needs intel_extension_for_pytorch and oneCCL's bindings,
which are not on PyPI for this torch; both are stubbed as empty modules and the communication
backend set to gloo (the accelerator only names devices and streams; is_synchronized_device() is
True on CPU, so CUDA's per-fetch Event()/record()/wait_stream() calls are not made here: not
counted, a lower bound).

    python3 -m venv tools/.venv && tools/.venv/bin/pip install torch==2.1.2 transformers==4.35.2 \
        peft==0.6.2 accelerate==0.25.0 einops "numpy<2" psutil py-cpuinfo hjson ninja pydantic==1.10.13 \
        wheel setuptools
    DS_BUILD_OPS=0 tools/.venv/bin/pip install --no-build-isolation deepspeed==0.11.1
    git -C Qwen-7B show c9bdb95:modeling_qwen.py > DIR/modeling_qwen.py   # and the other two
    for i in 1 2 3 4; do tools/.venv/bin/torchrun --nproc_per_node 2 tools/measure_zero3_hooks.py DIR ws2-$i.json
        tools/.venv/bin/torchrun --nproc_per_node 2 tools/measure_zero3_hooks.py DIR ws2-nr$i.json --no-recompute; done
    python3 tools/measure_zero3_hooks.py --assemble validation/zero3-hooks-measured.json ws2-*.json
(--no-recompute: the same without gradient checkpointing, stacks `*_no_recompute`. --assemble: per
stack, the op and call counts must agree between runs; each seconds figure is the (low)
median over the runs, with their range beside it; `rows` are the first run's. About 80 s a run on
a 2-core VM; `--nproc_per_node 4` is the check that the counts barely move with the world size:
validation/zero3-hooks-measured-ws4.json. One rank (plain `python`) takes DeepSpeed's no-gather
path, another code path: not what the model charges.)

Checked by crates/gpuplan-core/tests/host_dispatch.rs (the Rust ZeRO-3 table equals these figures).
"""
import importlib.machinery
import json
import os
import statistics
import sys
import types


def assemble(out_path, paths):
    """One file from several runs: counts checked equal, seconds the median with their range."""
    runs = [json.load(open(p)) for p in paths]
    out = dict(runs[0])
    out["stacks"] = {}
    for name in sorted({n for r in runs for n in r["stacks"]}):
        have = [r for r in runs if name in r["stacks"]]
        row = out["stacks"][name] = dict(have[0]["stacks"][name])
        row["runs"] = len(have)
        for part in ("zero3_per_layer", "zero3_fixed"):
            row[part] = dict(row[part])
            for k in ("top_ops", "launch_ops", "autograd_nodes", "collective_calls"):
                vals = {r["stacks"][name][part][k] for r in have}
                assert len(vals) == 1, f"{name} {part} {k} differs between runs: {vals}"
            for k in ("outside_s", "loop_s"):
                vals = [r["stacks"][name][part][k] for r in have]
                row[part][k] = statistics.median_low(vals)
                row[part][k + "_range"] = [min(vals), max(vals)]
        row["rows_of_run"] = 1  # `rows`: the first run's raw rows (its op names)
    with open(out_path, "w") as f:
        json.dump(out, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__" and sys.argv[1:2] == ["--assemble"]:
    assemble(sys.argv[2], sys.argv[3:])
    sys.exit(0)

for stub in ("intel_extension_for_pytorch", "oneccl_bindings_for_pytorch"):
    mod = types.ModuleType(stub)
    mod.__spec__ = importlib.machinery.ModuleSpec(stub, None)
    sys.modules.setdefault(stub, mod)
os.environ.setdefault("DS_ACCELERATOR", "cpu")
os.environ.setdefault("LOCAL_SIZE", os.environ.get("LOCAL_WORLD_SIZE", "1"))
for k, v in (("RANK", "0"), ("LOCAL_RANK", "0"), ("WORLD_SIZE", "1"), ("MASTER_ADDR", "127.0.0.1"),
             ("MASTER_PORT", "29611")):
    os.environ.setdefault(k, v)

import torch  # noqa: E402
import transformers  # noqa: E402
from torch.profiler import ProfilerActivity, profile, record_function  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import measure_dispatch as md  # noqa: E402
import measure_host_costs as mhc  # noqa: E402
from measure_qwen1 import load_qwen  # noqa: E402

import deepspeed  # noqa: E402
from deepspeed.accelerator import get_accelerator  # noqa: E402



class CpuStream:
    """CPU_Accelerator (0.11.1) has no stream objects (current_stream() is None) though the
    one-rank path calls current_stream().synchronize(): a stand-in that does nothing."""

    def synchronize(self):
        return None

    def wait_stream(self, other):
        return None


STREAM = CpuStream()
get_accelerator()._communication_backend_name = "gloo"
get_accelerator().current_stream = lambda device_index=None: STREAM
get_accelerator().default_stream = lambda device_index=None: STREAM
torch.set_num_threads(1)

HIDDEN = 64
# Qwen-7B's ratios: intermediate_size 22016 at hidden 4096 (w1, w2: 11008 = 2.6875 x hidden).
TINY = dict(md.QWEN_TINY, intermediate_size=HIDDEN * 22016 // 4096)
LLAMA_FFN = HIDDEN * 11008 // 4096
SEQ = md.SEQ
# ds_config_zero3.json @e6f2a7a with the HF integration's "auto" fills (transformers 4.35
# integrations/deepspeed.py: reduce_bucket_size hidden^2, stage3_prefetch_bucket_size
# 0.9 hidden^2, stage3_param_persistence_threshold 10 hidden).
DS_CONFIG = {
    "bf16": {"enabled": True},
    "zero_optimization": {
        "stage": 3, "offload_optimizer": {"device": "none"}, "offload_param": {"device": "none"},
        "overlap_comm": True, "contiguous_gradients": True, "sub_group_size": 1e9,
        "reduce_bucket_size": HIDDEN * HIDDEN, "stage3_prefetch_bucket_size": int(0.9 * HIDDEN * HIDDEN),
        "stage3_param_persistence_threshold": 10 * HIDDEN, "stage3_max_live_parameters": 1e9,
        "stage3_max_reuse_distance": 1e9, "stage3_gather_16bit_weights_on_model_save": True},
    "gradient_accumulation_steps": 10**6,  # never a boundary: the optimizer step is not measured
    "gradient_clipping": 1.0,
    "train_micro_batch_size_per_gpu": 1,
    "steps_per_print": 10**9,
    "wall_clock_breakdown": False,
}
COLLECTIVES = ("all_reduce", "all_reduce_coalesced", "reduce_scatter", "broadcast", "all_gather",
               "all_gather_into_tensor", "reduce_scatter_tensor", "all_to_all_single")
CALLS = {}


class Done:
    """A finished collective's handle."""

    def wait(self):
        return None

    def is_completed(self):
        return True


def no_op(name):
    def call(self, *args, **kwargs):
        CALLS[name] = CALLS.get(name, 0) + 1
        return Done()
    return call


ORIGINALS = {}


def stub_collectives(keep=()):
    """Replace the backend's collectives by no-ops, all but `keep`. Gloo has no all_gather_into_tensor
    nor reduce_scatter, so those are no-ops throughout (the values are not looked at); start-up
    (weight broadcast) and the warm-up keep broadcast and all_reduce real: the trace check
    broadcasts rank 0's module order, and two ranks must agree."""
    from deepspeed.comm.torch import TorchBackend
    for name in COLLECTIVES:
        if hasattr(TorchBackend, name):
            ORIGINALS.setdefault(name, getattr(TorchBackend, name))
            setattr(TorchBackend, name, ORIGINALS[name] if name in keep else no_op(name))


RECOMPUTE = "--no-recompute" not in sys.argv


def build_llama(layers):
    """transformers 4.35.2's LlamaForCausalLM at the same widths (Llama 2 7B's ratio 11008/4096),
    gradient_checkpointing_enable(): reentrant, torch's default."""
    cfg = transformers.LlamaConfig(num_hidden_layers=layers, **dict(md.LLAMA_TINY, intermediate_size=LLAMA_FFN))
    torch.manual_seed(0)
    model = transformers.LlamaForCausalLM(cfg).to(torch.bfloat16)
    model.train()
    if RECOMPUTE:
        model.gradient_checkpointing_enable()
    return model


def build(classes, layers):
    if classes is None:
        return build_llama(layers)
    cfg = classes[0](num_hidden_layers=layers, **TINY)
    torch.manual_seed(0)
    model = classes[1](cfg)  # config.bf16: bf16 weights
    model.train()
    model.transformer.gradient_checkpointing = RECOMPUTE  # reentrant, as measure_dispatch.py
    return model


class Plain:
    """The same micro-batch without DeepSpeed (bf16 weights, no autocast: the Trainer does not
    autocast under DeepSpeed's bf16)."""

    def __init__(self, model):
        self.model = model

    def __call__(self, ids):
        loss = self.model(input_ids=ids, labels=ids).loss
        loss.backward()


class Engine:
    """What the HF Trainer does per micro-batch under DeepSpeed (accelerate's
    DeepSpeedEngineWrapper.backward: engine.backward(loss) then engine.step())."""

    def __init__(self, model):
        opt = torch.optim.AdamW(model.parameters(), lr=1e-5)
        self.engine, *_ = deepspeed.initialize(model=model, optimizer=opt, config=DS_CONFIG)

    def __call__(self, ids):
        loss = self.engine(input_ids=ids, labels=ids).loss
        self.engine.backward(loss)
        self.engine.step()


def measure(run, costs, runs=5, reps=5):
    """(top ops, launching ops, outside seconds, collective calls) of one micro-batch."""
    ids = torch.randint(0, 256, (1, SEQ), generator=torch.Generator().manual_seed(1))
    stub_collectives(keep=("broadcast", "all_reduce"))
    for _ in range(3):  # warm-up: ZeRO-3 records its module trace, then prefetches from it
        run(ids)
    stub_collectives()
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        with record_function("micro_batch"):
            run(ids)
    c = md.top_level(prof.profiler.kineto_results.experimental_event_tree())["micro_batch"]
    CALLS.clear()
    run(ids)
    calls = dict(CALLS)
    loop = mhc.best(lambda: run(ids), n=reps)
    durs = None
    for _ in range(runs):
        with profile(activities=[ProfilerActivity.CPU]) as prof:
            run(ids)
        d = mhc.top_durations(prof)
        durs = d if durs is None else [(min(a[0], b[0]), a[1], a[2]) for a, b in zip(durs, d)]
    ops_own = sum(d for d, _, _ in durs) - costs["profiler_event_s"] * sum(n for _, n, _ in durs)
    py_ops = sum(1 for _, _, py in durs if py)
    outside = loop - ops_own - py_ops * costs["binding_s"]
    return {"top_ops": c["top_ops"], "launch_ops": c["launch_ops"], "autograd_nodes": c["autograd_nodes"],
            "outside_s": outside, "loop_s": loop, "collective_calls": sum(calls.values()),
            "collectives": calls, "ops": c["ops"]}


def module_calls(model, ids):
    n = [0]
    h = torch.nn.modules.module.register_module_forward_pre_hook(lambda *a: n.__setitem__(0, n[0] + 1))
    try:
        loss = model(input_ids=ids, labels=ids).loss
        loss.backward()
    finally:
        h.remove()
    return n[0]


KEYS = ("top_ops", "launch_ops", "autograd_nodes", "outside_s", "loop_s", "collective_calls")


def per_layer(one, three):
    lay = {k: (three[k] - one[k]) / 2 for k in KEYS}
    return {"per_layer": lay, "fixed": {k: one[k] - lay[k] for k in KEYS}}


def stack_row(classes):
    rows = {}
    for name, wrap in (("plain", Plain), ("zero3", Engine)):
        one = measure(wrap(build(classes, 1)), costs_of())
        three = measure(wrap(build(classes, 3)), costs_of())
        rows[name] = dict(per_layer(one, three), one_layer=one, three_layers=three)
    ids = torch.randint(0, 256, (1, SEQ), generator=torch.Generator().manual_seed(1))
    calls = module_calls(build(classes, 2), ids) - module_calls(build(classes, 1), ids)
    return {"module_calls_per_layer": calls,
            "zero3_per_layer": {k: rows["zero3"]["per_layer"][k] - rows["plain"]["per_layer"][k] for k in KEYS},
            "zero3_fixed": {k: rows["zero3"]["fixed"][k] - rows["plain"]["fixed"][k] for k in KEYS},
            "rows": rows}


COSTS = {}


def costs_of():
    if not COSTS:
        COSTS.update(profiler_event_s=mhc.profiler_event_s(), binding_s=mhc.binding_s())
    return COSTS


def main():
    classes = load_qwen(sys.argv[1])
    costs = costs_of()
    stub_collectives(keep=("broadcast", "all_reduce"))
    out = {
        "what": "DeepSpeed ZeRO-3's host work per decoder layer and micro-batch (forward, reentrant "
                "recompute, backward, engine.step()), DeepSpeed - plain, collectives stubbed "
                "(tools/measure_zero3_hooks.py)",
        "deepspeed": deepspeed.__version__, "torch": torch.__version__.split("+")[0],
        "transformers": transformers.__version__,
        "world_size": int(os.environ["WORLD_SIZE"]), "cpu": mhc.cpu_model(), "costs": costs,
        "stacks": {name + ("" if RECOMPUTE else "_no_recompute"): stack_row(c)
                   for name, c in (("qwen1", classes), ("llama", None))},
    }
    if int(os.environ.get("RANK", "0")) == 0:  # DeepSpeed logs to stdout: the data goes to a file
        with open(sys.argv[2], "w") as f:
            json.dump(out, f, indent=1, sort_keys=True)
            f.write("\n")


if __name__ == "__main__":
    main()
