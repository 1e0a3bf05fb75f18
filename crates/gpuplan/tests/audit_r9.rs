//! Audit r9 (notes/audit-r9.md): each test runs the CLI as a user does and asserts the property
//! the finding broke.

mod common;
use common::{one_line, stderr, stdout};
use std::path::PathBuf;
use std::process::Output;

fn run(args: &[&str]) -> Output {
    common::run("audit-r9", args)
}

fn temp(name: &str) -> PathBuf {
    common::temp_path("audit-r9", name)
}

fn workload(name: &str, text: &str) -> PathBuf {
    common::write_temp("audit-r9", name, text)
}

/// `plan ARGS --export DIR` into a fresh directory, which must succeed; the directory.
fn export(name: &str, args: &[&str]) -> PathBuf {
    let dir = temp(name);
    let _ = std::fs::remove_dir_all(&dir);
    let mut all = args.to_vec();
    all.extend_from_slice(&["--export", dir.to_str().unwrap()]);
    let o = run(&all);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    dir
}

fn read(dir: &std::path::Path, file: &str) -> String {
    std::fs::read_to_string(dir.join(file)).unwrap_or_else(|e| panic!("{file}: {e}"))
}

/// #1: with `--deadline 1h --budget 100` the refusal said "the fastest plan, 4 × p2s.16xlarge.8,
/// takes 1.0 h, over the 1.0 h deadline by 3 min: allow more nodes or more time", while 68 plans
/// meet the hour (the fastest 0.3 h): only the budget binds. The deadline line is printed only
/// when no site met the deadline, and the budget line says its cheapest plan is the cheapest
/// within the deadline.
#[test]
fn the_deadline_is_blamed_only_when_it_binds() {
    let met = common::plan_json(
        "audit-r9",
        &[
            "-m",
            "Qwen2.5-7B",
            "--task",
            "lora",
            "--tokens",
            "1e8",
            "--deadline",
            "1h",
        ],
    );
    assert!(!common::plans(&met).is_empty());
    let args = [
        "plan",
        "-m",
        "Qwen2.5-7B",
        "--task",
        "lora",
        "--tokens",
        "1e8",
        "--deadline",
        "1h",
        "--budget",
        "100",
    ];
    let o = run(&args);
    assert_eq!(o.status.code(), Some(4), "{}", stderr(&o));
    let en = one_line(&o);
    assert!(
        !en.contains("[deadline]") && !en.contains("over the 1.0 h deadline"),
        "{en}"
    );
    assert!(
        en.contains("cheapest plan within the 1.0 h deadline"),
        "{en}"
    );
    let mut zh = args.to_vec();
    zh.extend_from_slice(&["--lang", "zh"]);
    let zh = stdout(&run(&zh));
    assert!(
        !zh.contains("期限多出") && zh.contains("1.0 小时期限内最便宜的方案"),
        "{zh}"
    );
    // Where no plan meets the deadline, it is still named.
    let o = run(&[
        "plan",
        "-m",
        "Qwen2.5-14B",
        "--task",
        "lora",
        "--tokens",
        "5e8",
        "--deadline",
        "0.5h",
        "--budget",
        "500",
    ]);
    assert!(
        one_line(&o).contains("over the 0.5 h deadline by"),
        "{}",
        stdout(&o)
    );
}

/// #2: a context-parallel plan (workload `cp = 2`) was exported without megatron_args.sh and
/// with LAUNCHER=deepspeed, whose batch check (train_batch_size = micro × accumulation × world)
/// stops a CP run. CP is model parallelism: megatron_args.sh with --context-parallel-size, the
/// megatron launcher by default, no FSDP file.
#[test]
fn context_parallel_plans_export_megatron_arguments() {
    let f = workload(
        "cp2.toml",
        "model = \"Qwen2.5-7B\"\n[training]\ntask = \"lora\"\ntokens = 1e8\nseq_len = 4096\n\
         [training.parallel]\ncp = 2\n",
    );
    let dir = export("cp2", &["plan", "--workload", f.to_str().unwrap()]);
    assert!(read(&dir, "megatron_args.sh").contains("--context-parallel-size 2"));
    assert!(read(&dir, "launch.sh").contains("LAUNCHER=\"${LAUNCHER:-megatron}\""));
    assert!(!dir.join("accelerate_fsdp.yaml").exists());
    let _ = std::fs::remove_dir_all(&dir);
}

/// #3: quantized serving on a T4 (no bf16) wrote `vllm serve` without a dtype, so vLLM took the
/// checkpoint's bf16 and refused the GPU; `estimate` said "bf16 KV cache" there. Both engines
/// now get `--dtype float16`, and the estimate runs the KV cache in fp16 with a note.
#[test]
fn quantized_serving_on_t4_runs_in_fp16() {
    let v = common::plan_json(
        "audit-r9",
        &[
            "-m",
            "Qwen2.5-7B",
            "--task",
            "inference",
            "--rate",
            "5",
            "--provider",
            "tencent",
        ],
    );
    let p = &common::plans(&v)[0];
    assert_eq!(p["gpu"]["id"], "t4", "the scenario needs a T4 plan");
    assert_ne!(
        p["serve"]["weights"]["format"], "fp16",
        "and quantized weights"
    );
    let dir = export(
        "t4",
        &[
            "plan",
            "-m",
            "Qwen2.5-7B",
            "--task",
            "inference",
            "--rate",
            "5",
            "--provider",
            "tencent",
        ],
    );
    for f in ["serve-vllm.sh", "serve-sglang.sh"] {
        assert!(read(&dir, f).contains("--dtype float16"), "{f}");
    }
    let _ = std::fs::remove_dir_all(&dir);
    let args = [
        "estimate",
        "-m",
        "Llama-3.1-8B",
        "--task",
        "inference",
        "--gpu",
        "t4",
        "--weights",
        "int8",
    ];
    let en = one_line(&run(&args));
    assert!(
        en.contains("fp16 KV cache") && !en.contains("bf16 KV cache"),
        "{en}"
    );
    let mut zh = args.to_vec();
    zh.extend_from_slice(&["--lang", "zh"]);
    let o = run(&zh);
    let all = format!("{}{}", stdout(&o), stderr(&o));
    assert!(
        all.contains("fp16 KV 缓存") && all.contains("不支持 bf16"),
        "{all}"
    );
}

/// #4: a LoRA plan on a Megatron-Core layout (Qwen3-30B-A3B, PP 2) exported megatron_args.sh for
/// pretrain_gpt.py, which has no LoRA and would train all 30.5B parameters. README.txt lists the
/// task as a setting the megatron launcher does not carry, with the PEFT entry points.
#[test]
fn lora_on_megatron_layouts_names_a_peft_entry_point() {
    let args = [
        "plan",
        "-m",
        "Qwen3-30B-A3B",
        "--task",
        "lora",
        "--tokens",
        "1e8",
    ];
    let dir = temp("moe-lora");
    let _ = std::fs::remove_dir_all(&dir);
    let mut all = args.to_vec();
    all.extend_from_slice(&["--export", dir.to_str().unwrap()]);
    let o = run(&all);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    if !read(&dir, "launch.sh").contains("LAUNCHER:-megatron") {
        panic!(
            "the scenario needs a Megatron-Core layout: {}",
            read(&dir, "launch.sh")
        );
    }
    let readme = read(&dir, "README.txt");
    assert!(
        readme.contains("training.task = lora") && readme.contains("--train_type lora"),
        "{readme}"
    );
    assert!(stderr(&o).contains("training.task"), "{}", stderr(&o));
    let _ = std::fs::remove_dir_all(&dir);
}

/// #5: a pinned TP or EP that cannot divide the model (tp = 3 on Qwen2.5-7B's 28 heads, ep = 3 on
/// Mixtral's 8 experts) answered "no plan keeps training.parallel.tp" with exit 4; `estimate`
/// names the reason. `plan` now refuses the input with exit 2 and the same reason, zh too.
#[test]
fn pinned_degrees_that_cannot_divide_the_model_are_refused() {
    for (name, text, field, why) in [
        (
            "tp3.toml",
            "model = \"Qwen2.5-7B\"\n[training]\ntask = \"lora\"\ntokens = 1e8\n[training.parallel]\ntp = 3\n",
            "training.parallel.tp",
            "attention heads (28)",
        ),
        (
            "ep3.toml",
            "model = \"Mixtral-8x7B\"\n[training]\ntask = \"full_finetune\"\ntokens = 1e8\n[training.parallel]\nep = 3\n",
            "training.parallel.ep",
            "experts (8)",
        ),
    ] {
        let f = workload(name, text);
        let o = run(&["plan", "--workload", f.to_str().unwrap()]);
        assert_eq!(o.status.code(), Some(2), "{name}: {}", stdout(&o));
        let e = stderr(&o).replace("\n  ", " ");
        assert!(e.contains(field) && e.contains(why), "{e}");
        let zh = run(&["plan", "--workload", f.to_str().unwrap(), "--lang", "zh"]);
        assert!(stderr(&zh).contains("整除"), "{}", stderr(&zh));
    }
}

/// #12: a timeline phase with nothing live (ZeRO-3 with optimizer and parameter offload: the
/// optimizer step on the host) read "-0.00" (JSON -0.0): an f64 sum starts at −0.0.
#[test]
fn an_empty_timeline_phase_is_zero_not_negative() {
    let args = [
        "estimate",
        "-m",
        "Llama-3.1-8B",
        "--task",
        "full",
        "--gpu",
        "A100",
        "--gpus-per-node",
        "8",
        "--zero",
        "3",
        "--offload-optimizer",
        "--offload-params",
    ];
    let mut md = args.to_vec();
    md.extend_from_slice(&["--format", "markdown"]);
    let text = stdout(&run(&md));
    assert!(
        text.contains("| optimizer step | 0.00 |") && !text.contains("-0.00"),
        "{text}"
    );
    let mut js = args.to_vec();
    js.extend_from_slice(&["--format", "json"]);
    let v: serde_json::Value = serde_json::from_slice(&run(&js).stdout).unwrap();
    for ph in v["estimate"]["memory"]["timeline"]["phases"]
        .as_array()
        .unwrap()
    {
        let t = ph["total"].as_f64().unwrap();
        assert!(t.is_sign_positive(), "{ph}");
    }
}

/// #7: Qwen3-30B-A3B LoRA listed PP 2 over two single-A100 VMs (8 Gbit/s TCP) as plan 1, with the
/// 2-A100 NVLink box folded under it as "same answer as plan 1". Of near-identical training
/// plans the one on fewer nodes is shown, the other named beside it.
#[test]
fn the_same_answer_on_fewer_nodes_is_the_one_shown() {
    let v = common::plan_json(
        "audit-r9",
        &["-m", "Qwen3-30B-A3B", "--task", "lora", "--tokens", "1e8"],
    );
    let mut folded_multi = 0;
    for p in common::plans(&v) {
        let nodes = p["nodes"].as_u64().unwrap();
        for a in p["also"].as_array().unwrap() {
            let n: u64 = a
                .as_str()
                .unwrap()
                .split(' ')
                .next()
                .unwrap()
                .parse()
                .unwrap();
            assert!(n >= nodes, "{} nodes shown, {a} folded", nodes);
            folded_multi += u64::from(n > nodes);
        }
    }
    assert!(folded_multi > 0, "the scenario folds a multi-node twin");
    let p = &common::plans(&v)[0];
    assert_eq!(p["nodes"], 1, "{}", p["instance"]["id"]);
}

/// #16: zh output with English words: a plan without --tokens said "`training.tokens` 的值
/// (missing) 无效", and the unknown-region warning named providers by id ("（huawei）"). The
/// missing value reads "缺少 `training.tokens`" ("`training.tokens` is missing"), providers by
/// their names.
#[test]
fn zh_names_missing_values_and_providers_in_chinese() {
    let o = run(&["plan", "-m", "Qwen2.5-7B", "--task", "lora", "--lang", "zh"]);
    assert_eq!(o.status.code(), Some(2));
    let e = stderr(&o);
    assert!(
        e.contains("缺少 `training.tokens`") && !e.contains("(missing)"),
        "{e}"
    );
    let en = stderr(&run(&["plan", "-m", "Qwen2.5-7B", "--task", "lora"]));
    assert!(en.contains("`training.tokens` is missing"), "{en}");
    let o = run(&[
        "plan",
        "-m",
        "Qwen2.5-7B",
        "--task",
        "lora",
        "--tokens",
        "1e8",
        "--provider",
        "huawei",
        "--region",
        "cn-southwest-2",
        "--lang",
        "zh",
    ]);
    let w = stderr(&o);
    assert!(w.contains("（华为云）") && !w.contains("huawei）"), "{w}");
}

/// #23: a workload with both `[training]` and `[serve]` planned one job and dropped the other
/// without a word. It now warns which table is planned and which ignored, en and zh.
#[test]
fn a_workload_with_two_jobs_says_which_is_planned() {
    let f = workload(
        "two.toml",
        "model = \"Qwen2.5-7B\"\n[serve]\nrate_rps = 5\n[training]\ntask = \"lora\"\ntokens = 1e8\n",
    );
    let f = f.to_str().unwrap();
    let e = stderr(&run(&["plan", "--workload", f])).replace("\n  ", " ");
    assert!(
        e.contains("plans the `[training]` job and ignores `[serve]`"),
        "{e}"
    );
    let zh = stderr(&run(&[
        "plan",
        "--workload",
        f,
        "--task",
        "inference",
        "--lang",
        "zh",
    ]));
    assert!(zh.contains("只规划 `[serve]` 任务"), "{zh}");
}

/// Audit r9 #13: `--paged-optimizer` on a LoRA/QLoRA estimate was accepted and changed nothing,
/// silently; the run now says the flag is counted for full training only (en and zh), and a full
/// fine-tune says nothing of the kind.
#[test]
fn paged_optimizer_on_peft_says_it_is_not_counted() {
    let base = [
        "estimate",
        "-m",
        "Llama-3.1-8B",
        "--task",
        "qlora",
        "--gpu",
        "A10",
        "--paged-optimizer",
    ];
    // (exit 3 here: the default 8B QLoRA run does not fit an A10; the note comes first.)
    let en = run(&base);
    let err = String::from_utf8_lossy(&en.stderr);
    assert!(
        err.contains("--paged-optimizer is counted for full training only"),
        "{err}"
    );
    let mut zh = base.to_vec();
    zh.extend(["--lang", "zh"]);
    let err = String::from_utf8_lossy(&run(&zh).stderr).to_string();
    assert!(err.contains("只在全参训练中计入"), "{err}");
    let full = [
        "estimate",
        "-m",
        "Llama-3.1-8B",
        "--task",
        "full",
        "--gpu",
        "A100",
        "--paged-optimizer",
    ];
    let err = String::from_utf8_lossy(&run(&full).stderr).to_string();
    assert!(!err.contains("--paged-optimizer is counted"), "{err}");
}

/// Audit r9 #20: a one-node estimate described a link between nodes it does not use ("RDMA
/// (IB/RoCE) 100.0 GB/s between nodes" for one A100); two nodes still name it.
#[test]
fn one_node_estimates_name_no_link_between_nodes() {
    let one = [
        "estimate",
        "-m",
        "Llama-3.1-8B",
        "--task",
        "lora",
        "--gpu",
        "A100",
    ];
    for (lang, between) in [("en", "between nodes"), ("zh", "节点间")] {
        let mut a = one.to_vec();
        a.extend(["--lang", lang]);
        let out = stdout(&run(&a));
        let hw = hardware_paragraph(&out);
        assert!(!hw.contains(between), "{hw}");
        let mut two = a.clone();
        two.extend(["--nodes", "2", "--gpus-per-node", "8"]);
        let out = stdout(&run(&two));
        let hw = hardware_paragraph(&out);
        assert!(hw.contains(between), "{hw}");
    }
}

/// The estimate's hardware sentence, wrapped lines joined up to its layout ("; TP").
fn hardware_paragraph(out: &str) -> String {
    let start = out
        .find("hardware:")
        .or_else(|| out.find("硬件："))
        .unwrap_or_else(|| panic!("no hardware line: {out}"));
    let rest = &out[start..];
    let end = rest.find("TP ").unwrap_or(rest.len());
    rest[..end].replace('\n', " ")
}

/// #22: `estimate -m DeepSeek-V3 --task inference --gpu h20 --gpus-per-node 8 --tp 8` gave 6.0 ms
/// per token at batch 1, ~5× the published single-request rates. Each layer's fixed time now
/// counts its kernels (MLA + MoE: 23 per layer against a dense layer's 10): 8.5 ms. The rest of
/// the gap is unexplained, so below batch 8 (the validated range) the estimate says so, en and zh;
/// at batch 8 it does not.
#[test]
fn mla_moe_decode_at_small_batch_counts_its_kernels_and_says_what_is_not_validated() {
    let args = |batch: &'static str, lang: &'static str| {
        [
            "estimate",
            "-m",
            "DeepSeek-V3",
            "--task",
            "inference",
            "--gpu",
            "h20",
            "--gpus-per-node",
            "8",
            "--tp",
            "8",
            "--batch",
            batch,
            "--lang",
            lang,
            "--format",
            "json",
        ]
    };
    let o = run(&args("1", "en"));
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).expect("json");
    let tpot = v["estimate"]["latency"]["time_per_token"]
        .as_f64()
        .expect("tpot");
    assert!((0.0083..0.0087).contains(&tpot), "{tpot}");
    let e = stderr(&o).replace("\n  ", " ");
    assert!(
        e.contains("MLA + MoE decode at batch 1: validated at batch 8–64 only"),
        "{e}"
    );
    assert!(
        e.contains("30 tokens/s for DeepSeek-V3.2 on 8 × H20"),
        "{e}"
    );
    let z = stderr(&run(&args("1", "zh"))).replace("\n  ", "");
    assert!(z.contains("MLA + MoE 模型在批大小 1 下的解码"), "{z}");
    assert!(!z.contains("validated"), "{z}");
    let at8 = run(&args("8", "en"));
    assert!(at8.status.success(), "{}", stderr(&at8));
    assert!(!stderr(&at8).contains("MLA + MoE"), "{}", stderr(&at8));
}
