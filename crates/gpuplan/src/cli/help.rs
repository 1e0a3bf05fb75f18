//! `--help`, the man page and the completion scripts in the user's language.
//!
//! The clap definitions in `cli.rs` (doc comments) are the English source; the message catalog
//! holds every help text in both languages (`locales/{en,zh}/help.ftl`), and [`command`] puts the
//! chosen language's text onto the clap tree before it parses. `en/help.ftl` is generated from the
//! definitions (`UPDATE_HELP_CATALOG=1 cargo test -p gpuplan help_catalog`) and a test fails when
//! it is stale, so the two cannot drift; `zh/help.ftl` must have every key (the catalog's parity
//! test).
//!
//! Keys: `help-about[-SUB…]` a command's description, `help-examples-SUB…` its examples,
//! `help-arg-ID` a flag whose text is the same under every command, `help-SUB…--ID` one that
//! differs, `help-value-ID-VALUE` a value's own note.

use super::Cli;
use clap::{Arg, Command, CommandFactory};
use gpuplan_core::i18n::{self, Lang};
use std::collections::BTreeMap;

/// The CLI definition with its help in `lang`.
pub fn command(lang: Lang) -> Command {
    let keys = Keys::of(&Cli::command());
    let cmd = localize(Cli::command(), &[], lang, &keys);
    negative_numbers(builtins(cmd, lang))
}

/// The CLI definition without its help texts: it parses exactly as [`command`] does (the
/// texts only change what clap prints), for runs that print no help.
pub fn bare_command() -> Command {
    let mut cmd = Cli::command();
    cmd.build();
    negative_numbers(cmd)
}

/// Numeric flags take a value with a leading minus (`--tokens -1e8`, `--budget -5`,
/// `--dataset-size -3TB`): the value then reaches the flag's own check, which names the flag
/// and its valid range, instead of clap's "unexpected argument '-1'" naming neither.
fn negative_numbers(cmd: Command) -> Command {
    cmd.mut_args(|a| {
        if is_numeric(&a) {
            a.allow_hyphen_values(true)
        } else {
            a
        }
    })
    .mut_subcommands(negative_numbers)
}

/// A flag whose value is a number or an amount (`30TB`).
fn is_numeric(a: &Arg) -> bool {
    use std::any::TypeId;
    if !a.get_action().takes_values() || a.is_positional() {
        return false;
    }
    let t = a.get_value_parser().type_id();
    let numbers = [
        TypeId::of::<f64>(),
        TypeId::of::<f32>(),
        TypeId::of::<u64>(),
        TypeId::of::<u32>(),
        TypeId::of::<usize>(),
        TypeId::of::<i64>(),
    ];
    // Amounts given as text with a unit: `--deadline 24h`, `--dataset-size 30TB`.
    numbers.iter().any(|n| t == *n) || ["deadline", "dataset_size"].contains(&a.get_id().as_str())
}

/// Which flags share one text (and so one key) across commands.
struct Keys {
    shared: std::collections::BTreeSet<String>,
}

impl Keys {
    fn of(root: &Command) -> Keys {
        let mut texts: BTreeMap<String, std::collections::BTreeSet<String>> = BTreeMap::new();
        walk(root, &mut Vec::new(), &mut |_, c| {
            for a in own_args(c) {
                texts
                    .entry(slug(a.get_id().as_str()))
                    .or_default()
                    .insert(english_help(a));
            }
        });
        Keys {
            shared: texts
                .into_iter()
                .filter(|(_, t)| t.len() == 1)
                .map(|(id, _)| id)
                .collect(),
        }
    }

    fn arg(&self, path: &[String], id: &str) -> String {
        let id = slug(id);
        if self.shared.contains(&id) {
            format!("help-arg-{id}")
        } else {
            format!("help-{}--{id}", path.join("-"))
        }
    }
}

fn about_key(path: &[String]) -> String {
    std::iter::once("help-about".to_string())
        .chain(path.iter().cloned())
        .collect::<Vec<_>>()
        .join("-")
}

fn examples_key(path: &[String]) -> String {
    format!("help-examples-{}", path.join("-"))
}

fn value_key(arg: &str, value: &str) -> String {
    format!("help-value-{}-{}", slug(arg), slug(value))
}

/// A Fluent-safe id part: `seq_len` → `seq-len`.
fn slug(s: &str) -> String {
    s.replace('_', "-").to_lowercase()
}

/// The arguments a command defines itself (not clap's help/version).
fn own_args(c: &Command) -> impl Iterator<Item = &Arg> {
    c.get_arguments()
        .filter(|a| !matches!(a.get_id().as_str(), "help" | "version"))
}

fn english_help(a: &Arg) -> String {
    a.get_long_help()
        .or(a.get_help())
        .map(|s| s.to_string())
        .unwrap_or_default()
}

/// Visits every command, depth first, with its path of subcommand names.
fn walk(c: &Command, path: &mut Vec<String>, f: &mut impl FnMut(&[String], &Command)) {
    f(path, c);
    for s in c.get_subcommands() {
        path.push(s.get_name().to_string());
        walk(s, path, f);
        path.pop();
    }
}

fn lookup(lang: Lang, key: &str) -> Option<String> {
    i18n::has_message(lang, key).then(|| i18n::text(lang, key))
}

fn localize(mut c: Command, path: &[String], lang: Lang, keys: &Keys) -> Command {
    if let Some(t) = lookup(lang, &about_key(path)) {
        c = c.about(t).long_about(None::<&str>);
    }
    if let Some(t) = lookup(lang, &examples_key(path)) {
        c = c.after_help(t);
    }
    let ids: Vec<String> = own_args(&c).map(|a| a.get_id().to_string()).collect();
    for id in &ids {
        let key = keys.arg(path, id);
        c = c.mut_arg(id, |a| localize_arg(a, &key, lang));
    }
    let subs: Vec<String> = c
        .get_subcommands()
        .map(|s| s.get_name().to_string())
        .collect();
    for name in subs {
        let mut p = path.to_vec();
        p.push(name.clone());
        c = c.mut_subcommand(&name, |s| localize(s, &p, lang, keys));
    }
    if lang.is_zh() {
        let template = zh_template(&c);
        c = c.help_template(template);
        if c.get_subcommands().next().is_some() {
            c = c.subcommand_value_name("命令");
        }
    }
    c
}

fn localize_arg(mut a: Arg, key: &str, lang: Lang) -> Arg {
    let Some(mut text) = lookup(lang, key) else {
        return a;
    };
    if lang.is_zh() {
        let values: Vec<String> = a
            .get_possible_values()
            .iter()
            .filter(|v| !v.is_hide_set())
            .map(|v| {
                let name = v.get_name().to_string();
                match lookup(lang, &value_key(a.get_id().as_str(), &name)) {
                    Some(note) => format!("{name}（{note}）"),
                    None => name,
                }
            })
            .collect();
        // Not when the text already names every value, nor for flags (`--rdma`: true/false).
        let named = a
            .get_possible_values()
            .iter()
            .all(|v| text.contains(v.get_name()));
        if !values.is_empty() && a.get_action().takes_values() && !named {
            text.push_str(&i18n::msg(
                lang,
                "help-values",
                &[("values", values.join("、").into())],
            ));
        }
        let defaults: Vec<String> = a
            .get_default_values()
            .iter()
            .map(|v| v.to_string_lossy().into_owned())
            .collect();
        if !defaults.is_empty() && a.get_action().takes_values() {
            text.push_str(&i18n::msg(
                lang,
                "help-default",
                &[("value", defaults.join(",").into())],
            ));
        }
        if a.get_action().takes_values() {
            a = a.hide_possible_values(true).hide_default_value(true);
        }
    }
    a.help(text).long_help(None::<&str>)
}

/// clap's layout with Chinese headings: the sections the command has, in clap's order.
fn zh_template(c: &Command) -> String {
    let has_subs = c.get_subcommands().any(|s| !s.is_hide_set());
    let has_pos = c.get_positionals().any(|a| !a.is_hide_set());
    let mut t = String::from("{before-help}{about-with-newline}\n用法：{usage}\n");
    if has_subs {
        t.push_str("\n命令：\n{subcommands}\n");
    }
    if has_pos {
        t.push_str("\n参数：\n{positionals}\n");
    }
    t.push_str("\n选项：\n{options}{after-help}\n");
    t
}

/// clap's own `--help`, `--version` and `help` subcommand, in `lang`.
fn builtins(mut c: Command, lang: Lang) -> Command {
    c.build();
    relabel_builtins(c, lang)
}

fn relabel_builtins(mut c: Command, lang: Lang) -> Command {
    let help = i18n::text(lang, "help-builtin-help");
    let version = i18n::text(lang, "help-builtin-version");
    let has = |c: &Command, id: &str| c.get_arguments().any(|a| a.get_id() == id);
    if has(&c, "help") {
        c = c.mut_arg("help", |a| a.help(help.clone()).long_help(None::<&str>));
    }
    if has(&c, "version") {
        c = c.mut_arg("version", |a| a.help(version.clone()));
    }
    let subs: Vec<String> = c
        .get_subcommands()
        .map(|s| s.get_name().to_string())
        .collect();
    for name in subs {
        // No command of ours is called `help`: this is clap's.
        c = if name == "help" {
            let about = i18n::text(lang, "help-builtin-help-command");
            c.mut_subcommand("help", |s| s.about(about))
        } else {
            c.mut_subcommand(&name, |s| relabel_builtins(s, lang))
        };
    }
    c
}

/// The English catalog the definitions imply (`en/help.ftl`).
#[cfg(test)]
fn english_catalog() -> String {
    let root = Cli::command();
    let keys = Keys::of(&root);
    let mut entries: BTreeMap<String, String> = BTreeMap::new();
    walk(&root, &mut Vec::new(), &mut |path, c| {
        if let Some(t) = c.get_long_about().or(c.get_about()) {
            entries.insert(about_key(path), t.to_string());
        }
        if let Some(t) = c.get_after_help() {
            entries.insert(examples_key(path), t.to_string());
        }
        for a in own_args(c) {
            entries.insert(keys.arg(path, a.get_id().as_str()), english_help(a));
            for v in a.get_possible_values() {
                if let Some(h) = v.get_help() {
                    entries.insert(value_key(a.get_id().as_str(), v.get_name()), h.to_string());
                }
            }
        }
    });
    let mut out = String::from(
        "# Help of every command and flag (`--help`, `gpuplan man`, completions).\n\
         # GENERATED from the clap definitions in crates/gpuplan/src/cli.rs: edit the doc comments\n\
         # there, then `UPDATE_HELP_CATALOG=1 cargo test -p gpuplan help_catalog`.\n\
         # zh/help.ftl holds the same keys; help-values, help-default and help-builtin-* live in\n\
         # cli.ftl.\n\n",
    );
    for (k, v) in entries {
        out.push_str(&fluent_entry(&k, &v));
    }
    out
}

/// `key = value` in Fluent syntax: braces escaped, several lines as an indented block.
#[cfg(test)]
fn fluent_entry(key: &str, value: &str) -> String {
    let escaped: String = value
        .chars()
        .map(|ch| match ch {
            '{' => "{\"{\"}".to_string(),
            '}' => "{\"}\"}".to_string(),
            _ => ch.to_string(),
        })
        .collect();
    if escaped.contains('\n') {
        let body: Vec<String> = escaped
            .lines()
            .map(|l| {
                if l.is_empty() {
                    String::new()
                } else {
                    format!("    {l}")
                }
            })
            .collect();
        format!("{key} =\n{}\n", body.join("\n"))
    } else {
        format!("{key} = {escaped}\n")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn catalog_path(lang: &str) -> std::path::PathBuf {
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../gpuplan-core/locales")
            .join(lang)
            .join("help.ftl")
    }

    /// en/help.ftl is what the clap definitions say (regenerate with UPDATE_HELP_CATALOG=1).
    #[test]
    fn help_catalog_matches_the_definitions() {
        let want = english_catalog();
        let path = catalog_path("en");
        if std::env::var_os("UPDATE_HELP_CATALOG").is_some() {
            std::fs::write(&path, &want).expect("write en/help.ftl");
        }
        let have = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            have == want,
            "{} is stale: run UPDATE_HELP_CATALOG=1 cargo test -p gpuplan help_catalog",
            path.display()
        );
    }

    /// Every key of the English help catalog renders in both languages to a non-empty text that
    /// the localized tree then shows.
    #[test]
    fn every_help_text_is_in_both_languages() {
        for lang in Lang::ALL {
            let cmd = command(lang);
            let mut empty = Vec::new();
            walk(&cmd, &mut Vec::new(), &mut |path, c| {
                for a in own_args(c) {
                    if a.get_help().is_none_or(|h| h.to_string().trim().is_empty()) {
                        empty.push(format!("{lang:?} {path:?} --{}", a.get_id()));
                    }
                }
            });
            assert!(empty.is_empty(), "flags without help: {empty:#?}");
        }
    }

    /// The Chinese help is Chinese: clap's English headings and value notes are replaced.
    #[test]
    fn chinese_help_has_chinese_headings_and_defaults() {
        let mut c = command(Lang::Zh);
        let plan = c
            .find_subcommand_mut("plan")
            .expect("plan")
            .render_help()
            .to_string();
        for english in [
            "Usage:",
            "Options:",
            "[default:",
            "[possible values:",
            "Print help",
        ] {
            assert!(!plan.contains(english), "{english} in:\n{plan}");
        }
        for zh in ["用法：", "选项：", "（默认：5）", "显示帮助"] {
            assert!(plan.contains(zh), "{zh} missing in:\n{plan}");
        }
        let root = command(Lang::Zh).render_help().to_string();
        assert!(root.contains("命令："), "{root}");
    }
}
