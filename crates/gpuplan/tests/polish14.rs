//! Leftovers users trip over (task wt-polish14): numeric flags given units or suffixes, an
//! invalid GPUPLAN_TODAY. Each refusal is checked in English here and, through
//! `common::output_checked`, again under a Chinese locale (no English sentence left).

mod common;
use common::{assert_exit_phrases, assert_refused, output_checked};

#[test]
fn a_suffix_on_a_digits_only_flag_names_the_flag_the_value_and_both_readings() {
    assert_refused(
        "p14-seq",
        &["plan", "--model", "Qwen2.5-7B", "--seq-len", "2k"],
        2,
        &[
            "--seq-len `2k`",
            "give a whole number in digits",
            "e.g. --seq-len 4096",
            "write 2000 or 2048 in full",
            "!invalid digit",
        ],
    );
}

#[test]
fn amounts_and_money_name_what_they_accept_with_an_example() {
    assert_refused(
        "p14-tokens",
        &["plan", "--model", "Qwen2.5-7B", "--tokens", "lots"],
        2,
        &["--tokens `lots`", "suffix k, M, B or T", "e.g. --tokens 2B"],
    );
    assert_refused(
        "p14-zero",
        &["plan", "--model", "Qwen2.5-7B", "--tokens", "0"],
        2,
        &[
            "--tokens `0`",
            "a positive, finite amount",
            "e.g. --tokens 2B",
        ],
    );
    assert_refused(
        "p14-budget",
        &["plan", "--model", "Qwen2.5-7B", "--budget", "100yuan"],
        2,
        &[
            "--budget `100yuan`",
            "without a unit",
            "e.g. --budget 50000",
        ],
    );
}

#[test]
fn value_errors_keep_their_detail_in_chinese() {
    let o = assert_refused(
        "p14-zh",
        &[
            "--lang",
            "zh",
            "estimate",
            "-m",
            "Qwen2.5-7B",
            "--seq-len",
            "2k",
        ],
        2,
        &[
            "--seq-len `2k`",
            "整数",
            "例如 --seq-len 4096",
            "2000 或 2048",
        ],
    );
    assert!(common::english_sentences(&common::stderr(&o)).is_empty());
}

#[test]
fn a_json_value_error_carries_the_same_message() {
    let o = common::run(
        "p14-json",
        &[
            "plan",
            "-m",
            "Qwen2.5-7B",
            "--format",
            "json",
            "--seq-len",
            "2k",
        ],
    );
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["error"]["field"], "seq_len");
    let message = v["error"]["message"].as_str().unwrap();
    assert!(message.contains("e.g. --seq-len 4096"), "{message}");
}

/// `gpuplan catalog instances` under `GPUPLAN_TODAY=value`.
fn with_today(value: &str) -> std::process::Output {
    output_checked(
        std::process::Command::new(env!("CARGO_BIN_EXE_gpuplan"))
            .env("GPUPLAN_TODAY", value)
            .env_remove("LANG")
            .env_remove("LC_ALL")
            .env_remove("LC_MESSAGES")
            .args(["--no-user-catalog", "catalog", "instances", "--gpu", "A10"]),
    )
}

#[test]
fn an_invalid_today_is_refused_naming_the_variable_the_value_and_the_format() {
    for bad in ["2026-13-01", "yesterday", "2026-02-30"] {
        let o = with_today(bad);
        assert_exit_phrases(
            &o,
            2,
            &[
                &format!("GPUPLAN_TODAY `{bad}`"),
                "YYYY-MM-DD",
                "GPUPLAN_TODAY=2026-12-03",
            ],
        );
    }
    assert_eq!(with_today("2026-12-03").status.code(), Some(0));
    assert_eq!(with_today("").status.code(), Some(0), "empty = unset");
}

const OSS_120B: &str = "../gpuplan-core/tests/fixtures/hf-quantized/gpt-oss-120b.json";

/// A user catalog of one instance type with one H100: a serving plan of gpt-oss-120b cannot
/// spread over more GPUs, so at 60000+1000 tokens under vLLM's defaults it finds none.
fn one_h100_catalog() -> String {
    let row = "[[instance]]\nid = \"x.h100\"\nprovider = \"alibaba\"\nfamily = \"xh\"\n\
               gpu = \"h100-sxm\"\ngpu_count = 1\ngpu_memory_gib = 80\nrdma = \"none\"\n\
               source = \"test: one H100\"\nas_of = \"2026-11\"\nconfidence = \"likely\"\n";
    let p = common::write_temp("p14", "one-h100.toml", row);
    p.to_str().expect("path").to_string()
}

/// The advice lines of `estimate`'s vLLM refusal, each up to its first `,` or ` (`: the setting
/// and its value.
fn advice_settings(text: &str) -> Vec<String> {
    text.lines()
        .map(str::trim)
        .filter(|l| l.starts_with("--max-num-seqs") || l.starts_with("--gpu-memory-utilization"))
        .map(|l| l.split([',', '(']).next().unwrap_or(l).trim().to_string())
        .collect()
}

#[test]
fn a_serving_plan_refused_by_memory_carries_estimates_vllm_advice() {
    let serving = [
        "--input-tokens",
        "60000",
        "--output-tokens",
        "1000",
        "--weights",
        "mxfp4",
    ];
    let mut est = vec![
        "estimate",
        "--model-config",
        OSS_120B,
        "--task",
        "inference",
    ];
    est.extend_from_slice(&["--gpu", "h100-sxm"]);
    est.extend_from_slice(&serving);
    let e = common::run_cols("p14-est", "250", &est);
    let want = advice_settings(&common::stdout(&e));
    assert_eq!(want.len(), 2, "{}", common::stdout(&e));
    let cat = one_h100_catalog();
    let mut plan = vec![
        "plan",
        "--model-config",
        OSS_120B,
        "--task",
        "inference",
        "--rate",
        "1",
    ];
    plan.extend_from_slice(&["--no-user-catalog", "--catalog", &cat, "--family", "xh"]);
    plan.extend_from_slice(&serving);
    // The same settings, worded for `plan` (review r14 #3): its workload key for the memory
    // share (plan has no --gpu-memory-utilization), vLLM's launch flag for max_num_seqs.
    let mut phrases = vec![
        "vLLM would start there with any one of these changes".to_string(),
        "closest configuration: h100-sxm mxfp4 TP 1".to_string(),
        "!--gpu-memory-utilization".to_string(),
    ];
    for w in &want {
        let mut words = w.split_whitespace();
        let (flag, value) = (words.next().unwrap_or(""), words.next().unwrap_or(""));
        phrases.push(match flag {
            "--gpu-memory-utilization" => {
                format!("gpu_memory_utilization = {value} or more under [serve]")
            }
            _ => format!("vllm serve {flag} {value})"),
        });
    }
    let phrases: Vec<&str> = phrases.iter().map(String::as_str).collect();
    assert_refused("p14-plan", &plan, 4, &phrases);
}

/// The bundle's README.txt follows `--lang`: in Chinese no English sentence is left (commands
/// and identifiers aside), in English it reads as before (tests/export.rs checks its phrases).
#[test]
fn the_bundle_readme_is_written_in_the_runs_language() {
    let par = "[training.parallel]\ntp = 1\npp = 1\nep = 4\nzero = 2\n\
               zero1_broadcast = \"per_rank\"\ngrad_bucket_sync = true\n";
    let w = "kind = \"training\"\nmodel = \"Qwen3-30B-A3B\"\n[training]\ntask = \"pretrain\"\n\
             seq_len = 4096\ntokens = 1e9\n";
    let w = common::write_temp("p14", "ep.toml", &format!("{w}{par}"));
    for (lang, phrase) in [("en", "launch bundle"), ("zh", "部署包")] {
        let dir = common::scratch().join(format!("bundle-{lang}"));
        let args = [
            "--lang",
            lang,
            "plan",
            "-w",
            w.to_str().unwrap(),
            "--no-user-catalog",
        ];
        let o = common::run(
            "p14-export",
            &[&args[..], &["--export", dir.to_str().unwrap()]].concat(),
        );
        assert_eq!(o.status.code(), Some(0), "{}", common::stderr(&o));
        let readme = std::fs::read_to_string(dir.join("README.txt")).unwrap();
        assert!(readme.contains(phrase), "{readme}");
        if lang == "zh" {
            let english = common::english_sentences(&readme);
            assert!(english.is_empty(), "{english:?}\n{readme}");
            for key in [
                "parallel.zero1_broadcast = per_rank",
                "ep_size=4",
                "`DRY_RUN=false",
            ] {
                assert!(readme.contains(key), "{key}: {readme}");
            }
        }
    }
}
