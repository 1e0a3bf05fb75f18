//! Audit r20 (plans an expert would sign): each test runs `plan` as a user does and asserts the
//! property a top answer broke. The 30 questions and the verdicts: docs/notes/notes-plans20.md.
//! A refusal run through `common::assert_refused` is run again in Chinese (no English sentence
//! left).

mod common;
use common::write_temp;

const TAG: &str = "plan-audit-r20";

/// Exit `code` with every phrase of `phrases` present (`!phrase`: absent).
fn refused(args: &[&str], code: i32, phrases: &[&str]) -> std::process::Output {
    common::assert_refused(TAG, args, code, phrases)
}

const SERVE_14B: [&str; 12] = [
    "plan",
    "-m",
    "Qwen2.5-14B",
    "--task",
    "inference",
    "--rate",
    "2",
    "--ttft",
    "1",
    "--tpot",
    "0.04",
    "--top",
];

/// #1: a serving plan is priced per month (on-demand or subscription); the planner has no spot
/// mode for a fleet of replicas. Before: `--billing spot --interruptible` on a serving question
/// answered every plan "no price", ranked by GPU-hours, while the plan's cost table showed its
/// monthly list price and its advice said "No price is known for this type (no published list
/// price was found)"; without `--interruptible` the refusal spoke of checkpoints and resuming.
/// Now refused, naming `billing` and the modes that price a serving plan.
#[test]
fn spot_billing_on_a_serving_plan_is_refused_naming_billing() {
    let mut args: Vec<&str> = SERVE_14B.to_vec();
    args.extend(["3", "--billing", "spot", "--interruptible"]);
    refused(
        &args,
        2,
        &["billing", "on-demand or monthly", "!No price is known"],
    );
    // Without --interruptible: the same refusal, not the training one about checkpoints.
    let mut args: Vec<&str> = SERVE_14B.to_vec();
    args.extend(["3", "--billing", "spot"]);
    refused(&args, 2, &["on-demand or monthly", "!checkpoint"]);
    // The workload file's [constraints] billing says the same.
    let file = write_temp(
        TAG,
        "serve-spot.toml",
        "kind = \"inference\"\n[serve]\nrate_rps = 2.0\nttft_s = 1.0\ntpot_s = 0.04\n\
         [constraints]\nbilling = \"spot\"\ninterruptible = true\n",
    );
    let file = file.to_str().unwrap();
    refused(
        &["plan", "-m", "Qwen2.5-14B", "-w", file, "--top", "3"],
        2,
        &["billing", "on-demand or monthly"],
    );
    // Training keeps both: spot with --interruptible plans, without it the checkpoint refusal.
    let train = [
        "plan",
        "-m",
        "Qwen2.5-7B",
        "--task",
        "lora",
        "--tokens",
        "20M",
        "--provider",
        "alibaba",
        "--top",
        "3",
        "--billing",
        "spot",
    ];
    refused(&train, 2, &["--interruptible", "checkpoint"]);
    let mut ok = train.to_vec();
    ok.push("--interruptible");
    refused(&ok, 0, &["spot", "!No price is known"]);
}

/// #2: the stock-fallback line listed an unpriced type after a priced top plan as if it were an
/// equal alternative ("5 × GN10X.18XLARGE320 (Tencent Cloud)"): a fallback without a known
/// price now says so.
#[test]
fn an_unpriced_stock_fallback_says_it_has_no_price() {
    let v = common::plan_json(
        TAG,
        &[
            "-m",
            "Llama-3.1-70B",
            "--task",
            "inference",
            "--rate",
            "10",
            "--ttft",
            "2",
            "--tpot",
            "0.06",
            "--provider",
            "tencent",
        ],
    );
    let plans = common::plans(&v);
    assert!(plans[0]["chosen"].is_object(), "the top plan is priced");
    let a = common::advice(&plans[0], "stock-fallbacks").expect("stock fallbacks");
    let text = a.to_string();
    assert!(text.contains("no known price"), "{text}");
    assert!(text.contains("无已知价格"), "{text}");
}

/// #3: an Ascend serving plan's bundle was the CUDA one: `vllm serve` with no word of the
/// vllm-ascend plugin, an int8 note asking for a GPTQ 8-bit or W8A16 checkpoint (vllm-ascend's
/// quantization reads ModelSlim checkpoints under `--quantization ascend`), and an SGLang script
/// with `--quantization awq` for int4. Now both scripts name the Ascend build and ModelSlim.
#[test]
fn an_ascend_serving_bundle_names_the_ascend_engines_and_modelslim() {
    let dir = common::scratch().join("ascend-serve");
    let d = dir.to_str().unwrap();
    let base = [
        "plan",
        "-m",
        "Qwen2.5-7B",
        "--task",
        "inference",
        "--rate",
        "2",
        "--provider",
        "huawei",
        "--chips",
        "ascend",
        "--top",
        "1",
        "--export",
        d,
    ];
    for weights in ["int8", "int4"] {
        let mut args = base.to_vec();
        args.extend(["--weights", weights, "--force"]);
        refused(&args, 0, &[]);
        let vllm = std::fs::read_to_string(dir.join("serve-vllm.sh")).unwrap();
        assert!(vllm.contains("vllm-ascend plugin"), "{vllm}");
        assert!(vllm.contains("--quantization ascend"), "{vllm}");
        assert!(!vllm.contains("GPTQ 8-bit"), "{vllm}");
        assert!(!vllm.contains("  --quantization awq"), "{vllm}");
        let sglang = std::fs::read_to_string(dir.join("serve-sglang.sh")).unwrap();
        assert!(sglang.contains("quay.io/ascend/sglang"), "{sglang}");
        assert!(sglang.contains("quant_model_description.json"), "{sglang}");
        assert!(!sglang.contains("  --quantization "), "{sglang}");
    }
}

/// The CUDA bundle is unchanged by #3: an A100 plan's int4 scripts keep AWQ.
#[test]
fn a_cuda_int4_bundle_keeps_awq() {
    let dir = common::scratch().join("cuda-serve");
    let d = dir.to_str().unwrap();
    let args = [
        "plan",
        "-m",
        "Qwen2.5-7B",
        "--task",
        "inference",
        "--rate",
        "5",
        "--gpu",
        "a100-80g",
        "--weights",
        "int4",
        "--top",
        "1",
        "--export",
        d,
    ];
    refused(&args, 0, &[]);
    let vllm = std::fs::read_to_string(dir.join("serve-vllm.sh")).unwrap();
    assert!(vllm.contains("--quantization awq"), "{vllm}");
    assert!(!vllm.contains("Ascend"), "{vllm}");
}
