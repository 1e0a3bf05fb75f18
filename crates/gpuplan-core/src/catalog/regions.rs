//! The regions the catalog knows for a set of providers, and the warning for a `--region` it
//! does not know (audit r6 #6).
//!
//! Refusing such a region would refuse real ones: the built-in catalog documents regions only for
//! Tencent families (tencent.toml `regions`, and four Tencent families have none); Alibaba and
//! Huawei types carry no region list and their prices are listed for one region (cn-shanghai in
//! prices.toml). Alibaba's cn-hangzhou, say, is real and absent. So an unknown region is
//! planned, with a warning that names it, the regions the catalog does know, the nearest
//! spellings, and where the prices come from.

use super::{Catalog, Provider};
use crate::error::{close_names, names_or_none};
use crate::i18n::Msg;
use crate::plan::money::same_region;
use std::collections::BTreeSet;

fn selected(p: Provider, providers: &[Provider]) -> bool {
    providers.is_empty() || providers.contains(&p)
}

/// Region ids the catalog names for `providers` (all when empty): documented instance regions
/// and the regions of price rows ("unspecified" left out), sorted.
pub fn known_regions(cat: &Catalog, providers: &[Provider]) -> Vec<String> {
    let mut out: BTreeSet<String> = cat
        .instances
        .iter()
        .filter(|i| selected(i.provider, providers))
        .flat_map(|i| i.regions.iter().cloned())
        .collect();
    out.extend(price_regions(cat, providers));
    out.into_iter().collect()
}

/// The regions the prices of `providers` come from, sorted ("unspecified" left out).
pub fn price_regions(cat: &Catalog, providers: &[Provider]) -> Vec<String> {
    let set: BTreeSet<String> = cat
        .prices
        .iter()
        .filter(|p| selected(p.provider, providers) && p.region != "unspecified")
        .map(|p| p.region.clone())
        .collect();
    set.into_iter().collect()
}

/// Providers among `providers` (all when empty) with an instance type that documents no region
/// (all of Alibaba's and Huawei's, four Tencent families): those are kept for any region.
fn undocumented(cat: &Catalog, providers: &[Provider]) -> Vec<Provider> {
    [Provider::Alibaba, Provider::Huawei, Provider::Tencent]
        .into_iter()
        .filter(|p| selected(*p, providers))
        .filter(|p| {
            cat.instances
                .iter()
                .any(|i| i.provider == *p && i.regions.is_empty())
        })
        .collect()
}

/// Providers by their names in each language (阿里云、华为云 in Chinese text, not the ids
/// `alibaba, huawei`: audit r9 #16), or "none".
fn provider_names(ps: &[Provider]) -> crate::i18n::Arg {
    use crate::i18n::{names, text, Lang};
    if ps.is_empty() {
        return crate::i18n::Arg::Str("none".into());
    }
    let join = |l: Lang| {
        let v: Vec<String> = ps.iter().map(|p| names::provider(*p).render(l)).collect();
        v.join(&text(l, "plan-list-sep"))
    };
    crate::i18n::Arg::PerLang {
        en: join(Lang::En),
        zh: join(Lang::Zh),
    }
}

/// One warning per asked region that no instance type or price row of `providers` names (same
/// city across providers' spellings counts, see [`same_region`]).
pub fn unknown_region_warnings(
    cat: &Catalog,
    providers: &[Provider],
    asked: &[String],
) -> Vec<Msg> {
    if asked.is_empty() {
        // The common case: no region asked, nothing to scan the catalog for.
        return Vec::new();
    }
    let known = known_regions(cat, providers);
    let priced = price_regions(cat, providers);
    let undoc = undocumented(cat, providers);
    asked
        .iter()
        .filter(|r| !known.iter().any(|k| same_region(r, k)))
        .map(|r| {
            let close = close_names(r, known.iter().map(String::as_str));
            Msg::new("warn-region-unknown")
                .arg("region", r.as_str())
                .arg("known", names_or_none(&known))
                .arg("close", names_or_none(&close))
                .arg("priced", names_or_none(&priced))
                .arg("undoc", provider_names(&undoc))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn builtin() -> Catalog {
        Catalog::builtin().expect("built-in catalog")
    }

    #[test]
    fn a_typo_is_warned_with_the_nearest_spelling_and_a_known_region_is_not() {
        let cat = builtin();
        let w = unknown_region_warnings(&cat, &[], &["cn-shangai".into()]);
        assert_eq!(w.len(), 1);
        let en = w[0].render(crate::i18n::Lang::En);
        assert!(
            en.contains("cn-shangai") && en.contains("(did you mean cn-shanghai"),
            "{en}"
        );
        assert!(en.contains("Prices are from cn-shanghai"), "{en}");
        for ok in [
            "cn-shanghai",
            "ap-guangzhou",
            "cn-guangzhou",
            "AP-Singapore",
        ] {
            assert!(
                unknown_region_warnings(&cat, &[], &[ok.into()]).is_empty(),
                "{ok}"
            );
        }
    }

    #[test]
    fn the_known_list_follows_the_providers() {
        let cat = builtin();
        let tencent = known_regions(&cat, &[Provider::Tencent]);
        assert!(tencent.iter().any(|r| r == "ap-singapore"), "{tencent:?}");
        let alibaba = known_regions(&cat, &[Provider::Alibaba]);
        assert!(!alibaba.iter().any(|r| r == "ap-singapore"), "{alibaba:?}");
        assert_eq!(
            undocumented(&cat, &[Provider::Alibaba]),
            vec![Provider::Alibaba]
        );
        // GN7vw, PNV5b, PNV6 and HCC name no regions (tencent.toml).
        assert_eq!(
            undocumented(&cat, &[Provider::Tencent]),
            vec![Provider::Tencent]
        );
        let w = unknown_region_warnings(&cat, &[Provider::Tencent], &["mars-1".into()]);
        let en = w[0].render(crate::i18n::Lang::En);
        assert!(
            en.contains("Prices are from rows that state no region"),
            "{en}"
        );
    }
}
