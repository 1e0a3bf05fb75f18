#!/usr/bin/env python3
"""Convert ../shared/reference/public-benchmarks.jsonl into gpuplan's own case files (cases/*.toml).

Each case = the published setup expressed as a gpuplan workload + the published metric + source +
exact quote. The mapping from the paper's setup to gpuplan fields is written out below, with every
assumption the paper does not state marked in `notes`. Run from the repo root:
    python3 tools/gen_cases.py ../shared/reference/public-benchmarks.jsonl
"""
import json
import os
import sys


def tv(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    if isinstance(v, str):
        return json.dumps(v, ensure_ascii=False)
    if isinstance(v, list):
        return "[" + ", ".join(tv(x) for x in v) + "]"
    raise TypeError(v)


def table(name, d, out):
    scalars = {k: v for k, v in d.items() if not isinstance(v, dict)}
    subs = {k: v for k, v in d.items() if isinstance(v, dict)}
    out.append(f"[{name}]")
    for k, v in scalars.items():
        out.append(f"{k} = {tv(v)}")
    for k, v in subs.items():
        table(f"{name}.{k}", v, out)


def gpt_cfg(h, L, a, V, s, dropout=False, ffn=None):
    c = {"model_type": "gpt2", "n_embd": h, "n_layer": L, "n_head": a, "vocab_size": V, "n_positions": s}
    if ffn:
        c["n_inner"] = ffn
    if dropout:
        c["attn_pdrop"] = 0.1
        c["resid_pdrop"] = 0.1
    return c


def llama_cfg(h, L, a, f, V=32000, kv=None, ctx=2048):
    return {"model_type": "llama", "hidden_size": h, "num_hidden_layers": L, "num_attention_heads": a,
            "num_key_value_heads": kv or a, "intermediate_size": f, "vocab_size": V,
            "max_position_embeddings": ctx}


H100 = {"gpu": "h100-sxm", "gpus_per_node": 8, "inter_link": "rdma", "inter_gbit": 3200.0}
A100 = {"gpu": "a100-80g", "gpus_per_node": 8, "inter_link": "rdma", "inter_gbit": 1600.0}
A100_40 = {"gpu": "a100-40g", "gpus_per_node": 8, "inter_link": "rdma", "inter_gbit": 1600.0}

CASES = {}


def mosaic(cid, r, fitted=True):
    s = r["setup"]
    hw = dict(H100 if s["gpu"].startswith("h100") else A100_40 if "40" in s["gpu"] else A100)
    hw["nodes"] = max(1, s["gpu_count"] // 8)
    prec = {"amp_bf16": "amp_bf16", "bf16": "amp_bf16", "amp_fp8": "fp8"}[s["precision"]]
    CASES[cid] = dict(
        kind="train_throughput", metric="tokens_per_s_per_gpu", published=r["result"]["tokens_per_s_per_gpu"],
        unit="tokens/s/GPU",
        in_sample=(None if not fitted else
                   "train_efficiency_hopper" if hw["gpu"].startswith("h100") else "train_efficiency_ampere"),
        notes="MPT expressed as a GPT-2-style config (LayerNorm, GeLU MLP ×4, learned positions of seq_len: the "
              "published param counts grow with seq_len exactly by seq_len×d_model); attention kernel efficiency set to the "
              "Triton FlashAttention-1 class the yamls use (tunables). Inter-node bandwidth assumed "
              f"{hw['inter_gbit']:.0f} Gbit/s per node (the A100 70B row states 1600 Gbps RoCE; H100 not stated).",
        workload=dict(
            kind="training",
            # MPTMLP's activation is exact GELU, one fused kernel (llmfoundry/models/layers/ffn.py
            # @b2a43a147 l.40: `self.act = nn.GELU(approximate='none')`), not GPT-2's eager gelu_new.
            # MPTConfig's default norm_type 'low_precision_layernorm' (llmfoundry/models/mpt/
            # configuration_mpt.py @b2a43a147 l.60; the benchmark yamls leave it).
            config=dict(gpt_cfg(s["hidden"], s["layers"], s["heads"], s["vocab"], s["seq_len"]),
                        activation_function="gelu", norm_type="low_precision_layernorm"),
            training=dict(task="pretrain", precision=prec, micro_batch=s["micro_batch"], seq_len=s["seq_len"],
                          grad_accum=s["grad_accum"], recompute="full" if s["activation_checkpointing"] else "none",
                          attention="flash",
                          # FSDP mixed_precision DEFAULT reduces the gradients in fp32, PURE in the
                          # compute dtype: composer/trainer/mosaic_fsdp_utils.py @v0.16.4 l.87-94
                          # (@v0.17.2 l.94-101 the same), the Composer of every DEFAULT row (llm-
                          # foundry PR #543's A100-80GB re-run and the H100 tables; the PURE rows
                          # ran mosaicml 0.13.2 with reduce_dtype bf16): 4 B per gradient element in
                          # the reduce-scatter (step.rs reduced_grad_bytes). Stop 38 (mpt19).
                          parallel=dict(zero=3, **({"grad_reduce_fp32": True} if s["mp_mode"] == "DEFAULT" else {})),
                          # llm-foundry's FP8 rows ran Transformer Engine 0.x (PR #543, 2023-10:
                          # TransformerEngine v0.10): the 2023 FP8 kernels.
                          **({"fp8_kernels": "2023"} if prec == "fp8" else {}),
                          # ComposerMPTCausalLM's default loss_fn 'fused_crossentropy': flash-attn's
                          # xentropy kernel (llmfoundry/models/mpt/modeling_mpt.py @8c8dd48f).
                          fused_cross_entropy=True,
                          # Composer computes the model's two train metrics (LanguageCrossEntropy,
                          # LanguagePerplexity: torch cross-entropy over the logits) after every
                          # micro-batch: composer/trainer/trainer.py @v0.13.4 l.2340-2343 (the same
                          # in v0.11.1-v0.17), llmfoundry/models/mosaic_gpt/mosaic_gpt.py @300cc5c5
                          # `train_metrics`; workload.rs TrainingSetup::logit_metrics. Which software
                          # ran which table (stop 38, docs/notes/notes-mpt19.md): the A100-40GB rows
                          # (precision 'bf16', FSDP PURE) are mosaicml/examples @71dd21bd's run of
                          # 2023-04-04 (examples/llm/requirements.txt: torch 1.13.1, mosaicml 0.13.2,
                          # triton 2.0.0.dev20221202; 'bf16' is Composer's deprecated alias of
                          # amp_bf16 to v0.13, trainer.py @v0.13.4 l.368-372); the A100-80GB rows
                          # (amp_bf16, DEFAULT) are llm-foundry PR #543's re-run (b2a43a147,
                          # 2023-10-19: mosaicml>=0.16.4,<0.17, torch<2.1.1), bar the two 70B rows
                          # it carried over; the H100 tables 0.16.4/0.17.2.
                          logit_metrics=2),
            hardware=hw,
            # llm-foundry's MPT yamls set attn_config.attn_impl: triton, the 2022 Triton FlashAttention
            # (FlashAttention-1 class). FlashAttention-2 paper (arXiv 2307.08691): FlashAttention
            # "reaching only 25-40% of the theoretical maximum FLOPs/s" on A100, FA-2 "around 2x"
            # faster. Ampere 0.32 (midpoint); Hopper 0.35 x 0.32/0.55 = 0.2 (FA-2's H100/A100 ratio).
            tunables=dict(attention_efficiency_other=0.32, attention_efficiency_hopper=0.2)))


def megatron(cid, r, tp, pp, dp, mb, accum, zero=0, note="", vp=None, ddp_overlap=None):
    s = r["setup"]
    hw = dict(A100)
    n = tp * pp * dp
    hw["nodes"] = n // 8
    CASES[cid] = dict(
        kind="train_throughput", metric="megatron_tflops_per_gpu", published=r["result"]["achieved_tflops_per_gpu"],
        unit="TFLOP/s per GPU (Megatron count incl. recompute)",
        notes="GPT config with dropout 0.1, fp16 mixed precision, full recompute; Selene: 8 × 200 Gb/s HDR IB per "
              "DGX A100 node. " + note,
        workload=dict(
            kind="training",
            config=gpt_cfg(s["hidden"], s["layers"], s["heads"], s.get("vocab", 51200), s["seq_len"], dropout=True),
            training=dict(task="pretrain", precision="amp_fp16", framework="megatron", micro_batch=mb,
                          seq_len=s["seq_len"], grad_accum=accum, recompute="full", attention="eager",
                          # The 2021 Megatron-LM code of these runs has only the unfused vocab-parallel
                          # cross-entropy (megatron/core/fusions/fused_cross_entropy.py first appears in
                          # core_v0.8.0): audit r17 #1.
                          cross_entropy_loss_fusion=False,
                          parallel=dict(tp=tp, pp=pp, zero=zero,
                                        **({"virtual_stages": vp} if vp else {}),
                                        **({"overlap_grad_reduce": ddp_overlap} if ddp_overlap is not None else {}))),
            hardware=hw))


LLAMA1 = {"7b": (4096, 32, 32, 11008, 4), "13b": (5120, 40, 40, 13824, 4), "33b": (6656, 60, 52, 17920, 4),
          "65b": (8192, 80, 64, 22016, 8)}


def llama1_grad_accum(tp):
    """Accumulation steps for the paper's global batch: Table 2 of Touvron et al. 2023 (arXiv 2302.13971;
    image figures/llama-table-2.png in cli99/llm-analysis @d841e40a) gives 'batch size 4M' for all four
    sizes. With micro-batch 2 of 2048 tokens on 2048 / tp data-parallel ranks the nearest multiple is
    2048 sequences (4.19M tokens; round, not floor: floor gave 2.1M tokens at TP 4 and 3.1M at TP 8)."""
    return max(1, round(4e6 / 2048 / 2 / (2048 / tp)))


def llama1(cid, r, size, metric, published, unit, kind):
    h, L, a, f, tp = LLAMA1[size]
    tokens = r["setup"].get("tokens")
    CASES[cid] = dict(
        kind=kind, metric=metric, published=published, unit=unit,
        notes="LLaMA-1 shapes (SwiGLU, RMSNorm, vocab 32000), seq 2048, 2048 A100-80GB. The paper does not give the "
              f"parallel layout: assumed TP {tp} inside the node + ZeRO-1 data parallel, selective recompute, "
              "micro-batch 2, 4M-token global batch (Table 2: 'batch size 4M'; 2048 sequences of 2048). What it does "
              "say (§2.4) sets the rest: 'model and sequence "
              "parallelism as described by Korthikanti et al. (2022)' (Megatron-style sequence parallelism, fused "
              "kernels: framework megatron), and it overlaps 'the computation of activations and the communication "
              "between GPUs over the network (due to all_reduce operations) as much as possible' (gradient reduce "
              "and parameter gather overlapped).",
        workload=dict(
            kind="training", config=llama_cfg(h, L, a, f),
            training=dict(task="pretrain", precision="amp_bf16", micro_batch=2, seq_len=2048,
                          grad_accum=llama1_grad_accum(tp), recompute="selective",
                          attention="flash", tokens=tokens, framework="megatron",
                          parallel=dict(tp=tp, zero=1, sequence_parallel=True, overlap_grad_reduce=True,
                                        overlap_param_gather=True)),
            hardware=dict(A100, nodes=256)))


def torchtune(cid, r, task, gpu, n, extra, note, throughput=False):
    """A torchtune README row: its peak memory, or (`throughput`) its tokens/s column as a
    training-throughput case of its own (`<id>-tps`; the README's tokens/s is per run, so divided by
    the GPU count)."""
    t = dict(task=task, precision="pure_bf16", micro_batch=2, seq_len=2048, recompute="full", attention="flash",
             chunked_loss=True, compiled=True)
    t.update(extra)
    val = float(r["result"]["peak_memory_per_gpu"].split()[0])
    metric = dict(kind="train_memory", metric="peak_allocated_gib", published=val, unit="GiB (torchtune peak memory)")
    if throughput:
        cid += "-tps"
        metric = dict(kind="train_throughput", metric="tokens_per_s_per_gpu", published=r["result"]["tokens_per_s"] / n,
                      unit="tokens/s per GPU (torchtune README tokens/sec column, one epoch)")
    CASES[cid] = dict(
        **metric,
        notes="torchtune recipe: bf16 weights (pure bf16), activation checkpointing, chunked cross-entropy "
              "(CEWithChunkedOutputLoss), packed seq 2048, batch 2, torch.compile on (the README: 'all the below "
              "numbers are provided for batch size 2 (without gradient accumulation), a dataset packed to sequence "
              "length 2048, and torch compile enabled'): the per-chunk loss is compiled (training.compile_loss). " + note,
        workload=dict(kind="training", model=r["setup"]["model"].replace("Llama 3.1 ", "Llama-3.1-"), training=t,
                      hardware=dict(gpu=gpu, gpus_per_node=n, nodes=1)))


EXTRA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "validation", "benchmarks-extra.jsonl")


# Issue 10: the DGX hosts' hardware threads, from NVIDIA's MLPerf system descriptions
# (mlcommons/training_results_v0.7 @c66406115bb3, NVIDIA/systems/dgxa100_ngc20.06_pytorch.json:
# "host_processors_per_node": "2", "host_processor_model_name": "AMD EPYC 7742",
# "host_processor_core_count": "64"; dgx1_ngc20.06_pytorch.json: "2", "Intel(R) Xeon(R) CPU E5-2698 v4
# @ 2.20GHz", "20") and the vendors' thread counts (felixsteinke/cpu-spec-dataset @4c08d887,
# dataset/amd-cpus.csv: EPYC 7742 64 cores, 128 threads; dataset/intel-cpus.csv: E5-2698 v4
# CoreCount 20, ThreadCount 40).
DGX_HOST = {"a100-80g": (256, "2 x AMD EPYC 7742, 64 cores / 128 threads each"),
            "v100-sxm2-16g": (80, "2 x Intel Xeon E5-2698 v4, 20 cores / 40 threads each"),
            "v100-sxm2-32g": (80, "2 x Intel Xeon E5-2698 v4, 20 cores / 40 threads each")}
# What decodes the images: the README's benchmark command (launch.py --platform DGXA100|DGX1V) takes
# its data backend from configs.yml, `data_backend: pytorch` at 7bdfc81d (the commit that published
# these numbers); the README's DALI section recommends dali-cpu for DGXA100 and DGX1. Both decode on
# the host CPUs.
RESNET_INPUT = ("JPEG decoding and augmentation on the host CPUs (the README's launch.py benchmark takes "
                "`data_backend: pytorch` from configs.yml @7bdfc81d, the commit that published these numbers: "
                "torchvision ImageFolder + RandomResizedCrop + flip, 16 loader workers per GPU on DGXA100, 8 on "
                "DGX1V; the README recommends `--data-backends dali-cpu` for DGXA100 and DGX1: host decode either way)")


def resnet(cid, r, gpu, n, in_sample=None):
    """NVIDIA DeepLearningExamples ResNet-50 v1.5 training throughput, per GPU."""
    vcpus, cpu = DGX_HOST[gpu]
    hw = dict(gpu=gpu, gpus_per_node=8, nodes=1) if n > 1 else dict(gpu=gpu, gpus_per_node=1, nodes=1)
    hw["host_vcpus"] = vcpus
    CASES[cid] = dict(
        kind="train_throughput", metric="tokens_per_s_per_gpu",
        published=r["result"]["images_per_s"] / n, unit="images/s per GPU",
        notes="ResNet-50 v1.5 at 224x224, AMP (fp16 with loss scaling), batch 256 per GPU, " + RESNET_INPUT + ", "
              f"{n} GPU(s) of one node; the published figure divided by {n}. For CNNs a 'token' is a sample. "
              f"Host: {cpu} = {vcpus} vCPUs (MLPerf v0.7 system description; vendor thread counts).",
        workload=dict(kind="training", model="ResNet-50",
                      training=dict(task="pretrain", precision="amp_fp16", optimizer="sgd_momentum", micro_batch=256,
                                    parallel=dict(zero=0)),
                      hardware=hw))
    if in_sample:
        CASES[cid]["in_sample"] = in_sample


def row_id(cid):
    """The source row a case was made from (one row may give several cases)."""
    return cid.replace("-prefill", "").replace("-decode", "").removesuffix("-tps")


def main(path):
    rows = {json.loads(l)["id"]: json.loads(l) for l in open(path)}
    # Published runs found while working on the repository, kept in the repository.
    rows.update({json.loads(l)["id"]: json.loads(l) for l in open(EXTRA) if l.strip()})
    resnet("dle-resnet50-a100-80g-amp-1gpu", rows["dle-resnet50-a100-80g-amp-1gpu"], "a100-80g", 1, "train_efficiency_cnn")
    resnet("dle-resnet50-a100-80g-amp-8gpu", rows["dle-resnet50-a100-80g-amp-8gpu"], "a100-80g", 8)
    resnet("dle-resnet50-v100-16g-amp-1gpu", rows["dle-resnet50-v100-16g-amp-1gpu"], "v100-sxm2-16g", 1)
    resnet("dle-resnet50-v100-16g-amp-8gpu", rows["dle-resnet50-v100-16g-amp-8gpu"], "v100-sxm2-16g", 8)
    resnet("dle-resnet50-v100-32g-amp-1gpu", rows["dle-resnet50-v100-32g-amp-1gpu"], "v100-sxm2-32g", 1)
    for cid in ["mpt7b-h100-8gpu-s2048", "mpt7b-h100-8gpu-s8192-ac", "mpt13b-h100-8gpu-s2048", "mpt30b-h100-8gpu-s2048-ac",
                "mpt70b-h100-64gpu-ac", "mpt70b-h100-512gpu-ac", "mpt7b-a100-80g-8gpu-s2048", "mpt30b-a100-80g-8gpu-s2048-ac",
                "mpt70b-a100-80g-64gpu-ac", "mpt13b-a100-40g-8gpu-s2048-ac", "mpt3b-h100-fp8-8gpu-s2048"]:
        mosaic(cid, rows[cid])
    # Issue 10 (training time v2): the FP8 GEMM ratio of training is fitted on the same row.
    CASES["mpt3b-h100-fp8-8gpu-s2048"]["in_sample"] += ", fp8_train_gemm_ratio"
    # Issue 10: further llm-foundry table rows, out-of-sample (they calibrate nothing).
    for cid, r in rows.items():
        if r.get("fit", "").startswith("out-of-sample") and cid.startswith("mpt"):
            mosaic(cid, r, fitted=False)
    megatron("megatron-a100-1.7b-32gpu", rows["megatron-a100-1.7b-32gpu"], 1, 1, 32, 16, 1)
    megatron("megatron-a100-18b-256gpu", rows["megatron-a100-18b-256gpu"], 8, 1, 32, 8, 4)
    megatron("megatron-a100-145b-1536gpu", rows["megatron-a100-145b-1536gpu"], 8, 8, 24, 2, 48,
             note="The run used the interleaved schedule (2 virtual stages); gpuplan models plain 1F1B, so its bubble is larger.")
    megatron("megatron-a100-530b-2520gpu", rows["megatron-a100-530b-2520gpu"], 8, 35, 9, 1, 280,
             note="Interleaved schedule in the run; plain 1F1B here.")
    megatron("megatron-a100-1t-3072gpu", rows["megatron-a100-1t-3072gpu"], 8, 64, 6, 1, 512)
    # Round 5: the table's other five rows, held out (the source fits nothing), with run_table_1.sh's
    # layout as the run had it: DDP=torch buckets and overlaps the gradient all-reduce with backward
    # (torch.nn.parallel.DistributedDataParallel), DDP=local (Megatron's own) all-reduces after the
    # backward (megatron/model/distributed.py allreduce_gradients, 2021); the interleaved schedule
    # where the script sets --num-layers-per-virtual-pipeline-stage (layers / PP / that = VP).
    torch_ddp = "DDP=torch: PyTorch DDP's bucketed all-reduce overlaps the backward (overlap_grad_reduce)."
    local_ddp = "DDP=local: Megatron's local DDP all-reduces the gradients after the backward (not overlapped)."
    for cid, tp, pp, dp, mb, accum, vp, overlap in [
            ("megatron-a100-3.6b-64gpu", 2, 1, 32, 16, 1, None, True),
            ("megatron-a100-7.5b-128gpu", 4, 1, 32, 16, 1, None, True),
            ("megatron-a100-39b-512gpu", 8, 2, 32, 4, 12, None, False),
            ("megatron-a100-76b-1024gpu", 8, 4, 32, 2, 28, 3, False),
            ("megatron-a100-310b-1920gpu", 8, 16, 15, 1, 144, 2, False)]:
        vp_note = (f" Interleaved 1F1B with {vp} virtual stages (--num-layers-per-virtual-pipeline-stage "
                   f"{rows[cid]['setup']['layers_per_virtual_stage']})." if vp else "")
        megatron(cid, rows[cid], tp, pp, dp, mb, accum, vp=vp, ddp_overlap=overlap,
                 note="Round 5, held out. " + (torch_ddp if overlap else local_ddp) + vp_note)
    megatron("megatron-175b-ptd-384gpu", rows["megatron-175b-ptd-384gpu"], 8, 12, 4, 1, 384,
             note="Model-parallel size 96 read as TP 8 × PP 12.")
    megatron("megatron-175b-ptd-1536gpu", rows["megatron-175b-ptd-1536gpu"], 8, 12, 16, 1, 96,
             note="Model-parallel size 96 read as TP 8 × PP 12.")
    megatron("megatron-175b-zero3-384gpu", rows["megatron-175b-zero3-384gpu"], 1, 1, 384, 4, 1, zero=3,
             note="DeepSpeed ZeRO-3 without model parallelism.")
    megatron("megatron-175b-zero3-1536gpu", rows["megatron-175b-zero3-1536gpu"], 1, 1, 1536, 1, 1, zero=3,
             note="DeepSpeed ZeRO-3 without model parallelism; the paper's example of communication collapse.")
    r = rows["llama1-65b-tokens-per-gpu"]
    llama1("llama1-65b-tokens-per-gpu", r, "65b", "tokens_per_s_per_gpu", 380, "tokens/s/GPU", "train_throughput")
    for size in ["7b", "13b", "33b", "65b"]:
        cid = f"llama1-{size}-gpu-hours"
        llama1(cid, rows[cid], size, "gpu_hours", rows[cid]["result"]["gpu_hours"], "A100-80GB GPU-hours", "train_time")
    # Config knobs from recipes/configs/llama3_1/*.yaml at 30b8519e8 (2024-09-24, "Readme Updates
    # (#1664)"), the commit that published the table; torchtune builds the model, adapters included,
    # under the bf16 default dtype (adapter_dtype bf16). LoRA dropout: 0.0 in every LoRA/QLoRA config
    # there (`lora_dropout: 0.0`; 405B_qlora.yaml leaves it to qlora_llama3_1_405b's default 0.0),
    # so LoRALinear's dropout is nn.Identity (torchtune/modules/peft/lora.py @30b8519e8 l.68).
    paged = ("PagedAdamW8bit + optimizer_in_bwd (8B_full_single_device.yaml @30b8519e8): the paged 8-bit "
             "states live in CUDA unified memory outside the allocator statistics (paged_optimizer).")
    torchtune("torchtune-llama31-8b-full-4090", rows["torchtune-llama31-8b-full-4090"], "full_finetune", "rtx-4090", 1,
              dict(optimizer="adam_w8bit", optimizer_in_backward=True, paged_optimizer=True), paged)
    torchtune("torchtune-llama31-8b-full-a6000", rows["torchtune-llama31-8b-full-a6000"], "full_finetune", "rtx-a6000", 1,
              dict(optimizer="adam_w8bit", optimizer_in_backward=True, paged_optimizer=True), paged)
    bf16 = dict(adapter_dtype="bf16")
    qkvo_mlp = ["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"]
    # The same two rows' tokens/s column is not converted (cases/SKIPPED.md): at the published
    # tokens/s the LoRA row's hardware FLOPs would be 92% of the 4090's dense bf16 peak under the
    # recipe's activation checkpointing, which its 16.2 GiB peak requires; the figures are not
    # consistent with one configuration. `throughput=True` stays for a row that is.
    for tps in (False,):
        torchtune("torchtune-llama31-8b-lora-4090", rows["torchtune-llama31-8b-lora-4090"], "lora", "rtx-4090", 1,
                  dict(bf16, lora=dict(rank=8, targets=["q_proj", "v_proj"], dropout=0.0)),
                  "LoRA rank 8 on q and v (8B_lora_single_device.yaml @30b8519e8), bf16 adapters.", tps)
        torchtune("torchtune-llama31-8b-qlora-4090", rows["torchtune-llama31-8b-qlora-4090"], "qlora", "rtx-4090", 1,
                  dict(bf16, lora=dict(rank=8, targets=qkvo_mlp, dropout=0.0)),
                  "QLoRA: NF4 base, LoRA rank 8 on q, k, v, output_proj and the MLP (8B_qlora_single_device.yaml "
                  "@30b8519e8), bf16 adapters.", tps)
    # The same row's tokens/s column (audit r9 #6 / r10): a held-out throughput case of its own
    # (`-tps`), the only published CPU-offload throughput row converted; a recorded miss while the
    # host's optimizer step is not timed (its known_deviation below).
    for tps in (False, True):
        torchtune("torchtune-llama31-70b-full-8xa100", rows["torchtune-llama31-70b-full-8xa100"], "full_finetune", "a100-80g", 8,
                  dict(parallel=dict(zero=3, offload_params=True, offload_optimizer=True, fsdp_wrap_embeddings=True,
                                     fsdp_offload_all_cores=True, fsdp_version=2)),
                  "FSDP with CPU offload of parameters, gradients and optimizer (70B_full.yaml @30b8519e8: "
                  "fsdp_cpu_offload, no optimizer_in_bwd). custom_sharded_layers: ['tok_embeddings', 'output'] wraps the "
                  "embedding and the head as FSDP units of their own (full_finetune_distributed.py @30b8519e8 l.412-417), "
                  "so the root unit FSDP keeps gathered through the step is the final norm alone (fsdp_wrap_embeddings; "
                  "+26.1% with the 2.1B-parameter embedding and head in the root). Its peak is a layer's backward: the gathered layer and "
                  "its prefetched neighbour, one layer's recompute, and the unit's unsharded bf16 gradients next to "
                  "the previous unit's reduce-scatter input (FSDP2 foreach_reduce; bf16, no MixedPrecisionPolicy): "
                  "-19.1% before that unit-gradient term was modelled. The recipe gives each rank os.cpu_count() // 8 "
                  "threads for the host optimizer step (full_finetune_distributed.py @30b8519e8 l.746-749: "
                  "`if cfg.get(\"fsdp_cpu_offload\", False): ... training.set_torch_num_threads()`; "
                  "fsdp_offload_all_cores).", tps)
    torchtune("torchtune-llama31-70b-lora-8xa100", rows["torchtune-llama31-70b-lora-8xa100"], "lora", "a100-80g", 8,
              dict(bf16, lora=dict(rank=16, targets=["q_proj", "k_proj", "v_proj"], dropout=0.0),
                   parallel=dict(zero=3, fsdp_version=2)),
              "FSDP-sharded bf16 base, LoRA rank 16 on q, k, v (70B_lora.yaml @30b8519e8), bf16 adapters.")
    torchtune("torchtune-llama31-405b-qlora-8xa100", rows["torchtune-llama31-405b-qlora-8xa100"], "qlora", "a100-80g", 8,
              dict(bf16, lora=dict(rank=16, targets=qkvo_mlp, dropout=0.0), parallel=dict(zero=3, fsdp_version=2)),
              "FSDP-sharded NF4 base, LoRA rank 16 on q, k, v, output_proj and the MLP (405B_qlora.yaml "
              "@30b8519e8), bf16 adapters. Batch 2 as the README's note states for every row of the table, "
              "not the yaml's `batch_size: 1`: the yaml is a default that the table's runs overrode (its "
              "`dataset` is unpacked alpaca and it sets no `compile`, both of which the note also overrides, "
              "as this table's other cases take them); this case took the yaml's batch 1 until stop 35 "
              "(+7.8% then). The table prints 'GB'; read as GiB like its other rows.")
    for cid, stage, val in [("deepspeed-zero2-t5-3b-8gpu", 2, 15.93), ("deepspeed-zero3-t5-3b-8gpu", 3, 6.1)]:
        # DeepSpeed's own estimator formulas (memory.rst), not a measurement.
        CASES[cid] = dict(
            kind="train_memory", metric="model_states_gib", published=val, unit="GiB (DeepSpeed estimator, model states only)",
            known_deviation="Established (the published number is a formula's output, not a measurement): the docs' "
                            "15.93 GB is DeepSpeed's 2021 ZeRO-2 estimator, gpu_mem = 4·P + 16·P/N (PR #965, "
                            "deepspeed/runtime/zero/stage2.py @0c1802cc8 l.2017), which gives exactly 6 × 2.851e9 B "
                            "/ 2^30 = 15.93 for t5-3b on 8 GPUs (its CPU column, 127.45 for P = 2851e6, is P · max(4·8, 16) · "
                            "additional_buffer_factor 1.5 / 2^30: that factor scales only the CPU column, "
                            "l.2440/2445 @38327e07). PR #5099 (2024-06-04: 'was considering 4 bytes per model "
                            "param, and 4 bytes per gradient. fixed it to 2 bytes') changed it to 2·P + 18·P/N "
                            "(stage_1_and_2.py @38327e07 l.2441-2444: '18 = 2_grads_16bit + 4_grads_32bit + "
                            "4_params_32bit + 8_optimizer_states_32bit') = 11.29 GiB, and memory.rst at the cited "
                            "commit still prints the 2021 output. gpuplan's `deepspeed` accounting gives the "
                            "engine as it allocates it, the same 2·P + 18·P/N: 16-bit parameters, the rank's "
                            "16-bit gradient partition (grads_in_partition, l.1344-1355), fp32 master and Adam "
                            "states, and at the step the fp32 gradient partition (l.1892-1902). The row stays "
                            "29% below the stale output by construction.",
            notes="t5-3b (2.851B params) given as T5 v1.0 shapes: d_model 1024, d_ff 16384, d_kv 128, 32 heads, 24+24 layers.",
            workload=dict(kind="training",
                          config={"model_type": "t5", "d_model": 1024, "d_ff": 16384, "d_kv": 128, "num_heads": 32,
                                  "num_layers": 24, "vocab_size": 32128},
                          training=dict(task="full_finetune", precision="amp_fp16", deepspeed=True,
                                        parallel=dict(zero=stage)),
                          hardware=dict(gpu="a100-80g", gpus_per_node=8, nodes=1)))
    for cid, prec, kv, tp, gpu, model, metric, unit in [
        ("trtllm061-llama7b-h100-fp8-128-128", "fp8", "fp8", 1, "h100-sxm", "Llama-2-7B", "output_tokens_per_s_per_gpu", "output tokens/s per GPU"),
        ("trtllm061-llama7b-h100-fp8-2048-2048", "fp8", "fp8", 1, "h100-sxm", "Llama-2-7B", "output_tokens_per_s_per_gpu", "output tokens/s per GPU"),
        ("trtllm061-llama70b-h100-fp8-tp2-128-128", "fp8", "fp8", 2, "h100-sxm", "Llama-2-70B", "output_tokens_per_s_per_gpu", "output tokens/s per GPU"),
        ("trtllm061-llama7b-a100-fp16-128-128", "fp16", "fp16", 1, "a100-80g", "Llama-2-7B", "output_tokens_per_s_per_gpu", "output tokens/s"),
        ("trtllm061-llama70b-a100-fp16-tp4-128-128", "fp16", "fp16", 4, "a100-80g", "Llama-2-70B", "output_tokens_per_s_per_gpu", "output tokens/s (read as per GPU)"),
    ]:
        s = rows[cid]["setup"]
        CASES[cid] = dict(
            kind="infer_throughput", metric=metric, published=rows[cid]["result"]["throughput"], unit=unit,
            notes="Static batching (gptSessionBenchmark): batch prefilled at once, then output_len decode steps at the full batch."
            + (" tp_allreduce = nccl: the doc's build commands pass no --use_custom_all_reduce, and TensorRT-LLM's 2023"
               " plugin config defaults to NCCL (tensorrt_llm/plugin/plugin.py `set_nccl_plugin(self, dtype='float16',"
               " use_custom_all_reduce: bool = False)`)." if tp > 1 else "")
            + (" decode_kv_reads = per_query_head: the masked MHA, one thread block per (sequence, query head); the"
               " 2023 XQA kernel (one CTA per KV head and sequence) would take Llama-2-70B here but is opt-in"
               " (TRTLLM_ENABLE_XQA), which the tables' commit (performance.md @138f96d4) does not set; a later"
               " revision (@77d24b5f, same figures) exports it and calls the kernels 'currently experimental and not"
               " enabled by default'. With XQA's once-per-group loads this row would be "
               + {"trtllm061-llama70b-a100-fp16-tp4-128-128": "−4.0%", "trtllm061-llama70b-h100-fp8-tp2-128-128": "+14.1%"}.get(cid, "")
               + " (see s-trtllm-llama70b-a100-fp16-tp4-b240-128-2048)." if "70B" in model else ""),
            workload=dict(kind="inference", model=model,
                          inference=dict(weights={"format": prec}, kv_dtype=kv, tp=tp, engine="trtllm",
                                         # The tables' release: before 0.9.0's FP8 context FMHA
                                         # (infer.rs TRTLLM_FIRST_FP8_CONTEXT_FMHA).
                                         engine_version="0.6.1",
                                         # TensorRT-LLM v0.6.1 (2023-12): the 2023 FP8 kernels.
                                         **({"fp8_kernels": "2023"} if prec == "fp8" else {}),
                                         # v0.6.1's generation kernel (masked MHA) loads a GQA
                                         # model's KV head once per query head (Llama-2-70B: 8).
                                         **({"decode_kv_reads": "per_query_head"} if "70B" in model else {}),
                                         # Built without --use_custom_all_reduce (performance.md's
                                         # commands; plugin.py set_nccl_plugin defaults it False):
                                         # NCCL's all-reduce.
                                         **({"tp_allreduce": "nccl"} if tp > 1 else {}),
                                         batch=s["batch_size"],
                                         input_tokens=s["input_len"], output_tokens=s["output_len"],
                                         max_model_len=s["input_len"] + s["output_len"]),
                          hardware=dict(gpu=gpu, gpus_per_node=8, nodes=1)))
    ft_cfg = gpt_cfg(5120, 40, 40, 50272, 2048, ffn=20480)
    for tp in [1, 2]:
        r = rows[f"ft-13b-a100-40g-tp{tp}"]
        for metric, key in [("prefill_ms", "prefill_ms"), ("decode_ms_per_token", "decode_ms_per_token")]:
            CASES[f"ft-13b-a100-40g-tp{tp}-{metric.split('_')[0]}"] = dict(
                kind="infer_latency", metric=metric, published=r["result"][key], unit="ms",
                in_sample="prefill_efficiency" if metric == "prefill_ms" else "decode_bandwidth_efficiency, layer_overhead_s",
                notes="FasterTransformer GPT 13B (test-13b shapes), fp16, batch 1, 512 prompt tokens. estimation.md derives "
                      "the efficiency ranges partly from this case, so it is in-sample.",
                workload=dict(kind="inference", config=ft_cfg,
                              inference=dict(weights={"format": "fp16"}, kv_dtype="fp16", tp=tp, batch=1,
                                             input_tokens=512, output_tokens=10, max_model_len=2048),
                              hardware=dict(gpu="a100-40g", gpus_per_node=8, nodes=1)))
    for cid, mml in [("vllm-llama31-8b-rtx3090-mml20000", 20000), ("vllm-llama31-8b-rtx3090-mml29000", 29000)]:
        CASES[cid] = dict(
            kind="kv_capacity", metric="num_gpu_blocks", published=rows[cid]["result"]["num_gpu_blocks"], unit="blocks of 16 tokens",
            in_sample="vllm_non_torch_gib",
            notes="vLLM V0, gpu_memory_utilization 0.9, profile batch = max_model_len (no chunked prefill), so "
                  "max_num_batched_tokens = max_model_len here. The "
                  "non-torch 0.35 GiB is read from this log, so the case is in-sample for that constant. "
                  "Release 0.6.4: the log line (initial_memory_usage, peak_torch_memory, non_torch_memory) is "
                  "the format of PR #9352 (v0.6.4), which PR #10511 replaced in v0.6.5.",
            workload=dict(kind="inference", model="Llama-3.1-8B",
                          inference=dict(max_model_len=mml, max_num_batched_tokens=mml, gpu_memory_utilization=0.9,
                                         engine_version="0.6.4"),
                          hardware=dict(gpu="rtx-3090", gpus_per_node=1, nodes=1)))
    CASES["vllm-llama2-7b-a100-80g-tp1"] = dict(
        kind="kv_capacity", metric="num_gpu_blocks", published=7351, unit="blocks of 16 tokens",
        in_sample="vllm_free_memory_overhead_gib",
        notes="vLLM Dec 2023 benchmark_throughput defaults: max_model_len 4096 (Llama-2), profile batch "
              "max(max_model_len, 2048) = 4096 tokens. The PR's own two figures (7449 blocks under "
              "max_memory_allocated, 7351 under total - free) give VLLM_FREE_MEMORY_OVERHEAD_GIB (0.766 GiB), "
              "so the case is in-sample for it; engine_version 0.2.5, the release PR #2031 went into.",
        workload=dict(kind="inference", model="Llama-2-7B",
                      inference=dict(max_model_len=4096, max_num_batched_tokens=4096, gpu_memory_utilization=0.9,
                                     engine_version="0.2.5"),
                      hardware=dict(gpu="a100-80g", gpus_per_node=1, nodes=1)))
    CASES["vllm-weights-llama31-8b"] = dict(
        kind="infer_memory", metric="weights_gib", published=14.9888, unit="GiB",
        notes="bf16 weights as vLLM logs them (GiB despite the 'GB' label).",
        workload=dict(kind="inference", model="Llama-3.1-8B", inference=dict(max_model_len=8192),
                      hardware=dict(gpu="rtx-3090", gpus_per_node=1, nodes=1)))
    CASES["hf-blog-kv-llama31-8b-128k"] = dict(
        kind="infer_memory", metric="kv_gib_for_input", published=15.62, unit="GiB",
        notes="KV of one 128,000-token sequence in fp16.",
        workload=dict(kind="inference", model="Llama-3.1-8B",
                      inference=dict(kv_dtype="fp16", input_tokens=128000, max_model_len=128300),
                      hardware=dict(gpu="h100-sxm", gpus_per_node=1, nodes=1)))

    # What is known of DeepSpeed ZeRO-3 in early 2021 (the paper's Table 2 ran it between the ZeRO-3
    # release, v0.3.13, and #1188 of Oct 2021), read at microsoft/DeepSpeed v0.3.13.
    ZERO3_2021 = ("Modelled (train::zero3, DeepSpeed v0.3.13 and @38327e07): one all-gather per weight tensor, "
                  "biases and norms (< stage3_param_persistence_threshold 1e5) kept gathered, a weight kept only "
                  "if used again within stage3_max_reuse_distance (1e9 elements), so full recompute gathers "
                  "GPT-3's weights 2.67 times per micro-batch (forward, recompute, backward but fc2), plus "
                  "NCCL's ring latency per collective. Not modelled: v0.3.13's coordinator (stage3.py "
                  "fetch_sub_module) calls torch.cuda.synchronize() at every fetch and prefetches only when "
                  "nothing is in flight, up to stage3_prefetch_bucket_size (5e7 elements: one GPT-3 weight); a "
                  "replay of it (tools/zero3_v0313_sim.py) at NCCL's cost over the node's 8 NICs still gives "
                  "+33% / +88% / +151% on the paper's 384 / 768 / 1536-GPU rows (144 / 88 / 44 TFLOP/s, "
                  "constant global batch), and -11% / -11% / -8% only at one 25 GB/s NIC per GPU: the rows' "
                  "shape (768 and 1536 GPUs both ~67 s a step) points to a per-GPU bandwidth-like cost, but "
                  "NCCL's rings cross each node once per channel over all 8 NICs (busbw = NICs x 25 GB/s), so "
                  "no source supports it; not adopted.")
    # Cases the model misses today, each with its diagnosis (a FIXME): the test asserts they stay
    # missed, so a fix shows up and the flag is removed.
    size = ("FIXME: training efficiency is one constant per chip generation; it does not fall for small "
            "per-GPU GEMMs (MFU rises with h, estimation.md §1.5), so small or heavily TP-split layers are over-predicted.")
    misses = {
        "megatron-a100-1.7b-32gpu": "h = 2304: " + size,
        "megatron-a100-18b-256gpu": "h/t = 768 per GPU at TP 8: " + size,
        "megatron-175b-ptd-384gpu": "h/t = 1536 per GPU at TP 8 with micro-batch 1: " + size,
        "mpt13b-h100-8gpu-s2048": "micro-batch 2 of 2048 tokens with FSDP on H100: " + size,
        "megatron-175b-zero3-384gpu": "FIXME: +37% (+41% in round 8): per micro-batch (4 × 2048 tokens) the ZeRO-3 "
                                      "traffic per GPU (2.67 × 2P gathered + 2P reduce-scattered, ~1.3 TB) and NCCL's "
                                      "ring latency of 1539 collectives take 12.2 s at the node's 200 GB/s × 0.75, all "
                                      "but 0.09 s hidden behind 57.8 s of compute (1.8 s of SM contention); the measured "
                                      "144 TFLOP/s implies ~24 s exposed. "
                                      + ZERO3_2021,
        "megatron-175b-zero3-1536gpu": "FIXME: +138% (+154% in round 8, +192% before DeepSpeed's per-tensor gathers "
                                       "and full recompute's third gather were counted, +352% before the ring-latency "
                                       "term of comm.rs): 23.3 s of ZeRO-3 traffic and NCCL ring latency (1,280 GB per "
                                       "GPU at 150 GB/s over the node's 200 GB/s, 1539 collectives over 1535 hops, each "
                                       "at the all-gather ring latency, which round 9's per-collective latencies leave "
                                       "as it was) per micro-batch, 11.5 s of it exposed beside 14.8 s of compute and "
                                       "1.7 s of SM contention (a 28.0 s step), but the measured 44 TFLOP/s needs ~52 s "
                                       "exposed beside ~15 s of compute. " + ZERO3_2021,
        "torchtune-llama31-8b-full-a6000": "Cause, established by elimination (stops 35-40): the A6000 figure "
                                           "is not a measurement of the configuration the README states, and the "
                                           "estimate models the stated one. The README's LoRA rows double from the "
                                           "4090 to the A6000 as this row does (16.2 -> 30.3 GiB) although LoRA's "
                                           "optimizer states are under 0.1 GiB, and no choice of torchtune's three "
                                           "statistics doubles a figure (below): the A6000 runs had settings the "
                                           "README does not state. Which setting is not established (the "
                                           "hypothesis below, no activation checkpointing, leaves -11.2%); only a "
                                           "run on an A6000 or the authors' word can name it. "
                                           "The same 8B_full_single_device config (PagedAdamW8bit, "
                                           "optimizer_in_bwd) is published at 18.9 GiB on a 4090 and 37.4 GiB on an "
                                           "A6000; paged 8-bit states are outside the allocator statistics, so the "
                                           "A6000 figure is not the allocated peak of that config as the yaml sets "
                                           "it. Established (stop 35): the table's runs are not that yaml as "
                                           "committed, which sets `compile: False` and `log_peak_memory_stats: "
                                           "False` (8B_full_single_device.yaml @30b8519e8) where the README's "
                                           "note has compile enabled. Established (stop 36) from the repository's "
                                           "history: the table came in one commit (30b8519e8, 'Readme Updates "
                                           "(#1664)', README only) that states neither the statistic nor the "
                                           "A6000 runs' overrides, and no later commit changes the rows; the "
                                           "recipe logs three (training/memory.py get_memory_stats: "
                                           "peak_memory_active, peak_memory_alloc, peak_memory_reserved), and "
                                           "the README's next table (1814feb17, 'add flags to readme (#2003)') "
                                           "heads its column 'Peak Memory Active (GiB)'. Active and allocated "
                                           "differ only by blocks awaiting a stream's use, and reserved exceeds "
                                           "allocated by the cache, 0.1-0.2 GiB in torchtune's own logs (issue "
                                           "#1398: 14.41 allocated, 14.62 reserved, 14.41 active GiB), so no "
                                           "choice among them doubles a figure. Withdrawn (stop 36): the "
                                           "tokens/s argument for a run without activation checkpointing. The "
                                           "A6000 (GA102, 84 SMs at 1.80 GHz: 154.8 dense bf16 TFLOP/s, half the "
                                           "datasheet's 309.7 sparse) is slower than the 4090 (165.2, the "
                                           "catalog), yet the table's A6000 LoRA row, 4699 tokens/s at about 4 x "
                                           "7.5B matmul parameters + 1.6 GFLOP of attention a token with no "
                                           "recompute, needs 148 TFLOP/s, 96% of that peak, and the 4090 LoRA "
                                           "row with recompute 88% of its own: the column is not consistent with "
                                           "the hardware under either setting and cannot tell which the runs had. "
                                           "Hypothesis, not established: the A6000 rows ran without activation "
                                           "checkpointing (the README states batch, packing and compile for every "
                                           "row, not checkpointing; the yaml's enable_activation_checkpointing: "
                                           "True is what a 24 GB 4090 needs). The same README's LoRA rows double "
                                           "the same way (16.2 GiB on the 4090, 30.3 GiB on the A6000) although "
                                           "LoRA's AdamW states are under 0.1 GiB (3.4M rank-8 adapter parameters "
                                           "on q and v, 8B_lora_single_device.yaml), so paging cannot explain "
                                           "them; without checkpointing the estimate gives 28.5 GiB for that LoRA "
                                           "row (-5.9%; 17.0 GiB with it) and 33.2 GiB for this one (-11.2%). "
                                           "Other single overrides, estimated (stop 35): the 8-bit states in the "
                                           "allocator (AdamW8bit, not paged) 32.1 GiB (-14.1%), no optimizer_in_bwd "
                                           "29.9 GiB (-20.0%); neither explains the LoRA rows' doubling. The "
                                           "PR's review excerpts found (#1664, 2024-09-24) discuss the README's text, "
                                           "not the runs. The rest of this row under the hypothesis, 4.2 GiB, "
                                           "would be part of the paged 8-bit states held resident (15 GiB in "
                                           "all), which only a device-wide reading (nvidia-smi) counts: "
                                           "bitsandbytes pages them with cudaMallocManaged, outside every "
                                           "torch.cuda statistic; not confirmed. Tried (stop 40), nothing "
                                           "settles it: the PR #1664 thread and torchtune's issues (#2168, "
                                           "2024-12-19: a maintainer lists what gets the 4090 full row to its "
                                           "number, 'full bf16 training, low-precision optimizer (8-bit paged "
                                           "adam from bitsandbytes), activation checkpointing (optionally also "
                                           "offloading to CPU), fusing optimizer step into backward, and "
                                           "chunked c[ross-entropy]', which confirms the 4090 row's config and "
                                           "says nothing of the A6000 runs); the recipe's logging "
                                           "(get_memory_stats(reset_stats=True), training/memory.py @30b8519e8 "
                                           "l.187-217, called at every logged step) makes any torchtune "
                                           "figure a peak since the last log, not since model load; no "
                                           "source found states the A6000 runs' overrides or statistic. Only "
                                           "a run of the config on an A6000, or the authors' word, can close it.",
        "dle-resnet50-a100-80g-amp-8gpu": "FIXME: +22.4%: 8 GPUs are predicted at 8x one GPU (the all-reduce of 25.6M "
                                          "gradients over NVLink, ~1 ms, hides behind backward). The same README table "
                                          "scales 6.72x in AMP but 7.72x in TF32 on the same 8 A100s (V100: 6.93x vs "
                                          "7.76x): a GPU's step grows by 19.6 ms in AMP (103.6 -> 123.2 ms) but 9.7 ms "
                                          "in TF32 (272.9 -> 282.6 ms), so it is not a fixed per-step cost. The images "
                                          "are decoded on the host CPUs (notes) and the case carries the host (256 "
                                          "vCPUs), so the estimator's host ceiling (train/host.rs) applies: at the "
                                          "assumed 150 images/s per vCPU it is 38.4k images/s, above the 20.3k "
                                          "predicted, and does not bind. Binding within the band needs <= 77.9 per vCPU "
                                          "(the published 16.6k is 64.9 per vCPU), but the DGX-1 row "
                                          "(dle-resnet50-v100-16g-amp-8gpu, 8.3k images/s from 80 vCPUs) then falls "
                                          "below its band (it needs >= 83.2 per vCPU; per physical core <= 155.8 "
                                          "against >= 166.4): one host rate cannot explain both rows, so either the "
                                          "rate differs by CPU (Zen 2 vs Broadwell; no published rate of this pipeline "
                                          "for either) or the host ceiling is not the cause. Both 8-GPU rows deliver "
                                          "130 images/s per DataLoader worker (16,621 / (16 x 8), 8,322 / (8 x 8); "
                                          "configs.yml @7bdfc81d), which a per-worker limit would fit, but no "
                                          "published per-worker rate exists and the 1-GPU rows run >= 154 and >= 150 "
                                          "per worker.",
    }
    # Issue 10: with the layout the paper states (Korthikanti sequence parallelism, fused kernels,
    # network communication overlapped) and its 4M-token batch (Table 2) the five LLaMA-1 rows are
    # within band; 65B's hours (+14.6% with a 3.1M-token batch) are +8.9%.
    # Stop 34 (issue 10: which GPU-hours count a steady rate): only the 65B row's hours have a stated rate
    # behind them; Table 15's 7B/13B/33B rows give hours alone, so they stay "not stated" (no key).
    CASES["llama1-65b-gpu-hours"]["steady_state"] = (
        "§2.4 as quoted by cli99/llm-analysis examples/llama/README.md @d841e40a (the source of "
        "llama1-65b-tokens-per-gpu): 'their code processes around 380 tokens/sec/GPU on 2048 A100 GPU with 80GB of "
        "RAM'; 1.4T tokens / 380 tokens/s/GPU / 3600 = 1,023,392 GPU-hours, Table 15's 1,022,362 within 0.1% (the "
        "paper's 'approximately 21 days' on 2048 GPUs would be 1,032,192, +1.0%). The table does not say how it "
        "was computed; the rate is the only stated basis that reproduces it.")
    # Issue 10 rows still outside their band with the shape-aware compute model (compute.rs).
    misses["llama1-65b-gpu-hours"] = (
        "FIXME: +14.2% (+11.5% before round 9, +8.9% before round 8): the estimate's layout is assumed (the paper "
        "states none: TP 8 with sequence parallelism inside the node, ZeRO-1 over 256 nodes, 4 micro-batches of 2), "
        "and with it the overlapped gradient reduce-scatter and parameter all-gather of 8.1B parameters per GPU over "
        "the nodes' 200 Gbit/s NICs take their NCCL CTAs' SMs from the backward and forward they overlap (16 of "
        "108 SMs across A100 nodes, train/contention.rs), 2.1% of the step. Round 9 charges each of the 32 "
        "reduce-scatter buckets NCCL's ring reduce-scatter latency over the 256 ranks, one per node (8.4 + 255 x "
        "9.6 us = 2.46 ms, where the all-reduce's tree latency, 0.80 ms, was charged before) and each of the 32 "
        "parameter all-gathers the same (none before; src/graph/tuning.cc @v2.14.3-1 lines 115-123): the step is "
        "6.15 s, with 1.07 s of the 1.89 s of data-parallel traffic exposed and 0.75 s of TP traffic. The same "
        "run's tokens/s row (llama1-65b-tokens-per-gpu) moves from -10.2% to -12.3%, still in its band. Meta's own "
        "implementation (xformers, its overlap of the all-reduces, §2.4) is not public, so neither its "
        "data-parallel layout nor its NCCL channel settings are known; not determined.")
    # Round 8: the four MPT-13B H100 micro-batch-2 rows without activation checkpointing (+20.2/+22.2/
    # +21.8/+22.4% at 8/16/32/64 GPUs) are within band (+14.3/+12.7/+11.7/+11.5%) since the overlapped
    # data-parallel collectives take their NCCL CTAs' SMs from compute (train/contention.rs: 24 of
    # 132 SMs in one node, 32 across nodes, for the 29-41% of the compute that FSDP's traffic
    # overlaps here); mpt30b-h100-8gpu-s8192-ac likewise (+21.4% -> +19.3%).
    for k in ["mpt13b-h100-8gpu-s2048", "mpt13b-h100-16gpu-s2048", "mpt13b-h100-32gpu-s2048",
              "mpt13b-h100-64gpu-s2048", "mpt30b-h100-8gpu-s8192-ac"]:
        misses.pop(k, None)
    # Round 9: Composer's two train metrics over the logits after every micro-batch (workload.rs
    # TrainingSetup::logit_metrics, 28 B per token x vocabulary entry in bf16) brought the MPT-125M
    # rows (+21.9 to +27.4% -> +0.7 to +7.9%) and MPT-760M's A100-80GB s1k row (+20.4% -> +16.8%)
    # within band; the earlier diagnosis (per-kernel floors, FSDP per-unit overlap, SM contention
    # ruled out; the 8 -> 16 GPU step pattern) is in docs/methodology.md "Composer's train metrics".
    # Stop 38 (mpt19): what llm-foundry / Composer ran for the four remaining MPT misses, read at
    # the tables' own commits (docs/notes/notes-mpt19.md); no mechanism found to model, the texts
    # say what was checked and what the earlier tables of the same rows published.
    misses["mpt760m-a100-80g-8gpu-s512"] = (
        "FIXME: +23.6% (+23.8% before stop 38's fp32 gradient reduce-scatter of FSDP DEFAULT, +27.8% before "
        "round 9's train metrics over the logits, TrainingSetup::logit_metrics): a slowdown of the October 2023 re-run, not of the configuration (stop 38). The A100-80GB table at "
        "8c8dd48f is llm-foundry PR #543's re-run (b2a43a147, 2023-10-19, amp_bf16 / DEFAULT, mosaicml "
        ">=0.16.4,<0.17; its message: 'added back old numbers that I didn't reproduce'). The table it replaced "
        "(llm-foundry ef350d9e6, from mosaicml/examples examples/llm/throughput/README.md of April 2023, "
        "bf16 / PURE; that repository's pins at 71dd21bd: torch 1.13.1, mosaicml 0.13.2) gives this row, at the same 8 GPUs, micro-batch 96 and 2 accumulation "
        "steps, as 36,719 tokens/s/GPU (56.2% MFU), which the model puts at -0.9% (the s1k row, micro-batch 48: "
        "34,888, -0.5%). Between the two runs, of the other 37 125M-3B rows re-run at the same micro-batch 36 "
        "moved -1.9% to +3.9% (350M s32k +10.6%), these two -19.8% (s512) and -14.7% (s1k). Checked and not "
        "the cause: DEFAULT against PURE mixed precision (every other row of the re-run switched with it; its "
        "fp32 gradient reduce-scatter, composer/trainer/mosaic_fsdp_utils.py @v0.16.4 l.87-90, is modelled "
        "since stop 38: 0.2 points here); memory (the s512 and s2k rows hold the same 49,152 tokens per micro-batch and are "
        "estimated alike, 65.2 GiB allocated, 72.8 of 79.2 GiB needed; s2k is -1.9%). Ruled out in rounds 8 "
        "and 9: per-kernel launch floors, FSDP's per-unit overlap and the SMs of its collectives, Composer's "
        "per-micro-batch train metrics (modelled, 4.0 points here).")
    misses["mpt1b-a100-40g-32gpu-s2048"] = (
        "FIXME: +26.0% (+28.8% before round 9's train metrics over the logits): the row is 18% below both "
        "neighbours of its own series (MPT-1B at 2k tokens on A100-40GB: "
        "16 GPUs 19,085, 32 GPUs 15,555, 64 GPUs 19,001, 128 GPUs 18,647 tokens/s/GPU; micro-batch 8-10), which "
        "the model puts at +2.7%, +2.9% and +4.5%. A slowdown of this one run (its MFU 45.4% against 54.4-55.7% "
        "for the others) that no modelled mechanism follows; kept, not skipped, since the row itself is "
        "consistent (its MFU matches its tokens/s). Checked (stop 38): the row is as first published in "
        "mosaicml/examples 71dd21bd (2023-04-04, the A100-40GB table's only run, unchanged in every later "
        "table), so no second measurement exists; the same run's software (torch 1.13.1, mosaicml 0.13.2, "
        "FSDP PURE with limit_all_gathers and non-reentrant checkpointing set by submit_benchmarks.py l.303-304) "
        "is that of its in-band neighbours; the April 2023 A100-80GB table ran the same 32-GPU point at "
        "micro-batch 20 at 19,446 tokens/s/GPU (56.7% MFU).")
    misses["mpt70b-a100-40g-64gpu-s2048-ac"] = (
        "FIXME: +35.2% (+40.2% before round 8's SM contention of the overlapped collectives, train/contention.rs): "
        "MPT-70B on 64 A100-40GB at micro-batch 2 runs 276 tokens/s/GPU (35.9% MFU) while the "
        "128-GPU row at micro-batch 4 runs 376 (48.9%, +1.2% modelled). Checked (stop 38): both rows are one "
        "run of mosaicml/examples 71dd21bd (2023-04-04: torch 1.13.1, mosaicml 0.13.2, Triton attention, bf16 / "
        "PURE; submit_benchmarks.py l.303-304 sets non-reentrant checkpointing and limit_all_gathers, so FSDP's "
        "rate limiter was on), unchanged in every later table. Memory pressure is not what the estimate shows: "
        "30.0 GiB allocated, 33.8 of the 39.4 GiB needed (86%; the 128-GPU row 83%), 5.6 GiB free for a "
        "1.6 GB gathered layer, so no allocator retries follow from it; the table publishes no memory. The "
        "modelled FSDP traffic is 2.62 s of the 10.97 s step, 2.60 s of it hidden: losing all that overlap "
        "would leave +12.5%, but no mechanism for such a loss at micro-batch 2 and not at 4 is identified. The "
        "mb2 pattern of the MPT-13B H100 rows is modelled since round 8 (the overlapped collectives hold 16 of "
        "the A100's 108 SMs across nodes): it moves this row 4.9 points.")
    misses["mpt30b-a100-80g-8gpu-s8192-ac"] = (
        "FIXME: +22.3% (+22.8% before stop 38's fp32 gradient reduce-scatter of FSDP DEFAULT, +24.6% before "
        "round 8's SM contention of the overlapped collectives, train/contention.rs), "
        "the H100 30B row's anomaly on A100-80GB (round 5, held out): at micro-batch 1 with 21 "
        "accumulation steps the published rate falls from 814 (s4096, -7.4% modelled) to 574 tokens/s/GPU at "
        "s8192, per-token time +0.514 ms for the added 4k tokens of span where the s2048 -> s4096 step costs "
        "+0.137 ms on the same GPUs (916 -> 814); attention's share grows linearly in the span, so the kernel "
        "model gives about twice, not 3.8x. Lead (stop 38), not modelled: memory pressure. Full-shard states "
        "of 30B over 8 GPUs are 16 B/param / 8 = 60 GB, and the estimate puts this run at 70.4 GiB allocated, "
        "78.5 of the 79.2 GiB needed (99.2%; s4096 93.5%, s2048 96.2%; the H100 twin "
        "mpt30b-h100-8gpu-s8192-ac, +18.5% within band, 99.9%), where the MPT-13B A100-80GB rows to s32768 "
        "(26 GB of states) have no such step. Near the limit torch's caching allocator frees its cached "
        "blocks and retries cudaMalloc (c10/cuda/CUDACachingAllocator.cpp, DeviceCachingAllocator::malloc: "
        "release_cached_blocks() then alloc_block(params, true), counted in num_alloc_retries), which "
        "synchronizes the device and with it FSDP's prefetch overlap; but the table publishes neither memory "
        "nor retries and the estimate's 0.6 GiB margin is below its own error, so a threshold could only be "
        "fitted to this row. The April 2023 run of the same configuration (llm-foundry ef350d9e6, from "
        "mosaicml/examples' April 2023 table, bf16 / PURE) published 622 tokens/s/GPU, +12.8% modelled; the re-run "
        "made the 30B s512-s4096 rows 5-16% faster and this one 7.7% slower.")
    # Within their band since the shape-aware compute model (issue 10): element-wise traffic and
    # the last pipeline stage's LM head explain the small-GEMM over-prediction.
    for k in ["megatron-175b-ptd-384gpu", "megatron-a100-1.7b-32gpu", "megatron-a100-18b-256gpu"]:
        misses.pop(k, None)
    for k, why in misses.items():
        CASES[k]["known_deviation"] = why
    CASES["torchtune-llama31-70b-lora-8xa100"]["known_deviation"] = (
        "+10.6% since FSDP2's root unit is modelled (−1.0% before). Established (stop 36, measured): the "
        "published 27.6 GiB is below what lora_finetune_distributed.py @30b8519e8 allocates at the README note's "
        "configuration (batch 2, packed to 2048 tokens), so the row did not run that configuration. The recipe "
        "was run on CPU in its `_setup_model` order (tools/measure_torchtune_lora.py: torchtune @30b8519e8, FSDP2 "
        "on one gloo rank, a shrunk Llama 3.1 with 70B_lora.yaml's LoRA, AC and loss settings; "
        "validation/torchtune-lora-measured.json, tests/measured_torchtune_fsdp2.rs): it keeps the root unit "
        "(embedding, final norm, LM head) gathered through backward, one checkpointed layer input of 2·h B per "
        "token per layer, two gathered layer units at each layer's compute and a third at each forward unshard "
        "(FSDP2's `wait_for_unshard` copies out while its `prev_all_gather_state` local still holds the previous "
        "output; modelled since stop 37, the timeline's 'forward: unshard'). The measurement's backward shows a "
        "third unit at each prefetch too, which is gloo's all-gather temporary (ProcessGroupGloo "
        "AsyncAllgatherWork::allgather, newLikeFlat), not allocated by NCCL. At 70B the last forward unshard holds "
        "the base shard (16.43 GiB) + the root (3.91 GiB) + three 1.60 GiB units + 79 saved inputs of 64 MiB "
        "(4.94 GiB) = 30.2 GiB before any working set, the estimate's 'forward: unshard'; its peak is a layer's "
        "backward, 30.5 GiB. No statistic torchtune logs reads "
        "below the allocation (training/memory.py get_memory_stats: `active_bytes.all.peak` counts every "
        "allocated block until it is freed, `max_memory_allocated`, `max_memory_reserved` ≥ allocated), and the "
        "peak figures are bytes / 1024**3 (l.210-214), GiB as quoted. Which configuration the run had is not "
        "published: the yaml at that commit (batch 2, alpaca unpacked, padded to the batch's longest sample, "
        "`log_peak_memory_stats: False`) stays within 27.6 GiB up to ~2,000 tokens a step (the recipe's "
        "25.1 GiB with three units + 80 inputs of 16 KiB a token), as two unpacked alpaca samples padded to "
        "the longer one mostly are. Re-read in round 13 at "
        "30b8519e8 for anything that frees what the estimate holds: no activation offloading, no "
        "`custom_sharded_layers` (embedding and LM head stay in the root), `fsdp_reshard_after_forward` True, "
        "AC on each TransformerSelfAttentionLayer, `compile_model` per layer on torch >= 2.5 (_compile.py "
        "l.35-49); none frees a checkpointed input or the root's gather. The 405B QLoRA row of the same recipe "
        "and table runs above too (its deviation).")
    CASES["torchtune-llama31-405b-qlora-8xa100"]["known_deviation"] = (
        "+30.4% at the batch 2 the README's note states for every row ('all the below numbers are provided for "
        "batch size 2'); +7.8% at 405B_qlora.yaml's `batch_size: 1` (@30b8519e8), which this case took until "
        "stop 35. Established (stop 36, measured): the published 44.8 GB is below what the recipe allocates at "
        "the note's batch 2 × 2048 packed tokens, so the row did not run the note's configuration. The recipe, "
        "lora_finetune_distributed.py @30b8519e8, is the 70B LoRA row's, run on CPU in its `_setup_model` order "
        "(tools/measure_torchtune_lora.py, tests/measured_torchtune_fsdp2.rs, bf16 LoRA): the root unit "
        "gathered through backward and one checkpointed input of 2·h B per token per layer, as the estimate "
        "holds them. Here: the NF4 shard with the adapters' states (25.68 GiB) + the bf16 root (embedding, "
        "final norm, LM head: 7.83 GiB) + 126 saved inputs of 128 MiB (15.75 GiB) + two NF4 layer units (3.06 "
        "GiB) = 52.3 GiB before any working set (the third unit FSDP2 holds at each forward unshard, measured for "
        "bf16 units, is modelled since stop 37 in the timeline's 'forward: unshard', below the backward peak; "
        "torchao's NF4 all-gather, whose unit it takes as packed, was not run). No statistic torchtune logs reads below "
        "the allocation (training/memory.py get_memory_stats: active ≥ allocated, reserved ≥ allocated). At the "
        "yaml's batch 1 the same floor is 44.4 GiB (126 inputs of 64 MiB, 7.88 GiB) and the "
        "estimate 48.3 GiB (+7.8%): the published figure fits the yaml's batch, not the note's; the case keeps "
        "the note's (the only configuration the table states). 'GB' read as GiB like the table's other rows.")
    CASES["torchtune-llama31-70b-full-8xa100-tps"]["known_deviation"] = (
        "+80.4%: the host CPU's optimizer step is not timed, because the host is not stated with the row. "
        "FSDP CPU offload steps torch's AdamW on the host (the README: '** = Uses CPU offload with fused "
        "optimizer') over each rank's 8.82B bf16 parameters, and torchtune's recipe gives each of the 8 ranks "
        "os.cpu_count() // 8 threads (training.set_torch_num_threads(), full_finetune_distributed.py "
        "@30b8519e8 l.746-749), overriding torchrun's OMP_NUM_THREADS=1: the rank's share of a host whose "
        "vCPUs are not published. The published step is 20.90 s (8 GPUs x 2 x 2048 = 32,768 tokens at 1,568 "
        "tokens/s), the estimate's 11.58 s. At the fused bf16 rate measured per core on a Xeon "
        "(validation/host-adam-measured.json) the missing 9.3 s would be 0.75 physical cores per rank (12 "
        "vCPUs for the node), fewer than any 8 x A100 instance in the catalog has (64 to 164): either the "
        "run's host was small or its step is bound by more than the per-core rate (host memory bandwidth, "
        "not in the catalog, is one candidate); not established. Stop 36 timed it at one core per rank "
        "(torchrun's default, +13.6%), which the recipe overrides (review r17 #1).")
    CASES["deepspeed-zero3-t5-3b-8gpu"]["known_deviation"] = (
        "Established (the published number is a formula's output, not a measurement): the docs' 6.10 GB is "
        "DeepSpeed's ZeRO-3 estimator, 4·largest_layer_params + 18·P/N (deepspeed/runtime/zero/stage3.py "
        "@38327e07 l.3019, 3038; additional_buffer_factor scales only its CPU column), exactly "
        "(4 × 32.9M + 18 × 2.851e9 / 8) B / 2^30 = 6.10 for t5-3b on 8 GPUs. That formula is below the engine as stage3.py allocates it: the 16-bit parameter partition "
        "(lp_param_buffer, l.1018-1025), the 16-bit gradient partition (grad_partitions_flat_buffer, l.547-549), "
        "fp32 master weights and Adam states, and at the step the fp32 gradient of each sub-group "
        "(_prepare_fp32_grad_for_sub_group, l.1895-1905): 20·P/N = 6.64 GiB for t5-3b on 8 GPUs, which gpuplan's "
        "`deepspeed` accounting charges; and the estimator's largest layer is one module (the 32.9M-parameter "
        "embedding, 0.12 GiB) where the engine's parameter coordinator, replayed on the step's tensor trace "
        "(train/zero3.rs deepspeed_live_peak; partitioned_param_coordinator.py @38327e07 fetch_sub_module, "
        "__params_to_release), prefetches up to stage3_prefetch_bucket_size (5e7 elements) at every module "
        "until stage3_max_live_parameters (1e9) are gathered and keeps tensors used again within "
        "stage3_max_reuse_distance (1e9): 1.03e9 elements, 1.91 GiB in fp16 at the peak. +39.6%, above the "
        "estimator (+12.9% with a whole T5 block and its prefetched neighbour gathered, 0.25 GiB; −8.8% before "
        "the fp32 gradient partition was counted).")

    os.makedirs("cases", exist_ok=True)
    for cid, c in CASES.items():
        r = rows[row_id(cid)]
        out = ["# GENERATED by tools/gen_cases.py from shared/reference/public-benchmarks.jsonl; edit the generator.",
               f"id = {tv(cid)}", f"kind = {tv(c['kind'])}", f"metric = {tv(c['metric'])}",
               f"published = {tv(float(c['published']))}", f"unit = {tv(c['unit'])}",
               f"source = {tv(r['source'])}", f"quote = {tv(r['quote'])}",
               f"notes = {tv(c.get('notes', '') + (' Research note: ' + r['notes'] if r.get('notes') else ''))}"]
        for k in ["in_sample", "known_deviation", "steady_state"]:
            if c.get(k):
                out.append(f"{k} = {tv(c[k])}")
        out.append("")
        table("workload", c["workload"], out)
        open(f"cases/{cid}.toml", "w").write("\n".join(out) + "\n")
    skipped = sorted(set(rows) - {row_id(k) for k in CASES})
    # The hand-written sections after the generated list ("## …") are kept as they are.
    try:
        old = open("cases/SKIPPED.md").read()
        kept = old[old.index("\n## "):] if "\n## " in old else ""
    except FileNotFoundError:
        kept = ""
    with open("cases/SKIPPED.md", "w") as f:
        f.write("# Published cases not converted\n\n")
        reasons = {
            "opt-175b-throughput": "secondary summary; TP degree and micro-batch not given, 'up to' figure",
            "opt-175b-gpu-hours": "180B-token figure conflicts with the 300B tokens of the same document",
            "opt-175b-33days-1024gpu": "4.3e23 FLOPs for 300B tokens does not match 6·N·D (3.2e23); the FLOP basis is unclear",
            "peft-t0-3b-full-a100": "batch size, sequence length and precision not stated (estimation.md pitfall 3)",
            "peft-t0-3b-lora-a100": "batch size, sequence length and precision not stated",
            "peft-mt0-xxl-lora-a100": "batch size, sequence length and precision not stated",
            "peft-bloomz-7b1-lora-a100": "batch size, sequence length and precision not stated",
        }
        for s in skipped:
            f.write(f"- `{s}`: {reasons.get(s, 'not converted yet')}\n")
        f.write(kept)
    print(len(CASES), "cases;", len(skipped), "skipped")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "../shared/reference/public-benchmarks.jsonl")
