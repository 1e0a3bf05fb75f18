//! Training bundle: env.sh (NCCL/HCCL for the plan's link), launch.sh (torchrun on every node),
//! ds_config.json (DeepSpeed), accelerate_fsdp.yaml (when FSDP can hold the same memory plan) and
//! megatron_args.sh (when the plan uses model parallelism). Values come from the plan; names
//! from the vendored argument lists (crates/gpuplan/tests/schemas/, checked by tests/export.rs).

use super::view::{PlanView, TrainView};
use super::{netenv, script, yaml, File};
use anyhow::Result;
use gpuplan_core::i18n::Msg;
use gpuplan_core::pipeline;
use gpuplan_core::workload::{Framework, Parallelism};
use serde_json::{json, Value};

/// DeepSpeed's documented default for reduce_bucket_size and allgather_bucket_size
/// (docs/_pages/config-json.md, "ZeRO Optimizations"), written explicitly: the plan's memory
/// model does not size the buckets, it counts ZeRO-3 gather buffers as two layers in flight.
pub const DS_BUCKET_ELEMENTS: u64 = 500_000_000;

pub fn files(p: &PlanView) -> Result<Vec<File>> {
    let t = train(p);
    let mut out = vec![
        File::new("env.sh", env_sh(p)),
        File::new("launch.sh", launch_sh(p, t)),
        File::new(
            "ds_config.json",
            serde_json::to_string_pretty(&deepspeed(p, t))? + "\n",
        ),
    ];
    if fsdp_equivalent(t).is_ok() {
        out.push(File::new("accelerate_fsdp.yaml", accelerate_fsdp(p, t)?));
    }
    if t.model_parallel() {
        out.push(File::new("megatron_args.sh", megatron_args_sh(p, t)));
    }
    if litgpt_plan(t) {
        out.push(File::new("litgpt.yaml", litgpt_yaml(p, t)?));
    }
    Ok(out)
}

/// `train.epochs` of LitGPT's finetune scripts' `setup()` defaults (finetune/lora.py and full.py
/// @00af8b0d: `TrainArgs(..., epochs=5)`), written out because their loop multiplies by it.
const LITGPT_FINETUNE_EPOCHS: u64 = 5;

/// A plan made with the `litgpt` framework profile: its memory is LitGPT's own loop's.
fn litgpt_plan(t: &TrainView) -> bool {
    t.framework == "litgpt"
}

/// LitGPT's CLI subcommand for the plan's task (litgpt/__main__.py @00af8b0d).
pub fn litgpt_command(t: &TrainView) -> &'static str {
    match t.task.as_str() {
        "pretrain" => "pretrain",
        "lora" | "qlora" => "finetune_lora",
        _ => "finetune_full",
    }
}

/// Lightning Fabric's precision string for the plan's precision (lightning/fabric/connector.py
/// `_PRECISION_INPUT_STR`; LitGPT passes `--precision` to `Fabric(precision=...)`).
fn litgpt_precision(precision: &str) -> &'static str {
    match precision {
        "amp_bf16" => "bf16-mixed",
        "amp_fp16" => "16-mixed",
        "fp32" => "32-true",
        "fp8" => "REPLACE: LitGPT has no FP8 training precision; the plan assumed FP8 GEMMs",
        _ => "bf16-true",
    }
}

/// The LitGPT `--config` file (config-hub format: litgpt/finetune/lora.py `setup()` keys, the
/// `train:` section of litgpt/args.py TrainArgs; names checked against the vendored
/// tests/schemas/litgpt-args.json). LitGPT picks the strategy itself: FSDP with every Block
/// checkpointed above one device, what the plan's memory assumed.
pub fn litgpt_config(p: &PlanView, t: &TrainView) -> Value {
    let command = litgpt_command(t);
    let mut train = json!({
        "global_batch_size": global_batch(p, t),
        "micro_batch_size": t.micro_batch,
        "max_seq_length": t.seq_len,
        "log_interval": 1,
    });
    match (t.tokens, command) {
        (Some(tokens), "pretrain") => train["max_tokens"] = json!(tokens.round() as u64),
        // The finetune scripts reject max_tokens (validate_args) and need epochs: the plan's
        // token budget as optimizer steps, at most setup()'s default 5 epochs of the dataset.
        (tokens, _) => {
            train["epochs"] = json!(LITGPT_FINETUNE_EPOCHS);
            if let Some(tokens) = tokens {
                let per_step = (global_batch(p, t) * t.seq_len).max(1) as f64;
                train["max_steps"] = json!((tokens / per_step).ceil().max(1.0) as u64);
            }
        }
    }
    if let Some(steps) = t.checkpoint_steps() {
        train["save_interval"] = json!(steps);
    }
    let mut doc = json!({
        "out_dir": format!("out/{command}"),
        "precision": litgpt_precision(&t.precision),
        "devices": p.gpus_per_node,
        "num_nodes": p.nodes,
        "train": train,
        "optimizer": match t.optimizer.as_str() {
            "adam_w" => "AdamW",
            "sgd_momentum" => "SGD",
            _ => "REPLACE: the optimizer the plan assumed has no LitGPT name here",
        },
    });
    let model = format!(
        "REPLACE: the LitGPT checkpoint directory of {} (`litgpt download <org>/<repo>`)",
        p.model
    );
    if command == "pretrain" {
        doc["model_name"] = json!(format!("REPLACE: the LitGPT config name of {}", p.model));
    } else {
        doc["checkpoint_dir"] = json!(model);
    }
    if command == "finetune_lora" {
        let all = t.lora_targets.iter().any(|x| x == "all-linear");
        let has =
            |names: &[&str]| all || t.lora_targets.iter().any(|x| names.contains(&x.as_str()));
        doc["lora_r"] = match t.lora_rank {
            Some(r) => json!(r),
            None => json!("REPLACE: the LoRA rank (the plan document gives none)"),
        };
        doc["lora_query"] = json!(has(&["q_proj", "c_attn", "qkv_proj"]));
        doc["lora_key"] = json!(has(&["k_proj", "c_attn", "qkv_proj"]));
        doc["lora_value"] = json!(has(&["v_proj", "c_attn", "qkv_proj"]));
        doc["lora_projection"] = json!(has(&["o_proj", "c_proj", "dense"]));
        doc["lora_mlp"] = json!(has(&[
            "gate_proj",
            "up_proj",
            "down_proj",
            "c_fc",
            "fc1",
            "fc2"
        ]));
        doc["lora_head"] = json!(!all && t.lora_targets.iter().any(|x| x == "lm_head"));
        if let Some(d) = t.lora_dropout {
            doc["lora_dropout"] = json!(d);
        }
        if t.task == "qlora" {
            doc["quantize"] = json!(match t.lora_base.as_deref() {
                Some("nf4_no_dq") => "bnb.nf4",
                Some("int8") => "bnb.int8-training",
                _ => "bnb.nf4-dq",
            });
        }
    }
    doc
}

fn litgpt_yaml(p: &PlanView, t: &TrainView) -> Result<String> {
    yaml(
        p,
        &format!(
            "LitGPT config: `litgpt {} --config litgpt.yaml` (launch.sh LAUNCHER=litgpt). LitGPT shards with FSDP and checkpoints every Block on more than one device, as the plan's memory assumed.",
            litgpt_command(t)
        ),
        &[litgpt_config(p, t)],
    )
}

fn train(p: &PlanView) -> &TrainView {
    // `bundle` only calls here for training plans (PlanView has train xor serve).
    p.train.as_ref().unwrap_or_else(|| unreachable!())
}

/// Global batch in sequences: micro-batch × accumulation × data-parallel ranks.
pub fn global_batch(p: &PlanView, t: &TrainView) -> u64 {
    t.micro_batch * t.grad_accum * t.data_parallel(p.total_gpus())
}

/// `export NAME=value` lines for the plan's link; placeholders stop the script until set.
pub fn env_lines(p: &PlanView) -> String {
    let mut s = String::new();
    if p.ascend() {
        let devices: Vec<String> = (0..p.gpus_per_node).map(|i| i.to_string()).collect();
        s.push_str("# Ascend: the NPUs this node's processes use (CANN environment variable).\n");
        s.push_str(&format!(
            "export ASCEND_RT_VISIBLE_DEVICES=\"${{ASCEND_RT_VISIBLE_DEVICES:-{}}}\"\n",
            devices.join(",")
        ));
        s.push_str("# DeepSpeed on Ascend selects its NPU accelerator by DS_ACCELERATOR (deepspeed accelerator/real_accelerator.py).\nexport DS_ACCELERATOR=npu\n");
    }
    let Some(pr) = netenv::profile(p) else {
        s.push_str("# One node: no inter-node traffic, no NCCL/HCCL network settings needed.\n");
        return s;
    };
    s.push_str(&format!(
        "# {} over {} between nodes. Source: {}\n",
        pr.library.to_uppercase(),
        netenv::link_key(p),
        pr.source
    ));
    for v in &pr.vars {
        match (&v.value, &v.placeholder) {
            (Some(val), _) => s.push_str(&format!("export {n}=\"${{{n}:-{val}}}\"\n", n = v.name)),
            (None, Some(msg)) => {
                s.push_str(&format!(": \"${{{n}:?{msg}}}\"\nexport {n}\n", n = v.name))
            }
            (None, None) => {}
        }
    }
    s
}

fn env_sh(p: &PlanView) -> String {
    script(
        p,
        "Collective-communication environment for this plan's nodes (sourced by launch.sh).",
        &env_lines(p),
    )
}

fn mindspore(p: &PlanView) -> bool {
    p.ascend() && p.software == "mindspore"
}

/// How the bundle's launchers run an expert-parallel plan: by the stack the plan names
/// (`setup.framework`, gpuplan-core plan::train `point_stacks`). A `megatron` plan is
/// Megatron-Core's (ZeRO ≤ 1: its distributed optimizer is ZeRO-1); an eager (`hugging_face`)
/// EP plan is DeepSpeed-MoE's, which runs ZeRO 0-2 without TP/PP/CP and refuses 3
/// (deepspeed/runtime/engine.py @38327e07: `assert not self.has_moe_layers, "MoE not supported
/// with Stage 3"`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EpStack {
    /// No EP, or a Megatron-Core plan at a stage it runs (ZeRO 0-1).
    Megatron,
    /// An eager plan with EP, ZeRO 0-2 and no TP/PP/CP: DeepSpeed-MoE under LAUNCHER=deepspeed.
    DeepSpeedMoe,
    /// EP beside TP/PP/CP in an eager plan (Megatron-DeepSpeed's, not exported), ZeRO-3 with EP
    /// or a Megatron plan at ZeRO-2/3 (a pinned workload): no launcher of the bundle
    /// reproduces the plan's memory.
    None,
}

pub fn ep_stack(t: &TrainView) -> EpStack {
    let megatron = t.framework == "megatron";
    if t.ep <= 1 || (megatron && t.zero <= 1) {
        EpStack::Megatron
    } else if !megatron && t.zero <= 2 && t.tp * t.pp * t.cp == 1 {
        EpStack::DeepSpeedMoe
    } else {
        EpStack::None
    }
}

/// The plan settings that `launcher` (a launch.sh LAUNCHER value) does not carry, each as
/// `key = value (why)`: the step time assumed them, and no file the launcher reads holds them.
/// InternEvo's parameter hand-back and gradient buckets (`parallel.zero1_broadcast`,
/// `grad_bucket_elements`, `grad_bucket_sync`) have no flag in any launcher the bundle writes;
/// the MoE dispatcher and all-to-all overlap reach Megatron-LM only (`megatron_dispatcher`).
pub fn not_carried(t: &TrainView, launcher: &str) -> Vec<Msg> {
    let mut v = Vec::new();
    if t.zero1_broadcast != "all_gather" {
        v.push(Msg::new("export-nc-zero1-broadcast").arg("v", t.zero1_broadcast.as_str()));
    }
    if let Some(e) = t.grad_bucket_elements {
        v.push(Msg::new("export-nc-grad-bucket-elements").arg("e", e.to_string()));
    }
    if t.optimizer_bf16 {
        v.push(optimizer_dtype_caveat(t, launcher));
    }
    if t.grad_bucket_sync {
        v.push(Msg::new("export-nc-grad-bucket-sync"));
    }
    // Megatron-LM's entry points train every parameter: a LoRA/QLoRA plan's memory (the
    // adapters' states only) holds under a PEFT front end of Megatron-Core, which takes these
    // parallel arguments (audit r9 #4: pretrain_gpt.py with megatron_args.sh ran out of memory
    // as a full fine-tune).
    if launcher == "megatron" && matches!(t.task.as_str(), "lora" | "qlora") {
        let rank = t
            .lora_rank
            .map_or_else(|| "?".to_string(), |r| r.to_string());
        v.push(
            Msg::new("export-nc-megatron-lora")
                .arg("task", t.task.as_str())
                .arg("rank", rank),
        );
    }
    if t.model_parallel() {
        v.extend(megatron_split_refused(t));
    }
    if t.ep > 1 && launcher != "megatron" {
        if t.moe_a2a_overlap {
            v.push(Msg::new("export-nc-a2a-overlap"));
        }
        if t.moe_dispatcher != "alltoall" {
            v.push(Msg::new("export-nc-dispatcher").arg("d", t.moe_dispatcher.as_str()));
        }
    }
    v
}

/// What of `optimizer_dtype = "bf16"` the bundle cannot carry: Megatron-LM's master weights
/// stay fp32 (`--main-params-dtype` takes fp32|fp16, arguments.py @core_v0.13.0 l.2938), and
/// without the distributed optimizer or under another launcher the moments too. NeMo sets all
/// three in bf16 by the optimizer's `dtype: bf16` (NeMo-Framework-Launcher 24.07
/// conf/peft/llama/sft.yaml, `optim`).
fn optimizer_dtype_caveat(t: &TrainView, launcher: &str) -> Msg {
    let moments = if launcher == "megatron" && t.zero >= 1 {
        "export-nc-moments-megatron"
    } else {
        "export-nc-moments-fp32"
    };
    Msg::new("export-nc-optimizer-dtype").arg("moments", Msg::new(moments))
}

pub fn launcher_default(p: &PlanView, t: &TrainView) -> &'static str {
    if mindspore(p) {
        "msrun"
    } else if litgpt_plan(t) {
        "litgpt"
    } else if ep_stack(t) == EpStack::DeepSpeedMoe {
        "deepspeed"
    } else if fsdp_cp(t) && fsdp_equivalent(t).is_ok() {
        // The layout the plan timed: torch's context_parallel ring under FSDP (review r14 #5).
        "fsdp"
    } else if t.model_parallel() {
        "megatron"
    } else {
        "deepspeed"
    }
}

fn launch_sh(p: &PlanView, t: &TrainView) -> String {
    let master = if p.nodes > 1 {
        format!(
            "MASTER_ADDR=\"${{MASTER_ADDR:?set MASTER_ADDR to the private address of node 0}}\"\nNODE_RANK=\"${{NODE_RANK:?set NODE_RANK: 0 on node 0, 1..{} on the others}}\"",
            p.nodes - 1
        )
    } else {
        "MASTER_ADDR=\"${MASTER_ADDR:-127.0.0.1}\"\nNODE_RANK=\"${NODE_RANK:-0}\"".into()
    };
    let body = format!(
        r#"# Run on every node (NODE_RANK 0..{last}). LAUNCHER picks the engine settings:
#   deepspeed: TRAIN_SCRIPT takes --deepspeed ds_config.json (HF Trainer convention)
#   fsdp:      accelerate launch with accelerate_fsdp.yaml (when the bundle has it)
#   megatron:  TRAIN_SCRIPT is a Megatron-LM entry point (pretrain_gpt.py), megatron_args.sh
{litgpt_doc}{msrun_doc}{checkpoint}{ep}HERE="$(cd "$(dirname "${{BASH_SOURCE[0]}}")" && pwd)"
source "$HERE/env.sh"
LAUNCHER="${{LAUNCHER:-{default}}}"
{train_script}
{master}
MASTER_PORT="${{MASTER_PORT:-29500}}"
NNODES={nodes}
NPROC_PER_NODE={gpn}
TORCHRUN=(torchrun --nnodes "$NNODES" --nproc-per-node "$NPROC_PER_NODE" --node-rank "$NODE_RANK"
  --rdzv-backend c10d --rdzv-endpoint "$MASTER_ADDR:$MASTER_PORT" --rdzv-id "${{JOB_ID:-{slug}}}")
case "$LAUNCHER" in
  deepspeed) exec "${{TORCHRUN[@]}}" "$TRAIN_SCRIPT" --deepspeed "$HERE/ds_config.json" "$@" ;;
  fsdp)
    [ -f "$HERE/accelerate_fsdp.yaml" ] || {{ echo "this plan has no FSDP equivalent (README.txt)" >&2; exit 2; }}
    exec accelerate launch --config_file "$HERE/accelerate_fsdp.yaml" --machine_rank "$NODE_RANK" \
      --main_process_ip "$MASTER_ADDR" --main_process_port "$MASTER_PORT" "$TRAIN_SCRIPT" "$@" ;;
  megatron)
    [ -f "$HERE/megatron_args.sh" ] || {{ echo "this plan uses no model parallelism: use deepspeed" >&2; exit 2; }}
    source "$HERE/megatron_args.sh"
    exec "${{TORCHRUN[@]}}" "$TRAIN_SCRIPT" "${{MEGATRON_ARGS[@]}}" "$@" ;;
{litgpt_case}{msrun_case}  *) echo "LAUNCHER must be {launchers}" >&2; exit 2 ;;
esac
"#,
        last = p.nodes - 1,
        msrun_doc = if p.ascend() {
            msrun_doc(p, t)
        } else {
            String::new()
        },
        msrun_case = if p.ascend() { MSRUN_CASE } else { "" },
        litgpt_doc = if litgpt_plan(t) {
            format!("#   litgpt:    the LitGPT CLI, `litgpt {} --config litgpt.yaml` (the plan's memory is LitGPT's loop);
#              more than one node: under torchrun, which Lightning Fabric detects
", litgpt_command(t))
        } else {
            String::new()
        },
        train_script = if litgpt_plan(t) {
            "[ \"$LAUNCHER\" = litgpt ] || TRAIN_SCRIPT=\"${TRAIN_SCRIPT:?set TRAIN_SCRIPT to your training entry point}\""
        } else {
            "TRAIN_SCRIPT=\"${TRAIN_SCRIPT:?set TRAIN_SCRIPT to your training entry point}\""
        },
        litgpt_case = if litgpt_plan(t) {
            litgpt_case(p, t)
        } else {
            String::new()
        },
        launchers = match (p.ascend(), litgpt_plan(t)) {
            (true, true) => "deepspeed, fsdp, megatron, litgpt or msrun",
            (true, false) => "deepspeed, fsdp, megatron or msrun",
            (false, true) => "deepspeed, fsdp, megatron or litgpt",
            (false, false) => "deepspeed, fsdp or megatron",
        },
        checkpoint = checkpoint_lines(t),
        ep = ep_lines(t),
        default = launcher_default(p, t),
        nodes = p.nodes,
        gpn = p.gpus_per_node,
        slug = p.slug(),
    );
    script(
        p,
        &format!(
            "torchrun launch for {} node(s) × {} {}.",
            p.nodes,
            p.gpus_per_node,
            if p.ascend() {
                "NPUs (torch_npu: import torch_npu, backend hccl)"
            } else {
                "GPUs"
            }
        ),
        &body,
    )
}

/// The LitGPT case of launch.sh: one node runs the CLI, which starts its own processes
/// (`devices` in litgpt.yaml); more nodes run it under torchrun, whose environment Lightning
/// Fabric picks up (TorchElasticEnvironment) instead of launching.
fn litgpt_case(p: &PlanView, t: &TrainView) -> String {
    let cmd = litgpt_command(t);
    if p.nodes > 1 {
        format!(
            "  litgpt) exec \"${{TORCHRUN[@]}}\" \"$(command -v litgpt)\" {cmd} --config \"$HERE/litgpt.yaml\" \"$@\" ;;\n"
        )
    } else {
        format!("  litgpt) exec litgpt {cmd} --config \"$HERE/litgpt.yaml\" \"$@\" ;;\n")
    }
}

/// msrun (MindSpore's launcher, Ascend only): flags from the vendored msrun-args.json.
const MSRUN_CASE: &str = r#"  msrun)
    # MindSpore on Ascend: msrun starts local_worker_num processes per node (scheduler on node 0).
    exec msrun --worker_num "$((NNODES * NPROC_PER_NODE))" --local_worker_num "$NPROC_PER_NODE" \
      --master_addr "$MASTER_ADDR" --master_port "$MASTER_PORT" --node_rank "$NODE_RANK" \
      --log_dir "${LOG_DIR:-msrun_log}" --join True "$TRAIN_SCRIPT" "$@" ;;
"#;

fn msrun_doc(p: &PlanView, t: &TrainView) -> String {
    format!(
        "#   msrun:     MindSpore on Ascend (msrun); set the parallel split in the MindSpore script:\n#              data-parallel {}, tensor/model-parallel {}, pipeline stages {}, micro-batch {} × {}\n",
        t.data_parallel(p.total_gpus()),
        t.tp,
        t.pp,
        t.micro_batch,
        t.grad_accum
    )
}

/// The expert parallelism the plan assumed, for the DeepSpeed path: DeepSpeed-MoE takes it in
/// the model code, not in ds_config.json (`deepspeed.moe.layer.MoE(hidden_size, expert,
/// num_experts, ep_size=1, ..., enable_expert_tensor_parallelism=False)`, deepspeed/moe/layer.py
/// @38327e07), so launch.sh exports it for the training script; megatron_args.sh passes
/// `--expert-model-parallel-size` and `--expert-tensor-parallel-size`.
fn ep_lines(t: &TrainView) -> String {
    if t.ep <= 1 {
        return String::new();
    }
    let split = if t.etp > 1 { "True" } else { "False" };
    format!(
        "# Expert parallelism EP {ep}, expert TP {etp} (the plan's memory and time; 1 = whole experts per rank).
# deepspeed: build the MoE layers with deepspeed.moe.layer.MoE(..., ep_size=$GPUPLAN_EP_SIZE,
#            enable_expert_tensor_parallelism={split}); ds_config.json has no EP key.
# megatron:  megatron_args.sh passes --expert-model-parallel-size {ep} --expert-tensor-parallel-size {etp}.
export GPUPLAN_EP_SIZE=\"${{GPUPLAN_EP_SIZE:-{ep}}}\"
export GPUPLAN_EXPERT_TP_SIZE=\"${{GPUPLAN_EXPERT_TP_SIZE:-{etp}}}\"
",
        ep = t.ep,
        etp = t.etp
    )
}

/// The plan's checkpoint interval (spot plans), as a variable the training script can read.
fn checkpoint_lines(t: &TrainView) -> String {
    let why = match t.checkpoint_basis {
        Some(super::view::CheckpointBasis::Spot) => {
            "spot: the plan's interval for its preemption rate and failures"
        }
        _ => "on-demand/subscription: the plan's interval for hardware and software failures",
    };
    match (t.checkpoint_interval_s, t.checkpoint_steps()) {
        (Some(secs), Some(steps)) => format!(
            "# Checkpoint every {secs:.0} s = {steps} steps ({why}, Daly's exact optimum; see README.txt;
# HF Trainer: --save_steps {steps}; Megatron: --save-interval, set in megatron_args.sh).
export GPUPLAN_CHECKPOINT_STEPS=\"${{GPUPLAN_CHECKPOINT_STEPS:-{steps}}}\"
"
        ),
        _ => String::new(),
    }
}

/// DeepSpeed configuration holding the plan's ZeRO stage, offload, precision and batch.
pub fn deepspeed(p: &PlanView, t: &TrainView) -> Value {
    let mut zero = json!({ "stage": t.zero });
    if t.zero >= 1 {
        // The plan's step time overlaps gradient communication with backward (dp_overlap).
        zero["overlap_comm"] = json!(true);
        zero["contiguous_gradients"] = json!(true);
        zero["reduce_bucket_size"] = json!(DS_BUCKET_ELEMENTS);
    }
    if (1..=2).contains(&t.zero) {
        zero["allgather_bucket_size"] = json!(DS_BUCKET_ELEMENTS);
    }
    if t.offload_optimizer {
        zero["offload_optimizer"] = json!({ "device": "cpu", "pin_memory": true });
    }
    if t.offload_params && t.zero == 3 {
        zero["offload_param"] = json!({ "device": "cpu", "pin_memory": true });
    }
    let mut ds = json!({
        "train_batch_size": global_batch(p, t),
        "train_micro_batch_size_per_gpu": t.micro_batch,
        "gradient_accumulation_steps": t.grad_accum,
        "zero_optimization": zero,
    });
    match t.precision.as_str() {
        "amp_fp16" => ds["fp16"] = json!({ "enabled": true }),
        "fp32" => {}
        _ => ds["bf16"] = json!({ "enabled": true }),
    }
    ds
}

/// Whether Accelerate's FSDP can hold the same memory plan (ZeRO-1 and optimizer-only offload
/// have no FSDP counterpart; TP/PP/EP are not in an FSDP config). Context parallelism alone (no
/// TP/PP/EP, an eager profile) is: the plan timed it as torch's `context_parallel` ring under
/// FSDP (train/ring.rs), which is what Accelerate ≥ 1.10 runs with FSDP2 and `parallelism_config`
/// ([`fsdp_cp`]), sharding over the data-parallel and context-parallel ranks together as the
/// plan's ZeRO group does. Before (review r14 #5) such a plan was exported to Megatron-LM, whose
/// distributed optimizer holds ZeRO-1 only: a ZeRO-3 CP 2 Qwen2.5-7B 32k plan needing 69.9 GiB
/// per A100-80GB needs 85.6 GiB there.
pub fn fsdp_equivalent(t: &TrainView) -> Result<&'static str, &'static str> {
    if fsdp_cp(t) {
        return match t.zero {
            2 => Ok("SHARD_GRAD_OP"),
            3 => Ok("FULL_SHARD"),
            _ => Err("context parallelism under Accelerate needs FSDP2, which has no ZeRO-0/1 form: use megatron_args.sh"),
        };
    }
    if t.model_parallel() {
        return Err("the plan uses TP/PP/CP/EP: use megatron_args.sh");
    }
    if t.offload_optimizer != t.offload_params {
        return Err("FSDP offloads parameters and gradients together; the plan offloads only one of them: use ds_config.json");
    }
    match t.zero {
        0 => Ok("NO_SHARD"),
        2 => Ok("SHARD_GRAD_OP"),
        3 => Ok("FULL_SHARD"),
        _ => {
            Err("ZeRO-1 (optimizer states only) has no FSDP sharding strategy: use ds_config.json")
        }
    }
}

/// A context-parallel plan of an eager profile with no TP, PP or EP and no offload: the layout
/// Accelerate's `parallelism_config` runs with its torch backend (huggingface/accelerate
/// docs/source/concept_guides/context_parallelism.md @fb80e025: "context parallelism only works
/// if you use FullyShardedDataParallelPlugin or --use-fsdp with version set to 2", "works only
/// with SDPA", the loop under `accelerator.maybe_context_parallel(...)`, labels shifted by hand;
/// TRL's config for it sets `parallelism_config_cp_size` beside `fsdp_version: 2`).
fn fsdp_cp(t: &TrainView) -> bool {
    t.cp > 1
        && t.tp <= 1
        && t.pp <= 1
        && t.ep <= 1
        && t.framework != "megatron"
        && !t.offload_optimizer
        && !t.offload_params
}

fn accelerate_fsdp(p: &PlanView, t: &TrainView) -> Result<String> {
    let strategy = fsdp_equivalent(t).unwrap_or("FULL_SHARD");
    let mixed = match t.precision.as_str() {
        "amp_fp16" => "fp16",
        "fp32" => "no",
        "fp8" => "fp8",
        _ => "bf16",
    };
    let mut doc = json!({
        "compute_environment": "LOCAL_MACHINE",
        "distributed_type": "FSDP",
        "mixed_precision": mixed,
        "num_machines": p.nodes,
        "num_processes": p.total_gpus(),
        "machine_rank": 0,
        "main_process_ip": "REPLACE: the private address of node 0 (launch.sh passes --main_process_ip)",
        "main_process_port": 29500,
        "rdzv_backend": "c10d",
        "same_network": true,
        "fsdp_config": {
            "fsdp_version": 1,
            "fsdp_sharding_strategy": strategy,
            "fsdp_offload_params": t.offload_params,
            "fsdp_activation_checkpointing": t.recompute == "full",
            "fsdp_auto_wrap_policy": "TRANSFORMER_BASED_WRAP",
            "fsdp_state_dict_type": "SHARDED_STATE_DICT",
            "fsdp_use_orig_params": true,
        },
    });
    let mut what = format!(
        "Accelerate FSDP config: ZeRO-{} of the plan = FSDP {strategy}, {} micro-batch {} × accumulation {} (set them in the training script).",
        t.zero, mixed, t.micro_batch, t.grad_accum
    );
    if t.fsdp2 && !fsdp_cp(t) {
        // The memory the plan holds is FSDP2's (its third buffer at each forward unshard).
        fsdp2_keys(&mut doc, t);
        what.push_str(" FSDP2 (fsdp_version 2), as the plan's memory assumed.");
    }
    if fsdp_cp(t) {
        fsdp2_context_parallel(&mut doc, t, p.total_gpus());
        what.push_str(&format!(
            " Context parallelism {} (torch context_parallel ring, Accelerate >= 1.10 with FSDP2): load the model with attn_implementation=\"sdpa\", run each step under accelerator.maybe_context_parallel(...), shift the labels before the model does and pad sequences to a multiple of {}.",
            t.cp,
            2 * t.cp
        ));
    }
    yaml(p, &what, &[doc])
}

/// `fsdp_version: 2` in place of FSDP1's keys: ZeRO-3 resharding after forward and ZeRO-2 not
/// (FSDP2's `reshard_after_forward`, the v2 form of FULL_SHARD / SHARD_GRAD_OP).
fn fsdp2_keys(doc: &mut Value, t: &TrainView) {
    let f = &mut doc["fsdp_config"];
    f["fsdp_version"] = json!(2);
    f["fsdp_reshard_after_forward"] = json!(t.zero == 3);
    if let Some(o) = f.as_object_mut() {
        o.remove("fsdp_sharding_strategy");
        o.remove("fsdp_use_orig_params");
    }
}

/// FSDP2 with `parallelism_config` for a context-parallel plan ([`fsdp_cp`]): FSDP shards over
/// the data-parallel × context-parallel ranks, ZeRO-3 resharding after forward and ZeRO-2 not
/// (FSDP2's `reshard_after_forward`, the v2 form of FULL_SHARD / SHARD_GRAD_OP). Keys: the
/// vendored accelerate 1.16.0 lists (`parallelism_config`, `fsdp_reshard_after_forward`; the
/// `parallelism_config_*` names are its launch flags, tests/schemas/accelerate-config-keys.json).
fn fsdp2_context_parallel(doc: &mut Value, t: &TrainView, total_gpus: u64) {
    fsdp2_keys(doc, t);
    doc["parallelism_config"] = json!({
        "parallelism_config_dp_replicate_size": 1,
        "parallelism_config_dp_shard_size": t.data_parallel(total_gpus),
        "parallelism_config_tp_size": 1,
        "parallelism_config_cp_size": t.cp,
    });
}

/// The plan's uneven pipeline split as Megatron-LM arguments (core_r0.9.0 added the first/last
/// stage sizes, core_r0.11.0 the embedding/loss accounting; megatron/training/arguments.py).
/// Stated sizes Megatron-Core refuses ([`megatron_split_refused`]) are left out: the README
/// says so ([`not_carried`]).
fn megatron_stage_split(t: &TrainView, a: &mut Vec<String>) {
    if megatron_split_refused(t).is_none() {
        if let Some(l) = t.first_stage_layers {
            a.push(format!("--decoder-first-pipeline-num-layers {l}"));
        }
        if let Some(l) = t.last_stage_layers {
            a.push(format!("--decoder-last-pipeline-num-layers {l}"));
        }
    }
    if t.account_for_embedding_in_pipeline_split {
        a.push("--account-for-embedding-in-pipeline-split".into());
    }
    if t.account_for_loss_in_pipeline_split {
        a.push("--account-for-loss-in-pipeline-split".into());
    }
}

/// Why Megatron-Core would refuse the plan's stated first/last stage sizes (review r15 #4): a
/// plan of another stack needs only ≥ 1 layer per stage, while Megatron-Core splits the layers
/// left evenly over the other stages (`TransformerConfig.__post_init__`, gpuplan-core
/// `pipeline::check` under `Framework::Megatron`), so e.g. 15 of 126 layers on the last of 8
/// stages (111 over 7) stops the job at start. `None` where no size is stated, Megatron-Core
/// builds the split, or a Megatron plan from before the layer count was written (checked when
/// planned). Another plan without the count cannot be checked: it is left out as unchecked.
fn megatron_split_refused(t: &TrainView) -> Option<Msg> {
    if t.first_stage_layers.is_none() && t.last_stage_layers.is_none() {
        return megatron_even_split_refused(t);
    }
    let split = [
        ("first_stage_layers", t.first_stage_layers),
        ("last_stage_layers", t.last_stage_layers),
    ]
    .iter()
    .filter_map(|(k, v)| v.map(|v| format!("parallel.{k} = {v}")))
    .collect::<Vec<_>>()
    .join(", ");
    let Some(layers) = t.layers else {
        return (t.framework != "megatron").then(|| {
            Msg::new("export-nc-stage-split-unchecked")
                .arg("split", split)
                .arg("pp", t.pp)
        });
    };
    let p = Parallelism {
        tp: t.tp,
        pp: t.pp,
        ep: t.ep,
        cp: t.cp,
        virtual_stages: t.virtual_stages,
        first_stage_layers: t.first_stage_layers,
        last_stage_layers: t.last_stage_layers,
        account_for_embedding_in_pipeline_split: t.account_for_embedding_in_pipeline_split,
        account_for_loss_in_pipeline_split: t.account_for_loss_in_pipeline_split,
        ..Parallelism::default()
    };
    let why = pipeline::check(layers, &p, Framework::Megatron)
        .err()?
        .message();
    Some(
        Msg::new("export-nc-stage-split")
            .arg("split", split)
            .arg("layers", layers)
            .arg("pp", t.pp)
            .arg("why", why),
    )
}

/// Review r16b: with no stage sizes stated Megatron-Core splits the layers evenly and stops at
/// start when PP does not divide them (`pipeline::check`'s even-split rule), so a plan whose PP
/// does not (one written by hand or before the rule) gets a note instead of a script that fails
/// silently. `None` where the plan does not record its layer count or Megatron builds the split.
fn megatron_even_split_refused(t: &TrainView) -> Option<Msg> {
    let layers = t.layers?;
    let p = Parallelism {
        pp: t.pp,
        virtual_stages: t.virtual_stages,
        account_for_embedding_in_pipeline_split: t.account_for_embedding_in_pipeline_split,
        account_for_loss_in_pipeline_split: t.account_for_loss_in_pipeline_split,
        ..Parallelism::default()
    };
    // An interleaved split Megatron-Core builds only under a layout (audit r18 #4).
    let why = match pipeline::check(layers, &p, Framework::Megatron) {
        Err(e) => e.message(),
        Ok(()) => pipeline::megatron_vp_layout_note(layers, &p, Framework::Megatron)?,
    };
    Some(
        Msg::new("export-nc-even-split")
            .arg("layers", layers)
            .arg("pp", t.pp)
            .arg("why", why),
    )
}

/// Megatron-LM (core_v0.15.0 argument names) arguments for the plan's parallelism and batch.
pub fn megatron_args(p: &PlanView, t: &TrainView) -> Vec<String> {
    let mut a: Vec<String> = vec![
        format!("--tensor-model-parallel-size {}", t.tp),
        format!("--pipeline-model-parallel-size {}", t.pp),
    ];
    if t.virtual_stages > 1 {
        // The interleaved 1F1B schedule the plan's bubble (p − 1)/(m·v) assumes.
        a.push(format!(
            "--num-virtual-stages-per-pipeline-rank {}",
            t.virtual_stages
        ));
    }
    megatron_stage_split(t, &mut a);
    if t.cp > 1 {
        a.push(format!("--context-parallel-size {}", t.cp));
    }
    if t.ep > 1 {
        a.push(format!("--expert-model-parallel-size {}", t.ep));
        // The expert TP size the plan's memory and step time assumed, always named: Megatron-LM
        // sets it to TP when absent (megatron/training/arguments.py `_add_moe_args`:
        // '--expert-tensor-parallel-size', "Default is None, which will be set to the value of
        // --tensor-model-paralle-size."), which splits every expert where the default profile's
        // plan (DeepSpeed-MoE, ETP 1) keeps them whole.
        a.push(format!("--expert-tensor-parallel-size {}", t.etp));
        megatron_dispatcher(t, &mut a);
    } else if t.moe {
        // EP 1: no expert all-to-all to time (train/step.rs `ep_copies` is 0 at one rank), but
        // Megatron-LM would pick its `allgather` default; the dispatcher of the plan's setup
        // (`alltoall` unless stated) is named as at EP > 1 (expert r15).
        megatron_dispatcher_type(t, &mut a);
    }
    if t.sequence_parallel {
        a.push("--sequence-parallel".into());
    }
    megatron_overlaps(t, &mut a);
    a.push(format!("--micro-batch-size {}", t.micro_batch));
    a.push(format!("--global-batch-size {}", global_batch(p, t)));
    a.push(format!("--seq-length {}", t.seq_len));
    match t.precision.as_str() {
        "amp_fp16" => a.push("--fp16".into()),
        "fp32" => {}
        "fp8" => a.extend(["--bf16".into(), "--fp8-format hybrid".into()]),
        _ => a.push("--bf16".into()),
    }
    // The FP8 parameters and bf16 main gradients the plan's memory assumed (train.rs
    // `fp8_weight_items`; Megatron-LM --fp8-param-gather needs the distributed optimizer).
    if t.fp8_params {
        a.push("--fp8-param-gather".into());
    }
    if t.main_grads_bf16 {
        a.push("--grad-reduce-in-bf16".into());
    }
    a.extend(bf16_moment_args(t));
    a.extend(fusion_args(t));
    match t.recompute.as_str() {
        // Store each layer's input, recompute the layer: uniform over 1-layer chunks.
        "full" => a.extend([
            "--recompute-granularity full".into(),
            "--recompute-method uniform".into(),
            "--recompute-num-layers 1".into(),
        ]),
        "selective" => a.push("--recompute-granularity selective".into()),
        _ => {}
    }
    if t.zero >= 1 {
        a.push("--use-distributed-optimizer".into());
    }
    if t.offload_optimizer {
        a.push("--optimizer-cpu-offload".into());
    }
    if t.attention == "flash" {
        a.push("--use-flash-attn".into());
    }
    if let Some(steps) = t.checkpoint_steps() {
        a.push(format!("--save-interval {steps}"));
    }
    a
}

/// The overlaps the plan's step time hides communication behind; Megatron-LM leaves each off
/// unless asked (`megatron/training/arguments.py` `validate_args`: `--overlap-param-gather`
/// asserts the distributed optimizer and `--overlap-grad-reduce`; `--tp-comm-overlap` needs
/// sequence parallelism and Transformer Engine).
/// `optimizer_dtype = "bf16"`: Megatron-Core's precision-aware optimizer keeps the Adam moments
/// in bf16 (`--use-precision-aware-optimizer --exp-avg-dtype bf16 --exp-avg-sq-dtype bf16`,
/// megatron/training/arguments.py @core_v0.13.0 l.2932-2949, where `bf16` joined the moments'
/// choices; it asserts the distributed optimizer, optimizer_config.py l.198-200). Its master
/// weights cannot be bf16 (`--main-params-dtype` takes fp32 or fp16): the README says so
/// ([`not_carried`]).
fn bf16_moment_args(t: &TrainView) -> Vec<String> {
    if !t.optimizer_bf16 || t.zero < 1 {
        return Vec::new();
    }
    [
        "--use-precision-aware-optimizer",
        "--exp-avg-dtype bf16",
        "--exp-avg-sq-dtype bf16",
    ]
    .map(String::from)
    .to_vec()
}

/// The loss and weight-gradient paths the plan's step time and memory assumed
/// ([`TrainView::megatron_fused_loss`], [`TrainView::megatron_fused_wgrad`]). Megatron-LM's own
/// defaults are the unfused loss and the fused weight-gradient accumulation
/// (megatron/training/arguments.py: `group.add_argument('--cross-entropy-loss-fusion',
/// action='store_true', help='Enabled fusion of cross entropy loss calculation.',
/// dest='cross_entropy_loss_fusion')` and `'--no-gradient-accumulation-fusion',
/// action='store_false', ... dest='gradient_accumulation_fusion'`), so each is named only where
/// the plan differs from them.
fn fusion_args(t: &TrainView) -> Vec<String> {
    let mut a = Vec::new();
    if t.megatron_fused_loss {
        a.push("--cross-entropy-loss-fusion".into());
    }
    if !t.megatron_fused_wgrad {
        a.push("--no-gradient-accumulation-fusion".into());
    }
    a
}

fn megatron_overlaps(t: &TrainView, a: &mut Vec<String>) {
    if t.overlap_grad_reduce {
        a.push("--overlap-grad-reduce".into());
    }
    if t.overlap_param_gather && t.overlap_grad_reduce && t.zero >= 1 {
        a.push("--overlap-param-gather".into());
    }
    if t.tp_comm_overlap && t.tp > 1 && t.sequence_parallel {
        a.push("--tp-comm-overlap".into());
    }
}

/// The MoE token dispatcher the plan's expert all-to-all was timed with (train/step.rs
/// `ep_alltoall_seconds`). Megatron-LM's own default is `allgather` (core_v0.15.0
/// megatron/training/arguments.py `--moe-token-dispatcher-type`, default 'allgather'), which the
/// step time does not model, so it is always named. DeepEP: `flex` with `--moe-enable-deepep`
/// (core_v0.15.0; deprecated later for `--moe-flex-dispatcher-backend deepep`). HybridEP has no
/// core_v0.15.0 flag (`--moe-flex-dispatcher-backend hybridep` arrived in core_v0.16.0), so it is
/// exported as DeepEP, which the step time counts the same, with a note in the script
/// ([`megatron_args_sh`]). The EP all-to-all overlap
/// needs `--delay-wgrad-compute` beside it (moe/README.md: 'EP A2A Overlap ...
/// `--overlap-moe-expert-parallel-comm --delay-wgrad-compute`').
fn megatron_dispatcher(t: &TrainView, a: &mut Vec<String>) {
    megatron_dispatcher_type(t, a);
    if t.moe_a2a_overlap {
        a.extend([
            "--overlap-moe-expert-parallel-comm".into(),
            "--delay-wgrad-compute".into(),
        ]);
    }
}

/// The dispatcher of [`megatron_dispatcher`] alone, without the EP all-to-all overlap.
fn megatron_dispatcher_type(t: &TrainView, a: &mut Vec<String>) {
    match t.moe_dispatcher.as_str() {
        "deepep" | "hybridep" => a.extend([
            "--moe-token-dispatcher-type flex".into(),
            "--moe-enable-deepep".into(),
        ]),
        "allgather" => a.push("--moe-token-dispatcher-type allgather".into()),
        _ => a.push("--moe-token-dispatcher-type alltoall".into()),
    }
}

fn megatron_args_sh(p: &PlanView, t: &TrainView) -> String {
    let args = megatron_args(p, t);
    let mut body = String::from("# Sourced by launch.sh (LAUNCHER=megatron); add the model, data and optimizer arguments.\n");
    if t.zero >= 2 {
        body.push_str(&format!("# The plan uses ZeRO-{}: Megatron's distributed optimizer shards the optimizer states (ZeRO-1);\n# gradients/parameters stay replicated across data-parallel ranks, so memory is higher than planned.\n", t.zero));
        match ep_stack(t) {
            EpStack::DeepSpeedMoe => body.push_str("# This EP plan is DeepSpeed-MoE's: launch.sh defaults to LAUNCHER=deepspeed (README.txt).\n"),
            EpStack::None => body.push_str("# No launcher of this bundle reproduces this EP plan (README.txt).\n"),
            EpStack::Megatron => {}
        }
    }
    if t.ep > 1 && t.moe_dispatcher == "hybridep" {
        body.push_str("# The plan was timed with HybridEP, counted as DeepEP; Megatron-Core core_v0.16.0+ selects it with\n# --moe-flex-dispatcher-backend hybridep in place of --moe-enable-deepep.\n");
    }
    body.push_str("MEGATRON_ARGS=(\n");
    for a in args {
        body.push_str(&format!("  {a}\n"));
    }
    body.push_str(")\n");
    script(
        p,
        &format!(
            "Megatron-LM arguments: TP {} × PP {} × EP {}, DP {}.",
            t.tp,
            t.pp,
            t.ep,
            t.data_parallel(p.total_gpus())
        ),
        &body,
    )
}
