//! Query strings as CLI flags: `?provider=alibaba&gpu=A100` is parsed by clap exactly as
//! `--provider alibaba --gpu A100`, so the API accepts the same words and gives the same messages
//! as the command line. Only the keys a route names are accepted (never a flag that reads a file),
//! and `lang` (the language of the messages, on every route).

use clap::{Args, CommandFactory, FromArgMatches, Parser};
use gpuplan_core::i18n::{Lang, Msg};

/// A clap parser for one flag group.
#[derive(Parser, Debug)]
#[command(name = "query", no_binary_name = true, disable_help_flag = true)]
struct Wrap<T: Args> {
    #[command(flatten)]
    inner: T,
}

/// A bad query: the message names the parameter.
#[derive(Debug)]
pub struct QueryError {
    pub field: String,
    pub message: Msg,
}

/// Parse `pairs` as the flags of `T`, allowing only the long names in `allowed` (as written on the
/// command line, e.g. `min-gpu-memory`; `min_gpu_memory` is accepted too).
/// Messages in `lang`, as the CLI's (`render::clap_text`).
pub fn parse<T: Args + FromArgMatches>(
    pairs: &[(String, String)],
    allowed: &[&str],
    lang: Lang,
) -> Result<T, QueryError> {
    let cmd = Wrap::<T>::command();
    let mut argv: Vec<String> = Vec::new();
    for (k, v) in pairs {
        if k == "lang" {
            continue;
        }
        let name = k.replace('_', "-");
        if !allowed.contains(&name.as_str()) {
            return Err(QueryError {
                field: k.clone(),
                message: Msg::new("api-err-query-unknown")
                    .arg("key", k.as_str())
                    .arg("allowed", code_list(allowed.iter().copied())),
            });
        }
        let takes_value = cmd
            .get_arguments()
            .find(|a| a.get_long() == Some(name.as_str()))
            .is_some_and(|a| a.get_action().takes_values());
        if takes_value {
            argv.push(format!("--{name}={v}"));
        } else {
            match v.as_str() {
                "" | "true" | "1" => argv.push(format!("--{name}")),
                "false" | "0" => {}
                _ => {
                    return Err(QueryError {
                        field: k.clone(),
                        message: Msg::new("api-err-query-switch")
                            .arg("key", k.as_str())
                            .arg("value", v.as_str()),
                    })
                }
            }
        }
    }
    let m = cmd
        .try_get_matches_from(&argv)
        .map_err(|e| value_error(&e, pairs, lang))?;
    let w = Wrap::<T>::from_arg_matches(&m).map_err(|e| QueryError {
        field: String::new(),
        message: Msg::raw(&first_line(&crate::render::clap_text(&e, lang), lang)),
    })?;
    Ok(w.inner)
}

/// Names as code, comma-separated (`` `cost`, `time` ``): parameter names and choices are
/// identifiers, not words to translate (audit r23 B: the zh message listed them bare, read as an
/// English sentence).
fn code_list<'a>(names: impl Iterator<Item = &'a str>) -> String {
    names
        .map(|n| format!("`{n}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// A value clap refused, named as the query parameter the request wrote (`max_price`, not
/// `max-price <MAX_PRICE>`) and said in the API's words (audit r9 #17): a number, a whole
/// number, one of the choices, or the value parser's own reason.
fn value_error(e: &clap::Error, pairs: &[(String, String)], lang: Lang) -> QueryError {
    use clap::error::ContextKind;
    let get = |k: ContextKind| e.get(k).map(|v| v.to_string()).unwrap_or_default();
    let flag = get(ContextKind::InvalidArg);
    let flag = flag
        .trim_start_matches("--")
        .split([' ', '='])
        .next()
        .unwrap_or("");
    let Some((key, value)) = pairs
        .iter()
        .find(|(k, _)| k != "lang" && k.replace('_', "-") == flag)
    else {
        return QueryError {
            field: flag.to_string(),
            message: Msg::raw(&first_line(&crate::render::clap_text(e, lang), lang)),
        };
    };
    let source = std::error::Error::source(e);
    let message = if source.is_some_and(|s| s.is::<std::num::ParseFloatError>()) {
        Msg::new("api-err-query-number")
    } else if source.is_some_and(|s| s.is::<std::num::ParseIntError>()) {
        Msg::new("api-err-query-integer")
    } else if e.get(ContextKind::ValidValue).is_some() {
        let valid = get(ContextKind::ValidValue);
        Msg::new("api-err-query-choice").arg("valid", code_list(valid.split(", ")))
    } else {
        let why = source.map(|s| s.to_string()).unwrap_or_default();
        Msg::new("api-err-query-value").arg("why", crate::render::serde_message(&why))
    };
    QueryError {
        field: key.clone(),
        message: message
            .arg("key", key.as_str())
            .arg("value", value.as_str()),
    }
}

/// The CLI's message for a flag without its usage lines and `error:` prefix, with flags spelled
/// as query parameters.
fn first_line(s: &str, lang: Lang) -> String {
    let line = s.lines().next().unwrap_or("");
    let mut out = line
        .strip_prefix(&gpuplan_core::i18n::text(lang, "error-prefix"))
        .unwrap_or(line)
        .replace("'--", "'");
    // clap's English message lists the valid values on a line of their own.
    let valid = s
        .lines()
        .find_map(|l| l.trim().strip_prefix("[possible values: "));
    if let Some(v) = valid {
        out.push_str(&format!(" (possible values: {})", v.trim_end_matches(']')));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::InstanceFilterArgs;

    fn q(p: &[(&str, &str)]) -> Vec<(String, String)> {
        p.iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect()
    }

    #[test]
    fn query_pairs_parse_as_flags() {
        let a: InstanceFilterArgs = parse(
            &q(&[
                ("provider", "alibaba"),
                ("gpu", "A100"),
                ("rdma", "true"),
                ("min_gpu_memory", "40"),
            ]),
            &["provider", "gpu", "rdma", "min-gpu-memory"],
            Lang::En,
        )
        .unwrap();
        assert_eq!(a.gpu.as_deref(), Some("A100"));
        assert!(a.rdma);
        assert_eq!(a.min_gpu_memory, Some(40.0));
        assert_eq!(a.provider.len(), 1);
    }

    #[test]
    fn bad_values_and_unknown_keys_name_the_parameter() {
        let e = parse::<InstanceFilterArgs>(&q(&[("provider", "aws")]), &["provider"], Lang::En)
            .unwrap_err();
        assert_eq!(e.field, "provider", "{e:?}");
        let m = e.message.render(Lang::En);
        assert!(m.contains("aws") && !m.starts_with("error"), "{m}");
        let e = parse::<InstanceFilterArgs>(&q(&[("provider", "aws")]), &["provider"], Lang::Zh)
            .unwrap_err();
        let m = e.message.render(Lang::Zh);
        assert!(m.contains("aws") && m.contains("无效"), "{m}");
        let e = parse::<InstanceFilterArgs>(&q(&[("format", "csv")]), &["provider"], Lang::En)
            .unwrap_err();
        assert_eq!(e.field, "format");
        assert!(
            e.message
                .render(Lang::En)
                .contains("unknown query parameter"),
            "{e:?}"
        );
        // Audit r9 #17: the request's own key and the API's words, not clap's `'max-price
        // <MAX_PRICE>'` and "invalid float literal".
        let allowed = &["max-price", "gpus", "billing"];
        for (lang, k, v, want) in [
            (
                Lang::En,
                "max_price",
                "abc",
                "query parameter `max_price`: 'abc' is not a number",
            ),
            (
                Lang::Zh,
                "max_price",
                "abc",
                "查询参数 `max_price` 的值 'abc' 无效：应为数字",
            ),
            (
                Lang::En,
                "max-price",
                "x",
                "query parameter `max-price`: 'x' is not a number",
            ),
            (
                Lang::En,
                "billing",
                "yearly",
                "query parameter `billing`: 'yearly' is not one of",
            ),
        ] {
            let e = parse::<InstanceFilterArgs>(&q(&[(k, v)]), allowed, lang).unwrap_err();
            assert_eq!(e.field, k, "{e:?}");
            let m = e.message.render(lang);
            assert!(m.starts_with(want), "{m}");
            assert!(!m.contains('<'), "{m}");
        }
        // `lang` is every route's and never a flag.
        let a: InstanceFilterArgs = parse(&q(&[("lang", "zh")]), &["provider"], Lang::Zh).unwrap();
        assert!(a.provider.is_empty());
    }
}
