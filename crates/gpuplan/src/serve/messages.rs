//! The page's strings: Fluent files `crates/gpuplan-core/locales/{en,zh}/web.ftl`, embedded at
//! build time and served as JSON (`GET /api/v1/messages/{lang}`). Until the shared message
//! catalog (`gpuplan_core::i18n`, issue 13) lands, this small reader turns each message into
//! its text, with `{ $var }` placeables kept as `{$var}` for the page to fill in.

use super::api::Answer;
use axum::extract::Path;
use axum::http::StatusCode;
use fluent_syntax::ast;
use std::collections::BTreeMap;

/// The languages served, with their Fluent source.
pub const LOCALES: &[(&str, &str)] = &[
    (
        "en",
        include_str!("../../../gpuplan-core/locales/en/web.ftl"),
    ),
    (
        "zh",
        include_str!("../../../gpuplan-core/locales/zh/web.ftl"),
    ),
];

/// id → text of every message of a Fluent file; a syntax error names the line.
pub fn messages(source: &str) -> Result<BTreeMap<String, String>, String> {
    let res = fluent_syntax::parser::parse(source).map_err(|(_, errs)| {
        errs.iter()
            .map(|e| {
                let line = source[..e.pos.start.min(source.len())]
                    .matches('\n')
                    .count()
                    + 1;
                format!("line {line}: {:?}", e.kind)
            })
            .collect::<Vec<_>>()
            .join("; ")
    })?;
    let mut out = BTreeMap::new();
    for entry in res.body {
        if let ast::Entry::Message(m) = entry {
            if let Some(p) = m.value {
                out.insert(m.id.name.to_string(), text(&p)?);
            }
        }
    }
    Ok(out)
}

fn text(p: &ast::Pattern<&str>) -> Result<String, String> {
    let mut s = String::new();
    for el in &p.elements {
        match el {
            ast::PatternElement::TextElement { value } => s.push_str(value),
            ast::PatternElement::Placeable { expression } => {
                match expression {
                    ast::Expression::Inline(ast::InlineExpression::VariableReference { id }) => {
                        s.push_str(&format!("{{${}}}", id.name))
                    }
                    ast::Expression::Inline(ast::InlineExpression::StringLiteral { value }) => {
                        s.push_str(value)
                    }
                    _ => return Err(
                        "only { $variable } and string-literal placeables are supported in web.ftl"
                            .into(),
                    ),
                }
            }
        }
    }
    Ok(s)
}

#[utoipa::path(get, path = "/api/v1/messages/{lang}", params(("lang" = String, Path, description = "en | zh")), responses((status = 200, description = "the page's strings: `messages` maps each Fluent id to its text", body = super::openapi::Document), (status = 404, description = "language not served", body = super::openapi::ErrorDocument)))]
pub async fn handler(Path(lang): Path<String>) -> Answer {
    let Some((l, src)) = LOCALES.iter().find(|(l, _)| lang.eq_ignore_ascii_case(l)) else {
        let known: Vec<_> = LOCALES.iter().map(|(l, _)| *l).collect();
        return Answer::error(
            StatusCode::NOT_FOUND,
            &anyhow::anyhow!("language `{lang}`: served are {}", known.join(", ")),
            Some("lang".into()),
        );
    };
    match messages(src) {
        Ok(m) => {
            match crate::render::json("messages", &serde_json::json!({ "lang": l, "messages": m }))
            {
                Ok(s) => Answer::from_text(s),
                Err(e) => Answer::error(StatusCode::INTERNAL_SERVER_ERROR, &e, None),
            }
        }
        Err(e) => Answer::error(
            StatusCode::INTERNAL_SERVER_ERROR,
            &anyhow::anyhow!("locales/{l}/web.ftl: {e}"),
            None,
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_languages_parse_and_have_the_same_ids() {
        let en = messages(LOCALES[0].1).unwrap();
        let zh = messages(LOCALES[1].1).unwrap();
        assert!(en.len() > 20, "{}", en.len());
        let ek: Vec<_> = en.keys().collect();
        let zk: Vec<_> = zh.keys().collect();
        assert_eq!(ek, zk, "en and zh web.ftl must define the same messages");
        assert!(zh
            .values()
            .any(|v| v.chars().any(|c| ('\u{4e00}'..='\u{9fff}').contains(&c))));
    }

    #[test]
    fn every_string_the_page_asks_for_is_defined() {
        let en = messages(LOCALES[0].1).unwrap();
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
                asked.push(rest.split('"').next().unwrap_or("").to_string());
            }
        }
        assert!(asked.len() > 40, "{}", asked.len());
        for id in asked {
            assert!(
                en.contains_key(&id),
                "the page asks for `{id}`, missing from web.ftl"
            );
        }
    }

    #[test]
    fn variables_are_kept_for_the_page() {
        let m = messages("n-plans = { $n } plans\nplain = text\n").unwrap();
        assert_eq!(m["n-plans"], "{$n} plans");
        assert_eq!(m["plain"], "text");
        assert!(messages("bad = { $n ->\n").is_err());
    }
}
