//! Review r16 ("would an expert sign the top plan?"): what an ordinary user types, read the way
//! they mean it. notes: /work/notes/expert-r16.md.

mod common;
use common::run;
use serde_json::Value;

const TAG: &str = "expert-r16";

/// `plan --format json ARGS` that finds no plan (exit 4), parsed.
fn no_plan_json(args: &[&str]) -> Value {
    let mut all = vec!["plan", "--format", "json"];
    all.extend_from_slice(args);
    let o = run(TAG, &all);
    assert_eq!(
        o.status.code(),
        Some(4),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    serde_json::from_slice(&o.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&o.stderr)))
}

/// The refusals of a no-plan answer with constraint `c`: (English, Chinese).
fn refusals(v: &Value, c: &str) -> Vec<(String, String)> {
    v["outcome"]["rejected"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|b| b["constraint"] == c)
        .map(|b| {
            let s = |k: &str| b[k].as_str().unwrap_or_default().to_string();
            (s("message_en"), s("message_zh"))
        })
        .collect()
}

const MONTHLY: [&str; 12] = [
    "-m",
    "Qwen2.5-7B",
    "--task",
    "full",
    "--tokens",
    "1e10",
    "--seq-len",
    "4096",
    "--deadline",
    "7d",
    "--provider",
    "alibaba",
];

/// #2 (q26): a 3.9-day job under `--billing monthly` pays a whole month (¥121386 against a
/// ¥30000 budget); the refusal named spot only, while on-demand billing costs ¥25859 and fits.
/// It now names the on-demand cost and says whether it is within the budget; that cost is the
/// plan the same request without `--billing` gives.
#[test]
fn a_budget_refused_under_monthly_billing_names_on_demand() {
    let v = no_plan_json(&[&MONTHLY[..], &["--budget", "30000", "--billing", "monthly"]].concat());
    let od = refusals(&v, "billing");
    assert_eq!(od.len(), 1, "{v}");
    let (en, zh) = &od[0];
    assert!(
        en.contains("billed on demand (--billing on-demand)"),
        "{en}"
    );
    assert!(en.ends_with("within the budget"), "{en}");
    assert!(
        zh.contains("改用按量付费") && zh.ends_with("在预算之内"),
        "{zh}"
    );
    // The figure is the on-demand plan the planner gives without --billing.
    let free = common::plan_json(TAG, &[&MONTHLY[..], &["--budget", "30000"]].concat());
    let top = &common::plans(&free)[0];
    assert_eq!(top["chosen"]["billing"], "on_demand", "{top}");
    let cny = top["chosen"]["cny"].as_f64().unwrap();
    assert!(en.contains(&format!("¥{cny:.0}")), "{en} / ¥{cny}");
    // Billed on demand already (the default's choice here), nothing is added.
    let tight = no_plan_json(&[&MONTHLY[..], &["--budget", "20000"]].concat());
    assert!(refusals(&tight, "billing").is_empty(), "{tight}");
}

const LONG_FT: [&str; 12] = [
    "-m",
    "Qwen2.5-14B",
    "--task",
    "full",
    "--tokens",
    "2e8",
    "--seq-len",
    "8192",
    "--gpu",
    "a100-40g",
    "--max-nodes",
    "1",
];

/// #1 (q20): no plan fits memory under the default profile, whose fine-tuning stacks shard
/// with ZeRO/FSDP only (Qwen2.5-14B at 8k tokens on 40 GB A100s, below the 16k where the search
/// splits sequences with CP; q20's Qwen2.5-7B at 16k finds a CP 2 plan since stop 35), while
/// Megatron-Core's TP shards the logits: the refusal now names the `--profile megatron` plan,
/// the first of that search's plans whose bundle launches as planned (ZeRO <= 1: review r16 #1).
#[test]
fn no_plan_under_zero_names_the_megatron_plan() {
    let v = no_plan_json(&LONG_FT);
    assert!(!refusals(&v, "memory").is_empty(), "{v}");
    let alt = refusals(&v, "profile");
    assert_eq!(alt.len(), 1, "{v}");
    let (en, zh) = &alt[0];
    assert!(en.starts_with("under --profile megatron"), "{en}");
    assert!(en.ends_with("run again with --profile megatron"), "{en}");
    assert!(
        zh.starts_with("改用 --profile megatron") && zh.contains("重新运行"),
        "{zh}"
    );
    let m = common::plan_json(TAG, &[&LONG_FT[..], &["--profile", "megatron"]].concat());
    let launched = common::plans(&m)
        .iter()
        .find(|p| p["train"]["setup"]["parallel"]["zero"].as_u64() <= Some(1))
        .cloned()
        .unwrap_or_else(|| panic!("no ZeRO <= 1 plan under --profile megatron: {m}"));
    let what = format!(
        "the first, {} × {}",
        launched["nodes"],
        launched["instance"]["id"].as_str().unwrap()
    );
    assert!(en.contains(&what), "{en} / {what}");
    // A stack the user named stays named: no such line.
    let named = no_plan_json(&[&LONG_FT[..], &["--profile", "hugging_face"]].concat());
    assert!(refusals(&named, "profile").is_empty(), "{named}");
}

/// Review r16 #1: Qwen2.5-14B at 8k tokens on one node of L20s (PCIe: no TP) fitted under
/// `--profile megatron` only with ZeRO-3, which the bundle's megatron_args.sh runs with
/// Megatron's distributed optimizer (ZeRO-1: "memory is higher than planned"), and the refusal
/// must not name it. Since expert r17 (#1, #2) the premise is gone on both sides: the megatron
/// profile searches ZeRO <= 1 only, so it has no plan here at all, and the default profile,
/// which now tries CP where nothing fits without it, finds a CP plan.
#[test]
fn no_plan_names_no_megatron_plan_its_bundle_cannot_run() {
    let mut args = LONG_FT;
    args[9] = "l20";
    let m = no_plan_json(&[&args[..], &["--profile", "megatron"]].concat());
    assert!(!refusals(&m, "memory").is_empty(), "{m}");
    let v = common::plan_json(TAG, &args);
    let ps = common::plans(&v);
    assert!(!ps.is_empty(), "{v}");
    assert!(
        ps.iter()
            .all(|p| p["train"]["setup"]["parallel"]["cp"].as_u64() >= Some(2)),
        "{v}"
    );
}

/// The advice `published-misses` of the top plan of `args`, if it has one: (en, zh).
fn published_misses(args: &[&str]) -> Option<(String, String)> {
    let v = common::plan_json(TAG, args);
    let top = common::plans(&v).first()?;
    let a = common::advice(top, "published-misses")?;
    let s = |k: &str| a[k].as_str().unwrap_or_default().to_string();
    Some((s("en"), s("zh")))
}

/// #5 (r14 #6, r15 #5, L1): Qwen3-30B-A3B's published training rows (Megatron-Bridge, H100) are
/// all recorded misses (+24…+229%), yet its plans said nothing; a plan of a model whose
/// published runs are mostly misses now says so, naming the rows. Keyed on the case database
/// (cases/*.toml, embedded at build time), not on the model's structure: Llama-3.1-8B, whose
/// rows are in band, gets no such line; serving looks at the rows on the plan's GPU in the plan's
/// weight class (16-bit, fp8, int8, int4, …).
#[test]
fn a_model_whose_published_runs_are_misses_says_so() {
    let (en, zh) = published_misses(&[
        "-m",
        "Qwen3-30B-A3B",
        "--task",
        "full",
        "--seq-len",
        "4096",
        "--tokens",
        "2e9",
    ])
    .expect("Qwen3-30B-A3B training: published-misses");
    assert!(
        en.contains("published training-throughput runs of Qwen3-30B-A3B"),
        "{en}"
    );
    assert!(
        en.contains("t-mbridge-") && en.contains("Benchmark the first hour"),
        "{en}"
    );
    assert!(zh.contains("已发表的") && zh.contains("训练吞吐"), "{zh}");
    let dense = ["-m", "Llama-3.1-8B", "--task", "lora", "--tokens", "1e8"];
    assert_eq!(published_misses(&dense), None);
    // Serving on H20, where its SGLang batch-1 rows are misses; on A100 it has no rows.
    let serve = [
        "-m",
        "Qwen3-30B-A3B",
        "--task",
        "inference",
        "--rate",
        "1",
        "--gpu",
    ];
    let (en, _) = published_misses(&[&serve[..], &["h20"]].concat())
        .expect("Qwen3-30B-A3B on H20: published-misses");
    assert!(
        en.contains("serving-latency runs of Qwen3-30B-A3B with 16-bit weights on h20"),
        "{en}"
    );
    assert_eq!(
        published_misses(&[&serve[..], &["a100-80g"]].concat()),
        None
    );
}
