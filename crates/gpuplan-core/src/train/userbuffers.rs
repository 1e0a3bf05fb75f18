//! Transformer Engine's userbuffers: the device memory Megatron-Core's `--tp-comm-overlap`
//! (NeMo's `ub_tp_comm_overlap`) allocates beside the model's tensors.
//!
//! Who asks for them. Megatron-LM passes `shape = [seq_length · micro_batch_size /
//! context_parallel_size, hidden_size]`, `use_fp8 = (args.fp8 is not None)` and the optional
//! `--tp-comm-overlap-cfg` YAML to TE's `initialize_ub` (megatron/training/initialize.py
//! @core_v0.8.0 lines 197-210, `_initialize_tp_communicators`); NeMo the same shape from
//! `encoder_seq_length`, `micro_batch_size`, `context_parallel_size` and `hidden_size`
//! (nemo/collections/nlp/models/language_modeling/megatron_gpt_model.py @r2.0.0rc1 lines
//! 735-754, `initialize_ub_func`). The buffer dtype is TE's default bf16 (`dtype:
//! torch.dtype = torch.bfloat16`; neither caller passes one).
//!
//! What TE allocates (TE v1.8 @3ec998e9, transformer_engine/pytorch/module/base.py
//! `initialize_ub` lines 67-262; the same table in v1.7 and v1.9 to v2.6). One communicator per
//! overlapped GEMM, ten of them: `ring_exchange` for qkv_fprop, fc1_fprop, proj_dgrad and
//! fc2_dgrad, `pipeline` for proj_fprop and fc2_fprop, `bulk` for qkv_dgrad, qkv_wgrad,
//! fc1_dgrad and fc1_wgrad (lines 99-103, applied to every name at lines 225-262). Each registers one buffer of the whole `shape`
//! (`UbufCommOverlap`: `ubuf_bytes = sample.numel() * sample.element_size()`;
//! `UbufP2PCommOverlap` for an all-gather: `tp_size` chunks of `shape[0] / tp_size` rows, the
//! same bytes; transformer_engine/pytorch/csrc/comm_gemm_overlap.h @v1.8 lines 160-166 and
//! 636-653). The all-gather buffers (qkv/fc1 fprop and dgrad, proj/fc2 dgrad: six,
//! `layers_all_gather_overlap`, lines 88-95) are FP8, 1 B per element, under an FP8 recipe
//! (`fp8_buf`, `torch.uint8 if (use_fp8 and fp8_buf) else dtype`, lines 164-166); the four
//! reduce-scatter buffers stay bf16 (a pipeline buffer is FP8 only when a cfg sets `fp8_buf`,
//! lines 238-240). NeMo's shipped H100 cfgs (examples/nlp/language_modeling/conf/tp_overlap/
//! ub_cfg_h100_*.yaml @r2.0.0rc1) keep these methods and set no `fp8_buf`.
//!
//! Where. `register_user_buffer_collective(..., alloc=true)` creates each buffer with
//! `cuMemCreate` on this GPU (userbuffers-host.cpp @v1.8 lines 452-602): outside torch's caching
//! allocator, resident from initialisation to the end of the run, like NCCL's buffers. They depend
//! on the cluster only through its software stack (CUDA), as the rest of the device memory does
//! (the plan search shares memory between chips on that condition, `plan::train::memory_facts`).
//!
//! Not modelled: TE's cuBLAS workspace widened to one per overlap stream (`get_workspace().
//! repeat(_NUM_MAX_UB_STREAMS)`, `_NUM_MAX_UB_STREAMS = 3`, base.py lines 46 and 85: two more
//! workspaces of 32 MiB on compute capability ≥ 9, 4 MiB below, lines 50-54; its size depends on
//! the chip, which the shared search does not let memory read), the communicator's flag and
//! pointer regions (a few MiB, userbuffers-host.cpp lines 275-296), the rounding of each buffer
//! to the multicast granularity, and TE ≥ 2.7's two further all-gather buffers (`external`
//! proj_wgrad and fc2_wgrad, base.py @v2.8 lines 181-192), which need a TE version the workload
//! does not state.

use crate::model::ModelSpec;
use crate::workload::{Framework, Precision, TrainingSetup};

/// Buffers whose collective is an all-gather (FP8 under an FP8 recipe): qkv_fprop, fc1_fprop,
/// proj_dgrad, fc2_dgrad, qkv_dgrad, fc1_dgrad (TE v1.8 base.py lines 88-95).
const UB_ALL_GATHER_BUFFERS: f64 = 6.0;

/// Buffers whose collective is a reduce-scatter (always bf16 by default): proj_fprop,
/// fc2_fprop, qkv_wgrad, fc1_wgrad (TE v1.8 base.py line 96).
const UB_REDUCE_SCATTER_BUFFERS: f64 = 4.0;

/// TE's default userbuffer dtype, bf16 (`initialize_ub(..., dtype=torch.bfloat16)`).
const UB_BUFFER_BYTES: f64 = 2.0;

/// Whether the job initialises TE's userbuffers: Megatron-Core (or NeMo) on CUDA with TP > 1 and
/// `tp_comm_overlap` on. Torch's async TP (torchtitan) uses symmetric memory instead, and
/// MindSpeed on Ascend its own overlap; neither is TE's and neither is charged here.
pub(crate) fn userbuffers_on(setup: &TrainingSetup, stack: &str) -> bool {
    setup.framework == Framework::Megatron
        && stack == "cuda"
        && setup.parallel.tp > 1
        && setup.parallel.tp_overlap()
}

/// The userbuffers' bytes on each GPU (outside torch's allocator): the ten buffers of
/// `[s·b/cp, h]` elements. `setup` is the context-parallel local one (its `seq_len` already
/// divided by CP, as Megatron's shape is).
pub(crate) fn userbuffer_bytes(m: &ModelSpec, setup: &TrainingSetup, stack: &str) -> f64 {
    let Some(t) = m.transformer() else {
        return 0.0;
    };
    if !userbuffers_on(setup, stack) {
        return 0.0;
    }
    let elements = (setup.seq_len * setup.micro_batch) as f64 * t.hidden as f64;
    let gather = if setup.precision == Precision::Fp8 {
        1.0
    } else {
        UB_BUFFER_BYTES
    };
    elements * (UB_ALL_GATHER_BUFFERS * gather + UB_REDUCE_SCATTER_BUFFERS * UB_BUFFER_BYTES)
}
