//! Audit r8 (notes/audit-r8.md): each test runs the CLI as a user does and asserts the property
//! the finding broke.

mod common;
use common::{one_line, plans, stdout};
use std::process::{Command, Output};

fn run(args: &[&str]) -> Output {
    common::run("audit-r8", args)
}

fn json(args: &[&str]) -> serde_json::Value {
    let mut a = args.to_vec();
    a.extend_from_slice(&["--format", "json"]);
    serde_json::from_slice(&run(&a).stdout).unwrap()
}

/// The sequences a training plan runs per optimizer step (micro-batch × accumulation × DP).
fn runs(p: &serde_json::Value) -> u64 {
    let t = &p["train"];
    let s = &t["setup"];
    s["micro_batch"].as_u64().unwrap()
        * s["grad_accum"].as_u64().unwrap()
        * t["memory"]["data_parallel"].as_u64().unwrap()
}

fn workload(name: &str, text: &str) -> std::path::PathBuf {
    common::write_temp("audit-r8", name, text)
}

/// #2: "Why not one GPU … ZeRO-2 over 64 GPUs" for TP 8 × PP 4 × DP 2 (and "ZeRO-0 over 64
/// GPUs" for an EP 64 layout): the line names the split the plan uses, with the ZeRO stage over
/// the data-parallel ranks it shards over, in English and Chinese.
#[test]
fn why_not_one_gpu_names_the_split() {
    let f = workload(
        "tp8pp4.toml",
        "model = \"Qwen2.5-72B\"\nkind = \"training\"\n[training]\ntask = \"full_finetune\"\n\
         tokens = 1e9\nseq_len = 4096\n[training.parallel]\ntp = 8\npp = 4\n",
    );
    let f = f.to_str().unwrap();
    let v = json(&["plan", "--workload", f]);
    let p = &plans(&v)[0];
    let (zero, dp) = (
        p["train"]["setup"]["parallel"]["zero"].as_u64().unwrap(),
        p["train"]["memory"]["data_parallel"].as_u64().unwrap(),
    );
    let en = one_line(&run(&["plan", "--workload", f]));
    let line = en
        .split("Why not one GPU")
        .nth(1)
        .expect("why line")
        .to_string();
    assert!(line.contains("split as TP 8 × PP 4"), "{line}");
    if zero > 0 {
        let z = format!("ZeRO-{zero} over {dp} data-parallel ranks");
        assert!(line.contains(&z), "{z}: {line}");
    }
    assert!(!line.contains("GPUs brings"), "{line}");
    let zh = one_line(&run(&["plan", "--workload", f, "--lang", "zh"]));
    assert!(zh.contains("按 TP 8 × PP 4"), "{zh}");
    // A ZeRO-0 layout is never said to be split by ZeRO.
    let ds = one_line(&run(&[
        "plan",
        "-m",
        "DeepSeek-V3",
        "--task",
        "lora",
        "--tokens",
        "1e8",
    ]));
    if let Some(l) = ds.split("Why not one GPU").nth(1) {
        assert!(
            !l.split("per GPU").next().unwrap().contains("ZeRO-0"),
            "{l}"
        );
    }
}

/// #3: a shown plan that runs more sequences a step than the global batch (16 nodes: 128 DP
/// ranks × micro-batch 1 where 64 were asked) showed its halved time with no word. Every such
/// row is named under the table with its batch; the defaults line says the batch asked for.
#[test]
fn rows_with_a_raised_global_batch_are_named() {
    let mut seen = 0;
    for args in [
        &[
            "plan",
            "-m",
            "Qwen2.5-72B",
            "--task",
            "full",
            "--tokens",
            "1e9",
            "--seq-len",
            "4096",
            "--provider",
            "alibaba",
        ][..],
        &[
            "plan",
            "-m",
            "Llama-3.1-70B",
            "--task",
            "full",
            "--tokens",
            "1e9",
            "--provider",
            "alibaba",
        ][..],
        &[
            "plan",
            "-m",
            "Qwen2.5-7B",
            "--task",
            "lora",
            "--tokens",
            "1e8",
        ][..],
    ] {
        let v = json(args);
        let want: Vec<String> = plans(&v)
            .iter()
            .take(5)
            .enumerate()
            .filter(|(_, p)| runs(p) > 64)
            .map(|(i, p)| format!("plan {} ({} sequences a step)", i + 1, runs(p)))
            .collect();
        let text = one_line(&run(args));
        for w in &want {
            assert!(text.contains(w), "{w}: {text}");
        }
        assert_eq!(
            text.matches(" sequences a step)").count(),
            want.len(),
            "{text}"
        );
        assert!(
            text.contains("global batch 64 sequences (--global-batch)"),
            "{text}"
        );
        seen += want.len();
    }
    assert!(seen > 0, "the audited scenarios have a raised row");
    let zh = one_line(&run(&[
        "plan",
        "-m",
        "Qwen2.5-72B",
        "--task",
        "full",
        "--tokens",
        "1e9",
        "--seq-len",
        "4096",
        "--provider",
        "alibaba",
        "--lang",
        "zh",
    ]));
    assert!(zh.contains("条序列）"), "{zh}");
}

/// #4: `"${DEPLOYMENT_SET[@]}"` of an empty array under `set -u` stops bash < 4.4 (macOS's
/// /bin/bash 3.2) with "unbound variable" when the optional id is not set. Every array on the
/// provider command line expands as `${A[@]+"${A[@]}"}`; the guarded form runs under `set -u`.
#[test]
fn cloud_scripts_expand_optional_arrays_portably() {
    for (provider, model) in [
        ("alibaba", "Qwen2.5-7B"),
        ("tencent", "Qwen2.5-7B"),
        ("huawei", "Qwen2.5-7B"),
    ] {
        let dir = common::scratch().join(format!(
            "gpuplan-audit-r8-{}-export-{provider}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        let o = run(&[
            "plan",
            "-m",
            model,
            "--task",
            "lora",
            "--tokens",
            "1e8",
            "--provider",
            provider,
            "--export",
            dir.to_str().unwrap(),
        ]);
        assert_eq!(
            o.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&o.stderr)
        );
        let text = std::fs::read_to_string(dir.join("cloud/create-instances.sh")).unwrap();
        let arrays: Vec<&str> = text.lines().filter(|l| l.contains("[@]")).collect();
        assert!(!arrays.is_empty(), "{text}");
        for l in arrays {
            let name = l.trim().trim_start_matches("${").split('[').next().unwrap();
            let guarded = format!("${{{name}[@]+\"${{{name}[@]}}\"}}");
            assert!(l.trim().starts_with(&guarded), "{provider}: {l}");
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
    let o = Command::new("bash")
        .args(["-c", "set -u; A=(); set -- ${A[@]+\"${A[@]}\"}; echo $#"])
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&o.stdout).trim(), "0");
}

/// #5 (r7 #17): under `--optimize balanced` the reasons read "cheaper" for one pair and "faster"
/// for the next, though a cheaper plan ranked below. Each reason now states the balanced score
/// difference, √(cost × hours) against the other's, computed here from the JSON.
#[test]
fn balanced_explanations_state_the_score() {
    let args = [
        "plan",
        "-m",
        "Qwen2.5-7B",
        "--task",
        "lora",
        "--tokens",
        "1e8",
        "--optimize",
        "balanced",
    ];
    let v = json(&args);
    let ps = plans(&v);
    let score = |p: &serde_json::Value| {
        (p["chosen"]["cny"].as_f64().unwrap() * p["hours"].as_f64().unwrap()).sqrt()
    };
    let mut a = args.to_vec();
    a.push("--explain");
    let text = one_line(&run(&a));
    let reasons: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with("- ") && l.contains(" beats "))
        .collect();
    assert_eq!(reasons.len(), ps.len().min(5) - 1, "{text}");
    for (k, r) in reasons.iter().enumerate() {
        let pct = ((1.0 - score(&ps[k]) / score(&ps[k + 1])) * 100.0).round();
        if pct >= 1.0 {
            assert!(
                r.contains(&format!(
                    "balanced score (√(cost × time) against the best of each) {pct:.0}% lower"
                )),
                "{pct}: {r}"
            );
        }
    }
    let zh = one_line(&run(&[&a[..], &["--lang", "zh"]].concat()));
    assert!(zh.contains("均衡得分"), "{zh}");
}

/// #6 (r7 #20): monthly-priced variants at the same total and 20–40× the time (15.1 d, 30.0 d
/// for a 17-hour job) stood as choices: the "slower and dearer" note took strictly dearer plans
/// only. Every shown plan slower than one above it at the same total is named.
#[test]
fn slower_plans_at_the_same_total_are_named() {
    let args = [
        "plan",
        "-m",
        "Qwen2.5-32B",
        "--task",
        "lora",
        "--tokens",
        "2e8",
        "--provider",
        "tencent",
    ];
    let v = json(&args);
    let ps: Vec<(f64, Option<f64>)> = plans(&v)
        .iter()
        .take(5)
        .map(|p| (p["hours"].as_f64().unwrap(), p["chosen"]["cny"].as_f64()))
        .collect();
    let mut want = Vec::new();
    for (i, (h, c)) in ps.iter().enumerate() {
        let Some(c) = c else { continue };
        let by = |f: &dyn Fn(f64) -> bool| {
            ps[..i]
                .iter()
                .position(|(qh, qc)| qc.is_some_and(f) && qh < h)
        };
        if by(&|q| q < *c).is_none() {
            if let Some(j) = by(&|q| (q - c).abs() < 0.005) {
                want.push(format!("plan {} (same total as plan {};", i + 1, j + 1));
            }
        }
    }
    assert!(
        !want.is_empty(),
        "the audited scenario has same-total plans: {ps:?}"
    );
    let text = one_line(&run(&args));
    for w in &want {
        assert!(text.contains(w), "{w}: {text}");
    }
    assert_eq!(
        text.matches("(same total as plan").count(),
        want.len(),
        "{text}"
    );
    let zh = one_line(&run(&[&args[..], &["--lang", "zh"]].concat()));
    assert!(zh.contains("总价与方案"), "{zh}");
}

/// #7: `plan --wide` at 80 columns squeezed seven columns to 3 characters (`tim`/`e`). Every
/// header word stays whole on one line of the table, in English and Chinese.
#[test]
fn wide_plan_table_keeps_words_whole_at_80_columns() {
    for (lang, words) in [
        ("en", &["time", "cost", "provider", "bottleneck"][..]),
        ("zh", &["时长", "费用", "瓶颈"][..]),
    ] {
        let o = run(&[
            "plan",
            "-m",
            "Qwen2.5-7B",
            "--task",
            "lora",
            "--tokens",
            "1e8",
            "--wide",
            "--lang",
            lang,
        ]);
        let text = stdout(&o);
        let table: Vec<&str> = text
            .lines()
            .skip_while(|l| !l.starts_with('┌'))
            .take_while(|l| !l.starts_with('└'))
            .collect();
        let header: Vec<&str> = table
            .iter()
            .copied()
            .take_while(|l| !l.starts_with('╞'))
            .collect();
        for w in words {
            assert!(
                header.iter().any(|l| l
                    .split('┆')
                    .any(|c| c.trim().trim_matches('│').trim() == *w)),
                "{w}:\n{}",
                header.join("\n")
            );
        }
        // The parallelism cell keeps `ZeRO-0`/`ZeRO-3` whole.
        assert!(
            table.iter().any(|l| l.contains("ZeRO-")),
            "{}",
            table.join("\n")
        );
    }
}

/// #10: `[serve] weights = ["int5"]` answered "expected internally tagged enum WeightFormat":
/// the error names the table form and the formats, in English and Chinese.
#[test]
fn weight_format_errors_name_the_formats() {
    let f = workload(
        "weights.toml",
        "model = \"Qwen2.5-7B\"\nkind = \"inference\"\n[serve]\nrate_rps = 10\nweights = [\"int5\"]\n",
    );
    let f = f.to_str().unwrap();
    let en = run(&["plan", "--workload", f]);
    assert_eq!(en.status.code(), Some(2));
    let e = String::from_utf8_lossy(&en.stderr).replace("\n  ", " ");
    assert!(
        e.contains("serve.weights")
            && e.contains("format = \"int4\", group = 128")
            && e.contains("fp8"),
        "{e}"
    );
    assert!(
        !e.contains("internally tagged") && !e.contains("WeightFormat"),
        "{e}"
    );
    let zh = run(&["plan", "--workload", f, "--lang", "zh"]);
    let z = String::from_utf8_lossy(&zh.stderr).replace("\n  ", "");
    assert!(z.contains("权重格式表") && !z.contains("expected"), "{z}");
}

/// #11: `--rate 10 --concurrency 10` describe two loads (open and closed); one was used
/// silently. The pair is refused, naming both flags.
#[test]
fn rate_and_concurrency_together_are_refused() {
    let o = run(&[
        "plan",
        "-m",
        "Qwen2.5-7B",
        "--task",
        "inference",
        "--rate",
        "10",
        "--concurrency",
        "10",
    ]);
    assert_eq!(o.status.code(), Some(2));
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(e.contains("--rate") && e.contains("--concurrency"), "{e}");
    // The same in a workload file (and an API body).
    let f = workload(
        "load.toml",
        "model = \"Qwen2.5-7B\"\nkind = \"inference\"\n[serve]\nrate_rps = 10\nconcurrency = 10\n",
    );
    let o = run(&["plan", "--workload", f.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(e.contains("concurrency") && e.contains("not both"), "{e}");
}

/// #15a: `prices fetch` without credentials answered in English under `--lang zh`.
#[test]
fn missing_credentials_follow_the_language() {
    let home = common::scratch().join(format!("gpuplan-audit-r8-{}-home", std::process::id()));
    std::fs::create_dir_all(&home).unwrap();
    let cfg = common::scratch().join(format!("gpuplan-audit-r8-{}-cfg", std::process::id()));
    let o = common::output_checked(
        Command::new(env!("CARGO_BIN_EXE_gpuplan"))
            .env("GPUPLAN_CONFIG_DIR", &cfg)
            .env("HOME", &home)
            .env_remove("ALIBABA_CLOUD_ACCESS_KEY_ID")
            .env_remove("ALIBABA_CLOUD_ACCESS_KEY_SECRET")
            .args([
                "prices",
                "fetch",
                "alibaba",
                "--instance",
                "ecs.gn7i-c8g1.2xlarge",
                "--lang",
                "zh",
            ]),
    );
    assert_eq!(o.status.code(), Some(2));
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(
        e.contains("凭证") && e.contains("ALIBABA_CLOUD_ACCESS_KEY_ID"),
        "{e}"
    );
    assert!(
        !e.contains("no alibaba credentials") && !e.contains("configure the provider"),
        "{e}"
    );
}

/// #15: an unknown model name was an error with `"field": null`, in the CLI's JSON and the API.
#[test]
fn unknown_model_errors_name_the_field() {
    let o = run(&[
        "plan", "-m", "Qwen9-7B", "--task", "lora", "--tokens", "1e8", "--format", "json",
    ]);
    assert_eq!(o.status.code(), Some(2));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["error"]["kind"], "unknown_name", "{v}");
    assert_eq!(v["error"]["field"], "model", "{v}");
}

/// An API call's status and JSON body (errors included), with `Accept-Language: accept`.
fn api(method: &str, url: &str, body: Option<&str>, accept: &str) -> (u16, serde_json::Value) {
    let req = ureq::request(method, url)
        .set("content-type", "application/json")
        .set("accept-language", accept);
    let r = match body {
        Some(b) => req.send_string(b),
        None => req.call(),
    };
    let resp = match r {
        Ok(r) => r,
        Err(ureq::Error::Status(_, r)) => r,
        Err(e) => panic!("{method} {url}: {e}"),
    };
    let status = resp.status();
    (
        status,
        serde_json::from_str(&resp.into_string().unwrap()).unwrap(),
    )
}

/// #15 (rest): `GET /models/Qwen9` was a 404 with no suggestion, as `models show Qwen9`: names
/// within 3 edits were the only ones offered; now the nearest of the same family are, in the
/// CLI and the API alike (one function, `close_names`).
#[test]
fn unknown_model_404_suggests_the_family() {
    let o = run(&["models", "show", "Qwen9"]);
    assert_eq!(o.status.code(), Some(2));
    let e = String::from_utf8_lossy(&o.stderr).replace("\n  ", " ");
    assert!(e.contains("did you mean Qwen3-8B"), "{e}");
    let s = common::Server::start();
    let (st, v) = api(
        "GET",
        &format!("{}/api/v1/models/Qwen9", s.base),
        None,
        "en",
    );
    assert_eq!(st, 404, "{v}");
    let m = v["error"]["message"].as_str().unwrap();
    assert!(m.contains("did you mean") && m.contains("Qwen3-8B"), "{m}");
    let (_, v) = api(
        "GET",
        &format!("{}/api/v1/models/Qwen9", s.base),
        None,
        "zh-CN",
    );
    let m = v["error"]["message"].as_str().unwrap();
    assert!(m.contains("您是否要找") && m.contains("Qwen3-8B"), "{m}");
    // A name of no known family still gets none (no list of every model).
    let o = run(&["models", "show", "Zq9"]);
    assert!(!String::from_utf8_lossy(&o.stderr).contains("did you mean"));
}

/// #16: `micro_batch = -2` said "a whole number (0 or more)" and the API's `seq_len: -5`
/// "应为非负整数", though 0 is refused as well; the words follow the key's minimum, and a key
/// that takes 0 (`parallel.zero`) keeps "0 or more".
#[test]
fn negative_whole_numbers_name_the_fields_minimum() {
    let head =
        "model = \"Qwen2.5-7B\"\nkind = \"training\"\n[training]\ntask = \"lora\"\ntokens = 1e8\n";
    for (name, body, en, zh) in [
        ("mb", "micro_batch = -2\n", "(1 or more)", "应为正整数"),
        (
            "zero",
            "[training.parallel]\nzero = -1\n",
            "(0 or more)",
            "应为非负整数",
        ),
    ] {
        let f = workload(&format!("{name}.toml"), &format!("{head}{body}"));
        let f = f.to_str().unwrap();
        let e =
            String::from_utf8_lossy(&run(&["plan", "--workload", f]).stderr).replace("\n  ", " ");
        assert!(e.contains(en), "{name}: {e}");
        let o = run(&["plan", "--workload", f, "--lang", "zh"]);
        let e = String::from_utf8_lossy(&o.stderr).replace("\n  ", "");
        assert!(e.contains(zh), "{name}: {e}");
    }
    let s = common::Server::start();
    let body = r#"{"model": "Qwen2.5-7B", "training": {"task": "lora", "seq_len": -5}}"#;
    let (st, v) = api(
        "POST",
        &format!("{}/api/v1/plan", s.base),
        Some(body),
        "zh-CN",
    );
    assert_eq!(st, 400, "{v}");
    let m = v["error"]["message"].as_str().unwrap();
    assert!(m.contains("应为正整数") && !m.contains("非负"), "{m}");
}

/// #13: the Chinese cost table at 80 columns broke `cn-shanghai` as `cn-sha`/`nghai` and
/// `1284` as `12`/`84`; its price and note cells now break between words and characters, and
/// inside an id only after `.`, `-` or `×`.
#[test]
fn zh_cost_table_keeps_ids_whole() {
    for lang in ["zh", "en"] {
        let o = run(&[
            "plan",
            "-m",
            "Qwen2.5-7B",
            "--task",
            "lora",
            "--tokens",
            "1e8",
            "--provider",
            "alibaba",
            "--lang",
            lang,
        ]);
        let out = stdout(&o);
        let title = if lang == "zh" {
            "各计费方式费用"
        } else {
            "cost by billing mode"
        };
        let table: Vec<&str> = out
            .split(title)
            .nth(1)
            .unwrap_or_else(|| panic!("{out}"))
            .lines()
            .take_while(|l| !l.starts_with('└'))
            .collect();
        assert!(table.len() > 4, "{out}");
        // The cells of the unit-price column, line by line: every line break falls after a
        // space, a CJK character or an id break point, never inside `shanghai` or a number.
        let cells: Vec<String> = table
            .iter()
            .filter_map(|l| l.split('┆').nth(3))
            .map(|c| c.trim().to_string())
            .collect();
        let text = cells.join("\n");
        assert!(text.contains("shanghai"), "{lang}: {text}");
        for w in cells.windows(2) {
            let (a, b) = (&w[0], &w[1]);
            if a.is_empty() || b.is_empty() {
                continue;
            }
            let last = a.chars().last().unwrap();
            let first = b.chars().next().unwrap();
            let ok = !last.is_ascii_alphanumeric()
                || !first.is_ascii_alphanumeric()
                || matches!(last, '.' | '-');
            assert!(ok, "{lang}: split inside a word: {a:?} / {b:?}\n{out}");
        }
        for l in &table {
            assert!(
                unicode_width::UnicodeWidthStr::width(*l) <= 80,
                "{lang}: {l}"
            );
        }
    }
}

/// #17: `estimate -m SDXL-UNet --task inference` noted vLLM's `--dtype half` and the KV cache,
/// then failed "KV-cache sizing needs a transformer"; now it refuses at once and points to
/// `plan`, which serves image models per image, in both languages.
#[test]
fn estimate_refuses_image_serving_pointing_to_plan() {
    for (model, unit) in [
        ("SDXL-UNet", "generated image"),
        ("ResNet-50", "forward pass"),
    ] {
        let o = run(&[
            "estimate",
            "-m",
            model,
            "--task",
            "inference",
            "--gpu",
            "t4",
        ]);
        assert_eq!(o.status.code(), Some(2));
        let e = String::from_utf8_lossy(&o.stderr).replace("\n  ", " ");
        assert!(
            e.contains(&format!("gpuplan plan -m {model} --task inference")),
            "{e}"
        );
        assert!(e.contains(unit), "{e}");
        assert!(!e.contains("vLLM") && !e.contains("--dtype half"), "{e}");
        assert!(!e.contains("KV-cache sizing needs"), "{e}");
        let o = run(&[
            "estimate",
            "-m",
            model,
            "--task",
            "inference",
            "--gpu",
            "t4",
            "--lang",
            "zh",
        ]);
        let e = String::from_utf8_lossy(&o.stderr).replace("\n  ", "");
        assert!(e.contains("规划其推理部署") && !e.contains("vLLM"), "{e}");
        assert!(common::english_sentences(&e).is_empty(), "{e}");
    }
    // The plan it points to serves the model.
    let o = run(&[
        "plan",
        "-m",
        "SDXL-UNet",
        "--task",
        "inference",
        "--rate",
        "1",
    ]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
}

/// #9 (catalog): `catalog show ecs.gn7i --lang zh` printed the correction in English inside the
/// name's backticks; every wrong name has a Chinese verdict, after the name.
#[test]
fn wrong_name_corrections_follow_the_language() {
    let o = run(&["catalog", "show", "ecs.gn7i", "--lang", "zh"]);
    assert_eq!(o.status.code(), Some(2));
    let e = String::from_utf8_lossy(&o.stderr).replace("\n  ", "");
    assert!(e.contains("`ecs.gn7i`：华为云规格没有"), "{e}");
    assert!(common::english_sentences(&e).is_empty(), "{e}");
    let o = run(&["catalog", "show", "ecs.gn7i"]);
    let e = String::from_utf8_lossy(&o.stderr).replace("\n  ", " ");
    assert!(e.contains("`ecs.gn7i`: Huawei flavors have no"), "{e}");
    // Every entry of the built-in list has its Chinese verdict.
    let toml = include_str!("../../gpuplan-core/data/catalog/wrong-names.toml");
    assert_eq!(
        toml.matches("\nverdict = ").count(),
        toml.matches("\nverdict_zh = ").count()
    );
}

/// #9: the `--wide` memory basis column ("计算方式") was English under `--lang zh` ("Bf16: 16
/// bits/weight on linears…", "… adapter params (rank 16) …", "full recompute: …", "10% of
/// allocated …"); these rows come from the catalogs now, and English stays as it was.
#[test]
fn wide_memory_basis_follows_the_language() {
    // Markdown: each row on one line, as the table shows it at its full width.
    let lora = [
        "plan",
        "-m",
        "DeepSeek-V3",
        "--task",
        "lora",
        "--tokens",
        "1e8",
        "--wide",
        "--format",
        "markdown",
    ];
    let full = [
        "plan",
        "-m",
        "Qwen2.5-7B",
        "--task",
        "full",
        "--tokens",
        "1e8",
        "--wide",
        "--format",
        "markdown",
    ];
    let mut zh = String::new();
    let mut en = String::new();
    for args in [&lora[..], &full[..]] {
        let mut a = args.to_vec();
        en.push_str(&stdout(&run(&a)));
        a.extend_from_slice(&["--lang", "zh"]);
        zh.push_str(&stdout(&run(&a)));
    }
    for want in [
        "线性层每权重 16 位",
        "个适配器参数（秩 16）",
        "全量重计算：",
        "已分配显存的 10%",
        "可调参数 `cuda_context_gib`",
        "按 NCCL 源码",
        "B 参数 × 2 B",
        "AdamW：每参数 8 B 状态",
        "峰值时（",
        "融合的词表并行交叉熵",
    ] {
        assert!(zh.contains(want), "{want}\n{zh}");
    }
    for english in [
        "bits/weight",
        "adapter params",
        "full recompute",
        "of allocated",
        "B/param",
        "at the peak",
        "B/token/layer",
    ] {
        assert!(!zh.contains(english), "{english}\n{zh}");
    }
    for want in [
        "Bf16: 16 bits/weight on linears, 16 bits elsewhere",
        "adapter params (rank 16) × 16 B (fp32 weight, grad, optimizer states)",
        "10% of allocated (tunable `fragmentation`)",
        "AdamW: 8 B/param states + 4 B master ÷ 4 (ZeRO shard)",
        "— saved activations at the peak (backward:",
    ] {
        assert!(en.contains(want), "{want}\n{en}");
    }
}

/// A training plan's free memory per GPU and its peak, in GiB.
fn free_and_need(p: &serde_json::Value) -> (f64, f64) {
    let need = p["train"]["memory"]["device_total"].as_f64().unwrap() / 1073741824.0;
    (p["usable_memory_gib"].as_f64().unwrap() - need, need)
}

/// Whether a plan says it is within the memory model's error.
fn says_thin(p: &serde_json::Value) -> bool {
    p["caveats"].as_array().unwrap().iter().any(|c| {
        c.as_str()
            .is_some_and(|c| c.contains("memory model's error"))
    })
}

/// #1: the search took, within one cluster, the micro-batch a few % faster at ~0 GiB free (70B
/// LoRA on 8 × A100-40GB: micro-batch 2 at 39.46 GiB of 39.44, over the GPU, where micro-batch 1
/// leaves 6.0 GiB). Every plan of the audit's commands now keeps the memory model's error
/// (4.1% of its peak) free, or says it is inside it; and the 8 × A100-40GB plan runs micro-batch 1.
#[test]
fn top_plans_keep_the_memory_margin() {
    let tp8pp4 = workload(
        "margin-tp8pp4.toml",
        "model = \"Qwen2.5-72B\"\nkind = \"training\"\n[training]\ntask = \"full_finetune\"\n\
         tokens = 1e9\nseq_len = 4096\n[training.parallel]\ntp = 8\npp = 4\n",
    );
    let cmds: [&[&str]; 4] = [
        &[
            "plan",
            "-m",
            "Llama-3.1-70B",
            "--task",
            "lora",
            "--tokens",
            "1e8",
            "--deadline",
            "12h",
        ],
        &[
            "plan",
            "-m",
            "Qwen2.5-7B",
            "--task",
            "full",
            "--tokens",
            "5e8",
            "--chips",
            "ascend",
        ],
        &[
            "plan",
            "-m",
            "Qwen2.5-7B",
            "--task",
            "qlora",
            "--tokens",
            "1e8",
            "--chips",
            "ascend",
        ],
        &["plan", "--workload", tp8pp4.to_str().unwrap()],
    ];
    for cmd in cmds {
        let v = json(cmd);
        for p in plans(&v) {
            let (free, need) = free_and_need(p);
            assert!(free >= 0.0, "{cmd:?}: {free} GiB free");
            assert!(
                free >= gpuplan_core::plan::MEMORY_MARGIN_FRACTION * need || says_thin(p),
                "{cmd:?}: {free} of {need}"
            );
        }
    }
    let v = json(cmds[0]);
    let a100 = plans(&v)
        .iter()
        .find(|p| p["instance"]["gpu"] == "a100-40g" && p["total_gpus"] == 8.0)
        .expect("8 × A100-40GB plan");
    assert_eq!(
        a100["train"]["setup"]["micro_batch"], 1,
        "{}",
        a100["train"]["setup"]
    );
    assert!(!says_thin(a100));
}

/// #1: where no configuration of a cluster has the margin (here the micro-batch is pinned), the
/// plan says it is within the memory model's error and which micro-batch to keep ready, in both
/// languages; the memory-headroom advice ("Only 0.3 GiB left") no longer repeats it (trust r9 #4).
#[test]
fn plans_inside_the_memory_error_say_so() {
    let f = workload(
        "margin-mb4.toml",
        "model = \"Qwen2.5-7B\"\nkind = \"training\"\n[training]\ntask = \"full_finetune\"\n\
         tokens = 5e8\nmicro_batch = 4\n",
    );
    let args = [
        "plan",
        "--workload",
        f.to_str().unwrap(),
        "--chips",
        "ascend",
    ];
    let v = json(&args);
    let p = &plans(&v)[0];
    let (free, need) = free_and_need(p);
    assert!(
        free < gpuplan_core::plan::MEMORY_MARGIN_FRACTION * need,
        "{free} of {need}"
    );
    assert!(says_thin(p), "{}", p["caveats"]);
    let en = one_line(&run(&args));
    assert!(en.contains("keep micro-batch 2 ready"), "{en}");
    assert!(!en.contains("[memory-headroom]"), "{en}");
    let mut zh = args.to_vec();
    zh.extend_from_slice(&["--lang", "zh"]);
    let zh = stdout(&run(&zh));
    assert!(
        zh.contains("显存模型的误差之内") && zh.contains("micro-batch 2"),
        "{zh}"
    );
}

/// #17a: "over the 2.0 h deadline by 0.0 h": a gap under an hour is said in minutes. (A 0.5 h
/// deadline, which no plan meets: at 2 h, 17 plans meet it and the line was audit r9 #1's false
/// blame, no longer printed.)
#[test]
fn deadline_gap_is_said_in_minutes() {
    let args = [
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
    ];
    let en = one_line(&run(&args));
    let gap = en.split("deadline by ").nth(1).expect("deadline line");
    assert!(!gap.starts_with("0.0"), "{en}");
    let min: String = gap.chars().take_while(char::is_ascii_digit).collect();
    assert!(
        min.parse::<u32>().is_ok_and(|m| m > 0) && gap[min.len()..].starts_with(" min"),
        "{en}"
    );
    let mut zh = args.to_vec();
    zh.extend_from_slice(&["--lang", "zh"]);
    let zh = stdout(&run(&zh));
    assert!(zh.contains("分钟") && !zh.contains("多出 0.0"), "{zh}");
}

/// #14: serving rows identical in fleet, price and memory left that differ only by a lossier
/// weight format (2 × gn7i in int8 and in int4-g128 at ¥9151, 3.8 GiB free; one fleet in bf16,
/// int8 and int4 at ¥103584) bought nothing: the lossier one is folded into the better one as
/// "same answer as", named with its format.
#[test]
fn lossier_serving_twins_are_folded() {
    for args in [
        &["--rate", "5", "--region", "cn-beijing"][..],
        &["--concurrency", "16"][..],
        &[
            "--rate",
            "10",
            "--ttft",
            "0.2",
            "--tpot",
            "0.02",
            "--input-tokens",
            "4000",
        ][..],
    ] {
        let mut cmd = vec!["plan", "-m", "Qwen2.5-7B", "--task", "inference"];
        cmd.extend_from_slice(args);
        let v = json(&cmd);
        let ps = plans(&v);
        let row = |p: &serde_json::Value| {
            let s = &p["serve"];
            (
                p["instance"]["provider"].to_string(),
                p["gpu"]["id"].to_string(),
                p["total_gpus"].to_string(),
                s["replicas"].to_string(),
                (p["chosen"]["cny"].as_f64().unwrap_or(0.0)).round() as i64,
            )
        };
        for (i, a) in ps.iter().enumerate() {
            for b in &ps[i + 1..] {
                let bits = |p: &serde_json::Value| p["serve"]["weights"].to_string();
                assert!(
                    row(a) != row(b) || bits(a) == bits(b),
                    "{args:?}: {} and {} are one fleet at one price",
                    bits(a),
                    bits(b)
                );
            }
        }
        let also: Vec<String> = ps
            .iter()
            .flat_map(|p| p["also"].as_array().unwrap().iter())
            .filter_map(|x| x.as_str().map(str::to_string))
            .collect();
        assert!(
            also.iter().any(|x| x.ends_with("int4-g128")),
            "{args:?}: {also:?}"
        );
    }
}
