//! The `/api/v1` handlers. Each one turns its input into the CLI's argument struct and calls the
//! CLI's own function (cmd/*.rs), then wraps the result in the CLI's JSON envelope.

use super::{query, AppState, MAX_API_NODES};
use crate::cli::{EstimateArgs, InstanceFilterArgs, PlanArgs, PricesListArgs};
use crate::render;
use axum::body::Bytes;
use axum::extract::{Path, Query, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;
use gpuplan_core::i18n::{Lang, Msg};
use gpuplan_core::job::WorkloadFile;
use std::sync::Arc;

type St = State<Arc<AppState>>;
type Pairs = Query<Vec<(String, String)>>;

pub fn routes() -> Router<Arc<AppState>> {
    Router::new()
        .route("/healthz", get(healthz))
        .route("/plan", post(plan))
        .route("/estimate", post(estimate))
        .route("/models", get(models))
        .route("/models/{name}", get(model))
        .route("/catalog/gpus", get(gpus))
        .route("/catalog/instances", get(instances))
        .route("/prices", get(prices))
        .route("/messages/{lang}", get(super::messages::handler))
        .route("/openapi.json", get(super::openapi::handler))
}

/// A JSON answer: the CLI's document, or its error object with an HTTP status.
pub struct Answer {
    status: StatusCode,
    body: Bytes,
}

impl IntoResponse for Answer {
    fn into_response(self) -> Response {
        (
            self.status,
            [(header::CONTENT_TYPE, "application/json; charset=utf-8")],
            self.body,
        )
            .into_response()
    }
}

/// The language of a request's messages: `?lang=zh|en`, else the first of `zh`/`en` in
/// `Accept-Language` by quality, else English. Answers other than errors and a plan's `warnings`
/// do not depend on it (the JSON documents carry both languages where they carry other text).
#[derive(Clone, Copy, Debug)]
pub struct ReqLang(pub Lang);

impl ReqLang {
    pub fn of(parts: &axum::http::request::Parts) -> ReqLang {
        ReqLang(request_lang(
            parts.uri.query(),
            parts
                .headers
                .get(header::ACCEPT_LANGUAGE)
                .and_then(|v| v.to_str().ok()),
        ))
    }
}

impl<S: Send + Sync> axum::extract::FromRequestParts<S> for ReqLang {
    type Rejection = std::convert::Infallible;
    async fn from_request_parts(
        parts: &mut axum::http::request::Parts,
        _: &S,
    ) -> Result<Self, Self::Rejection> {
        Ok(ReqLang::of(parts))
    }
}

/// See [`ReqLang`].
pub fn request_lang(query: Option<&str>, accept: Option<&str>) -> Lang {
    let pick = |tag: &str| {
        let t = tag.trim().to_ascii_lowercase();
        if t.starts_with("zh") {
            Some(Lang::Zh)
        } else if t.starts_with("en") {
            Some(Lang::En)
        } else {
            None
        }
    };
    if let Some(q) = query {
        for (k, v) in url_pairs(q) {
            if k == "lang" {
                if let Some(l) = pick(&v) {
                    return l;
                }
            }
        }
    }
    let mut best: Option<(f32, Lang)> = None;
    for item in accept.unwrap_or("").split(',') {
        let mut it = item.split(';');
        let Some(l) = pick(it.next().unwrap_or("")) else {
            continue;
        };
        let q = it
            .find_map(|p| p.trim().strip_prefix("q="))
            .and_then(|x| x.trim().parse::<f32>().ok())
            .filter(|q| q.is_finite())
            .unwrap_or(1.0);
        if q > 0.0 && best.is_none_or(|(b, _)| q > b) {
            best = Some((q, l));
        }
    }
    best.map_or(Lang::En, |(_, l)| l)
}

fn url_pairs(q: &str) -> Vec<(String, String)> {
    let uri = format!("/?{q}");
    uri.parse::<axum::http::Uri>()
        .ok()
        .and_then(|u| Query::<Vec<(String, String)>>::try_from_uri(&u).ok())
        .map(|Query(p)| p)
        .unwrap_or_default()
}

impl Answer {
    pub fn from_text(body: String) -> Self {
        Self::ok(body)
    }

    fn ok(body: String) -> Self {
        Answer {
            status: StatusCode::OK,
            body: Bytes::from(body),
        }
    }

    /// The CLI's JSON error object (docs/json-schema.md), `code` 2 = bad input, its message in
    /// `lang` as the CLI writes it on stderr.
    pub fn error(status: StatusCode, e: &anyhow::Error, field: Option<String>, lang: Lang) -> Self {
        let v = render::json_error_in(crate::exit::USAGE, e, field, lang);
        Answer {
            status,
            body: Bytes::from(serde_json::to_string_pretty(&v).unwrap_or_default()),
        }
    }

    /// An error that is a catalog message.
    pub fn error_msg(status: StatusCode, m: Msg, field: Option<String>, lang: Lang) -> Self {
        Self::error(status, &render::fail(m), field, lang)
    }

    fn bad(m: Msg, field: Option<String>, lang: Lang) -> Self {
        Self::error_msg(StatusCode::BAD_REQUEST, m, field, lang)
    }
}

fn doc(kind: &str, body: &serde_json::Value) -> Answer {
    match render::json(kind, body) {
        Ok(s) => Answer::ok(s),
        Err(e) => Answer::error(StatusCode::INTERNAL_SERVER_ERROR, &e, None, Lang::En),
    }
}

/// The query parameter whose value an error of the flags' checks is about (`--deadline `5min`:
/// …`, `invalid --top 0: …` → `deadline`, `top`, as docs/serve.md promises `error.field`), as the
/// request wrote it (`dataset_size` or `dataset-size`); `None` when no key of the query is named
/// (a body key's error names its key itself).
fn query_param_of(e: &anyhow::Error, allowed: &[&str], q: &[(String, String)]) -> Option<String> {
    let en = format!("{e:#}");
    let named = |k: &str| {
        let flag = format!("--{k}");
        en.match_indices(&flag).any(|(i, _)| {
            let next = en[i + flag.len()..].chars().next();
            next.is_none_or(|c| !(c.is_ascii_alphanumeric() || c == '-'))
        })
    };
    // Only a key the query holds: a body key's fix text may quote the flag too
    // (`deadline_hours` … "--deadline: hours …").
    allowed.iter().filter(|k| named(k)).find_map(|k| {
        q.iter()
            .map(|(key, _)| key)
            .find(|key| key.replace('_', "-") == **k)
            .cloned()
    })
}

/// The body key a check's error is about, as its path in the body (`serve.rate_rps`, where the
/// check names the bare key `rate_rps`: audit r10); `None` when the error names no key or the
/// body has no such key.
fn body_field(e: &anyhow::Error, body: &serde_json::Value) -> Option<String> {
    let core = e
        .chain()
        .find_map(|c| c.downcast_ref::<gpuplan_core::CoreError>())?;
    let key = core.field()?;
    if key.contains('.') {
        return Some(key.to_string());
    }
    fn find(v: &serde_json::Value, key: &str, at: &str) -> Option<String> {
        let obj = v.as_object()?;
        if obj.get(key).is_some_and(|x| !x.is_null()) {
            return Some(format!("{at}{key}"));
        }
        obj.iter()
            .find_map(|(k, x)| find(x, key, &format!("{at}{k}.")))
    }
    find(body, key, "").or_else(|| Some(key.to_string()))
}

/// A 400 for an error of a query parameter's value, named and spelled as the request wrote it
/// (`top`, not the CLI's `--top`: audit r9 #17).
/// Every other flag the CLI's checks name becomes the body key it stands for ([`body_key_of`]):
/// the API's user sends JSON (audit r15: "--rate: requests per second …" for `serve.rate_rps`).
fn query_value_error(e: &anyhow::Error, field: Option<String>, at: Sections, lang: Lang) -> Answer {
    let mut v = render::json_error_in(crate::exit::USAGE, e, field.clone(), lang);
    if let Some(m) = v["error"]["message"].as_str() {
        let mut m = m.to_string();
        if let Some(key) = field {
            let flag = format!("--{}", key.replace('_', "-"));
            m = replace_flag(&m, &flag, &format!("`{key}`")).replace("``", "`");
        }
        for (flag, key) in FLAG_KEYS {
            m = replace_flag(&m, flag, &format!("`{}`", at.key(key)));
        }
        v["error"]["message"] = serde_json::Value::String(m.replace("``", "`"));
    }
    Answer {
        status: StatusCode::BAD_REQUEST,
        body: Bytes::from(serde_json::to_string_pretty(&v).unwrap_or_default()),
    }
}

/// Where a request's serving and parallel keys live: `/plan` serves from `serve`, `/estimate`
/// from `inference`; `tp` is `training.parallel.tp` for a training estimate.
#[derive(Clone, Copy)]
struct Sections {
    serving: &'static str,
    parallel: &'static str,
}

impl Sections {
    const PLAN: Sections = Sections {
        serving: "serve",
        parallel: "training.parallel",
    };
    fn estimate(f: &WorkloadFile) -> Sections {
        let inference =
            f.inference.is_some() || matches!(f.kind, Some(gpuplan_core::job::JobKind::Inference));
        Sections {
            serving: "inference",
            parallel: if inference {
                "inference"
            } else {
                "training.parallel"
            },
        }
    }
    /// `key` with `{s}` (the serving table) and `{p}` (the parallel one) filled in.
    fn key(self, key: &str) -> String {
        key.replace("{s}", self.serving)
            .replace("{p}", self.parallel)
    }
}

/// The CLI flags the checks' messages name, and the body key (docs/workload-format.md) or query
/// parameter each stands for in a request.
const FLAG_KEYS: &[(&str, &str)] = &[
    ("--model-config", "config"),
    ("--model", "model"),
    ("--task", "training.task"),
    ("--precision", "training.precision"),
    ("--seq-len", "training.seq_len"),
    ("--tokens", "training.tokens"),
    ("--samples", "training.samples"),
    ("--epochs", "training.epochs"),
    ("--micro-batch", "training.micro_batch"),
    ("--recompute", "training.recompute"),
    ("--bytes-per-sample", "training.bytes_per_sample"),
    ("--global-batch", "global_batch"),
    ("--tp", "{p}.tp"),
    ("--pp", "training.parallel.pp"),
    ("--cp", "training.parallel.cp"),
    ("--zero", "training.parallel.zero"),
    ("--virtual-stages", "training.parallel.virtual_stages"),
    ("--gpu", "hardware.gpu"),
    ("--nodes", "hardware.nodes"),
    ("--gpus-per-node", "hardware.gpus_per_node"),
    ("--batch", "inference.batch"),
    ("--input-tokens", "{s}.input_tokens"),
    ("--output-tokens", "{s}.output_tokens"),
    ("--weights", "{s}.weights"),
    ("--engine", "{s}.engine"),
    ("--max-model-len", "{s}.max_model_len"),
    ("--max-num-seqs", "{s}.max_num_seqs"),
    ("--gpu-memory-utilization", "{s}.gpu_memory_utilization"),
    ("--rate", "serve.rate_rps"),
    ("--concurrency", "serve.concurrency"),
    ("--ttft", "serve.ttft_s"),
    ("--tpot", "serve.tpot_s"),
    ("--min-replicas", "serve.min_replicas"),
    ("--peak-factor", "serve.peak_factor"),
    ("--steps", "serve.steps"),
    ("--guidance", "serve.guidance"),
    ("--max-nodes", "constraints.max_nodes"),
    ("--budget", "constraints.budget_cny"),
    ("--deadline", "constraints.deadline_hours"),
    ("--provider", "constraints.providers"),
    ("--region", "constraints.regions"),
    ("--chips", "constraints.chips"),
    ("--billing", "constraints.billing"),
    ("--interruptible", "constraints.interruptible"),
    ("--preemption-rate", "constraints.preemption_rate"),
    ("--reuse-hours", "constraints.reuse_hours_per_month"),
    ("--optimize", "objective"),
    ("--set", "tunables"),
    ("--top", "top"),
    ("--dataset-size", "dataset-size"),
    ("--instance", "instance"),
];

/// `text` with each whole `flag` (not followed by a letter, digit or `-`) replaced by `with`:
/// `--model` in "--model-config" is another flag (audit r15 #9: the API's empty-model message
/// read "(`model`-config, …").
fn replace_flag(text: &str, flag: &str, with: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find(flag) {
        let after = &rest[i + flag.len()..];
        let whole = after
            .chars()
            .next()
            .is_none_or(|c| !(c.is_ascii_alphanumeric() || c == '-'));
        out.push_str(&rest[..i]);
        out.push_str(if whole { with } else { flag });
        rest = after;
    }
    out.push_str(rest);
    out
}

fn query_error(e: query::QueryError, lang: Lang) -> Answer {
    Answer::bad(e.message, Some(e.field).filter(|f| !f.is_empty()), lang)
}

/// Errors answered before a handler runs (body over the limit, timeout, wrong method) come as
/// plain text from the layers: turn them into the same JSON error object, in the request's
/// language.
pub async fn json_errors(req: axum::extract::Request, next: axum::middleware::Next) -> Response {
    let (parts, body) = req.into_parts();
    let lang = ReqLang::of(&parts).0;
    let r = next
        .run(axum::extract::Request::from_parts(parts, body))
        .await;
    let status = r.status();
    let is_json = r
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/json"));
    if !(status.is_client_error() || status.is_server_error()) || is_json {
        return r;
    }
    let m = match status {
        StatusCode::PAYLOAD_TOO_LARGE => {
            Msg::new("api-err-too-large").arg("kib", super::MAX_BODY_BYTES / 1024)
        }
        StatusCode::REQUEST_TIMEOUT => {
            Msg::new("api-err-timeout").arg("s", super::REQUEST_TIMEOUT.as_secs())
        }
        StatusCode::METHOD_NOT_ALLOWED => Msg::new("api-err-method"),
        s => Msg::new("api-err-http").arg("status", s.to_string()),
    };
    Answer::error_msg(status, m, None, lang).into_response()
}

pub async fn not_found(lang: ReqLang) -> Answer {
    Answer::error_msg(
        StatusCode::NOT_FOUND,
        Msg::new("api-err-not-found"),
        None,
        lang.0,
    )
}

#[utoipa::path(get, path = "/api/v1/healthz", responses((status = 200, description = "the server is up", body = super::openapi::Document), (status = 503, description = "not ready", body = super::openapi::ErrorDocument)))]
pub async fn healthz() -> Answer {
    doc(
        "health",
        &serde_json::json!({ "status": "ok", "version": env!("CARGO_PKG_VERSION") }),
    )
}

/// The body as a workload file: the error names the key path (`constraints.deadline_hours`) as
/// the CLI names the key of a TOML file. A server reads no files, so `model_config` is refused.
/// A key of the body that only `/plan` reads (`serve`, `constraints`, `objective`): sent to
/// `/estimate` it would be ignored silently and the estimate would answer another question.
fn plan_only_key(f: &WorkloadFile) -> Option<&'static str> {
    [
        ("serve", f.serve.is_some()),
        ("constraints", f.constraints.is_some()),
        ("objective", f.objective.is_some()),
    ]
    .into_iter()
    .find_map(|(k, present)| present.then_some(k))
}

/// The mirror of [`plan_only_key`]: keys of the body that only `/estimate` reads (`hardware`,
/// `inference`). `/plan` searches the hardware and takes its serving settings from `serve`, so
/// `{"hardware": {"gpu": "H100", "nodes": 0}}` was answered 200 with plans on every GPU.
fn estimate_only_key(f: &WorkloadFile) -> Option<&'static str> {
    [
        ("hardware", f.hardware.is_some()),
        ("inference", f.inference.is_some()),
    ]
    .into_iter()
    .find_map(|(k, present)| present.then_some(k))
}

/// Whether a `content-type` names JSON: `application/json` or a `+json` type, parameters
/// (`; charset=utf-8`) and case aside.
pub fn is_json_type(value: &str) -> bool {
    let mime = value
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    mime == "application/json" || (mime.starts_with("application/") && mime.ends_with("+json"))
}

/// A POST body is read only under a JSON `content-type` (415 otherwise, naming the header and
/// the value to send). A body sent as `text/plain`, a form, or with no type is what a web page
/// on any site can make a browser send to this loopback server without a CORS preflight (a
/// "simple request": Fetch standard §4.1 "CORS-safelisted request-header", whose
/// `content-type` must be `application/x-www-form-urlencoded`, `multipart/form-data` or
/// `text/plain`); requiring JSON's type makes the browser ask first, and the server grants no
/// cross-origin access (audit r16 #2). gpuplan's page and docs/serve.md's curl example send it.
fn json_content_type(headers: &HeaderMap, lang: Lang) -> Result<(), Answer> {
    let got = headers
        .get(header::CONTENT_TYPE)
        .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned());
    if got.as_deref().is_some_and(is_json_type) {
        return Ok(());
    }
    let m = match got {
        Some(g) => Msg::new("api-err-content-type").arg("got", gpuplan_core::error::shorten(g)),
        None => Msg::new("api-err-content-type-none"),
    };
    Err(Answer::error_msg(
        StatusCode::UNSUPPORTED_MEDIA_TYPE,
        m,
        Some("content-type".into()),
        lang,
    ))
}

/// A POST body as the workload file: its `content-type` first ([`json_content_type`]), then
/// the bytes ([`parse_body`]); what `/plan` and `/estimate` both read.
fn json_body(headers: &HeaderMap, body: &[u8], lang: Lang) -> Result<WorkloadFile, Answer> {
    json_content_type(headers, lang)?;
    parse_body(body, lang)
}

pub fn parse_body(body: &[u8], lang: Lang) -> Result<WorkloadFile, Answer> {
    // A UTF-8 byte-order mark is encoding metadata (`curl --data-binary @file` of a file a
    // Windows editor saved), read past as the CLI does (cmd::without_bom).
    let body = body.strip_prefix(b"\xef\xbb\xbf").unwrap_or(body);
    let text = std::str::from_utf8(body).map_err(|e| {
        Answer::bad(
            Msg::new("api-err-body-utf8").arg("at", e.valid_up_to()),
            None,
            lang,
        )
    })?;
    if text.trim().is_empty() {
        return Err(Answer::bad(
            Msg::new("api-err-body-empty").arg(
                "example",
                r#"{"model": "Qwen2.5-7B", "training": {"task": "lora"}}"#,
            ),
            None,
            lang,
        ));
    }
    // The body parsed once as JSON: its checks and the keys it states are read from that value
    // (the typed workload from the text, `typed_body`).
    let mut raw: Option<serde_json::Value> = serde_json::from_str(text).ok();
    not_an_object(raw.as_ref(), lang)?;
    // The weight words a workload file and `--weights` take (audit r22 #1: `"weights": "awq"`
    // was refused as a string); a word naming no format is refused naming the key and the words.
    let awq = match raw.as_ref() {
        Some(v) => gpuplan_core::job::weight_words(v).map_err(|e| {
            let field = e.field().map(str::to_string);
            Answer::bad(e.message(), field, lang)
        })?,
        None => Default::default(),
    };
    let mut file = typed_body(text, raw.as_mut(), lang)?;
    if file.model_config.is_some() {
        return Err(Answer::bad(
            Msg::new("api-err-model-config"),
            Some("model_config".into()),
            lang,
        ));
    }
    if file.model.is_none() && file.config.is_none() {
        return Err(Answer::bad(
            Msg::new("api-err-no-model").arg(
                "example",
                r#"{"model": "Qwen2.5-7B", "training": {"task": "lora"}}"#,
            ),
            Some("model".into()),
            lang,
        ));
    }
    // The `training` keys the body states are kept by the plan search, as in a workload file.
    if let Some(v) = raw.as_ref() {
        file.mark_stated(v);
    }
    awq.apply(&mut file);
    Ok(file)
}

/// The typed workload of the body: read from its text, for an error's line, column and key and
/// because a JSON value keeps the last of two same keys where the typed read refuses them; then,
/// where `raw` (the body's JSON) holds a `-0`, read again from `raw` with every `-0` read as 0
/// (`job::clear_negative_zeros_json`).
fn typed_body(
    text: &str,
    raw: Option<&mut serde_json::Value>,
    lang: Lang,
) -> Result<WorkloadFile, Answer> {
    let de = &mut serde_json::Deserializer::from_str(text);
    let file: WorkloadFile =
        serde_path_to_error::deserialize(de).map_err(|e| body_parse_error(e, lang))?;
    let Some(v) = raw else {
        return Ok(file);
    };
    if !gpuplan_core::job::clear_negative_zeros_json(v) {
        return Ok(file);
    }
    serde_json::from_value(v.clone()).map_err(|e| {
        Answer::bad(
            Msg::new("err-parse")
                .arg("what", Msg::new("api-body"))
                .arg("message", render::serde_message(&e.to_string())),
            None,
            lang,
        )
    })
}

/// The CLI's message for a workload file that does not parse (`err-parse`), with the parser's
/// phrases in the request's language, the body standing for the file: its line, column and key.
fn body_parse_error(e: serde_path_to_error::Error<serde_json::Error>, lang: Lang) -> Answer {
    let path = e.path().to_string();
    let inner = e.into_inner();
    let at = format!("line {}, column {}", inner.line(), inner.column());
    let suffix = format!(" at line {} column {}", inner.line(), inner.column());
    let msg = inner.to_string();
    let inner = msg.strip_suffix(&suffix).unwrap_or(&msg);
    let (message, field) = if path == "." || path == "?" || path.is_empty() {
        (format!("{at}: {inner}"), None)
    } else {
        (format!("{at}, key `{path}`: {inner}"), Some(path))
    };
    Answer::bad(
        Msg::new("err-parse")
            .arg("what", Msg::new("api-body"))
            .arg("message", render::serde_message(&message)),
        field,
        lang,
    )
}

/// A body that is valid JSON but not an object (`[]`, `"x"`, `3`): what it is and the shape to
/// send (audit r15 #6: serde's "invalid length 0, expected struct WorkloadFile with 12
/// elements").
/// A table given as a list is refused as in a workload file (`job::table_given_as_list`).
fn not_an_object(raw: Option<&serde_json::Value>, lang: Lang) -> Result<(), Answer> {
    let got = match raw {
        Some(v @ serde_json::Value::Object(_)) => {
            return match gpuplan_core::job::table_given_as_list(v) {
                Some(e) => {
                    let field = e.field().map(str::to_string);
                    Err(Answer::bad(e.message(), field, lang))
                }
                None => Ok(()),
            };
        }
        Some(serde_json::Value::Array(_)) => "array",
        Some(serde_json::Value::String(_)) => "string",
        Some(serde_json::Value::Number(_)) => "number",
        Some(serde_json::Value::Bool(_)) => "boolean",
        Some(serde_json::Value::Null) => "null",
        None => return Ok(()),
    };
    Err(Answer::bad(
        Msg::new("api-err-body-object").arg("got", got).arg(
            "example",
            r#"{"model": "Qwen2.5-7B", "training": {"task": "lora"}}"#,
        ),
        None,
        lang,
    ))
}

/// Run CPU-bound work off the async threads, at most `jobs` at once (the permit is held until the
/// work ends, even when the request has timed out), and catch a panic as a 500.
async fn blocking(
    st: &Arc<AppState>,
    lang: Lang,
    f: impl FnOnce() -> Answer + Send + 'static,
) -> Answer {
    let permit = match st.jobs.clone().acquire_owned().await {
        Ok(p) => p,
        Err(e) => return Answer::error(StatusCode::SERVICE_UNAVAILABLE, &e.into(), None, lang),
    };
    match tokio::task::spawn_blocking(move || {
        let a = f();
        drop(permit);
        a
    })
    .await
    {
        Ok(a) => a,
        Err(e) => Answer::error_msg(
            StatusCode::INTERNAL_SERVER_ERROR,
            Msg::new("api-err-internal").arg("error", e.to_string()),
            None,
            lang,
        ),
    }
}

/// Flags a plan request may take in its query (the rest is the body).
pub const PLAN_QUERY: &[&str] = &["top", "optimize", "deadline", "dataset-size"];

#[utoipa::path(post, path = "/api/v1/plan", request_body(content = gpuplan_core::job::WorkloadFile, description = "A workload file as JSON (docs/workload-format.md): `model`, `training` or `serve`, `constraints`, `objective`, `global_batch`, `tunables`. `model_config` (a path) is refused: give `config` inline."),
    params(
        ("top" = Option<usize>, Query, description = "plans to return, 1–1000 (default 5), as `gpuplan plan --top`"),
        ("optimize" = Option<String>, Query, description = "cost | time | balanced (default: the body's `objective`, else cost)"),
        ("deadline" = Option<String>, Query, description = "hours (24) or 24h / 30d / 90m, as `--deadline`; overrides `constraints.deadline_hours`"),
        ("dataset-size" = Option<String>, Query, description = "dataset size on storage, e.g. 30TB or 500GiB, as `--dataset-size`"),
    ),
    responses((status = 200, description = "the `plan` document (docs/json-schema.md); no plans means none meets the constraints, `outcome.rejected` says which binds", body = super::openapi::Document), (status = 400, description = "bad input: the message names the field", body = super::openapi::ErrorDocument)))]
pub async fn plan(
    State(st): St,
    ReqLang(lang): ReqLang,
    Query(q): Pairs,
    headers: HeaderMap,
    body: Bytes,
) -> Answer {
    let file = match json_body(&headers, &body, lang) {
        Ok(f) => f,
        Err(a) => return a,
    };
    if let Some(key) = estimate_only_key(&file) {
        return Answer::bad(
            Msg::new("api-err-estimate-key").arg("key", key),
            Some(key.into()),
            lang,
        );
    }
    let args: PlanArgs = match query::parse(&q, PLAN_QUERY, lang) {
        Ok(a) => a,
        Err(e) => return query_error(e, lang),
    };
    // The answer's warnings are in the request's language, so the language joins the key.
    let q: Vec<_> = q.into_iter().filter(|(k, _)| k != "lang").collect();
    let today = crate::cmd::prices::today_secs();
    // The whole file joins the key, what its JSON does not write included: the pins (a key
    // stated at its default value serialises as one left out), a checkpoint interval stated at
    // the default hour (written as one not stated, which Daly's optimum replaces) and AWQ asked
    // for by name (written as int4).
    let key = format!(
        "plan\0{}\0{}\0{:?}\0{:?}",
        today / 86_400,
        lang.code(),
        q,
        file
    );
    if let Some(hit) = st.cached(&key) {
        return Answer {
            status: StatusCode::OK,
            body: hit,
        };
    }
    let st2 = st.clone();
    blocking(&st, lang, move || {
        let a = plan_answer(&st2, (&args, &q), file, today, lang);
        if a.status == StatusCode::OK {
            st2.remember(key, a.body.clone());
        }
        a
    })
    .await
}

fn plan_answer(
    st: &AppState,
    (args, q): (&PlanArgs, &[(String, String)]),
    file: WorkloadFile,
    today: i64,
    lang: Lang,
) -> Answer {
    let body = serde_json::to_value(&file).unwrap_or_default();
    let req = match crate::cmd::plan::build_request_from(args, file, lang) {
        Ok(r) => r,
        Err(e) => {
            let field = query_param_of(&e, PLAN_QUERY, q).or_else(|| body_field(&e, &body));
            return query_value_error(&e, field, Sections::PLAN, lang);
        }
    };
    if req.constraints.max_nodes > MAX_API_NODES {
        return Answer::bad(
            Msg::new("api-err-max-nodes")
                .arg("value", req.constraints.max_nodes)
                .arg("max", MAX_API_NODES),
            Some("constraints.max_nodes".into()),
            lang,
        );
    }
    // Advice for the plans the answer carries (`top`).
    let out = match gpuplan_core::plan::plan_shown(&req, &st.catalog, args.top) {
        Ok(o) => o,
        Err(e) => {
            let e = anyhow::Error::from(e);
            let field = body_field(&e, &body);
            return query_value_error(&e, field, Sections::PLAN, lang);
        }
    };
    let ages = crate::cmd::prices::plan_price_ages(
        &out.plans,
        args.top.max(1),
        today,
        &req.constraints.regions,
    );
    // The warnings `gpuplan plan` prints on stderr, in the order it prints them.
    let mut warnings = crate::cmd::plan::model_warnings(&req, lang);
    warnings.extend(crate::cmd::plan::region_warnings(&req, &st.catalog));
    warnings.extend(crate::cmd::prices::stale_warnings(&ages, lang));
    doc(
        "plan",
        &crate::cmd::plan::plan_json(&req, &out, args.top, &ages, &warnings, lang),
    )
}

/// Flags an estimate request may take in its query.
pub const ESTIMATE_QUERY: &[&str] = &["instance"];

#[utoipa::path(post, path = "/api/v1/estimate", request_body(content = gpuplan_core::job::WorkloadFile, description = "A workload file as JSON with `hardware` (or the `instance` parameter)"),
    params(("instance" = Option<String>, Query, description = "a catalog instance type as the hardware, as `gpuplan estimate --instance`")),
    responses((status = 200, description = "`training_estimate` or `inference_estimate` (docs/json-schema.md)", body = super::openapi::Document), (status = 400, description = "bad input: the message names the field", body = super::openapi::ErrorDocument)))]
pub async fn estimate(
    State(st): St,
    ReqLang(lang): ReqLang,
    Query(q): Pairs,
    headers: HeaderMap,
    body: Bytes,
) -> Answer {
    let file = match json_body(&headers, &body, lang) {
        Ok(f) => f,
        Err(a) => return a,
    };
    if let Some(key) = plan_only_key(&file) {
        return Answer::bad(
            Msg::new("api-err-plan-key").arg("key", key),
            Some(key.into()),
            lang,
        );
    }
    let args: EstimateArgs = match query::parse(&q, ESTIMATE_QUERY, lang) {
        Ok(a) => a,
        Err(e) => return query_error(e, lang),
    };
    let at = Sections::estimate(&file);
    let st2 = st.clone();
    blocking(&st, lang, move || {
        let cat = || Ok(st2.catalog.clone());
        match crate::cmd::estimate::compute(&args, file, lang, &cat) {
            Ok(x) => {
                let (kind, body) = crate::cmd::estimate::estimate_json(&x);
                doc(kind, &body)
            }
            Err(e) => {
                let field = query_param_of(&e, ESTIMATE_QUERY, &q).or_else(|| {
                    let unknown_instance = format!("{e:#}").contains("instance type `");
                    (unknown_instance && args.instance.is_some()).then(|| "instance".to_string())
                });
                query_value_error(&e, field, at, lang)
            }
        }
    })
    .await
}

#[utoipa::path(get, path = "/api/v1/models", responses((status = 200, description = "the `models` document: every built-in preset", body = super::openapi::Document), (status = 500, description = "the built-in presets failed to load", body = super::openapi::ErrorDocument)))]
pub async fn models(ReqLang(lang): ReqLang) -> Answer {
    match gpuplan_core::model::presets() {
        Ok(all) => doc("models", &crate::cmd::models::list_json(all)),
        Err(e) => Answer::error(StatusCode::INTERNAL_SERVER_ERROR, &e.into(), None, lang),
    }
}

#[utoipa::path(get, path = "/api/v1/models/{name}", params(("name" = String, Path, description = "a preset name (`gpuplan models`)")), responses((status = 200, description = "the `model` document: architecture, parameter breakdown, sources", body = super::openapi::Document), (status = 404, description = "unknown model: the message lists close names", body = super::openapi::ErrorDocument)))]
pub async fn model(Path(name): Path<String>, ReqLang(lang): ReqLang) -> Answer {
    match gpuplan_core::model::find_preset(&name) {
        Ok(p) => doc("model", &crate::cmd::models::show_json(&p.model)),
        Err(e) => Answer::error(StatusCode::NOT_FOUND, &e.into(), Some("name".into()), lang),
    }
}

#[utoipa::path(get, path = "/api/v1/catalog/gpus", responses((status = 200, description = "the `gpus` document", body = super::openapi::Document), (status = 500, description = "internal error", body = super::openapi::ErrorDocument)))]
pub async fn gpus(State(st): St) -> Answer {
    doc("gpus", &crate::cmd::catalog::gpus_json(&st.catalog))
}

/// `gpuplan catalog instances` filters, as query parameters.
pub const INSTANCE_QUERY: &[&str] = &[
    "provider",
    "gpu",
    "gpus",
    "min-gpu-memory",
    "rdma",
    "nvlink",
    "region",
    "max-price",
    "billing",
    "vgpu",
];

#[utoipa::path(get, path = "/api/v1/catalog/instances",
    params(
        ("provider" = Option<String>, Query, description = "alibaba | huawei | tencent"),
        ("gpu" = Option<String>, Query, description = "GPU id or name prefix"),
        ("gpus" = Option<f64>, Query, description = "GPUs per instance"),
        ("min-gpu-memory" = Option<f64>, Query, description = "GiB per GPU at least"),
        ("rdma" = Option<bool>, Query, description = "only RDMA types"),
        ("nvlink" = Option<bool>, Query, description = "only NVLink/NVSwitch/HCCS types"),
        ("region" = Option<String>, Query, description = "documented or priced in this region"),
        ("max-price" = Option<f64>, Query, description = "CNY per hour (per month with billing=monthly) at most"),
        ("billing" = Option<String>, Query, description = "on-demand | monthly | spot"),
        ("vgpu" = Option<bool>, Query, description = "include vGPU slices"),
    ),
    responses((status = 200, description = "the `instances` document, as `gpuplan catalog instances --format json`", body = super::openapi::Document), (status = 400, description = "bad input: the message names the field", body = super::openapi::ErrorDocument)))]
pub async fn instances(State(st): St, ReqLang(lang): ReqLang, Query(q): Pairs) -> Answer {
    let f = match query::parse::<InstanceFilterArgs>(&q, INSTANCE_QUERY, lang) {
        Ok(f) => f,
        Err(e) => return query_error(e, lang),
    };
    // Name each value as the request did (`max_price` or `max-price`).
    let key = |flag: &str| {
        q.iter()
            .map(|(k, _)| k)
            .find(|k| k.replace('_', "-") == flag)
            .map_or_else(|| flag.to_string(), |k| k.to_string())
    };
    if let Err(e) = crate::cmd::catalog::check_filter_named(&f, &key) {
        let field = e.field().map(str::to_string);
        return Answer::error(
            StatusCode::BAD_REQUEST,
            &anyhow::Error::from(e),
            field,
            lang,
        );
    }
    if let Err(e) = crate::cmd::catalog::check_gpu_known(&st.catalog, &key("gpu"), f.gpu.as_deref())
    {
        return Answer::error(StatusCode::BAD_REQUEST, &e, Some(key("gpu")), lang);
    }
    let region = f.region.as_deref();
    if let Err(e) = crate::cmd::catalog::check_region_known(&st.catalog, &key("region"), region) {
        return Answer::error(StatusCode::BAD_REQUEST, &e, Some(key("region")), lang);
    }
    doc(
        "instances",
        &crate::cmd::catalog::instances_json(&st.catalog, &f),
    )
}

/// `gpuplan prices` filters, as query parameters.
pub const PRICES_QUERY: &[&str] = &["provider", "gpu", "billing"];

#[utoipa::path(get, path = "/api/v1/prices",
    params(
        ("provider" = Option<String>, Query, description = "alibaba | huawei | tencent"),
        ("gpu" = Option<String>, Query, description = "GPU id or name prefix"),
        ("billing" = Option<String>, Query, description = "on-demand | monthly | spot"),
    ),
    responses((status = 200, description = "the `prices` document: kind, region and age of every price", body = super::openapi::Document), (status = 400, description = "bad input: the message names the field", body = super::openapi::ErrorDocument)))]
pub async fn prices(State(st): St, ReqLang(lang): ReqLang, Query(q): Pairs) -> Answer {
    let f = match query::parse::<PricesListArgs>(&q, PRICES_QUERY, lang) {
        Ok(f) => f,
        Err(e) => return query_error(e, lang),
    };
    if let Err(e) = crate::cmd::prices::check_gpu_word("gpu", f.gpu.as_deref()) {
        let field = e.field().map(str::to_string);
        let e = anyhow::Error::from(e);
        return Answer::error(StatusCode::BAD_REQUEST, &e, field, lang);
    }
    if let Err(e) = crate::cmd::catalog::check_gpu_known(&st.catalog, "gpu", f.gpu.as_deref()) {
        return Answer::error(StatusCode::BAD_REQUEST, &e, Some("gpu".into()), lang);
    }
    doc("prices", &crate::cmd::prices::list_json(&st.catalog, &f))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Audit r15 #9: only a whole flag is a query parameter's name.
    #[test]
    fn a_flag_inside_a_longer_flag_is_kept() {
        let m = "give --model NAME or --model-config PATH; --model.";
        assert_eq!(
            replace_flag(m, "--model", "`model`"),
            "give `model` NAME or --model-config PATH; `model`."
        );
    }

    #[test]
    fn the_language_comes_from_the_query_then_accept_language() {
        let l = request_lang;
        assert_eq!(l(None, None), Lang::En);
        assert_eq!(l(Some("top=3&lang=zh"), Some("en")), Lang::Zh);
        assert_eq!(l(Some("lang=en"), Some("zh-CN")), Lang::En);
        assert_eq!(l(Some("lang=fr"), Some("zh-CN")), Lang::Zh);
        assert_eq!(l(None, Some("zh-CN,zh;q=0.9,en;q=0.8")), Lang::Zh);
        assert_eq!(l(None, Some("en-US,en;q=0.9,zh;q=0.8")), Lang::En);
        assert_eq!(l(None, Some("fr, en;q=0.3, zh-TW;q=0.6")), Lang::Zh);
        assert_eq!(l(None, Some("zh;q=0, en;q=0.1")), Lang::En);
        assert_eq!(l(None, Some("de, fr;q=0.5")), Lang::En);
        assert_eq!(l(None, Some("zh;q=nan")), Lang::Zh);
        assert_eq!(l(None, Some(";;,,q=")), Lang::En);
    }

    /// Review r13 #3: a body's `inference.weights` counts as stated at its default (bf16) too,
    /// as in a workload file, so an unread checkpoint can be served dequantized from the API.
    #[test]
    fn a_stated_bf16_weights_key_counts_as_given() {
        let given = |body: &str| {
            parse_body(body.as_bytes(), Lang::En)
                .map(|f| f.inference_weights_given)
                .unwrap_or_else(|_| panic!("{body}"))
        };
        // A body names its model (a body without one is refused: `api-err-no-model`).
        assert!(given(
            r#"{"model": "Qwen2.5-7B", "inference": {"weights": {"format": "bf16"}}}"#
        ));
        assert!(!given(
            r#"{"model": "Qwen2.5-7B", "inference": {"input_tokens": 100}}"#
        ));
        assert!(!given(r#"{"model": "Llama-3.1-8B"}"#));
    }

    /// The JSON API and a workload file give the same workload for the same input: the typed
    /// values, the `training` keys stated, a stated `inference.weights`, a stated checkpoint
    /// interval (its default value included) and the AWQ mark, from one reading of each
    /// (`WorkloadFile::mark_stated`).
    #[test]
    fn the_body_and_the_file_read_the_same_workload() {
        let cases = [
            (
                r#"{"model": "Qwen2.5-7B", "training": {"task": "lora", "parallel": {"zero": 3}},
                    "tunables": {"checkpoint_interval_hours": 1.0, "startup_hours": -0.0}}"#,
                "model = \"Qwen2.5-7B\"\n[training]\ntask = \"lora\"\n[training.parallel]\n\
                 zero = 3\n[tunables]\ncheckpoint_interval_hours = 1.0\nstartup_hours = -0.0\n",
            ),
            (
                r#"{"model": "Qwen2.5-7B", "inference": {"weights": "awq"},
                    "tunables": {"fragmentation": 0.1}}"#,
                "model = \"Qwen2.5-7B\"\n[inference]\nweights = \"awq\"\n[tunables]\n\
                 fragmentation = 0.1\n",
            ),
        ];
        for (body, file) in cases {
            let b = parse_body(body.as_bytes(), Lang::En).unwrap_or_else(|_| panic!("{body}"));
            let f = gpuplan_core::job::parse_workload("w.toml", file).expect("file");
            assert_eq!(b, f, "{body}");
        }
        let b = parse_body(cases[0].0.as_bytes(), Lang::En).unwrap_or_else(|_| panic!());
        let t = b.tunables.expect("tunables");
        assert_eq!(t.checkpoint_interval_hours, Some(1.0));
        assert!(b.pins.zero && b.pins.keys().len() == 1);
        let b = parse_body(cases[1].0.as_bytes(), Lang::En).unwrap_or_else(|_| panic!());
        assert!(b.inference_weights_given && b.inference_weights_awq);
        assert_eq!(
            b.tunables.expect("tunables").checkpoint_interval_hours,
            None
        );
    }
}
