//! Named constants of the estimators: every efficiency factor and overhead, with its value and
//! where the value comes from. All are collected in [`Tunables`] so a user can override any of
//! them (`[tunables]` in a workload file, or `--set name=value`).
//!
//! Values marked *calibrated* were fitted to the named public cases; those cases are then
//! in-sample, and docs/accuracy.md says so next to them.
//! The training constants' fitting rules are code (`refit::FITTED`): docs/accuracy.md §"Refit for
//! the fitted sources" shows what each gives on today's model. Since stop 34 that shows five of
//! the six drifted from their value (fitted on an earlier model, not refit since).

use crate::error::{check_range, CoreError};
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields, default)]
pub struct Tunables {
    /// CUDA context + cuBLAS/cuDNN workspaces, outside PyTorch's allocator. estimation.md §3.5:
    /// "about 0.3–1 GiB, seen by nvidia-smi but not by torch"; we take 0.5 GiB.
    pub cuda_context_gib: f64,
    /// Collective-library buffers per device when more than one GPU takes part, where no source
    /// sizes them: HCCL/RCCL training and the serving engines' NCCL. Assumption: 0.5 GiB. CUDA
    /// training charges NCCL per communicator from its source instead (`train/nccl.rs`).
    pub nccl_buffers_gib: f64,
    /// PyTorch caching-allocator fragmentation, as a fraction of allocated memory. estimation.md
    /// §3.5: "about 5–15%"; we take 10%.
    pub fragmentation: f64,
    /// Share of dense peak FLOP/s that training GEMMs reach on Ampere-class GPUs (A100/A800/A10/
    /// A30), before tile/wave quantization and the memory-bound check of each GEMM (compute.rs);
    /// attention and element-wise work are timed separately since issue 10. *Calibrated* (0.70,
    /// was 0.66 as a whole-step figure): median in-sample error ≈ 0 over the MosaicML FSDP A100
    /// rows marked in-sample (mpt7b/30b/70b-a100-80g, mpt13b-a100-40g).
    pub train_efficiency_ampere: f64,
    /// Same for Hopper (H100/H800/H20). *Calibrated* (0.55, was 0.50 as a whole-step figure) on
    /// the MosaicML FSDP H100 bf16 rows marked in-sample (mpt7b/13b/30b/70b-h100).
    pub train_efficiency_hopper: f64,
    /// Same for every other chip: no published run found, so the midpoint of the two above.
    pub train_efficiency_other: f64,
    /// Share of the tensor peak that CNN training (ResNet-class) reaches, replacing the chip
    /// generation's transformer figure. *Calibrated*: NVIDIA DeepLearningExamples ResNet-50 v1.5
    /// PyTorch, 1 × A100-80GB AMP, 2470 img/s × 3 × 8.18 GFLOP = 60.6 TFLOP/s = 19.4% of 312
    /// (case dle-resnet50-a100-80g-amp-1gpu); the V100 rows of the same table are out-of-sample.
    pub train_efficiency_cnn: f64,
    /// Same for diffusion UNets (SDXL-class: convolutions at high resolution, attention at low).
    /// Assumption, no published training run found: between the CNN (0.20) and transformer
    /// (0.5–0.66) figures, nearer the CNN one because the 1024² stages dominate the FLOPs: 0.25.
    pub train_efficiency_unet: f64,
    /// Card-class factor for power-limited cards (TDP ≤ `low_power_max_tdp_w`: T4 70 W, L4 72 W,
    /// A10 150 W), whose clocks fall under sustained tensor load. Source: the same
    /// DeepLearningExamples ResNet-50 v1.5 AMP inference table (pytorch-21.03, batch 256) gives the
    /// T4 (70 W) 1198 img/s = 15.1% of its 65 TFLOP/s and the V100-SXM2 (300 W) 3382 img/s =
    /// 22.1% of 125: ratio 0.68. Not fitted to any training case.
    pub card_factor_low_power: f64,
    /// Card-class factor for PCIe cards above the low-power class (A30, A40, A100-PCIe, L20, L40S,
    /// RTX): lower sustained clocks at 165–350 W than the SXM parts the base figures were fitted
    /// on. Assumption, no like-for-like published pair found: 0.9.
    pub card_factor_pcie: f64,
    /// TDP at or below which a card counts as power-limited (watts). NVIDIA's A10 (150 W) is the
    /// largest single-slot datacenter card in the catalog; 150.
    pub low_power_max_tdp_w: f64,
    /// Efficiency factor for LoRA/QLoRA: the frozen-base backward skips the weight-gradient GEMMs
    /// (counted in the FLOPs), and the adapters add memory-bound small GEMMs, dropout and adds on
    /// every adapted linear (reading and writing b·s·h activations ≈ 400/h of the main GEMM's time
    /// at A100 ratios: ~10% at h = 4096, more in backward). Derived assumption: 0.85. Since issue
    /// 10 only for models given by totals: transformers time each adapter's GEMMs
    /// (compute.rs `adapter_seconds`).
    pub peft_efficiency_factor: f64,
    /// Share of the Hopper GEMM efficiency that FP8 GEMMs realise against the FP8 peak once the
    /// casts to FP8 are timed separately — the one FP8 chip model of training and serving, for
    /// the **2023 FP8 kernels** (`fp8_kernels = "2023"`: Transformer Engine 0.x, TensorRT-LLM
    /// ≤ 0.6). Training (issue 10) times the casts as bandwidth-bound kernels (compute.rs
    /// `FP8_CAST_BYTES`) and the 16-bit output layer at the 16-bit rate; serving engines fuse the
    /// activation quantisation into the neighbouring kernels (TensorRT-LLM, vLLM's FP8 linear
    /// methods), so their GEMMs pay this ratio alone. *Calibrated* (0.77) on
    /// mpt3b-h100-fp8-8gpu-s2048 (llm-foundry PR #543, TransformerEngine v0.10, 2023-10).
    pub fp8_train_gemm_ratio: f64,
    /// The same share for the **current FP8 kernels** (`fp8_kernels = "current"`, the training
    /// default: Transformer Engine 1.x and later, torchao float8 through `torch._scaled_mm`).
    /// Serving keeps the 2023 ratio by default: no current-engine FP8 serving case supports this
    /// one. The 2023 ratio cannot follow the later stacks: NeMo 24.07 (TE 1.8) runs
    /// the same FP8 pretraining jobs 10–15% faster than the 2023 ratio gives, while the 2023
    /// stacks sit on it (docs/methodology.md, "FP8 kernel generations"). CUTLASS 3.2.0
    /// (2023-08-03, CHANGELOG.md) added the Hopper warp-specialized persistent FP8 GEMMs the
    /// later stacks are built on; no per-release FP8 GEMM rate is published, so the ratio is
    /// *fitted*: on NeMo 24.07's 11 FP8 pretraining rows (t-nemo-*-h100-fp8 without -sft/-lora,
    /// signed median error 0), reported in-sample; Megatron-Bridge, torchtitan, Trainy and the
    /// NeMo 24.07 fine-tuning rows are out-of-sample evidence for it. Refit at stop 41 by the same
    /// rule, 0.92 -> 0.90 (the rule as code: 0.904), when `attention_efficiency_hopper_te` took
    /// the FA-3 paper's measured cuDNN rate (0.39 -> 0.51): the 0.92 had been fitted over an
    /// attention a third too slow, and so made those rows' FP8 GEMMs fast enough to hide it.
    pub fp8_gemm_ratio_current: f64,
    /// Share of the 16-bit peak that FlashAttention-2 forward+backward reaches on Hopper, in
    /// causal FLOPs (PyTorch SDPA's flash backend: HF, torchtitan, FSDP stacks). Forward: the
    /// FlashAttention-3 paper (arXiv 2407.08608, abstract): "FlashAttention-2 achieving only 35%
    /// utilization on the H100 GPU". Backward derived as for Ampere (`attention_efficiency_other`):
    /// at the bottom/top ratio of FA-2's A100 range (50/73), 0.24; forward + 2.5× backward work:
    /// 3.5 / (1/0.35 + 2.5/0.24) = 0.26. Not fitted.
    pub attention_efficiency_hopper: f64,
    /// Same for Transformer Engine's attention under Megatron-Core on Hopper, which selects cuDNN's
    /// fused attention there ("Disabling FlashAttention to give FusedAttention preference on
    /// Hopper+ for performance reasons", transformer_engine/pytorch/attention.py
    /// `get_attention_backend`). Measured, not fitted: the FA-3 paper's cuDNN bars (arXiv
    /// 2407.08608, H100 80GB SXM5, BF16, head dim 128, batch × seq = 16k, hidden 2048; Figure 5
    /// forward with causal mask, Figure 6 backward) at 4k tokens, the middle of the Megatron H100
    /// rows' 2k-8k: forward 518 TFLOP/s, backward 499, weighted 1 : 2.5 as the step charges them,
    /// 3.5 / (1/518 + 2.5/499) = 504 TFLOP/s, 0.51 of the 989 TFLOP/s peak (2k: 0.475, 8k:
    /// 0.527). Until stop 41 0.39, an assumption (1.5 × the FA-2 figure) that left every
    /// Megatron/TE BF16 H100 row slow (DGX Cloud's 12 BF16 rows −0.5% to −13%, worst at 8k
    /// tokens) while the FP8 ratio fitted over it hid the same shortfall in the FP8 rows.
    pub attention_efficiency_hopper_te: f64,
    /// Same on Ampere and other chips. FlashAttention-2 paper (arXiv 2307.08691, abstract):
    /// "reaching 50-73% of the theoretical maximum FLOPs/s on A100"; forward reaches the top of
    /// the range and backward the bottom, so fwd+bwd (backward is 2.5/3.5 of the work): 0.55.
    /// Not fitted.
    pub attention_efficiency_other: f64,
    /// Share of the HBM bandwidth that element-wise kernels (norms, activations, residual adds,
    /// rotary, dropout) and the optimizer step stream at. Assumption from large-tensor copy
    /// kernels reaching 80-90% of the datasheet bandwidth; 0.8 (as decode_bandwidth_efficiency).
    /// Not fitted.
    pub elementwise_bandwidth_efficiency: f64,
    /// Prefill (compute-bound) efficiency. estimation.md §6: "η_c ≈ 0.5–0.7" (TRT-LLM LLaMA-7B
    /// 88 ms ideal vs 133 ms; FasterTransformer 13B 43.7 vs 63.17 ms): 0.65.
    pub prefill_efficiency: f64,
    /// Decode memory-bandwidth efficiency. estimation.md §6: "η_m ≈ 0.75–0.9 on one GPU"
    /// (FT 13B A100: 0.76; MLC 4090: 0.8): 0.8.
    pub decode_bandwidth_efficiency: f64,
    /// Achieved NCCL bus bandwidth as a share of the link's one-direction bandwidth. Assumption
    /// from typical nccl-tests all-reduce results (≈ 230 of 300 GB/s on NVLink 3): 0.75.
    pub collective_efficiency: f64,
    /// Share of backward compute that data-parallel gradient communication can hide behind
    /// (bucketed all-reduce, Li et al. 2020, PyTorch DDP, VLDB). Assumption: 0.8.
    pub dp_overlap: f64,
    /// Latency of one small all-reduce inside a node (decode-time TP), seconds. Assumption:
    /// 20 µs on NVLink-class links; doubled on PCIe.
    pub tp_allreduce_latency_s: f64,
    /// vLLM memory outside torch (CUDA context, NCCL) in GiB; the late-2024 log of case
    /// vllm-llama31-8b-rtx3090-mml20000 shows "non_torch_memory 0.35GiB".
    pub vllm_non_torch_gib: f64,
    /// vLLM CUDA-graph memory in GiB; V0 logs do not count it, V1 measures it (~0.09 GiB in the
    /// PR #21489 log). Default 0 so the V0 cases stay comparable.
    pub vllm_cudagraph_gib: f64,
    /// HuggingFace causal-LM loss: bytes kept per (token × vocab) element: bf16 logits (2) +
    /// fp32 upcast (4) + fp32 log-softmax/grad (4). The 8 fp32 bytes match torchtune's chunked
    /// cross-entropy saving "8.1 GiB" on Llama-3.2-3B at b=2, s=4096 (8 B × 8192 × 128256 = 7.8 GiB).
    pub hf_logits_bytes_per_element: f64,
    /// Bytes per element of the dropout mask PEFT LoRA saves for each adapted input (dropout >
    /// 0). CUDA: 1 (`F.dropout` runs the fused `native_dropout`, which saves a bool mask,
    /// aten/src/ATen/native/cuda/Dropout.cu). CPU: `_dropout_impl` multiplies by a float noise
    /// tensor of the input's dtype and saves it (aten/src/ATen/native/Dropout.cpp): 4 with fp32
    /// adapters, what tests/measured_peak.rs sets for its CPU rows. Not fitted.
    pub lora_dropout_mask_bytes: f64,
    /// DeepSpeed ZeRO-3's `sub_group_size` in millions of elements, the most the step converts to fp32 at once:
    /// its default, `Field(pp_int(1e9))` (config.py @38327e07 l.168). Used with `deepspeed`.
    pub deepspeed_sub_group_melements: f64,
    /// Hours every node is billed before the first training step: boot, image pull, model and
    /// dataset download, framework start-up. Assumption: 0.25 h (15 min). It is what makes a
    /// 30-minute run on 64 GPUs cost more than a 4-hour run on 8.
    pub startup_hours: f64,
    /// Spot price as a share of on-demand when no spot price is known. Tencent documents spot at
    /// "about 10–20%" of pay-as-you-go; Alibaba says it "can fall to 10%"; Huawei states no range.
    /// We take the upper end, 0.2, and label every such price an estimate.
    pub spot_price_fraction: f64,
    /// Host-side decode+augment rate for ImageNet-style JPEG training, images/s per vCPU
    /// (hardware thread; the name predates that choice). Assumption: 150, not fitted: no published
    /// per-thread rate of the ResNet pipeline (decode + random-resized crop + flip) was found, and
    /// the DGX ResNet rows cannot fix one (no single rate fits both 8-GPU rows,
    /// tests/host_cpu.rs). Used by `train::host_decode_cap` (plan and estimate).
    pub image_decode_per_core: f64,
    /// Host time to dispatch one op of an eager PyTorch loop on CUDA, seconds: 8 µs, sourced,
    /// not fitted: "issue N ops back-to-back, sync once at the end ... this isolates host cost",
    /// torch.add on a 512² tensor through PyTorch's own CUDA path, 8 µs/op on an NVIDIA A100
    /// machine (flagos-ai/Torch-FL pull request 27, 2026-07-28, "cuda_sub" column); corroborated
    /// by 7.1 µs per torch.add call on an A100 (flagos-ai/FlagGems issue 4558, 2026-07-08).
    /// Times the ops `train::dispatch` counts that launch a kernel (docs/methodology.md, "Host
    /// dispatch floor").
    pub host_op_seconds: f64,
    /// Host time of an eager op that launches no kernel (a view, metadata, an allocation),
    /// seconds: 0.7 µs, measured, not fitted: `a.view(8)` from a Python loop on this project's
    /// CPU, torch 2.1.2, one thread, best of 7 × 2000 calls (tools/measure_host_costs.py,
    /// validation/host-costs-measured.json `py_view_s` = 0.69 µs); a view does the same host work
    /// on a CUDA tensor and launches nothing. Assumption: the published runs' server CPUs are as
    /// fast as this one.
    pub host_view_seconds: f64,
    /// Hours between training checkpoints. Assumption: 1 h, the order of the defaults people run
    /// with (HF Trainer `save_steps` 500 at 5–10 s/step ≈ 0.7–1.4 h). Each checkpoint written
    /// synchronously stalls training for its write time. `estimate`'s elapsed time and the
    /// validation cases use it; a plan uses it only where the user gives it (`[tunables]` or
    /// `--set`: `Some`, at its default value too) and otherwise checkpoints at Daly's optimum for
    /// its own write and failure rate (plan audit r22 #2). Not given (`None`), it reads and is
    /// written out as [`DEFAULT_CHECKPOINT_INTERVAL_HOURS`] ([`Tunables::checkpoint_hours`]).
    #[serde(serialize_with = "hours_or_default", deserialize_with = "stated_hours")]
    #[cfg_attr(feature = "openapi", schema(value_type = f64, default = 1.0))]
    pub checkpoint_interval_hours: Option<f64>,
    /// Share of a checkpoint's write time that stalls training. Assumption: 1.0 (synchronous
    /// `torch.save`/DeepSpeed `save_checkpoint`); asynchronous checkpointing (torch.distributed.
    /// checkpoint async_save, Megatron `--async-save`) hides most of it: set lower.
    pub checkpoint_stall_fraction: f64,
    /// Job interruptions per GPU-hour of a synchronous training job (hardware and software;
    /// every one restarts the whole job from its last checkpoint). Sourced, not fitted: the
    /// Llama 3 405B pretraining run, Dubey et al. 2024 (arXiv 2407.21783) §3.3.4, a 54-day
    /// snapshot with 466 job interruptions, 47 planned and 419 unexpected, on up to 16,384 H100
    /// (the paper's text was not retrievable here; DatacenterDynamics' report of it: "more than
    /// half of the 419 unexpected interruptions recorded", "a cluster containing 16,384 Nvidia
    /// H100 80GB GPUs", and the paper's "a single GPU failure may require a restart of the
    /// entire job"): 419 / (54 d × 24 h × 16,384 GPUs) = 1.97e-5 (a lower bound: fewer GPUs at
    /// times give a higher rate). Meta's A100 research clusters, Kokolis et al. 2024
    /// (arXiv 2410.21680), give 1.8 h MTTF projected at 16,384 GPUs (3.4e-5) and 7.9 h measured
    /// at 1,024 (1.2e-4), as Clockwork's summary quotes them: 1.7–6× higher. Used by `plan::money::failure_plan`; 0 turns it off.
    pub failure_rate_per_gpu_hour: f64,
    /// Minutes from an interruption to training again (detect, replace the node, restart the
    /// job, load the checkpoint). Sourced lower end: FFTrainer (arXiv 2512.03644) §1, citing
    /// MegaScale: "mean time to recover (MTTR) from such failures can be tens of minutes";
    /// 10 min, the same as a spot restart (`--restart-minutes`' default).
    pub failure_restart_minutes: f64,
    /// Fixed cost of one prefill step in a serving engine, seconds: scheduling, sampling and
    /// kernel launches without CUDA graphs (vLLM captures graphs for decode only). Assumption:
    /// 3 ms, the order of vLLM's per-step CPU time; not fitted to any case.
    pub engine_prefill_overhead_s: f64,
    /// GPU time per decoder layer of every forward step (prefill and decode) beyond its
    /// bandwidth/compute roofline, seconds: a layer runs ~10 kernels (norms, QKV, rotary, KV
    /// write, attention, output projection, MLP GEMVs, residual adds), each paying a ramp-up, a
    /// tail and an inter-kernel gap that stream no bytes — at batch 1 a 7B model's 4096-wide
    /// GEMVs take tens of µs each, so the few µs per kernel are several per cent of a token.
    /// Fitted: 32 µs, the least-squares value (relative errors) on the two FasterTransformer 13B
    /// A100 decode rows (ft-13b-a100-40g-tp1-decode, tp2-decode, in-sample; they were −4.5% and
    /// −10.4% without it), with `decode_bandwidth_efficiency` kept at 0.8.
    pub layer_overhead_s: f64,
    /// NCCL's cost model (src/graph/tuning.cc of NVIDIA/nccl @01afd20a, Simple protocol, the one
    /// large gradient/parameter buckets use), microseconds: the ring algorithm's base latency
    /// `baseLat[Ring][Simple]` = 8.4.
    pub nccl_ring_base_us: f64,
    /// Per-step ring latency over NVLink, `hwLat[NVLINK][Ring][Simple]` = 3.4 µs (same file).
    pub nccl_ring_nvlink_us: f64,
    /// Per-step ring latency over PCIe, `hwLat[PCI][Ring][Simple]` = 5.7 µs (same file).
    pub nccl_ring_pci_us: f64,
    /// Per-step ring latency over the network, `hwLat[NET][Ring][Simple]` = 9.6 µs (same file).
    pub nccl_ring_net_us: f64,
    /// Tree all-reduce latency per intra-node hop, `hwLat[NVLINK|PCI][Tree][Simple]` = 28 µs;
    /// the tree costs 2·((ranks per node − 1)·28 + log2(nodes)·50) µs (same file).
    pub nccl_tree_intra_us: f64,
    /// Tree all-reduce latency per inter-node level, `hwLat[NET][Tree][Simple]` = 50 µs.
    pub nccl_tree_net_us: f64,
    /// MiB of gradients per data-parallel bucket of PyTorch DDP (ZeRO-0 with the `huggingface`
    /// framework), each bucket one all-reduce paying NCCL's latency: DDP's default
    /// `bucket_cap_mb=25` (pytorch/pytorch issue #118421: "by default the bucket size is set to
    /// 25MB via bucket_cap_mb").
    pub dp_bucket_mib: f64,
    /// Share of the tensor-parallel communication that TP-comm overlap (Megatron-Core
    /// `--tp-comm-overlap`, torchtitan async TP) hides behind the GEMMs it is chunked with (at
    /// most the GEMM time): the GEMMs are split into per-rank chunks and the collectives run on
    /// the same SMs, so part of the time stays exposed. *Calibrated* (0.4: the pair's 1.092 speedup) on torchtitan's
    /// Llama 3 70B bf16 vanilla-TP / async-TP pair (597.3 → 652.4 tokens/s, 2025-06 report;
    /// cases t-titan25-llama3-70b-256gpu-bf16-tp and -asynctp, in-sample). torch's async TP only:
    /// Megatron-Core's overlap (Transformer Engine userbuffers) is derived from TE's overlap
    /// methods (`train::step::tp_overlap_share`).
    pub tp_overlap_fraction: f64,
    /// Million elements per DeepSpeed ZeRO-1/2 reduce bucket (`reduce_bucket_size`); 500 as
    /// printed in the DeepSpeed config of EleutherAI's Pythia run log (wandb.ai/eleutherai/pythia,
    /// `'reduce_bucket_size': 500000000`), which is DeepSpeed's default, `Field(pp_int(5e8))`
    /// (deepspeed/runtime/zero/config.py @38327e07 l.109). With `deepspeed` also the reduce
    /// bucket's size in memory: the engine allocates the whole bucket whatever the model's size
    /// (stage_1_and_2.py l.2048-2060, stage3.py l.537-540). HF's `"auto"` sets hidden² instead.
    pub deepspeed_bucket_melements: f64,
    /// Million elements DeepSpeed ZeRO-3 prefetches ahead of the running module
    /// (`stage3_prefetch_bucket_size`): 50, DeepSpeed's default `Field(pp_int(5e7))`
    /// (deepspeed/runtime/zero/config.py @38327e07 l.208); HF's `"auto"` writes 0.9·hidden²
    /// (transformers integrations/deepspeed.py). Memory only: the gathered set of
    /// train/zero3.rs `deepspeed_live_peak`.
    pub deepspeed_prefetch_bucket_melements: f64,
    /// Million elements DeepSpeed ZeRO-3 lets be gathered before it stops prefetching
    /// (`stage3_max_live_parameters`): 1000, DeepSpeed's default `Field(pp_int(1e9))` (config.py
    /// @38327e07 l.231). Memory only, as above.
    pub deepspeed_max_live_melements: f64,
    /// Megatron-Core's DDP bucket: `max(40000000, 1000000 * dp_group.size())` parameters
    /// (megatron/core/distributed/distributed_data_parallel.py:134 @d98e8a64): the floor, in
    /// millions of parameters ...
    pub megatron_bucket_min_mparams: f64,
    /// ... and the millions of parameters added per data-parallel rank.
    pub megatron_bucket_mparams_per_rank: f64,
}

impl Default for Tunables {
    fn default() -> Self {
        Tunables {
            cuda_context_gib: 0.5,
            nccl_buffers_gib: 0.5,
            fragmentation: 0.10,
            train_efficiency_ampere: 0.70,
            train_efficiency_hopper: 0.55,
            train_efficiency_other: 0.58,
            train_efficiency_cnn: 0.20,
            train_efficiency_unet: 0.25,
            card_factor_low_power: 0.68,
            card_factor_pcie: 0.90,
            low_power_max_tdp_w: 150.0,
            peft_efficiency_factor: 0.85,
            fp8_train_gemm_ratio: 0.77,
            fp8_gemm_ratio_current: 0.90,
            attention_efficiency_hopper: 0.26,
            attention_efficiency_hopper_te: 0.51,
            attention_efficiency_other: 0.55,
            elementwise_bandwidth_efficiency: 0.8,
            prefill_efficiency: 0.65,
            decode_bandwidth_efficiency: 0.80,
            collective_efficiency: 0.75,
            dp_overlap: 0.8,
            tp_allreduce_latency_s: 20e-6,
            vllm_non_torch_gib: 0.35,
            vllm_cudagraph_gib: 0.0,
            hf_logits_bytes_per_element: 10.0,
            lora_dropout_mask_bytes: 1.0,
            deepspeed_sub_group_melements: 1000.0,
            startup_hours: 0.25,
            spot_price_fraction: 0.2,
            image_decode_per_core: 150.0,
            host_op_seconds: 8e-6,
            host_view_seconds: 0.7e-6,
            checkpoint_interval_hours: None,
            checkpoint_stall_fraction: 1.0,
            failure_rate_per_gpu_hour: LLAMA3_INTERRUPTIONS / (54.0 * 24.0 * 16384.0),
            failure_restart_minutes: 10.0,
            engine_prefill_overhead_s: 0.003,
            layer_overhead_s: 32e-6,
            nccl_ring_base_us: 8.4,
            nccl_ring_nvlink_us: 3.4,
            nccl_ring_pci_us: 5.7,
            nccl_ring_net_us: 9.6,
            nccl_tree_intra_us: 28.0,
            nccl_tree_net_us: 50.0,
            dp_bucket_mib: 25.0,
            tp_overlap_fraction: 0.4,
            deepspeed_bucket_melements: 500.0,
            deepspeed_prefetch_bucket_melements: 50.0,
            deepspeed_max_live_melements: 1000.0,
            megatron_bucket_min_mparams: 40.0,
            megatron_bucket_mparams_per_rank: 1.0,
        }
    }
}

impl Tunables {
    /// The names a user can set, for `--set` and error messages.
    pub fn names() -> Vec<String> {
        match serde_json::to_value(Tunables::default()) {
            Ok(serde_json::Value::Object(m)) => m.keys().cloned().collect(),
            _ => Vec::new(),
        }
    }

    /// Set one constant by name (`--set fragmentation=0.05`).
    pub fn set(&mut self, name: &str, value: f64) -> Result<(), CoreError> {
        let mut v = serde_json::to_value(&*self).map_err(|e| CoreError::Parse {
            what: "tunables".into(),
            message: e.to_string(),
        })?;
        let Some(slot) = v.get_mut(name) else {
            return Err(CoreError::Unknown {
                kind: "tunable".into(),
                name: name.into(),
                suggestions: crate::error::close_names(
                    name,
                    Tunables::names().iter().map(String::as_str),
                ),
                note: None,
            });
        };
        check_range(
            name,
            value,
            0.0,
            MAX_TUNABLE,
            "must be a finite, non-negative number (at most 1e6)",
        )?;
        *slot = serde_json::json!(value);
        // The JSON writes an interval not stated as the default: it stays not stated.
        let stated = self.checkpoint_interval_hours;
        *self = serde_json::from_value(v).map_err(|e| CoreError::Parse {
            what: "tunables".into(),
            message: e.to_string(),
        })?;
        if name != "checkpoint_interval_hours" {
            self.checkpoint_interval_hours = stated;
        }
        self.validate()
    }

    /// [`Tunables::validate`] and the limits of the constants only serving reads: the
    /// `layer_overhead_s` ceiling is checked here, not for every command, because only the decode
    /// latency reads it (`infer::layer_kernel_units`; a training run refused ≥ 155 µs for a value
    /// it never uses, audit r13 #4).
    pub fn validate_for_serving(&self) -> Result<(), CoreError> {
        self.validate()?;
        self.validate_layer_overhead()
    }

    pub fn validate(&self) -> Result<(), CoreError> {
        self.validate_all_finite()?;
        check_range(
            "spot_price_fraction",
            self.spot_price_fraction,
            MIN_FRACTION,
            1.0,
            "spot price as a share of on-demand, 0.001–1",
        )?;
        check_range(
            "image_decode_per_core",
            self.image_decode_per_core,
            MIN_FRACTION,
            MAX_TUNABLE,
            "images per second per CPU core, 0.001–1e6",
        )?;
        check_range(
            "startup_hours",
            self.startup_hours,
            0.0,
            MAX_STARTUP_HOURS,
            "hours billed before the first step, 0–720",
        )?;
        for (name, v) in [
            ("train_efficiency_ampere", self.train_efficiency_ampere),
            ("train_efficiency_hopper", self.train_efficiency_hopper),
            ("train_efficiency_other", self.train_efficiency_other),
            ("train_efficiency_cnn", self.train_efficiency_cnn),
            ("train_efficiency_unet", self.train_efficiency_unet),
            ("card_factor_low_power", self.card_factor_low_power),
            ("card_factor_pcie", self.card_factor_pcie),
            ("peft_efficiency_factor", self.peft_efficiency_factor),
            ("prefill_efficiency", self.prefill_efficiency),
            (
                "decode_bandwidth_efficiency",
                self.decode_bandwidth_efficiency,
            ),
            ("collective_efficiency", self.collective_efficiency),
            ("fp8_train_gemm_ratio", self.fp8_train_gemm_ratio),
            ("fp8_gemm_ratio_current", self.fp8_gemm_ratio_current),
            ("tp_overlap_fraction", self.tp_overlap_fraction),
            (
                "attention_efficiency_hopper",
                self.attention_efficiency_hopper,
            ),
            (
                "attention_efficiency_hopper_te",
                self.attention_efficiency_hopper_te,
            ),
            (
                "attention_efficiency_other",
                self.attention_efficiency_other,
            ),
            (
                "elementwise_bandwidth_efficiency",
                self.elementwise_bandwidth_efficiency,
            ),
        ] {
            check_range(name, v, MIN_FRACTION, 1.0, "an efficiency, 0.001–1")?;
        }
        if !(0.0..=1.0).contains(&self.dp_overlap) || !(0.0..1.0).contains(&self.fragmentation) {
            return Err(CoreError::invalid(
                "dp_overlap/fragmentation",
                format!("{}/{}", self.dp_overlap, self.fragmentation),
                "dp_overlap must be in [0, 1] and fragmentation in [0, 1)",
            ));
        }
        // Review r7 #4: 1e-9 h gave a 4142-year plan. At least a minute (no framework saves a
        // model faster), at most a year.
        let iv = self.checkpoint_hours();
        if !(iv.is_finite() && (1.0 / 60.0..=8760.0).contains(&iv)) {
            return Err(CoreError::invalid(
                "checkpoint_interval_hours",
                iv,
                "hours between checkpoints, 1/60 (one minute) to 8760, e.g. 1",
            ));
        }
        if !(0.0..=1.0).contains(&self.failure_rate_per_gpu_hour) {
            return Err(CoreError::invalid(
                "failure_rate_per_gpu_hour",
                self.failure_rate_per_gpu_hour,
                "interruptions per GPU-hour, 0–1",
            ));
        }
        if !(0.0..=10_080.0).contains(&self.failure_restart_minutes) {
            return Err(CoreError::invalid(
                "failure_restart_minutes",
                self.failure_restart_minutes,
                "minutes to restart after an interruption, 0–10080",
            ));
        }
        if !(0.0..=1.0).contains(&self.checkpoint_stall_fraction) {
            return Err(CoreError::invalid(
                "checkpoint_stall_fraction",
                self.checkpoint_stall_fraction,
                "a share in [0, 1]: 1 for synchronous saves, lower for asynchronous checkpointing",
            ));
        }
        Ok(())
    }
}

/// Hours between training checkpoints where the user states none, for `estimate`'s elapsed time
/// and the validation cases ([`Tunables::checkpoint_interval_hours`]). Assumption: 1 h, the order
/// of the defaults people run with (HF Trainer `save_steps` 500 at 5–10 s/step ≈ 0.7–1.4 h). Each
/// checkpoint written synchronously stalls training for its write time.
pub const DEFAULT_CHECKPOINT_INTERVAL_HOURS: f64 = 1.0;

impl Tunables {
    /// The hours between checkpoints: the user's where stated, else
    /// [`DEFAULT_CHECKPOINT_INTERVAL_HOURS`].
    pub fn checkpoint_hours(&self) -> f64 {
        self.checkpoint_interval_hours
            .unwrap_or(DEFAULT_CHECKPOINT_INTERVAL_HOURS)
    }
}

/// [`Tunables::checkpoint_interval_hours`] written as the hours read (the default where not
/// stated), as when it was a plain number: the exported tunables keep their shape.
fn hours_or_default<S: serde::Serializer>(h: &Option<f64>, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_f64(h.unwrap_or(DEFAULT_CHECKPOINT_INTERVAL_HOURS))
}

/// A stated [`Tunables::checkpoint_interval_hours`]: a number, as before (`null` is refused as
/// for every other constant); a key left out is `None` (the struct's default).
fn stated_hours<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<f64>, D::Error> {
    f64::deserialize(d).map(Some)
}

/// Unexpected job interruptions of the Llama 3 405B run's 54-day snapshot (Dubey et al. 2024
/// §3.3.4: "The remaining 419 were unexpected interruptions").
pub const LLAMA3_INTERRUPTIONS: f64 = 419.0;

/// Smallest efficiency or price fraction (0.1%): smaller ones would turn times and costs into
/// infinities.
pub const MIN_FRACTION: f64 = 1e-3;
/// Largest value any tunable may take (no constant of the estimators comes near it).
pub const MAX_TUNABLE: f64 = 1e6;
/// Longest start-up before the first step, hours (a month).
pub const MAX_STARTUP_HOURS: f64 = 720.0;

impl Tunables {
    /// `layer_overhead_s` below [`crate::infer::max_layer_overhead_s`]: a fixed time per layer
    /// as long as a whole measured token leaves the weights no time to stream.
    fn validate_layer_overhead(&self) -> Result<(), CoreError> {
        let max = crate::infer::max_layer_overhead_s();
        let v = self.layer_overhead_s;
        if v < max {
            return Ok(());
        }
        let us = |x: f64| format!("{:.0} µs", x * 1e6);
        let fix = crate::i18n::Msg::new("fix-layer-overhead-max")
            .arg("max", us(max))
            .arg(
                "token",
                format!("{:.2} ms", max * crate::infer::TORCHAO_LAYERS * 1e3),
            );
        Err(CoreError::invalid_msg("layer_overhead_s", v, fix))
    }

    /// Every constant (from `--set` or a `[tunables]` table, where TOML allows `nan` and `inf`)
    /// must be a finite, non-negative number of at most [`MAX_TUNABLE`].
    fn validate_all_finite(&self) -> Result<(), CoreError> {
        let Ok(serde_json::Value::Object(m)) = serde_json::to_value(self) else {
            // serde_json writes NaN and infinities as null, which is not a number: say so.
            return Err(CoreError::invalid(
                "tunables",
                "?",
                "must all be finite numbers",
            ));
        };
        for (name, v) in &m {
            let x = v.as_f64().unwrap_or(f64::NAN);
            check_range(
                name,
                x,
                0.0,
                MAX_TUNABLE,
                "must be a finite, non-negative number (at most 1e6)",
            )?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn set_by_name_and_reject_unknown() {
        let mut t = Tunables::default();
        t.set("fragmentation", 0.05).unwrap();
        assert_eq!(t.fragmentation, 0.05);
        let e = t.set("fragmentaton", 0.05).unwrap_err().to_string();
        assert!(
            e.contains("did you mean") && e.contains("fragmentation"),
            "{e}"
        );
        assert!(t.set("prefill_efficiency", 1.5).is_err());
        for bad in [f64::NAN, f64::INFINITY, -1.0, 1e7] {
            let e = t.set("cuda_context_gib", bad).unwrap_err().to_string();
            assert!(e.contains("cuda_context_gib") && !e.contains("NaN"), "{e}");
        }
        let file = Tunables {
            startup_hours: f64::NAN,
            ..Tunables::default()
        };
        assert!(file
            .validate()
            .unwrap_err()
            .to_string()
            .contains("startup_hours"));
    }

    /// The checkpoint interval is stated or not by its `Option` alone: not stated by default
    /// (written out as the default hour), stated at the default value too (`--set`, a TOML
    /// `[tunables]`, a JSON body), kept not stated through another `--set`, and a `null` is
    /// refused as for every other constant.
    #[test]
    fn a_stated_checkpoint_interval_is_some_even_at_the_default() {
        let none = Tunables::default();
        assert_eq!(none.checkpoint_interval_hours, None);
        assert_eq!(none.checkpoint_hours(), DEFAULT_CHECKPOINT_INTERVAL_HOURS);
        let json = serde_json::to_value(&none).unwrap();
        assert_eq!(json["checkpoint_interval_hours"], serde_json::json!(1.0));
        assert!(Tunables::names().contains(&"checkpoint_interval_hours".to_string()));
        let mut other = Tunables::default();
        other.set("fragmentation", 0.05).unwrap();
        assert_eq!(other.checkpoint_interval_hours, None, "another --set");
        let mut set = Tunables::default();
        set.set("checkpoint_interval_hours", 1.0).unwrap();
        assert_eq!(set.checkpoint_interval_hours, Some(1.0));
        let toml: Tunables = toml::from_str("checkpoint_interval_hours = 1.0\n").unwrap();
        let body: Tunables = serde_json::from_str(r#"{"checkpoint_interval_hours": 1}"#).unwrap();
        assert_eq!(toml, set);
        assert_eq!(body, set);
        assert_eq!(toml::from_str::<Tunables>("").unwrap(), none);
        let null = serde_json::from_str::<Tunables>(r#"{"checkpoint_interval_hours": null}"#);
        assert!(null.is_err());
        let short = Tunables {
            checkpoint_interval_hours: Some(1e-9),
            ..Tunables::default()
        };
        let e = short.validate().unwrap_err().to_string();
        assert!(e.contains("checkpoint_interval_hours"), "{e}");
    }
}
