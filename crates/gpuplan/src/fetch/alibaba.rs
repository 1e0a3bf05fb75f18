//! Alibaba ECS `DescribePrice` (on-demand: `PriceUnit=Hour`; monthly: `PriceUnit=Month`,
//! `Period=1`) and `DescribeSpotPriceHistory` (spot; paged with `Offset` / `NextOffset`), API
//! version 2014-05-26, signed with ACS3-HMAC-SHA256; endpoint `https://ecs.<region>.aliyuncs.com/`.
//!
//! The price kept from DescribePrice is the instance's own `TradePrice` (after the account's
//! discounts) from `DetailInfos.ResourcePriceModel[Resource=instance]`, else the whole
//! `PriceInfo.Price.TradePrice`. For spot, the latest sample of each zone, the cheapest zone.

use super::*;
use crate::creds::Credentials;
use gpuplan_core::signing::alibaba as sig;

const VERSION: &str = "2014-05-26";

pub struct Alibaba {
    creds: Credentials,
    spec: FetchSpec,
}

impl Alibaba {
    pub fn new(creds: Credentials, spec: FetchSpec) -> Alibaba {
        Alibaba { creds, spec }
    }

    fn endpoint(&self, region: &str) -> Result<(String, String), ApiError> {
        let url = self
            .spec
            .endpoint
            .clone()
            .unwrap_or_else(|| format!("https://ecs.{region}.aliyuncs.com"));
        split_endpoint(&url).map_err(|m| ApiError {
            code: "bad-endpoint".into(),
            message: m,
        })
    }

    /// A signed POST of `action` with `params` in the query string.
    pub fn request(
        &self,
        base: &str,
        host: &str,
        action: &str,
        params: &[(String, String)],
        timestamp: i64,
        nonce: &str,
    ) -> HttpRequest {
        let r = sig::Request {
            method: "POST",
            host,
            path: "/",
            query: params,
            action,
            version: VERSION,
            timestamp,
            nonce,
            payload: b"",
            content_type: None,
        };
        let s = sig::sign_v3(&self.creds.id, self.creds.secret.expose(), &r);
        let mut headers: Vec<(String, String)> = sig::headers(&r)
            .into_iter()
            .filter(|(k, _)| k != "host")
            .collect();
        headers.push(("Authorization".into(), s.authorization));
        let query = gpuplan_core::signing::canonical_query(params);
        HttpRequest {
            method: "POST",
            url: format!("{base}/?{query}"),
            headers,
            body: Vec::new(),
        }
    }

    fn call(
        &self,
        client: &mut Client,
        region: &str,
        action: &str,
        params: Vec<(String, String)>,
    ) -> Result<serde_json::Value, ApiError> {
        let (base, host) = self.endpoint(region)?;
        let mut build = || {
            let now = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_secs() as i64)
                .unwrap_or(self.spec.now);
            let nonce = format!("{:016x}{:016x}", fastrand::u64(..), fastrand::u64(..));
            self.request(&base, &host, action, &params, now, &nonce)
        };
        let resp = client.call(&mut build, &classify)?;
        json_body(&resp, action)
    }
}

/// Alibaba's error body: `{"RequestId","Code","Message"}` with a 4xx/5xx status.
pub fn classify(resp: &HttpResponse) -> Verdict {
    let v: serde_json::Value = serde_json::from_str(&resp.body).unwrap_or_default();
    let code = v.get("Code").and_then(|x| x.as_str()).unwrap_or("");
    let message = v
        .get("Message")
        .and_then(|x| x.as_str())
        .unwrap_or("")
        .to_string();
    if code.starts_with("Throttling") || code == "ServiceUnavailable" {
        return Verdict::Retry {
            code: code.into(),
            message,
        };
    }
    body_verdict(resp.status, code, message)
}

/// The instance's price in a DescribePrice response.
pub fn parse_describe_price(v: &serde_json::Value) -> Result<f64, ApiError> {
    let price = v
        .pointer("/PriceInfo/Price")
        .ok_or_else(|| malformed("DescribePrice", "no PriceInfo.Price in the response"))?;
    if let Some(c) = price.get("Currency").and_then(|x| x.as_str()) {
        if c != "CNY" {
            return Err(malformed(
                "DescribePrice",
                &format!("prices are in {c}; gpuplan stores CNY (use a China-site account)"),
            ));
        }
    }
    let instance_part = price
        .pointer("/DetailInfos/ResourcePriceModel")
        .and_then(|x| x.as_array())
        .and_then(|a| {
            a.iter()
                .find(|m| m.get("Resource").and_then(|r| r.as_str()) == Some("instance"))
        })
        .and_then(|m| num(m.get("TradePrice")));
    instance_part
        .or_else(|| num(price.get("TradePrice")))
        .filter(|x| x.is_finite() && *x > 0.0)
        .ok_or_else(|| {
            malformed(
                "DescribePrice",
                "PriceInfo.Price has no positive TradePrice",
            )
        })
}

/// (zone, timestamp, CNY per hour).
pub type SpotSample = (String, String, f64);

/// One page of DescribeSpotPriceHistory: (zone, timestamp, price) samples and the next offset.
pub fn parse_spot_page(v: &serde_json::Value) -> Result<(Vec<SpotSample>, Option<u64>), ApiError> {
    const API: &str = "DescribeSpotPriceHistory";
    let items = v
        .pointer("/SpotPrices/SpotPriceType")
        .ok_or_else(|| malformed(API, "no SpotPrices.SpotPriceType in the response"))?
        .as_array()
        .ok_or_else(|| malformed(API, "SpotPrices.SpotPriceType is not a list"))?;
    if let Some(c) = v.get("Currency").and_then(|x| x.as_str()) {
        if c != "CNY" {
            return Err(malformed(
                API,
                &format!("prices are in {c}; gpuplan stores CNY"),
            ));
        }
    }
    let mut out = Vec::new();
    for (n, it) in items.iter().enumerate() {
        let price = num(it.get("SpotPrice")).ok_or_else(|| {
            malformed(
                API,
                &format!("SpotPriceType[{n}].SpotPrice is not a number"),
            )
        })?;
        let zone = it
            .get("ZoneId")
            .and_then(|x| x.as_str())
            .unwrap_or("")
            .to_string();
        let ts = it
            .get("Timestamp")
            .and_then(|x| x.as_str())
            .unwrap_or("")
            .to_string();
        out.push((zone, ts, price));
    }
    let next = num(v.get("NextOffset"))
        .filter(|x| *x > 0.0)
        .map(|x| x as u64)
        .filter(|_| !items.is_empty());
    Ok((out, next))
}

/// The cheapest zone's latest sample.
pub fn latest_cheapest(samples: &[SpotSample]) -> Option<(String, f64)> {
    let mut latest: std::collections::BTreeMap<&str, (&str, f64)> = Default::default();
    for (z, ts, p) in samples {
        let e = latest.entry(z.as_str()).or_insert((ts.as_str(), *p));
        if ts.as_str() >= e.0 {
            *e = (ts.as_str(), *p);
        }
    }
    latest
        .into_iter()
        .map(|(z, (_, p))| (z.to_string(), p))
        .min_by(|a, b| a.1.total_cmp(&b.1))
}

/// The most pages one spot query follows (each holds up to 1,000 samples).
const MAX_PAGES: usize = 50;

impl Fetcher for Alibaba {
    fn fetch(&mut self, client: &mut Client, t: &Task) -> Result<Vec<Price>, ApiError> {
        let p = |k: &str, v: &str| (k.to_string(), v.to_string());
        match t.billing {
            Billing::OnDemand | Billing::Monthly => {
                let mut params = vec![
                    p("RegionId", &t.region),
                    p("ResourceType", "instance"),
                    p("InstanceType", &t.instance),
                    // The default system disk (cloud_efficiency) is refused by current GPU
                    // families; the instance's own price is read apart from the disk's.
                    p("SystemDisk.Category", "cloud_essd"),
                ];
                if t.billing == Billing::Monthly {
                    params.push(p("PriceUnit", "Month"));
                    params.push(p("Period", "1"));
                } else {
                    params.push(p("PriceUnit", "Hour"));
                    params.push(p("Period", "1"));
                }
                let v = self.call(client, &t.region, "DescribePrice", params)?;
                let cny = parse_describe_price(&v)?;
                Ok(vec![api_price(
                    Provider::Alibaba,
                    t,
                    cny,
                    "Alibaba ECS DescribePrice",
                    &self.spec,
                )])
            }
            Billing::Spot => {
                let mut samples = Vec::new();
                let mut offset: Option<u64> = None;
                for _ in 0..MAX_PAGES {
                    let mut params = vec![
                        p("RegionId", &t.region),
                        p("InstanceType", &t.instance),
                        p("NetworkType", "vpc"),
                        p("OSType", "linux"),
                    ];
                    if let Some(o) = offset {
                        params.push(p("Offset", &o.to_string()));
                    }
                    let v = self.call(client, &t.region, "DescribeSpotPriceHistory", params)?;
                    let (page, next) = parse_spot_page(&v)?;
                    samples.extend(page);
                    match next {
                        Some(n) if Some(n) != offset => offset = Some(n),
                        _ => break,
                    }
                }
                let Some((zone, cny)) = latest_cheapest(&samples) else {
                    return Err(ApiError {
                        code: "no-data".into(),
                        message: format!(
                            "DescribeSpotPriceHistory returned no spot price for {} in {}: the type may not be sold as spot there",
                            t.instance, t.region
                        ),
                    });
                };
                let mut row = api_price(
                    Provider::Alibaba,
                    t,
                    cny,
                    "Alibaba ECS DescribeSpotPriceHistory",
                    &self.spec,
                );
                row.source = format!("{} (latest sample, cheapest zone {})", row.source, zone);
                Ok(vec![row])
            }
        }
    }
}
