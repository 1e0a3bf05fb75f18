//! The subscription periods a provider's instance-creation API accepts
//! (`data/catalog/periods.toml`, each row quoting the API's own parameter description). The
//! planner subscribes only these ([`super::money`]); the export writes only these.
//!
//! One subscription per node where one accepted period covers the job; a job longer than the
//! longest period buys consecutive periods ([`Periods::consecutive`]: the longest as often as
//! it fits, then the same rule for what is left), which the export states as renewals.

use super::money::HOURS_PER_MONTH;
use crate::catalog::Provider;
use serde::Deserialize;
use std::sync::OnceLock;

/// One provider's allowed periods, with where they come from.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Periods {
    pub provider: Provider,
    /// The API and parameter the values are for.
    pub api: String,
    /// Periods in months (the API's month unit).
    pub month: Vec<u64>,
    /// Periods in years, where the API has a year unit (Huawei `periodType = year`).
    pub year: Vec<u64>,
    pub source: String,
    /// The API description's sentence, verbatim.
    pub quote: String,
    pub accessed: String,
    /// Every allowed length in months, ascending (month values ∪ 12 × year values).
    #[serde(skip)]
    all: Vec<u64>,
}

/// How the API spells one period.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unit {
    Month,
    Year,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    provider: Vec<Periods>,
}

fn parse(text: &str) -> Result<Vec<Periods>, toml::de::Error> {
    let mut rows = toml::from_str::<File>(text)?.provider;
    for r in &mut rows {
        let mut all = r.month.to_vec();
        all.extend(r.year.iter().map(|y| y * 12));
        all.sort_unstable();
        all.dedup();
        r.all = all;
    }
    Ok(rows)
}

/// The built-in table (a parse error is a defect of the embedded file: tested).
fn table() -> &'static [Periods] {
    static CELL: OnceLock<Vec<Periods>> = OnceLock::new();
    CELL.get_or_init(|| parse(include_str!("../../data/catalog/periods.toml")).unwrap_or_default())
}

/// The provider's allowed periods; `None` where no source gives them (then no mix is offered).
pub fn of(provider: Provider) -> Option<&'static Periods> {
    table().iter().find(|p| p.provider == provider)
}

impl Periods {
    /// Every allowed length in months, ascending.
    pub fn months(&self) -> &[u64] {
        &self.all
    }

    /// The longest allowed period that ends before `hours` do (the subscription of a mix).
    pub fn longest_within(&self, hours: f64) -> Option<u64> {
        self.all
            .iter()
            .rev()
            .copied()
            .find(|&m| (m as f64) * HOURS_PER_MONTH < hours)
    }

    /// The most months of subscription that end before `hours` do (the subscription of a mix):
    /// the longest single accepted period within a job no longer than the longest period, and
    /// past it ⌊hours/730⌋ months (strictly before the end) bought as consecutive periods
    /// ([`Periods::consecutive`]) where they add up exactly, else whole longest periods.
    pub fn most_within(&self, hours: f64) -> Option<u64> {
        let longest = *self.all.last()?;
        if !hours.is_finite() {
            return None;
        }
        if hours <= longest as f64 * HOURS_PER_MONTH {
            return self.longest_within(hours);
        }
        let k = (hours / HOURS_PER_MONTH).ceil() - 1.0;
        if k >= 1.8e19 {
            return None;
        }
        let k = k as u64;
        let exact = self.consecutive(k).iter().map(|(m, n)| m * n).sum::<u64>() == k;
        Some(if exact { k } else { k / longest * longest })
    }

    /// The shortest allowed period that covers `hours` (a pure subscription); `None` when even
    /// the longest one ends first.
    pub fn shortest_covering(&self, hours: f64) -> Option<u64> {
        let need = (hours / HOURS_PER_MONTH).ceil().max(1.0);
        self.all.iter().copied().find(|&m| m as f64 >= need)
    }

    /// Months of subscription per node covering `hours`: the shortest accepted period that
    /// covers them, or, past the longest, the consecutive periods of [`Periods::consecutive`];
    /// `None` for hours that are not a finite positive length.
    pub fn covering_months(&self, hours: f64) -> Option<u64> {
        if !(hours.is_finite() && hours >= 0.0) {
            return None;
        }
        self.shortest_covering(hours).or_else(|| {
            let need = (hours / HOURS_PER_MONTH).ceil().max(1.0);
            // Past u64 a month count is not a subscription (hours > 1e22): refused by the caller.
            (need < 1.8e19).then(|| {
                self.consecutive(need as u64)
                    .iter()
                    .map(|(m, k)| m * k)
                    .sum()
            })
        })
    }

    /// `months` bought as consecutive accepted periods, (period, how many), longest first: one
    /// period where `months` is one, else the longest accepted period ≤ what is left, as often
    /// as it fits, repeated (the mixed billing's rule, [`Periods::longest_within`]) — exact
    /// wherever 1 month is accepted (all three sourced providers); where it is not, a last
    /// period covering the few months left.
    pub fn consecutive(&self, months: u64) -> Vec<(u64, u64)> {
        if self.all.contains(&months) {
            return vec![(months, 1)];
        }
        let mut left = months;
        let mut out = Vec::new();
        for &m in self.all.iter().rev().filter(|&&m| m > 0) {
            if left >= m {
                out.push((m, left / m));
                left %= m;
            }
        }
        if let (true, Some(&first)) = (left > 0, self.all.iter().find(|&&m| m >= left)) {
            out.push((first, 1));
        }
        out
    }

    /// The API's unit and number for `months`: the month unit where it lists the value, else
    /// whole years; `None` for a length the API does not accept.
    pub fn spell(&self, months: u64) -> Option<(Unit, u64)> {
        if self.month.contains(&months) {
            Some((Unit::Month, months))
        } else if months.is_multiple_of(12) && self.year.contains(&(months / 12)) {
            Some((Unit::Year, months / 12))
        } else {
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_embedded_table_parses_and_each_row_quotes_its_values() {
        let rows = parse(include_str!("../../data/catalog/periods.toml")).expect("periods.toml");
        assert_eq!(rows.len(), 3);
        for p in [Provider::Alibaba, Provider::Tencent] {
            let r = of(p).expect("sourced");
            assert!(r.year.is_empty() && !r.source.is_empty() && !r.accessed.is_empty());
            // The month values are exactly the numbers the quoted sentence lists.
            let quoted: Vec<u64> = r
                .quote
                .split(|c: char| !c.is_ascii_digit())
                .filter_map(|w| w.parse().ok())
                .collect();
            assert_eq!(quoted, r.month, "{p:?}: {}", r.quote);
        }
        // Huawei gives ranges: [1,9] months, [1,3] years.
        let hw = of(Provider::Huawei).expect("sourced");
        assert!(hw.quote.contains("取值为[1,9]") && hw.quote.contains("取值为[1,3]"));
        assert_eq!(
            (hw.month.clone(), hw.year.clone()),
            ((1..=9).collect(), (1..=3).collect())
        );
    }

    #[test]
    fn an_eleven_month_job_subscribes_nine_months_or_twelve() {
        let ali = of(Provider::Alibaba).unwrap();
        let h = 11.0 * HOURS_PER_MONTH - 10.0;
        assert_eq!(
            (ali.longest_within(h), ali.shortest_covering(h)),
            (Some(9), Some(12))
        );
        let tc = of(Provider::Tencent).unwrap();
        assert_eq!(
            (tc.longest_within(h), tc.shortest_covering(h)),
            (Some(10), Some(11))
        );
        let hw = of(Provider::Huawei).unwrap();
        assert_eq!(hw.months(), [1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 24, 36]);
        assert_eq!(hw.spell(12), Some((Unit::Year, 1)));
        assert_eq!((hw.spell(9), hw.spell(10)), (Some((Unit::Month, 9)), None));
        // Longer than the longest period: no single subscription covers it.
        assert_eq!(hw.shortest_covering(37.0 * HOURS_PER_MONTH), None);
        assert_eq!(ali.spell(11), None);
    }

    /// Review r7 #2: a job longer than the longest period buys consecutive accepted periods.
    /// 5 years + 11 months at Alibaba (longest 60): 71 months = 60 + 9 + 2 (each accepted);
    /// 100 years = 20 × 60; Huawei 37 months = 36 (3 years) + 1; within the longest, one
    /// period as before (11 months → 12).
    #[test]
    fn a_long_job_buys_consecutive_accepted_periods() {
        let ali = of(Provider::Alibaba).unwrap();
        let h = 71.0 * HOURS_PER_MONTH - 1.0;
        assert_eq!(ali.covering_months(h), Some(71));
        assert_eq!(ali.consecutive(71), vec![(60, 1), (9, 1), (2, 1)]);
        let century = 100.0 * 8760.0;
        assert_eq!(ali.covering_months(century), Some(1200));
        assert_eq!(ali.consecutive(1200), vec![(60, 20)]);
        let hw = of(Provider::Huawei).unwrap();
        assert_eq!(hw.covering_months(37.0 * HOURS_PER_MONTH), Some(37));
        assert_eq!(hw.consecutive(37), vec![(36, 1), (1, 1)]);
        assert_eq!(ali.covering_months(11.0 * HOURS_PER_MONTH - 5.0), Some(12));
        assert_eq!(ali.consecutive(12), vec![(12, 1)]);
        for m in 1..=400 {
            let parts = ali.consecutive(m);
            assert!(
                parts.iter().all(|(p, _)| ali.spell(*p).is_some()),
                "{m}: {parts:?}"
            );
            assert_eq!(parts.iter().map(|(p, k)| p * k).sum::<u64>(), m);
        }
        assert_eq!(ali.covering_months(f64::INFINITY), None);
        // A mix past the longest: every whole month that ends before the job (70 of 70.9),
        // within it the longest single period as before (9 of 11).
        assert_eq!(ali.most_within(70.9 * HOURS_PER_MONTH), Some(70));
        assert_eq!(ali.most_within(71.0 * HOURS_PER_MONTH), Some(70));
        assert_eq!(ali.most_within(11.0 * HOURS_PER_MONTH), Some(9));
        assert_eq!(ali.most_within(f64::INFINITY), None);
    }
}
