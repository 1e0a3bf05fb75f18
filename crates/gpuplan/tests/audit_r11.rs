//! Audit r11 (notes/audit-r11.md): each test runs the CLI as a user does and asserts the property
//! the finding broke.

mod common;
use common::{stderr, stdout};
use std::process::Output;

const TAG: &str = "audit-r11";

fn run(args: &[&str]) -> Output {
    common::run(TAG, args)
}

fn fixture(name: &str) -> String {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../gpuplan-core/tests/fixtures")
        .join(name)
        .display()
        .to_string()
}

/// Display columns of `s` (CJK characters take two).
fn columns(s: &str) -> usize {
    s.chars()
        .map(|c| {
            if ('\u{2e80}'..='\u{ffef}').contains(&c) {
                2
            } else {
                1
            }
        })
        .sum()
}

/// Lines of `text` wider than 80 columns, tables and TOML records left aside.
fn too_wide(text: &str) -> Vec<&str> {
    text.lines()
        .filter(|l| !l.starts_with(['│', '┌', '├', '╞', '└']) && columns(l) > 80)
        .collect()
}

/// #1: toml's "invalid table header\nexpected `.`, `]`" read in Chinese as "表头无效;，应为":
/// the "; expected" that joins toml's two lines is translated with the rest.
#[test]
fn a_broken_table_header_reads_in_chinese() {
    let w = common::write_temp(TAG, "header.toml", "model = \"Llama-3.1-8B\"\n[training\n");
    let o = common::run_cols(
        TAG,
        "250",
        &["plan", "-w", w.to_str().unwrap(), "--lang", "zh"],
    );
    assert_eq!(o.status.code(), Some(2));
    let e = stderr(&o);
    assert!(e.contains("表头无效；应为 `.`, `]`"), "{e}");
    assert!(!e.contains(';') && !e.contains("expected"), "{e}");
}

/// #2: `catalog show INSTANCE --lang zh` printed its prices as English ("price on-demand: ¥34.74
/// (list, cn-shanghai, 2023-06, 1284 d old)" and "source:").
#[test]
fn instance_prices_read_in_chinese() {
    let o = common::run_dated(
        TAG,
        &["catalog", "show", "ecs.gn7e-c16g1.4xlarge", "--lang", "zh"],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(
        out.contains("价格（按量付费）：¥34.74（公开价，cn-shanghai，2023-06，"),
        "{out}"
    );
    assert!(out.contains("来源：ArthurChiao"), "{out}");
    assert!(
        !out.contains("price on-demand") && !out.contains("d old"),
        "{out}"
    );
    let en = stdout(&common::run_dated(
        TAG,
        &["catalog", "show", "ecs.gn7e-c16g1.4xlarge"],
    ));
    assert!(
        en.contains("price on-demand: ¥34.74 (list, cn-shanghai, 2023-06, "),
        "{en}"
    );
}

/// #3: at 80 columns `catalog show` (a family, an instance's sentences), `catalog validate` and
/// the `accuracy` summary printed lines of 97 to 692 columns; the TOML record stays as it is.
#[test]
fn catalog_and_accuracy_text_fits_80_columns() {
    for args in [
        &["catalog", "show", "gn7e"][..],
        &["catalog", "show", "GN7", "--lang", "zh"],
        &["catalog", "show", "ecs.gn7e-c16g1.4xlarge"],
        &["catalog", "validate"],
        &["accuracy"],
        &["accuracy", "--lang", "zh"],
    ] {
        let o = run(args);
        assert_eq!(o.status.code(), Some(0), "{args:?}: {}", stderr(&o));
        let out = stdout(&o);
        // `catalog show INSTANCE` starts with the row as TOML (`key = value` lines).
        let prose: String = out
            .lines()
            .filter(|l| {
                !(l.contains(" = ") || l.starts_with(['[', ']']) || l.starts_with("    \""))
            })
            .collect::<Vec<_>>()
            .join("\n");
        let wide = too_wide(&prose);
        assert!(wide.is_empty(), "{args:?}: {wide:#?}");
    }
}

/// #4: a truncated provider response read "响应不完整（截止于第 2 行第 0 列)" in Chinese: a
/// full-width opening parenthesis closed by an ASCII one.
#[test]
fn a_truncated_response_closes_its_parenthesis() {
    let f = common::write_temp(TAG, "cut.json", "{\"x\":\n");
    let o = common::run_cols(
        TAG,
        "250",
        &[
            "catalog",
            "import",
            "alibaba",
            f.to_str().unwrap(),
            "--dry-run",
            "--lang",
            "zh",
        ],
    );
    assert_eq!(o.status.code(), Some(2));
    let e = stderr(&o);
    assert!(e.contains("第 2 行第 0 列）：请重新获取"), "{e}");
}

/// #5: the import's warnings (more pages behind a NextToken, an unknown GPU) were English
/// strings from the core, printed as they were under `--lang zh`.
#[test]
fn import_warnings_read_in_chinese() {
    let o = run(&[
        "catalog",
        "import",
        "alibaba",
        &fixture("alibaba-describe-instance-types-page1.json"),
        &fixture("alibaba-describe-instance-types-page2.json"),
        "--dry-run",
        "--lang",
        "zh",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let e = stderr(&o);
    assert!(e.contains("GPU `NVIDIA G49` 未知"), "{e}");
    let page1 = run(&[
        "catalog",
        "import",
        "alibaba",
        &fixture("alibaba-describe-instance-types-page1.json"),
        "--dry-run",
        "--lang",
        "zh",
    ]);
    let e = stderr(&page1);
    assert!(e.contains("最后一页带有 NextToken"), "{e}");
    assert!(common::english_sentences(&e).is_empty(), "{e}");
}

/// #6: `catalog instances` at 80 columns broke its header words (`provide` over `r`, `Gi`/`B/`/
/// `GP`/`U`, `vCP` over `U`); it now leaves out vCPUs and memory per GPU, saying so.
#[test]
fn the_instance_list_keeps_its_header_words_whole_at_80_columns() {
    let o = run(&["catalog", "instances"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = stdout(&o);
    let lines: Vec<&str> = out.lines().collect();
    assert!(
        lines[1].contains("provider") && lines[1].contains("RDMA"),
        "{out}"
    );
    assert!(lines[2].starts_with('╞'), "a header of one line:\n{out}");
    assert!(
        out.contains("Left out at this width: vCPU, GiB/GPU (`--wide` shows every column)."),
        "{out}"
    );
    let wide = stdout(&common::run_cols(
        TAG,
        "250",
        &["catalog", "instances", "--wide"],
    ));
    assert!(wide.contains("GiB/GPU") && wide.contains("vCPU"), "{wide}");
}

/// #7: `estimate … --task inference --tpot 0.001` (and `--solve max-batch --tpot …`) answered
/// at 11–44 ms per token without a word: `--tpot` is read by `--solve max-throughput` only.
#[test]
fn a_tpot_target_an_estimate_would_ignore_is_refused() {
    let base = [
        "estimate",
        "-m",
        "Llama-3.1-8B",
        "--task",
        "inference",
        "--gpu",
        "A100",
    ];
    for extra in [
        &["--tpot", "0.001"][..],
        &["--solve", "max-batch", "--tpot", "0.001"],
        &["--solve", "max-context", "--tpot", "0.05"],
    ] {
        let o = run(&[&base[..], extra].concat());
        assert_eq!(o.status.code(), Some(2), "{extra:?}: {}", stdout(&o));
        let e = stderr(&o);
        assert!(
            e.contains("--tpot is the target of --solve max-throughput"),
            "{e}"
        );
    }
    let ok = run(&[&base[..], &["--solve", "max-throughput", "--tpot", "0.05"]].concat());
    assert_eq!(ok.status.code(), Some(0), "{}", stderr(&ok));
}

/// #8: `estimate … --task inference --batch 1000` on one A100 printed "167.4 ms per output token
/// at batch 1000" with exit 0, though vLLM schedules at most 256 sequences there and the KV pool
/// holds 346 requests of 1000 + 300 tokens: the batch never runs together, and it now says so.
#[test]
fn a_batch_the_engine_cannot_hold_is_named() {
    let base = [
        "estimate",
        "-m",
        "Llama-3.1-8B",
        "--task",
        "inference",
        "--gpu",
        "A100",
    ];
    let o = run(&[&base[..], &["--batch", "1000"]].concat());
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let t = common::all_text(&o);
    assert!(
        t.contains("batch 1000 is more than the engine holds at once: 256 (max_num_seqs 256;"),
        "{t}"
    );
    assert!(t.contains("use --batch 256, or --solve max-batch"), "{t}");
    let zh = common::all_text(&run(
        &[&base[..], &["--batch", "1000", "--lang", "zh"]].concat()
    ));
    assert!(zh.contains("批大小 1000 超过引擎同时能容纳的 256"), "{zh}");
    // A batch the engine holds carries no such note.
    let fine = common::all_text(&run(&[&base[..], &["--batch", "64"]].concat()));
    assert!(!fine.contains("holds at once"), "{fine}");
}

/// #9, #10: TensorRT-LLM was planned and estimated on Ascend 910B (9 feasible plans with
/// `--engine trtllm --chips ascend`): it builds CUDA engines for NVIDIA GPUs only. And SGLang's
/// default max_model_len was rounded to vLLM's 16-token blocks ("rounded up to whole 1-token
/// blocks" = 1312).
#[test]
fn trtllm_runs_on_nvidia_only() {
    let est = |gpu: &str, engine: &str| {
        run(&[
            "estimate",
            "-m",
            "Qwen2.5-7B",
            "--task",
            "inference",
            "--gpu",
            gpu,
            "--engine",
            engine,
        ])
    };
    for gpu in ["910B", "mi300x"] {
        let o = est(gpu, "trtllm");
        assert_eq!(o.status.code(), Some(2), "{gpu}: {}", stdout(&o));
        let e = stderr(&o);
        assert!(
            e.contains("`engine`") && e.contains("NVIDIA GPUs only"),
            "{e}"
        );
    }
    assert_eq!(est("A100", "trtllm").status.code(), Some(0));
    let o = run(&[
        "plan",
        "-m",
        "Qwen2.5-7B",
        "--task",
        "inference",
        "--rate",
        "5",
        "--engine",
        "trtllm",
        "--chips",
        "ascend",
        "--format",
        "json",
    ]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert!(common::plans(&v).is_empty(), "{v}");
    assert_eq!(o.status.code(), Some(4));
    let why = &v["outcome"]["rejected"][0];
    assert_eq!(why["constraint"], "engine", "{v}");
    assert!(
        why["message_en"]
            .as_str()
            .is_some_and(|m| m.contains("TensorRT-LLM runs on NVIDIA GPUs only")),
        "{why}"
    );
    let sg = common::all_text(&est("A100", "sglang"));
    assert!(sg.contains("max_model_len 1300 (default)"), "{sg}");
}
