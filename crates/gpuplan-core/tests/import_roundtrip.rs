//! Import → validate round trip (issue 7): whatever the provider's JSON holds — negative, zero,
//! huge, NaN-like strings, wrong types — every row an import produces validates clean, and its
//! prices are positive and finite. Bad rows are left out with their JSON path, never written.

use gpuplan_core::catalog::import::{import, ImportContext};
use gpuplan_core::catalog::validate::{validate_file, Severity};
use gpuplan_core::catalog::{parse_catalog_file, Catalog, Provider};
use proptest::prelude::*;
use serde_json::{json, Value};
use std::sync::OnceLock;

fn cat() -> &'static Catalog {
    static C: OnceLock<Catalog> = OnceLock::new();
    C.get_or_init(|| Catalog::builtin().expect("built-in catalog"))
}

/// A JSON value for a numeric field: plausible, hostile, or of the wrong type.
fn num() -> impl Strategy<Value = Value> {
    prop_oneof![
        4 => (1u32..=16).prop_map(|x| json!(x)),
        2 => (0.001f64..1e4).prop_map(|x| json!(x)),
        1 => Just(json!(0)),
        1 => (-1e6f64..0.0).prop_map(|x| json!(x)),
        1 => Just(json!(1e300)),
        1 => Just(json!(-0.0)),
        1 => Just(json!(0.5)),
        1 => Just(json!(2.5)),
        1 => prop::sample::select(vec!["NaN", "nan", "inf", "-inf", "Infinity", "1e999", "", "abc", "8", "-4", " 16 ", "0x10"]).prop_map(|s| json!(s)),
        1 => Just(Value::Null),
        1 => Just(json!(true)),
        1 => Just(json!([1])),
    ]
}

fn id() -> impl Strategy<Value = Value> {
    prop_oneof![
        6 => "[a-z]{2,4}\\.[a-z0-9]{1,3}".prop_map(|s| json!(s)),
        1 => Just(json!("")),
        1 => Just(json!(" ")),
        1 => Just(json!("dup.id")),
        1 => Just(json!(7)),
    ]
}

fn chip() -> impl Strategy<Value = Value> {
    prop::sample::select(vec![
        "NVIDIA A10",
        "NVIDIA T4",
        "NVIDIA A100",
        "NVIDIA X99",
        "",
        "Ascend 910B",
    ])
    .prop_map(|s| json!(s))
}

fn alibaba() -> impl Strategy<Value = Value> {
    let row = (id(), num(), chip(), num(), num(), num(), num(), num()).prop_map(
        |(id, gpus, spec, mem, cpu, ram, bw, nvme)| {
            json!({"InstanceTypeId": id, "GPUAmount": gpus, "GPUSpec": spec, "GPUMemorySize": mem,
                   "CpuCoreCount": cpu, "MemorySize": ram, "InstanceBandwidthRx": bw,
                   "LocalStorageCapacity": nvme, "InstanceTypeFamily": "ecs.gn7i"})
        },
    );
    let spot = (id(), num()).prop_map(|(id, p)| {
        json!({"InstanceType": id, "ZoneId": "cn-shanghai-l", "Timestamp": "2026-12-01T06:00:00Z", "SpotPrice": p})
    });
    prop_oneof![
        prop::collection::vec(row, 0..8)
            .prop_map(|v| json!({"InstanceTypes": {"InstanceType": v}})),
        prop::collection::vec(spot, 0..6)
            .prop_map(|v| json!({"Currency": "CNY", "SpotPrices": {"SpotPriceType": v}})),
    ]
}

fn huawei() -> impl Strategy<Value = Value> {
    let count = prop::sample::select(vec![
        "1", "8", "0", "-4", "nan", "inf", "2.5", "", "x", "100",
    ]);
    let row = (id(), num(), num(), count, num()).prop_map(|(id, cpu, ram, n, rate)| {
        json!({"name": id, "vcpus": cpu, "ram": ram, "os_extra_specs": {
            "ecs:performancetype": "gpu", "pci_passthrough:alias": format!("nvidia-t4:{n}"),
            "quota:max_rate": rate}})
    });
    prop::collection::vec(row, 0..8).prop_map(|v| json!({"flavors": v}))
}

fn tencent() -> impl Strategy<Value = Value> {
    let charge = prop::sample::select(vec!["POSTPAID_BY_HOUR", "SPOTPAID", "PREPAID", "OTHER"]);
    let row = (id(), num(), num(), num(), num(), charge, num(), num()).prop_map(
        |(id, n, cpu, ram, bw, charge, p1, p2)| {
            json!({"InstanceType": id, "InstanceFamily": "GN7", "Zone": "ap-guangzhou-3", "GpuCount": n,
                   "Cpu": cpu, "Memory": ram, "InstanceBandwidth": bw, "InstanceChargeType": charge,
                   "Price": {"UnitPrice": p1, "UnitPriceDiscount": p2, "DiscountPrice": p2, "OriginalPrice": p1}})
        },
    );
    prop::collection::vec(row, 0..8).prop_map(|v| json!({"Response": {"InstanceTypeQuotaSet": v}}))
}

fn check(provider: Provider, doc: &Value) -> Result<(), TestCaseError> {
    let ctx = ImportContext {
        region: Some("cn-shanghai".into()),
        today: "2026-12-02".into(),
        ..Default::default()
    };
    let docs = vec![("doc.json".to_string(), doc.to_string())];
    let Ok(r) = import(provider, &docs, &ctx, cat()) else {
        return Ok(()); // a document-level error (wrong shape) writes nothing
    };
    let errors: Vec<_> = validate_file("imported", &r.file, cat())
        .into_iter()
        .filter(|f| f.severity == Severity::Error)
        .collect();
    prop_assert!(errors.is_empty(), "{errors:?}\n{doc}");
    for p in &r.file.price {
        prop_assert!(p.cny.is_finite() && p.cny > 0.0, "{p:?}");
    }
    for l in &r.left_out {
        prop_assert!(l.contains("doc.json: $"), "no JSON path: {l}");
    }
    let text = toml::to_string(&r.file).expect("serialises");
    prop_assert!(parse_catalog_file("round trip", &text).is_ok(), "{text}");
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn alibaba_rows_that_come_out_validate(doc in alibaba()) {
        check(Provider::Alibaba, &doc)?;
    }

    #[test]
    fn huawei_rows_that_come_out_validate(doc in huawei()) {
        check(Provider::Huawei, &doc)?;
    }

    #[test]
    fn tencent_rows_that_come_out_validate(doc in tencent()) {
        check(Provider::Tencent, &doc)?;
    }
}
