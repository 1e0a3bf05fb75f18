//! Issue 9 targets on published training-memory peaks (cases/*.toml of kind `train_memory` whose
//! metric is a peak: allocated, reserved or nvidia-smi), asserted as the bands: an
//! out-of-sample median |error| ≤ 5% (met) and none beyond 15% unless a recorded known deviation
//! (met).

use gpuplan_core::validation::{evaluate, parse_case, CaseKind};

const PEAK_METRICS: &[&str] = &[
    "peak_allocated_gib",
    "peak_allocated_gb",
    "peak_reserved_gib",
    "device_total_gib",
];

/// (id, error, known_deviation?) of every out-of-sample published peak.
fn peaks() -> Vec<(String, f64, bool)> {
    let dir = format!("{}/../../cases", env!("CARGO_MANIFEST_DIR"));
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_none_or(|x| x != "toml") {
            continue;
        }
        let case = parse_case(
            &p.display().to_string(),
            &std::fs::read_to_string(&p).unwrap(),
        )
        .unwrap();
        if case.kind != CaseKind::TrainMemory
            || !PEAK_METRICS.contains(&case.metric.as_str())
            || case.in_sample.is_some()
        {
            continue;
        }
        let o = evaluate(&case).unwrap();
        out.push((o.id, o.error, case.known_deviation.is_some()));
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

#[test]
fn published_training_peaks_within_their_bands() {
    let rows = peaks();
    let report: String = rows
        .iter()
        .map(|(id, e, kd)| {
            format!(
                "{id:44} {:+6.1}%{}\n",
                e * 100.0,
                if *kd { "  known deviation" } else { "" }
            )
        })
        .collect();
    println!("{report}");
    // 24 (LitGPT, torchtune) + 18 torchtitan pre-training rows (Dec 2024 H100 benchmark) + 2
    // Trainy torchtitan H200 rows (June 2025) + 9 transformers-docs BERT-large rows (Jan 2022,
    // nvidia-smi) + 4 PEFT-docs Llama-2-70B LoRA/QLoRA rows (ZeRO-3, FSDP) + 18 Qwen (v1) README
    // single-GPU LoRA rows + their 18 LoRA (emb) rows (`lora.modules_to_save`).
    assert!(
        rows.len() >= 93,
        "published peaks: {}\n{report}",
        rows.len()
    );
    // The recorded deviations among the peaks (torchtune 8B full on an A6000; torchtitan's two
    // 70B FSDP × TP rows left the list when torch's loss_parallel buffers and the gathered LM-head
    // input were modelled (−24.5% / −19.7% → −9.9% / −4.1%); the LitGPT rows when the `litgpt`
    // framework profile,
    // measured on CPU, replaced the HF profile for them, Trainy's H200 rows when `compiled_loss`
    // was modelled, torchtune's 70B full row when FSDP's unit gradients were); the PEFT FSDP QLoRA
    // row with parameter offload and seven Qwen-1.8B (v1) README rows (LoRA at 256-4096 tokens,
    // LoRA (emb) at 512 and 1024, −10.2%: the 1.8B session's common shortfall; the 7B row at 4096
    // tokens left when the 7B/14B rows got PEFT 0.5.0's fp32 adapters), both diagnosed in part only
    // (tools/gen_cases_mem.py); torchtune's 70B LoRA row since FSDP2's root unit (embedding and
    // head, 3.91 GiB gathered) is modelled (−1.0% → +10.6%, diagnosed in part: tools/gen_cases.py):
    // a guard, so that a new one is noticed. 11 since stop 35: torchtune's 405B QLoRA row at the
    // batch 2 its README note states for every row (+30.4%; +7.8% at the yaml's batch_size 1, which
    // the case took before), a second row of the 70B LoRA row's recipe above its peak.
    let known = rows.iter().filter(|r| r.2).count();
    assert!(known <= 11, "{known} known deviations\n{report}");
    // None beyond 15% unless a recorded known_deviation with its cause.
    for (id, e, kd) in &rows {
        assert!(e.abs() <= 0.15 || *kd, "{id}: {:+.1}%\n{report}", e * 100.0);
    }
    let mut abs: Vec<f64> = rows.iter().map(|r| r.1.abs()).collect();
    abs.sort_by(f64::total_cmp);
    let median = (abs[(abs.len() - 1) / 2] + abs[abs.len() / 2]) / 2.0;
    println!(
        "out-of-sample median |error| {:.2}% over {}",
        median * 100.0,
        rows.len()
    );
    // Target 5% (issue 9): met. Measured 4.07% over 93 since stop 40 states torchtitan's interleaved
    // split for the 405B interleaved row (rank 0 holds 7 + 8 = 15 layers of the 16 virtual stages'
    // 7 | 8 x 14 | 7, not ceil(126/8) = 16: +5.5% -> +2.1%; docs/notes/issue9-audit.md §6).
    // Before: 4.18% over 93 since round 10 charges a torch LayerNorm
    // its input alone (2h; 4h fitted on GPT-2 before, whose extra is its fused c_attn storage:
    // `fused_qkv_kept`): the transformers-docs BERT-large rows −0.01…−0.41 GiB (fp32 mb4 −0.6% →
    // −3.4%, fp32 mb4 8-bit Adam −2.5% → −5.8%). Before: 4.11% over 93 cases since DeepSpeed ZeRO-3's gathered set is
    // its parameter coordinator replayed (train/zero3.rs `deepspeed_live_peak`: prefetch to
    // stage3_max_live_parameters, reuse-distance keeps, the stored dtype) instead of 2 × the largest
    // layer at 2 B: the PEFT docs' two ZeRO-3 rows −6.7% / −4.0% → −9.0% / −7.8% (PEFT docs 7.65% →
    // 8.4% over 4); no other peak row moved. Before: 4.07% over 93 cases, unchanged when torch FSDP's gathered
    // units were modelled by what FSDP holds (root unit + two units in their stored dtype, the
    // 4-bit dequantized linear; train/fsdp.rs): PEFT docs 6.1% → 7.65% over 4 (FSDP QLoRA
    // −5.6% → −8.6%, with offload −25.0% → −30.5%, DS-Z3 QLoRA −5.4% → −4.0%), torchtune 70B LoRA
    // −1.0% → +10.6% (recorded), torchtitan's 8B rows +0.9 GiB. Before: 4.07% (PEFT docs 6.1% over 4 since
    // bitsandbytes' quantisation constants stay whole on every GPU, `bnb_quant_state_replicated`:
    // 7.0% before, the offload row −30.7% → −25.0%): 3.85% over the first 75 (3.90%
    // before the foreach AdamW of PyTorch 2.0 held two temporaries, `optimizer_foreach_buffers`:
    // Qwen LoRA 3.61% → 2.98% over its 18 rows) and 4.72% over the 18 Qwen LoRA (emb) rows added
    // with `lora.modules_to_save` (3.99% over the 12 of 7B/14B; none fits a constant). Before:
    // 3.90% over 75 cases: 3.9% over the first 44, 3.6% over
    // the 31 added later (Qwen README 3.6% over its 18 rows since Qwen's fused c_attn carries one
    // LoRA adapter, `model_type = "qwen"`, not three: 2.5% → 3.6%, the 75 3.85% → 3.90%; PEFT
    // docs 7.0% over 4 since its two ZeRO-3 rows carry DeepSpeed's
    // reduce bucket, `deepspeed`: −8.3% / −9.7% → −6.7% / −6.9%). 4.3% before the Qwen (v1) 7B/14B rows got fp32 adapters (PEFT 0.5.0, the
    // release when those rows were added: Qwen README 8.0% → 2.5% over its 18 rows), 4.4% before
    // loss_parallel, the gathered LM-head input and the last pipeline rank's loss were modelled
    // (torchtitan's 18 Dec 2024 rows 4.0% → 3.7%, its 405B PP rows −6.9…+8.7% → −9.7…+5.5%).
    // Before that 4.4% over 75: 4.1% over the 44 below, and over the
    // 31 rows of three sources added later (none used to fit a constant): transformers docs
    // BERT-large 3.0% over 9 (its batch-4 rows −22…−31% with neither `persistent_grads` nor the
    // fp32 eager dropout scores and the model's dropout rates, −12…−20% with the first alone), PEFT docs 9.0% over 4, Qwen README
    // 8.0% over 18. Before: 4.1% over 44 cases (LitGPT resource tables and config
    // hub, torchtune README, Trainy's torchtitan H200 rows (−5.9%/−3.8%; +38…+40% before
    // `compiled_loss`), torchtitan's Dec 2024 H100 benchmark: 4.0% over its 18 rows, 53% before
    // per-op selective checkpointing, ZeRO over DP × CP and FSDP2's gathered stage under PP were
    // modelled); 4.7% over the first 24, 5.25% before the torchtune LoRA configs' `lora_dropout: 0.0` was
    // modelled (no masks), 5.8% before their compiled chunked loss, 7.2% before the `litgpt`
    // profile, 8.1% before the LitGPT mechanisms. Every LitGPT row errs low (-0.9% to -8.3%): a
    // CUDA-side term the CPU measurement cannot see (docs/methodology.md).
    assert!(
        median <= 0.05,
        "median |error| {:.1}%\n{report}",
        median * 100.0
    );
}

/// The Qwen (v1) README rows (36), pinned to their measured errors. LoRA (18): the 7B and 14B
/// rows (fp32 adapters of PEFT 0.5.0, one adapter on the fused c_attn, PyTorch 2.0's two foreach
/// temporaries) within −7.5…+1.4%, the 1.8B rows at 256–4096 tokens the recorded deviations
/// (−14.7…−18.3% with PEFT 0.6.2's fp32 adapters, measured by tools/measure_qwen1.py; −19.9…−22.8%
/// when they were charged bf16), median |error| 2.84% (2.98% then). LoRA (emb) (18,
/// `modules_to_save = ["wte", "lm_head"]`): 7B and 14B within −4.2…+6.0%, 1.8B −3.4…−6.9%
/// (−6.1…−10.2% with bf16 adapters, 512 and 1024 tokens recorded then), median 4.23% (4.72%).
#[test]
fn qwen_v1_readme_rows() {
    let rows: Vec<_> = peaks()
        .into_iter()
        .filter(|r| r.0.starts_with("mem-qwen1-"))
        .collect();
    assert_eq!(rows.len(), 36, "{rows:?}");
    let median = |emb: bool| {
        let mut abs: Vec<f64> = rows
            .iter()
            .filter(|r| r.0.contains("-emb-") == emb)
            .map(|r| r.1.abs())
            .collect();
        assert_eq!(abs.len(), 18);
        abs.sort_by(f64::total_cmp);
        (abs[8] + abs[9]) / 2.0
    };
    for (id, e, kd) in &rows {
        let small = id.starts_with("mem-qwen1-18b-");
        let s8192 = id.ends_with("-s8192");
        let (lo, hi, recorded) = match (id.contains("-emb-"), small) {
            (false, true) if s8192 => (-0.03, -0.01, false),
            (false, true) => (-0.19, -0.14, true),
            (false, false) => (-0.076, 0.015, false),
            (true, true) => (-0.075, -0.03, false),
            (true, false) => (-0.043, 0.061, false),
        };
        assert!((lo..=hi).contains(e), "{id}: {:+.1}%", e * 100.0);
        assert_eq!(*kd, recorded, "{id}");
    }
    let (lora, emb) = (median(false), median(true));
    assert!((0.0278..=0.0290).contains(&lora), "LoRA median {lora:.4}");
    assert!(
        (0.0417..=0.0429).contains(&emb),
        "LoRA (emb) median {emb:.4}"
    );
}
