//! Runs every published case and asserts its tolerance band (docs/methodology.md §Validation),
//! and that docs/accuracy.md is the current output of `gpuplan accuracy --format markdown`.

use gpuplan_core::validation::{evaluate, parse_case};
use std::path::Path;
use std::process::Command;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .and_then(Path::parent)
        .expect("workspace root")
}

#[test]
fn every_case_is_within_its_band_or_a_recorded_miss() {
    let mut files: Vec<_> = std::fs::read_dir(root().join("cases"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    files.sort();
    assert!(
        files.len() >= 40,
        "expected the converted public cases, found {}",
        files.len()
    );
    let mut failures = Vec::new();
    for f in &files {
        let case = parse_case(
            &f.display().to_string(),
            &std::fs::read_to_string(f).unwrap(),
        )
        .unwrap();
        let o = evaluate(&case).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
        match (&case.known_deviation, o.within) {
            (None, false) => failures.push(format!(
                "{}: {:+.1}% outside {:?}",
                o.id,
                o.error * 100.0,
                o.band
            )),
            (Some(_), true) => failures.push(format!(
                "{}: now within its band ({:+.1}%): remove known_deviation",
                o.id,
                o.error * 100.0
            )),
            _ => {}
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn docs_accuracy_md_is_generated_from_the_cases() {
    let out = Command::new(env!("CARGO_BIN_EXE_gpuplan"))
        .args(["accuracy", "--format", "markdown", "--cases"])
        .arg(root().join("cases"))
        .output()
        .unwrap();
    assert!(out.status.success());
    let want = String::from_utf8(out.stdout).unwrap();
    let have = std::fs::read_to_string(root().join("docs/accuracy.md")).unwrap_or_default();
    assert!(have == want, "docs/accuracy.md is stale: run `cargo run --release -- accuracy --format markdown > docs/accuracy.md`");
}

/// Issue 13: the report speaks Chinese when asked (headers, statuses, summary from the catalog);
/// the Markdown report, docs/accuracy.md, stays English under a Chinese `$LANG` unless `--lang`
/// asks for Chinese.
#[test]
fn accuracy_report_in_chinese() {
    let run = |args: &[&str], lang: &str| {
        let out = Command::new(env!("CARGO_BIN_EXE_gpuplan"))
            .args(args)
            .env("LANG", lang)
            .env_remove("LC_ALL")
            .env_remove("LC_MESSAGES")
            .output()
            .unwrap();
        assert!(out.status.success());
        String::from_utf8(out.stdout).unwrap()
    };
    let table = run(&["accuracy"], "zh_CN.UTF-8");
    for want in ["案例", "在容差带内", "留一来源验证", "个案例中"] {
        assert!(table.contains(want), "zh table lacks {want}:\n{table}");
    }
    for english in ["within band", "out-of-sample", "held out", "OUT OF BAND"] {
        assert!(!table.contains(english), "zh table shows {english}");
    }
    let md_env = run(&["accuracy", "--format", "markdown"], "zh_CN.UTF-8");
    assert!(md_env.starts_with("# Accuracy against published numbers"));
    let md_zh = run(&["--lang", "zh", "accuracy", "--format", "markdown"], "C");
    assert!(md_zh.starts_with("# 与公开数据对比的准确度"), "{md_zh}");
    assert!(md_zh.contains("## 按来源（留一来源验证）"));
}

/// Stop 34 (issue 10 proof): the report holds every fitted source out with its constants refit
/// on the other sources (gpuplan-core src/refit.rs), one row per fitted source, and gives the
/// leave-one-source-out figure over all 35 sources (33 before stop 35) beside the unfitted ones'.
#[test]
fn accuracy_refits_every_fitted_source() {
    let out = Command::new(env!("CARGO_BIN_EXE_gpuplan"))
        .args(["accuracy", "--format", "markdown", "--cases"])
        .arg(root().join("cases"))
        .output()
        .unwrap();
    assert!(out.status.success());
    let md = String::from_utf8(out.stdout).unwrap();
    let refit = md
        .split("## Refit for the fitted sources")
        .nth(1)
        .and_then(|s| s.split("## Cases").next())
        .expect("a refit section");
    for row in [
        "| dle | train_efficiency_cnn: cannot be refit",
        "| llm-foundry | train_efficiency_ampere 0.7 → ",
        "| t-nemo | fp8_gemm_ratio_current 0.9 → ",
        "| t-titan25 | tp_overlap_fraction 0.4 → ",
    ] {
        assert!(refit.contains(row), "no refit row `{row}`:\n{refit}");
    }
    // 283 cases of the 29 unfitted sources + llm-foundry's 210, t-nemo's 17 and t-titan25's 8
    // with their constants refit (dle's 5 and llm-foundry's 7 FP8 rows cannot be: no other
    // source has a CNN or a 2023-kernel FP8 training row). Mean 13.7% before the host dispatch
    // floor (stop 34) brought the Qwen-v1 256-512-token rows from up to +567% to +26..+44%;
    // 10.6% before stop 35's split of the host time (views at 0.7 µs, the time outside the ops
    // measured on CPU) moved them to +18.6..+35.3%.
    // Stop 35 (wt-hours16): 36 sources and 521 cases with the steady-state GPU-hours rows of
    // Nemotron-4 15B, H2O-Danube-1.8B and BloombergGPT (three held-out sources of one case each).
    // Review r16b (stated pipeline splits of GLM-130B, ModelLink BLOOM-176B and the Megatron-Bridge
    // Qwen3-235B rows): median 5.6% -> 5.7%.
    // Stop 36 (wt-scale17): 5.7% -> 5.6% since DeepSpeed BF16_Optimizer's per-micro-batch fp32
    // gradient pass is timed on the four BLOOM-176B rows (`parallel.fp32_grad_pass`); with
    // wt-ascend17's ModelLink rows (unfused loss, main-gradient adds) merged: 5.7%, mean 10.4%.
    // Stop 36 (wt-mbridge17): 523 with NVIDIA's EP-overlap A/B on Qwen3-30B-A3B (t-mbridge-ab-*,
    // two held-out rows of the Megatron-Bridge source, +9.1% and +17.2%); llm-foundry's Hopper
    // refit takes them too (0.528 over 21 rows -> 0.525 over 23).
    // Stop 36 (DeepSpeed ZeRO-3's hooks measured and charged, train/dispatch.rs `Zero3Host`):
    // t-qwen1-7b-full-s256-2xa100 +235.0% -> +101.8%, mean 10.5% -> 10.3%, median unchanged
    // (10.2% with the branches above).
    // Audit r17 #4 (torchtitan's default split stated for the 405B PP 8 rows, 15 | 16 x 6 | 15,
    // where every stage was sized 16): mean 10.5% -> 10.6%, median unchanged.
    // Stop 36 (wt-hostadam17): the host optimizer step timed (torchtune 70B full fine-tune with
    // CPU offload +80.4% -> +13.6%); all of stop 36 together: mean 10.0%.
    // Audit r17 #1 (wt-fixI): the 14 Megatron-LM paper rows state the unfused loss their 2021 code
    // had (`cross_entropy_loss_fusion = false`): each 0.1-0.7 points slower, median 5.7% -> 5.6%.
    // Review r17 #1: torchtune's recipe gives each FSDP-offload rank os.cpu_count() // 8 threads
    // (set_torch_num_threads), not torchrun's one, on a host the row does not state: that row's
    // host step is untimed again (+13.6% -> +80.4%), mean 10.0% -> 10.2%, median unchanged.
    // Stop 37 (wt-ascend18: ModelLink's unfused ALiBi chain, Grok-1's allgather dispatcher; four
    // held-out 910B rows move 5.9-8.1 points down): mean 10.2% -> 10.1%, median unchanged.
    // Review r17 #4 (refactor18): BF16_Optimizer's once-a-step passes timed on the four BLOOM-176B
    // rows (`parallel.fp32_grad_pass`: the all-reduce's casts, the norm, the zeroing, 24 B per
    // gradient element): GBS 16 +19.2% -> +18.7%, GBS 192 +13.2% -> +12.8%, GBS 2048 -0.1% ->
    // -0.2%, GPU-hours -9.8% -> -9.7%; mean 10.2% -> 10.1%, median unchanged.
    // Stop 37 (wt-accum18): autograd's in-place `.grad` add of every micro-batch after the first
    // (train/step/accumulate.rs: eager DDP at zero 0, DeepSpeed ZeRO-0/1 without overlap_comm,
    // GLM-130B's and FlagPerf's Megatron-DeepSpeed rows now `deepspeed = true`): GLM-130B's speed
    // rows +25.3/+20.9% -> +19.3/+15.0%, mean 10.2% -> 10.1%, median unchanged.
    // All three merged (stop 37, read from the test): mean 10.0%, median 5.6% unchanged.
    // Stop 38 (mpt19, read from the test): FSDP DEFAULT's fp32 gradient reduce-scatter on the 136
    // llm-foundry DEFAULT rows (llm-foundry held out: 210 cases, median 4.4%, mean 6.0% at one
    // decimal, as before): mean 10.0% -> 10.1% (a rounding step), median 5.6% unchanged.
    // Stop 38 (wt-mbridge19): the Qwen3 MoE FP8 rows state current scaling and Megatron-Core's
    // grouped experts pay TE's unfused per-expert quantize (compute.rs `expert_quantize_seconds`):
    // Qwen3-30B-A3B's six dropless rows 12-50 points closer (all still recorded misses), mean
    // 10.0% -> 9.8%, median unchanged.
    // Both merged (stop 38, read from the test): see the pin.
    // Stop 38 (wt-ml19): TP-comm overlap hides each collective at most behind its paired GEMM
    // (train/step.rs `tp_paired_hidden`; Ascend MC2 and TE userbuffers pair them alike): ModelLink's
    // MC2 rows at TP 8 move 2.3-5.2 points down (Mistral-7B +20.7% -> +13.9% into band),
    // Megatron-Bridge's 405B rows 1.1 points: median 5.6% -> 5.7%, mean 10.0% unchanged.
    // All four merged (stop 38, read from the test): median 5.7%, mean 9.7%.
    // Stop 39 (sp20): Megatron's sequence-parallel backward re-gathers its column-parallel inputs
    // and, without TP-comm overlap, hides its async re-gathers and reduce-scatters behind their
    // dgrad / wgrad GEMMs (train/step.rs `tp_backward_regathers`, `tp_async_hidden`,
    // `tp_contention`): the Megatron SP rows on H100/H800 move faster, so llm-foundry's held-out
    // Hopper efficiency refits lower (0.525 -> 0.506, its 210 rows' mean 6.0% -> 6.5%) and the
    // ModelLink 910B rows move +2..+8 points: median 5.7% -> 5.9%, mean 9.7% -> 10.0%.
    // Stop 40 (newt21, read from the test): 37 sources and 547 cases with the held-out DGX Cloud
    // Benchmarking Recipes (24 `t-dgxc-*` NeMo 24.09 rows, median 6.6%, mean 6.3%; no model
    // change): median 5.9% unchanged, mean 10.0% -> 9.6%; llm-foundry's held-out Hopper refit
    // 0.506 (23 rows) -> 0.551 (35 rows), its mean 6.5% -> 5.9%.
    // Stop 41 (dgx22): the measured cuDNN attention rate and the FP8 ratio refit (0.92 -> 0.90):
    // median 5.9% unchanged, mean 9.6% -> 9.7%; t-nemo's held-out ratio 0.894 -> 0.876, DGX
    // Cloud's rows median 6.6% -> 5.1%.
    // Stop 42 (qwen1-23): PEFT's element-wise ops around each LoRA adapter (compute.rs
    // `peft_adapter_pass`) move the Qwen (v1) README rows (t-probe14, held out): median 5.9% ->
    // 5.7%, mean 9.7% -> 9.5%.
    assert!(
        refit.contains(
            "Leave-one-source-out over all 37 sources (those above as they are, the 4 fitted ones \
             with their constants refit): 547 cases, median |error| 5.7%, mean 9.5%; 12 cases of \
             the fitted sources are not held out."
        ),
        "{refit}"
    );
}

/// Issue 8 item 10: `gpuplan accuracy` works outside the repository (the cases are embedded).
#[test]
fn accuracy_runs_outside_the_repository() {
    let dir = tempfile::Builder::new()
        .prefix("gpuplan-acc-")
        .tempdir()
        .unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_gpuplan"))
        .args(["accuracy", "--format", "markdown"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let have = std::fs::read_to_string(root().join("docs/accuracy.md")).unwrap_or_default();
    assert_eq!(String::from_utf8_lossy(&out.stdout), have);
}

/// Issue 10's accuracy targets as regression bands at today's measured values (the issue's own
/// goals — out-of-sample median ≤ 10% for throughput *and* GPU-hours, at most 5 known
/// deviations — are not met yet: docs/accuracy.md and the final report say by how much).
#[test]
fn training_accuracy_stays_within_todays_bands() {
    use gpuplan_core::validation::{CaseKind, HoursBasis};
    let mut outcomes = Vec::new();
    for e in std::fs::read_dir(root().join("cases")).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "toml") {
            let case = parse_case(
                &p.display().to_string(),
                &std::fs::read_to_string(&p).unwrap(),
            )
            .unwrap();
            outcomes.push((case.known_deviation.is_some(), evaluate(&case).unwrap()));
        }
    }
    let median = |kind: CaseKind| {
        let mut v: Vec<f64> = outcomes
            .iter()
            .filter(|(_, o)| o.kind == kind && o.in_sample.is_none())
            .map(|(_, o)| o.error.abs())
            .collect();
        v.sort_by(f64::total_cmp);
        // The median as docs/accuracy.md reports it (the mean of the two middle values when even).
        let n = v.len();
        if n.is_multiple_of(2) {
            (v[n / 2 - 1] + v[n / 2]) / 2.0
        } else {
            v[n / 2]
        }
    };
    let tput = median(CaseKind::TrainThroughput);
    let hours = median(CaseKind::TrainTime);
    let train = |k: CaseKind| {
        matches!(
            k,
            CaseKind::TrainThroughput | CaseKind::TrainTime | CaseKind::TrainMemory
        )
    };
    // Training-memory deviations are guarded by gpuplan-core/tests/published_memory.rs.
    let known = outcomes
        .iter()
        .filter(|(k, o)| *k && train(o.kind) && o.kind != CaseKind::TrainMemory)
        .count();
    // Serving cases are held by tests/serving_v2.rs (gpuplan-core); their recorded misses are
    // counted apart so that new published serving rows (issue 11: gpt-fast's quantized decode)
    // do not eat the training allowance: 8 today (still 8 after prefill was timed GEMM by GEMM
    // and TensorRT-LLM's TP rows paid NCCL's all-reduce latency: the 128-token rows moved from
    // −23/−31/−36% to −22/−27/−28%; 10 before the decode step's attention phase
    // was timed after its GEMMs and serving's FP8 GEMMs took training's ratio, 12 before every
    // step paid its layers' fixed GPU time, 13 before TensorRT-LLM v0.6.1's masked MHA was
    // charged its per-query-head KV loads, 17 before the static engine's weight-only kernels
    // were charged at their measured bandwidth).
    let known_serving = outcomes
        .iter()
        .filter(|(k, o)| *k && !train(o.kind))
        .count();
    // 10 since TensorRT-LLM's Falcon-180B first-token rows (A100 128 tokens -21.5%, H100 FP8
    // TP 8 2048 tokens -20.6%) joined as held-out cases; 11 since the decode steps' TP
    // all-reduces pay their ring volume (Falcon-180B H100 FP8 TP 4 2048/2048 -18.8% -> -20.3%);
    // 10 again since Falcon's parallel block pays one all-reduce per layer as v0.6.1 runs it
    // (that row -20.3% -> -16.2%).
    // 11 again after issue r5-fp8 (its trial ratio 0.90 swapped that Falcon row, -19.4%, for Llama
    // 7B's H100 FP8 2048-token first token, -21.1%; the ratio stayed 0.77).
    // 9 since vLLM V1's two TP-group NCCL communicators are sized from NCCL's source (round 9:
    // Qwen3-235B FP8 on 4 × H100 KV capacity +18.9% -> +9.5%).
    // 10 since DeepSeek-V3.2 on 8 × H20 at one request (vllm-project/vllm#30832, audit r9 #22)
    // joined as a held-out case: −74.5% with each layer's kernels counted (−81.9% before).
    // 9 since the static engine's weight-only ratios leave out the fixed time torchao's
    // tokens/s hold, tinygemm streams its bf16 scale + zero per group and a decode step streams
    // no embedding table (gpt-fast Llama-2-70B int4 G32 TP 1 +23.7% -> +19.3%).
    // 7 since the serving GEMMs choose a split-K factor below one wave of tiles (compute.rs
    // `gemm_kernels`, TensorRT-LLM's SPLIT_K_LIMIT 7) instead of filling the chip for free:
    // TensorRT-LLM v0.5's A100 128-token first tokens Llama-7B −21.9% -> −16.1% and Falcon-180B
    // TP 8 −21.5% -> −18.0% came into their band (Llama-70B TP 4 −26.9% -> −20.5% did not).
    // 6 since the T4's torch-visible total is its logged 14.58 GiB (data/gpus.toml): vLLM V0's
    // deepseek-coder-6.7b pool on 2 × T4 +13.6% -> +4.1%.
    // 28 since stop 33's out-of-sample probe (cases/sources/serve14.jsonl, 27 batch-1 decode rows
    // chosen before any estimate): the Qwen3 speed benchmark's 12 H20 rows under SGLang
    // 0.4.6.post1 all miss (-27.7% to -91.2%: the dense rows imply weights streamed at 0.34-0.42
    // of the H20's 4.0 TB/s, the MoE rows more fixed time, the GPTQ-Marlin MoE rows the slow path
    // the source names) and 10 of the Qwen2.5 speed benchmark's 15 A100 vLLM 0.6.3 rows, its
    // GPTQ/AWQ Marlin rows (-21.1% to -56.1%: Marlin at batch 1 streams at about 0.6-0.8 of the
    // 16-bit GEMV's rate, where `dequant_bandwidth_ratio` takes 1). Recorded, nothing fitted.
    // Still 28 at stop 34: the two GPTQ-Marlin MoE rows now pay the old Marlin MoE kernel's one
    // launch per expert (infer.rs `per_expert_marlin_moe`) and moved -91.2/-86.8% ->
    // +31.8/+26.2%, over-predicted but outside their band (3.2 us per launch where both rows
    // imply about 2.4 us).
    // 33 since stop 40 (news21): 30 held-out rows from sources the model had not seen
    // (cases/sources/serve14.jsonl: gpt-fast's Llama-3.1 and Mixtral-8x7B batch-1 decode on
    // A100, LMDeploy v0.1.0a1 TurboMind's A100 fp16 static-inference table) joined before any
    // estimate: 25 in band, 5 recorded (gpt-fast Llama-3.1-405B int8 TP 8 -29.3%, Llama-3.1-70B
    // bf16 TP 2 -22.4%; LMDeploy batch-64 throughput 7B +45.9% and 70B TP 4 +50.6%, 7B batch 16 x
    // 2048 +23.8%), causes in their known_deviation texts; no model change.
    // 31 since stop 41 (h20-22): SGLang's FP8 linears compute 64-row token tiles (infer.rs
    // `fp8_token_rows`), which bind on the H20's capped tensor cores (296 FP8 TFLOPS over
    // 4.0 TB/s): the Qwen3 speed page's Qwen3-8B/32B FP8 H20 rows -43.5/-42.9% -> -0.7/+16.2%
    // came into band (their `fp8_kernels` now `current`: SGLang 0.4.6 is a current FP8 engine;
    // +14.0/+36.5% under the serving default 2023 ratio); nothing fitted.
    assert!(
        known_serving <= 31,
        "{known_serving} known deviations (serving)"
    );
    // Measured 8.98% over the 100 round-4 cases (8.84% over them with the one weight split below),
    // unchanged by QLoRA's NF4 dequantization (torchtune's 4090 tokens/s rows are
    // not cases: cases/SKIPPED.md) (the target is 10%; 9.15% before torch's context-parallel ring was
    // modelled round by round (ring.rs: the 405B CP 2/4/8 rows +14.8/+17.0/+36.8% -> +4.0/+0.9/+13.7%,
    // the 8B CP 4/8 rows +33.6/+40.1% -> +25.4/+31.0%, CP 2 -0.9% -> -6.4%), 9.22% before NeMo's
    // fine-tuning rows took their pretraining rows' VP, 9.07% before per-op SAC's recomputed matmuls were
    // counted per op (wk, wo, w3: 36.5% of Llama 3 8B's forward, not half), 9.15% before its
    // sequence-parallel all-gathers were re-run in backward, 9.67% before torchtitan's rows ran on their
    // stated 2.4 TB/s HBM2e H100, 9.8% before the LLaMA-1 rows took the paper's 4M-token batch)
    // and 13.7% (GPU-hours: 21.9% before the model cards, whose layouts are
    // unpublished, were evaluated at the planner's searched layout, 12.8% then; BLOOM-176B's
    // whole-run hours, -16.0% from the steady state, moved it to 14.6%; the LLaMA-1 4M-token batch
    // to 13.7%; the Llama 3 8B cards' hours, at ~15% MFU, stay far off; 13.7% over 17 since
    // GPT-NeoX-20B, Pythia-1B, StarCoderBase and TinyLlama's published runs were added with their
    // stated layouts: 14.8% before StarCoderBase's fp32 gradient reduction, -15.0% -> -9.6%).
    // 9.28% over 292 since round 5's held-out rows, no constant changed: 10.38% over 129 with
    // Megatron-Bridge's 29 H100 rows (NeMo 25.09-26.06 performance tables: Llama 3 8B/70B/405B FP8,
    // Qwen3-30B-A3B/235B-A22B and DeepSeek-V3 MoE; 21.6% alone), then the 163 remaining rows of
    // llm-foundry's benchmark table (8.16% alone; the source fits the efficiency constants on 10
    // other rows, so they are out-of-sample but not leave-one-source-out), 9.14% over 297 with the
    // five SC21 Table 1 rows of Megatron-LM not converted before (-3.7% to +7.6%), 9.14% over 299 with
    // Trainy's two torchtitan H200 tokens/s rows (-10.7%, -9.1%). 8.98% over the 100 before round 5.
    // 9.09% over 299 since the MoE layer's router and token permutations were timed (compute/moe.rs:
    // the 14 held-out Qwen3/DeepSeek-V3 rows' median |error| 47.2% -> 32.1%; no constant fitted).
    // Issue r5-fp8: 9.14% over 299 (9.145%) with Megatron-Bridge's 405B rows on the recipe's
    // embedding/loss-aware pipeline split and per-tensor current scaling's casts timed (torchao
    // tensorwise for torchtitan's FP8 rows, TE Float8CurrentScaling for Megatron-Bridge's 25.11+
    // Llama rows: compute.rs `tensorwise_casts`). Its trial refit of fp8_train_gemm_ratio on NeMo
    // 24.07's 11 FP8 pretraining rows (0.77 -> 0.90) gave 8.29% over 288 but moved every 2023-stack
    // FP8 row away (serving TTFT past its 10% target) and no per-release FP8 GEMM rate was found,
    // so it was dropped: the ratio stays fitted on llm-foundry's MPT-3B row.
    // 9.00% over 299 with both (the MoE timing and r5-fp8's casts and 405B split merged); 8.90%
    // since ZeRO-3/FSDP's first all-gather and last reduce-scatter of every micro-batch are exposed
    // (train/step.rs `zero3_exposed_floor`: 155 training rows moved toward their published figure,
    // 46 away, by 0.1-3 points). 8.95% over 299 since a layer's weights take one split (layout.rs
    // `WeightSplit`: the TP GEMMs on the shards the frameworks hold, wo/o_proj row-parallel and
    // GQA's wk/wv column-parallel; Megatron-Bridge's whole experts per rank): TP > 1 dense rows
    // moved -3.0 to +0.6 points, Qwen3-235B-A22B's +3.1 to +4.4, no TP 1 row. 8.67% since the
    // loss's traffic over the logits is timed (compute.rs `loss_bytes_per_logit`: HF's fp32
    // cross-entropy 36 B per token x vocabulary entry, Megatron-Core's fused one 28, LitGPT's bf16
    // one 12, llm-foundry's flash-attn xentropy 8): 185 training rows toward their figure, 91
    // away (MPT-125M 5-8 points down, MPT-7B..70B at most 0.2, NeMo's Nemotron FP8 rows 3 points
    // further under, the pipelined 13B-70B FP8 rows 0.7-1.0).
    assert!(
        // 8.72%: the ZeRO-3 exposure floor takes the stage's share under PP (torchtitan's 405B
        // FSDP + PP rows, near the median, a few hundredths of a point further under) and
        // Megatron-Bridge's current-scaling casts count once per fused module (its 25.11+ Llama
        // rows 0.2-0.5 points closer). 8.85% since the expert all-to-all runs as NCCL sends it
        // (train/step.rs `ep_alltoall_seconds`: the sequence-parallel shard's routed copies, on-node
        // peers over NVLink, off-node peers over the GPU's 1/8 of the node's NICs): Qwen3-235B-A22B
        // 25.11-26.04.01 +5.6..+14.0% -> -28.7..-34.1%, DeepSeek-V3 -5.7% -> -39.0%, Qwen3-30B-A3B
        // at EP 16 +41..+43% -> -21..-22% (their recipes overlap or deduplicate that traffic, which
        // the workload cannot state), Qwen3-235B-A22B 25.09 (no overlap) +49.1% -> -6.7%.
        // 7.43% over 288 with two FP8 kernel generations (constants.rs fp8_gemm_ratio_current, fitted
        // on NeMo 24.07's 11 FP8 pretraining rows, which left the out-of-sample set): Megatron-Bridge's
        // FP8 Llama rows -21..-27% -> -12..-16%, torchtitan's float8 and Trainy's H200 rows closer.
        // 7.01% since the workload states
        // each Megatron-Bridge release's EP all-to-all overlap and dispatcher (train/step.rs
        // `ep_overlapped_seconds`, `ep_alltoall_seconds` with DeepEP/HybridEP sending a token once
        // per remote node and rank): Qwen3-235B-A22B 25.11-26.04.01 -25.6..-31.2% -> -2.3..+3.8%,
        // DeepSeek-V3 -35.7% -> +13.3%, Qwen3-30B-A3B EP 16 -18.5..-19.7% -> +46.7..+48.9%, EP 8
        // 25.11/26.02 +146.3/+158.9% -> +207.4/+229.3%, 26.02.01 +46.2% -> +57.5%.
        // 7.43% over 288 on main before round 6's throughput rows (the 8.86% above was stale); 7.52%
        // over 300 with Skywork's Table 10 (10 rows on 512 A800: +1.2% to +28.4%, median 8.5%) and
        // GLM-130B's two speed tests (+17.5%, +13.4%), held out, no constant changed. 7.48% over 339
        // with ModelLink's README table on Ascend 910B (39 rows, layouts from its example scripts:
        // median 7.2%, 30 in band, -5.9% to +88.2%). 7.72% over 385 with InternEvo's 7B table on
        // A100-80GB (46 rows, 8-1024 GPUs: median 8.8%, 37 in band, all over-predicted at 512-1024 GPUs);
        // 7.72% over 389 with FlagPerf's four Aquila2-7B layouts on 8 A800 (-12.0% to +11.5%, all in band);
        // 7.73% over 393 with its Llama 2 7B DeepSpeed ZeRO-3 rows (A800 +6.0..+13.4%, H800 +21.9%);
        // 7.75% over 395 with its two Megatron-DeepSpeed rows (A800 +14.4%, A100 +13.4%); 7.72% over 398
        // with its three Llama 2 70B FlagScale rows on 32 H800 (-3.7% to +3.6%); 7.61% over 411 with its
        // 13 Llama 3 8B/70B Megatron-Core rows on A100/H100 (8-440 GPUs, -10.7% to +13.0%, all in band);
        // 7.64% over 413 with its ChatGLM3-6B DeepSpeed rows (Atlas 800T A2 +30.6%, H100 +16.6%); 7.71%
        // over 415 with its Baichuan2-13B rows on 16 H800 (+79.9%, +42.5%: eager ALiBi attention, no FA2).
        // 7.48% over 415 with both merged (the FP8 generations and MoE settings on the 288, the
        // 127 Chinese-hardware rows). 7.476% still with InternEvo's per-rank parameter broadcasts
        // (no row crossed the median); 7.23% (7.226%) with its 512M-element gradient buckets, each
        // issued after a device synchronize (`grad_bucket_elements`, `grad_bucket_sync`): all 46 of
        // its rows moved, 40 closer (by up to 4.8 points), 6 further (by at most 0.44), 5 of them
        // across the median (held out, nothing fitted). 7.15% over 417 with the Llama 3 paper's two
        // 405B rows at their stated layout (Table 4, BF16 MFU: 8,192 GPUs -5.7%, 16,384 -6.7%).
        // Since every bucketed overlap exposes its last bucket (train/step.rs `GradBuckets`: DDP,
        // DeepSpeed, Megatron-Core and InternEvo alike, the embedding reduced last and whole) and a
        // multi-node gradient all-reduce takes NCCL's ring or tree by its cost model
        // (`bucket_algorithm`): on the 415 rows before the 405B pair 7.23% -> 7.26% (the median row
        // itself, NeMo's Llama 2 13B SFT, moved -7.23% -> -7.25%; 60 rows closer, 39 further,
        // mean 11.32% -> 11.23%); both together 7.19% (0.07190) over 417.
        // 6.41% (6.414%) since an overlapped data-parallel collective takes its NCCL CTAs' SMs from
        // the compute it overlaps (train/contention.rs: overlapped time x CTAs / SMs, NCCL 2.18.1's
        // channel search, nothing fitted): the four MPT-13B H100 micro-batch-2 rows +20.2..+22.4%
        // -> +11.5..+14.3%, InternEvo's 1024-GPU rows 1.3-7.5 points closer, torchtitan's Llama
        // 3.1 8B FSDP rows 1.0-2.7 points lower, Megatron-Bridge's Llama 3 8B 8-GPU rows further
        // under (-12.1/-16.3% -> -15.4/-19.4%); within band 392 -> 398 of 440.
        // All three of round 8 (contention, buckets, the 405B pair): 6.41% (0.06406) over 417; in-sample 3.22% over 25.
        // 5.44% (0.05436) since Composer's two train metrics over the logits are timed after every
        // micro-batch (workload.rs `logit_metrics`, compute.rs `metric_bytes_per_logit`, 28 B per
        // token x vocabulary entry; nothing fitted): all 216 llm-foundry rows and MPT-7B's run
        // moved, MPT-125M +4.6..+27.4% -> +0.1..+12.5%, MPT-350M +4.1..+15.2% -> +0.5..+7.8%, the
        // 7B-70B rows 0.0-0.6 points lower; mean 10.57% -> 9.38%; in-sample 3.22% -> 3.26% over 25
        // (the fitted efficiencies unchanged); within band 401 -> 410 of 442.
        // 6.37% (0.06371) on its own since the Ascend 910B rows have their chip's HBM bandwidth (1.6 TB/s,
        // Huawei's msmodeling A2 profiles and CANN's migration guide): ModelLink's 39 rows median
        // 7.2% -> 4.0%, 30 -> 35 in band; nothing fitted, in-sample unchanged.
        // Both of round 9 merged: 5.00% (0.04998), mean 8.89%; in-sample 3.26% over 25; within band
        // 606 of 657 cases.
        // Round 9's per-collective latencies: 6.41% (0.06406) still, mean 10.57% -> 10.55%.
        // All of round 9 merged: 4.99% (0.04988), mean 8.87%; in-sample 3.23% over 25.
        // 4.99% (0.04993) over 418, mean 9.04%, since torchtune's Llama 3.1 70B CPU-offload row
        // (tokens/s column, 8 × A100) joined held out as a recorded miss: +80.4%, the host CPU's
        // optimizer step not timed (no CPU Adam rate with its CPU stated was found).
        // 5.37% (0.05368) over 465, mean 13.59%, since round 14's probe added 47 held-out rows on
        // A100-80G and A800 (tools/gen_cases_t_probe14.py, rows chosen before their estimate ran):
        // Qwen (v1) README speed column (36 LoRA rows, median 10.7%: 14 below 2048 tokens, and
        // Qwen-1.8B's at 2048-4096, over-predicted by up to +567% where the published step time has
        // a host-bound floor of ~5 ms per layer and micro-batch; 3 full-parameter ZeRO-3 rows on
        // 2 GPUs, +40..+235%, a 4.0 s floor), FlagPerf's Aquila2-7B fine-tuning (3, median 6.1%)
        // and 8-expert MoE (2, +25.9/+24.5%), ms-swift's Qwen2.5-14B on 8 x A800 (3, median 8.3%).
        // Nothing fitted; the old 418 rows are unchanged (4.97%).
        // 4.91% (0.04914), mean 8.70%, since round 14 gave every NVIDIA chip with a sourced SM count
        // its `sm_count` (data/gpus.toml), so their GEMMs pay wave quantization as the A100/H100's
        // did: 27 rows on A800, H800 and H200 moved (FlagPerf, Skywork, Trainy), nothing fitted; the
        // in-sample rows (A100/H100) unchanged.
        // Unchanged since stop 34's host dispatch floor (train/dispatch.rs: counted ops x 8 us, a
        // micro-batch takes max(GPU, host)): only 8 Qwen (v1) LoRA rows at 256-512 tokens moved,
        // all above the median before and after (+566.9% -> +40.6% at most; none into band);
        // mean 13.5% -> 10.1% (docs/accuracy.md). Nothing fitted.
        // Stop 36 (wt-ascend17): 5.39% (0.05390), mean 10.0% -> 9.9%, since the ModelLink 910B
        // rows run Megatron core_r0.6.0's unfused loss (52 B per logit) and add each
        // micro-batch's weight gradients to the main gradients (--no-gradient-accumulation-fusion,
        // 10 B per parameter): all 39 rows 1.0-15.2 points lower (signed mean +5.9% -> +2.0%),
        // several in-band ones across the median; no constant changed.
        // Stop 36 (wt-scale17): since DeepSpeed
        // BF16_Optimizer's fp32 gradient pass after every micro-batch's backward is timed
        // (`parallel.fp32_grad_pass`, bf16_optimizer.py update_hp_grads @56c52238: 18 B per
        // parameter): only BLOOM-176B's three rows moved, GBS 16 +24.4% -> +19.2%, GBS 192
        // +23.0% -> +13.2% (both into band), GBS 2048 +6.0% -> -0.1%. Held out, nothing fitted.
        // Both together (stop 36 merge): 5.37% over 465; 5.39% over 467 with wt-mbridge17's two
        // held-out EP-overlap rows and its DeepEP/HybridEP SM charge.
        // Stop 37 (wt-ascend18): 5.39% -> 5.37% (0.0537), mean 9.6% -> 9.5%, since ModelLink's
        // eager ALiBi rows pay their unfused scale, bias add and q/k copies (`unfused_score_bias`:
        // Baichuan-13B +7.5% -> -0.6% crosses the median, BLOOM-7B1 +25.8% -> +19.9%, BLOOM-176B
        // +0.5% -> -2.2%) and Grok-1 runs core_r0.6.0's allgather dispatcher (+32.3% -> +24.3%).
        // Stop 38 (mpt19): 5.37% -> 5.30% (0.05297), mean 9.46% -> 9.44%, since llm-foundry's
        // FSDP `DEFAULT` rows reduce-scatter their gradients in fp32 (Composer
        // mosaic_fsdp_utils.py @v0.16.4 l.87-90; `grad_reduce_fp32` on the 136 DEFAULT rows):
        // all 136 0.0-3.1 points lower, the MPT-13B H100 micro-batch-2 rows +14.0..+11.2% ->
        // +12.0..+8.1%; in-sample 3.2% -> 3.7% over 25 (its DEFAULT rows, the fitted
        // efficiencies not refit). Nothing fitted; no row crosses its band.
        // Stop 38 (wt-ml19): 5.37% -> 5.41% (0.054125), mean 9.5% -> 9.4%, since TP-comm overlap
        // hides each collective at most behind the GEMM it is paired with (`tp_paired_hidden`):
        // ModelLink's MC2 rows on the 910B's mesh move down (Mistral-7B +20.7% -> +13.9%,
        // Qwen1.5-7B +14.7% -> +10.1%, Aquila2-7B +13.8% -> +8.6%, Baichuan2-13B +15.1% ->
        // +11.6%; LLaMA2-13B +1.6% -> -1.4%, Gemma-7B -2.3% -> -4.7%, Qwen1.5-32B -1.0% -> -3.5%,
        // Aquila2-34B -7.0% -> -8.6% away from zero), Megatron-Bridge's 405B rows 1.1 points.
        // All merged (stop 38, read from the test): 0.053729 (5.4%), mean 9.1%.
        // Stop 39 (sp20): 0.053729 -> 0.053898 (5.4%), mean 9.11% -> 9.19%, since Megatron's
        // sequence-parallel backward runs 6 TP collectives a layer (the column-parallel inputs
        // all-gathered again for the weight gradient) and, without TP-comm overlap, 4 of them async
        // beside the dgrad / wgrad GEMMs (hidden per GEMM, NCCL's CTAs charged): ModelLink's 910B
        // SP rows +2..+8 points (BLOOM-7B1 +19.9% -> +27.7%, recorded), FlagPerf / Skywork TP 4-8
        // rows +1.4..+3.3, the 70B/405B rows 1.6-4.3 points toward zero (docs/methodology.md §TP).
        // Stop 40 (newt21): 0.053898 (5.4%, 467 cases) -> 0.055689 (5.6%, 491 cases), mean 9.2% ->
        // 9.1%, with 24 held-out rows of NVIDIA's DGX Cloud Benchmarking Recipes v25.01
        // (dgxc-benchmarking @143b90dd: Llama 3.1 8B/70B/405B, Nemotron-4 15B/340B, GPT-3 175B,
        // BF16 and FP8 on 8-2,304 H100 under NeMo 24.09/24.05), mapped before any estimate: all 24
        // in band, median 6.6%, so the pooled median rises 0.2 points; no model change, no
        // estimate of an existing case moved (docs/notes/notes-newt21.md).
        // Stop 41 (dgx22): 0.055689 -> 0.054678 (5.5%, 491 cases), mean 9.04% -> 9.11%: Megatron/TE's
        // Hopper attention at the FA-3 paper's measured cuDNN rate (attention_efficiency_hopper_te
        // 0.39 -> 0.51) and the FP8 ratio refit by its rule over it (fp8_gemm_ratio_current 0.92 ->
        // 0.90): DGX Cloud's BF16 rows 1.3-3.7 points up (8B -13.0% -> -9.3%), its FP8 rows -1.2..+4.2,
        // NeMo 24.07's FP8 rows -1.8..+4.6, Megatron-Bridge's Llama FP8 rows 1.2-4.7 points up, its
        // Qwen3-30B-A3B rows 4.5-12.1 up (the EP-overlap A/B's overlap-on row +17.2% -> +23.5%,
        // recorded); FlagPerf's Megatron H100/H800 rows +1.0..+4.6, torchtitan's and Trainy's FP8
        // rows 1.0-1.4 down (docs/methodology.md, stop 41).
        // Stop 42 (qwen1-23): 0.054678 -> 0.055631 (5.6%, 491 cases), mean 9.1% -> 9.0%, since
        // PEFT's element-wise ops around each LoRA adapter are timed (compute.rs
        // `peft_adapter_pass`: the casts to and from the fp32 adapters, the dropout, the scaling;
        // measured op by op by tools/measure_lora_traffic.py, nothing fitted): only the 36 Qwen
        // (v1) LoRA rows can move and 26 did, the 1.8B rows from 1024 tokens 16-21 points down
        // (five into band), the 7B/14B rows from 512 tokens 7-13 points down (+10.5% at most ->
        // -14.6% at most, all in band), several of them across the median.
        tput <= 0.05564,
        "training throughput out-of-sample median {tput:.6}"
    );
    // 17.93% over 30 since round 6's published runs (issue 10, no constant changed): StableLM-3B-4E1T
    // -11.3%, SmolLM3-3B -29.3%, Skywork-13B -6.4%, MPT-7B -21.2% and GLM-130B -32.8% with their
    // stated layouts, and eight Phi model cards at the planner's layout (phi-1 -40.1%, phi-1.5
    // -67.2%, phi-2 +6.3%, Phi-3-mini -22.6%/-19.6%, Phi-3-medium -44.1%, Phi-4 -30.6%, Phi-4-mini
    // -12.5%); 14.2% over 22 with the five runs alone. The 10% target is not met.
    // Still 17.93% in round 8 with the Llama 3.1 405B card pinned to the paper's 16,384-GPU layout
    // (+0.9% -> -6.3%, not across the median); no goodput factor is applied (the runs that state
    // their own steady rate lose 0-21% of it, each for stated reasons: docs/methodology.md).
    // 17.79% with the bucketed overlap and NCCL's algorithm choice (SmolLM3-3B -29.3% -> -26.5%,
    // LLaMA-7B -7.6% -> -3.5%: Megatron's 512M-parameter buckets at DP 512 leave a third exposed).
    // 15.19% since the overlapped collectives' SM contention (train/contention.rs): the model cards
    // at the planner's layout 1-6 points higher (Llama 3 8B -52.8% -> -46.8%, within band), LLaMA-1
    // 7B/13B/33B closer, LLaMA-1 65B +8.9% -> +11.2% (out of its -50..+10% band, recorded).
    // All of round 8: 15.02% (LLaMA-1 65B recorded, as with the contention alone). Unchanged by
    // round 9's train metrics (MPT-7B's run -19.0% -> -18.7%).
    // Round 9: 13.58% (0.13578) since every collective pays NCCL's own latency (a ZeRO-1/2
    // reduce-scatter bucket its ring reduce-scatter, not the all-reduce's tree; the parameter
    // all-gather one per bucket): the cards at the planner's ZeRO-1 layouts on 256 nodes slower,
    // Llama 2 7B -16.3% -> -6.4%, Phi-4 -20.2% -> -14.5%, LLaMA-1 65B +11.5% -> +14.2% (recorded).
    // All of round 9 merged: 13.58% (0.13578), mean 18.2%; the metrics and the 910B bandwidth move no GPU-hours row across the median.
    // Round 10: 13.50% (0.13505), mean 17.6%. A source that counts elapsed time x GPUs (a card's
    // "total GPU time", a run's days; 24 of the 30) is compared with the plan's hours, steady state x
    // the planner's interruption overhead (validation.rs `elapsed_factor`): 13.40% alone (Llama 3.1
    // 405B -4.2% -> +3.4% with its storage's stated 2 TB/s, the rest +0.1..+0.7%). With the sources'
    // own figures for two Phi rows: phi-1 the paper's 770 GPU-hours for 50.3B tokens at batch 1024
    // (-40.1% against the card's 6 days -> -16.3%), Phi-4 the report's batch of 5760 (-13.9% -> -23.9%),
    // Phi-3-medium its 2K sliding window (-38.6% -> -41.5%).
    // Round 12: 12.86% (0.12857) over 37, mean 16.5%: seven runs whose sources state the layout,
    // chosen before any estimate (tools/gen_cases_t.py): three Falcon cards (7B +6.0%, 40B +9.1%,
    // RW-1B +18.1%, recorded) and four llm.c scripts (GPT-2 774M +7.0%, 350M +10.7%, 1558M +14.3%,
    // 124M +21.9%; the three above +10% recorded); Pythia-1B on the AWS network its config's /fsx
    // paths point to (-25.6% -> -21.4%). The 30 earlier rows alone: 13.50% -> 13.50%.
    // Round 14: 12.86% still, mean 16.5% -> 16.3%: the Llama 3.1 cards' long-context stages
    // (8B -50.3% -> -46.7%, 70B -11.4% -> -7.6%, 405B +3.4% -> +5.5%) cross no row over the median.
    // 14.20% (0.14202) over 40, mean 18.6%, with SmolLM2's three sizes (a maintainer's approximate
    // GPU-hours at the published nanotron configs, chosen before any estimate): -36.3%, -49.8%,
    // -54.0% (recorded). The 37 earlier rows alone: 12.86%, mean 16.3%, 16 within 10%.
    // Stop 35: 14.25% (0.14254) over 43, mean 18.4%, with three steady-state rows (Nemotron-4
    // 15B +26.8%, BloombergGPT +22.5%, H2O-Danube-1.8B +5.8%); 14.20% over 42 with the first two.
    // With llm.c's fused classifier and overlapped ZeRO-1 reduce-scatter (train_gpt2.cu @f1e2ace6;
    // 124M +21.9% -> +6.9%, 350M +10.7% -> +5.0%, 774M +7.0% -> +4.1%, 1558M +14.3% -> +12.1%):
    // 12.86% (0.1286) over 43.
    // 12.07% (0.12067) over 43, mean 17.8%, since BF16_Optimizer's per-micro-batch gradient pass
    // is timed (`parallel.fp32_grad_pass`): BLOOM-176B's run -15.0% -> -9.8% crosses the median.
    // Stop 38 (wt-nano19): 12.07% still, mean 17.8% -> 17.4%: the nanotron rows' DDP buckets move
    // SmolLM2-1.7B -36.3% -> -20.4% and SmolLM3-3B -21.8% -> -20.4%, both above the median before
    // and after (135M -54.0% -> -53.8%, 360M -49.7% -> -50.0%).
    // Stop 41 (dgx22): 12.07% -> 10.71% (0.10709): llm.c's GPT-2 1558M, cuDNN attention charged at
    // the measured rate (attention_efficiency_hopper_te 0.39 -> 0.51), +12.07% -> +10.49% (still
    // recorded), falls below StableLM-3B-4E1T's -10.71%, now the median.
    assert!(hours <= 0.1071, "GPU-hours out-of-sample median {hours:.4}");
    // The median is over 37 GPU-hours cases (30 before round 12's Falcon and llm.c rows, 17 before
    // round 6's runs and cards, 13 before the four runs with published configs).
    let hours_n = outcomes
        .iter()
        .filter(|(_, o)| o.kind == CaseKind::TrainTime && o.in_sample.is_none())
        .count();
    assert!(hours_n >= 37, "{hours_n} out-of-sample GPU-hours cases");
    // Stop 34: issue 10's 10% target is on the steady-state GPU-hours, the cases whose source
    // derives its hours from a stated rate (`steady_state`: LLaMA-1 65B +14.2%, TinyLlama -5.3%,
    // the four llm.c scripts +7.0..+21.9%): 12.42% (0.12425) over 6, not met. Elapsed ([elapsed],
    // 30, the SmolLM2 rows among them since this stop) 16.25%; not stated (Pythia, LLaMA-1
    // 7B/13B/33B) 7.47% over 4. The split moved no estimate but SmolLM2-360M's (-49.8 -> -49.7%).
    // Stop 35: 6.10% (0.06099) over 6, the target met: llm.c's rows with its fused classifier and
    // overlapped reduce-scatter (+4.1..+12.1%; LLaMA-1 65B +14.2%, TinyLlama -5.3% unchanged).
    let steady: Vec<f64> = outcomes
        .iter()
        .filter(|(_, o)| o.in_sample.is_none() && o.hours_basis == Some(HoursBasis::Steady))
        .map(|(_, o)| o.error.abs())
        .collect();
    let steady_median = {
        let mut v = steady.clone();
        v.sort_by(f64::total_cmp);
        // The middle row of an odd count (the report's median); the two middle rows' mean of an
        // even one. Until stop 35 this took the even formula at any count: over 9 rows it read the
        // mean of rows 4 and 5 where docs/accuracy.md prints row 5.
        let mid = v.len() / 2;
        if v.len() % 2 == 1 {
            v[mid]
        } else {
            (v[mid - 1] + v[mid]) / 2.0
        }
    };
    // Stop 35 (wt-hours16): 9 with three reports' stated rates, pre-registered in docs/notes/notes-hours16.md
    // before any estimate: H2O-Danube-1.8B (292.7k tokens/s on 8 H100) +5.8%, Nemotron-4 15B's
    // 7.6T-token stage (0.64 s per step on 2,304 H100) +26.8% and BloombergGPT's batch-2,048 steps
    // (32.5 s on 512 A100-40GB) +22.5% (both recorded): 14.15% (0.14151), 12.42% over 8 before
    // BloombergGPT. Further from issue 10's 10%. With llm.c's fused classifier (stop 35, wt-llmc16;
    // 124M +6.9%, 350M +5.0%, 774M +4.1%, 1558M +12.1%): 6.90% (0.0690) over 9, the 10% target met.
    assert_eq!(steady.len(), 9, "steady-state GPU-hours cases");
    assert!(
        steady_median <= 0.0691,
        "steady-state GPU-hours median {steady_median:.4}"
    );
    // 18: 22 before NeMo's packed fine-tuning samples were attended per sample, 20 then; BLOOM's
    // ramp-up row (GBS 192, micro-batch 1) one more, at +20.0%; LLaMA-65B's hours one fewer
    // (+14.6% -> +8.9%) with the paper's 4M-token batch; NeMo's Llama 2 70B pretraining and SFT
    // two fewer (-20.4% -> -13.9%, -21.3% -> -14.5%) with TE userbuffers' TP-comm overlap;
    // 17: torchtitan 2025-06's Llama 3 8B FP8 async-TP row (+21.9% -> +14.5%) on the HBM2e H100;
    // 16: BLOOM's ramp-up row (+20.0% -> +19.1%) with the pipeline sends' share of the node's NICs;
    // 14: torchtitan 2025-06's Llama 3 8B bf16 TP 8 rows (+22.5% -> +15.6%, +23.1% -> +18.5%) with
    // per-op SAC's recomputed all-gathers; 15: its async-TP row +18.5% -> +21.3% again with the
    // recomputed matmuls counted per op; 14: NeMo's Llama 2 13B LoRA row (-20.2% -> -18.4%) with
    // Megatron-Core's fused q/k/v carrying one LoRA adapter (workload.rs `fused_for`); 13: its 13B
    // SFT row (-30.7% -> -19.2%) with the same model's pretraining VP (10) for the unstated one;
    // 12: torchtitan's 405B CP 8 row (+36.8% -> +13.7%) with torch's ring per round over one NIC per ring.
    // 29 since Megatron-Bridge's held-out rows: 8 FP8 Llama rows (-20.2% to -24.3%), the 7
    // Qwen3-30B-A3B rows (+36% to +187%) and 2 Qwen3-235B-A22B rows (+58.2%, +20.9%); 51 with
    // llm-foundry's remaining rows: 17 small-model rows (MPT-125M to 1B, +20% to +38%), the
    // MPT-13B H100 micro-batch-2 rows at 16 and 32 GPUs, and three single rows (gen_cases.py).
    // 50 since the MoE router and token permutations were timed: Qwen3-235B-A22B 25.11 +20.9% ->
    // +13.3% (the 30B-A3B rows +36%..+187% -> +21%..+154%, the 235B 25.09 row +58.2% -> +48.2%).
    // 50 since issue r5-fp8: Megatron-Bridge 26.04.01's 405B row (-20.2% -> -16.5%) came within
    // band with the recipe's embedding/loss-aware pipeline split; its 70B and 25.11 8B FP8 rows
    // stay misses (-23.1% to -25.7%, -23.7%, with current scaling's amax passes timed). The trial
    // ratio 0.90 (46 misses) was not adopted: no per-release FP8 GEMM rate was found.
    // 49 with both merged (the MoE timing's 50 and r5-fp8's 405B row within band); 48 with the
    // ZeRO-3 exposure floor: MPT-350M on 128 A100-40GB (+20.1% -> +18.8%) and MPT-1B on 512 H100
    // (+23.2% -> +20.0%) within band, Megatron-Bridge 25.09's Llama 3 8B FP8 (-19.5% -> -20.2%) out.
    // 47 with one split of a layer's weights (layout.rs `WeightSplit`): torchtitan 2025-06's
    // Llama 3 8B bf16 async-TP row within band (+20.9% -> +17.9%). 42 with the loss's traffic
    // timed: five MPT-125M rows (2k/4k tokens on 8 A100s, +20.9..+25.2% -> +15.7..+19.9%) and
    // Megatron-Bridge 25.09's Qwen3-30B-A3B (+21.0% -> +16.3%) within band, NeMo 24.07's Llama 2
    // 13B SFT (-19.2% -> -20.1%) out. 47 with the expert all-to-all over its real links
    // (train/step.rs `ep_alltoall_seconds`): Qwen3-235B-A22B 25.11-26.04.01 (5 rows, -28.7% to
    // -34.1%) and DeepSeek-V3 25.09 (-39.0%) out, the 235B 25.09 row (+49.1% -> -6.7%) within band;
    // the Qwen3-30B-A3B EP 16 rows stay misses on the other side (+41..+43% -> -21..-22%).
    // 48 with phi-1.5's card (-67.2%: its 8 days on 32 A100s are 4.1x the paper's GPU-hours as a
    // reader quotes them) as a known deviation. 36 with two FP8 kernel generations: Megatron-Bridge's
    // 8 FP8 Llama rows (-21.4..-26.7% -> -12.1..-16.3%), NeMo 24.07's GPT3-175B/512 (-20.9% ->
    // -7.4%, now in-sample) and Llama 2 13B SFT (-20.1% -> -7.2%) within band; the Qwen3-30B-A3B EP 16
    // rows (-21..-22% -> -18.5..-19.7%) within band, its 25.09 row (+16.3% -> +23.8%) out.
    // 33 with both (43 on the MoE branch alone) since the EP all-to-all overlap and the
    // DeepEP/HybridEP dispatchers are workload settings: Qwen3-235B-A22B 25.11-26.04.01 (5 rows)
    // and DeepSeek-V3 25.09 within band, Qwen3-30B-A3B 25.09 (+23.8%, unchanged by it; +16.3%
    // before the round-6 FP8 kernel generation) recorded with the other one-node EP 8 rows.
    // With round 6's held-out throughput rows on Chinese hardware (on top of the above):
    // 49 with Skywork's DP128+TP4 row (+28.4%: the A800 rows' tensor parallelism costs more than
    // modelled; FIXME in tools/gen_cases_t.py SKY_TP4). 58 with ModelLink's nine 910B misses (ML_KNOWN:
    // four --use-mc2 rows +24..+38%, two eager-attention rows +26/+43%, Qwen1.5-0.5B +88% and Gemma-2B
    // +31% with no HBM bandwidth for the chip in the catalog, Grok-1 MoE +47%). 67 with InternEvo's nine
    // 512-1024-GPU rows (IE_KNOWN: four zero1=-1 rows +23..+68% from per-rank parameter broadcasts over
    // the whole group, five small-batch rows +20..+38% whose gradient all-reduce is not hidden). 68 with
    // FlagPerf's Llama 2 7B DeepSpeed ZeRO-3 row on H800 (+21.9%, FP_DS_H800). 69 with its ChatGLM3-6B
    // row on Ascend 910B (+30.6%: no HBM bandwidth for the chip in the catalog, FP_GLM3_910B). 71 with
    // its two Baichuan2-13B rows on H800 (+79.9%, +42.5%, FP_BC2).
    // 56 with both merged: 33 before the Chinese-hardware rows + their 23 recorded misses.
    // 53 since InternEvo's per-rank parameter broadcasts are charged (train/step.rs
    // `per_rank_broadcasts`, `zero1_broadcast = "per_rank"`): its zero1=-1 rows at 512 ranks
    // (+33.4% -> +16.5%, tp2 +31.7% -> +13.1%) and at 256 tp2 ranks (+22.6% -> +14.2%) within band;
    // the 1024-rank row stays a miss (+68.3% -> +30.4%). The median above is unchanged (7.476%).
    // 51 with its synchronised 512M-element gradient buckets (train/step.rs `synced_bucket_share`):
    // 1024 GPUs ckpt mb4 (+20.5% -> +17.8%) and 512 GPUs nockpt mb2 mn2 (+20.3% -> +18.4%) within
    // band; 1024 GPUs ckpt mb2 +20.1%, nockpt mn1 +32.7% and mn2 +29.5%, zero1=-1 tp1 +29.5% stay.
    // 50 with every bucketed overlap exposing its last bucket (`GradBuckets`, the sync's own
    // share dropped) and NCCL's tree for the 1.07 GB buckets over 128 nodes (`bucket_algorithm`):
    // 1024 GPUs ckpt mb2 +20.1% -> +14.6% within band; nockpt mn1 +26.0%, mn2 +25.6%, zero1=-1
    // tp1 +27.9% stay (IE_AR, IE_BCAST: ~0.3 s of all-reduce per step that grows from 512 to
    // 1024 GPUs is not in any code read).
    // 45 since the overlapped collectives' SM contention (train/contention.rs): the four MPT-13B
    // H100 micro-batch-2 rows (+20.2..+22.4% -> +11.5..+14.3%), MPT-30B H100 s8192 (+21.4% ->
    // +19.3%), Llama 3 8B's card (-52.8% -> -46.8%) and InternEvo's 1024 GPUs ckpt mb2 (+20.1% ->
    // +12.6%) within band; LLaMA-1 65B's hours (+8.9% -> +11.2%) out.
    // All of round 8: 44 (InternEvo 1024 GPUs nockpt mb2 mn1 +19.5% within band with both step changes).
    // 35 since Composer's train metrics over the logits are timed (round 9): the eight MPT-125M
    // misses (+21.9..+27.4% -> +0.7..+7.9%) and MPT-760M's A100-80GB s1k row (+20.4% -> +16.8%)
    // within band; MPT-760M A100-80GB s512 (+23.8%), MPT-1B on 32 GPUs (+26.0%), MPT-30B s8192
    // (+22.8%) and MPT-70B on 64 A100-40GB (+35.2%) stay.
    // 38 on its own (from 44) since the Ascend 910B has its sourced 1.6 TB/s HBM (the element-wise, loss and optimizer
    // traffic timed): ModelLink's Aquila2-7B (+24.4% -> +16.2%), Baichuan-13B (+26.0% -> +12.8%),
    // Baichuan2-13B (+24.7% -> +18.7%), Gemma-2B (+30.9% -> +13.0%), Qwen1.5-7B (+24.4% -> +17.2%)
    // and FlagPerf's ChatGLM3-6B (+30.6% -> +9.8%) within band; Mistral-7B +30.0%, BLOOM-7B1
    // +30.7%, Qwen1.5-0.5B +50.1% and Grok-1 +40.4% stay (tools/gen_cases_t.py ML_KNOWN).
    // (Stop 36: still out of band with the unfused loss and main-gradient adds: Mistral-7B
    // +20.7%, BLOOM-7B1 +25.8%, Qwen1.5-0.5B +34.9%, Grok-1 +32.3%; the count is unchanged.)
    // Both of round 9 merged: 29. 30 since torchtune's Llama 3.1 70B CPU-offload tokens/s row
    // joined held out (+80.4%: the host CPU's optimizer step is not timed). 34 since round 12's
    // Falcon-RW-1B card row (+18.1% at the assumed micro-batch 1; FALCON_RW1B in tools/gen_cases_t.py)
    // and three llm.c rows (+10.7..+21.9%: its kernels beat the fitted efficiencies; LLMC_FAST).
    // 32 with the same round's eager-attention roofline and FlagPerf's stated 200 Gb/s H800
    // network: both Baichuan2-13B H800 rows (+79.5% -> +8.5%, +42.5% -> +17.9%) within band.
    // 31 since round 14 charges Llama 3.1's long-context pre-training as six stages (validation.rs
    // `stage_hours`, the paper's §3.4.2 schedule): its 8B card within band (-50.3% -> -46.7%).
    // 32 with round 14's SmolLM2 GPU-hours (chosen before any estimate): the 135M row's rounded
    // '5k' is -54.0% (SMOLLM2_135M in tools/gen_cases_t.py: nanotron's steps take ~0.1 s more than
    // modelled on all four of its rows, not determined).
    // 51 since round 14's probe rows (tools/gen_cases_t_probe14.py KNOWN): 14 Qwen (v1) LoRA rows
    // whose published step time has a host-bound floor (1.8B at 256-1024 tokens, 7B and 14B at
    // 256: QWEN1_FLOOR; host dispatch is not modelled), Qwen-1.8B's four 2048/4096-token rows
    // (QWEN18_MID), the three 7B full-parameter ZeRO-3 rows on 2 GPUs (QWEN1_FULL_FLOOR) and
    // FlagPerf's two 8-expert MoE rows on A800 (+25.9%, +24.5%, not identified).
    // 31 since round 14's SM counts put the H800's GEMMs under wave quantization: FlagPerf's Llama 2
    // 7B DeepSpeed ZeRO-3 row on H800 (+21.9% -> +16.9%) within band; Skywork's DP128+TP4 row on
    // A800 stays (+27.8% -> +23.6%).
    // 56 since stop 34 states BLOOM-176B's first stage (5 layers, the README's partition): the
    // heaviest stage's gradients shrink and the two small-batch rows leave the band (+18.2% ->
    // +24.4%, +18.4% -> +23.0%; BLOOM_SMALL_BATCH in tools/gen_cases_t.py); the Llama 3 paper's
    // 405B rows state the paper's V = 8 with the embedding and loss counted as layers (-12.2% ->
    // -4.7%, -10.4% -> -3.5%).
    // 58 since stop 35's Nemotron-4 15B and BloombergGPT steady-state GPU-hours rows (+26.8%,
    // +22.5%; NEMOTRON4_15B_GAP, BLOOMBERGGPT_GAP in tools/gen_cases_t.py: exposed collectives at
    // the pre-registered layouts).
    // 56 with llm.c's GPT-2 124M and 350M scripts within band (fused classifier: +21.9% -> +6.9%,
    // +10.7% -> +5.0%); the 1558M H100 row stays (+14.3% -> +12.1%, LLMC_1558M).
    // 55 since stop 35 splits the eager loop's host time (views at host_view_seconds, the time
    // outside the ops measured on CPU: train/dispatch.rs): t-qwen1-7b-lora-s256-a100 within band
    // (+26.5% -> +18.6%); the other QWEN1_FLOOR rows 8-9 points closer and still out.
    // 57 since review r16b states GLM-130B's DeepSpeed split ('type:transformer|embedding': 8/9/8
    // layers, LargeScale configs/wudao/wudao-130B.sh): the LM head's stage holds 8 layers, not 9,
    // and both speed-test rows leave the band (+16.6% -> +25.3%, +12.5% -> +20.9%; GLM_TPUT_SPLIT in
    // tools/gen_cases_t.py).
    // 55 since DeepSpeed BF16_Optimizer's fp32 gradient pass after every micro-batch's backward
    // is timed (`parallel.fp32_grad_pass`): BLOOM-176B at GBS 16 (+24.4% -> +19.2%) and GBS 192
    // (+23.0% -> +13.2%) within band.
    // (Before the merge with wt-scale17: still 57 since stop 36 charges DeepSpeed ZeRO-3's hooks (measured on CPU with DeepSpeed
    // 0.11.1's engine, train/dispatch.rs `Zero3Host`): t-qwen1-7b-full-s256-2xa100 +235.0% ->
    // +101.8%, still out; its 512/1024-token rows unchanged (the host hides behind the GPU). The
    // out-of-sample median stays 5.3%, the mean 10.0% -> 9.7% (docs/accuracy.md).
    // (wt-hostadam17 alone: 56 since stop 36 times the host CPU's optimizer step under offload (train/step/offload.rs):
    // torchtune-llama31-70b-full-8xa100-tps within band (+80.4% -> +13.6%; out of sample, the
    // per-core rate measured in validation/host-adam-measured.json, not fitted to the row).
    // All together: 54.
    // 55 since review r17 #1: torchtune's recipe sets os.cpu_count() // 8 threads per rank for the
    // FSDP-offload host step (set_torch_num_threads), overriding torchrun's one; the row states no
    // host, so torchtune-llama31-70b-full-8xa100-tps is untimed again (+13.6% -> +80.4%).
    // 54 since stop 37 (wt-ascend18) charges ModelLink's unfused ALiBi scale, bias add and q/k
    // copies (`unfused_score_bias`): BLOOM-7B1 +25.8% -> +19.9% within band (Baichuan-13B +7.5%
    // -> -0.6%, BLOOM-176B +0.5% -> -2.2%); Grok-1 +32.3% -> +24.3% with core_r0.6.0's allgather
    // dispatcher (`parallel.moe_dispatcher = "allgather"`) stays out.
    // 52 with both: stop 37 (wt-accum18) charges autograd's in-place `.grad` add of each micro-batch after the
    // first (train/step/accumulate.rs): GLM-130B's speed rows, DeepSpeed ZeRO-1 without
    // overlap_comm, within band (+25.3% -> +19.3%, +20.9% -> +15.0%).
    // 51 since stop 38 (wt-nano19) gives the nanotron rows their configs' DDP buckets
    // (`ddp_bucket_cap_mb` -> `grad_bucket_elements`, DDP_BUCKET_NOTE in tools/gen_cases_t.py):
    // SmolLM2-1.7B's GPU-hours within band (-36.3% -> -20.4%); 135M and 360M stay out (-53.8%,
    // -50.0%). With serving: 80 -> 79.
    // 50 with both: stop 38 (wt-ml19): TP-comm overlap hides each collective at most behind its
    // paired GEMM (`tp_paired_hidden`): ModelLink's Mistral-7B (MC2, TP 8, 32K tokens) +20.7% ->
    // +13.9% within band.
    // 51 since stop 39 (sp20) models Megatron's sequence-parallel backward as it runs (6 TP
    // collectives a layer, 4 of them async beside the dgrad / wgrad GEMMs): ModelLink's
    // BLOOM-7B1 on the 910B leaves its band (+19.9% -> +27.7%; no compute charged to HCCL beside
    // the matmuls, unsourced), recorded; Skywork-13B TP 4 stays out (+23.6% -> +26.9%).
    // 52 since stop 41 (dgx22): Megatron/TE's Hopper attention at the FA-3 paper's measured cuDNN
    // rate (attention_efficiency_hopper_te 0.39 -> 0.51) takes the Qwen3-30B-A3B EP-overlap A/B's
    // overlap-on row out of its band (+17.2% -> +23.5%; over-predicted by the MoE path, as the
    // table's recorded Qwen3-30B-A3B rows, cause not established), recorded.
    assert!(
        known <= 52,
        "{known} known deviations (training time/throughput)"
    );
    let new_cases = outcomes
        .iter()
        .filter(|(_, o)| o.id.starts_with("t-"))
        .count();
    assert!(
        new_cases >= 40,
        "issue 10 asks for 40 published training cases from new sources"
    );
}
