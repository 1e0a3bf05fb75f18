//! `gpuplan serve`: a local web page and a JSON HTTP API (`/api/v1`) over the same code paths as
//! the CLI. Request bodies are workload files in JSON (docs/workload-format.md); responses are the
//! CLI's JSON documents (docs/json-schema.md), built by the same functions.
//!
//! Limits (each a named constant below): body size, per-request timeout, requests in flight,
//! CPU-bound jobs running at once, nodes searched per plan. The server has no authentication and
//! no TLS, so it binds to loopback unless `--allow-remote` is given.

mod api;
mod assets;
mod messages;
mod openapi;
mod query;

use crate::cli::ServeArgs;
use crate::cmd::CatalogOpts;
use anyhow::{Context, Result};
use axum::body::Bytes;
use axum::extract::DefaultBodyLimit;
use axum::http::StatusCode;
use axum::Router;
use gpuplan_core::catalog::Catalog;
use gpuplan_core::i18n::Msg;
use std::num::NonZeroUsize;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Largest request body accepted (bytes). A workload with an inline HuggingFace config is a few
/// KiB; 64 KiB leaves room for long configs and refuses anything that is not a workload.
pub const MAX_BODY_BYTES: usize = 64 * 1024;
/// A request not answered in this time gets 408 (the queue wait for a CPU slot counts).
pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(30);
/// Requests handled at once; more wait in the queue (bounded by [`REQUEST_TIMEOUT`]).
pub const MAX_IN_FLIGHT: usize = 256;
/// An oversized body declared up to this size is read and dropped before the 413 is sent, so a
/// client still writing it reads the answer instead of a reset connection (frame by frame:
/// nothing is kept, [`REQUEST_TIMEOUT`] bounds the time); larger declared bodies get the 413 at
/// once. Audit r23 B: a 10 MB body (over the 1 MiB this was) got a broken pipe, not the 413.
pub const MAX_DRAIN_BYTES: usize = 16 * 1024 * 1024;
/// Plan/estimate computations running at once per CPU core (CPU-bound; the rest wait). Together
/// with [`MAX_API_NODES`] this bounds the server's memory.
pub const JOBS_PER_CORE: usize = 2;
/// Most nodes one plan request may search (`constraints.max_nodes`); the CLI allows 4096, a
/// shared server answers cheaper requests.
pub const MAX_API_NODES: u64 = 256;
/// Answers remembered (least recently used dropped): the page asks again as the user types back
/// and forth, and shared links repeat requests. The catalog is loaded once at start, so an answer
/// stays valid until the day changes (price ages), which is part of the key.
pub const CACHE_ENTRIES: usize = 512;
/// Bytes of remembered answers at most (the oldest are dropped beyond it); one answer larger
/// than an eighth of it is not remembered.
pub const CACHE_BYTES: usize = 64 * 1024 * 1024;

/// What every handler shares.
pub struct AppState {
    pub catalog: Catalog,
    cache: Mutex<Cache>,
    jobs: Arc<tokio::sync::Semaphore>,
}

impl AppState {
    pub fn new(catalog: Catalog) -> Self {
        let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
        AppState {
            catalog,
            cache: Mutex::new(Cache {
                map: lru::LruCache::new(
                    NonZeroUsize::new(CACHE_ENTRIES).unwrap_or(NonZeroUsize::MIN),
                ),
                bytes: 0,
            }),
            jobs: Arc::new(tokio::sync::Semaphore::new(cores * JOBS_PER_CORE)),
        }
    }

    fn cached(&self, key: &str) -> Option<Bytes> {
        self.cache.lock().ok()?.map.get(key).cloned()
    }

    fn remember(&self, key: String, body: Bytes) {
        if body.len() > CACHE_BYTES / 8 {
            return;
        }
        if let Ok(mut c) = self.cache.lock() {
            c.bytes += key.len() + body.len();
            if let Some((k, old)) = c.map.push(key, body) {
                c.bytes -= k.len() + old.len();
            }
            while c.bytes > CACHE_BYTES {
                match c.map.pop_lru() {
                    Some((k, old)) => c.bytes -= k.len() + old.len(),
                    None => break,
                }
            }
        }
    }
}

/// Remembered answers, least recently used first out, with their total size in bytes.
struct Cache {
    map: lru::LruCache<String, Bytes>,
    bytes: usize,
}

/// The whole application: API, page, limits.
pub fn router(state: Arc<AppState>) -> Router {
    use tower_http::limit::RequestBodyLimitLayer;
    use tower_http::timeout::TimeoutLayer;
    Router::new()
        .nest("/api/v1", api::routes())
        .merge(assets::routes())
        .fallback(api::not_found)
        .with_state(state)
        .layer(DefaultBodyLimit::max(MAX_BODY_BYTES))
        .layer(RequestBodyLimitLayer::new(MAX_BODY_BYTES))
        .layer(axum::middleware::from_fn(drain_oversized))
        .layer(TimeoutLayer::with_status_code(
            StatusCode::REQUEST_TIMEOUT,
            REQUEST_TIMEOUT,
        ))
        .layer(tower::limit::ConcurrencyLimitLayer::new(MAX_IN_FLIGHT))
        .layer(axum::middleware::from_fn(api::json_errors))
}

/// A request whose declared body is over [`MAX_BODY_BYTES`]: 413 without running the handler,
/// after reading the body (up to [`MAX_DRAIN_BYTES`]) so that the client sees the answer.
async fn drain_oversized(
    req: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    use axum::response::IntoResponse;
    let declared = req
        .headers()
        .get(axum::http::header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    match declared {
        Some(n) if n > MAX_BODY_BYTES as u64 => {
            if n <= MAX_DRAIN_BYTES as u64 {
                drain(req.into_body()).await;
            }
            StatusCode::PAYLOAD_TOO_LARGE.into_response()
        }
        _ => next.run(req).await,
    }
}

/// Reads `body` to its end or [`MAX_DRAIN_BYTES`], dropping each frame as it comes.
async fn drain(mut body: axum::body::Body) {
    use axum::body::HttpBody;
    let mut read = 0usize;
    while read <= MAX_DRAIN_BYTES {
        let frame = std::future::poll_fn(|cx| std::pin::Pin::new(&mut body).poll_frame(cx)).await;
        match frame {
            Some(Ok(f)) => read += f.data_ref().map_or(0, |d| d.len()),
            _ => break,
        }
    }
}

/// Refuse a non-loopback address unless the user said so.
fn check_bind(a: &ServeArgs) -> Result<()> {
    if !a.bind.ip().is_loopback() && !a.allow_remote {
        return Err(crate::render::fail(
            Msg::new("serve-err-not-loopback").arg("bind", a.bind.to_string()),
        ));
    }
    Ok(())
}

pub fn run(a: ServeArgs, opts: &CatalogOpts) -> Result<u8> {
    check_bind(&a)?;
    let catalog = crate::cmd::load_catalog(opts)?;
    let state = Arc::new(AppState::new(catalog));
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| {
            anyhow::Error::new(e).context(crate::render::Localized(Msg::new("serve-err-runtime")))
        })?;
    let lang = opts.lang;
    let say = move |m: Msg| eprintln!("{}", m.render(lang));
    rt.block_on(async move {
        let listener = tokio::net::TcpListener::bind(a.bind).await.map_err(|e| {
            anyhow::Error::new(e).context(crate::render::Localized(
                Msg::new("serve-err-listen").arg("bind", a.bind.to_string()),
            ))
        })?;
        let at = listener.local_addr()?;
        say(Msg::new("serve-listening").arg("at", at.to_string()).arg(
            "reach",
            if at.ip().is_loopback() {
                "loopback"
            } else {
                "network"
            },
        ));
        axum::serve(listener, router(state))
            .with_graceful_shutdown(shutdown_signal(lang))
            .await
            .context("server error")?;
        say(Msg::new("serve-stopped"));
        Ok(0)
    })
}

/// Ctrl-C or SIGTERM: stop accepting, finish the requests in flight, exit 0.
async fn shutdown_signal(lang: gpuplan_core::i18n::Lang) {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! {
        _ = ctrl_c => {},
        _ = term => {},
    }
    eprintln!("{}", gpuplan_core::i18n::text(lang, "serve-shutting-down"));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cache_stays_within_its_byte_budget() {
        let st = AppState::new(Catalog::default());
        let big = Bytes::from(vec![b'x'; CACHE_BYTES / 10]);
        for i in 0..40 {
            st.remember(format!("k{i}"), big.clone());
            let c = st.cache.lock().unwrap();
            assert!(c.bytes <= CACHE_BYTES, "{} bytes after {i}", c.bytes);
            let sum: usize = c.map.iter().map(|(k, v)| k.len() + v.len()).sum();
            assert_eq!(sum, c.bytes);
        }
        assert!(st.cached("k39").is_some() && st.cached("k0").is_none());
        st.remember("huge".into(), Bytes::from(vec![b'y'; CACHE_BYTES / 4]));
        assert!(
            st.cached("huge").is_none(),
            "an answer over an eighth of the budget is not kept"
        );
        st.remember("k39".into(), Bytes::from_static(b"new"));
        assert_eq!(st.cached("k39").as_deref(), Some(&b"new"[..]));
        let c = st.cache.lock().unwrap();
        assert_eq!(
            c.map.iter().map(|(k, v)| k.len() + v.len()).sum::<usize>(),
            c.bytes
        );
    }

    #[test]
    fn non_loopback_bind_needs_the_flag() {
        let a = |bind: &str, allow_remote| ServeArgs {
            bind: bind.parse().unwrap(),
            allow_remote,
        };
        assert!(check_bind(&a("127.0.0.1:8700", false)).is_ok());
        assert!(check_bind(&a("[::1]:8700", false)).is_ok());
        let e = check_bind(&a("0.0.0.0:8700", false))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("--allow-remote") && e.contains("no authentication"),
            "{e}"
        );
        assert!(check_bind(&a("0.0.0.0:8700", true)).is_ok());
    }
}
