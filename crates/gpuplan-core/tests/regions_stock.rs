//! Issue 8 item 5 at the library level: the region filter, the foreign-region price estimate and
//! imported stock status, on the built-in catalog.

use gpuplan_core::catalog::{Billing, Catalog, PriceKind, Stock};
use gpuplan_core::plan::money::{regional_price, same_region};
use gpuplan_core::plan::{candidates, Constraints};

fn ids(cat: &Catalog, c: &Constraints) -> Vec<String> {
    let mut rejected = Vec::new();
    candidates(cat, c, &mut rejected)
        .into_iter()
        .map(|(i, _)| i.id.clone())
        .collect()
}

#[test]
fn undocumented_regions_stay_documented_elsewhere_go() {
    let cat = Catalog::builtin().unwrap();
    let c = Constraints {
        regions: vec!["cn-beijing".into()],
        ..Default::default()
    };
    let got = ids(&cat, &c);
    // Alibaba rows document no region: kept (with advice); Tencent GT4 is sold in ap-beijing,
    // the same city under Tencent's spelling; PNV4 is not sold in Chengdu.
    assert!(got.iter().any(|i| i == "ecs.gn7i-c8g1.2xlarge"));
    assert!(got.iter().any(|i| i.starts_with("GT4")));
    let c = Constraints {
        regions: vec!["cn-chengdu".into()],
        ..Default::default()
    };
    let got = ids(&cat, &c);
    assert!(!got
        .iter()
        .any(|i| i.starts_with("GT4") || i.starts_with("PNV4")));
    assert!(got.iter().any(|i| i.starts_with("GN10X")));
    let c = Constraints {
        regions: vec!["ap-nanjing".into()],
        ..Default::default()
    };
    let got = ids(&cat, &c);
    assert!(got.iter().any(|i| i.starts_with("GT4")));
    assert!(
        !got.iter().any(|i| i.starts_with("PNV4")),
        "PNV4 is not sold in Nanjing"
    );
}

#[test]
fn foreign_region_price_is_a_labelled_estimate() {
    let cat = Catalog::builtin().unwrap();
    let i = cat.find_instance("ecs.gn7i-c8g1.2xlarge").unwrap();
    let home = regional_price(&cat, i, Billing::OnDemand, &["cn-shanghai".into()]).unwrap();
    assert_eq!(home.kind, PriceKind::List);
    let away = regional_price(&cat, i, Billing::OnDemand, &["cn-hangzhou".into()]).unwrap();
    assert_eq!(away.kind, PriceKind::Estimate);
    assert_eq!(away.region, "cn-shanghai");
    assert_eq!(away.cny, home.cny);
    assert!(away
        .method
        .unwrap()
        .starts_with("price from cn-shanghai, used for cn-hangzhou"));
    // No region asked: the list price as it is.
    assert_eq!(
        regional_price(&cat, i, Billing::OnDemand, &[])
            .unwrap()
            .kind,
        PriceKind::List
    );
}

#[test]
fn sold_out_types_are_not_candidates() {
    let mut cat = Catalog::builtin().unwrap();
    for i in cat.instances.iter_mut().filter(|i| i.family == "gn7i") {
        i.stock = Some(Stock::SoldOut);
    }
    let got = ids(&cat, &Constraints::default());
    assert!(!got.iter().any(|i| i.starts_with("ecs.gn7i")));
    assert!(got.iter().any(|i| i.starts_with("ecs.gn6i")));
    // Everything sold out: the binding says why.
    for i in cat.instances.iter_mut() {
        i.stock = Some(Stock::SoldOut);
    }
    let mut rejected = Vec::new();
    assert!(candidates(&cat, &Constraints::default(), &mut rejected).is_empty());
    assert!(
        rejected[0].message_en.contains("sold out"),
        "{:?}",
        rejected
    );
}

#[test]
fn same_city_spellings_match_and_others_do_not() {
    assert!(same_region("cn-beijing", "ap-beijing"));
    assert!(same_region("ap-shanghai", "cn-shanghai"));
    assert!(same_region("cn-north-4", "CN-NORTH-4"));
    assert!(!same_region("cn-beijing", "cn-shanghai"));
    assert!(!same_region("cn-north-4", "ap-north-4"));
    // A Tencent-spelled request finds Alibaba's Shanghai list price as a list price.
    let cat = Catalog::builtin().unwrap();
    let i = cat.find_instance("ecs.gn7i-c8g1.2xlarge").unwrap();
    let p = regional_price(&cat, i, Billing::OnDemand, &["ap-shanghai".into()]).unwrap();
    assert_eq!(p.kind, PriceKind::List);
}
