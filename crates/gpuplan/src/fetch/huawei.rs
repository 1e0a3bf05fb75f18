//! Huawei BSS price inquiries, signed with SDK-HMAC-SHA256, at the China site's global endpoint
//! `https://bss.myhuaweicloud.com`, one request per region and billing for up to 100 flavors:
//!
//! - on-demand: `ListOnDemandResourceRatings`, `POST /v2/bills/ratings/on-demand-resources`,
//!   one `product_infos` item per flavor (`cloud_service_type = hws.service.type.ec2`,
//!   `resource_type = hws.resource.type.vm`, `resource_spec = <flavor>.linux`, `usage_factor =
//!   Duration`, `usage_value = 1`, `usage_measure_id = 4` (hour)); the price kept is the item's
//!   `amount` (after the account's discounts), else `official_website_amount`;
//! - monthly: `ListRateOnPeriodDetail`, `POST /v2/bills/ratings/period-resources/subscribe-rate`
//!   (`period_type = 2` (month), `period_num = 1`); the price kept is
//!   `official_website_rating_result.product_rating_results[].official_website_amount`.
//!
//! Both need the account's `project_id` (`HUAWEICLOUD_SDK_PROJECT_ID` or the hcloud profile's
//! `projectId`). Spot prices have no BSS inquiry; spot tasks fail with `unsupported`.

use super::*;
use crate::creds::Credentials;
use gpuplan_core::signing::huawei as sig;

const ON_DEMAND_PATH: &str = "/v2/bills/ratings/on-demand-resources";
const PERIOD_PATH: &str = "/v2/bills/ratings/period-resources/subscribe-rate";

pub struct Huawei {
    creds: Credentials,
    spec: FetchSpec,
}

impl Huawei {
    pub fn new(creds: Credentials, spec: FetchSpec) -> Huawei {
        Huawei { creds, spec }
    }

    pub fn request(
        &self,
        base: &str,
        host: &str,
        path: &str,
        body: &[u8],
        timestamp: i64,
    ) -> HttpRequest {
        let date = sig::sdk_date(timestamp);
        let headers = vec![
            ("Content-Type".to_string(), "application/json".to_string()),
            ("Host".to_string(), host.to_string()),
            ("X-Sdk-Date".to_string(), date),
        ];
        let s = sig::sign(
            &self.creds.id,
            self.creds.secret.expose(),
            &sig::Request {
                method: "POST",
                path,
                query: &[],
                headers: &headers,
                payload: body,
            },
        );
        let mut h: Vec<(String, String)> =
            headers.into_iter().filter(|(k, _)| k != "Host").collect();
        h.push(("Authorization".into(), s.authorization));
        HttpRequest {
            method: "POST",
            url: format!("{base}{path}"),
            headers: h,
            body: body.to_vec(),
        }
    }
}

/// Huawei errors: `{"error_code","error_msg"}` (BSS `CBC.*`, gateway `APIGW.*`).
pub fn classify(resp: &HttpResponse) -> Verdict {
    let v: serde_json::Value = serde_json::from_str(&resp.body).unwrap_or_default();
    let code = v.get("error_code").and_then(|x| x.as_str()).unwrap_or("");
    let message = v
        .get("error_msg")
        .and_then(|x| x.as_str())
        .unwrap_or("")
        .to_string();
    if code == "APIGW.0308" || code == "CBC.0999" {
        return Verdict::Retry {
            code: code.into(),
            message,
        };
    }
    body_verdict(resp.status, code, message)
}

/// BSS answers in the account's currency; gpuplan stores CNY only.
fn check_cny(v: &serde_json::Value, api: &str) -> Result<(), ApiError> {
    match v.get("currency").and_then(|x| x.as_str()) {
        Some(c) if c != "CNY" => Err(malformed(
            api,
            &format!("prices are in {c}; gpuplan stores CNY"),
        )),
        _ => Ok(()),
    }
}

/// The rating result for inquiry item `id` (a lone item answers a one-item inquiry).
fn rating_item<'a>(
    items: &'a [serde_json::Value],
    id: &str,
    n: usize,
    api: &str,
) -> Result<&'a serde_json::Value, ApiError> {
    items
        .iter()
        .find(|x| x.get("id").and_then(|i| i.as_str()) == Some(id))
        .or_else(|| (n == 1 && items.len() == 1).then(|| &items[0]))
        .ok_or_else(|| {
            malformed(
                api,
                &format!("no product_rating_results item with id `{id}`"),
            )
        })
}

pub fn parse_on_demand(v: &serde_json::Value, id: &str, n: usize) -> Result<f64, ApiError> {
    const API: &str = "ListOnDemandResourceRatings";
    check_cny(v, API)?;
    let items = v
        .get("product_rating_results")
        .and_then(|x| x.as_array())
        .ok_or_else(|| malformed(API, "no product_rating_results list in the response"))?;
    let it = rating_item(items, id, n, API)?;
    num(it.get("amount"))
        .or(num(it.get("official_website_amount")))
        .filter(|x| x.is_finite() && *x > 0.0)
        .ok_or_else(|| malformed(API, "the item has no positive amount"))
}

pub fn parse_period(v: &serde_json::Value, id: &str, n: usize) -> Result<f64, ApiError> {
    const API: &str = "ListRateOnPeriodDetail";
    check_cny(v, API)?;
    let items = v
        .pointer("/official_website_rating_result/product_rating_results")
        .and_then(|x| x.as_array())
        .ok_or_else(|| {
            malformed(
                API,
                "no official_website_rating_result.product_rating_results in the response",
            )
        })?;
    let it = rating_item(items, id, n, API)?;
    num(it.get("official_website_amount"))
        .filter(|x| x.is_finite() && *x > 0.0)
        .ok_or_else(|| malformed(API, "the item has no positive official_website_amount"))
}

/// Items one BSS inquiry takes (`product_infos` ≤ 100).
pub const MAX_ITEMS: usize = 100;

impl Huawei {
    /// One inquiry for `tasks` (same region and billing): one `product_infos` item each, with
    /// ids "1", "2", …; one result per task.
    fn inquire(
        &mut self,
        client: &mut Client,
        tasks: &[&Task],
    ) -> Vec<Result<Vec<Price>, ApiError>> {
        let all = |e: ApiError| tasks.iter().map(|_| Err(e.clone())).collect::<Vec<_>>();
        let Some(first) = tasks.first() else {
            return Vec::new();
        };
        let Some(project) = self.creds.project_id.clone() else {
            return all(ApiError {
                code: "no-project-id".into(),
                message: "Huawei BSS needs your project id: set HUAWEICLOUD_SDK_PROJECT_ID (or projectId in the hcloud profile)".into(),
            });
        };
        let billing = first.billing;
        let (path, api) = match billing {
            Billing::OnDemand => (ON_DEMAND_PATH, "Huawei BSS ListOnDemandResourceRatings"),
            Billing::Monthly => (PERIOD_PATH, "Huawei BSS ListRateOnPeriodDetail"),
            Billing::Spot => return all(ApiError {
                code: "unsupported".into(),
                message:
                    "Huawei BSS has no spot price inquiry; spot prices are shown in the ECS console"
                        .into(),
            }),
        };
        let items: Vec<serde_json::Value> = tasks
            .iter()
            .enumerate()
            .map(|(n, t)| {
                let mut item = serde_json::json!({
                    "id": (n + 1).to_string(),
                    "cloud_service_type": "hws.service.type.ec2",
                    "resource_type": "hws.resource.type.vm",
                    "resource_spec": format!("{}.linux", t.instance),
                    "region": t.region,
                    "subscription_num": 1,
                });
                if billing == Billing::Monthly {
                    item["period_type"] = 2.into();
                    item["period_num"] = 1.into();
                } else {
                    item["usage_factor"] = "Duration".into();
                    item["usage_value"] = 1.into();
                    item["usage_measure_id"] = 4.into();
                }
                item
            })
            .collect();
        let body = serde_json::json!({"project_id": project, "product_infos": items})
            .to_string()
            .into_bytes();
        let url = self
            .spec
            .endpoint
            .clone()
            .unwrap_or_else(|| "https://bss.myhuaweicloud.com".into());
        let (base, host) = match split_endpoint(&url) {
            Ok(x) => x,
            Err(m) => {
                return all(ApiError {
                    code: "bad-endpoint".into(),
                    message: m,
                })
            }
        };
        let mut build = || {
            let now = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_secs() as i64)
                .unwrap_or(self.spec.now);
            self.request(&base, &host, path, &body, now)
        };
        let v = match client
            .call(&mut build, &classify)
            .and_then(|resp| json_body(&resp, api))
        {
            Ok(v) => v,
            Err(e) => return all(e),
        };
        tasks
            .iter()
            .enumerate()
            .map(|(n, t)| {
                let id = (n + 1).to_string();
                let cny = match billing {
                    Billing::Monthly => parse_period(&v, &id, tasks.len())?,
                    _ => parse_on_demand(&v, &id, tasks.len())?,
                };
                Ok(vec![api_price(Provider::Huawei, t, cny, api, &self.spec)])
            })
            .collect()
    }
}

impl Fetcher for Huawei {
    fn fetch(&mut self, client: &mut Client, t: &Task) -> Result<Vec<Price>, ApiError> {
        self.inquire(client, &[t])
            .pop()
            .unwrap_or_else(|| Err(malformed("BSS", "no result")))
    }

    /// One inquiry per region and billing, at most [`MAX_ITEMS`] types each.
    fn batches(&self, tasks: &[Task]) -> Vec<Vec<usize>> {
        let mut groups: Vec<((String, Billing), Vec<usize>)> = Vec::new();
        for (i, t) in tasks.iter().enumerate() {
            match groups
                .iter_mut()
                .find(|(k, v)| k.0 == t.region && k.1 == t.billing && v.len() < MAX_ITEMS)
            {
                Some((_, v)) => v.push(i),
                None => groups.push(((t.region.clone(), t.billing), vec![i])),
            }
        }
        groups.into_iter().map(|(_, v)| v).collect()
    }

    fn fetch_batch(
        &mut self,
        client: &mut Client,
        tasks: &[&Task],
    ) -> Vec<Result<Vec<Price>, ApiError>> {
        self.inquire(client, tasks)
    }
}
