//! Helpers shared by the output tests: finding English sentences left in Chinese output, and
//! a `gpuplan serve` child process on a free loopback port, for the API and browser tests.
#![allow(dead_code)]

/// Words that stay in Latin script in Chinese text: product, framework and algorithm names,
/// units. Identifiers (with digits, dots, dashes, underscores or slashes), all-capital
/// abbreviations (GPU, RDMA, TTFT) and text between backticks are allowed without listing.
const ALLOWED: &[&str] = &[
    "tokens",
    "token",
    "samples",
    "LoRA",
    "QLoRA",
    "ZeRO",
    "NVLink",
    "NVSwitch",
    "PCIe",
    "Gen4",
    "eRDMA",
    "RoCE",
    "vLLM",
    "vCPU",
    "vCPUs",
    "Turbo",
    "AutoPL",
    "Ascend",
    "Young",
    "Daly",
    "MindSpore",
    "PyTorch",
    "DeepSpeed",
    "Megatron",
    "Core",
    "torchtitan",
    "Trainer",
    "Fluid",
    "JindoFS",
    "ossfs",
    "obsfs",
    "cosfs",
    "ModelArts",
    "Hub",
    "Instinct",
    "ROCm",
    "GeForce",
    "cuDNN",
    "logits",
    "autocast",
    "GiB",
    "MiB",
    "KiB",
    "TiB",
    "MB",
    "GB",
    "KB",
    "TB",
    "ms",
    "Gbit",
    "NVIDIA",
    "SXM",
    "PCIe",
];

fn is_english_word(w: &str) -> bool {
    let w = w.trim_matches(|c: char| ",.;:!?()'\"".contains(c));
    if w.len() < 2 || !w.chars().all(|c| c.is_ascii_alphabetic()) {
        return false;
    }
    if w.chars().all(|c| c.is_ascii_uppercase()) {
        return false; // an abbreviation: GPU, RDMA, TCP
    }
    !ALLOWED.iter().any(|a| a.eq_ignore_ascii_case(w))
}

/// Runs of three or more English words in `text` (outside backticks): untranslated sentences.
pub fn english_sentences(text: &str) -> Vec<String> {
    let mut found = Vec::new();
    // Drop `code` spans (a wrapped span may cross a line break).
    let mut text_plain = String::new();
    for (i, part) in text.split('`').enumerate() {
        if i % 2 == 0 {
            text_plain.push_str(part);
        } else {
            text_plain.extend(part.chars().filter(|c| *c == '\n'));
        }
        text_plain.push(' ');
    }
    for (plain, line) in text_plain.lines().zip(text.lines()) {
        // Latin runs between non-ASCII characters.
        for run in plain.split(|c: char| !c.is_ascii()) {
            let words: Vec<&str> = run.split_whitespace().collect();
            let mut streak = 0;
            for (i, w) in words.iter().enumerate() {
                if is_english_word(w) {
                    streak += 1;
                    if streak == 3 {
                        found.push(format!("{:?} in {line:?}", words[i - 2..=i].join(" ")));
                    }
                } else {
                    streak = 0;
                }
            }
        }
    }
    found
}

#[test]
fn the_detector_finds_sentences_and_allows_names() {
    assert!(!english_sentences("! RDMA not documented for this type: assumed TCP").is_empty());
    assert!(english_sentences("该规格的 RDMA 未见文档：按 TCP 计算").is_empty());
    assert!(english_sentences("建议使用文件存储 NAS 通用型，`nvidia-smi topo -m` 查看").is_empty());
    assert!(
        english_sentences("1 × ecs.gn7e-c16g1.4xlarge（NVIDIA A100 80GB SXM，阿里云）").is_empty()
    );
}

/// Runs `cmd`; when it fails (non-zero exit) and names no `--lang`, runs it again with a
/// Chinese locale (see [`zh_problems`]) and panics on what that finds. Every error path a test
/// exercises through this helper is thereby checked in Chinese as well (issue 13).
pub fn output_checked(cmd: &mut std::process::Command) -> std::process::Output {
    let out = cmd.output().unwrap();
    if let Err(e) = zh_problems(cmd, out.status.code()) {
        // `GPUPLAN_ZH_AUDIT=FILE`: collect every finding in FILE instead of stopping at the first.
        match std::env::var_os("GPUPLAN_ZH_AUDIT") {
            Some(f) => {
                use std::io::Write;
                if let Ok(mut w) = std::fs::OpenOptions::new()
                    .create(true)
                    .append(true)
                    .open(f)
                {
                    let _ = writeln!(w, "{e}\n");
                }
            }
            None => panic!("{e}"),
        }
    }
    out
}

/// For a command that exited with `code`: when that is a failure and the command names no
/// `--lang`, runs it again with `LC_ALL=zh_CN.UTF-8` (no flag: the environment alone selects
/// the language) and says what is wrong: another exit code, an untranslated English sentence
/// or an unresolved `{$arg}` in its output, the error included.
pub fn zh_problems(cmd: &std::process::Command, code: Option<i32>) -> Result<(), String> {
    let names_lang = cmd.get_args().any(|a| {
        a.to_str()
            .is_some_and(|a| a == "--lang" || a.starts_with("--lang="))
    });
    if code == Some(0) || names_lang {
        return Ok(());
    }
    let mut zh = std::process::Command::new(cmd.get_program());
    zh.args(cmd.get_args()).stdin(std::process::Stdio::null());
    if let Some(d) = cmd.get_current_dir() {
        zh.current_dir(d);
    }
    for (k, v) in cmd.get_envs() {
        match v {
            Some(v) => zh.env(k, v),
            None => zh.env_remove(k),
        };
    }
    zh.env("LC_ALL", "zh_CN.UTF-8").env_remove("LC_MESSAGES");
    let o = zh.output().map_err(|e| e.to_string())?;
    let args: Vec<_> = cmd.get_args().collect();
    // JSON documents are data in the schema's English (docs/json-schema.md): only what the
    // command says on stderr is checked then.
    let json = args
        .windows(2)
        .any(|w| w[0] == "--format" && w[1] == "json")
        || args.iter().any(|a| *a == "--format=json");
    let text = format!(
        "{}\n{}",
        if json {
            Default::default()
        } else {
            String::from_utf8_lossy(&o.stdout)
        },
        String::from_utf8_lossy(&o.stderr)
    );
    if o.status.code() != code {
        return Err(format!(
            "{args:?} in zh: exit {:?}, in en {code:?}\n{text}",
            o.status.code()
        ));
    }
    // clap's usage and help (shown for a missing subcommand) are English in every language.
    let text = match text.find("Usage: ") {
        Some(at) => text[..at].to_string(),
        None => text,
    };
    let english = english_sentences(&text);
    if !english.is_empty() || text.contains("{$") {
        return Err(format!(
            "{args:?} in zh: English left:\n{}\n--- output\n{text}",
            english.join("\n")
        ));
    }
    Ok(())
}

use std::io::{BufRead, BufReader, Read};
use std::process::{Child, Command, Stdio};

/// The README's example job (`gpuplan plan …`), shared by the API, terminal and CLI tests.
pub const README_PLAN: &[&str] = &[
    "plan",
    "--model",
    "Qwen2.5-7B",
    "--task",
    "lora",
    "--seq-len",
    "2048",
    "--tokens",
    "1e8",
    "--provider",
    "alibaba",
    "--deadline",
    "24h",
];

/// Price ages depend on today: pin it for the server and the CLI alike.
pub const TODAY: &str = "2026-12-03";

pub struct Server {
    pub child: Child,
    pub base: String,
}

impl Server {
    pub fn start() -> Server {
        let mut child = Command::new(env!("CARGO_BIN_EXE_gpuplan"))
            .args(["serve", "--bind", "127.0.0.1:0", "--no-user-catalog"])
            .env("GPUPLAN_TODAY", TODAY)
            .stderr(Stdio::piped())
            .stdout(Stdio::null())
            .spawn()
            .expect("start gpuplan serve");
        let mut err = BufReader::new(child.stderr.take().unwrap());
        let mut line = String::new();
        err.read_line(&mut line).unwrap();
        let base = line
            .split("listening on ")
            .nth(1)
            .and_then(|s| s.split('/').nth(2))
            .map(|hostport| format!("http://{hostport}"))
            .unwrap_or_else(|| panic!("no address in the start-up line: {line}"));
        assert!(line.contains("no authentication"), "{line}");
        // Keep draining stderr so the server never blocks on a full pipe.
        std::thread::spawn(move || {
            let mut sink = String::new();
            let _ = err.read_to_string(&mut sink);
        });
        Server { child, base }
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// ResNet-50 on ImageNet-1k for 90 epochs (1.28M JPEGs of ~110 KB): the `plan` flags the CNN
/// plan tests share (plan_scenarios.rs, audit_r5.rs); each adds its own provider or `--top`.
pub const RESNET_IMAGENET: &[&str] = &[
    "-m",
    "ResNet-50",
    "--task",
    "pretrain",
    "--samples",
    "1.28e6",
    "--epochs",
    "90",
    "--bytes-per-sample",
    "110000",
];

/// The nine planner scenarios (plan_scenarios.rs s1–s9): name and `plan` flags. Exported by
/// tests/export.rs, checked for Chinese by plan_scenarios.rs.
pub const SCENARIOS: &[(&str, &[&str])] = &[
    (
        "s1",
        &[
            "-m",
            "Qwen2.5-7B",
            "--task",
            "lora",
            "--seq-len",
            "2048",
            "--tokens",
            "1e8",
            "--provider",
            "alibaba",
            "--deadline",
            "24h",
        ],
    ),
    (
        "s2",
        &[
            "-m",
            "Llama-3.1-8B",
            "--task",
            "full",
            "--seq-len",
            "4096",
            "--tokens",
            "1e9",
        ],
    ),
    (
        "s3",
        &[
            "-m",
            "Llama-2-13B",
            "--task",
            "pretrain",
            "--tokens",
            "3e11",
            "--seq-len",
            "4096",
            "--deadline",
            "30d",
            "--chips",
            "nvidia",
        ],
    ),
    (
        "s4",
        &[
            "-m",
            "Llama-3.1-70B",
            "--task",
            "inference",
            "--rate",
            "10",
            "--input-tokens",
            "1000",
            "--output-tokens",
            "300",
            "--ttft",
            "2",
            "--tpot",
            "0.06",
        ],
    ),
    (
        "s5",
        &[
            "-m",
            "ResNet-50",
            "--task",
            "pretrain",
            "--samples",
            "1281167",
            "--epochs",
            "90",
            "--deadline",
            "24h",
        ],
    ),
    (
        "s6",
        &[
            "-m",
            "BERT-base-uncased",
            "--task",
            "inference",
            "--rate",
            "200",
            "--input-tokens",
            "128",
            "--output-tokens",
            "1",
        ],
    ),
    (
        "s7",
        &[
            "-m",
            "Llama-2-13B",
            "--task",
            "lora",
            "--tokens",
            "1e8",
            "--chips",
            "ascend",
            "--framework",
            "mindspore",
        ],
    ),
    (
        "s8",
        &[
            "-m",
            "Qwen2.5-1.5B",
            "--task",
            "pretrain",
            "--tokens",
            "2e10",
            "--seq-len",
            "2048",
            "--interruptible",
        ],
    ),
    (
        "s9",
        &[
            "-m",
            "Llama-2-13B",
            "--task",
            "pretrain",
            "--tokens",
            "3e11",
            "--seq-len",
            "4096",
            "--budget",
            "1000",
        ],
    ),
];

/// Runs the `gpuplan` binary with `args` at `columns` columns, the locale variables removed (so
/// the output language is the flags' alone) and an empty config directory named after `tag` (one
/// per test file), through [`output_checked`].
pub fn run_cols(tag: &str, columns: &str, args: &[&str]) -> std::process::Output {
    output_checked(command(tag, Some(columns)).args(args))
}
/// The CLI with a config dir per `tag`, the locale variables removed and `COLUMNS` where given.
fn command(tag: &str, columns: Option<&str>) -> std::process::Command {
    let cfg = scratch().join(format!("config-{tag}"));
    let mut c = std::process::Command::new(env!("CARGO_BIN_EXE_gpuplan"));
    c.env("GPUPLAN_CONFIG_DIR", &cfg)
        .env_remove("LANG")
        .env_remove("LC_ALL")
        .env_remove("LC_MESSAGES");
    if let Some(columns) = columns {
        c.env("COLUMNS", columns);
    }
    c
}
/// [`run`] at the width the CLI takes without `COLUMNS`.
pub fn run_unsized(tag: &str, args: &[&str]) -> std::process::Output {
    output_checked(command(tag, None).args(args))
}
/// The CLI on [`TODAY`] (`GPUPLAN_TODAY`: price ages and dated outputs stay fixed), at the
/// width the CLI takes without `COLUMNS`.
pub fn run_dated(tag: &str, args: &[&str]) -> std::process::Output {
    output_checked(command(tag, None).env("GPUPLAN_TODAY", TODAY).args(args))
}

/// [`run_cols`] at 80 columns.
pub fn run(tag: &str, args: &[&str]) -> std::process::Output {
    run_cols(tag, "80", args)
}

/// `gpuplan plan --format json --top 100 ARGS` (see [`run`]), which must succeed, parsed.
pub fn plan_json(tag: &str, args: &[&str]) -> serde_json::Value {
    let mut all = vec!["plan", "--format", "json", "--top", "100"];
    all.extend_from_slice(args);
    let o = run(tag, &all);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    serde_json::from_slice(&o.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&o.stderr)))
}

/// The listed plans of a `plan --format json` answer.
pub fn plans(v: &serde_json::Value) -> &Vec<serde_json::Value> {
    v["outcome"]["plans"].as_array().unwrap()
}

/// No listed plan of a `plan --format json` answer serves its weights as `format`.
pub fn assert_no_plan_serves(v: &serde_json::Value, format: &str) {
    for p in plans(v) {
        assert_ne!(p["serve"]["weights"]["format"], format, "{p}");
    }
}

/// The flags of a serving job: `model` (`["-m", NAME]` or `["--model-config", FILE]`) served
/// under `engine` on `gpu`.
pub fn serving_flags<'a>(model: [&'a str; 2], gpu: &'a str, engine: &'a str) -> Vec<&'a str> {
    let mut v = model.to_vec();
    v.extend(["--task", "inference", "--gpu", gpu, "--engine", engine]);
    v
}

/// `cmd` (`estimate`, `plan`) of the serving job of [`serving_flags`].
pub fn serving<'a>(
    cmd: &'a str,
    model: [&'a str; 2],
    gpu: &'a str,
    engine: &'a str,
) -> Vec<&'a str> {
    let mut v = vec![cmd];
    v.extend(serving_flags(model, gpu, engine));
    v
}

/// A command's stdout as text.
pub fn stdout(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// A command's stderr as text.
pub fn stderr(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// stdout and stderr with the wrapped lines joined (continuations indented by 4, then 2).
pub fn all_text(o: &std::process::Output) -> String {
    format!("{}\n{}", stdout(o), stderr(o))
        .replace("\n    ", " ")
        .replace("\n  ", " ")
}

/// stdout with the wrapped lines joined (continuations indented by 2, then 4).
pub fn one_line(o: &std::process::Output) -> String {
    stdout(o).replace("\n  ", " ").replace("\n    ", " ")
}

/// The advice `id` of a plan in `plan --format json`, if it has one.
pub fn advice<'a>(p: &'a serde_json::Value, id: &str) -> Option<&'a serde_json::Value> {
    p["advice"].as_array()?.iter().find(|a| a["id"] == id)
}

thread_local! {
    /// This test's scratch folder (`tempfile`): libtest runs each test on its own thread, and
    /// the folder is removed with everything in it when that thread ends.
    static SCRATCH: tempfile::TempDir = tempfile::Builder::new()
        .prefix("gpuplan-test-")
        .tempdir()
        .expect("a scratch folder in the temp directory");
}

/// This test's scratch folder, removed when the test ends (see [`SCRATCH`]).
pub fn scratch() -> std::path::PathBuf {
    SCRATCH.with(|d| d.path().to_path_buf())
}

/// A path in this test's scratch folder for file `name` of test file `tag`.
pub fn temp_path(tag: &str, name: &str) -> std::path::PathBuf {
    scratch().join(format!("{tag}-{name}"))
}

/// Writes `text` to [`temp_path`] and returns the path.
pub fn write_temp(tag: &str, name: &str, text: &str) -> std::path::PathBuf {
    let p = temp_path(tag, name);
    std::fs::write(&p, text).unwrap();
    p
}

/// Runs the CLI with `args` (see [`run`]: 80 columns, a config directory per `tag`, and a
/// failure checked again in Chinese) and asserts the shape the audit tests share (see
/// [`assert_exit_phrases`]). Returns the output for further checks.
pub fn assert_refused(
    tag: &str,
    args: &[&str],
    code: i32,
    phrases: &[&str],
) -> std::process::Output {
    let o = run(tag, args);
    assert_exit_phrases(&o, code, phrases);
    o
}

/// Exit `code`, and each of `phrases` in stdout and stderr with the wrapped lines joined (see
/// [`all_text`]); a phrase written `!text` must be absent.
pub fn assert_exit_phrases(o: &std::process::Output, code: i32, phrases: &[&str]) {
    let text = all_text(o);
    assert_eq!(o.status.code(), Some(code), "{text}");
    for p in phrases {
        match p.strip_prefix('!') {
            Some(absent) => assert!(!text.contains(absent), "{absent:?} in:\n{text}"),
            None => assert!(text.contains(p), "no {p:?} in:\n{text}"),
        }
    }
}

/// POSTs a JSON `body` to `url` and returns the status and the reply as JSON, whatever the
/// status (the API tests read error replies too).
pub fn post(url: &str, body: &str) -> (u16, serde_json::Value) {
    let r = ureq::post(url)
        .set("content-type", "application/json")
        .send_string(body);
    let resp = match r {
        Ok(r) => r,
        Err(ureq::Error::Status(_, r)) => r,
        Err(e) => panic!("POST {url}: {e}"),
    };
    let status = resp.status();
    let text = resp.into_string().unwrap();
    let v = serde_json::from_str(&text).unwrap_or_else(|e| panic!("not JSON ({e}): {text}"));
    (status, v)
}
