//! The message catalog: every user-facing sentence in English and Chinese, kept in Fluent files
//! (`locales/en/*.ftl`, `locales/zh/*.ftl`, embedded at build time by `build.rs`, which lists every
//! `.ftl` file of each directory) and rendered with `fluent-bundle`, which also handles plurals
//! (`{ $n -> [one] … *[other] … }`).
//!
//! Code never holds translated text: it names a message id and its arguments ([`Msg`]); the
//! renderer picks the language ([`Lang`]). Decimal numbers are formatted by the caller (the
//! precision is part of the meaning, e.g. `¥139` vs `¥139.42`) and passed as strings; counts are
//! passed as numbers so that plural rules apply.

use fluent_bundle::concurrent::FluentBundle;
use fluent_bundle::{FluentArgs, FluentResource, FluentValue};
use serde::{Deserialize, Serialize};
use std::borrow::Cow;
use std::collections::BTreeSet;
use std::sync::OnceLock;

mod files {
    include!(concat!(env!("OUT_DIR"), "/locales.rs"));
}

/// Output language.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Lang {
    #[default]
    En,
    Zh,
}

impl Lang {
    pub const ALL: [Lang; 2] = [Lang::En, Lang::Zh];

    /// The catalog directory name (`en`, `zh`).
    pub fn code(self) -> &'static str {
        match self {
            Lang::En => "en",
            Lang::Zh => "zh",
        }
    }

    /// The language of a POSIX locale value (`zh_CN.UTF-8` → zh); anything else is English.
    pub fn from_locale(value: &str) -> Lang {
        if value.trim().to_lowercase().starts_with("zh") {
            Lang::Zh
        } else {
            Lang::En
        }
    }

    pub fn is_zh(self) -> bool {
        self == Lang::Zh
    }
}

/// One argument of a message.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Arg {
    Str(String),
    Num(f64),
    /// Another message, rendered in the same language (a provider or billing name, a clause).
    Msg(Box<Msg>),
    /// A value already known in both languages (a data file's name and its catalog name).
    PerLang {
        en: String,
        zh: String,
    },
}

impl From<&str> for Arg {
    fn from(s: &str) -> Arg {
        Arg::Str(s.to_string())
    }
}
impl From<String> for Arg {
    fn from(s: String) -> Arg {
        Arg::Str(s)
    }
}
impl From<&String> for Arg {
    fn from(s: &String) -> Arg {
        Arg::Str(s.clone())
    }
}
impl From<Msg> for Arg {
    fn from(m: Msg) -> Arg {
        Arg::Msg(Box::new(m))
    }
}
macro_rules! num_arg {
    ($($t:ty),*) => {$(
        impl From<$t> for Arg {
            fn from(n: $t) -> Arg {
                Arg::Num(n as f64)
            }
        }
    )*};
}
num_arg!(u8, u32, u64, usize, i64, f64);

/// A message id with its arguments, rendered later in the user's language.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Msg {
    /// Borrowed for the catalog's literal ids (no allocation on the planner's hot path), owned
    /// for ids built at run time (`provider-…`).
    pub id: Cow<'static, str>,
    pub args: Vec<(&'static str, Arg)>,
}

impl Msg {
    pub fn new(id: impl Into<Cow<'static, str>>) -> Msg {
        Msg {
            id: id.into(),
            args: Vec::new(),
        }
    }

    /// Text shown as is in every language (a name from a file, a message only known in English).
    pub fn raw(text: &str) -> Msg {
        Msg::new("raw").arg("text", text)
    }

    /// Adds an argument (builder style).
    pub fn arg(mut self, name: &'static str, value: impl Into<Arg>) -> Msg {
        self.args.push((name, value.into()));
        self
    }

    pub fn render(&self, lang: Lang) -> String {
        // Names and text borrowed from the message, room for every argument at once.
        let mut args = FluentArgs::with_capacity(self.args.len());
        for (k, v) in &self.args {
            let value = match v {
                Arg::Str(s) => FluentValue::from(s.as_str()),
                Arg::Num(n) => FluentValue::from(*n),
                Arg::Msg(m) => FluentValue::from(m.render(lang)),
                Arg::PerLang { en, zh } => FluentValue::from(match lang {
                    Lang::En => en.as_str(),
                    Lang::Zh => zh.as_str(),
                }),
            };
            args.set(*k, value);
        }
        format_message(lang, &self.id, Some(&args))
    }
}

/// A sentence rendered in both languages (a caveat, a note): computed results carry it so that
/// the renderer can pick the language. Serialises as its English text (the JSON schema's string).
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Text {
    pub en: String,
    pub zh: String,
}

impl Text {
    pub fn get(&self, lang: Lang) -> &str {
        match lang {
            Lang::En => &self.en,
            Lang::Zh => &self.zh,
        }
    }

    /// Whether both languages are empty (an item of the lean estimate, which explains nothing).
    pub fn is_empty(&self) -> bool {
        self.en.is_empty() && self.zh.is_empty()
    }

    /// `self` and `then` as one sentence, joined by each language's clause separator.
    pub fn and(self, then: Text) -> Text {
        Text {
            en: format!("{}; {}", self.en, then.en),
            zh: format!("{}；{}", self.zh, then.zh),
        }
    }
}

/// A sentence known only in one form (a name, a parser's message): the same in both languages.
impl From<String> for Text {
    fn from(s: String) -> Text {
        Text {
            zh: s.clone(),
            en: s,
        }
    }
}

impl From<&str> for Text {
    fn from(s: &str) -> Text {
        Text::from(s.to_string())
    }
}

impl From<Msg> for Text {
    /// Both languages, from the process's cache of recent renderings when the same message with
    /// the same arguments was rendered before (a plan search renders many identical advice and
    /// caveat lines; Fluent formatting is a pure function of the id and the arguments).
    fn from(m: Msg) -> Text {
        use std::hash::Hasher;
        // FxHash (the search's interning maps use it too): the key only narrows, `same_msg`
        // decides, so a weaker hash than SipHash costs at most a longer bucket.
        let mut h = rustc_hash::FxHasher::default();
        hash_msg(&m, &mut h);
        let key = h.finish();
        // (A poisoned cache is passed by: the message is rendered, never a panic.)
        let hit = RENDERED.lock().ok().and_then(|c| {
            c.get(&key).and_then(|v| {
                v.iter()
                    .find(|(x, _)| same_msg(x, &m))
                    .map(|(_, t)| t.clone())
            })
        });
        if let Some(t) = hit {
            return t;
        }
        let t = Text {
            en: m.render(Lang::En),
            zh: m.render(Lang::Zh),
        };
        if let Ok(mut c) = RENDERED.lock() {
            if c.len() >= RENDER_CACHE_ENTRIES {
                c.clear();
            }
            c.entry(key).or_default().push((m, t.clone()));
        }
        t
    }
}

/// Renderings kept (then the cache starts over): bounded memory in a long-running
/// `gpuplan serve`.
const RENDER_CACHE_ENTRIES: usize = 4096;

/// Recent renderings by message hash, each with the message it renders. One cache for the
/// process, not one per thread: the planner's `par_map` starts its helper threads afresh for
/// every phase, so a per-thread cache was cold on them at every phase (stop 38: the helper
/// rendered about twice what the main thread did per run). Rendering happens outside the lock.
static RENDERED: std::sync::LazyLock<std::sync::Mutex<Renderings>> =
    std::sync::LazyLock::new(Default::default);

/// Renderings by message hash, each with the message it renders.
type Renderings = rustc_hash::FxHashMap<u64, Vec<(Msg, Text)>>;

fn hash_msg(m: &Msg, h: &mut impl std::hash::Hasher) {
    use std::hash::Hash;
    m.id.hash(h);
    for (k, v) in &m.args {
        k.hash(h);
        match v {
            Arg::Str(s) => (0u8, s).hash(h),
            Arg::Num(n) => (1u8, n.to_bits()).hash(h),
            Arg::Msg(inner) => {
                2u8.hash(h);
                hash_msg(inner, h);
            }
            Arg::PerLang { en, zh } => (3u8, en, zh).hash(h),
        }
    }
}

/// The same message and arguments, numbers compared bit for bit (so NaN finds itself).
fn same_msg(a: &Msg, b: &Msg) -> bool {
    a.id == b.id
        && a.args.len() == b.args.len()
        && a.args.iter().zip(&b.args).all(|((ka, va), (kb, vb))| {
            ka == kb
                && match (va, vb) {
                    (Arg::Str(x), Arg::Str(y)) => x == y,
                    (Arg::Num(x), Arg::Num(y)) => x.to_bits() == y.to_bits(),
                    (Arg::Msg(x), Arg::Msg(y)) => same_msg(x, y),
                    (Arg::PerLang { en: e1, zh: z1 }, Arg::PerLang { en: e2, zh: z2 }) => {
                        e1 == e2 && z1 == z2
                    }
                    _ => false,
                }
        })
}

impl std::fmt::Display for Text {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.en)
    }
}

impl Serialize for Text {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.en)
    }
}

/// Serialises a message as its English rendering (JSON carries the schema's English).
pub fn serialize_en<S: serde::Serializer>(m: &Msg, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&m.render(Lang::En))
}

/// Renders message `id` with `args` in `lang`.
pub fn msg(lang: Lang, id: &str, args: &[(&'static str, Arg)]) -> String {
    let mut m = Msg::new(id.to_string());
    m.args = args.to_vec();
    m.render(lang)
}

/// Renders a message without arguments.
pub fn text(lang: Lang, id: &str) -> String {
    format_message(lang, id, None)
}

/// The snake_case serde name of an enum value (`Billing::OnDemand` → `on_demand`).
fn snake<T: Serialize>(v: &T) -> String {
    serde_json::to_value(v)
        .ok()
        .and_then(|x| x.as_str().map(str::to_string))
        .unwrap_or_default()
}

/// Names of catalog values, as messages (`names.ftl`).
pub mod names {
    use super::{snake, Lang, Msg};
    use crate::catalog::{Access, Billing, Confidence, PriceKind, Provider, StorageClass};

    pub fn provider(p: Provider) -> Msg {
        Msg::new(format!("provider-{}", snake(&p)))
    }
    pub fn billing(b: Billing) -> Msg {
        Msg::new(format!("billing-{}", snake(&b)))
    }
    pub fn price_kind(k: PriceKind) -> Msg {
        Msg::new(format!("price-kind-{}", snake(&k)))
    }
    /// The region a price was published for; the catalog's `unspecified` (a source that did not
    /// print its region, e.g. the Tencent transcriptions in prices.toml) or an empty region reads
    /// "region not stated" in the reader's language, not as a raw data word.
    pub fn price_region(region: &str) -> super::Arg {
        if region.is_empty() || region == "unspecified" {
            super::Arg::Msg(Box::new(Msg::new("price-region-unstated")))
        } else {
            super::Arg::Str(region.to_string())
        }
    }
    pub fn access(a: Access) -> Msg {
        Msg::new(format!("access-{}", snake(&a)))
    }
    pub fn confidence(c: Confidence) -> Msg {
        Msg::new(format!("confidence-{}", snake(&c)))
    }
    /// A confidence given as text (the GPU table's `confirmed`/`likely`/`unverified`).
    pub fn confidence_word(c: &str) -> Msg {
        Msg::new(format!("confidence-{c}"))
    }
    /// The kind of a name in an "unknown NAME" error (`model`, `GPU`, `instance type`): its
    /// catalog name where the catalog has one, else the text as is.
    pub fn kind(kind: &str) -> Msg {
        let mut slug = String::new();
        for c in kind.to_lowercase().chars() {
            let c = if c.is_ascii_alphanumeric() { c } else { '-' };
            if !(c == '-' && (slug.is_empty() || slug.ends_with('-'))) {
                slug.push(c);
            }
        }
        let key = format!("kind-{}", slug.trim_end_matches('-'));
        if super::has_message(Lang::En, &key) {
            Msg::new(key)
        } else {
            Msg::raw(kind)
        }
    }
    /// A bottleneck name as the estimators report it (`dp-communication`, `memory-bandwidth`).
    pub fn bottleneck(b: &str) -> Msg {
        Msg::new(format!("bottleneck-{b}"))
    }
    /// A chip's catalog name in both languages, as a message argument: its English qualifiers
    /// ("variant not stated", "unnamed", "per chip") read in Chinese under zh ([`super::gpu_name`];
    /// audit r22 #2: advice and notes named the chip in English under `--lang zh`).
    pub fn gpu_arg(name: &str) -> super::Arg {
        super::Arg::PerLang {
            en: name.to_string(),
            zh: super::gpu_name(name, Lang::Zh),
        }
    }
    /// A storage class name in both languages, as a message argument.
    pub fn storage_arg(id: &str, name: &str) -> super::Arg {
        super::Arg::PerLang {
            en: storage_by_id(id, name, Lang::En),
            zh: storage_by_id(id, name, Lang::Zh),
        }
    }
    /// A storage class by its product name in `lang`; a user-defined class keeps its own name.
    pub fn storage(s: &StorageClass, lang: Lang) -> String {
        storage_by_id(&s.id, &s.name, lang)
    }
    /// A storage class by catalog id, `name` when the catalog has no message for it.
    pub fn storage_by_id(id: &str, name: &str, lang: Lang) -> String {
        let key = format!("storage-{id}");
        if super::has_message(lang, &key) {
            super::text(lang, &key)
        } else {
            name.to_string()
        }
    }
}

/// The catalog message whose English text is exactly `en`, among the argument-free messages
/// whose id starts with `fix-` (errors.ftl): a fixed English sentence in the code (a table of
/// field checks, say) is shown in the user's language without a message id at its call site.
/// `None` when the catalog has no such message (the sentence then stays as it is).
pub fn fixed_text(en: &str) -> Option<Msg> {
    static BY_TEXT: OnceLock<std::collections::HashMap<String, String>> = OnceLock::new();
    let map = BY_TEXT.get_or_init(|| {
        message_ids(Lang::En)
            .into_iter()
            .filter(|id| id.starts_with("fix-"))
            .filter_map(|id| {
                let b = bundle(Lang::En);
                let pattern = b.get_message(&id)?.value()?;
                let mut errors = Vec::new();
                let text = b.format_pattern(pattern, None, &mut errors).into_owned();
                errors.is_empty().then_some((text, id))
            })
            .collect()
    });
    map.get(en).map(Msg::new)
}

/// A chip's catalog name in `lang`: the English qualifiers a few names carry ("variant not
/// stated", "unnamed", "per chip": data/gpus.toml) in Chinese through their `phrase-gpu-*` pairs
/// (audit r21 #3: "1 张 Huawei Ascend 910B (64 GB, variant not stated)" under `--lang zh`).
pub fn gpu_name(name: &str, lang: Lang) -> String {
    if lang == Lang::En {
        return name.to_string();
    }
    phrases()
        .iter()
        .filter(|(en, _)| name.contains(en.as_str()))
        .fold(name.to_string(), |s, (en, zh)| s.replace(en.as_str(), zh))
}

/// (English, Chinese) text of every `phrase-*` message (phrases.ftl), longest English first: the
/// parser and provider-response phrases that reach the user inside an English message, for a
/// renderer that translates such a message phrase by phrase.
pub fn phrases() -> &'static [(String, String)] {
    static PHRASES: OnceLock<Vec<(String, String)>> = OnceLock::new();
    PHRASES.get_or_init(|| {
        let plain = |lang: Lang, id: &str| {
            let b = bundle(lang);
            let pattern = b.get_message(id)?.value()?;
            let mut errors = Vec::new();
            let text = b.format_pattern(pattern, None, &mut errors).into_owned();
            errors.is_empty().then_some(text)
        };
        let mut v: Vec<(String, String)> = message_ids(Lang::En)
            .into_iter()
            .filter(|id| id.starts_with("phrase-"))
            .filter_map(|id| Some((plain(Lang::En, &id)?, plain(Lang::Zh, &id)?)))
            .filter(|(en, _)| !en.is_empty())
            .collect();
        v.sort_by(|a, b| b.0.len().cmp(&a.0.len()).then_with(|| a.0.cmp(&b.0)));
        v
    })
}

/// Whether `lang` has message `id`.
pub fn has_message(lang: Lang, id: &str) -> bool {
    bundle(lang).has_message(id)
}

/// Builds both languages' message catalogs now where they are not built yet (each is built
/// once, on its first use, and parsing the Fluent files is ~9 M instructions): for a caller
/// that has a wait to fill, as the CLI's `plan` while the built-in catalog is parsed on another
/// thread (docs/performance.md, stop 41). The catalogs are the same whenever they are built.
pub fn prepare() {
    let _ = (bundle(Lang::En), bundle(Lang::Zh));
}

type Bundle = FluentBundle<FluentResource>;

fn bundle(lang: Lang) -> &'static Bundle {
    static EN: OnceLock<Bundle> = OnceLock::new();
    static ZH: OnceLock<Bundle> = OnceLock::new();
    let cell = match lang {
        Lang::En => &EN,
        Lang::Zh => &ZH,
    };
    cell.get_or_init(|| build(lang))
}

fn build(lang: Lang) -> Bundle {
    // Both codes are valid BCP 47 language tags, so parsing cannot fail; the fallback is the
    // root locale, never a panic.
    let id: unic_langid::LanguageIdentifier = lang.code().parse().unwrap_or_default();
    let mut b = FluentBundle::new_concurrent(vec![id]);
    // No Unicode isolation marks around arguments: terminals show them as stray characters.
    b.set_use_isolating(false);
    for (_, src) in sources(lang) {
        // A file that does not parse keeps its valid entries; the catalog tests fail on any error.
        let res = FluentResource::try_new(src.to_string()).unwrap_or_else(|(r, _)| r);
        let _ = b.add_resource(res);
    }
    b
}

/// (file name, contents) of every catalog file of `lang`.
pub fn sources(lang: Lang) -> impl Iterator<Item = (&'static str, &'static str)> {
    files::FILES
        .iter()
        .filter(move |(l, _, _)| *l == lang.code())
        .map(|(_, name, src)| (*name, *src))
}

/// Every message id of `lang`, across all its files (for the completeness tests).
pub fn message_ids(lang: Lang) -> BTreeSet<String> {
    let mut ids = BTreeSet::new();
    for (_, src) in sources(lang) {
        let res = FluentResource::try_new(src.to_string()).unwrap_or_else(|(r, _)| r);
        for e in res.entries() {
            if let fluent_syntax::ast::Entry::Message(m) = e {
                ids.insert(m.id.name.to_string());
            }
        }
    }
    ids
}

/// Ids defined more than once across the catalog files of `lang`, as `id (file, file)`. The
/// bundle keeps the first definition (files in name order) and drops the others, so a clash
/// would silently show one file's text where another's was meant; the tests keep this empty.
pub fn duplicate_ids(lang: Lang) -> Vec<String> {
    let mut seen: std::collections::BTreeMap<String, Vec<&str>> = Default::default();
    for (file, src) in sources(lang) {
        let res = FluentResource::try_new(src.to_string()).unwrap_or_else(|(r, _)| r);
        for e in res.entries() {
            let id = match e {
                fluent_syntax::ast::Entry::Message(m) => m.id.name.to_string(),
                fluent_syntax::ast::Entry::Term(t) => format!("-{}", t.id.name),
                _ => continue,
            };
            seen.entry(id).or_default().push(file);
        }
    }
    seen.into_iter()
        .filter(|(_, files)| files.len() > 1)
        .map(|(id, files)| format!("{id} ({})", files.join(", ")))
        .collect()
}

/// The messages of the catalog files `files` of `lang` as templates for a page's script: each
/// rendered by the bundle (so references to other messages and terms resolve, in `lang`), with
/// every variable left as the literal text `{$name}` for the script to fill in. A message that
/// selects on a variable (plurals) has no single template and is left out; `unselectable` lists
/// those ids so that a caller can refuse them.
pub fn templates(lang: Lang, files: &[&str]) -> Templates {
    let mut out = Templates::default();
    for (file, src) in sources(lang).filter(|(f, _)| files.contains(f)) {
        let res = FluentResource::try_new(src.to_string()).unwrap_or_else(|(r, _)| r);
        for e in res.entries() {
            let fluent_syntax::ast::Entry::Message(m) = e else {
                continue;
            };
            let Some(p) = &m.value else { continue };
            let mut vars = BTreeSet::new();
            if !pattern_vars(p, &mut vars) {
                out.unselectable.push(format!("{file}: {}", m.id.name));
                continue;
            }
            let mut args = FluentArgs::new();
            for v in vars {
                args.set(v.to_string(), FluentValue::from(format!("{{${v}}}")));
            }
            out.messages.insert(
                m.id.name.to_string(),
                format_message(lang, m.id.name, Some(&args)),
            );
        }
    }
    out
}

/// What [`templates`] returns.
#[derive(Debug, Default)]
pub struct Templates {
    /// id → text with `{$name}` placeholders.
    pub messages: std::collections::BTreeMap<String, String>,
    /// `file: id` of the messages left out because they select on a variable.
    pub unselectable: Vec<String>,
}

/// The variables a pattern uses (into `vars`); false when it has a select expression.
fn pattern_vars<'a>(
    p: &fluent_syntax::ast::Pattern<&'a str>,
    vars: &mut BTreeSet<&'a str>,
) -> bool {
    use fluent_syntax::ast::{Expression, InlineExpression, PatternElement};
    fn inline<'a>(e: &InlineExpression<&'a str>, vars: &mut BTreeSet<&'a str>) -> bool {
        match e {
            InlineExpression::VariableReference { id } => {
                vars.insert(id.name);
                true
            }
            InlineExpression::Placeable { expression } => match &**expression {
                Expression::Inline(i) => inline(i, vars),
                Expression::Select { .. } => false,
            },
            InlineExpression::FunctionReference { arguments, .. }
            | InlineExpression::TermReference {
                arguments: Some(arguments),
                ..
            } => arguments
                .positional
                .iter()
                .chain(arguments.named.iter().map(|n| &n.value))
                .all(|a| inline(a, vars)),
            _ => true,
        }
    }
    p.elements.iter().all(|el| match el {
        PatternElement::TextElement { .. } => true,
        PatternElement::Placeable { expression } => match expression {
            Expression::Inline(i) => inline(i, vars),
            Expression::Select { .. } => false,
        },
    })
}

/// Parse errors of every catalog file, as `lang/file: error` (empty when all parse).
pub fn parse_errors() -> Vec<String> {
    let mut out = Vec::new();
    for lang in Lang::ALL {
        for (name, src) in sources(lang) {
            if let Err((_, errs)) = FluentResource::try_new(src.to_string()) {
                for e in errs {
                    out.push(format!("{}/{name}: {e:?}", lang.code()));
                }
            }
        }
    }
    out
}

fn format_message(lang: Lang, id: &str, args: Option<&FluentArgs>) -> String {
    let b = bundle(lang);
    let Some(pattern) = b.get_message(id).and_then(|m| m.value()) else {
        // A missing id is a catalog defect (the tests catch it); show the id, never panic.
        return id.to_string();
    };
    let mut errors = Vec::new();
    b.format_pattern(pattern, args, &mut errors).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cached_renderings_are_the_renderings_of_that_message() {
        let direct = |m: &Msg| (m.render(Lang::En), m.render(Lang::Zh));
        for _ in 0..2 {
            for m in [
                Msg::raw("a"),
                Msg::raw("b"),
                Msg::new("raw").arg("text", 1.5),
                Msg::new("raw").arg("text", 2.5),
                Msg::new("raw").arg("text", f64::NAN),
                Msg::new("raw").arg("text", Msg::raw("nested")),
            ] {
                let t = Text::from(m.clone());
                assert_eq!((t.en, t.zh), direct(&m), "{m:?}");
            }
        }
        // More messages than the cache holds: it starts over, answers stay right.
        for k in 0..(RENDER_CACHE_ENTRIES + 10) {
            let m = Msg::new("raw").arg("text", k);
            assert_eq!(Text::from(m.clone()).en, m.render(Lang::En));
        }
    }

    #[test]
    fn every_file_parses() {
        assert_eq!(parse_errors(), Vec::<String>::new());
    }

    #[test]
    fn both_languages_have_the_same_files_and_keys() {
        let files = |l: Lang| sources(l).map(|(n, _)| n).collect::<BTreeSet<_>>();
        assert_eq!(files(Lang::En), files(Lang::Zh), "locale files differ");
        assert!(!files(Lang::En).is_empty());
        let (en, zh) = (message_ids(Lang::En), message_ids(Lang::Zh));
        let only_en: Vec<_> = en.difference(&zh).collect();
        let only_zh: Vec<_> = zh.difference(&en).collect();
        assert!(only_en.is_empty(), "missing in zh: {only_en:?}");
        assert!(only_zh.is_empty(), "missing in en: {only_zh:?}");
    }

    #[test]
    fn phrases_have_both_languages_longest_first() {
        let p = phrases();
        let ids = message_ids(Lang::En)
            .into_iter()
            .filter(|id| id.starts_with("phrase-"))
            .count();
        assert!(ids > 10 && p.len() == ids, "{} of {ids} phrases", p.len());
        for (en, zh) in p {
            assert!(!zh.is_empty() && en != zh, "phrase `{en}` has no Chinese");
            assert!(!zh.is_ascii(), "`{zh}` is not Chinese");
        }
        assert!(p.windows(2).all(|w| w[0].0.len() >= w[1].0.len()));
    }

    #[test]
    fn no_id_is_defined_twice() {
        for l in Lang::ALL {
            assert_eq!(duplicate_ids(l), Vec::<String>::new(), "{}", l.code());
        }
    }

    #[test]
    fn templates_keep_variables_and_resolve_references() {
        let t = templates(Lang::En, &["names.ftl"]);
        assert_eq!(t.messages["provider-alibaba"], "Alibaba Cloud");
        assert!(
            t.unselectable.iter().any(|u| u.ends_with("unit-gpus")),
            "{:?}",
            t.unselectable
        );
        let t = templates(Lang::En, &["errors.ftl"]);
        assert_eq!(t.messages["err-parse"], "{$what}: {$message}");
        assert!(!t.messages.contains_key("err-unknown"));
        assert!(
            templates(Lang::Zh, &["names.ftl"]).messages["provider-alibaba"].contains("阿里云")
        );
    }

    #[test]
    fn arguments_and_plurals_render() {
        let m = Msg::new("unit-gpus").arg("n", 1u64);
        assert_eq!(m.render(Lang::En), "1 GPU");
        assert_eq!(
            Msg::new("unit-gpus").arg("n", 8u64).render(Lang::En),
            "8 GPUs"
        );
        assert_eq!(
            Msg::new("unit-gpus").arg("n", 8u64).render(Lang::Zh),
            "8 张卡"
        );
    }

    #[test]
    fn locale_values() {
        assert_eq!(Lang::from_locale("zh_CN.UTF-8"), Lang::Zh);
        assert_eq!(Lang::from_locale("en_US.UTF-8"), Lang::En);
        assert_eq!(Lang::from_locale("C"), Lang::En);
    }
}
