//! `gpuplan prices fetch` end to end with no network: a small HTTP server on 127.0.0.1, started
//! by each test, plays the provider's endpoint from canned responses in the documented shapes
//! (tests/fixtures/prices/*.json), records every request, and the tests check the signatures it
//! received (recomputed with gpuplan-core's signer and the test key), the prices written,
//! retries, partial failure and that an existing price file survives a failure.

use gpuplan_core::signing;
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, Mutex};
use std::time::Duration;

const ID: &str = "AKIDtestIdentifier0001";
const SECRET: &str = "TESTsecretNEVERprinted-9f8e7d";

#[derive(Clone, Debug)]
struct Recorded {
    method: String,
    target: String,
    headers: BTreeMap<String, String>,
    body: String,
}

type Handler = dyn Fn(&Recorded, usize) -> (u16, String) + Send + Sync;

/// Serve until the test process ends; each connection answers one request and closes.
fn serve(handler: Box<Handler>) -> (String, Arc<Mutex<Vec<Recorded>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind loopback");
    let addr = listener.local_addr().expect("addr");
    let log: Arc<Mutex<Vec<Recorded>>> = Arc::default();
    let log2 = log.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let _ = stream.set_read_timeout(Some(Duration::from_secs(5)));
            let mut reader = BufReader::new(stream.try_clone().expect("clone"));
            let mut line = String::new();
            if reader.read_line(&mut line).unwrap_or(0) == 0 {
                continue;
            }
            let mut parts = line.split_whitespace();
            let method = parts.next().unwrap_or("").to_string();
            let target = parts.next().unwrap_or("").to_string();
            let mut headers = BTreeMap::new();
            loop {
                let mut h = String::new();
                if reader.read_line(&mut h).unwrap_or(0) == 0 || h == "\r\n" {
                    break;
                }
                if let Some((k, v)) = h.split_once(':') {
                    headers.insert(k.trim().to_ascii_lowercase(), v.trim().to_string());
                }
            }
            let len: usize = headers
                .get("content-length")
                .and_then(|v| v.parse().ok())
                .unwrap_or(0);
            let mut body = vec![0; len];
            let _ = reader.read_exact(&mut body);
            let rec = Recorded {
                method,
                target,
                headers,
                body: String::from_utf8_lossy(&body).to_string(),
            };
            let n = {
                let mut l = log2.lock().expect("log");
                l.push(rec.clone());
                l.len() - 1
            };
            let (status, text) = handler(&rec, n);
            let reply = format!(
                "HTTP/1.1 {status} X\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{text}",
                text.len()
            );
            let _ = stream.write_all(reply.as_bytes());
        }
    });
    (format!("http://{addr}"), log)
}

fn fixture(name: &str) -> String {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/prices")
        .join(name);
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// A config folder for one test, removed when the guard drops (`tempfile`).
fn tmpdir(tag: &str) -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix(&format!("gpuplan-fetch-{tag}-"))
        .tempdir()
        .expect("tmp")
}

struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

/// Run `gpuplan prices fetch …` with test credentials in the environment and a fresh config dir.
fn fetch(dir: &Path, provider: &str, env_creds: &[(&str, &str)], args: &[&str]) -> Run {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_gpuplan"));
    cmd.args(["prices", "fetch", provider]);
    if !args.contains(&"--max-rps") {
        cmd.args(["--max-rps", "1000"]);
    }
    cmd.args(args)
        .env("GPUPLAN_CONFIG_DIR", dir)
        .env("HOME", dir)
        .env("GPUPLAN_FETCH_BACKOFF_MS", "1");
    for v in [
        "ALIBABA_CLOUD_ACCESS_KEY_ID",
        "ALIBABA_CLOUD_ACCESS_KEY_SECRET",
        "TENCENTCLOUD_SECRET_ID",
        "TENCENTCLOUD_SECRET_KEY",
        "HUAWEICLOUD_SDK_AK",
        "HUAWEICLOUD_SDK_SK",
        "HUAWEICLOUD_SDK_PROJECT_ID",
    ] {
        cmd.env_remove(v);
    }
    for (k, v) in env_creds {
        cmd.env(k, v);
    }
    let out = cmd.output().expect("run gpuplan");
    let r = Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).to_string(),
        stderr: String::from_utf8_lossy(&out.stderr).to_string(),
    };
    assert!(
        !r.stdout.contains(SECRET) && !r.stderr.contains(SECRET),
        "the secret leaked into the output:\n{}\n{}",
        r.stdout,
        r.stderr
    );
    r
}

fn prices_file(dir: &Path, provider: &str) -> PathBuf {
    dir.join("catalog").join(format!("prices-{provider}.toml"))
}

fn read_prices(dir: &Path, provider: &str) -> gpuplan_core::catalog::CatalogFile {
    let text = std::fs::read_to_string(prices_file(dir, provider)).expect("prices file written");
    assert!(!text.contains(SECRET), "the secret leaked into the file");
    gpuplan_core::catalog::parse_catalog_file("prices", &text).expect("parses")
}

const TENCENT: &[(&str, &str)] = &[
    ("TENCENTCLOUD_SECRET_ID", ID),
    ("TENCENTCLOUD_SECRET_KEY", SECRET),
];

fn tencent_action(r: &Recorded) -> String {
    r.headers.get("x-tc-action").cloned().unwrap_or_default()
}

/// Recompute the TC3 signature of a received request with the test key.
fn tencent_signature_ok(r: &Recorded) -> bool {
    let ts: i64 = r.headers["x-tc-timestamp"].parse().expect("timestamp");
    let s = signing::tencent::sign(
        ID,
        SECRET,
        &signing::tencent::Request {
            method: &r.method,
            host: &r.headers["host"],
            path: "/",
            query: "",
            content_type: &r.headers["content-type"],
            payload: r.body.as_bytes(),
            service: "cvm",
            timestamp: ts,
        },
    );
    r.headers.get("authorization") == Some(&s.authorization)
}

fn tencent_handler(fail_type: Option<&'static str>, throttle_first: bool) -> Box<Handler> {
    Box::new(move |r, n| match tencent_action(r).as_str() {
        "DescribeZones" => (200, fixture("tencent-describe-zones.json")),
        "InquiryPriceRunInstances" => {
            if throttle_first && n == 1 {
                return (200, fixture("tencent-throttled.json"));
            }
            if let Some(t) = fail_type {
                if r.body.contains(t) {
                    return (200, fixture("tencent-invalid-type.json"));
                }
            }
            if r.body.contains("\"PREPAID\"") {
                (200, fixture("tencent-inquiry-prepaid.json"))
            } else {
                (200, fixture("tencent-inquiry-postpaid.json"))
            }
        }
        _ => (
            200,
            r#"{"Response":{"Error":{"Code":"InvalidAction","Message":"?"}}}"#.into(),
        ),
    })
}

#[test]
fn tencent_fetch_signs_requests_and_writes_api_prices() {
    let (url, log) = serve(tencent_handler(None, false));
    let dir_guard = tmpdir("tc-ok");
    let dir = dir_guard.path().to_path_buf();
    let r = fetch(
        &dir,
        "tencent",
        TENCENT,
        &[
            "--endpoint",
            &url,
            "--instance",
            "GN7.2XLARGE32",
            "--region",
            "ap-guangzhou",
            "--billing",
            "on-demand,monthly,spot",
        ],
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    let reqs = log.lock().unwrap().clone();
    assert_eq!(
        reqs.len(),
        4,
        "DescribeZones once, then one inquiry per billing"
    );
    for q in &reqs {
        assert!(tencent_signature_ok(q), "bad signature on {q:?}");
        assert_eq!(q.headers["x-tc-version"], "2017-03-12");
        assert_eq!(q.headers["x-tc-region"], "ap-guangzhou");
        assert!(!format!("{q:?}").contains(SECRET));
    }
    let body: serde_json::Value = serde_json::from_str(&reqs[1].body).unwrap();
    assert_eq!(
        body["Placement"]["Zone"], "ap-guangzhou-3",
        "first AVAILABLE zone"
    );
    assert_eq!(body["InstanceType"], "GN7.2XLARGE32");
    assert_eq!(body["InstanceChargeType"], "POSTPAID_BY_HOUR");
    let charge = |n: usize| {
        serde_json::from_str::<serde_json::Value>(&reqs[n].body).unwrap()["InstanceChargeType"]
            .clone()
    };
    assert_eq!(charge(2), "PREPAID");
    assert_eq!(charge(3), "SPOTPAID");
    let f = read_prices(&dir, "tencent");
    assert_eq!(f.price.len(), 3);
    let od = f
        .price
        .iter()
        .find(|p| p.billing.name() == "on-demand")
        .unwrap();
    assert_eq!(od.cny, 8.68);
    assert_eq!(od.kind, gpuplan_core::catalog::PriceKind::Api);
    assert!(
        od.source.contains("InquiryPriceRunInstances ap-guangzhou"),
        "{}",
        od.source
    );
    let mo = f
        .price
        .iter()
        .find(|p| p.billing.name() == "monthly")
        .unwrap();
    assert_eq!(mo.cny, 2500.0);
    assert!(
        r.stderr.contains("AKID…001"),
        "the id is shown masked: {}",
        r.stderr
    );
    assert!(!r.stderr.contains(ID));
    // The fetched rows are what `prices` lists, with kind api and age 0.
    let out = Command::new(env!("CARGO_BIN_EXE_gpuplan"))
        .args(["prices", "--provider", "tencent", "--format", "csv"])
        .env("GPUPLAN_CONFIG_DIR", &dir)
        .output()
        .unwrap();
    let csv = String::from_utf8_lossy(&out.stdout);
    assert!(
        csv.lines().any(
            |l| l.contains("GN7.2XLARGE32,t4,1,ap-guangzhou,on-demand,8.68")
                && l.contains(",api,")
                && l.contains(",0,")
        ),
        "{csv}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn throttling_is_retried_with_backoff() {
    let (url, log) = serve(tencent_handler(None, true));
    let dir_guard = tmpdir("tc-throttle");
    let dir = dir_guard.path().to_path_buf();
    let r = fetch(
        &dir,
        "tencent",
        TENCENT,
        &[
            "--endpoint",
            &url,
            "--instance",
            "GN7.2XLARGE32",
            "--region",
            "ap-guangzhou",
            "--billing",
            "on-demand",
        ],
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    let reqs = log.lock().unwrap().clone();
    assert_eq!(reqs.len(), 3, "zones, throttled inquiry, retried inquiry");
    // The retry is signed afresh and still verifies.
    assert!(tencent_signature_ok(&reqs[2]));
    assert_eq!(read_prices(&dir, "tencent").price.len(), 1);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn partial_failure_writes_what_succeeded_and_lists_the_rest() {
    let (url, _log) = serve(tencent_handler(Some("GT4.4XLARGE96"), false));
    let dir_guard = tmpdir("tc-partial");
    let dir = dir_guard.path().to_path_buf();
    // An existing row for another type must survive.
    let existing = "[[price]]\ninstance = \"GN7.8XLARGE128\"\nprovider = \"tencent\"\nregion = \"ap-shanghai\"\nbilling = \"on_demand\"\ncny = 30.5\nkind = \"api\"\nas_of = \"2026-11-01\"\nsource = \"earlier fetch\"\n";
    std::fs::create_dir_all(dir.join("catalog")).unwrap();
    std::fs::write(prices_file(&dir, "tencent"), existing).unwrap();
    let r = fetch(
        &dir,
        "tencent",
        TENCENT,
        &[
            "--endpoint",
            &url,
            "--instance",
            "GN7.2XLARGE32",
            "--instance",
            "GT4.4XLARGE96",
            "--region",
            "ap-guangzhou",
            "--billing",
            "on-demand",
        ],
    );
    assert_eq!(r.code, 6, "{}", r.stderr);
    assert!(
        r.stderr.contains(
            "GT4.4XLARGE96 ap-guangzhou on-demand: InvalidParameterValue.InstanceTypeNotFound"
        ),
        "{}",
        r.stderr
    );
    let f = read_prices(&dir, "tencent");
    assert!(f.price.iter().any(|p| p.instance == "GN7.2XLARGE32"));
    assert!(f
        .price
        .iter()
        .any(|p| p.instance == "GN7.8XLARGE128" && p.cny == 30.5));
    assert!(!f.price.iter().any(|p| p.instance == "GT4.4XLARGE96"));
    let _ = std::fs::remove_dir_all(&dir);
}

const ALIBABA: &[(&str, &str)] = &[
    ("ALIBABA_CLOUD_ACCESS_KEY_ID", ID),
    ("ALIBABA_CLOUD_ACCESS_KEY_SECRET", SECRET),
];

fn query_params(target: &str) -> Vec<(String, String)> {
    let q = target.split_once('?').map(|x| x.1).unwrap_or("");
    q.split('&')
        .filter(|kv| !kv.is_empty())
        .map(|kv| {
            let (k, v) = kv.split_once('=').unwrap_or((kv, ""));
            (pct_decode(k), pct_decode(v))
        })
        .collect()
}

fn pct_decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' && i + 2 < b.len() {
            let h = u8::from_str_radix(&s[i + 1..i + 3], 16).expect("hex");
            out.push(h);
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8(out).expect("utf8")
}

fn alibaba_signature_ok(r: &Recorded) -> bool {
    let date = &r.headers["x-acs-date"];
    // Parse the RFC 3339 date back to Unix seconds through the signer's own calendar.
    let days = signing::days_from_civil(date).expect("date");
    let hms: Vec<i64> = date[11..19]
        .split(':')
        .map(|x| x.parse().unwrap())
        .collect();
    let ts = days * 86_400 + hms[0] * 3600 + hms[1] * 60 + hms[2];
    let params = query_params(&r.target);
    let s = signing::alibaba::sign_v3(
        ID,
        SECRET,
        &signing::alibaba::Request {
            method: &r.method,
            host: &r.headers["host"],
            path: "/",
            query: &params,
            action: &r.headers["x-acs-action"],
            version: &r.headers["x-acs-version"],
            timestamp: ts,
            nonce: &r.headers["x-acs-signature-nonce"],
            payload: b"",
            content_type: None,
        },
    );
    r.headers.get("authorization") == Some(&s.authorization)
}

#[test]
fn alibaba_describe_price_and_paged_spot_history() {
    let (url, log) = serve(Box::new(|r, _| {
        let params: BTreeMap<String, String> = query_params(&r.target).into_iter().collect();
        match r.headers.get("x-acs-action").map(String::as_str) {
            Some("DescribePrice") => {
                assert_eq!(
                    params.get("SystemDisk.Category").map(String::as_str),
                    Some("cloud_essd")
                );
                if params.get("PriceUnit").map(String::as_str) == Some("Month") {
                    (200, fixture("alibaba-describe-price-month.json"))
                } else {
                    (200, fixture("alibaba-describe-price-hour.json"))
                }
            }
            Some("DescribeSpotPriceHistory") => {
                if params.contains_key("Offset") {
                    (200, fixture("alibaba-spot-page2.json"))
                } else {
                    (200, fixture("alibaba-spot-page1.json"))
                }
            }
            _ => (
                400,
                r#"{"Code":"InvalidAction.NotFound","Message":"?"}"#.into(),
            ),
        }
    }));
    let dir_guard = tmpdir("ali");
    let dir = dir_guard.path().to_path_buf();
    let r = fetch(
        &dir,
        "alibaba",
        ALIBABA,
        &[
            "--endpoint",
            &url,
            "--instance",
            "ecs.gn7i-c8g1.2xlarge",
            "--region",
            "cn-hangzhou",
        ],
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    let reqs = log.lock().unwrap().clone();
    assert_eq!(reqs.len(), 4, "two DescribePrice, two spot pages");
    for q in &reqs {
        assert!(alibaba_signature_ok(q), "bad signature on {q:?}");
        assert_eq!(q.headers["x-acs-version"], "2014-05-26");
    }
    assert!(reqs[3].target.contains("Offset=1000"), "{}", reqs[3].target);
    let f = read_prices(&dir, "alibaba");
    let get = |b: &str| f.price.iter().find(|p| p.billing.name() == b).unwrap().cny;
    assert_eq!(get("on-demand"), 8.7);
    assert_eq!(get("monthly"), 3900.0);
    // Latest sample per zone (page 2 is newer for zone h), then the cheapest zone.
    assert_eq!(get("spot"), 1.12);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn malformed_body_fails_the_task_with_its_code() {
    let (url, _log) = serve(Box::new(|_, _| (200, "<html>gateway</html>".into())));
    let dir_guard = tmpdir("ali-bad");
    let dir = dir_guard.path().to_path_buf();
    let r = fetch(
        &dir,
        "alibaba",
        ALIBABA,
        &[
            "--endpoint",
            &url,
            "--instance",
            "ecs.gn7i-c8g1.2xlarge",
            "--region",
            "cn-hangzhou",
            "--billing",
            "on-demand",
        ],
    );
    assert_eq!(r.code, 6, "{}", r.stderr);
    assert!(r.stderr.contains("malformed-response"), "{}", r.stderr);
    assert!(!prices_file(&dir, "alibaba").exists(), "nothing to write");
    let _ = std::fs::remove_dir_all(&dir);
}

const HUAWEI: &[(&str, &str)] = &[
    ("HUAWEICLOUD_SDK_AK", ID),
    ("HUAWEICLOUD_SDK_SK", SECRET),
    (
        "HUAWEICLOUD_SDK_PROJECT_ID",
        "0123456789abcdef0123456789abcdef",
    ),
];

fn huawei_signature_ok(r: &Recorded) -> bool {
    let h = |k: &str| (k.to_string(), r.headers[&k.to_ascii_lowercase()].clone());
    let headers = [h("content-type"), h("host"), h("x-sdk-date")];
    let s = signing::huawei::sign(
        ID,
        SECRET,
        &signing::huawei::Request {
            method: &r.method,
            path: &r.target,
            query: &[],
            headers: &headers,
            payload: r.body.as_bytes(),
        },
    );
    r.headers.get("authorization") == Some(&s.authorization)
}

#[test]
fn huawei_on_demand_and_monthly_ratings() {
    let (url, log) = serve(Box::new(|r, _| {
        if r.target.ends_with("/on-demand-resources") {
            (200, fixture("huawei-on-demand.json"))
        } else if r.target.ends_with("/subscribe-rate") {
            (200, fixture("huawei-period.json"))
        } else {
            (
                404,
                r#"{"error_code":"APIGW.0101","error_msg":"The API does not exist"}"#.into(),
            )
        }
    }));
    let dir_guard = tmpdir("hw");
    let dir = dir_guard.path().to_path_buf();
    let r = fetch(
        &dir,
        "huawei",
        HUAWEI,
        &[
            "--endpoint",
            &url,
            "--instance",
            "p2s.2xlarge.8",
            "--instance",
            "p2s.4xlarge.8",
            "--region",
            "cn-north-4",
            "--billing",
            "on-demand,monthly,spot",
        ],
    );
    // Spot has no BSS inquiry: that task fails, the others are written.
    assert_eq!(r.code, 6, "{}", r.stderr);
    assert!(
        r.stderr
            .contains("p2s.4xlarge.8 cn-north-4 spot: unsupported"),
        "{}",
        r.stderr
    );
    // One inquiry per region and billing carries both flavors (ids 1 and 2).
    let reqs = log.lock().unwrap().clone();
    assert_eq!(reqs.len(), 2);
    for q in &reqs {
        assert!(huawei_signature_ok(q), "bad signature on {q:?}");
        let b: serde_json::Value = serde_json::from_str(&q.body).unwrap();
        assert_eq!(
            b["product_infos"][0]["resource_spec"],
            "p2s.2xlarge.8.linux"
        );
        assert_eq!(
            b["product_infos"][1]["resource_spec"],
            "p2s.4xlarge.8.linux"
        );
        assert_eq!(b["product_infos"][1]["id"], "2");
        assert_eq!(b["project_id"], "0123456789abcdef0123456789abcdef");
    }
    let f = read_prices(&dir, "huawei");
    let get = |i: &str, b: &str| {
        f.price
            .iter()
            .find(|p| p.instance == i && p.billing.name() == b)
            .unwrap()
            .cny
    };
    assert_eq!(get("p2s.2xlarge.8", "on-demand"), 15.2);
    assert_eq!(get("p2s.4xlarge.8", "on-demand"), 30.4);
    assert_eq!(get("p2s.2xlarge.8", "monthly"), 7200.0);
    assert_eq!(get("p2s.4xlarge.8", "monthly"), 14400.0);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn auth_error_keeps_the_existing_file_and_5xx_gives_up() {
    let (url, log) = serve(Box::new(|r, _| {
        if r.body.contains("cn-north-4") {
            (401, fixture("huawei-auth-error.json"))
        } else {
            (503, "service unavailable".into())
        }
    }));
    let dir_guard = tmpdir("hw-auth");
    let dir = dir_guard.path().to_path_buf();
    std::fs::create_dir_all(dir.join("catalog")).unwrap();
    let existing = "# mine\n[[price]]\ninstance = \"p2s.2xlarge.8\"\nprovider = \"huawei\"\nregion = \"cn-north-4\"\nbilling = \"on_demand\"\ncny = 14.0\nkind = \"api\"\nas_of = \"2026-10-01\"\nsource = \"earlier fetch\"\n";
    std::fs::write(prices_file(&dir, "huawei"), existing).unwrap();
    let r = fetch(
        &dir,
        "huawei",
        HUAWEI,
        &[
            "--endpoint",
            &url,
            "--instance",
            "p2s.2xlarge.8",
            "--instance",
            "p2s.4xlarge.8",
            "--region",
            "cn-north-4",
            "--region",
            "cn-east-3",
            "--billing",
            "on-demand",
            "--retries",
            "2",
        ],
    );
    assert_eq!(r.code, 6, "{}", r.stderr);
    assert!(r.stderr.contains("APIGW.0301"), "{}", r.stderr);
    assert!(
        r.stderr.contains("HTTP 503") && r.stderr.contains("gave up after 3 attempts"),
        "{}",
        r.stderr
    );
    assert!(
        r.stderr.contains("existing file is unchanged"),
        "{}",
        r.stderr
    );
    assert_eq!(
        std::fs::read_to_string(prices_file(&dir, "huawei")).unwrap(),
        existing
    );
    // One inquiry per region: the cn-north-4 auth failure (not retried) for both types, then
    // three 503 attempts for cn-east-3.
    assert_eq!(r.stderr.matches(": APIGW.0301").count(), 2, "{}", r.stderr);
    assert_eq!(r.stderr.matches(": HTTP 503").count(), 2, "{}", r.stderr);
    assert_eq!(log.lock().unwrap().len(), 4);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn unreadable_price_file_is_never_overwritten_and_nothing_is_sent() {
    let (url, log) = serve(tencent_handler(None, false));
    let dir_guard = tmpdir("tc-bad-file");
    let dir = dir_guard.path().to_path_buf();
    std::fs::create_dir_all(dir.join("catalog")).unwrap();
    std::fs::write(prices_file(&dir, "tencent"), "this is not toml [").unwrap();
    let r = fetch(
        &dir,
        "tencent",
        TENCENT,
        &[
            "--endpoint",
            &url,
            "--instance",
            "GN7.2XLARGE32",
            "--region",
            "ap-guangzhou",
        ],
    );
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains("prices-tencent.toml"), "{}", r.stderr);
    assert_eq!(log.lock().unwrap().len(), 0);
    assert_eq!(
        std::fs::read_to_string(prices_file(&dir, "tencent")).unwrap(),
        "this is not toml ["
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn missing_credentials_name_the_variables_and_profile() {
    let dir_guard = tmpdir("nocreds");
    let dir = dir_guard.path().to_path_buf();
    let r = fetch(
        &dir,
        "tencent",
        &[],
        &[
            "--endpoint",
            "http://127.0.0.1:9",
            "--instance",
            "GN7.2XLARGE32",
            "--region",
            "ap-guangzhou",
        ],
    );
    assert_eq!(r.code, 2);
    assert!(
        r.stderr.contains("TENCENTCLOUD_SECRET_ID") && r.stderr.contains(".tccli"),
        "{}",
        r.stderr
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn rate_limit_spaces_the_requests() {
    let (url, log) = serve(tencent_handler(None, false));
    let dir_guard = tmpdir("tc-rate");
    let dir = dir_guard.path().to_path_buf();
    let start = std::time::Instant::now();
    let mut cmd_args = vec![
        "--endpoint",
        &url,
        "--instance",
        "GN7.2XLARGE32",
        "--region",
        "ap-guangzhou",
        "--billing",
        "on-demand,monthly",
    ];
    cmd_args.extend(["--max-rps", "10"]);
    let r = fetch(&dir, "tencent", TENCENT, &cmd_args);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(log.lock().unwrap().len(), 3);
    // Three requests at 10/s: at least two 100 ms gaps.
    assert!(
        start.elapsed() >= Duration::from_millis(200),
        "{:?}",
        start.elapsed()
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_silent_server_times_out_as_a_network_failure() {
    let (url, log) = serve(Box::new(|_, _| {
        std::thread::sleep(Duration::from_secs(3));
        (200, "{}".into())
    }));
    let dir_guard = tmpdir("tc-timeout");
    let dir = dir_guard.path().to_path_buf();
    let start = std::time::Instant::now();
    let r = fetch(
        &dir,
        "tencent",
        TENCENT,
        &[
            "--endpoint",
            &url,
            "--zone",
            "ap-guangzhou-3",
            "--instance",
            "GN7.2XLARGE32",
            "--region",
            "ap-guangzhou",
            "--billing",
            "on-demand",
            "--timeout",
            "1",
            "--retries",
            "0",
        ],
    );
    assert_eq!(r.code, 6, "{}", r.stderr);
    assert!(r.stderr.contains("on-demand: network"), "{}", r.stderr);
    assert!(
        start.elapsed() < Duration::from_secs(3),
        "{:?}",
        start.elapsed()
    );
    assert_eq!(
        log.lock().unwrap().len(),
        1,
        "--zone skips DescribeZones; no retry"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
