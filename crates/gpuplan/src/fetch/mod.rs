//! `gpuplan prices fetch`: the providers' price APIs over HTTPS, signed with the user's own
//! credentials ([`crate::creds`]), with timeouts, retries (exponential backoff + jitter on
//! throttling, 5xx and network errors), a request-rate limit, paging, and partial failure: every
//! (instance type × region × billing) task succeeds or fails on its own.
//!
//! The providers' request and response shapes live in [`alibaba`], [`tencent`], [`huawei`]; each
//! turns one task into signed requests and the responses into [`Price`] rows of kind `api`.

pub mod alibaba;
pub mod huawei;
pub mod tencent;

use crate::creds::Credentials;
use gpuplan_core::catalog::{Billing, Confidence, Origin, Price, PriceKind, Provider};
use std::time::{Duration, Instant};

/// One HTTP request, built afresh for every attempt (timestamps and nonces change).
#[derive(Clone, Debug)]
pub struct HttpRequest {
    pub method: &'static str,
    pub url: String,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

#[derive(Clone, Debug)]
pub struct HttpResponse {
    pub status: u16,
    pub body: String,
}

/// What a provider says about one response.
#[derive(Clone, Debug, PartialEq)]
pub enum Verdict {
    Ok,
    /// Throttled or a transient server error: try again after a backoff.
    Retry {
        code: String,
        message: String,
    },
    /// A final error (authentication, bad parameter, unknown type).
    Fail {
        code: String,
        message: String,
    },
}

/// A failed task: the provider's error code and message (never a credential).
#[derive(Clone, Debug, PartialEq)]
pub struct ApiError {
    pub code: String,
    pub message: String,
}

impl std::fmt::Display for ApiError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.code, self.message)
    }
}

/// Retry and pacing settings.
#[derive(Clone, Debug)]
pub struct Policy {
    /// Attempts after the first.
    pub retries: u32,
    /// First backoff; doubled each retry, capped at `backoff_cap`, plus up to 50 % jitter.
    pub backoff_base: Duration,
    pub backoff_cap: Duration,
    /// At most this many requests per second.
    pub max_rps: f64,
    pub timeout: Duration,
}

impl Default for Policy {
    fn default() -> Policy {
        Policy {
            retries: 4,
            backoff_base: Duration::from_millis(500),
            backoff_cap: Duration::from_secs(8),
            max_rps: 5.0,
            timeout: Duration::from_secs(20),
        }
    }
}

/// The largest response body read (price responses are a few KiB).
const MAX_BODY: u64 = 4 * 1024 * 1024;

pub struct Client {
    agent: ureq::Agent,
    pub policy: Policy,
    last: Option<Instant>,
    /// Requests sent (all attempts), for the summary and tests.
    pub sent: u32,
}

impl Client {
    pub fn new(policy: Policy) -> Client {
        let agent = ureq::AgentBuilder::new()
            .timeout_connect(policy.timeout.min(Duration::from_secs(10)))
            .timeout(policy.timeout)
            .user_agent(concat!("gpuplan/", env!("CARGO_PKG_VERSION")))
            .build();
        Client {
            agent,
            policy,
            last: None,
            sent: 0,
        }
    }

    fn pace(&mut self) {
        if self.policy.max_rps > 0.0 {
            let gap = Duration::from_secs_f64(1.0 / self.policy.max_rps);
            if let Some(t) = self.last {
                let since = t.elapsed();
                if since < gap {
                    std::thread::sleep(gap - since);
                }
            }
        }
        self.last = Some(Instant::now());
    }

    fn send_once(&mut self, r: &HttpRequest) -> Result<HttpResponse, String> {
        use std::io::Read;
        self.pace();
        self.sent += 1;
        let mut req = self.agent.request(r.method, &r.url);
        for (k, v) in &r.headers {
            req = req.set(k, v);
        }
        let resp = match req.send_bytes(&r.body) {
            Ok(resp) => resp,
            Err(ureq::Error::Status(_, resp)) => resp,
            Err(ureq::Error::Transport(t)) => return Err(t.to_string()),
        };
        let status = resp.status();
        let mut body = String::new();
        resp.into_reader()
            .take(MAX_BODY)
            .read_to_string(&mut body)
            .map_err(|e| format!("reading the response: {e}"))?;
        Ok(HttpResponse { status, body })
    }

    fn backoff(&self, attempt: u32) -> Duration {
        let base = self.policy.backoff_base.as_secs_f64() * 2f64.powi(attempt as i32);
        let capped = base.min(self.policy.backoff_cap.as_secs_f64());
        Duration::from_secs_f64(capped * (1.0 + 0.5 * fastrand::f64()))
    }

    /// Send `build()` until `classify` accepts it, retrying throttling, 5xx and network errors.
    pub fn call(
        &mut self,
        build: &mut dyn FnMut() -> HttpRequest,
        classify: &dyn Fn(&HttpResponse) -> Verdict,
    ) -> Result<HttpResponse, ApiError> {
        let mut attempt = 0;
        loop {
            let req = build();
            let (retry, err) = match self.send_once(&req) {
                Ok(resp) => match classify(&resp) {
                    Verdict::Ok => return Ok(resp),
                    Verdict::Retry { code, message } => (true, ApiError { code, message }),
                    Verdict::Fail { code, message } => (false, ApiError { code, message }),
                },
                Err(e) => (
                    true,
                    ApiError {
                        code: "network".into(),
                        message: e,
                    },
                ),
            };
            if !retry || attempt >= self.policy.retries {
                return Err(if retry {
                    ApiError {
                        code: err.code,
                        message: format!(
                            "{} (gave up after {} attempts)",
                            err.message,
                            attempt + 1
                        ),
                    }
                } else {
                    err
                });
            }
            std::thread::sleep(self.backoff(attempt));
            attempt += 1;
        }
    }
}

/// The generic part of a verdict: 5xx and 429 are retried whatever the body says.
pub fn status_verdict(status: u16, code: &str, message: &str) -> Option<Verdict> {
    (status == 429 || status >= 500).then(|| Verdict::Retry {
        code: if code.is_empty() {
            format!("HTTP {status}")
        } else {
            code.to_string()
        },
        message: message.to_string(),
    })
}

/// The rest of every provider's verdict once its own throttling codes are handled: 5xx/429 are
/// retried, any other HTTP error or error code fails the task with that code, else the body is ok.
pub fn body_verdict(status: u16, code: &str, message: String) -> Verdict {
    if let Some(v) = status_verdict(status, code, &message) {
        return v;
    }
    if status >= 400 || !code.is_empty() {
        return Verdict::Fail {
            code: if code.is_empty() {
                format!("HTTP {status}")
            } else {
                code.to_string()
            },
            message,
        };
    }
    Verdict::Ok
}

/// Scheme + authority + path of an endpoint URL, and its `host[:port]` (the Host header).
pub fn split_endpoint(url: &str) -> Result<(String, String), String> {
    let rest = url
        .strip_prefix("https://")
        .or_else(|| url.strip_prefix("http://"))
        .ok_or_else(|| {
            gpuplan_core::i18n::Msg::new("fetch-err-endpoint-scheme")
                .arg("url", url)
                .render(crate::render::lang())
        })?;
    let host = rest.split('/').next().unwrap_or_default().to_string();
    if host.is_empty() {
        return Err(gpuplan_core::i18n::Msg::new("fetch-err-endpoint-host")
            .arg("url", url)
            .render(crate::render::lang()));
    }
    Ok((url.trim_end_matches('/').to_string(), host))
}

/// How to fetch.
#[derive(Clone, Debug)]
pub struct FetchSpec {
    /// Base URL replacing the provider's (tests, private endpoints).
    pub endpoint: Option<String>,
    /// Tencent: zones to price in (default: the first available zone of each region).
    pub zones: Vec<String>,
    /// Tencent: the image the inquiry names (the price does not depend on it for public images).
    pub image: String,
    /// Unix seconds of the fetch, stamped on every row.
    pub now: i64,
}

/// One unit of work: one instance type in one region under one billing.
#[derive(Clone, Debug, PartialEq)]
pub struct Task {
    pub instance: String,
    pub region: String,
    pub billing: Billing,
}

impl Task {
    pub fn label(&self) -> String {
        format!("{} {} {}", self.instance, self.region, self.billing.name())
    }
}

/// A price row of kind `api` for `task`.
pub fn api_price(provider: Provider, task: &Task, cny: f64, api: &str, spec: &FetchSpec) -> Price {
    let t = gpuplan_core::signing::UtcTime::from_unix(spec.now);
    Price {
        instance: task.instance.clone(),
        provider,
        region: task.region.clone(),
        billing: task.billing,
        cny,
        kind: PriceKind::Api,
        as_of: t.date(),
        source: format!("{api} {} (fetched {})", task.region, t.rfc3339()),
        confidence: Some(Confidence::Confirmed),
        method: None,
        method_zh: None,
        origin: Origin::Builtin,
    }
}

/// A provider's fetcher: one task → rows, or the provider's error.
pub trait Fetcher {
    fn fetch(&mut self, client: &mut Client, task: &Task) -> Result<Vec<Price>, ApiError>;

    /// Tasks one request can answer together (indices into `tasks`); default: one each.
    fn batches(&self, tasks: &[Task]) -> Vec<Vec<usize>> {
        (0..tasks.len()).map(|i| vec![i]).collect()
    }

    /// Answer a batch; one result per task, in order.
    fn fetch_batch(
        &mut self,
        client: &mut Client,
        tasks: &[&Task],
    ) -> Vec<Result<Vec<Price>, ApiError>> {
        tasks.iter().map(|t| self.fetch(client, t)).collect()
    }
}

pub fn make_fetcher(p: Provider, creds: Credentials, spec: FetchSpec) -> Box<dyn Fetcher> {
    match p {
        Provider::Alibaba => Box::new(alibaba::Alibaba::new(creds, spec)),
        Provider::Tencent => Box::new(tencent::Tencent::new(creds, spec)),
        Provider::Huawei => Box::new(huawei::Huawei::new(creds, spec)),
    }
}

/// Everything a fetch run produced.
#[derive(Debug, Default)]
pub struct Outcome {
    pub prices: Vec<Price>,
    pub failed: Vec<(Task, ApiError)>,
}

/// Run every task; `tick` is called after each (the progress bar).
pub fn run_tasks(
    fetcher: &mut dyn Fetcher,
    client: &mut Client,
    tasks: &[Task],
    tick: &mut dyn FnMut(&Task, bool),
) -> Outcome {
    let mut out = Outcome::default();
    for batch in fetcher.batches(tasks) {
        let ts: Vec<&Task> = batch.iter().filter_map(|i| tasks.get(*i)).collect();
        let results = fetcher.fetch_batch(client, &ts);
        for (t, r) in ts.iter().zip(results) {
            match r {
                Ok(rows) => {
                    out.prices.extend(rows);
                    tick(t, true);
                }
                Err(e) => {
                    out.failed.push(((*t).clone(), e));
                    tick(t, false);
                }
            }
        }
    }
    out
}

/// Parse a JSON body, or a final error naming what was wrong with it.
pub fn json_body(resp: &HttpResponse, api: &str) -> Result<serde_json::Value, ApiError> {
    serde_json::from_str(&resp.body).map_err(|e| ApiError {
        code: "malformed-response".into(),
        message: format!(
            "{api} answered HTTP {} with a body that is not JSON (line {} column {}): the endpoint may be wrong or a proxy answered",
            resp.status,
            e.line(),
            e.column()
        ),
    })
}

/// A number that may be a JSON number or a numeric string.
pub fn num(v: Option<&serde_json::Value>) -> Option<f64> {
    match v? {
        serde_json::Value::Number(n) => n.as_f64(),
        serde_json::Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}

pub fn malformed(api: &str, what: &str) -> ApiError {
    ApiError {
        code: "malformed-response".into(),
        message: format!("{api}: {what}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn resp(status: u16, body: &str) -> HttpResponse {
        HttpResponse {
            status,
            body: body.into(),
        }
    }

    #[test]
    fn endpoints_and_verdicts() {
        assert_eq!(
            split_endpoint("http://127.0.0.1:8080/").unwrap(),
            ("http://127.0.0.1:8080".into(), "127.0.0.1:8080".into())
        );
        assert!(split_endpoint("ftp://x").unwrap_err().contains("https://"));
        // Alibaba: throttling codes and 5xx retried; auth errors final.
        let r = alibaba::classify(&resp(400, r#"{"Code":"Throttling.User","Message":"m"}"#));
        assert!(matches!(r, Verdict::Retry { .. }));
        let r = alibaba::classify(&resp(
            403,
            r#"{"Code":"InvalidAccessKeyId.NotFound","Message":"m"}"#,
        ));
        assert_eq!(
            r,
            Verdict::Fail {
                code: "InvalidAccessKeyId.NotFound".into(),
                message: "m".into()
            }
        );
        assert!(matches!(
            alibaba::classify(&resp(502, "")),
            Verdict::Retry { .. }
        ));
        // Tencent answers 200 with Response.Error.
        let r = tencent::classify(&resp(
            200,
            r#"{"Response":{"Error":{"Code":"AuthFailure.SignatureFailure","Message":"m"}}}"#,
        ));
        assert!(
            matches!(r, Verdict::Fail { ref code, .. } if code == "AuthFailure.SignatureFailure")
        );
        assert_eq!(
            tencent::classify(&resp(200, r#"{"Response":{"Price":{}}}"#)),
            Verdict::Ok
        );
        // Huawei: gateway throttling retried.
        let r = huawei::classify(&resp(429, r#"{"error_code":"APIGW.0308","error_msg":"m"}"#));
        assert!(matches!(r, Verdict::Retry { .. }));
    }

    #[test]
    fn backoff_doubles_with_jitter_and_a_cap() {
        let c = Client::new(Policy {
            backoff_base: Duration::from_millis(100),
            backoff_cap: Duration::from_millis(400),
            ..Policy::default()
        });
        for _ in 0..50 {
            let b0 = c.backoff(0).as_secs_f64();
            assert!((0.1..=0.15).contains(&b0), "{b0}");
            let b1 = c.backoff(1).as_secs_f64();
            assert!((0.2..=0.3).contains(&b1), "{b1}");
            let b5 = c.backoff(5).as_secs_f64();
            assert!((0.4..=0.6).contains(&b5), "capped: {b5}");
        }
    }

    #[test]
    fn response_shapes() {
        let v: serde_json::Value =
            serde_json::from_str(r#"{"PriceInfo":{"Price":{"Currency":"USD","TradePrice":1}}}"#)
                .unwrap();
        assert!(alibaba::parse_describe_price(&v)
            .unwrap_err()
            .message
            .contains("USD"));
        let v: serde_json::Value =
            serde_json::from_str(r#"{"Price":{"InstancePrice":{"UnitPrice":2.5}}}"#).unwrap();
        assert_eq!(tencent::parse_inquiry(&v, Billing::OnDemand).unwrap(), 2.5);
        assert!(tencent::parse_inquiry(&v, Billing::Monthly).is_err());
        let v: serde_json::Value =
            serde_json::from_str(r#"{"currency":"CNY","product_rating_results":[]}"#).unwrap();
        assert!(huawei::parse_on_demand(&v, "1", 1).is_err());
    }
}
