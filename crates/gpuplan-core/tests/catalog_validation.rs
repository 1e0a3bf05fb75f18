//! Validation at load (issue 7): whatever numbers a user catalog row holds, the rows
//! `merge_validated` keeps are finite and in range, and every row it drops has an error finding.

use gpuplan_core::catalog::validate::Severity;
use gpuplan_core::catalog::{parse_catalog_rows, Billing, Catalog, Origin};
use proptest::prelude::*;
use std::sync::OnceLock;

fn builtin() -> &'static Catalog {
    static C: OnceLock<Catalog> = OnceLock::new();
    C.get_or_init(|| Catalog::builtin().expect("built-in catalog"))
}

/// A TOML number: plausible or hostile.
fn num() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => (1u32..=64).prop_map(|x| x.to_string()),
        2 => (0.001f64..1e5).prop_map(|x| format!("{x:?}")),
        1 => prop::sample::select(vec![
            "nan", "-nan", "inf", "-inf", "0", "-0.0", "-1", "1e308", "-1e308", "0.5", "2.5",
            "1000", "24576", "65", "1e-300",
        ])
        .prop_map(String::from),
    ]
}

fn row(v: &[String]) -> String {
    format!(
        "[[instance]]\nid = \"p.1\"\nprovider = \"alibaba\"\nfamily = \"p\"\ngpu = \"a10\"\ngpu_count = {}\ngpu_memory_gib = {}\nram_gib = {}\nnetwork_gbit = {}\nrdma = \"none\"\nsource = \"s\"\nas_of = \"2026-11\"\nconfidence = \"likely\"\n\n[[price]]\ninstance = \"p.1\"\nprovider = \"alibaba\"\nregion = \"cn-shanghai\"\nbilling = \"on_demand\"\ncny = {}\nkind = \"user\"\nas_of = \"2026-11\"\nsource = \"s\"\n\n[[storage]]\nid = \"st.1\"\nprovider = \"alibaba\"\nname = \"S\"\nkind = \"block\"\nthroughput_max_mbs = {}\nthroughput_base_mbs = {}\nthroughput_per_gib_mbs = {}\nprice_cny_per_gib_month = {}\nsource = \"s\"\nas_of = \"2026-01\"\nconfidence = \"likely\"\n",
        v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8]
    )
}

fn finite_pos(x: Option<f64>) -> bool {
    x.is_none_or(|x| x.is_finite() && x > 0.0)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn kept_rows_are_finite_and_dropped_rows_are_reported(v in prop::collection::vec(num(), 9)) {
        let text = row(&v);
        let (f, parse_findings) = parse_catalog_rows("p.toml", &text).expect("valid TOML");
        let rows_in = f.instance.len() + f.price.len() + f.storage.len();
        let mut c = builtin().clone();
        let before = (c.instances.len(), c.prices.len(), c.storage.len());
        let mut findings = c.merge_validated(f, Origin::User("p.toml".into()), "p.toml");
        findings.extend(parse_findings);
        let added = (c.instances.len() - before.0) + (c.prices.len() - before.1) + (c.storage.len() - before.2);
        let errors = findings.iter().filter(|f| f.severity == Severity::Error).count();
        prop_assert!(added + errors >= 3 && added <= rows_in, "{added} kept, {errors} errors: {findings:?}");
        for f in &findings {
            prop_assert!(!f.message.contains("NaN") && !f.message.contains("inf "), "{f:?}");
        }
        if let Ok(i) = c.find_instance("p.1") {
            prop_assert!(i.gpu_count.is_finite() && i.gpu_count >= 1.0 && i.gpu_count <= 64.0);
            prop_assert!(finite_pos(i.gpu_memory_gib) && finite_pos(i.ram_gib) && finite_pos(i.network_gbit));
            if let Some(p) = c.best_price(i, Billing::OnDemand, None) {
                prop_assert!(p.cny.is_finite() && p.cny > 0.0);
            }
        }
        for p in c.prices.iter().filter(|p| p.instance == "p.1") {
            prop_assert!(p.cny.is_finite() && p.cny > 0.0);
        }
        if let Some(s) = c.storage.iter().find(|s| s.id == "st.1") {
            prop_assert!(s.throughput_max_mbs.is_finite() && s.throughput_max_mbs > 0.0);
            prop_assert!(s.throughput_per_gib_mbs.is_finite() && s.throughput_base_mbs.is_finite());
            prop_assert!(finite_pos(s.price_cny_per_gib_month));
            prop_assert!(s.throughput_mbs(100.0).is_finite());
        }
    }
}

const VALID: &str = "[[instance]]\nid = \"p.1\"\nprovider = \"alibaba\"\nfamily = \"p\"\ngpu = \"a10\"\ngpu_count = 1\ngpu_memory_gib = 24\nrdma = \"none\"\nsource = \"s\"\nas_of = \"2026-11\"\nconfidence = \"likely\"\n";

proptest! {
    #![proptest_config(ProptestConfig::with_cases(500))]

    /// Catalog TOML fuzzing (proptest-driven): random edits of a valid file, or random text, never
    /// panic, and no error or finding repeats a value of the file (the secret).
    #[test]
    fn catalog_parsing_never_panics_or_echoes_values(
        edits in prop::collection::vec((0usize..400, "[\\x00-\\x7f]{0,4}"), 0..6),
        noise in ".{0,80}",
    ) {
        let mut text = format!("password = \"S3CRET\"\n{VALID}");
        for (at, s) in &edits {
            let at = (*at).min(text.len());
            if text.is_char_boundary(at) {
                text.insert_str(at, s);
            }
        }
        text.push_str(&noise);
        match parse_catalog_rows("f.toml", &text) {
            Err(e) => prop_assert!(!e.to_string().contains("S3CRET"), "{e}"),
            Ok((f, findings)) => {
                let mut c = builtin().clone();
                let more = c.merge_validated(f, Origin::User("f.toml".into()), "f.toml");
                for x in findings.iter().chain(&more) {
                    prop_assert!(!format!("{} {}", x.location, x.message).contains("S3CRET"), "{x:?}");
                }
            }
        }
    }
}
