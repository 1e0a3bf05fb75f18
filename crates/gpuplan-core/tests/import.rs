//! Importers against fixtures built in the response shapes of catalog-facts.md §4 /
//! prices-storage.md §2 (paging, vGPU fractions, sold-out status, unknown chip names, truncation).

use gpuplan_core::catalog::import::{import_alibaba, import_huawei, import_tencent, ImportContext};
use gpuplan_core::catalog::{Billing, Catalog, PriceKind, Stock};
use gpuplan_core::i18n::Lang;

fn fx(name: &str) -> (String, String) {
    let p = format!("{}/tests/fixtures/{name}", env!("CARGO_MANIFEST_DIR"));
    (name.to_string(), std::fs::read_to_string(p).unwrap())
}

fn ctx(region: &str) -> ImportContext {
    ImportContext {
        region: Some(region.into()),
        today: "2026-12-02".into(),
        ..Default::default()
    }
}

#[test]
fn alibaba_pages_vgpu_unknown_and_next_token() {
    let cat = Catalog::builtin().unwrap();
    // Page 1 alone: the importer warns that more pages exist.
    let r = import_alibaba(
        &[fx("alibaba-describe-instance-types-page1.json")],
        &ctx("cn-shanghai"),
        &cat,
    )
    .unwrap();
    assert!(
        r.warnings
            .iter()
            .any(|w| w.render(Lang::En).contains("NextToken")),
        "{:?}",
        r.warnings
    );
    assert_eq!(r.file.instance.len(), 1, "the CPU type is skipped");
    let a10 = &r.file.instance[0];
    assert_eq!(
        (a10.gpu.as_str(), a10.gpu_count, a10.vcpu, a10.network_gbit),
        ("a10", 1.0, Some(8), Some(16.384))
    );
    // Both pages: no NextToken warning; vGPU becomes a fraction; unknown chip kept unmapped.
    let r = import_alibaba(
        &[
            fx("alibaba-describe-instance-types-page1.json"),
            fx("alibaba-describe-instance-types-page2.json"),
        ],
        &ctx("cn-shanghai"),
        &cat,
    )
    .unwrap();
    assert!(!r
        .warnings
        .iter()
        .any(|w| w.render(Lang::En).contains("NextToken")));
    let v = r
        .file
        .instance
        .iter()
        .find(|i| i.id == "ecs.sgn7i-vws-m2.xlarge")
        .unwrap();
    assert!(v.vgpu && (v.gpu_count - 2.0 / 24.0).abs() < 1e-9, "{v:?}");
    let l20 = r
        .file
        .instance
        .iter()
        .find(|i| i.id == "ecs.gn8is-8x.32xlarge")
        .unwrap();
    assert_eq!(l20.rdma, gpuplan_core::catalog::RdmaKind::Erdma);
    let unk = r
        .file
        .instance
        .iter()
        .find(|i| i.id == "ecs.gn8t-8x.32xlarge")
        .unwrap();
    assert!(!unk.gpu_is_mapped());
    assert!(r
        .warnings
        .iter()
        .any(|w| w.render(Lang::En).contains("NVIDIA G49")
            && w.render(Lang::En).contains("gpu_aliases")));
}

#[test]
fn alibaba_prices() {
    let cat = Catalog::builtin().unwrap();
    let r = import_alibaba(
        &[fx("alibaba-describe-spot-price-history.json")],
        &ctx("cn-shanghai"),
        &cat,
    )
    .unwrap();
    assert_eq!(r.file.price.len(), 1);
    let p = &r.file.price[0];
    assert_eq!(
        (p.billing, p.cny, p.kind, p.as_of.as_str()),
        (Billing::Spot, 2.10, PriceKind::User, "2026-12-01")
    );
    // DescribePrice needs the request context.
    assert!(import_alibaba(
        &[fx("alibaba-describe-price.json")],
        &ctx("cn-shanghai"),
        &cat
    )
    .is_err());
    let mut c = ctx("cn-shanghai");
    c.price_instance = Some("ecs.gn7i-c8g1.2xlarge".into());
    c.price_billing = Some(Billing::OnDemand);
    let r = import_alibaba(&[fx("alibaba-describe-price.json")], &c, &cat).unwrap();
    assert_eq!(r.file.price[0].cny, 8.10);
}

#[test]
fn huawei_flavors() {
    let cat = Catalog::builtin().unwrap();
    let r = import_huawei(&[fx("huawei-list-flavors.json")], &ctx("cn-north-4"), &cat).unwrap();
    assert_eq!(r.file.instance.len(), 3, "the CPU flavor is skipped");
    let p2s = r
        .file
        .instance
        .iter()
        .find(|i| i.id == "p2s.2xlarge.8")
        .unwrap();
    assert_eq!(
        (p2s.gpu.as_str(), p2s.ram_gib, p2s.network_gbit, p2s.vcpu),
        ("v100-pcie-16g", Some(64.0), Some(10.0), Some(8))
    );
    assert!(p2s.notes.as_deref().unwrap().contains("sellout"));
    let pi2 = r
        .file
        .instance
        .iter()
        .find(|i| i.id == "pi2.2xlarge.4")
        .unwrap();
    assert_eq!((pi2.gpu.as_str(), pi2.stock), ("t4", Some(Stock::SoldOut)));
    assert!(r
        .warnings
        .iter()
        .any(|w| w.render(Lang::En).contains("nvidia-z99")));
}

#[test]
fn tencent_zones_prices_and_stock() {
    let cat = Catalog::builtin().unwrap();
    let r = import_tencent(
        &[fx("tencent-describe-zone-instance-config-infos.json")],
        &ctx("ap-guangzhou"),
        &cat,
    )
    .unwrap();
    assert_eq!(
        r.file.instance.len(),
        3,
        "one row per GPU type, CPU types skipped"
    );
    let gn7 = r
        .file
        .instance
        .iter()
        .find(|i| i.id == "GN7.2XLARGE32")
        .unwrap();
    assert_eq!(
        (gn7.gpu.as_str(), gn7.stock),
        ("t4", Some(Stock::Available)),
        "available in one zone"
    );
    assert!(gn7
        .notes
        .as_deref()
        .unwrap()
        .contains("ap-guangzhou-4: SoldOut"));
    let slice = r
        .file
        .instance
        .iter()
        .find(|i| i.id == "GN7.LARGE20")
        .unwrap();
    assert!(slice.vgpu && slice.gpu_count == 0.25 && slice.gpu_memory_gib == Some(4.0));
    let spot = r
        .file
        .price
        .iter()
        .find(|p| p.instance == "GN7.LARGE20")
        .unwrap();
    assert_eq!((spot.billing, spot.cny), (Billing::Spot, 0.62));
    let od = r
        .file
        .price
        .iter()
        .find(|p| p.instance == "GN7.2XLARGE32")
        .unwrap();
    assert_eq!(
        (od.billing, od.cny, od.region.as_str()),
        (Billing::OnDemand, 8.96, "ap-guangzhou")
    );
    let pnv6 = r
        .file
        .instance
        .iter()
        .find(|i| i.id == "PNV6.4XLARGE160")
        .unwrap();
    assert!(!pnv6.gpu_is_mapped(), "an unnamed GPU stays unmapped");
}

#[test]
fn truncated_and_malformed_responses_name_the_problem() {
    let cat = Catalog::builtin().unwrap();
    let (_, full) = fx("tencent-describe-zone-instance-config-infos.json");
    let cut = full[..full.len() / 2].to_string();
    let e = import_tencent(&[("cut.json".into(), cut)], &ctx("ap-guangzhou"), &cat)
        .unwrap_err()
        .to_string();
    assert!(e.contains("truncated") && e.contains("cut.json"), "{e}");
    let bad =
        r#"{"Response":{"InstanceTypeQuotaSet":[{"InstanceType":"GN7.X","GpuCount":"many"}]}}"#;
    let r = import_tencent(
        &[("bad.json".into(), bad.into())],
        &ctx("ap-guangzhou"),
        &cat,
    )
    .unwrap();
    assert!(r.file.instance.is_empty(), "the bad row is left out");
    assert!(
        r.left_out[0].contains("$.Response.InstanceTypeQuotaSet[0].GpuCount"),
        "{:?}",
        r.left_out
    );
    let e = import_huawei(
        &[("x.json".into(), "{\"servers\":[]}".into())],
        &ctx("cn-north-4"),
        &cat,
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("ListFlavors"), "{e}");
}

#[test]
fn builtin_catalog_validates_clean() {
    use gpuplan_core::catalog::{
        parse_catalog_file,
        validate::{validate_file, Severity},
    };
    let cat = Catalog::builtin().unwrap();
    for name in [
        "alibaba",
        "huawei",
        "tencent",
        "prices",
        "storage",
        "wrong-names",
    ] {
        let p = format!("{}/data/catalog/{name}.toml", env!("CARGO_MANIFEST_DIR"));
        let f = parse_catalog_file(&p, &std::fs::read_to_string(&p).unwrap()).unwrap();
        let errors: Vec<_> = validate_file(&p, &f, &cat)
            .into_iter()
            .filter(|x| x.severity == Severity::Error)
            .collect();
        assert!(errors.is_empty(), "{errors:#?}");
    }
}

/// `validate_rows` keeps the first of two rows with the same key, instances and prices alike
/// (one walk, `first_valid_rows`, since refactor23): the second moves to `left_out` with its path
/// and the reason, the first keeps its place and path.
#[test]
fn a_repeated_row_is_left_out_and_the_first_kept() {
    use gpuplan_core::catalog::import::validate_rows;
    let cat = Catalog::builtin().unwrap();
    let mut r = import_alibaba(
        &[
            fx("alibaba-describe-instance-types-page1.json"),
            fx("alibaba-describe-spot-price-history.json"),
        ],
        &ctx("cn-shanghai"),
        &cat,
    )
    .unwrap();
    assert_eq!((r.file.instance.len(), r.file.price.len()), (1, 1));
    let (i, p) = (r.file.instance[0].clone(), r.file.price[0].clone());
    let (ip, pp) = (r.instance_paths[0].clone(), r.price_paths[0].clone());
    r.file.instance.push(i.clone());
    r.instance_paths.push("again.json: $.i".into());
    r.file.price.push(p.clone());
    r.price_paths.push("again.json: $.p".into());
    let before = r.left_out.len();
    validate_rows(&mut r, &cat);
    assert_eq!((r.file.instance.len(), r.file.price.len()), (1, 1));
    assert_eq!((&r.instance_paths[0], &r.price_paths[0]), (&ip, &pp));
    assert_eq!(r.file.instance[0].id, i.id);
    let new = &r.left_out[before..];
    assert_eq!(new.len(), 2, "{new:?}");
    assert!(
        new[0].starts_with("again.json: $.i: instance") && new[0].contains("appears twice"),
        "{new:?}"
    );
    assert!(
        new[1].starts_with("again.json: $.p: a second spot price")
            && new[1].contains("first is kept"),
        "{new:?}"
    );
}
