//! Audit r20: each test runs the CLI as a user does and asserts the property the finding broke.
//! Findings and inputs: docs/notes/notes-audit-r20.md. A refusal run through
//! `common::assert_refused` is run again in Chinese (no English sentence left).

mod common;

const TAG: &str = "audit-r20";

/// Exit `code` with every phrase of `phrases` present (`!phrase`: absent).
fn refused(args: &[&str], code: i32, phrases: &[&str]) -> std::process::Output {
    common::assert_refused(TAG, args, code, phrases)
}

/// `estimate -m Qwen2.5-0.5B --task inference --gpu GPU --engine ENGINE`.
fn serve_on<'a>(gpu: &'a str, engine: &'a str) -> Vec<&'a str> {
    vec![
        "estimate",
        "-m",
        "Qwen2.5-0.5B",
        "--task",
        "inference",
        "--gpu",
        gpu,
        "--engine",
        engine,
    ]
}

/// #1: SGLang on a V100 printed vLLM's no-bf16 note ("--dtype half") before refusing `engine`:
/// the engine's floor is now checked before any note on how it would run, so the refusal
/// stands alone.
#[test]
fn an_engine_below_its_floor_is_refused_before_any_note() {
    for lang in ["en", "zh"] {
        let mut args = vec!["--lang", lang];
        args.extend(serve_on("v100", "sglang"));
        let o = common::run(TAG, &args);
        assert_eq!(o.status.code(), Some(2), "{}", common::all_text(&o));
        // One message (wrapped at 80 columns): the refusal, no note before it.
        let err = common::stderr(&o);
        let head = if lang == "en" { "error:" } else { "错误：" };
        assert!(err.starts_with(head), "{err}");
        assert_eq!(err.matches(head).count(), 1, "{err}");
        assert!(!err.contains("note:") && !err.contains("提示："), "{err}");
        assert!(err.contains("`engine`") && err.contains("7.5"), "{err}");
        assert!(common::stdout(&o).is_empty());
    }
}

/// #2: `plan --weights awq` was planned as plain int4 on a V100, which vLLM/SGLang load as AWQ
/// only from 7.5 (`estimate --weights awq` refused it there). The search now keeps AWQ's floor
/// and says what it sizes; `gptq` (or `awq,gptq`) keeps planning the V100.
#[test]
fn plan_weights_awq_keeps_the_awq_kernel_floor() {
    let base = [
        "plan",
        "-m",
        "Llama-3.1-8B",
        "--task",
        "inference",
        "--engine",
        "vllm",
        "--gpu",
        "v100",
        "--weights",
    ];
    let mut awq = base.to_vec();
    awq.push("awq");
    refused(
        &awq,
        4,
        &["loads AWQ under vllm", "7.5", "--weights gptq", "int4-g128"],
    );
    for w in ["gptq", "awq,gptq"] {
        let mut args = base[1..].to_vec();
        args.push(w);
        let v = common::plan_json(TAG, &args);
        assert!(!common::plans(&v).is_empty(), "--weights {w}: {v}");
    }
    // From 7.5 AWQ plans as before, and the note says what is sized.
    let mut t4 = awq.clone();
    t4[8] = "t4";
    refused(&t4, 0, &["int4-g128", "AWQ's 4-bit weights"]);
}

/// #4: an I/O error outside the few kinds named in words (EIO from `/proc/self/mem`) printed the
/// system's English text ("Input/output error (os error 5)") in a Chinese refusal.
#[cfg(target_os = "linux")]
#[test]
fn an_input_output_error_reads_in_chinese() {
    let mem = "/proc/self/mem";
    for args in [
        vec!["estimate", "-w", mem],
        vec!["models", "show", "--config", mem],
        vec!["catalog", "validate", mem],
    ] {
        let mut all = vec!["--lang", "zh"];
        all.extend(args);
        let o = common::run(TAG, &all);
        let err = common::stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{err}");
        assert!(err.contains("输入/输出错误"), "{err}");
        assert!(
            !err.contains("Input/output") && !err.contains("os error"),
            "{err}"
        );
    }
    // English keeps the system's text.
    refused(
        &["estimate", "-w", "/proc/self/mem"],
        2,
        &["Input/output error"],
    );
}

/// #4: `--epochs` beside `--tokens` is refused with a fix that computes the total; NaN, inf,
/// 1e300 and -1 epochs were echoed into it ("--tokens NaN", "--tokens -10000000", a 300-digit
/// count). Now an out-of-range value is refused naming `epochs` and its range first.
#[test]
fn epochs_out_of_range_beside_tokens_names_the_range() {
    for e in ["nan", "inf", "1e300", "-1", "0"] {
        let flag = format!("--epochs={e}");
        let o = refused(
            &[
                "estimate",
                "-m",
                "Qwen2.5-0.5B",
                "--gpu",
                "a100",
                "--task",
                "lora",
                "--tokens",
                "1e7",
                &flag,
            ],
            2,
            &["`epochs`", "up to 1e6", "!--tokens -", "!NaN", "!infT"],
        );
        assert!(common::stderr(&o).len() < 400, "{}", common::stderr(&o));
    }
    // In range, the fix still gives the total.
    refused(
        &[
            "estimate",
            "-m",
            "Qwen2.5-0.5B",
            "--gpu",
            "a100",
            "--task",
            "lora",
            "--tokens",
            "1e7",
            "--epochs",
            "3",
        ],
        2,
        &["--tokens 30.0M"],
    );
}

/// #5: `plan --max-price-age=-0` noted "--max-price-age -0: … price(s) older than 0 days".
#[test]
fn a_zero_price_age_is_not_shown_negative() {
    refused(
        &[
            "plan",
            "-m",
            "Qwen2.5-0.5B",
            "--task",
            "lora",
            "--tokens",
            "1e7",
            "--provider",
            "alibaba",
            "--max-price-age=-0",
        ],
        0,
        &["!--max-price-age -0", "--max-price-age 0:"],
    );
}
