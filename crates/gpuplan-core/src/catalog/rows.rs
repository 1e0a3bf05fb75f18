//! Row-by-row parsing of user catalog files: one bad row is a finding, not a failed file.

use super::validate::{Finding, Severity};
use super::CatalogFile;
use serde::de::DeserializeOwned;

struct Rows<'a> {
    file: &'a str,
    findings: Vec<Finding>,
}

impl Rows<'_> {
    fn err(&mut self, location: String, message: impl Into<crate::i18n::Text>) {
        let t = message.into();
        self.findings.push(Finding {
            severity: Severity::Error,
            file: self.file.to_string(),
            location,
            message_zh: t.zh,
            message: t.en,
            row: None,
        });
    }

    /// Deserialize each element of an array of tables; failures become findings.
    fn table<T: DeserializeOwned>(&mut self, name: &str, v: toml::Value, out: &mut Vec<T>) {
        let toml::Value::Array(items) = v else {
            self.err(
                name.to_string(),
                crate::i18n::Msg::new("finding-array-of-tables").arg("name", name),
            );
            return;
        };
        for (n, item) in items.into_iter().enumerate() {
            let label = row_label(name, n, &item);
            match serde_path_to_error::deserialize::<_, T>(item) {
                Ok(r) => out.push(r),
                Err(e) => {
                    let path = e.path().to_string();
                    let loc = if path == "." {
                        label
                    } else {
                        format!("{label} {path}")
                    };
                    self.err(loc, sanitize(&e.inner().to_string()));
                    if let Some(f) = self.findings.last_mut() {
                        f.row = Some(format!("{name}[{n}]"));
                    }
                }
            }
        }
    }

    /// Deserialize a whole top-level value (hide_families, gpu_aliases).
    fn value<T: DeserializeOwned + Default>(
        &mut self,
        name: &str,
        v: toml::Value,
        want: &str,
    ) -> T {
        let want = crate::i18n::Msg::new(want.to_string());
        match serde_path_to_error::deserialize::<_, T>(v) {
            Ok(x) => x,
            Err(e) => {
                self.err(
                    name.to_string(),
                    crate::i18n::Msg::new("finding-value-fix")
                        .arg("why", sanitize(&e.inner().to_string()))
                        .arg("fix", want),
                );
                T::default()
            }
        }
    }
}

/// `instance "ecs.x"` when the row has a string id, else `instance[3]`; prices by index and
/// instance as `catalog validate` names them.
fn row_label(table: &str, n: usize, item: &toml::Value) -> String {
    let s = |k: &str| item.get(k).and_then(|v| v.as_str());
    match (table, s("id"), s("instance"), s("name")) {
        ("price", _, Some(i), _) => format!("price[{n}] {i:?}"),
        ("wrong", _, _, Some(name)) => format!("wrong {name:?}"),
        (_, Some(id), _, _) if table != "price" => format!("{table} {id:?}"),
        _ => format!("{table}[{n}]"),
    }
}

pub(super) fn split(file: &str, table: toml::Table) -> (CatalogFile, Vec<Finding>) {
    let mut r = Rows {
        file,
        findings: Vec::new(),
    };
    let mut f = CatalogFile::default();
    for (key, v) in table {
        match key.as_str() {
            "gpu" => r.table("gpu", v, &mut f.gpu),
            "instance" => r.table("instance", v, &mut f.instance),
            "price" => r.table("price", v, &mut f.price),
            "storage" => r.table("storage", v, &mut f.storage),
            "wrong" => r.table("wrong", v, &mut f.wrong),
            "hide_families" => {
                f.hide_families = r.value(&key, v, "finding-fix-family-list");
            }
            "gpu_aliases" => {
                f.gpu_aliases = r.value(&key, v, "finding-fix-alias-table");
            }
            other => r.err(
                format!("key {other:?}"),
                crate::i18n::Msg::new("finding-not-a-table"),
            ),
        }
    }
    (f, r.findings)
}

/// A serde/TOML message without echoed string values or non-numbers: `string "…"` becomes
/// `a string`, `NaN`/`inf` become words (the message may come from a file that is not a catalog).
pub(super) fn sanitize(msg: &str) -> String {
    let mut out = String::new();
    let mut rest = msg;
    while let Some(at) = rest.find("string \"") {
        out.push_str(&rest[..at]);
        out.push_str("a string");
        let after = &rest[at + "string \"".len()..];
        rest = match after.find("\", ").or_else(|| after.rfind('"')) {
            Some(end) => &after[end + 1..],
            None => "",
        };
    }
    out.push_str(rest);
    out.replace("`NaN`", "not-a-number")
        .replace("`-NaN`", "not-a-number")
        .replace("`inf`", "an infinite value")
        .replace("`-inf`", "a negative infinite value")
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect::<String>()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// The key of a `key = value` line, if it looks like a TOML key (shown with parse errors instead
/// of the line itself).
pub(super) fn key_of_line(line: &str) -> Option<&str> {
    let (k, _) = line.split_once('=')?;
    let k = k.trim();
    let ok = !k.is_empty()
        && k.len() <= 64
        && k.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | '"'));
    ok.then_some(k)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sanitize_hides_strings_and_non_numbers() {
        assert_eq!(
            sanitize("invalid type: string \"hunter2\", expected f64"),
            "invalid type: a string, expected f64"
        );
        assert_eq!(
            sanitize("invalid type: floating point `NaN`, expected u32"),
            "invalid type: floating point not-a-number, expected u32"
        );
    }

    #[test]
    fn key_of_line_takes_bare_keys_only() {
        assert_eq!(key_of_line("gpu_count = 8x"), Some("gpu_count"));
        assert_eq!(key_of_line("password hunter2"), None);
        assert_eq!(key_of_line("a b = c"), None);
    }
}
