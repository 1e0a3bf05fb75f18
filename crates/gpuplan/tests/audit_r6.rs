//! Audit r6 (notes/audit-r6.md): inputs the CLI dropped or misread without a word, and image
//! models served "in tokens". Each test runs the CLI as a user does and asserts the property.

mod common;
use common::{stderr, stdout};
use std::process::Output;

const TAG: &str = "audit-r6";

fn gpuplan(args: &[&str]) -> Output {
    common::run(TAG, args)
}

/// Exit 2 and an error that names `flag`.
fn refused(args: &[&str], flag: &str) {
    common::assert_refused(TAG, args, 2, &[flag]);
}

/// `plan -m ResNet-50 --task inference --rate 100` answered "1000+300 tokens", "TTFT 99.1 ms,
/// 99.1 ms per output token", "a 0.0 GiB KV pool (0 tokens)" and "¥0.01 per million tokens"
/// for an image classifier. It now speaks of requests, batches and their latency.
#[test]
fn image_model_serving_speaks_in_requests_not_tokens() {
    let o = gpuplan(&[
        "plan",
        "-m",
        "ResNet-50",
        "--task",
        "inference",
        "--rate",
        "100",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = stdout(&o);
    let head = out.lines().next().unwrap();
    assert_eq!(head, "gpuplan plan: ResNet-50 serving, 100 req/s");
    for word in ["tokens", "TTFT", "TPOT", "per output token", "KV pool"] {
        let hit = out
            .lines()
            .find(|l| l.contains(word) && !l.contains("KV cache"));
        assert!(hit.is_none(), "{word}: {hit:?}\n{out}");
    }
    assert!(out.contains("per batch"), "{out}");
    assert!(out.contains("per 1k requests"), "{out}");
    // A TPOT target or output tokens mean nothing here: refused, naming the flag.
    refused(
        &[
            "plan",
            "-m",
            "ResNet-50",
            "--task",
            "inference",
            "--rate",
            "100",
            "--tpot",
            "0.1",
        ],
        "--tpot",
    );
    refused(
        &[
            "plan",
            "-m",
            "ResNet-50",
            "--task",
            "inference",
            "--rate",
            "5",
            "--output-tokens",
            "50",
        ],
        "--output-tokens",
    );
    // An encoder generates nothing either.
    refused(
        &[
            "plan",
            "-m",
            "BERT-base-uncased",
            "--task",
            "inference",
            "--rate",
            "5",
            "--tpot",
            "0.05",
        ],
        "--tpot",
    );
}

/// Flags of the other task were dropped: `estimate --task lora --batch 8` ran micro-batch 1,
/// `estimate --task inference --micro-batch 4` and `plan --task inference --tokens 1e9` ran as if
/// the flag were absent. The opposite direction of `plan --task lora --rate 5` (already refused).
#[test]
fn flags_of_the_other_task_are_refused() {
    let est = ["estimate", "-m", "Qwen2.5-7B", "--gpu", "a100-80g"];
    let lora = [&est[..], &["--task", "lora", "--tokens", "1e8"]].concat();
    refused(&[&lora[..], &["--batch", "8"]].concat(), "--batch");
    refused(
        &[&lora[..], &["--input-tokens", "500"]].concat(),
        "--input-tokens",
    );
    let inf = [&est[..], &["--task", "inference"]].concat();
    refused(
        &[&inf[..], &["--micro-batch", "4"]].concat(),
        "--micro-batch",
    );
    refused(&[&inf[..], &["--zero", "3"]].concat(), "--zero");
    refused(&[&inf[..], &["--lora-rank", "8"]].concat(), "--lora-rank");
    let serve = [
        "plan",
        "-m",
        "Qwen2.5-7B",
        "--task",
        "inference",
        "--rate",
        "5",
    ];
    refused(&[&serve[..], &["--tokens", "1e9"]].concat(), "--tokens");
    refused(
        &[&serve[..], &["--global-batch", "64"]].concat(),
        "--global-batch",
    );
    // The flags of the job's own task still work.
    let o = gpuplan(&[&lora[..], &["--micro-batch", "2"]].concat());
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stdout(&o).contains("micro-batch 2"), "{}", stdout(&o));
}

/// `plan … --tokens 1e8 --epochs 3` planned 100M tokens (`--epochs` counts passes over
/// `--samples`); `--tokens` with `--samples` dropped the samples. Both are refused with the fix.
#[test]
fn epochs_beside_tokens_is_refused_with_the_total() {
    let base = [
        "plan",
        "-m",
        "Qwen2.5-7B",
        "--task",
        "lora",
        "--tokens",
        "1e8",
    ];
    refused(&[&base[..], &["--epochs", "3"]].concat(), "--tokens 300.0M");
    refused(&[&base[..], &["--samples", "5e4"]].concat(), "--samples");
    // Samples × epochs is the documented way, and still plans.
    let o = gpuplan(&[
        "plan",
        "-m",
        "Qwen2.5-7B",
        "--task",
        "lora",
        "--samples",
        "5e4",
        "--epochs",
        "3",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stdout(&o).contains("307.2M tokens"), "{}", stdout(&o));
}

/// `--gpu h200x` and `--family nosuchfam` ended in "no candidate instance type … [candidates]",
/// exit 4, naming neither flag. They are bad input (exit 2) naming the value and what exists.
#[test]
fn unknown_gpu_and_family_are_bad_input() {
    let base = [
        "plan",
        "-m",
        "Qwen2.5-7B",
        "--task",
        "lora",
        "--tokens",
        "1e8",
    ];
    common::assert_refused(
        TAG,
        &[&base[..], &["--gpu", "h200x"]].concat(),
        2,
        &["--gpu h200x", "a100-80g"],
    );
    common::assert_refused(
        TAG,
        &[&base[..], &["--family", "gn7ee"]].concat(),
        2,
        &["--family gn7ee", "gn7e"],
    );
    // Known values, in any case, still filter: a combination that leaves nothing is exit 4.
    let o = gpuplan(&[&base[..], &["--family", "GN7E", "--gpu", "A100"]].concat());
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let o = gpuplan(&[&base[..], &["--family", "gn7e", "--gpu", "t4"]].concat());
    assert_eq!(o.status.code(), Some(4), "{}", stderr(&o));
}

/// `plan -m SDXL-UNet --task full --samples 1e5` read "data read 0.0 KB/s … dataset 0.0 GiB":
/// the preset has no stored size per sample. The plan asks for it; given, the data path is sized.
#[test]
fn image_model_without_a_sample_size_asks_for_it() {
    let base = [
        "plan",
        "-m",
        "SDXL-UNet",
        "--task",
        "full",
        "--samples",
        "1e5",
    ];
    refused(&base, "--bytes-per-sample");
    let o = gpuplan(&[&base[..], &["--bytes-per-sample", "1000000"]].concat());
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(!out.contains("0.0 KB/s"), "{out}");
    assert!(out.contains("data read") && out.contains("MB/s"), "{out}");
    // `estimate` has no such flag: its data line says the rate is unknown instead of 0.0 KB/s.
    let o = gpuplan(&[
        "estimate",
        "-m",
        "SDXL-UNet",
        "--task",
        "full",
        "--gpu",
        "a100-80g",
        "--samples",
        "1e5",
    ]);
    let out = stdout(&o).replace("\n  ", " ");
    assert!(out.contains("read an unknown rate"), "{out}");
    assert!(!out.contains("0.0 KB/s"), "{out}");
    // ResNet-50 has a sourced sample size (ILSVRC2012's ~108 KB JPEGs): no flag needed.
    let o = gpuplan(&[
        "plan",
        "-m",
        "ResNet-50",
        "--task",
        "pretrain",
        "--samples",
        "1e5",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
}

/// The serving title dropped `--tpot` and `--concurrency`; a plan with no load given sized
/// `--min-replicas` replicas at capacity and said nothing about it.
#[test]
fn serving_title_states_every_target_and_a_missing_load() {
    let o = gpuplan(&[
        "plan",
        "-m",
        "Qwen2.5-7B",
        "--task",
        "inference",
        "--concurrency",
        "8",
        "--ttft",
        "1",
        "--tpot",
        "0.05",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = stdout(&o);
    let title: String = out
        .lines()
        .take(2)
        .map(str::trim)
        .collect::<Vec<_>>()
        .join(" ");
    // Targets under 1 s print in ms since expert r15 ("TPOT < 0.05 s" before).
    for part in ["8 concurrent requests", "TTFT < 1 s", "TPOT < 50 ms"] {
        assert!(title.contains(part), "{part}: {title}");
    }
    let o = gpuplan(&[
        "plan",
        "-m",
        "Qwen2.5-7B",
        "--task",
        "inference",
        "--ttft",
        "1",
    ]);
    let out = stdout(&o).replace("\n  ", " ");
    assert!(
        out.contains("no load given (--rate/--concurrency): 2 replicas (--min-replicas) sized at their full capacity"),
        "{out}"
    );
    assert!(!out.contains("the stated load (--peak-factor)"), "{out}");
    // The autoscaling advice said "the stated load needs 1" with no load stated.
    let out = out.replace("\n   ", " ");
    assert!(
        out.contains("[autoscaling] Replicas: no load was given"),
        "{out}"
    );
    assert!(!out.contains("the stated load needs"), "{out}");
}

/// `COLUMNS=80 gpuplan prices` printed `ecs.e`/`bmgn6`/`i.24x`/`large` and `19800`/`.00`, and
/// `catalog gpus` `NVIDI`/`A T4`: the listings now leave columns out (and say which) instead of
/// splitting an id or a figure; `--wide` keeps every column.
#[test]
fn listings_at_80_columns_keep_ids_and_figures_whole() {
    use unicode_width::UnicodeWidthStr;
    for args in [
        &["prices"][..],
        &["prices", "--by-gpu"],
        &["catalog", "gpus"],
        &["prices", "--lang", "zh"],
        &["catalog", "gpus", "--lang", "zh"],
    ] {
        let out = stdout(&gpuplan(args));
        assert!(out.lines().all(|l| l.width() <= 80), "{args:?}\n{out}");
        // Below the header rule every line is one whole row: no cell wrapped onto a second line
        // (a continuation line has an empty first cell).
        let body = out
            .split('╞')
            .nth(1)
            .unwrap_or_else(|| panic!("{args:?}\n{out}"));
        let rows: Vec<&str> = body.lines().filter(|l| l.starts_with('│')).collect();
        assert!(rows.len() > 5, "{args:?}\n{out}");
        for r in rows {
            let first = r.trim_start_matches('│').split('┆').next().unwrap();
            assert!(!first.trim().is_empty(), "{args:?}: a wrapped row: {r}");
        }
        let note = if args.contains(&"zh") {
            "`--wide` 显示全部列"
        } else {
            "`--wide` shows every column"
        };
        assert!(out.replace('\n', " ").contains(note), "{args:?}\n{out}");
    }
    let wide = stdout(&gpuplan(&["--wide", "prices"]));
    let head = wide.lines().nth(1).unwrap();
    assert_eq!(head.matches('┆').count(), 9, "{wide}");
}

/// `plan -m Whisper-large-v3 --task full …` timed the encoder at the decoder's 448 positions
/// (4.3e12 FLOPs a sample where the 1500-position encoder makes it ~1e13) without a word. The
/// encoder length is modelled since round 6 (`TransformerSpec::encoder_positions`,
/// tests/encoder_decoder.rs); every Whisper answer says what its figures count (en and zh).
#[test]
fn whisper_says_its_encoder_runs_1500_positions() {
    let args = [
        "plan",
        "-m",
        "Whisper-large-v3",
        "--task",
        "full",
        "--samples",
        "1e5",
    ];
    let o = gpuplan(&args);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let e = stderr(&o).replace("\n  ", " ");
    assert!(e.contains("the encoder always runs 1500 positions"), "{e}");
    assert!(e.contains("count decoder tokens"), "{e}");
    let o = gpuplan(&[&args[..], &["--lang", "zh"]].concat());
    let e = stderr(&o).replace("\n  ", "");
    assert!(e.contains("编码器每个样本总是处理 1500 个位置"), "{e}");
}

/// `plan -m Qwen2.5-7B --task lora --seq-len 200000` planned 200k-token samples for a model whose
/// context is 131072 without a word (learned-position models are refused; rotary ones passed
/// silently). The plan keeps the length and says what it needs.
#[test]
fn a_sequence_past_the_context_is_noted() {
    let o = gpuplan(&[
        "plan",
        "-m",
        "Qwen2.5-7B",
        "--task",
        "lora",
        "--tokens",
        "1e8",
        "--seq-len",
        "200000",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let e = stderr(&o).replace("\n  ", " ");
    assert!(
        e.contains("seq_len 200000 is longer than the context of Qwen2.5-7B (131072 positions)"),
        "{e}"
    );
    assert!(stdout(&o).contains("seq len 200000"), "{}", stdout(&o));
    // Within the context: no note.
    let o = gpuplan(&[
        "plan",
        "-m",
        "Qwen2.5-7B",
        "--task",
        "lora",
        "--tokens",
        "1e8",
        "--seq-len",
        "4096",
    ]);
    assert!(
        !stderr(&o).contains("longer than the context"),
        "{}",
        stderr(&o)
    );
}

/// The LoRA plan's bundle carried micro-batch, accumulation and ZeRO (ds_config.json) but not
/// the LoRA rank/targets, sequence length or recomputation its 73 GiB per GPU depends on, which
/// live in the user's training script. README.txt now lists them.
#[test]
fn the_training_bundle_names_the_settings_the_plan_assumed() {
    let dir = common::scratch().join(format!("gpuplan-audit-r6-export-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let d = dir.to_str().unwrap();
    let o = gpuplan(&[
        "plan",
        "-m",
        "Qwen2.5-14B",
        "--task",
        "lora",
        "--tokens",
        "1e8",
        "--lora-rank",
        "32",
        "--seq-len",
        "4096",
        "--export",
        d,
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let readme = std::fs::read_to_string(dir.join("README.txt")).unwrap();
    for part in [
        "task lora (LoRA rank 32, targets all-linear, dropout 0.05)",
        "sequence length 4096, micro-batch",
        "activation recomputation",
    ] {
        assert!(readme.contains(part), "{part}:\n{readme}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// `estimate -m Qwen2.5-72B --task full --instance ecs.ebmgn7ex.32xlarge --nodes 4` listed
/// "activations 0.00" under "memory per device" while its timeline showed 61.84 GiB saved: the
/// table holds what is live at the peak (here the optimizer step), which the title now says.
#[test]
fn the_estimate_memory_table_names_its_peak_phase() {
    let o = gpuplan(&[
        "estimate",
        "-m",
        "Qwen2.5-72B",
        "--task",
        "full",
        "--instance",
        "ecs.ebmgn7ex.32xlarge",
        "--nodes",
        "4",
        "--tokens",
        "1e9",
    ]);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    let out = stdout(&o).replace("\n  ", " ");
    assert!(
        out.contains("at the peak of the step (optimizer step): what is live then"),
        "{out}"
    );
}

/// `models show GLM-4-9B --lang zh` printed its architecture line, notes and sources as one
/// long line each (an 80-column terminal broke them mid-word): they wrap at the terminal width.
#[test]
fn models_show_wraps_at_the_terminal_width() {
    use unicode_width::UnicodeWidthStr;
    for lang in ["en", "zh"] {
        let out = stdout(&gpuplan(&["models", "show", "GLM-4-9B", "--lang", lang]));
        assert!(out.lines().all(|l| l.width() <= 80), "{out}");
    }
}
