//! Serving bundle: `vllm serve` and SGLang launch lines with the TP, context, memory fraction,
//! weight format, KV dtype and batch the plan sized (argument names: vLLM 0.34.0 engine/arg_utils.py
//! and SGLang 0.5.2 srt/server_args.py, vendored in crates/gpuplan/tests/schemas/).

use super::view::{PlanView, ServeView};
use super::{script, File};
use anyhow::Result;

/// vLLM's default API port (vllm/entrypoints/common/cli_args.py FrontendArgs.port = 8000).
pub const VLLM_PORT: u64 = 8000;
/// SGLang's default port (sglang/srt/server_args.py ServerArgs.port = 30000).
pub const SGLANG_PORT: u64 = 30000;

pub fn files(p: &PlanView) -> Result<Vec<File>> {
    let s = p.serve.as_ref().unwrap_or_else(|| unreachable!());
    let mut v = vec![File::new("serve-vllm.sh", vllm_sh(p, s))];
    // SGLang stops at load below compute capability 7.5 ("SGLang only supports sm75 and above.",
    // python/sglang/srt/model_executor/model_runner.py `load_model`): no script for a chip it
    // cannot start on (audit r19 #4: a V100 plan's bundle carried one).
    if writes_sglang(s) {
        v.push(File::new("serve-sglang.sh", sglang_sh(p, s)));
    }
    Ok(v)
}

/// Whether the bundle carries an SGLang script: not on a chip below SGLang's start floor.
fn writes_sglang(s: &ServeView) -> bool {
    !s.below_sglang_cc
}

/// One engine argument: the flag, its value (none for a switch), and why.
pub struct Arg {
    pub flag: &'static str,
    pub value: String,
}

fn arg(flag: &'static str, value: impl ToString) -> Arg {
    Arg {
        flag,
        value: value.to_string(),
    }
}

/// What an int8 plan needs from the checkpoint, for vLLM.
pub const INT8_NOTE: &str = "int8: serve an 8-bit weight-only checkpoint of the model (GPTQ 8-bit, or compressed-tensors W8A16 from llm-compressor); vLLM reads its method from the config. No --quantization is set: vLLM's online int8_per_channel_weight_only quantizes MoE experts only and keeps the linear layers 16-bit, twice the weight memory planned";

/// What an int4 plan on a chip below compute capability 7.5 serves (audit r19 #1): vLLM's and
/// SGLang's `AWQConfig.get_min_capability()` is 75 ("The AWQ kernel only supports Turing or newer
/// GPUs", vllm quantization/awq.py), `GPTQConfig`'s 60 (exllama), so `--quantization awq` stops
/// at start-up on a V100.
pub const INT4_GPTQ_NOTE: &str = "int4: serve a GPTQ checkpoint of the model: this chip is below compute capability 7.5, where vLLM loads no AWQ checkpoint (AWQConfig.get_min_capability() = 75); GPTQ's exllama kernel loads from 6.0";

/// vLLM on an Ascend NPU (audit r20 #3): the vllm-ascend plugin ("vLLM Ascend plugin … runs
/// vLLM on the Ascend NPU", vllm-project/vllm-ascend README; image quay.io/ascend/vllm-ascend).
pub const ASCEND_VLLM_NOTE: &str = "Ascend: vLLM runs on the NPUs through the vllm-ascend plugin (with CANN and torch_npu; the image quay.io/ascend/vllm-ascend), which takes these arguments";

/// SGLang on an Ascend NPU: its Ascend build (docs.sglang.io, Ascend NPU quickstart: the image
/// quay.io/ascend/sglang, a `-910b` tag for Atlas 800I A2).
pub const ASCEND_SGLANG_NOTE: &str = "Ascend: run SGLang's Ascend build (the image quay.io/ascend/sglang, its -910b tag on Atlas A2 servers)";

/// A quantized plan on Ascend under vLLM: vllm-ascend's quantization is its `ascend` method
/// ("Since 0.9.0rc2 … Users can enable quantization feature by specifying --quantization
/// ascend", its quantization guide v0.10.0rc1) over ModelSlim checkpoints (the guide, v0.13.0:
/// "vLLM Ascend supports models quantized by two main tools: ModelSlim and LLM-Compressor"). The
/// flag is registered by the plugin, so it is a note, not an argument of stock vLLM.
fn ascend_vllm_quant_note(weights: &str) -> String {
    format!("{weights} on Ascend: serve a checkpoint quantized by ModelSlim (msModelSlim) and add --quantization ascend, the method vllm-ascend registers (from 0.9.0rc2); its quantization guide names ModelSlim and LLM-Compressor checkpoints, not AWQ or GPTQ")
}

/// A quantized plan on Ascend under SGLang: "if the model has been quantized offline, there's
/// no need to add `--quantization` argument … parsed from the downloaded
/// `quant_model_description.json`" (docs.sglang.io, Quantization on Ascend).
fn ascend_sglang_quant_note(weights: &str) -> String {
    format!("{weights} on Ascend: serve a checkpoint quantized by ModelSlim; SGLang reads its method from quant_model_description.json, so no --quantization is set")
}

/// The `vllm serve` arguments, and notes where vLLM cannot hold the plan's format exactly.
pub fn vllm_args(s: &ServeView) -> (Vec<Arg>, Vec<String>) {
    let mut notes = vec![];
    if s.ascend {
        notes.push(ASCEND_VLLM_NOTE.to_string());
    }
    let mut a = vec![
        arg("--tensor-parallel-size", s.tp),
        arg("--max-model-len", s.max_model_len),
        arg("--gpu-memory-utilization", s.gpu_memory_utilization),
        arg("--max-num-seqs", s.batch_per_replica),
    ];
    match s.weights.as_str() {
        "bf16" => a.push(arg("--dtype", "bfloat16")),
        "fp16" => a.push(arg("--dtype", "float16")),
        "fp32" => a.push(arg("--dtype", "float32")),
        "fp8" => a.push(arg("--quantization", "fp8")),
        // vLLM's online `int8_per_channel_weight_only` quantizes MoE experts only and leaves every
        // linear layer 16-bit (vllm/config/quantization.py `_ONLINE_SHORTHANDS`, "INT8 weight-only
        // on MoE; linear stays unquantized"): a dense model would hold twice the weights planned
        // (audit r10). An 8-bit checkpoint carries its method in its config instead.
        "int8" | "int4" if s.ascend => notes.push(ascend_vllm_quant_note(&s.weights)),
        "int8" => notes.push(INT8_NOTE.into()),
        "int4" if s.below_awq_cc => {
            a.push(arg("--quantization", "gptq"));
            notes.push(INT4_GPTQ_NOTE.into());
        }
        "int4" => {
            a.push(arg("--quantization", "awq"));
            notes.push("int4: serve an AWQ checkpoint of the model (or a GPTQ one with --quantization gptq)".into());
        }
        other => notes.push(format!(
            "weights {other}: vLLM reads the quantization from the checkpoint; no flag is set"
        )),
    }
    half_dtype(s, &mut a);
    match s.kv_dtype.as_str() {
        "fp8" => a.push(arg("--kv-cache-dtype", "fp8")),
        "int8" => {
            a.push(arg("--kv-cache-dtype", "fp8"));
            notes.push("KV int8: vLLM has no int8 KV cache; fp8 takes the same 1 byte per element, so the plan's KV pool holds".into());
        }
        _ => a.push(arg("--kv-cache-dtype", "auto")),
    }
    (a, notes)
}

/// `--dtype float16` for quantized weights on a chip without bf16 (T4, V100): the engines take
/// the activation and KV dtype from the checkpoint's `torch_dtype`, bf16 for current models, and
/// vLLM refuses it below compute capability 8.0 ("Bfloat16 is only supported on GPUs with
/// compute capability of at least 8.0 … use float16 instead", vllm/v1/worker/gpu_worker.py
/// `_check_if_gpu_supports_dtype`, as gpuplan-core's `infer::adapt_half` cites); audit r9 #3: the int8 T4 bundle started nothing. The 16-bit
/// formats set their own `--dtype`.
fn half_dtype(s: &ServeView, a: &mut Vec<Arg>) {
    let sixteen = matches!(s.weights.as_str(), "bf16" | "fp16" | "fp32");
    if s.half_only && !sixteen {
        a.push(arg("--dtype", "float16"));
    }
}

/// The SGLang server arguments.
pub fn sglang_args(s: &ServeView) -> (Vec<Arg>, Vec<String>) {
    let mut notes = vec!["--mem-fraction-static is the plan's gpu_memory_utilization: both are the share of device memory for weights + KV pool".to_string()];
    if s.ascend {
        notes.push(ASCEND_SGLANG_NOTE.to_string());
    }
    let mut a = vec![
        arg("--tp-size", s.tp),
        arg("--context-length", s.max_model_len),
        arg("--mem-fraction-static", s.gpu_memory_utilization),
        arg("--max-running-requests", s.batch_per_replica),
        arg("--host", "0.0.0.0"),
        arg("--port", SGLANG_PORT),
    ];
    match s.weights.as_str() {
        "bf16" => a.push(arg("--dtype", "bfloat16")),
        "fp16" => a.push(arg("--dtype", "float16")),
        "fp32" => a.push(arg("--dtype", "float32")),
        "fp8" => a.push(arg("--quantization", "fp8")),
        "int8" | "int4" if s.ascend => notes.push(ascend_sglang_quant_note(&s.weights)),
        "int4" => a.push(arg("--quantization", "awq")),
        other => notes.push(format!(
            "weights {other}: SGLang 0.5.2 has no weight-only flag for it; serve a checkpoint quantized so"
        )),
    }
    half_dtype(s, &mut a);
    if matches!(s.kv_dtype.as_str(), "fp8" | "int8") {
        a.push(arg("--kv-cache-dtype", "fp8_e4m3"));
    }
    (a, notes)
}

fn lines(args: &[Arg]) -> String {
    args.iter()
        .map(|a| format!("  {} {} \\\n", a.flag, a.value))
        .collect()
}

fn comments(notes: &[String]) -> String {
    notes.iter().map(|n| format!("# Note: {n}\n")).collect()
}

fn replicas_note(p: &PlanView, s: &ServeView) -> String {
    format!(
        "# One replica ({} {} GPU(s)); the plan runs {} replicas ({} for the stated rate, {} at peak)\n# on {} × {}: k8s/deployment.yaml scales them.\n",
        s.tp, p.gpu_name, s.replicas, s.replicas_for_rate.max(s.min_replicas).min(s.replicas), s.replicas, p.nodes, p.instance
    )
}

fn vllm_sh(p: &PlanView, s: &ServeView) -> String {
    let (args, notes) = vllm_args(s);
    let body = format!(
        "{}{}MODEL=\"${{MODEL:?set MODEL to the HF repo id or local path of {}}}\"\nexec vllm serve \"$MODEL\" \\\n{}  \"$@\"\n",
        replicas_note(p, s),
        comments(&notes),
        p.model,
        lines(&args)
    );
    script(p, "vLLM server, sized as the plan sized it.", &body)
}

fn sglang_sh(p: &PlanView, s: &ServeView) -> String {
    let (args, notes) = sglang_args(s);
    let body = format!(
        "{}{}MODEL=\"${{MODEL:?set MODEL to the HF repo id or local path of {}}}\"\nexec python -m sglang.launch_server --model-path \"$MODEL\" \\\n{}  \"$@\"\n",
        replicas_note(p, s),
        comments(&notes),
        p.model,
        lines(&args)
    );
    script(p, "SGLang server, the same sizing as serve-vllm.sh.", &body)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::export::view::{chip_flags, CcFloors};

    /// A Turing-class (7.5) CUDA plan's serving view under `floors`, int4 weights.
    fn int4_at(floors: CcFloors) -> ServeView {
        let plan = serde_json::json!({"gpu": {"stack": "cuda", "compute_capability": 75,
            "dtypes": ["fp16", "bf16"]}});
        let chip = chip_flags(&plan, floors);
        ServeView {
            weights: "int4".into(),
            tp: 1,
            replicas: 1,
            replicas_for_rate: 1,
            min_replicas: 1,
            batch_per_replica: 8,
            rps_per_replica: 1.0,
            max_model_len: 4096,
            gpu_memory_utilization: 0.9,
            kv_dtype: "fp16".into(),
            running_at_peak: None,
            half_only: chip.half_only,
            below_awq_cc: chip.below_awq_cc,
            below_sglang_cc: chip.below_sglang_cc,
            ascend: chip.ascend,
        }
    }

    fn quantization(s: &ServeView) -> String {
        let (args, _) = vllm_args(s);
        let q = args.iter().find(|a| a.flag == "--quantization");
        q.map(|a| a.value.clone()).unwrap_or_default()
    }

    /// AWQ's floor decides the int4 checkpoint, SGLang's floor the SGLang script, each read from
    /// its own rule: with the floors made different, swapping the two flags anywhere (the
    /// floors, `chip_flags`, the script's or the quantization's reading) fails here.
    #[test]
    fn the_awq_floor_and_the_sglang_floor_are_two_facts() {
        let today = CcFloors::today();
        assert_eq!(today.awq, Some(gpuplan_core::infer::AWQ_MIN_CC));
        let sglang = gpuplan_core::infer::engine_min_cc(gpuplan_core::workload::Engine::Sglang);
        assert_eq!(today.sglang, sglang);
        let awq_above = int4_at(CcFloors {
            awq: Some(80),
            sglang: Some(70),
        });
        assert!(awq_above.below_awq_cc && !awq_above.below_sglang_cc);
        assert_eq!(quantization(&awq_above), "gptq");
        assert!(writes_sglang(&awq_above));
        let sglang_above = int4_at(CcFloors {
            awq: Some(70),
            sglang: Some(80),
        });
        assert!(!sglang_above.below_awq_cc && sglang_above.below_sglang_cc);
        assert_eq!(quantization(&sglang_above), "awq");
        assert!(!writes_sglang(&sglang_above));
        let met = int4_at(today);
        assert!(!met.below_awq_cc && !met.below_sglang_cc);
    }
}
