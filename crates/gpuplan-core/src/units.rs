//! Physical units as newtypes, and the one place that formats them.
//!
//! Every quantity that leaves an estimator carries its unit in its type. Memory is kept in bytes
//! and shown in GiB (2^30 bytes), the unit vLLM, TensorRT-LLM and PyTorch report even when they
//! print "GB" (see docs/methodology.md, "Units"). Bandwidth is shown in decimal GB/s, the unit
//! vendors' datasheets use. The two are never mixed silently: the formatter names the unit.

use serde::{Deserialize, Serialize};
use std::fmt;
use std::iter::Sum;
use std::ops::{Add, AddAssign, Div, Mul, Sub};

/// 2^30 bytes.
pub const GIB: f64 = 1_073_741_824.0;
/// 10^9 bytes, the datasheet "GB".
pub const GB: f64 = 1e9;

macro_rules! unit_newtype {
    ($(#[$meta:meta])* $name:ident) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, Default, PartialEq, PartialOrd, Serialize, Deserialize)]
        #[serde(transparent)]
        pub struct $name(pub f64);

        impl $name {
            pub const ZERO: $name = $name(0.0);
            /// The raw value in the base unit.
            pub fn get(self) -> f64 {
                self.0
            }
            pub fn max(self, other: $name) -> $name {
                $name(self.0.max(other.0))
            }
            pub fn min(self, other: $name) -> $name {
                $name(self.0.min(other.0))
            }
        }
        impl Add for $name {
            type Output = $name;
            fn add(self, o: $name) -> $name {
                $name(self.0 + o.0)
            }
        }
        impl AddAssign for $name {
            fn add_assign(&mut self, o: $name) {
                self.0 += o.0;
            }
        }
        impl Sub for $name {
            type Output = $name;
            fn sub(self, o: $name) -> $name {
                $name(self.0 - o.0)
            }
        }
        impl Mul<f64> for $name {
            type Output = $name;
            fn mul(self, k: f64) -> $name {
                $name(self.0 * k)
            }
        }
        impl Div<f64> for $name {
            type Output = $name;
            fn div(self, k: f64) -> $name {
                $name(self.0 / k)
            }
        }
        impl Div for $name {
            type Output = f64;
            fn div(self, o: $name) -> f64 {
                self.0 / o.0
            }
        }
        impl Sum for $name {
            fn sum<I: Iterator<Item = $name>>(it: I) -> $name {
                $name(it.map(|x| x.0).sum())
            }
        }
    };
}

unit_newtype!(
    /// An amount of memory or data, in bytes.
    Bytes
);
unit_newtype!(
    /// A count of floating-point operations.
    Flops
);
unit_newtype!(
    /// A compute rate, in FLOP per second.
    FlopRate
);
unit_newtype!(
    /// A duration, in seconds.
    Seconds
);
unit_newtype!(
    /// A data rate, in bytes per second.
    Bandwidth
);

impl Bytes {
    pub fn from_gib(gib: f64) -> Bytes {
        Bytes(gib * GIB)
    }
    pub fn from_gb(gb: f64) -> Bytes {
        Bytes(gb * GB)
    }
    pub fn gib(self) -> f64 {
        self.0 / GIB
    }
    pub fn gb(self) -> f64 {
        self.0 / GB
    }
}

impl Flops {
    pub fn tera(self) -> f64 {
        self.0 / 1e12
    }
}

impl FlopRate {
    pub fn from_tflops(t: f64) -> FlopRate {
        FlopRate(t * 1e12)
    }
    pub fn tflops(self) -> f64 {
        self.0 / 1e12
    }
}

impl Seconds {
    pub fn from_hours(h: f64) -> Seconds {
        Seconds(h * 3600.0)
    }
    pub fn hours(self) -> f64 {
        self.0 / 3600.0
    }
    pub fn days(self) -> f64 {
        self.0 / 86400.0
    }
    pub fn millis(self) -> f64 {
        self.0 * 1e3
    }
}

impl Bandwidth {
    pub fn from_gb_per_s(gbs: f64) -> Bandwidth {
        Bandwidth(gbs * GB)
    }
    /// Network links are quoted in gigabits per second.
    pub fn from_gbit_per_s(gbit: f64) -> Bandwidth {
        Bandwidth(gbit * GB / 8.0)
    }
    pub fn gb_per_s(self) -> f64 {
        self.0 / GB
    }
}

/// Time to move `b` at rate `bw`. A zero bandwidth means "never": infinite seconds.
pub fn transfer_time(b: Bytes, bw: Bandwidth) -> Seconds {
    if bw.0 <= 0.0 {
        Seconds(f64::INFINITY)
    } else {
        Seconds(b.0 / bw.0)
    }
}

/// Time to execute `f` at rate `r`.
pub fn compute_time(f: Flops, r: FlopRate) -> Seconds {
    if r.0 <= 0.0 {
        Seconds(f64::INFINITY)
    } else {
        Seconds(f.0 / r.0)
    }
}

impl fmt::Display for Bytes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let g = self.gib();
        if g.abs() >= 100.0 {
            write!(f, "{g:.0} GiB")
        } else if g.abs() >= 0.1 {
            write!(f, "{g:.2} GiB")
        } else {
            write!(f, "{:.1} MiB", self.0 / 1_048_576.0)
        }
    }
}

impl fmt::Display for Flops {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:.3e} FLOP", self.0)
    }
}

impl fmt::Display for FlopRate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:.1} TFLOP/s", self.tflops())
    }
}

impl fmt::Display for Bandwidth {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let g = self.gb_per_s();
        if g >= 1.0 {
            write!(f, "{g:.1} GB/s")
        } else if self.0 >= 1e6 {
            write!(f, "{:.1} MB/s", self.0 / 1e6)
        } else {
            write!(f, "{:.1} KB/s", self.0 / 1e3)
        }
    }
}

impl fmt::Display for Seconds {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = self.0;
        if !s.is_finite() {
            write!(f, "∞")
        } else if s < 1.0 {
            write!(f, "{:.1} ms", s * 1e3)
        } else if s < 120.0 {
            write!(f, "{s:.2} s")
        } else if s < 7200.0 {
            write!(f, "{:.1} min", s / 60.0)
        } else if s < 3.0 * 86400.0 {
            write!(f, "{:.1} h", s / 3600.0)
        } else if s < DAYS_PER_YEAR * 86400.0 {
            write!(f, "{:.1} days", s / 86400.0)
        } else {
            write!(f, "{:.1} years", s / (DAYS_PER_YEAR * 86400.0))
        }
    }
}

/// Durations from this many days are shown in years of 365 days (a display choice: "575381.1
/// days" read as nothing; 1576.4 years does).
pub const DAYS_PER_YEAR: f64 = 365.0;

/// Durations from this many hours are shown in days. Assumption (a display choice): 72 h.
pub const DAYS_FROM_HOURS: f64 = 72.0;

/// Below this many hours a duration would print as `0.0 h`: [`duration_msg`] gives minutes.
const MINUTES_BELOW_HOURS: f64 = 0.05;

/// A duration in hours as the tables show it, in the catalogs' words: hours below 72 h (`80.1 h`
/// / `80.1 小时` above that would read `10364.6 h`), days from 72 h (`431.9 d` / `431.9 天`),
/// years of 365 days from 365 days (`1576.4 years` / `1576.4 年`); minutes with one decimal below
/// the 0.05 h that would print as `0.0 h` (`--deadline 0.001h` read "over the 0.0 h deadline",
/// audit r9 #18; now `0.1 min`).
pub fn duration_msg(h: f64) -> crate::i18n::Msg {
    if h < MINUTES_BELOW_HOURS {
        crate::i18n::Msg::new("unit-minutes").arg("m", format!("{:.1}", h * 60.0))
    } else if h >= DAYS_PER_YEAR * 24.0 {
        crate::i18n::Msg::new("unit-years").arg("y", format!("{:.1}", h / 24.0 / DAYS_PER_YEAR))
    } else if h >= DAYS_FROM_HOURS {
        crate::i18n::Msg::new("unit-days").arg("d", format!("{:.1}", h / 24.0))
    } else {
        crate::i18n::Msg::new("unit-hours").arg("h", format!("{h:.1}"))
    }
}

/// A gap between two durations: under an hour in whole minutes, rounded up (a plan 2 minutes over
/// a 2-hour deadline read "over the 2.0 h deadline by 0.0 h", audit r8 #17a), else as
/// [`duration_msg`].
pub fn gap_msg(h: f64) -> crate::i18n::Msg {
    if h < 1.0 {
        let min = (h * 60.0).ceil().max(1.0);
        crate::i18n::Msg::new("unit-minutes").arg("m", format!("{min:.0}"))
    } else {
        duration_msg(h)
    }
}

/// A yuan figure for a message: whole yuan from ¥1, and below ¥1 enough decimals to show its
/// first two significant digits, trailing zeros dropped (`0.01`, `0.5`, `0.0025`): a ¥0.01 budget read "the ¥0 budget" (audit
/// r10 #9).
pub fn cny_figure(cny: f64) -> String {
    let a = cny.abs();
    if a >= 1.0 || a == 0.0 || !a.is_finite() {
        format!("{cny:.0}")
    } else if a < 1e-6 {
        format!("{cny:.1e}")
    } else {
        // ¥0.995 rounds to "1.00": `fixed_trimmed` leaves "1", not "¥1.".
        fixed_trimmed(cny, (1.0 - a.log10().floor()).clamp(2.0, 8.0) as usize)
    }
}

/// `x` with `decimals` decimals, trailing zeros and a trailing '.' dropped (`0.50` → `0.5`,
/// `1.00` → `1`); a figure without decimals is left as it is. Shared by [`cny_figure`] and
/// [`format_gpu_hours`].
fn fixed_trimmed(x: f64, decimals: usize) -> String {
    let s = format!("{x:.decimals$}");
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

/// A yuan amount in full (`¥38568`; below ¥1 as [`cny_figure`], `¥0.45`), or from 10⁹ yuan in billions (en `¥14.9B`) and from 10⁸ in
/// 亿 (zh `¥149.3亿`): a 1000-year job's ¥1646799245901 read as nothing.
pub fn cny_msg(cny: f64) -> crate::i18n::Msg {
    crate::i18n::Msg::new("cny-amount")
        .arg("x", cny_figure(cny))
        .arg("en", if cny >= 1e9 { "b" } else { "plain" })
        .arg("b", format!("{:.1}", cny / 1e9))
        .arg("zh", if cny >= 1e8 { "yi" } else { "plain" })
        .arg("y", format!("{:.1}", cny / 1e8))
}

/// A whole count in full below a million (`48829`), from a million as [`format_count`] (`4.88T`
/// steps, not `4882812500000`).
pub fn format_whole(n: f64) -> String {
    if n >= 1e6 {
        format_count(n)
    } else {
        format!("{n:.0}")
    }
}

/// GPU-hours for a message: from 100 as [`format_whole`], below that two significant digits with
/// trailing zeros dropped (`35`, `3.4`, `0.017`), below 10⁻⁶ in exponent form (`1.7e-7`): a
/// 60 ms job read "0 GPU-hours" (audit r13 #3).
pub fn format_gpu_hours(h: f64) -> String {
    if h >= 100.0 || h <= 0.0 || !h.is_finite() {
        return format_whole(h);
    }
    if h < 1e-6 {
        return format!("{h:.1e}");
    }
    fixed_trimmed(h, (1.0 - h.log10().floor()).max(0.0) as usize)
}

/// Format a parameter count the way model cards do: 8.03B, 494.0M; from 10¹² in T (a token
/// count of 10¹⁶ reads 10000.00T, not 10000000.00B).
pub fn format_count(n: f64) -> String {
    if n >= 1e12 {
        format!("{:.2}T", n / 1e12)
    } else if n >= 1e9 {
        format!("{:.2}B", n / 1e9)
    } else if n >= 1e6 {
        format!("{:.1}M", n / 1e6)
    } else if n >= 1e3 {
        format!("{:.1}K", n / 1e3)
    } else {
        format!("{n:.0}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gpu_hours_keep_two_significant_digits_below_100() {
        let cases = [
            (48_829.4, "48829"),
            (150.4, "150"),
            (35.2, "35"),
            (3.44, "3.4"),
            (1.0, "1"),
            (0.0169, "0.017"),
            (1.69e-5, "0.000017"),
            (1.7e-7, "1.7e-7"),
            (0.0, "0"),
        ];
        for (h, want) in cases {
            assert_eq!(format_gpu_hours(h), want, "{h}");
        }
    }

    /// Audit r10 #9: a budget below ¥1 keeps its digits; whole yuan from ¥1.
    #[test]
    fn small_yuan_figures_keep_their_digits() {
        assert_eq!(cny_figure(0.01), "0.01");
        assert_eq!(cny_figure(0.5), "0.5");
        assert_eq!(cny_figure(0.0025), "0.0025");
        assert_eq!(cny_figure(199.99), "200");
        assert_eq!(cny_figure(0.0), "0");
        assert_eq!(cny_figure(-0.25), "-0.25");
        assert_eq!(cny_figure(1e-9), "1.0e-9");
        assert_eq!(cny_figure(1e-6), "0.000001");
    }

    /// Review r13 #5: an amount just below ¥1 (0.996: 0.995 is 0.99499… as an f64) rounds to a
    /// whole yuan and prints no trailing '.'.
    #[test]
    fn yuan_just_below_one_prints_no_trailing_point() {
        assert_eq!(cny_figure(0.996), "1");
        assert_eq!(cny_figure(0.999), "1");
        assert_eq!(cny_figure(-0.9999), "-1");
        assert_eq!(cny_figure(0.994), "0.99");
    }

    proptest::proptest! {
        /// Below ¥1 the figure is a number (no trailing '.') within half its last digit.
        #[test]
        fn yuan_figures_below_one_read_as_numbers(cny in 1e-6f64..1.0) {
            let s = cny_figure(cny);
            proptest::prop_assert!(!s.ends_with('.'), "{s}");
            let v: f64 = s.parse().map_err(|_| proptest::test_runner::TestCaseError::fail(s.clone()))?;
            proptest::prop_assert!((v - cny).abs() <= 0.05 * cny, "{cny} -> {s}");
        }
    }

    #[test]
    fn long_figures_read_in_years_and_t() {
        assert_eq!(format_count(1e16), "10000.00T");
        assert_eq!(format_count(999e9), "999.00B");
        assert_eq!(format_count(1.5e12), "1.50T");
        assert_eq!(format_whole(48_829.0), "48829");
        assert_eq!(format_whole(4_882_812_500_000.0), "4.88T");
        assert_eq!(Seconds(575_381.1 * 86400.0).to_string(), "1576.4 years");
        assert_eq!(Seconds(364.0 * 86400.0).to_string(), "364.0 days");
        let l = crate::i18n::Lang::En;
        assert_eq!(duration_msg(575_381.1 * 24.0).render(l), "1576.4 years");
        assert_eq!(
            duration_msg(575_381.1 * 24.0).render(crate::i18n::Lang::Zh),
            "1576.4 年"
        );
        assert_eq!(duration_msg(364.0 * 24.0).render(l), "364.0 d");
        assert_eq!(duration_msg(71.9).render(l), "71.9 h");
        // Audit r9 #18: below 0.05 h the hours would read "0.0 h".
        assert_eq!(duration_msg(0.001).render(l), "0.1 min");
        assert_eq!(
            duration_msg(0.001).render(crate::i18n::Lang::Zh),
            "0.1 分钟"
        );
        assert_eq!(duration_msg(0.05).render(l), "0.1 h");
        let zh = crate::i18n::Lang::Zh;
        assert_eq!(cny_msg(1_646_799_245_901.0).render(l), "¥1646.8B");
        assert_eq!(cny_msg(1_646_799_245_901.0).render(zh), "¥16468.0亿");
        assert_eq!(cny_msg(38_568.4).render(l), "¥38568");
        assert_eq!(cny_msg(38_568.4).render(zh), "¥38568");
        assert_eq!(cny_msg(2e8).render(l), "¥200000000");
    }

    #[test]
    fn gib_is_two_to_the_thirty() {
        assert_eq!(Bytes(1_073_741_824.0).gib(), 1.0);
        assert_eq!(Bytes::from_gb(1.0).0, 1e9);
        assert_eq!(format!("{}", Bytes::from_gib(15.62)), "15.62 GiB");
        assert_eq!(format!("{}", Bytes(131_072.0)), "0.1 MiB");
    }

    #[test]
    fn network_bits_are_converted_to_bytes() {
        assert_eq!(Bandwidth::from_gbit_per_s(8.0).0, 1e9);
        assert_eq!(format!("{}", Bandwidth::from_gb_per_s(600.0)), "600.0 GB/s");
    }

    #[test]
    fn durations_pick_a_readable_unit() {
        assert_eq!(format!("{}", Seconds(0.0221)), "22.1 ms");
        assert_eq!(format!("{}", Seconds::from_hours(30.0)), "30.0 h");
        assert_eq!(format!("{}", Seconds(86400.0 * 21.0)), "21.0 days");
        assert_eq!(transfer_time(Bytes(1.0), Bandwidth(0.0)).0, f64::INFINITY);
    }

    #[test]
    fn counts_match_model_card_style() {
        assert_eq!(format_count(8_030_261_248.0), "8.03B");
        assert_eq!(format_count(494_032_768.0), "494.0M");
    }
}
