//! Tencent CVM `InquiryPriceRunInstances` (API 3.0, version 2017-03-12), signed with
//! TC3-HMAC-SHA256: POST `https://cvm.tencentcloudapi.com/` with `X-TC-Action`, `X-TC-Region`,
//! `X-TC-Timestamp`, `X-TC-Version` and a JSON body. `InstanceChargeType` is
//! `POSTPAID_BY_HOUR` (on-demand), `PREPAID` with `InstanceChargePrepaid.Period = 1` (monthly)
//! or `SPOTPAID` (spot). The zone is `--zone`, else the region's first `AVAILABLE` zone from
//! `DescribeZones`.
//!
//! Price kept: `Price.InstancePrice.UnitPriceDiscount` (hourly, after the account's discount;
//! else `UnitPrice`) or `DiscountPrice` (monthly; else `OriginalPrice`). It covers the instance
//! and its default system disk; bandwidth (`BandwidthPrice`) is not included.

use super::*;
use crate::creds::Credentials;
use gpuplan_core::signing::tencent as sig;

const VERSION: &str = "2017-03-12";
const CONTENT_TYPE: &str = "application/json; charset=utf-8";

pub struct Tencent {
    creds: Credentials,
    spec: FetchSpec,
    zones: std::collections::BTreeMap<String, String>,
}

impl Tencent {
    pub fn new(creds: Credentials, spec: FetchSpec) -> Tencent {
        Tencent {
            creds,
            spec,
            zones: Default::default(),
        }
    }

    pub fn request(
        &self,
        base: &str,
        host: &str,
        action: &str,
        region: &str,
        body: &[u8],
        timestamp: i64,
    ) -> HttpRequest {
        // The service is the first label of the product host (cvm.tencentcloudapi.com → cvm);
        // a test endpoint (127.0.0.1) signs as cvm too.
        let service = if host.ends_with("tencentcloudapi.com") {
            host.split('.').next().unwrap_or("cvm")
        } else {
            "cvm"
        };
        let s = sig::sign(
            &self.creds.id,
            self.creds.secret.expose(),
            &sig::Request {
                method: "POST",
                host,
                path: "/",
                query: "",
                content_type: CONTENT_TYPE,
                payload: body,
                service,
                timestamp,
            },
        );
        HttpRequest {
            method: "POST",
            url: format!("{base}/"),
            headers: vec![
                ("Authorization".into(), s.authorization),
                ("Content-Type".into(), CONTENT_TYPE.into()),
                ("X-TC-Action".into(), action.into()),
                ("X-TC-Region".into(), region.into()),
                ("X-TC-Timestamp".into(), timestamp.to_string()),
                ("X-TC-Version".into(), VERSION.into()),
            ],
            body: body.to_vec(),
        }
    }

    fn call(
        &self,
        client: &mut Client,
        action: &str,
        region: &str,
        body: serde_json::Value,
    ) -> Result<serde_json::Value, ApiError> {
        let url = self
            .spec
            .endpoint
            .clone()
            .unwrap_or_else(|| "https://cvm.tencentcloudapi.com".into());
        let (base, host) = split_endpoint(&url).map_err(|m| ApiError {
            code: "bad-endpoint".into(),
            message: m,
        })?;
        let bytes = body.to_string().into_bytes();
        let mut build = || {
            let now = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_secs() as i64)
                .unwrap_or(self.spec.now);
            self.request(&base, &host, action, region, &bytes, now)
        };
        let resp = client.call(&mut build, &classify)?;
        let v = json_body(&resp, action)?;
        v.get("Response")
            .cloned()
            .ok_or_else(|| malformed(action, "no `Response` object in the answer"))
    }

    fn zone(&mut self, client: &mut Client, region: &str) -> Result<String, ApiError> {
        if let Some(z) = self
            .spec
            .zones
            .iter()
            .find(|z| z.starts_with(&format!("{region}-")))
        {
            return Ok(z.clone());
        }
        if let Some(z) = self.zones.get(region) {
            return Ok(z.clone());
        }
        let r = self.call(client, "DescribeZones", region, serde_json::json!({}))?;
        let z = r
            .get("ZoneSet")
            .and_then(|x| x.as_array())
            .and_then(|a| {
                a.iter()
                    .find(|z| z.get("ZoneState").and_then(|s| s.as_str()) == Some("AVAILABLE"))
            })
            .and_then(|z| z.get("Zone").and_then(|s| s.as_str()))
            .ok_or_else(|| ApiError {
                code: "no-zone".into(),
                message: format!("DescribeZones lists no AVAILABLE zone in {region}: pass --zone"),
            })?
            .to_string();
        self.zones.insert(region.to_string(), z.clone());
        Ok(z)
    }
}

/// Tencent answers HTTP 200 with `{"Response":{"Error":{"Code","Message"}}}` on errors.
pub fn classify(resp: &HttpResponse) -> Verdict {
    let v: serde_json::Value = serde_json::from_str(&resp.body).unwrap_or_default();
    let err = v.pointer("/Response/Error");
    let code = err
        .and_then(|e| e.get("Code"))
        .and_then(|x| x.as_str())
        .unwrap_or("");
    let message = err
        .and_then(|e| e.get("Message"))
        .and_then(|x| x.as_str())
        .unwrap_or("")
        .to_string();
    if code.starts_with("RequestLimitExceeded")
        || code == "InternalError"
        || code.starts_with("InternalError.")
        || code == "ResourceInsufficient.TemporarilyUnavailable"
    {
        return Verdict::Retry {
            code: code.into(),
            message,
        };
    }
    body_verdict(resp.status, code, message)
}

/// The instance price in an InquiryPriceRunInstances `Response`.
pub fn parse_inquiry(r: &serde_json::Value, billing: Billing) -> Result<f64, ApiError> {
    const API: &str = "InquiryPriceRunInstances";
    let p = r
        .pointer("/Price/InstancePrice")
        .ok_or_else(|| malformed(API, "no Price.InstancePrice in the response"))?;
    let v = match billing {
        Billing::Monthly => num(p.get("DiscountPrice")).or(num(p.get("OriginalPrice"))),
        _ => num(p.get("UnitPriceDiscount")).or(num(p.get("UnitPrice"))),
    };
    v.filter(|x| x.is_finite() && *x > 0.0).ok_or_else(|| {
        malformed(
            API,
            "Price.InstancePrice has no positive UnitPriceDiscount/UnitPrice (hourly) or DiscountPrice/OriginalPrice (monthly)",
        )
    })
}

impl Fetcher for Tencent {
    fn fetch(&mut self, client: &mut Client, t: &Task) -> Result<Vec<Price>, ApiError> {
        let zone = self.zone(client, &t.region)?;
        let mut body = serde_json::json!({
            "Placement": {"Zone": zone},
            "ImageId": self.spec.image,
            "InstanceType": t.instance,
            "InstanceCount": 1,
        });
        match t.billing {
            Billing::OnDemand => body["InstanceChargeType"] = "POSTPAID_BY_HOUR".into(),
            Billing::Monthly => {
                body["InstanceChargeType"] = "PREPAID".into();
                body["InstanceChargePrepaid"] = serde_json::json!({"Period": 1});
            }
            // No InstanceMarketOptions: its SpotOptions.MaxPrice would cap, not price, the
            // inquiry; SPOTPAID alone asks for the current spot price.
            Billing::Spot => body["InstanceChargeType"] = "SPOTPAID".into(),
        }
        let r = self.call(client, "InquiryPriceRunInstances", &t.region, body)?;
        let cny = parse_inquiry(&r, t.billing)?;
        let mut row = api_price(
            Provider::Tencent,
            t,
            cny,
            "Tencent CVM InquiryPriceRunInstances",
            &self.spec,
        );
        row.source = format!("{} (zone {zone})", row.source);
        Ok(vec![row])
    }
}
