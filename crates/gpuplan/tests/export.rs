//! Launch bundles (`plan --export`, `export PLAN.json --to`): every exporter runs on the nine
//! planner scenarios of plan_scenarios.rs and every file it writes is parsed and validated
//! against the real schema or argument list of its target, vendored in tests/schemas/
//! (SOURCES.md there: versions, commits, licences). Snapshots: one multi-node training bundle
//! and one serving bundle, from saved plan documents (tests/fixtures/export/).

mod common;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const SCHEMAS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/schemas");
const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/export");

fn gpuplan(args: &[&str]) -> Output {
    common::run_dated("export-cfg", args)
}

fn scratch(tag: &str) -> PathBuf {
    let d = common::scratch().join(format!("gpuplan-export-{}-{tag}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

fn load_json(name: &str) -> Value {
    let text = std::fs::read_to_string(Path::new(SCHEMAS).join(name)).unwrap();
    serde_json::from_str(&text).unwrap()
}

fn items(name: &str) -> Value {
    load_json(name)["items"].clone()
}

fn strings(v: &Value) -> BTreeSet<String> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap().to_string())
        .collect()
}

/// Kubernetes rejects fields a structural schema does not declare (`kubectl apply`'s default
/// strict field validation) unless the node preserves unknown fields: JSON Schema leaves objects
/// open, so every declared object is closed here the way the API server treats it.
fn close_objects(v: &mut Value) {
    match v {
        Value::Object(m) => {
            let preserve =
                m.get("x-kubernetes-preserve-unknown-fields") == Some(&Value::Bool(true));
            if m.contains_key("properties") && !m.contains_key("additionalProperties") && !preserve
            {
                m.insert("additionalProperties".into(), Value::Bool(false));
            }
            for (_, child) in m.iter_mut() {
                close_objects(child);
            }
        }
        Value::Array(a) => a.iter_mut().for_each(close_objects),
        _ => {}
    }
}

/// The openAPIV3Schema of a CRD's served version.
fn crd_schema(file: &str, version: &str) -> jsonschema::Validator {
    let text = std::fs::read_to_string(Path::new(SCHEMAS).join(file)).unwrap();
    let crd: Value = serde_norway::from_str(&text).unwrap();
    let v = crd["spec"]["versions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|v| v["name"] == version)
        .unwrap_or_else(|| panic!("{file} has no version {version}"));
    let mut schema = v["schema"]["openAPIV3Schema"].clone();
    close_objects(&mut schema);
    jsonschema::validator_for(&schema).unwrap()
}

fn schema(file: &str) -> jsonschema::Validator {
    jsonschema::validator_for(&load_json(file)).unwrap()
}

struct Refs {
    pytorchjob: jsonschema::Validator,
    volcano: jsonschema::Validator,
    skypilot: jsonschema::Validator,
    huawei: jsonschema::Validator,
    k8s: BTreeMap<&'static str, jsonschema::Validator>,
    deepspeed: BTreeMap<String, Vec<String>>,
    accelerate: Value,
    vllm: Value,
    sglang: Value,
    megatron: BTreeSet<String>,
    torchrun: BTreeSet<String>,
    msrun: BTreeSet<String>,
    litgpt: Value,
    alibaba: BTreeSet<String>,
    tencent: Value,
}

impl Refs {
    fn load() -> Refs {
        let ds = items("deepspeed-config-keys.json");
        Refs {
            pytorchjob: crd_schema("kubeflow.org_pytorchjobs.yaml", "v1"),
            volcano: crd_schema("batch.volcano.sh_jobs.yaml", "v1alpha1"),
            skypilot: schema("skypilot-task.schema.json"),
            huawei: schema("huawei-createservers.schema.json"),
            k8s: [
                ("Deployment", "k8s-V1Deployment.schema.json"),
                ("Service", "k8s-V1Service.schema.json"),
                (
                    "HorizontalPodAutoscaler",
                    "k8s-V2HorizontalPodAutoscaler.schema.json",
                ),
            ]
            .into_iter()
            .map(|(k, f)| (k, schema(f)))
            .collect(),
            deepspeed: ds
                .as_object()
                .unwrap()
                .iter()
                .map(|(k, v)| (k.clone(), strings(v).into_iter().collect()))
                .collect(),
            accelerate: items("accelerate-config-keys.json"),
            vllm: items("vllm-serve-args.json"),
            sglang: items("sglang-server-args.json"),
            megatron: strings(&items("megatron-args.json")),
            torchrun: strings(&items("torchrun-args.json")),
            msrun: strings(&items("msrun-args.json")),
            litgpt: items("litgpt-args.json"),
            alibaba: strings(&items("alibaba-runinstances.json")),
            tencent: items("tencent-runinstances.json"),
        }
    }
}

fn errors(v: &jsonschema::Validator, doc: &Value) -> Vec<String> {
    v.iter_errors(doc)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect()
}

fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = vec![];
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(files_under(&p));
        } else {
            out.push(p);
        }
    }
    out.sort();
    out
}

/// Lines of a script with `\`-continuations joined.
fn joined(text: &str) -> Vec<String> {
    text.replace("\\\n", " ")
        .lines()
        .map(str::to_string)
        .collect()
}

/// `--flag value` pairs of one command line (values: the next token unless it is a flag).
fn flag_pairs(line: &str) -> Vec<(String, String)> {
    let tokens: Vec<&str> = line.split_whitespace().collect();
    let mut out = vec![];
    for (i, t) in tokens.iter().enumerate() {
        let t = t.trim_start_matches('(').trim_end_matches(')');
        if let Some(f) = t.strip_prefix("--") {
            let value = tokens
                .get(i + 1)
                .filter(|v| !v.starts_with("--"))
                .map(|v| v.trim_end_matches(')').to_string())
                .unwrap_or_default();
            out.push((format!("--{f}"), value));
        }
    }
    out
}

#[derive(Default)]
struct Seen(BTreeMap<&'static str, usize>);

impl Seen {
    fn hit(&mut self, what: &'static str) {
        *self.0.entry(what).or_default() += 1;
    }
}

/// The provenance line every script and YAML file carries in its header comment.
fn provenance() -> String {
    format!(
        "# Generated by gpuplan {} from plan #",
        env!("CARGO_PKG_VERSION")
    )
}

fn check_file(r: &Refs, path: &Path, rel: &str, seen: &mut Seen) -> Vec<String> {
    let text = std::fs::read_to_string(path).unwrap();
    let mut bad = vec![];
    let header: Vec<&str> = text.lines().take_while(|l| l.starts_with('#')).collect();
    if (rel.ends_with(".sh") || rel.ends_with(".yaml"))
        && !header.iter().any(|l| l.starts_with(&provenance()))
    {
        bad.push(format!(
            "header names no plan and gpuplan version: {header:?}"
        ));
    }
    if rel.ends_with(".json") {
        // JSON holds no comments: README.txt next to it names the plan, the version, the file.
        let readme = std::fs::read_to_string(path.with_file_name("README.txt")).unwrap();
        let first = readme.lines().next().unwrap_or("");
        if first != format!("gpuplan {} launch bundle", env!("CARGO_PKG_VERSION"))
            || !readme.contains(&format!("\n  {rel}\n"))
            || !readme.contains("their provenance is this README")
        {
            bad.push("README.txt does not give this JSON file's provenance".into());
        }
    }
    if rel.ends_with(".sh") {
        let o = Command::new("bash").arg("-n").arg(path).output().unwrap();
        if !o.status.success() {
            bad.push(format!("bash -n: {}", String::from_utf8_lossy(&o.stderr)));
        }
        seen.hit("bash -n");
        assert!(text.starts_with("#!/usr/bin/env bash\n# "), "{rel}: header");
        bad.extend(check_script(r, rel, &text, seen));
    } else if rel.ends_with(".json") {
        let v: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{rel}: {e}"));
        bad.extend(check_deepspeed(r, &v, "", seen));
    } else if rel.ends_with(".yaml") {
        assert!(text.starts_with("# "), "{rel}: header comment");
        for doc in serde_norway::Deserializer::from_str(&text) {
            let v: Value =
                serde::Deserialize::deserialize(doc).unwrap_or_else(|e| panic!("{rel}: {e}"));
            bad.extend(check_yaml(r, rel, &v, seen));
        }
    } else {
        assert_eq!(rel, "README.txt", "unexpected file");
        assert!(text.contains("gpuplan ") && text.contains("plan #"));
    }
    bad
}

fn check_yaml(r: &Refs, rel: &str, v: &Value, seen: &mut Seen) -> Vec<String> {
    let kind = v["kind"].as_str().unwrap_or("");
    match (rel, kind) {
        ("skypilot.yaml", _) => {
            seen.hit("skypilot schema");
            errors(&r.skypilot, v)
        }
        ("accelerate_fsdp.yaml", _) => {
            seen.hit("accelerate keys");
            let top = strings(&r.accelerate["top_level"]);
            let fsdp = strings(&r.accelerate["fsdp_config"]);
            let mut bad: Vec<String> = v
                .as_object()
                .unwrap()
                .keys()
                .filter(|k| !top.contains(*k))
                .map(|k| format!("accelerate: unknown key {k}"))
                .collect();
            for k in v["fsdp_config"].as_object().unwrap().keys() {
                if !fsdp.contains(k) {
                    bad.push(format!("accelerate: unknown fsdp_config key {k}"));
                }
            }
            bad
        }
        ("litgpt.yaml", _) => {
            seen.hit("litgpt config keys");
            // The subcommand the file is for (launch.sh runs it: checked there).
            let command = if v.get("model_name").is_some() {
                "pretrain"
            } else if v.get("lora_r").is_some() {
                "finetune_lora"
            } else {
                "finetune_full"
            };
            let keys = strings(&r.litgpt["commands"][command]);
            let train = strings(&r.litgpt["train"]);
            let mut bad: Vec<String> = v
                .as_object()
                .unwrap()
                .keys()
                .filter(|k| !keys.contains(*k))
                .map(|k| format!("litgpt {command}: unknown key {k}"))
                .collect();
            for k in v["train"].as_object().unwrap().keys() {
                if !train.contains(k) {
                    bad.push(format!("litgpt: unknown train key {k}"));
                }
            }
            // The finetune scripts reject these TrainArgs (validate_args) and need epochs.
            if command != "pretrain" {
                for k in [
                    "max_tokens",
                    "max_norm",
                    "tie_embeddings",
                    "lr_warmup_fraction",
                ] {
                    if v["train"].get(k).is_some() {
                        bad.push(format!(
                            "litgpt {command}: {k} is rejected by validate_args"
                        ));
                    }
                }
                if v["train"].get("epochs").is_none() {
                    bad.push(format!("litgpt {command}: train.epochs missing"));
                }
            }
            if let Some(q) = v.get("quantize").and_then(Value::as_str) {
                if !strings(&r.litgpt["quantize"]).contains(q) {
                    bad.push(format!("litgpt: unknown quantize {q}"));
                }
            }
            bad
        }
        (_, "PyTorchJob") => {
            seen.hit("PyTorchJob CRD");
            errors(&r.pytorchjob, v)
        }
        (_, "Job") => {
            seen.hit("Volcano Job CRD");
            errors(&r.volcano, v)
        }
        (_, k) if r.k8s.contains_key(k) => {
            seen.hit("k8s core schemas");
            errors(&r.k8s[k], v)
        }
        _ => vec![format!("{rel}: no schema for kind {kind:?}")],
    }
}

fn type_ok(t: &str, v: &Value) -> bool {
    match t {
        "integer" => v.is_u64() || v.is_i64(),
        "boolean" => v.is_boolean(),
        "dictionary" => v.is_object(),
        "string" => v.is_string(),
        "float" => v.is_number(),
        _ => true,
    }
}

fn check_deepspeed(r: &Refs, v: &Value, at: &str, seen: &mut Seen) -> Vec<String> {
    seen.hit("deepspeed keys");
    let mut bad = vec![];
    for (k, val) in v.as_object().unwrap() {
        match r.deepspeed.get(k) {
            None => bad.push(format!("deepspeed: undocumented key {at}{k}")),
            Some(types) if !types.is_empty() && !types.iter().any(|t| type_ok(t, val)) => {
                bad.push(format!("deepspeed: {at}{k} = {val} is not {types:?}"))
            }
            _ => {}
        }
        if val.is_object() {
            bad.extend(check_deepspeed(r, val, &format!("{at}{k}."), seen));
        }
    }
    bad
}

fn check_engine(refs: &Value, engine: &str, line: &str) -> Vec<String> {
    let flags = strings(&refs["flags"]);
    let mut bad = vec![];
    for (f, value) in flag_pairs(line) {
        if !flags.contains(&f) {
            bad.push(format!("{engine}: unknown flag {f}"));
        }
        if let Some(choices) = refs["choices"].get(&f) {
            if !strings(choices).contains(&value) {
                bad.push(format!("{engine}: {f} {value} is not one of {choices}"));
            }
        }
    }
    bad
}

fn check_script(r: &Refs, rel: &str, text: &str, seen: &mut Seen) -> Vec<String> {
    let lines = joined(text);
    let find = |prefix: &str| {
        lines
            .iter()
            .find(|l| l.trim_start().starts_with(prefix))
            .cloned()
    };
    let mut bad = vec![];
    match rel {
        "serve-vllm.sh" => {
            seen.hit("vllm args");
            let l = find("exec vllm serve").expect("vllm serve line");
            bad.extend(check_engine(&r.vllm, "vllm", &l));
        }
        "serve-sglang.sh" => {
            seen.hit("sglang args");
            let l = find("exec python -m sglang.launch_server").expect("sglang line");
            bad.extend(check_engine(&r.sglang, "sglang", &l));
        }
        "launch.sh" => {
            seen.hit("torchrun args");
            let l = find("TORCHRUN=(torchrun").expect("torchrun line");
            for (f, _) in flag_pairs(&l) {
                if !r.torchrun.contains(&f) {
                    bad.push(format!("torchrun: unknown flag {f}"));
                }
            }
            // LitGPT plans run LitGPT's CLI on their litgpt.yaml by default.
            if let Some(l) = find("litgpt) exec") {
                seen.hit("litgpt launch");
                let cmds = r.litgpt["commands"].as_object().unwrap();
                if !cmds
                    .keys()
                    .any(|c| l.contains(&format!(" {c} --config \"$HERE/litgpt.yaml\"")))
                {
                    bad.push(format!("litgpt: no known subcommand on its config in {l}"));
                }
                if find("LAUNCHER=\"${LAUNCHER:-litgpt}\"").is_none() {
                    bad.push("litgpt plans must default to LAUNCHER=litgpt".into());
                }
            }
            // msrun (MindSpore) is offered on Ascend plans only, and is their default there.
            if let Some(l) = find("exec msrun") {
                seen.hit("msrun args");
                for (f, _) in flag_pairs(&l) {
                    if !r.msrun.contains(&f) {
                        bad.push(format!("msrun: unknown flag {f}"));
                    }
                }
            }
            // The header names the chips: "× N NPUs (torch_npu …)" on Ascend.
            if find("exec msrun").is_some() != text.contains(" NPUs (torch_npu") {
                bad.push("msrun must be offered exactly on Ascend plans".into());
            }
            let launch = strings(&r.accelerate["launch_flags"]);
            let l = find("exec accelerate launch").expect("accelerate line");
            for (f, _) in flag_pairs(&l) {
                if !launch.contains(&f) {
                    bad.push(format!("accelerate launch: unknown flag {f}"));
                }
            }
        }
        "megatron_args.sh" => {
            seen.hit("megatron args");
            let start = text.find("MEGATRON_ARGS=(").unwrap();
            let block = &text[start..text[start..].find("\n)").unwrap() + start];
            for (f, _) in flag_pairs(block) {
                if !r.megatron.contains(&f) {
                    bad.push(format!("megatron: unknown flag {f}"));
                }
            }
        }
        "cloud/create-instances.sh" => bad.extend(check_cloud(r, text, &lines, seen)),
        _ => {}
    }
    bad
}

/// The command's flags: its own line plus the optional-flag arrays (`NAME=(--Flag …)`).
fn command_flags(lines: &[String], cmd: &str) -> Vec<(String, String)> {
    let mut out = vec![];
    for l in lines {
        let t = l.trim_start();
        let optional = t.contains("=(--");
        if t.starts_with(cmd) || optional {
            let from = if optional {
                t.find("=(").unwrap() + 2
            } else {
                cmd.len()
            };
            out.extend(flag_pairs(&t[from..]));
        }
    }
    out
}

fn check_cloud(r: &Refs, text: &str, lines: &[String], seen: &mut Seen) -> Vec<String> {
    let mut bad = vec![];
    if text.contains("aliyun ecs RunInstances") {
        seen.hit("alibaba RunInstances");
        for (f, _) in command_flags(lines, "aliyun ecs RunInstances") {
            if !r.alibaba.contains(f.trim_start_matches("--")) {
                bad.push(format!("aliyun: RunInstances has no parameter {f}"));
            }
        }
        assert!(text.contains("--DryRun \"${DRY_RUN:-true}\""));
    } else if text.contains("tccli cvm RunInstances") {
        seen.hit("tencent RunInstances");
        bad.extend(check_tencent(r, lines));
        assert!(text.contains("--DryRun \"${DRY_RUN:-true}\""));
    } else if text.contains("hcloud ECS CreateServers") {
        seen.hit("huawei CreateServers");
        let body = huawei_body(&command_flags(lines, "hcloud ECS CreateServers"));
        bad.extend(errors(&r.huawei, &body));
        assert_eq!(body["dry_run"], true, "dry run by default");
    } else {
        assert!(text.contains("ModelArts"), "{text}");
    }
    bad
}

fn check_tencent(r: &Refs, lines: &[String]) -> Vec<String> {
    let request = strings(&r.tencent["RunInstancesRequest"]);
    let model_of = |flag: &str| match flag {
        "--InstanceMarketOptions" => "InstanceMarketOptionsRequest".to_string(),
        f => f.trim_start_matches("--").to_string(),
    };
    // JSON objects built with printf: VAR=$(printf '{...}' …)
    let mut objects = BTreeMap::new();
    for l in lines {
        if let Some((var, rest)) = l.split_once("=$(printf '") {
            let json = rest.split('\'').next().unwrap().replace("%s", "1");
            objects.insert(
                format!("\"${var}\""),
                serde_json::from_str::<Value>(&json).unwrap(),
            );
        }
    }
    let mut bad = vec![];
    for (f, value) in command_flags(lines, "tccli cvm RunInstances") {
        if f == "--region" {
            continue; // tccli's common parameter
        }
        if !request.contains(f.trim_start_matches("--")) {
            bad.push(format!("tccli: RunInstances has no parameter {f}"));
        }
        if let Some(obj) = objects.get(&value) {
            let fields = strings(&r.tencent[model_of(&f)]);
            for k in obj.as_object().unwrap().keys() {
                if !fields.contains(k) {
                    bad.push(format!("tccli: {f} has no field {k}"));
                }
            }
        }
    }
    bad
}

/// The CreateServers request body the hcloud flags describe (`--server.nics.1.subnet_id=…`).
fn huawei_body(flags: &[(String, String)]) -> Value {
    let mut body = serde_json::json!({});
    for (flag, _) in flags {
        let (path, raw) = flag.trim_start_matches("--").split_once('=').unwrap();
        if path == "cli-region" || path == "project_id" {
            continue; // CLI option and URI parameter, not body fields
        }
        let value = if raw.contains("DRY_RUN") || raw == "true" {
            Value::Bool(true)
        } else if let Ok(n) = raw.parse::<u64>() {
            Value::from(n)
        } else {
            Value::from(raw.trim_matches('"').replace('$', "v"))
        };
        let mut node = &mut body;
        let parts: Vec<&str> = path.split('.').collect();
        for (i, part) in parts.iter().enumerate() {
            let last = i + 1 == parts.len();
            let next_is_index = parts.get(i + 1).is_some_and(|p| p.parse::<usize>().is_ok());
            node = if let Ok(idx) = part.parse::<usize>() {
                let arr = node.as_array_mut().unwrap();
                while arr.len() < idx {
                    arr.push(serde_json::json!({}));
                }
                &mut arr[idx - 1]
            } else {
                let obj = node.as_object_mut().unwrap();
                let empty = if next_is_index {
                    Value::Array(vec![])
                } else {
                    serde_json::json!({})
                };
                obj.entry(part.to_string()).or_insert(empty)
            };
            if last {
                *node = value.clone();
            }
        }
    }
    body
}

#[test]
fn every_exporter_on_the_nine_scenarios_writes_files_that_validate() {
    let r = Refs::load();
    let mut seen = Seen::default();
    let mut failures = vec![];
    for (name, args) in common::SCENARIOS {
        let dir = scratch(name);
        let mut a = vec!["plan", "--export", dir.to_str().unwrap()];
        a.extend_from_slice(args);
        let o = gpuplan(&a);
        if *name == "s9" {
            assert_eq!(o.status.code(), Some(4));
            assert!(!dir.exists(), "no plan, nothing written");
            assert!(String::from_utf8_lossy(&o.stderr).contains("nothing was exported"));
            continue;
        }
        assert_eq!(
            o.status.code(),
            Some(0),
            "{name}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        let files = files_under(&dir);
        let rels: Vec<String> = files
            .iter()
            .map(|f| f.strip_prefix(&dir).unwrap().to_string_lossy().to_string())
            .collect();
        for must in ["README.txt", "skypilot.yaml", "cloud/create-instances.sh"] {
            assert!(
                rels.iter().any(|r| r == must),
                "{name}: {must} missing in {rels:?}"
            );
        }
        for (f, rel) in files.iter().zip(&rels) {
            for b in check_file(&r, f, rel, &mut seen) {
                failures.push(format!("{name} {rel}: {b}"));
            }
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    for what in [
        "bash -n",
        "skypilot schema",
        "accelerate keys",
        "PyTorchJob CRD",
        "Volcano Job CRD",
        "k8s core schemas",
        "deepspeed keys",
        "vllm args",
        "sglang args",
        "torchrun args",
        "msrun args",
        "alibaba RunInstances",
    ] {
        assert!(
            seen.0.contains_key(what),
            "no scenario exercised {what}: {:?}",
            seen.0
        );
    }
}

/// Each provider's command, and model parallelism (Megatron), on plans the nine scenarios do
/// not reach with their top plan.
#[test]
fn every_provider_command_and_megatron_args_validate() {
    let r = Refs::load();
    let mut seen = Seen::default();
    let mut failures = vec![];
    let cases: &[(&str, &[&str])] = &[
        (
            "tencent",
            &[
                "-m",
                "Qwen2.5-7B",
                "--task",
                "lora",
                "--tokens",
                "1e8",
                "--provider",
                "tencent",
            ],
        ),
        (
            "huawei",
            &[
                "-m",
                "Qwen2.5-7B",
                "--task",
                "lora",
                "--tokens",
                "1e8",
                "--provider",
                "huawei",
            ],
        ),
        (
            "litgpt",
            &[
                "-m",
                "Llama-3.1-8B",
                "--task",
                "qlora",
                "--profile",
                "litgpt",
                "--tokens",
                "1e8",
            ],
        ),
        (
            "litgpt-full-multinode",
            &[
                "-m",
                "Llama-3.1-8B",
                "--task",
                "full",
                "--profile",
                "litgpt",
                "--tokens",
                "1e9",
                "--deadline",
                "5h",
            ],
        ),
        // LoRA on a fused q/k/v module: the plan's setup carries the estimator's fused marker,
        // which the bundle leaves out (export refused the plan before).
        (
            "gpt2-c_attn-lora",
            &[
                "-m",
                "GPT-2",
                "--task",
                "lora",
                "--lora-targets",
                "c_attn",
                "--tokens",
                "1e8",
            ],
        ),
        (
            "megatron",
            &[
                "-m",
                "Mixtral-8x7B",
                "--task",
                "pretrain",
                "--tokens",
                "1e11",
                "--seq-len",
                "4096",
            ],
        ),
    ];
    for (name, args) in cases {
        let dir = scratch(name);
        let mut a = vec!["plan", "--export", dir.to_str().unwrap()];
        a.extend_from_slice(args);
        let o = gpuplan(&a);
        assert_eq!(
            o.status.code(),
            Some(0),
            "{name}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        for f in files_under(&dir) {
            let rel = f.strip_prefix(&dir).unwrap().to_string_lossy().to_string();
            for b in check_file(&r, &f, &rel, &mut seen) {
                failures.push(format!("{name} {rel}: {b}"));
            }
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    for what in [
        "tencent RunInstances",
        "huawei CreateServers",
        "megatron args",
        "litgpt config keys",
        "litgpt launch",
    ] {
        assert!(
            seen.0.contains_key(what),
            "not exercised: {what}: {:?}",
            seen.0
        );
    }
}

fn bundle_text(dir: &Path) -> String {
    files_under(dir)
        .iter()
        .map(|f| {
            format!(
                "==> {} <==\n{}",
                f.strip_prefix(dir).unwrap().display(),
                std::fs::read_to_string(f).unwrap()
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn snapshot_multinode_training_and_serving_bundles() {
    for (name, fixture) in [
        ("train-multinode", "plan-train-multinode.json"),
        ("serve", "plan-serve.json"),
    ] {
        let dir = scratch(name);
        let plan = Path::new(FIXTURES).join(fixture);
        let o = gpuplan(&[
            "export",
            plan.to_str().unwrap(),
            "--to",
            dir.to_str().unwrap(),
        ]);
        assert_eq!(
            o.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&o.stderr)
        );
        insta::assert_snapshot!(format!("bundle-{name}"), bundle_text(&dir));
        let _ = std::fs::remove_dir_all(&dir);
    }
}

#[test]
fn existing_files_are_kept_unless_force_and_pick_and_schema_are_checked() {
    let dir = scratch("force");
    let plan = Path::new(FIXTURES).join("plan-train-multinode.json");
    let p = plan.to_str().unwrap();
    let d = dir.to_str().unwrap();
    assert_eq!(gpuplan(&["export", p, "--to", d]).status.code(), Some(0));
    std::fs::write(dir.join("launch.sh"), "mine\n").unwrap();
    let o = gpuplan(&["export", p, "--to", d]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("--force") && err.contains("launch.sh"),
        "{err}"
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("launch.sh")).unwrap(),
        "mine\n"
    );
    assert_eq!(
        gpuplan(&["export", p, "--to", d, "--force"]).status.code(),
        Some(0)
    );
    assert_ne!(
        std::fs::read_to_string(dir.join("launch.sh")).unwrap(),
        "mine\n"
    );
    let left: Vec<_> = files_under(&dir)
        .into_iter()
        .filter(|f| f.to_string_lossy().contains(".tmp-"))
        .collect();
    assert!(left.is_empty(), "temporary files left: {left:?}");

    let o = gpuplan(&["export", p, "--to", d, "--force", "--pick", "2"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("--pick 2"));

    let mut doc: Value = serde_json::from_str(&std::fs::read_to_string(&plan).unwrap()).unwrap();
    doc["schema_version"] = Value::from(99);
    let other = dir.join("v99.json");
    std::fs::write(&other, doc.to_string()).unwrap();
    let o = gpuplan(&["export", other.to_str().unwrap(), "--to", d, "--force"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("schema_version 99"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn hostile_plan_strings_are_refused_not_written_into_scripts() {
    let dir = scratch("hostile");
    std::fs::create_dir_all(&dir).unwrap();
    let plan = Path::new(FIXTURES).join("plan-train-multinode.json");
    let mut doc: Value = serde_json::from_str(&std::fs::read_to_string(&plan).unwrap()).unwrap();
    doc["outcome"]["plans"][0]["instance"]["id"] = Value::from("x\"; rm -rf ~; echo \"");
    let bad = dir.join("bad.json");
    std::fs::write(&bad, doc.to_string()).unwrap();
    let out = dir.join("out");
    let o = gpuplan(&[
        "export",
        bad.to_str().unwrap(),
        "--to",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("instance.id"));
    assert!(!out.exists());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn placeholders_stop_the_scripts_until_set() {
    let dir = scratch("placeholders");
    let plan = Path::new(FIXTURES).join("plan-train-multinode.json");
    let d = dir.to_str().unwrap();
    assert_eq!(
        gpuplan(&["export", plan.to_str().unwrap(), "--to", d])
            .status
            .code(),
        Some(0)
    );
    // The cloud command needs a zone and an image: without them it stops, naming the variable.
    let o = Command::new("bash")
        .arg(dir.join("cloud/create-instances.sh"))
        .env_remove("ZONE_ID")
        .output()
        .unwrap();
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("ZONE_ID"));
    let o = Command::new("bash")
        .arg(dir.join("launch.sh"))
        .env_remove("TRAIN_SCRIPT")
        .output()
        .unwrap();
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("TRAIN_SCRIPT"));
    let _ = std::fs::remove_dir_all(&dir);
}

/// README.md's "From plan to running job": the five commands of its `sh` block, run as written
/// in a scratch directory, with `gpuplan` this build and stand-ins for `aliyun` and `torchrun`
/// that record their arguments. The README cannot drift from what the commands do.
#[cfg(unix)]
#[test]
fn readme_five_commands_go_from_plan_to_running_job() {
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../README.md")).unwrap();
    let section = readme
        .split("### From plan to running job")
        .nth(1)
        .expect("README section");
    let block = section
        .split("```sh\n")
        .nth(1)
        .and_then(|b| b.split("```").next())
        .expect("sh block");
    let commands: Vec<&str> = block.lines().filter(|l| !l.trim().is_empty()).collect();
    assert_eq!(commands.len(), 5, "{commands:?}");

    let dir = scratch("five");
    let bin = dir.join("fakebin");
    std::fs::create_dir_all(&bin).unwrap();
    let log = dir.join("calls.log");
    for tool in ["aliyun", "torchrun"] {
        let p = bin.join(tool);
        std::fs::write(
            &p,
            format!(
                "#!/usr/bin/env bash\necho \"{tool} $*\" >> '{}'\n",
                log.display()
            ),
        )
        .unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let gpuplan_dir = Path::new(env!("CARGO_BIN_EXE_gpuplan")).parent().unwrap();
    let path = format!(
        "{}:{}:{}",
        bin.display(),
        gpuplan_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let cfg = dir.join("cfg");
    let mut calls = vec![];
    for (i, c) in commands.iter().enumerate() {
        let o = Command::new("bash")
            .arg("-c")
            .arg(c)
            .current_dir(&dir)
            .env("PATH", &path)
            .env("GPUPLAN_TODAY", common::TODAY)
            .env("GPUPLAN_CONFIG_DIR", &cfg)
            .env_remove("DRY_RUN")
            .env_remove("NODE_RANK")
            .env_remove("MASTER_ADDR")
            .output()
            .unwrap();
        assert!(
            o.status.success(),
            "command {} failed: {c}\n{}",
            i + 1,
            String::from_utf8_lossy(&o.stderr)
        );
        calls.push(std::fs::read_to_string(&log).unwrap_or_default());
    }
    let plan: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("plan.json")).unwrap()).unwrap();
    let top = &plan["outcome"]["plans"][0];
    let (nodes, gpn) = (
        top["nodes"].as_u64().unwrap(),
        top["cluster"]["gpus_per_node"].as_u64().unwrap(),
    );
    let instance = top["instance"]["id"].as_str().unwrap();
    assert_eq!(nodes, 1, "the README's commands are for a one-node plan");
    assert!(dir.join("bundle/README.txt").exists());
    let lines: Vec<&str> = calls[4].lines().collect();
    assert_eq!(lines.len(), 3, "{lines:?}");
    for (line, dry) in [(lines[0], "true"), (lines[1], "false")] {
        assert!(line.starts_with("aliyun ecs RunInstances "), "{line}");
        assert!(
            line.contains(&format!("--InstanceType {instance} ")),
            "{line}"
        );
        assert!(line.contains(&format!("--Amount {nodes} ")), "{line}");
        assert!(line.contains("--ZoneId cn-shanghai-l "), "{line}");
        assert!(line.ends_with(&format!("--DryRun {dry}")), "{line}");
    }
    let t = lines[2];
    assert!(t.starts_with("torchrun "), "{t}");
    assert!(
        t.contains(&format!(
            "--nnodes {nodes} --nproc-per-node {gpn} --node-rank 0"
        )),
        "{t}"
    );
    assert!(
        t.contains(" train.py --deepspeed ") && t.ends_with("bundle/ds_config.json"),
        "{t}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Audit r5: the Megatron bundle runs the schedule and overlaps the plan was timed with. A 70B
/// Megatron plan (TP8 PP4×v2, overlaps switched on by the search) exported
/// `--pipeline-model-parallel-size 4` alone: Megatron-LM then runs the non-interleaved
/// schedule, twice the bubble the plan counted, with every overlap off.
#[test]
fn megatron_args_carry_the_planned_schedule_and_overlaps() {
    let args = [
        "-m",
        "Llama-3.1-70B",
        "--task",
        "full",
        "--tokens",
        "1e9",
        "--profile",
        "megatron",
    ];
    let mut a = vec!["plan", "--format", "json", "--top", "1"];
    a.extend_from_slice(&args);
    let o = gpuplan(&a);
    let doc: Value = serde_json::from_slice(&o.stdout).unwrap();
    let par = &doc["outcome"]["plans"][0]["train"]["setup"]["parallel"];
    let vp = par["virtual_stages"].as_u64().unwrap();
    assert!(vp > 1, "the case must plan the interleaved schedule: {par}");
    let dir = scratch("megatron-vp");
    let mut a = vec!["plan", "--pick", "1", "--export", dir.to_str().unwrap()];
    a.extend_from_slice(&args);
    assert_eq!(gpuplan(&a).status.code(), Some(0));
    let text = std::fs::read_to_string(dir.join("megatron_args.sh")).unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    assert!(
        text.contains(&format!("--num-virtual-stages-per-pipeline-rank {vp}")),
        "{text}"
    );
    for (key, flag) in [
        ("overlap_grad_reduce", "--overlap-grad-reduce"),
        ("tp_comm_overlap", "--tp-comm-overlap"),
    ] {
        assert_eq!(
            text.contains(flag),
            par[key].as_bool() == Some(true),
            "{key} = {} but the args read:\n{text}",
            par[key]
        );
    }
    // The distributed optimizer is off (ZeRO-0): Megatron-LM asserts it under
    // --overlap-param-gather, so the flag stays out although the plan proposes the overlap.
    assert_eq!(par["zero"].as_u64(), Some(0), "{par}");
    assert!(!text.contains("--overlap-param-gather"), "{text}");
}

/// A subscription period the provider's API refuses (Alibaba RunInstances takes 1–9, 12, 24, …
/// months; data/catalog/periods.toml) is refused with exit 2 naming `chosen.months`, not written
/// into `--Period`; an accepted one is written as it is.
#[test]
fn a_refused_subscription_period_is_not_written() {
    let dir = scratch("period");
    std::fs::create_dir_all(&dir).unwrap();
    let plan = Path::new(FIXTURES).join("plan-train-multinode.json");
    let mut doc: Value = serde_json::from_str(&std::fs::read_to_string(&plan).unwrap()).unwrap();
    assert_eq!(doc["outcome"]["plans"][0]["chosen"]["billing"], "monthly");
    for (months, code) in [(11, 2), (12, 0)] {
        doc["outcome"]["plans"][0]["chosen"]["months"] = Value::from(months);
        let edited = dir.join(format!("p{months}.json"));
        std::fs::write(&edited, doc.to_string()).unwrap();
        let out = dir.join(format!("out{months}"));
        let o = gpuplan(&[
            "export",
            edited.to_str().unwrap(),
            "--to",
            out.to_str().unwrap(),
        ]);
        assert_eq!(
            o.status.code(),
            Some(code),
            "{}",
            String::from_utf8_lossy(&o.stderr)
        );
        if code == 2 {
            assert!(String::from_utf8_lossy(&o.stderr).contains("chosen.months"));
            assert!(!out.exists());
        } else {
            let cloud = std::fs::read_to_string(out.join("cloud/create-instances.sh")).unwrap();
            assert!(cloud.contains("--Period 12 "), "{cloud}");
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// The MoE dispatcher and all-to-all overlap the plan's step time assumed travel to Megatron-LM:
/// without `--moe-token-dispatcher-type` Megatron runs its default `allgather` dispatcher, which
/// the step time does not model (core_v0.15.0 arguments.py, default 'allgather').
#[test]
fn megatron_args_carry_the_moe_dispatcher_and_overlap() {
    let run = |extra: &str, name: &str| {
        megatron_args_of(
            &format!(
                "kind = \"training\"\nmodel = \"Qwen3-30B-A3B\"\n[training]\ntask = \"pretrain\"\n\
                 framework = \"megatron\"\nseq_len = 4096\ntokens = 1e9\n[training.parallel]\n\
                 ep = 8\nzero = 1\n{extra}"
            ),
            name,
        )
    };
    let plain = run("", "moe-plain");
    assert!(
        plain.contains("--moe-token-dispatcher-type alltoall"),
        "{plain}"
    );
    assert!(
        !plain.contains("--overlap-moe-expert-parallel-comm"),
        "{plain}"
    );
    let deep = run(
        "moe_a2a_overlap = true\nmoe_dispatcher = \"deepep\"\n",
        "moe-deepep",
    );
    for flag in [
        "--moe-token-dispatcher-type flex",
        "--moe-enable-deepep",
        "--overlap-moe-expert-parallel-comm",
        "--delay-wgrad-compute",
    ] {
        assert!(deep.contains(flag), "{flag}: {deep}");
    }
}

/// Issue 9: the FP8 parameters and bf16 main gradients a plan's memory assumed travel to
/// Megatron-LM (`--fp8-param-gather`, `--grad-reduce-in-bf16`); without the keys neither flag
/// (the frameworks' defaults the memory then charges: TE's FP8 weight cache, fp32 gradients).
#[test]
fn megatron_args_carry_fp8_params_and_bf16_grads() {
    let run = |extra: &str, name: &str| {
        megatron_args_of(
            &format!(
                "kind = \"training\"\nmodel = \"Llama-3.1-8B\"\n[training]\ntask = \"pretrain\"\n\
                 precision = \"fp8\"\nframework = \"megatron\"\nseq_len = 4096\ntokens = 1e9\n{extra}\
                 [training.parallel]\nzero = 1\n"
            ),
            name,
        )
    };
    let default = run("", "fp8-default");
    for flag in ["--fp8-param-gather", "--grad-reduce-in-bf16"] {
        assert!(!default.contains(flag), "{flag}: {default}");
    }
    let recipe = run("fp8_params = true\nmain_grads = \"bf16\"\n", "fp8-recipe");
    for flag in [
        "--fp8-format hybrid",
        "--fp8-param-gather",
        "--grad-reduce-in-bf16",
    ] {
        assert!(recipe.contains(flag), "{flag}: {recipe}");
    }
}

/// Review r13 #1: `optimizer_dtype = "bf16"` reaches Megatron-LM as the precision-aware
/// optimizer's bf16 moments, and the README says what no Megatron-LM flag carries (bf16
/// master weights: `--main-params-dtype` takes fp32|fp16). Without the key: neither.
#[test]
fn megatron_args_carry_bf16_optimizer_states() {
    let run = |extra: &str, name: &str| {
        bundle_files_of(
            &format!(
                "kind = \"training\"\nmodel = \"Llama-3.1-8B\"\n[training]\ntask = \"pretrain\"\n\
                 precision = \"amp_bf16\"\nframework = \"megatron\"\nseq_len = 4096\ntokens = 1e9\n{extra}\
                 [training.parallel]\nzero = 1\n"
            ),
            name,
            &["megatron_args.sh", "README.txt"],
        )
    };
    let flags = [
        "--use-precision-aware-optimizer",
        "--exp-avg-dtype bf16",
        "--exp-avg-sq-dtype bf16",
    ];
    let default = run("", "optim-fp32");
    for flag in flags {
        assert!(!default[0].contains(flag), "{flag}: {}", default[0]);
    }
    assert!(!default[1].contains("optimizer_dtype"), "{}", default[1]);
    let bf16 = run("optimizer_dtype = \"bf16\"\n", "optim-bf16");
    for flag in flags {
        assert!(bf16[0].contains(flag), "{flag}: {}", bf16[0]);
    }
    assert!(
        bf16[0].contains("--use-distributed-optimizer"),
        "{}",
        bf16[0]
    );
    assert!(!bf16[0].contains("--main-params-dtype"), "{}", bf16[0]);
    assert!(
        bf16[1].contains("training.optimizer_dtype = bf16")
            && bf16[1].contains("optim.dtype: bf16"),
        "{}",
        bf16[1]
    );
}

/// Review r7 #3: the bundle checkpoints at the interval of the billing the plan priced: an
/// on-demand plan at the failures' (`train.failures`), a spot plan at spot's (`train.spot`);
/// the README says which. (It wrote spot's for every plan with a spot price.)
#[test]
fn the_export_checkpoints_at_the_interval_of_the_billing_it_exports() {
    let base = [
        "plan",
        "-m",
        "Llama-3.1-8B",
        "--task",
        "pretrain",
        "--tokens",
        "1e12",
        "--max-nodes",
        "16",
        "--deadline",
        "60d",
        "--profile",
        "megatron",
        "--top",
        "1",
        "--interruptible",
        "--billing",
    ];
    let mut intervals = Vec::new();
    for (billing, key, words) in [
        ("on-demand", "failures", "the failures' interval"),
        ("spot", "spot", "spot's interval"),
    ] {
        let args = [&base[..], &[billing]].concat();
        let o = gpuplan(&[&args[..], &["--format", "json"]].concat());
        let v: Value = serde_json::from_slice(&o.stdout).unwrap();
        let p = &v["outcome"]["plans"][0];
        assert_eq!(p["chosen"]["billing"], billing.replace('-', "_"));
        let secs = p["train"][key]["checkpoint_interval_s"].as_f64().unwrap();
        let step = p["train"]["step"]["step"].as_f64().unwrap();
        let steps = (secs / step).floor().max(1.0) as u64;
        let dir = scratch(&format!("ckpt-{billing}"));
        let d = dir.to_str().unwrap();
        gpuplan(&[&args[..], &["--pick", "1", "--export", d]].concat());
        let text = bundle_text(&dir);
        let _ = std::fs::remove_dir_all(&dir);
        let want = format!("GPUPLAN_CHECKPOINT_STEPS:-{steps}}}");
        assert!(text.contains(&want), "{billing}: {want} not in the bundle");
        assert!(
            text.contains(&format!("--save-interval {steps}")),
            "{billing}"
        );
        let readme = format!("checkpoint every {secs:.0} s = {steps} optimizer steps: {words}");
        assert!(text.contains(&readme), "{billing}: {readme}");
        intervals.push(steps);
    }
    // The two differ here (3,600 s against spot's ≈ 2,545 s): the test tells them apart.
    assert_ne!(intervals[0], intervals[1]);
}

/// Export a Qwen3-30B-A3B pretraining plan (`training` keys `framework`, `[training.parallel]`
/// keys `parallel`) and read back the files named: (README.txt, launch.sh, megatron_args.sh or "").
fn moe_bundle(framework: &str, parallel: &str, name: &str) -> (String, String, String) {
    let (readme, launch, megatron, _) = moe_export(framework, parallel, name);
    (readme, launch, megatron)
}

/// [`moe_bundle`] with the export's stderr.
fn moe_export(framework: &str, parallel: &str, name: &str) -> (String, String, String, String) {
    let dir = scratch(name);
    std::fs::create_dir_all(&dir).unwrap();
    let w = dir.join("w.toml");
    std::fs::write(
        &w,
        format!(
            "kind = \"training\"\nmodel = \"Qwen3-30B-A3B\"\n[training]\ntask = \"pretrain\"\n\
             {framework}seq_len = 4096\ntokens = 1e9\n[training.parallel]\n{parallel}"
        ),
    )
    .unwrap();
    let out = dir.join("bundle");
    let o = gpuplan(&[
        "plan",
        "-w",
        w.to_str().unwrap(),
        "--pick",
        "1",
        "--export",
        out.to_str().unwrap(),
    ]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let read = |f: &str| std::fs::read_to_string(out.join(f)).unwrap_or_default();
    let got = (
        read("README.txt"),
        read("launch.sh"),
        read("megatron_args.sh"),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    );
    let _ = std::fs::remove_dir_all(&dir);
    got
}

/// Round 7 export task #1: the expert tensor-parallel size the plan assumed reaches the
/// launchers. Under the `megatron` profile, and since round 8 under the default one, where EP
/// beside TP is Megatron-Core's layout (plan::train `point_stacks`; DeepSpeed-MoE beside TP is
/// Megatron-DeepSpeed's, not exported), each expert splits over ETP = TP (Megatron-Core's
/// default), written out. (Before round 8 the default profile timed it with whole experts,
/// ETP 1, as DeepSpeed-MoE.)
#[test]
fn the_launchers_carry_the_expert_tensor_parallel_size_the_plan_assumed() {
    for (framework, name) in [
        ("", "etp-default"),
        ("framework = \"megatron\"\n", "etp-megatron"),
    ] {
        let (readme, launch, megatron) = moe_bundle(framework, "tp = 2\nep = 4\nzero = 1\n", name);
        assert!(
            megatron.contains("--tensor-model-parallel-size 2"),
            "{megatron}"
        );
        assert!(
            megatron.contains("--expert-tensor-parallel-size 2\n"),
            "{megatron}"
        );
        assert!(launch.contains("GPUPLAN_EP_SIZE:-4}"), "{launch}");
        assert!(
            launch.contains("LAUNCHER=\"${LAUNCHER:-megatron}\""),
            "{launch}"
        );
        assert!(readme.contains("expert tensor parallelism 2"), "{readme}");
    }
    let (readme, launch, megatron) = moe_bundle(
        "framework = \"megatron\"\n",
        "tp = 2\nep = 4\nzero = 1\n",
        "etp-megatron",
    );
    assert!(
        megatron.contains("--expert-tensor-parallel-size 2\n"),
        "{megatron}"
    );
    assert!(launch.contains("GPUPLAN_EXPERT_TP_SIZE:-2}"), "{launch}");
    assert!(readme.contains("expert tensor parallelism 2"), "{readme}");
}

/// `gpuplan --lang LANG plan` of Qwen3-30B-A3B pretraining with `parallel` pinned, and `args`.
fn moe_plan(lang: &str, parallel: &str, args: &[&str], name: &str) -> String {
    let dir = scratch(name);
    std::fs::create_dir_all(&dir).unwrap();
    let w = dir.join("w.toml");
    std::fs::write(
        &w,
        format!(
            "kind = \"training\"\nmodel = \"Qwen3-30B-A3B\"\n[training]\ntask = \"pretrain\"\n\
             seq_len = 4096\ntokens = 1e9\n[training.parallel]\n{parallel}"
        ),
    )
    .unwrap();
    let mut a = vec!["--lang", lang, "plan", "-w", w.to_str().unwrap()];
    a.extend_from_slice(args);
    let o = gpuplan(&a);
    let _ = std::fs::remove_dir_all(&dir);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// The EP caveat of the first plan (JSON, English) and the zh table's line holding `head`.
fn ep_caveats(parallel: &str, name: &str) -> (String, String) {
    let json = moe_plan("en", parallel, &["--format", "json"], name);
    let v: Value = serde_json::from_str(&json).unwrap();
    let en = v["outcome"]["plans"][0]["caveats"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .find(|c| c.starts_with("expert parallelism (EP"))
        .unwrap_or_else(|| panic!("{v}"))
        .to_string();
    let table = moe_plan("zh", parallel, &[], name);
    let zh = table
        .lines()
        .find(|l| l.contains("专家并行（EP"))
        .unwrap_or_else(|| panic!("{table}"))
        .to_string();
    (en, zh)
}

/// Round 7 export task #3: the EP caveat names the stack that gpuplan models and exports for the
/// plan (round 8: an eager-profile EP plan is DeepSpeed-MoE's; Megatron-Core's plans carry their
/// own caveat), not torchtitan, which no profile models or exports for MoE.
#[test]
fn the_ep_caveat_names_only_the_stacks_gpuplan_exports() {
    let (en, zh) = ep_caveats("tp = 1\npp = 1\nep = 4\nzero = 2\n", "cav-ep4");
    for c in [&en, &zh] {
        assert!(c.contains("DeepSpeed-MoE"), "{c}");
        assert!(!c.contains("torchtitan"), "{c}");
    }
}

/// Round 7 export task #2: an EP plan with ZeRO-2 (which the planner pairs with EP only for
/// DeepSpeed-MoE, plan::train `point_stacks`) is launched with DeepSpeed, whose MoE runs
/// stage 2, not with Megatron (ZeRO-1 only: more memory than planned); beside TP, where no
/// exported stack runs it, the README and the plan caveat say the bundle cannot reproduce it.
#[test]
fn a_zero2_expert_parallel_plan_is_launched_by_the_stack_that_runs_it() {
    let (readme, launch, megatron) =
        moe_bundle("", "tp = 1\npp = 1\nep = 4\nzero = 2\n", "ep-zero2");
    assert!(
        launch.contains("LAUNCHER=\"${LAUNCHER:-deepspeed}\""),
        "{launch}"
    );
    assert!(
        readme.contains("launch.sh defaults to LAUNCHER=deepspeed"),
        "{readme}"
    );
    assert!(
        megatron.contains("launch.sh defaults to LAUNCHER=deepspeed"),
        "{megatron}"
    );
    let (en, zh) = ep_caveats("tp = 1\npp = 1\nep = 4\nzero = 2\n", "cav-ep-zero2");
    assert!(en.contains("launched with DeepSpeed"), "{en}");
    assert!(zh.contains("用 DeepSpeed 启动"), "{zh}");
    // Beside TP 2: no launcher of the bundle runs it; both say so.
    let par = "tp = 2\npp = 1\nep = 4\nzero = 2\n";
    let (readme, launch, _) = moe_bundle("", par, "ep-zero2-tp");
    assert!(
        launch.contains("LAUNCHER=\"${LAUNCHER:-megatron}\""),
        "{launch}"
    );
    assert!(
        readme.contains("This bundle cannot reproduce the plan"),
        "{readme}"
    );
    let (en, _) = ep_caveats(par, "cav-ep-zero2-tp");
    assert!(en.contains("the export does not write"), "{en}");
    // ZeRO-1: both stacks run it; Megatron-Core's timing wins here, the plan names it and the
    // export launches it with Megatron, nothing added.
    let (readme, launch, _) = moe_bundle("", "tp = 1\npp = 1\nep = 4\nzero = 1\n", "ep-zero1");
    assert!(
        launch.contains("LAUNCHER=\"${LAUNCHER:-megatron}\""),
        "{launch}"
    );
    assert!(
        !readme.contains("ZeRO-2 with expert parallelism"),
        "{readme}"
    );
    let json = moe_plan(
        "en",
        "tp = 1\npp = 1\nep = 4\nzero = 1\n",
        &["--format", "json"],
        "cav-ep-zero1",
    );
    let v: Value = serde_json::from_str(&json).unwrap();
    let top = &v["outcome"]["plans"][0];
    assert_eq!(top["train"]["setup"]["framework"], "megatron", "{top}");
    let caveats = top["caveats"].as_array().unwrap();
    assert!(
        caveats
            .iter()
            .filter_map(Value::as_str)
            .any(|c| c.contains("is Megatron-Core's") && c.contains("LAUNCHER=megatron")),
        "{caveats:?}"
    );
}

/// Round 7 export task #4: the plan settings the default launcher cannot express are listed by
/// key in README.txt and in the export's stderr note, not dropped silently. A ZeRO-2 EP plan
/// (launched with DeepSpeed) timed with InternEvo's per-rank broadcast and synchronized
/// 512M-element buckets and Megatron-Core's DeepEP dispatcher with the all-to-all overlap:
/// DeepSpeed carries none of the five. Under LAUNCHER=megatron (ZeRO-1) the MoE pair is carried.
#[test]
fn settings_the_launcher_does_not_carry_are_listed_by_key() {
    let internevo = "zero1_broadcast = \"per_rank\"\ngrad_bucket_elements = 512000000\n\
                     grad_bucket_sync = true\nmoe_dispatcher = \"deepep\"\nmoe_a2a_overlap = true\n";
    let keys = [
        "parallel.zero1_broadcast",
        "parallel.grad_bucket_elements",
        "parallel.grad_bucket_sync",
        "parallel.moe_a2a_overlap",
        "parallel.moe_dispatcher",
    ];
    let par = format!("tp = 1\npp = 1\nep = 4\nzero = 2\n{internevo}");
    let (readme, launch, _, err) = moe_export("", &par, "not-carried-ds");
    assert!(launch.contains("LAUNCHER:-deepspeed"), "{launch}");
    assert!(
        readme.contains("(LAUNCHER=deepspeed) does not carry"),
        "{readme}"
    );
    for k in keys {
        assert!(readme.contains(&format!("  {k} = ")), "{k}: {readme}");
        assert!(err.contains(k), "{k}: {err}");
    }
    let par = format!("tp = 1\npp = 1\nep = 4\nzero = 1\n{internevo}");
    let (readme, _, megatron, err) = moe_export("", &par, "not-carried-mg");
    assert!(megatron.contains("--moe-enable-deepep"), "{megatron}");
    for (k, listed) in keys.iter().zip([true, true, true, false, false]) {
        assert_eq!(
            readme.contains(&format!("  {k} = ")),
            listed,
            "{k}: {readme}"
        );
        assert_eq!(err.contains(k), listed, "{k}: {err}");
    }
    // A plan without them: no list, no note.
    let (readme, _, _, err) = moe_export("", "tp = 1\npp = 1\nep = 4\nzero = 1\n", "carried");
    assert!(!readme.contains("does not carry"), "{readme}");
    assert!(!err.contains("does not carry"), "{err}");
}

/// Round 8: the default profile's DeepSeek-V3 LoRA plan is Megatron-Core's PP + EP layout with
/// its 61 layers split unevenly; the bundle launches it with Megatron and carries the split
/// (`--decoder-last-pipeline-num-layers`) and the expert sizes the plan assumed.
#[test]
fn a_default_profile_megatron_moe_plan_exports_its_stack_and_uneven_split() {
    let args = [
        "plan",
        "-m",
        "DeepSeek-V3",
        "--task",
        "lora",
        "--tokens",
        "1e8",
    ];
    let o = gpuplan(&[&args[..], &["--format", "json"]].concat());
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    let setup = &v["outcome"]["plans"][0]["train"]["setup"];
    assert_eq!(setup["framework"], "megatron", "{setup}");
    let par = &setup["parallel"];
    let last = par["last_stage_layers"].as_u64().unwrap();
    let dir = scratch("dsv3-lora-megatron");
    let d = dir.to_str().unwrap();
    let o = gpuplan(&[&args[..], &["--pick", "1", "--export", d]].concat());
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let read = |f: &str| std::fs::read_to_string(dir.join(f)).unwrap_or_default();
    let (launch, megatron) = (read("launch.sh"), read("megatron_args.sh"));
    let _ = std::fs::remove_dir_all(&dir);
    assert!(
        launch.contains("LAUNCHER=\"${LAUNCHER:-megatron}\""),
        "{launch}"
    );
    for want in [
        format!("--decoder-last-pipeline-num-layers {last}"),
        format!("--pipeline-model-parallel-size {}", par["pp"]),
        format!("--expert-model-parallel-size {}", par["ep"]),
    ] {
        assert!(megatron.contains(&want), "{want}: {megatron}");
    }
}

/// Audit r17 #1: the loss and weight-gradient paths a `megatron` plan was estimated with reach
/// Megatron-LM, whose own defaults are the unfused loss and the fused accumulation: the plan's
/// default (fused loss) writes `--cross-entropy-loss-fusion`, `cross_entropy_loss_fusion = false`
/// leaves it out, and `gradient_accumulation_fusion = false` writes
/// `--no-gradient-accumulation-fusion`.
#[test]
fn megatron_args_carry_loss_and_wgrad_fusion() {
    let run = |extra: &str, name: &str| {
        megatron_args_of(
            &format!(
                "kind = \"training\"\nmodel = \"Llama-3.1-8B\"\n[training]\ntask = \"pretrain\"\n\
                 precision = \"amp_bf16\"\nframework = \"megatron\"\nseq_len = 4096\ntokens = 1e9\n{extra}\
                 [training.parallel]\nzero = 1\n"
            ),
            name,
        )
    };
    let (loss, wgrad) = (
        "--cross-entropy-loss-fusion",
        "--no-gradient-accumulation-fusion",
    );
    let default = run("", "fusion-default");
    assert!(default.contains(loss), "{default}");
    assert!(!default.contains(wgrad), "{default}");
    let unfused = run(
        "cross_entropy_loss_fusion = false\ngradient_accumulation_fusion = false\n",
        "fusion-off",
    );
    assert!(!unfused.contains(loss), "{unfused}");
    assert!(unfused.contains(wgrad), "{unfused}");
}

/// `plan -w` of `workload` with its first plan exported (in a scratch folder named `name`, removed
/// after): the bundle's megatron_args.sh. The command must succeed.
fn megatron_args_of(workload: &str, name: &str) -> String {
    bundle_files_of(workload, name, &["megatron_args.sh"]).remove(0)
}

/// The named files of the bundle `plan -w <workload> --pick 1 --export` writes.
fn bundle_files_of(workload: &str, name: &str, files: &[&str]) -> Vec<String> {
    let dir = scratch(name);
    std::fs::create_dir_all(&dir).unwrap();
    let w = dir.join("w.toml");
    std::fs::write(&w, workload).unwrap();
    let out = dir.join("bundle");
    let o = gpuplan(&[
        "plan",
        "-w",
        w.to_str().unwrap(),
        "--pick",
        "1",
        "--export",
        out.to_str().unwrap(),
    ]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let texts = files
        .iter()
        .map(|f| std::fs::read_to_string(out.join(f)).unwrap())
        .collect();
    let _ = std::fs::remove_dir_all(&dir);
    texts
}

/// A Llama-2-7B (32 layers) full fine-tune under `framework`, PP 4 with `last` layers on the
/// last stage, `tokens = 1e8`.
fn pp4_workload(framework: &str, last: u64) -> String {
    format!(
        "model = \"Llama-2-7B\"\nkind = \"training\"\n[training]\ntask = \"full_finetune\"\n\
         precision = \"amp_bf16\"\nframework = \"{framework}\"\ntokens = 1e8\n\
         [training.parallel]\npp = 4\nlast_stage_layers = {last}\n"
    )
}

/// Review r15 #4: a non-Megatron plan may state a split Megatron-Core refuses (7 of 32 on the
/// last of 4 stages leaves 25 for 3); megatron_args.sh must not carry it (Megatron-LM would stop
/// at start) and the README must name it with the nearest split Megatron-Core builds (8). A
/// split it builds (8: 24 over 3) is carried as before.
#[test]
fn a_split_megatron_refuses_is_left_out_of_megatron_args_and_named() {
    let files = ["megatron_args.sh", "README.txt"];
    let v = bundle_files_of(&pp4_workload("hugging_face", 7), "split-refused", &files);
    let (megatron, readme) = (&v[0], &v[1]);
    assert!(
        megatron.contains("--pipeline-model-parallel-size 4"),
        "{megatron}"
    );
    assert!(!megatron.contains("pipeline-num-layers"), "{megatron}");
    assert!(
        readme.contains("  parallel.last_stage_layers = 7 (of 32 layers at PP 4"),
        "{readme}"
    );
    assert!(
        readme.contains("(25 of 32)") && readme.contains("is 8"),
        "{readme}"
    );
    let v = bundle_files_of(&pp4_workload("hugging_face", 8), "split-built", &files);
    assert!(
        v[0].contains("--decoder-last-pipeline-num-layers 8"),
        "{}",
        v[0]
    );
    assert!(!v[1].contains("parallel.last_stage_layers"), "{}", v[1]);
}

/// Expert r15: a MoE plan at EP 1 names the dispatcher it was planned with (`alltoall`), not
/// Megatron-LM's `allgather` default; a dense model names none, and EP stays unset at EP 1.
#[test]
fn a_moe_plan_at_ep_1_names_its_dispatcher() {
    let moe = "model = \"Mixtral-8x7B\"\nkind = \"training\"\n[training]\n\
               task = \"full_finetune\"\nprecision = \"amp_bf16\"\nframework = \"megatron\"\n\
               tokens = 1e8\n[training.parallel]\ntp = 8\npp = 1\nep = 1\nzero = 1\n";
    let megatron = megatron_args_of(moe, "moe-ep1");
    assert!(
        megatron.contains("--moe-token-dispatcher-type alltoall"),
        "{megatron}"
    );
    assert!(
        !megatron.contains("--expert-model-parallel-size"),
        "{megatron}"
    );
    let dense = megatron_args_of(&pp4_workload("megatron", 8), "dense-pp4");
    assert!(!dense.contains("--moe-token-dispatcher-type"), "{dense}");
}

/// A saved plan from before `memory.pipeline.layers.total` was written cannot have its stated
/// split checked: a non-Megatron one is left out and named as unchecked.
#[test]
fn a_split_of_an_older_plan_without_the_layer_count_is_left_out() {
    let dir = scratch("split-unchecked");
    std::fs::create_dir_all(&dir).unwrap();
    let w = dir.join("w.toml");
    std::fs::write(&w, pp4_workload("hugging_face", 8)).unwrap();
    let o = gpuplan(&["plan", "-w", w.to_str().unwrap(), "--format", "json"]);
    let mut doc: Value = serde_json::from_slice(&o.stdout).unwrap();
    let layers = &mut doc["outcome"]["plans"][0]["train"]["memory"]["pipeline"]["layers"];
    assert_eq!(layers["total"], 32, "{layers}");
    layers.as_object_mut().unwrap().remove("total");
    let plan = dir.join("plan.json");
    std::fs::write(&plan, doc.to_string()).unwrap();
    let out = dir.join("bundle");
    let o = gpuplan(&[
        "export",
        plan.to_str().unwrap(),
        "--to",
        out.to_str().unwrap(),
    ]);
    let read = |f: &str| std::fs::read_to_string(out.join(f)).unwrap_or_default();
    let (megatron, readme) = (read("megatron_args.sh"), read("README.txt"));
    let _ = std::fs::remove_dir_all(&dir);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(!megatron.contains("pipeline-num-layers"), "{megatron}");
    assert!(
        readme.contains("  parallel.last_stage_layers = 8 (at PP 4: the plan does not record"),
        "{readme}"
    );
}
