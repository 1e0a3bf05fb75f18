//! Review r16b (notes-audit-r16 "Not fixed": Megatron-Core's even split): with no first/last stage
//! size stated, Megatron-Core asserts `num_layers % pipeline_model_parallel_size == 0`
//! (transformer_block.py `get_num_layers_to_build`, core_r0.11.0 lines 109-112). Framework megatron
//! now refuses such a pp in estimate, plan (a pinned pp) and the API, naming `parallel.pp`, the stage
//! keys and the sizes that divide; export names it for megatron_args.sh. Other stacks kept ⌈L/pp⌉
//! until audit r17 #4, which refuses it too, naming torchtitan's default split (tests/audit_r17.rs).

mod common;
use common::write_temp;

const TAG: &str = "fix-r16b";

/// Exit `code` with every phrase of `phrases` present (`!phrase`: absent), in English and Chinese.
fn refused(args: &[&str], code: i32, phrases: &[&str]) -> std::process::Output {
    common::assert_refused(TAG, args, code, phrases)
}

/// Llama-3.1-8B (32 layers) pretraining under `framework` at `pp`, with `extra` parallel keys.
fn workload(framework: &str, pp: u64, extra: &str) -> String {
    format!(
        "model = \"Llama-3.1-8B\"\nkind = \"training\"\n[training]\ntask = \"pretrain\"\n\
         precision = \"amp_bf16\"\nframework = \"{framework}\"\nseq_len = 4096\ntokens = 1e9\n\
         [training.parallel]\npp = {pp}\n{extra}"
    )
}

/// `estimate` of the workload `text` on one node of 6 H100s (TP 1 × PP 3 × DP 2).
fn estimate(name: &str, text: &str) -> Vec<String> {
    let w = write_temp(TAG, name, text);
    [
        "estimate",
        "-w",
        w.to_str().unwrap(),
        "--gpu",
        "H100",
        "--gpus-per-node",
        "6",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect()
}

fn args(v: &[String]) -> Vec<&str> {
    v.iter().map(String::as_str).collect()
}

#[test]
fn megatron_refuses_a_pp_that_does_not_divide_the_layers() {
    let e = estimate("pp3.toml", &workload("megatron", 3, ""));
    refused(
        &args(&e),
        2,
        &[
            "`parallel.pp` = 3",
            "32",
            "2, 4, 8, 16, 32",
            "parallel.last_stage_layers = 10",
            "parallel.first_stage_layers",
            "!panicked",
        ],
    );
    // A stated split Megatron-Core builds (10 on the last, 11 on each other stage) is estimated.
    let e = estimate(
        "pp3-last.toml",
        &workload("megatron", 3, "last_stage_layers = 10\n"),
    );
    refused(&args(&e), 0, &["!`parallel.pp`"]);
    // A pp that divides needs nothing stated (PP 2 of 32 layers, DP 3): estimated, not refused
    // (exit 3: 16 layers' weights and AdamW states do not fit 80 GB).
    let e = estimate("pp2.toml", &workload("megatron", 2, ""));
    refused(&args(&e), 3, &["!`parallel.pp`", "TP 1 PP 2 DP 3"]);
}

/// Audit r17 #4: another stack's pp that does not divide the layers is refused as well (it was
/// sized ⌈L/pp⌉ on every stage, 33 layers of 32), naming torchtitan's default split, which then
/// estimates (10 | 11 | 11: `generate_split_points`).
#[test]
fn other_stacks_state_their_split() {
    let e = estimate("hf-pp3.toml", &workload("hugging_face", 3, ""));
    refused(
        &args(&e),
        2,
        &[
            "`parallel.pp` = 3",
            "first_stage_layers = 10",
            "last_stage_layers = 11",
        ],
    );
    let e = estimate(
        "hf-pp3-split.toml",
        &workload(
            "hugging_face",
            3,
            "first_stage_layers = 10\nlast_stage_layers = 11\n",
        ),
    );
    refused(&args(&e), 0, &["!`parallel.pp`"]);
}

#[test]
fn a_pinned_pp_is_refused_by_plan_with_the_reason() {
    let w = write_temp(TAG, "plan-pp3.toml", &workload("megatron", 3, ""));
    refused(
        &["plan", "-w", w.to_str().unwrap(), "--gpu", "H100"],
        2,
        &[
            "`parallel.pp` = 3",
            "parallel.last_stage_layers",
            "!no plan keeps",
        ],
    );
    // With the stage stated the refusal is gone (the search may still find no configuration).
    let w = write_temp(
        TAG,
        "plan-pp3-last.toml",
        &workload("megatron", 3, "last_stage_layers = 10\n"),
    );
    refused(
        &["plan", "-w", w.to_str().unwrap(), "--gpu", "H100"],
        4,
        &["!`parallel.pp` = 3"],
    );
}

#[test]
fn the_api_refuses_it_naming_the_field() {
    let s = common::Server::start();
    let body = r#"{"model": "Llama-3.1-8B", "kind": "training",
        "training": {"task": "pretrain", "framework": "megatron", "parallel": {"pp": 3}},
        "hardware": {"gpu": "H100", "gpus_per_node": 6}}"#;
    let (st, v) = common::post(&format!("{}/api/v1/estimate", s.base), body);
    assert_eq!(st, 400, "{v}");
    assert_eq!(v["error"]["field"], "parallel.pp", "{v}");
    let m = v["error"]["message"].as_str().unwrap();
    assert!(
        m.contains("last_stage_layers") && m.contains("2, 4, 8, 16, 32"),
        "{m}"
    );
    let ok = body.replace(r#""pp": 3"#, r#""pp": 3, "last_stage_layers": 10"#);
    let (st, v) = common::post(&format!("{}/api/v1/estimate", s.base), &ok);
    assert_eq!(st, 200, "{v}");
}

/// A saved plan of another stack at PP 8 on Qwen2.5-3B (36 layers, sized ⌈36/8⌉ = 5 a stage):
/// its megatron_args.sh gets a README note naming the split and the fix, since Megatron-LM would
/// stop at start with no stage sizes. Since audit r17 #4 `plan` asks for the split, so the plan
/// is made with torchtitan's (4 | 5 × 4, 4 × 2 | 4) and saved without it, as a plan from before.
#[test]
fn export_names_an_even_split_megatron_refuses() {
    let dir = common::scratch().join("fix-r16b-export");
    std::fs::create_dir_all(&dir).unwrap();
    let w = dir.join("w.toml");
    std::fs::write(
        &w,
        "model = \"Qwen2.5-3B\"\nkind = \"training\"\n[training]\ntask = \"full_finetune\"\n\
         precision = \"amp_bf16\"\nframework = \"hugging_face\"\ntokens = 1e8\n\
         [training.parallel]\npp = 8\nfirst_stage_layers = 4\nlast_stage_layers = 4\n",
    )
    .unwrap();
    let bin = env!("CARGO_BIN_EXE_gpuplan");
    let o = std::process::Command::new(bin)
        .args(["plan", "-w", w.to_str().unwrap(), "--format", "json"])
        .output()
        .unwrap();
    let mut doc: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let layers = &doc["outcome"]["plans"][0]["train"]["memory"]["pipeline"]["layers"];
    assert_eq!(layers["total"], 36, "{layers}");
    let parallel = &mut doc["outcome"]["plans"][0]["train"]["setup"]["parallel"];
    assert_eq!(parallel["first_stage_layers"], 4, "{parallel}");
    for k in ["first_stage_layers", "last_stage_layers"] {
        parallel.as_object_mut().unwrap().remove(k);
    }
    let saved = dir.join("plan.json");
    std::fs::write(&saved, doc.to_string()).unwrap();
    let out = dir.join("bundle");
    let o = std::process::Command::new(bin)
        .args([
            "export",
            saved.to_str().unwrap(),
            "--to",
            out.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    let readme = std::fs::read_to_string(out.join("README.txt")).unwrap_or_default();
    let _ = std::fs::remove_dir_all(&dir);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(
        readme.contains("--pipeline-model-parallel-size 8 (of 36 layers"),
        "{readme}"
    );
    assert!(
        readme.contains("parallel.last_stage_layers = 1 "),
        "{readme}"
    );
}
