#!/usr/bin/env python3
"""Generate cases/mem-*.toml (issue 9: published training-memory peaks) from cases/sources/mem.jsonl.

Each source record holds the published setup, the figure, what the framework's number measures
(torch.cuda.max_memory_allocated vs max_memory_reserved vs nvidia-smi), the source (repo@commit
path line) and the exact quote. The mapping to a gpuplan workload is written out below; the metric
is chosen by what the number measures (peak_allocated_gb / peak_allocated_gib / peak_reserved_gib /
device_total_gib). Run from the repo root:  python3 tools/gen_cases_mem.py
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gen_cases import table, tv  # noqa: E402


def litgpt_lora(r):
    """LitGPT finetune/lora.py @8641822 (resource-tables.md): bf16-true, LoRA r=8 on query+value
    (LitGPT's fused qkv linear, one adapter input), no checkpointing, longest Alpaca sample 1304."""
    s = r["setup"]
    quant = s["quantization"] != "none"
    t = dict(task="qlora" if quant else "lora", framework="litgpt", precision="pure_bf16", adapter_dtype="bf16",
             micro_batch=s["micro_batch"], seq_len=1304, recompute="none", attention="flash",
             lora=dict(rank=8, targets=["q_proj", "v_proj"],
                       base={"none": "bf16", "bnb.nf4-dq": "nf4", "bnb.nf4": "nf4_no_dq"}[s["quantization"]]))
    notes = ("LitGPT @8641822 finetune/lora.py, --precision bf16-true: bf16 weights, adapters and AdamW states; "
             "LoRA r=8 on query and value; no activation checkpointing; the first batch holds the longest Alpaca "
             "sample (1304 tokens with the Llama 2 tokenizer). Published as torch.cuda.max_memory_allocated()/1e9 "
             "(metric peak_allocated_gb: no allocator reserve, no CUDA context). Modelled with the litgpt framework "
             "profile (LitGPT's fused qkv and LoRA modules, its 128-token chunked bf16 loss and validate() pass; "
             "measured on CPU, tools/measure_litgpt.py --old); lit-gpt @8641822 predates the RMSNorm fp32 upcast "
             "(PR #606, 6178c7cc, 2023-10-24): rmsnorm_fp32 = false.")
    # The first iteration holds the longest sample (finetune/lora.py @8641822 l.212), with no step
    # before it: no previous logits; and this lit-gpt predates the RMSNorm fp32 upcast.
    t["keeps_previous_graph"] = False
    t["rmsnorm_fp32"] = False
    if quant:
        # bitsandbytes 0.41.1 (resource-tables.md line 10): MatMul4Bit keeps its input whenever it
        # needs a gradient (bitsandbytes 0.41.0 autograd/_functions.py line 522-523; removed by PR
        # #1270, 9e75374, first in 0.43.2).
        t["bnb_saves_inputs"] = True
        dq = s["quantization"] == "bnb.nf4-dq"
        notes += (f" {s['quantization']} base ({'4.127' if dq else '4.5'} bits/weight{'' if dq else ', no double quantisation'}), "
                  "bitsandbytes 0.41.1 PagedAdamW with 32-bit states; "
                  "bitsandbytes < 0.43.2 keeps every 4-bit linear's input for backward (bnb_saves_inputs, "
                  "bitsandbytes@a06a0f6 (0.41.0) bitsandbytes/autograd/_functions.py lines 522-523 "
                  "`if any(ctx.needs_input_grad[:2]): ctx.tensors = (A, B)`; fixed by PR #1270). "
                  + HEAD_NOTE +
                  " The previous step's kept inputs (keeps_previous_graph) do not raise this peak: the first "
                  "iteration holds the longest sample (finetune/lora.py @8641822 l.212, l.292), with no step "
                  "before it.")
    return dict(kind="train_memory", metric="peak_allocated_gb", published=r["result"]["max_memory_allocated_gb"],
                unit="GB = 1e9 B (torch.cuda.max_memory_allocated)", notes=notes,
                workload=dict(kind="training", model=s["model"], training=t,
                              hardware=dict(gpu="a100-40g", gpus_per_node=1, nodes=1)))


HEAD_NOTE = ("Lightning's BitsandbytesPrecision gets no ignore_modules from LitGPT (finetune/lora.py l.118), so "
             "the LM head is quantized too (quantized_lm_head): 4-bit storage, and each forward dequantizes it "
             "to fp16 and casts to bf16 (4 B per weight, bitsandbytes 0.41/0.42 _functions.py l.516; Lightning "
             "quantizes from fp16, bitsandbytes.py @b19c3a9 l.335) while every activation is live.")


def litgpt_hub(r):
    """LitGPT config_hub/finetune/*.yaml (Mar-Apr 2024, README benchmark table, 1xA10G): bf16-true,
    LoRA r=32 on query+value (LitGPT's fused qkv), no checkpointing, max_seq_length 512 (see the
    record's seq_len_note), bnb.nf4 without double quantisation for QLoRA, bitsandbytes 0.41/0.42
    (< 0.43.2: the 4-bit matmul keeps its input), PagedAdamW when quantized."""
    s = r["setup"]
    quant = s["quantization"] != "none"
    t = dict(task="qlora" if quant else "lora", framework="litgpt", precision="pure_bf16", adapter_dtype="bf16",
             micro_batch=s["micro_batch"], seq_len=s["seq_len"], recompute="none", attention="flash",
             lora=dict(rank=s["lora_rank"], targets=["q_proj", "v_proj"], base="nf4_no_dq" if quant else "bf16"))
    notes = (f"{s['framework']}: --precision bf16-true (bf16 weights, adapters and AdamW states); LoRA r=32 on "
             "query and value; no activation checkpointing; micro-batch padded to its longest sample, samples "
             "truncated to max_seq_length 512 (assumed reached: at least one Alpaca2k sample is 512+ tokens). "
             "Published as torch.cuda.max_memory_allocated()/1e9 (metric peak_allocated_gb). Modelled with the "
             "litgpt framework profile (LitGPT's fused qkv and LoRA modules, its 128-token chunked bf16 loss and "
             "validate() pass; measured on CPU, tools/measure_litgpt.py). The loop holds the previous step's logits until the next "
             "forward returns (litgpt/finetune/lora.py `logits = model(input_ids, lm_head_chunk_size=128)`, l.243 "
             "@4a9b7e62): keeps_previous_graph, the previous micro-batch assumed as long as this one.")
    if s["model"] == "Llama-3.1-8B":
        notes += " Meta-Llama-3-8B has the shapes of the Llama-3.1-8B preset (same layers, widths, vocab 128256)."
    if "hf_config" in s:
        notes += f" Model shapes from {s['hf_config_source']}."
    if quant:
        t["bnb_saves_inputs"] = True
        t["paged_optimizer"] = True
        notes += (" bnb.nf4 base without double quantisation (Lightning BitsandbytesPrecision mode nf4: "
                  "compress_statistics=False, 4.5 bits/weight); bitsandbytes < 0.43.2 keeps every 4-bit "
                  "linear's input for backward (bnb_saves_inputs, fixed by PR #1270); PagedAdamW (states in "
                  "unified memory, outside the allocator's peak). " + HEAD_NOTE +
                  " With the previous step's graph held, the inputs its 4-bit matmuls kept in ctx.tensors (not "
                  "save_for_backward: backward does not free them) stay live through this forward too.")
    workload = dict(kind="training", model=s["model"], training=t,
                    hardware=dict(gpu="a10", gpus_per_node=1, nodes=1))
    if "hf_config" in s:
        workload["config"] = s["hf_config"]
    return dict(kind="train_memory", metric="peak_allocated_gb", published=r["result"]["max_memory_allocated_gb"],
                unit="GB = 1e9 B (torch.cuda.max_memory_allocated)", notes=notes, workload=workload)


def titan_memory(r):
    """torchtitan's Dec 2024 H100 benchmark (benchmarks/llama3_h100_202412_torchtitan.md): the
    Memory(GiB) column of the same rows as the t-titan-* throughput cases, whose layout mapping
    (gen_cases_t.titan) is reused: FSDP2 over the dp_shard_cp mesh, TP with sequence parallel,
    per-op selective or full activation checkpointing, PP micro-batches = PP degree."""
    from gen_cases_t import titan
    t = titan(dict(r, result={"tokens_per_s_per_gpu": 0.0}))
    w = t["workload"]
    # The stated pipeline split, as the throughput case words it (interleaved: each rank's share of the
    # 2 x PP virtual stages; notes-titan19: rank 0 holds 7 + 8 = 15 layers, not ceil(126/8) = 16).
    split = t["notes"].split(" Stages split")[1].rstrip(".") if " Stages split" in t["notes"] else None
    notes = ("torchtitan 9dec370 pre-training on Grand Teton H100s (96 GB HBM2e, 2.4 TB/s, 500 W: the catalog's "
             "h100-sxm-96g-hbm2e; the memory estimate does not depend on the capacity). FSDP2 (fully_shard) with bf16 parameters and "
             "fp32 reduce over the dp_shard_cp mesh (parallelize_llama.py @9dec370 lines 79-91: ZeRO shards over "
             "DP x CP), TP with sequence parallel and loss parallel, AdamW; per-op selective checkpointing "
             "(_save_list, every other mm, lines 214-262) or full checkpointing as the table states; under PP "
             "reshard_after_forward=False (line 329) and the pipeline stage's backward without gradient sync "
             "until the last micro-batch (torch/distributed/pipelining/stage.py backward_maybe_with_nosync), so "
             "each stage keeps its gathered bf16 weights and fp32 unsharded gradients (FSDP unsharded stage). "
             "Published as max_reserved_gib (torch.cuda.memory_stats reserved_bytes.all.peak / 2^30; "
             "torchtitan/metrics.py @9dec370 line 62, train.py line 393), maximum over all GPUs: metric "
             "peak_reserved_gib (peak allocated + the allocator reserve). "
             + (f"Stages split{split}. " if split and w["training"]["parallel"].get("virtual_stages", 1) > 1 else "")
             + "Table context: " + r["context"])
    return dict(kind="train_memory", metric="peak_reserved_gib", published=r["result"]["max_reserved_gib"],
                unit="GiB (torch.cuda.memory_stats reserved_bytes.all.peak)", notes=notes, workload=w)


def trainy_workload(s):
    """The workload of Trainy's torchtitan e7c0cae H200 rows (shared by their memory and throughput
    cases): Llama 3.1 8B, FSDP over all GPUs, local batch 2 x 8192, per-op SAC, compile, Float8."""
    training = dict(task="pretrain", precision="fp8", micro_batch=2, seq_len=8192, grad_accum=1,
                    recompute="selective_op", attention="flash", compiled=True, compiled_loss=True,
                    parallel=dict(tp=1, pp=1, cp=1, zero=3, fsdp_version=2))
    # torchao's Float8Linear (torchtitan's float8 converter, recipe "tensorwise"), not Transformer
    # Engine: the memory model keys TE's FP8 saved tensors on the delayed recipe.
    training["fp8_scaling"] = "tensorwise"
    return dict(kind="training", model="Llama-3.1-8B", training=training,
                hardware=dict(gpu="h200", gpus_per_node=8, inter_link="rdma", inter_gbit=3200.0, nodes=s["nodes"]))


def trainy_memory(r):
    """Trainy's torchtitan e7c0cae run on 4 and 8 nodes of 8 H200 (June 2025): Llama 3.1 8B,
    FSDP over all GPUs, local batch 2 x 8192, per-op SAC, compile, Float8 linears."""
    w = trainy_workload(r["setup"])
    notes = ("torchtitan e7c0cae (June 2025) on H200s: FSDP2 over all GPUs (data_parallel_shard_degree -1), "
             "local batch 2, seq_len 8192 and per-op selective checkpointing from train_configs/llama3_8b.toml "
             "@e7c0cae (lines 34, 56-57), --training.compile, Float8 linears (tensorwise, FSDP float8 all-gather). "
             "By e7c0cae --training.compile compiles the loss as well (torchtitan/components/loss.py @e7c0cae lines "
             "25-30: loss_fn = torch.compile(loss_fn)): compiled_loss = true, only the bf16 logits stay (the fused "
             "cross-entropy measured on CPU for torchtune's chunked loss; the unchunked graph assumed alike; the eager "
             "loss, 12 B per logit, put these rows at +38...+40%). "
             "Published as max_reserved_gib (metric peak_reserved_gib). " + r["context"])
    return dict(kind="train_memory", metric="peak_reserved_gib", published=r["result"]["max_reserved_gib"],
                unit="GiB (torch.cuda.memory_stats reserved_bytes.all.peak)", notes=notes, workload=w)


# bert-large-uncased config.json (huggingface.co/google-bert/bert-large-uncased): the preset's
# shapes plus the two dropout rates the preset leaves out (BertConfig defaults, 0.1 each), which
# put dropout masks and the dropped-out attention probabilities among the saved activations.
BERT_LARGE = dict(model_type="bert", hidden_size=1024, intermediate_size=4096, num_hidden_layers=24,
                  num_attention_heads=16, vocab_size=30522, max_position_embeddings=512, type_vocab_size=2,
                  hidden_act="gelu", layer_norm_eps=1e-12, hidden_dropout_prob=0.1,
                  attention_probs_dropout_prob=0.1)


def hf_docs_bert(r):
    """transformers docs "Efficient Training on a Single GPU" (@0016acf7, Jan 2022): bert-large-uncased
    sequence classification on a V100-SXM2 16GB, 512 x 512-token random samples, HF Trainer; NVML
    memory used after trainer.train() (nvidia-smi)."""
    s = r["setup"]
    optim = {"adamw_hf": "adam_w", "adafactor": "adafactor", "bnb.optim.Adam8bit": "adam_w8bit"}[s["optim"]]
    t = dict(task="full_finetune", precision="amp_fp16" if s["fp16"] else "fp32", optimizer=optim,
             micro_batch=s["micro_batch"], seq_len=512, grad_accum=s["grad_accum"],
             recompute="full" if s["gradient_checkpointing"] else "none", attention="eager",
             optimizer_foreach=False, persistent_grads=True)
    if s["fp16"]:
        t["autocast"] = True
    notes = ("HF Trainer of January 2022 (nvidia-smi header: driver 460.91.03, CUDA 11.2; transformers ~4.16, "
             "PyTorch 1.10): bert-large-uncased (AutoModelForSequenceClassification), eager attention with "
             "dropout 0.1 (hidden_dropout_prob and attention_probs_dropout_prob of the model's config.json, given inline), sequences of 512 tokens; default optimizer adamw_hf (transformers.optimization.AdamW: "
             "a per-parameter loop, no foreach temporaries), Adafactor (optim=\"adafactor\") or "
             "bitsandbytes Adam8bit passed to the Trainer; fp16=True is torch.cuda.amp autocast over the fp32 "
             "weights (autocast); gradient_checkpointing=True checkpoints each BertLayer (recompute full). "
             "Gradients persist between steps (persistent_grads): the Trainer clears them with model.zero_grad() "
             "(transformers 4.16 trainer.py), and PyTorch < 2.0 Module.zero_grad(set_to_none=False) zeroes the "
             "fp32 .grad tensors in place instead of freeing them (torch/nn/modules/module.py v1.10.0), so "
             "from the second step on every phase holds the full gradient buffer. "
             "Published: NVML memory used (print_gpu_utilization: nvmlDeviceGetMemoryInfo(handle).used // "
             "1024**2, the same number nvidia-smi shows, in MiB) after trainer.train(): the caching "
             "allocator's reserved peak (it frees nothing back during training) + the CUDA context; metric "
             "device_total_gib = published MiB / 1024. The same page measures the context on this V100: "
             "torch.ones((1, 1)).to(\"cuda\") -> \"GPU memory occupied: 1343 MB.\" (cuda_context_gib = 1343/1024; "
             "no NCCL on one GPU).")
    w = dict(kind="training", model="BERT-large-uncased", config=BERT_LARGE, training=t,
             hardware=dict(gpu="v100-sxm2-16g", gpus_per_node=1, nodes=1),
             tunables=dict(cuda_context_gib=round(s["cuda_context_mib"] / 1024, 4)))
    return dict(kind="train_memory", metric="device_total_gib", published=round(r["result"]["nvml_used_mib"] / 1024, 3),
                unit="GiB (NVML memory used = nvidia-smi, published in MiB)", notes=notes, workload=w)


# The guide's sections came in with PEFT PR #1489 (2024-02-26: DeepSpeed LoRA on 8 x H100, FSDP) and
# #1550 (2024-03-13: QLoRA with DeepSpeed ZeRO-3 and FSDP), `git log -S` on docs/source/accelerate.
# torch 2.2 (2024-01-30) pins nvidia-nccl-cu12 2.19.3; every NCCL of that date predates v2.22.3-1
# (2024-06-11), the first to connect at run time, and sizes its buffers the same.
PEFT_NCCL = "2.19.3"
PEFT_NCCL_NOTE = (
    "NCCL 2.19.3 (nccl_version) assumed: the guide's sections date from PEFT PRs #1489 (2024-02-26) and #1550 "
    "(2024-03-13), when torch 2.2's wheel pinned NCCL 2.19.3; any NCCL of that date predates v2.22.3-1 "
    "(2024-06-11) and connects rings, trees and NVLink SHARP buffers at communicator init. ")


def peft_docs(r):
    """PEFT docs (accelerate/deepspeed.md, accelerate/fsdp.md): Llama-2-70B SFT with LoRA or QLoRA
    (examples/sft/train.py), ZeRO-3 or FSDP FULL_SHARD, seq 2048 packed, gradient checkpointing,
    flash-attention 2, LoRA r=8 all-linear, per-GPU memory as stated by the guide."""
    s = r["setup"]
    quant = s["quantization"] != "none"
    gpu = {"H100 80GB": "h100-sxm", "2X40GB (A100 40GB assumed)": "a100-40g",
           "2X24GB (RTX 4090 assumed)": "rtx-4090"}.get(s["gpu"], "a100-80g")
    t = dict(task="qlora" if quant else "lora", precision="amp_bf16", micro_batch=s["micro_batch"], seq_len=2048,
             grad_accum=s["grad_accum"], recompute="full", attention="flash",
             lora=dict(rank=8, targets=["all-linear"], dropout=0.1, base="nf4" if quant else "bf16"),
             parallel=dict(zero=3, offload_params=s["offload_params"]))
    ds = s["engine"].startswith("DeepSpeed")
    if ds:
        t["deepspeed"] = True
    if quant:
        t["bnb_quant_state_replicated"] = True
    t["nccl_version"] = PEFT_NCCL
    w = dict(kind="training", model="Llama-2-70B", training=t,
             hardware=dict(gpu=gpu, gpus_per_node=s["gpu_count"], nodes=1))
    notes = (f"PEFT examples/sft/train.py through TRL SFTTrainer and accelerate: {s['engine']}; Llama-2-70b-hf, "
             "max_seq_len 2048 with packing (every sequence full), bf16, gradient checkpointing "
             f"(use_reentrant={s['use_reentrant']}), flash_attention_2, LoRA r=8 alpha 16 dropout 0.1 on all "
             "linear layers (PEFT 'all-linear' leaves out the LM head), micro-batch "
             f"{s['micro_batch']} x {s['grad_accum']} accumulation steps, {s['gpu_count']} GPUs ({s['gpu']}; the "
             "card's capacity does not change the estimate). ")
    if quant:
        notes += ("QLoRA: bitsandbytes nf4 with double quantisation and bnb_4bit_quant_storage bf16, so the 4-bit "
                  "weights shard like bf16 tensors (ZeRO-3 / FSDP flat parameters); their quantisation constants "
                  "(QuantState: 8-bit absmax per 64 weights and an fp32 absmax per 256 of those, 0.127 bits a "
                  "weight) are no parameters and stay whole on every GPU, neither sharded nor offloaded: "
                  "bitsandbytes keeps them on the module to restore them after FSDP flattens the weight "
                  "(bitsandbytes/nn/modules.py fix_4bit_weight_quant_state_from_module, 'the quant state got lost "
                  "when the parameter got converted. This happens for example for fsdp'): "
                  "bnb_quant_state_replicated. ")
    if ds:
        notes += ("DeepSpeed's engine (deepspeed): accelerate builds the DeepSpeed config from the yaml's "
                  "deepspeed_config keys (examples/sft/configs/deepspeed_config*.yaml @09802c1b; accelerate v1.0.1 "
                  "src/accelerate/utils/dataclasses.py DeepSpeedPlugin, l.1145-1160) without reduce_bucket_size, so "
                  "ZeRO-3 allocates DeepSpeed's default 5e8-element bf16 reduce bucket at start-up "
                  "(deepspeed/runtime/zero/config.py @38327e07 l.109, stage3.py l.537-540). ")
    if s["offload_params"]:
        notes += ("fsdp_offload_params: FSDP CPUOffload(offload_params=True) keeps the sharded parameters and "
                  "their gradients on the host and runs the optimizer there (torch/distributed/fsdp/api.py "
                  "CPUOffload docstring: \"this offloads gradients to CPU as well, meaning that the optimizer step "
                  "runs on CPU\"); the GPU holds the gathered units, the activations and the working set. ")
    notes += PEFT_NCCL_NOTE
    notes += ("The guide does not say how the number was measured; it is read as nvidia-smi (device_total_gib; "
              "the DeepSpeed LoRA section reads it off a screenshot of per-GPU memory, \"64 GB (80%)\" of an 80 GB "
              "card, i.e. NVML used), GB taken as GiB.")
    return dict(kind="train_memory", metric="device_total_gib", published=float(r["result"]["per_gpu_gb"]),
                unit="GiB (per-GPU memory as the guide states it; nvidia-smi assumed)", notes=notes, workload=w)


# Qwen (v1) shapes, config.json on the Hugging Face hub (Qwen/Qwen-1_8B, Qwen/Qwen-7B, Qwen/Qwen-14B):
# hidden_size, num_hidden_layers, num_attention_heads, intermediate_size (QWenMLP uses half of it
# per projection: ff_dim_in = config.intermediate_size // 2, modeling_qwen.py), vocab_size.
QWEN1 = {"1.8B": (2048, 24, 16, 11008, 151936), "7B": (4096, 32, 32, 22016, 151936),
         "14B": (5120, 40, 40, 27392, 152064)}


# The README commit that added each size's LoRA row (git log -S on README.md) and the PEFT release
# current then (finetune.py and docker/Dockerfile install `peft` unpinned). PEFT before 0.7.0
# (2023-12-06) leaves a LoRA Linear's adapters in fp32: v0.5.0 src/peft/tuners/lora.py
# LoraLayer.update_layer l.153-158 creates `nn.Linear(self.in_features, r, bias=False)` (torch's
# default dtype) and moves it with `self.to(self.weight.device)` only; v0.6.2
# src/peft/tuners/lora/layer.py casts to `getattr(self, "weight", None)`'s dtype (l.82-86), but
# Linear.__init__ skips nn.Linear's own init (l.208 `super(nn.Linear, self).__init__()`), so no
# weight exists when it calls update_layer (l.217), and model.py _replace_module then assigns the
# base weight (l.213) and moves the adapters by device only (l.225-227). Measured with PEFT 0.6.2 on
# Qwen-1's code (tools/measure_qwen1.py): 4 B per adapter parameter and per gradient. From v0.7.0
# update_layer reads `self.get_base_layer().weight` (layer.py l.96-100) and the cast takes effect.
QWEN1_ROWS_ADDED = {"1.8B": ("e8e1596", "2023-11-30", "0.6.2 (2023-11-13)", "fp32"),
                    "7B": ("e6f2a7a", "2023-10-11", "0.5.0 (2023-08-22)", "fp32"),
                    "14B": ("e6f2a7a", "2023-10-11", "0.5.0 (2023-08-22)", "fp32")}


# The README's "LoRA (emb)" rows: "LoRA (emb) refers to training the embedding and output layer,
# while LoRA has no trainable embedding and output layer" (README, Profiling of Memory and Speed).
QWEN1_EMB = (
    "the README's LoRA (emb) row (\"LoRA (emb) refers to training the embedding and output layer\"): "
    "finetune.py @e8e1596 l.322-326 sets modules_to_save = [\"wte\", \"lm_head\"] unless q_lora or 'chat' "
    "is in the model path, and PEFT's ModulesToSaveWrapper (src/peft/utils/other.py) keeps the frozen "
    "original and trains copy.deepcopy(module) in the weights' bf16: a second V x h copy of each, its bf16 "
    "gradient and two bf16 AdamW states (lora.modules_to_save; 8 B per parameter, plus the foreach "
    "step's temporary), ")


def qwen1_lora(r):
    """Qwen (v1) README "Profiling of Memory and Speed": single-GPU LoRA (finetune.py, HF Trainer +
    PEFT), A100-SXM4-80G, batch 1 x 8 accumulation, gradient checkpointing, flash-attention 2."""
    s = r["setup"]
    size = s["model"].split()[0].removeprefix("Qwen-")
    h, layers, heads, inter, vocab = QWEN1[size]
    commit, added, peft, adapter = QWEN1_ROWS_ADDED[size]
    config = dict(model_type="qwen", hidden_size=h, num_hidden_layers=layers, num_attention_heads=heads,
                  kv_channels=h // heads, intermediate_size=inter, vocab_size=vocab, no_bias=True,
                  max_position_embeddings=8192, tie_word_embeddings=False)
    t = dict(task="lora", precision="amp_bf16", micro_batch=1, seq_len=s["seq_len"], grad_accum=8,
             recompute="full", attention="flash", adapter_dtype=adapter, optimizer_foreach=True,
             optimizer_foreach_buffers=2,
             lora=dict(rank=64, targets=["c_attn", "c_proj", "w1", "w2"], dropout=0.05))
    saved = s.get("modules_to_save")
    if saved:
        t["lora"]["modules_to_save"] = saved
    w = dict(kind="training", model=f"Qwen-{size}", config=config, training=t,
             hardware=dict(gpu="a100-80g", gpus_per_node=1, nodes=1))
    notes = (f"Qwen-{size} (v1): Qwen's remote code, given as its shapes (config.json: hidden {h}, {layers} layers, "
             f"{heads} heads without GQA, intermediate_size {inter} of which each of w1, w2 and the MLP c_proj "
             f"uses half, vocab {vocab}, untied head, q/k/v bias, no other bias) as model_type qwen. finetune.py "
             "@00dceebb: LoRA r=64, alpha 16, dropout 0.05 on c_attn, c_proj, w1, w2 (every linear but the "
             "head; Qwen's c_attn is one fused q/k/v nn.Linear(h, 3h), so PEFT puts one adapter on it: "
             "r·(h + 3h) parameters and one dropout/adapter input per layer), "
             + (QWEN1_EMB if saved else "the README's LoRA row (no trainable embedding or head), ") +
             "samples right-padded to model_max_length (preprocess pads to max_len), --bf16 with "
             "--gradient_checkpointing, batch 1 x 8 accumulation (README), no DeepSpeed on one GPU; the Trainer's "
             "optim adamw_torch (finetune.py TrainingArguments) is torch.optim.AdamW, foreach on CUDA in "
             "PyTorch 2.0 (optimizer_foreach), whose step holds two state-sized temporaries at once (v2.0.1 "
             "torch/optim/adamw.py l.564-568: exp_avg_sq_sqrt = torch._foreach_sqrt(...), then denom = "
             "torch._foreach_add(exp_avg_sq_sqrt, eps); PyTorch 2.1 adds eps in place): optimizer_foreach_buffers 2. "
             "The remote code sets bf16 weights (autoset precision). The README row was added by commit "
             f"{commit} ({added}); finetune.py installs PEFT unpinned, so the release current then, PEFT {peft}, "
             + ("leaves the adapters in fp32 (v0.5.0 src/peft/tuners/lora.py LoraLayer.update_layer "
                "l.153-158: nn.Linear(in_features, r) in torch's default dtype, then "
                "self.to(self.weight.device) without a dtype; v0.6.x casts to self.weight's dtype, "
                "src/peft/tuners/lora/layer.py @v0.6.2 l.82-86, but a LoRA Linear has no weight yet "
                "when update_layer runs, l.208 and l.217, and _replace_module moves the adapters by "
                "device only, model.py l.225-227; measured with PEFT 0.6.2, tools/measure_qwen1.py: "
                "4 B per adapter parameter; the cast takes effect from 0.7.0, 2023-12-06): "
                "adapter_dtype fp32, so fp32 adapter weights, gradients and AdamW states. ") +
             "The README says \"memory (GB)\" without saying how it was measured: read as nvidia-smi in GiB "
             "(device_total_gib). Model shapes from the Qwen/Qwen-* config.json on the Hugging Face hub; they give "
             "the published parameter counts (1.84B, 7.72B, 14.17B).")
    return dict(kind="train_memory", metric="device_total_gib", published=float(r["result"]["memory_g"]),
                unit="GiB (README 'memory (GB)', measure not stated; nvidia-smi assumed)", notes=notes, workload=w)


QWEN1_MISS = (
    "Qwen-1.8B (v1) README LoRA row, added 2023-11-30 (e8e1596), seven weeks after the 7B and 14B rows "
    "(e6f2a7a, 2023-10-11): the estimate is below the README by 1.1-3.0 GiB at 256-4096 tokens "
    "(-14.7...-18.3%) and -2.1% at 8192, while the 1.8B LoRA (emb) row is within -3.4...-6.9% and the 7B "
    "and 14B rows of both methods within -7.5...+6.0%. Measured, not the model: Qwen's own code "
    "(modeling_qwen.py of Qwen/Qwen-7B @e7a368b, 2023-11-30, mirrored at github.com/zhangningboo/Qwen-7B) "
    "under finetune.py's LoRA step (PEFT 0.6.2, transformers 4.35.2, torch 2.1.2; bf16 weights, LoRA r=64 on "
    "c_attn/c_proj/w1/w2, reentrant checkpointing, autocast bf16, the model's own shifted CrossEntropyLoss, "
    "foreach AdamW) with the 1.8B shapes (hidden 2048, vocab 151936, untied head) at 1 and 2 layers on CPU "
    "(tools/measure_qwen1.py, torch.profiler allocation events): allocated peaks 1.843 GB (1 layer, 256 "
    "tokens), 1.972 GB (2 layers, 256) and 2.315 GB (1 layer, 512) against the estimate's 1.852, 1.990 and "
    "2.321 (+0.5%, +0.9%, +0.3%), the peak in both at log_softmax's backward, as modelled; the code "
    "allocates nothing the estimate misses, fixed, per token or vocabulary-sized. The same run showed "
    "PEFT 0.6.2 keeping the adapters in fp32 (4 B per adapter parameter; until this was measured the "
    "1.8B rows were charged bf16 adapters and were -19.9...-22.8%). What remains is outside the bytes "
    "torch allocates and cannot be measured without the GPU: the README's growth is 2.6 MiB per token "
    "from 1024 to 4096 tokens but 1.4 from 4096 to 8192, where every allocation grows linearly (the "
    "estimate: 2.0 throughout), which points at the caching allocator's reserve around the 0.6-2.3 GiB "
    "fp32 logit buffers (nvidia-smi counts reserved memory), and an offset of about 1.0-1.2 GiB at "
    "256-1024 tokens (candidate: a CUDA context larger than the 0.5 GiB charged). The README does not "
    "say how it measured (if its G is 10^9 B every Qwen error moves by +7.4%).")

PEFT_OFFLOAD_MISS = (
    "FSDP QLoRA with fsdp_offload_params: 19.6 GB per GPU published, the estimate 13.1 GiB (13.6 GiB before "
    "NCCL's buffers were taken from its source: two GeForce cards without P2P run NCCL's SHM transport, whose "
    "buffers are in host memory, where 0.5 GiB had been charged; 14.7 GiB before FSDP's gathered units were modelled by what FSDP1 holds; 13.6 GiB before the bitsandbytes quantisation "
    "constants were kept whole on each GPU, bnb_quant_state_replicated: 1.0 GiB of 8-bit absmax for 68.4B 4-bit "
    "weights, which FSDP neither shards nor offloads; 33.1 GiB before parameter offload was modelled for PEFT). "
    "Diagnosed in part. The guide itself warns under Caveats: \"GPU Memory saving when using CPU Offloading is "
    "untested at present\". Modelled since: the root unit (embedding, final norm and LM head, 524M bf16 "
    "parameters, 0.98 GiB) gathered from forward to the end of backward (torch/distributed/fsdp/_runtime_utils.py "
    "_post_forward_reshard: free_unsharded_flat_param = not state._is_root and ..., 'Do not free the root's "
    "parameters in the post-forward for FULL_SHARD'), the two layer units in flight (current + BACKWARD_PRE "
    "prefetch) in their stored 4-bit bytes, 0.5 B per weight (2 x 0.40 GiB, where 16 bits charged 3.19 GiB), "
    "and bitsandbytes' 16-bit dequantized weight of the linear that runs (MatMul4Bit: "
    "F.dequantize_4bit(B, quant_state).to(A.dtype), 0.44 GiB for a 28672 x 8192 MLP weight). The same guide's "
    "run without offload, 35.6 GB, is within band (-9.2%): offload saved 16.0 GB there and 19.2 GiB in the "
    "estimate, so about 3.2 GiB of the gap is specific to offload and about 3.3 GiB shared with the FSDP row "
    "without it (not identified). Candidates for the offload-specific part, not confirmed: FSDP1's device copy "
    "of each unit's host shard before its all-gather (FlatParamHandle.pre_unshard: flat_param_to(device)), the "
    "LoRA units' gradients on their way to the host, and the allocator's reserve under the host-device copy "
    "stream; the guide does not say how it measured the 19.6 GB, and its script logs no memory figure "
    "(examples/sft/train.py and utils.py @6008f272a, the commit that added the section, call no "
    "torch.cuda memory statistic), so the figure was read outside the script: established that the "
    "measure is unstated, not which it was.")

# Cases outside their band, with the cause. No LitGPT row since the `litgpt` framework profile
# (LitGPT's own modules, measured on CPU by tools/measure_litgpt.py) replaced the HF profile for
# them (the 2023 resource-table QLoRA rows went from -10% to -1.5%). None of torchtitan's rows
# since loss_parallel's decomposed log-softmax and the gathered LM-head input were modelled (the
# 70B FSDP 32 x TP 8 rows went from -24.5% / -19.7% to -9.9% / -4.1%).
MISSES = {"mem-peft-fsdp-qlora-offload-llama2-70b-2x24gb": PEFT_OFFLOAD_MISS}
MISSES.update({f"mem-qwen1-18b-lora-s{s}": QWEN1_MISS for s in (256, 512, 1024, 2048, 4096)})
# Audit r17 #4: a pp that does not divide the layers is no longer sized ceil(L/pp) on every stage; these rows state
# torchtitan's default split, which moves two of them out of band. Recorded, not tuned.
TITAN_405B_SPLIT_MISS = (
    "Out of band since audit r17 (stop 36) stated torchtitan's default pipeline split, 15 | 16 x 6 | 15 layers "
    "(generate_split_points), where the estimate had sized ceil(126/8) = 16 layers on every stage (128 in all): the "
    "first stage's unsharded weights and gradients now follow its 15 layers and its saved activations 15 layers x 8 "
    "micro-batches, 76.68 -> 74.22 GiB. The estimate is the same 74.22 GiB for every sequence length and CP degree of "
    "these five rows (full recompute: the stage's FSDP-unsharded states dominate), while the published peaks range "
    "75.3-84.9 GiB (maximum reserved over 512 GPUs); what grows with the sequence on the heaviest GPU is not modelled. "
    "Identified at stop 38 (docs/notes/notes-titan19.md), not modelled: torch 2.6.0's pipelining keeps on each stage a "
    "gradient receive buffer for every micro-batch (stage.py _prepare_backward_infra) and every micro-batch's stage "
    "output until the next step starts (output_chunks, cleared by clear_runtime_states), 16 x 128 MiB = 2.0 GiB on "
    "stage 0, which would bring these rows to about 76.4 GiB (-7.4% / -10.0%) but lift the interleaved row (two stages "
    "per rank, 4.0 GiB) past its band, the opposite of the published order (interleaved 72.7 < 1F1B 82.5 GiB with the "
    "same 120 layer inputs in flight on rank 0): recorded, not adopted.")
MISSES.update({f"mem-titan-llama31-405b-512gpu-{k}": TITAN_405B_SPLIT_MISS for k in ("1f1b", "cp8-s256k")})


FAMILIES = {"litgpt_config_hub": litgpt_hub, "torchtitan_2024_12": titan_memory,
            "torchtitan_trainy_h200": trainy_memory, "hf_perf_train_gpu_one": hf_docs_bert,
            "peft_docs": peft_docs, "qwen1_readme": qwen1_lora}


def main():
    path = os.path.join("cases", "sources", "mem.jsonl")
    rows = [json.loads(line) for line in open(path) if line.strip()]
    for r in rows:
        fam = r.get("family")
        c = FAMILIES.get(fam, litgpt_lora)(r)
        if r["id"] in MISSES:
            c["known_deviation"] = MISSES[r["id"]]
        out = ["# GENERATED by tools/gen_cases_mem.py from cases/sources/mem.jsonl; edit the generator.",
               f"id = {tv(r['id'])}", f"kind = {tv(c['kind'])}", f"metric = {tv(c['metric'])}",
               f"published = {tv(float(c['published']))}", f"unit = {tv(c['unit'])}",
               f"source = {tv(r['source'])}", f"quote = {tv(r['quote'])}", f"notes = {tv(c['notes'])}"]
        if c.get("known_deviation"):
            out.append(f"known_deviation = {tv(c['known_deviation'])}")
        out.append("")
        table("workload", c["workload"], out)
        open(f"cases/{r['id']}.toml", "w").write("\n".join(out) + "\n")
    print(len(rows), "mem cases")


if __name__ == "__main__":
    main()
