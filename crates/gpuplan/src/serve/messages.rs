//! The page's strings, from the shared message catalog (`gpuplan_core::i18n`): the page's own
//! file `web.ftl` and the names it shows (`names.ftl`: providers, billing modes, price kinds,
//! bottlenecks; `memory.ftl`: memory components), served as JSON (`GET /api/v1/messages/{lang}`).
//! Each message is rendered by the catalog with its variables kept as `{$var}` for the page to
//! fill in ([`gpuplan_core::i18n::templates`]).

use super::api::Answer;
use axum::extract::Path;
use axum::http::StatusCode;
use gpuplan_core::i18n::{self, Lang};

/// The catalog files the page reads.
pub const PAGE_FILES: &[&str] = &["web.ftl", "names.ftl", "memory.ftl"];

/// The page's messages in `lang`: id → template.
pub fn page_messages(lang: Lang) -> std::collections::BTreeMap<String, String> {
    i18n::templates(lang, PAGE_FILES).messages
}

#[utoipa::path(get, path = "/api/v1/messages/{lang}", params(("lang" = String, Path, description = "en | zh")), responses((status = 200, description = "the page's strings: `messages` maps each Fluent id to its text", body = super::openapi::Document), (status = 404, description = "language not served", body = super::openapi::ErrorDocument)))]
pub async fn handler(Path(code): Path<String>, lang: super::api::ReqLang) -> Answer {
    let Some(l) = Lang::ALL
        .into_iter()
        .find(|l| code.eq_ignore_ascii_case(l.code()))
    else {
        return Answer::error_msg(
            StatusCode::NOT_FOUND,
            i18n::Msg::new("api-err-language").arg("lang", code.as_str()),
            Some("lang".into()),
            lang.0,
        );
    };
    match crate::render::json(
        "messages",
        &serde_json::json!({ "lang": l.code(), "messages": page_messages(l) }),
    ) {
        Ok(s) => Answer::from_text(s),
        Err(e) => Answer::error(StatusCode::INTERNAL_SERVER_ERROR, &e, None, lang.0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_languages_have_the_same_ids_and_web_ftl_has_no_plural() {
        let en = page_messages(Lang::En);
        let zh = page_messages(Lang::Zh);
        assert!(en.len() > 60, "{}", en.len());
        // (zh may have more: a plural in English is one form in Chinese, so it has a template.)
        let missing: Vec<_> = en.keys().filter(|k| !zh.contains_key(*k)).collect();
        assert!(missing.is_empty(), "missing in zh: {missing:?}");
        assert!(zh
            .values()
            .any(|v| v.chars().any(|c| ('\u{4e00}'..='\u{9fff}').contains(&c))));
        // The page fills in `{$var}` itself: a plural in web.ftl would be lost.
        for l in Lang::ALL {
            let left: Vec<_> = i18n::templates(l, &["web.ftl"]).unselectable;
            assert!(left.is_empty(), "{}: {left:?}", l.code());
        }
        assert_eq!(en["price-hover"].matches("{$").count(), 5);
        // A mixed billing (chosen.mix): the page fills in the months, hours and the rest's mode.
        for l in [&en, &zh] {
            let m = &l["billing-mix-page"];
            assert!(
                ["{$months}", "{$hours}", "{$rest}"]
                    .iter()
                    .all(|v| m.contains(v)),
                "{m}"
            );
        }
        assert_eq!(en["provider-alibaba"], "Alibaba Cloud");
        assert_eq!(zh["provider-alibaba"], "阿里云");
    }

    #[test]
    fn every_string_the_page_asks_for_is_defined() {
        let en = page_messages(Lang::En);
        let html = include_str!("assets/index.html");
        let js = include_str!("assets/app.js");
        let mut asked = Vec::new();
        for (text, open) in [
            (html, "data-i18n=\""),
            (html, "data-i18n-placeholder=\""),
            (js, "t(\""),
        ] {
            for (at, _) in text.match_indices(open) {
                // `t("id"` as a call of its own, not the tail of `set("…"` or `part("…"`.
                let before = text[..at].chars().next_back().unwrap_or(' ');
                if open == "t(\"" && (before.is_alphanumeric() || before == '_' || before == '.') {
                    continue;
                }
                let rest = &text[at + open.len()..];
                let id = rest.split('"').next().unwrap_or("").to_string();
                // `t("billing-" + c.billing)`: a prefix completed at run time; checked below.
                if rest[id.len() + 1..].trim_start().starts_with('+') {
                    continue;
                }
                asked.push(id);
            }
        }
        assert!(asked.len() > 40, "{}", asked.len());
        for id in asked {
            assert!(
                en.contains_key(&id),
                "the page asks for `{id}`, missing from {PAGE_FILES:?}"
            );
        }
        // The names the page builds from a prefix and a value of the plan JSON.
        for id in [
            "billing-on_demand",
            "billing-monthly",
            "billing-spot",
            "price-kind-list",
            "price-kind-estimate",
            "price-kind-user",
            "price-kind-api",
            "provider-alibaba",
            "provider-huawei",
            "provider-tencent",
            "mem-kv-cache-pool",
            "mem-weights",
        ] {
            assert!(en.contains_key(id), "{id}");
        }
    }
}
