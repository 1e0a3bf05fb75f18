//! Audit r21: each test runs the CLI as a user does and asserts the property the finding broke.
//! Findings and inputs: docs/notes/notes-audit-r21.md. A refusal run through
//! `common::assert_refused` is run again in Chinese (no English sentence left).

mod common;

const TAG: &str = "audit-r21";

/// Exit `code` with every phrase of `phrases` present (`!phrase`: absent).
fn refused(args: &[&str], code: i32, phrases: &[&str]) -> std::process::Output {
    common::assert_refused(TAG, args, code, phrases)
}

/// An `estimate` workload serving Llama-3.1-8B under vLLM on `gpu` with `weights = WEIGHTS`.
fn inference_file(name: &str, gpu: &str, weights: &str) -> String {
    let text = format!(
        "kind = \"inference\"\nmodel = \"Llama-3.1-8B\"\n[inference]\nengine = \"vllm\"\n\
         weights = {weights}\n[hardware]\ngpu = \"{gpu}\"\n"
    );
    let p = common::write_temp(TAG, name, &text);
    p.display().to_string()
}

/// #1: a workload file's `weights = "awq"` was refused as "invalid type: string", and a file
/// could not name AWQ at all (`{ format = "int4" }` got GPTQ's floor). The words `--weights`
/// takes now read the same from a file: AWQ keeps its 7.5 floor on a V100, `gptq` and `int4`
/// load there, and any case of the word reads the same.
#[test]
fn a_file_names_awq_as_the_flag_does() {
    for w in ["\"awq\"", "\"AWQ\"", "\" Awq \""] {
        let f = inference_file("awq-v100.toml", "v100", w);
        refused(&["estimate", "-w", &f], 2, &["`weights`", "7.5", "GPTQ"]);
        let f = inference_file("awq-t4.toml", "t4", w);
        let o = common::run(TAG, &["estimate", "-w", &f, "--format", "json"]);
        assert_eq!(o.status.code(), Some(0), "{}", common::stderr(&o));
        assert!(common::stdout(&o).contains("\"group\": 128"));
    }
    for w in [
        "\"gptq\"",
        "\"int4\"",
        "\"INT4-G128\"",
        "{ format = \"int4\", group = 128 }",
    ] {
        let f = inference_file("gptq-v100.toml", "v100", w);
        let o = common::run(TAG, &["estimate", "-w", &f]);
        assert_eq!(o.status.code(), Some(0), "{w}: {}", common::stderr(&o));
    }
    // The flag over the file decides, as for every other key.
    let f = inference_file("awq-flag.toml", "v100", "\"awq\"");
    let o = common::run(TAG, &["estimate", "-w", &f, "--weights", "gptq"]);
    assert_eq!(o.status.code(), Some(0), "{}", common::stderr(&o));
}

/// #1: a word that names no format is refused naming the key and the words it takes (en, zh),
/// never echoing "invalid type: string".
#[test]
fn an_unknown_weight_word_in_a_file_names_the_key_and_the_words() {
    for w in ["\"int4-awq\"", "\"q4_k\"", "\"\""] {
        let f = inference_file("bad-word.toml", "a100", w);
        refused(
            &["estimate", "-w", &f],
            2,
            &["`inference.weights`", "awq, gptq", "fp32", "!invalid type"],
        );
    }
    let text = "model = \"Llama-3.1-8B\"\n[serve]\nrate_rps = 1.0\nweights = [\"int4-awq\"]\n";
    let f = common::write_temp(TAG, "bad-serve.toml", text);
    let f = f.display().to_string();
    refused(
        &["plan", "-w", &f],
        2,
        &["`serve.weights`", "awq, gptq", "!fp32", "!invalid type"],
    );
}

/// #1: `[serve] weights = ["awq"]` plans as `plan --weights awq`: no V100 under vLLM (AWQ loads
/// from 7.5), the note says what is sized; with `"gptq"` beside it the V100 plans.
#[test]
fn a_plan_file_names_awq_as_the_flag_does() {
    let file = |words: &str| {
        let text = format!(
            "model = \"Llama-3.1-8B\"\n[serve]\nengine = \"vllm\"\nrate_rps = 1.0\n\
             weights = {words}\n"
        );
        let p = common::write_temp(TAG, "serve.toml", &text);
        p.display().to_string()
    };
    let f = file("[\"awq\"]");
    refused(
        &["plan", "-w", &f, "--gpu", "v100"],
        4,
        &["loads AWQ under vllm", "7.5", "int4-g128"],
    );
    let f = file("[\"awq\", \"gptq\"]");
    let v = common::plan_json(TAG, &["-w", &f, "--gpu", "v100"]);
    assert!(!common::plans(&v).is_empty(), "{v}");
}

/// #2: TensorRT-LLM on a Pascal GPU: no NVIDIA list names Pascal and no source refuses it; the
/// estimate says so instead of a silent guess, and the no-bf16 note no longer tells a
/// TensorRT-LLM user what vLLM needs (it named vLLM's `--dtype half` under every engine).
#[test]
fn trtllm_on_pascal_says_it_is_unlisted_and_no_note_names_another_engine() {
    let args = common::serving("estimate", ["-m", "Qwen2.5-0.5B"], "p100", "trtllm");
    let o = refused(
        &args,
        0,
        &[
            "lists no Pascal GPU",
            "unverified",
            "--dtype float16",
            "!vLLM needs",
        ],
    );
    assert!(!common::stdout(&o).is_empty());
    let mut zh = vec!["--lang", "zh"];
    zh.extend(args.iter().copied());
    let o = common::run(TAG, &zh);
    let err = common::stderr(&o);
    assert!(err.contains("未列出任何 Pascal GPU"), "{err}");
    assert!(common::english_sentences(&err).is_empty(), "{err}");
    // SGLang switches to float16 itself; vLLM keeps its flag; Volta is listed for TensorRT-LLM.
    let t4 = common::serving("estimate", ["-m", "Qwen2.5-0.5B"], "t4", "sglang");
    refused(&t4, 0, &["SGLang switches to float16", "!--dtype half"]);
    let v100 = common::serving("estimate", ["-m", "Qwen2.5-0.5B"], "v100", "vllm");
    refused(&v100, 0, &["vLLM needs --dtype half", "!Pascal"]);
    let volta = common::serving("estimate", ["-m", "Qwen2.5-0.5B"], "v100", "trtllm");
    refused(&volta, 0, &["!Pascal", "!vLLM needs"]);
}

/// #3: under `--lang zh` a chip's catalog name kept its English qualifier ("1 张 Huawei Ascend
/// 910B (64 GB, variant not stated)", "(unnamed, 72 GB)", "(Atlas 300I Duo, per chip)") in the
/// estimate's hardware line and fit verdict, the plan's top line and `catalog gpus`.
#[test]
fn chip_names_read_in_chinese() {
    let o = common::run_cols(
        TAG,
        "400",
        &[
            "--lang",
            "zh",
            "estimate",
            "-m",
            "Qwen2.5-7B",
            "--gpu",
            "ascend-910b",
            "--task",
            "lora",
            "--tokens",
            "1e8",
        ],
    );
    assert_eq!(o.status.code(), Some(0), "{}", common::stderr(&o));
    let text = common::all_text(&o);
    assert!(text.contains("具体型号未注明"), "{text}");
    assert!(common::english_sentences(&text).is_empty(), "{text}");
    let o = common::run_cols(TAG, "400", &["--lang", "zh", "catalog", "gpus"]);
    let text = common::stdout(&o);
    for en in ["variant not stated", "unnamed", "per chip"] {
        assert!(!text.contains(en), "{en} in:\n{text}");
    }
    // English keeps the catalog's names.
    let o = common::run_cols(TAG, "400", &["catalog", "gpus"]);
    assert!(common::stdout(&o).contains("(64 GB, variant not stated)"));
}
