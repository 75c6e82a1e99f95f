//! Numbers for people: counts with thousands separators, rates with an SI prefix.

use num_format::{Locale, ToFormattedString};

/// A count with thousands separators: `2,619,427`.
pub fn count(n: u64) -> String {
    n.to_formatted_string(&Locale::en)
}

/// A cycle count (fractional in the model) rounded, with thousands separators.
pub fn cycles(c: f64) -> String {
    if c.is_finite() && c >= 0.0 && c < u64::MAX as f64 {
        count(c.round() as u64)
    } else {
        format!("{c:.0}")
    }
}

/// A rate with three significant digits and an SI prefix: `2.29 M instr/s`.
pub fn rate(per_second: f64, unit: &str) -> String {
    let (value, prefix) = [(1e9, "G"), (1e6, "M"), (1e3, "k")]
        .iter()
        .find(|(scale, _)| per_second >= *scale)
        .map_or((per_second, ""), |(scale, p)| (per_second / scale, *p));
    let digits = if value >= 100.0 {
        0
    } else if value >= 10.0 {
        1
    } else {
        2
    };
    let prefix = if prefix.is_empty() { String::new() } else { format!("{prefix} ") };
    format!("{value:.digits$} {prefix}{unit}/s")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_group_by_thousands() {
        assert_eq!(count(0), "0");
        assert_eq!(count(999), "999");
        assert_eq!(count(1000), "1,000");
        assert_eq!(count(2_619_427), "2,619,427");
        assert_eq!(cycles(1_938_486.6), "1,938,487");
    }

    #[test]
    fn rates_have_three_digits_and_a_prefix() {
        // the example: 2,291,988.2705 per second
        assert_eq!(rate(2_291_988.270_5, "instr"), "2.29 M instr/s");
        assert_eq!(rate(45_600.0, "instr"), "45.6 k instr/s");
        assert_eq!(rate(812.0, "instr"), "812 instr/s");
        assert_eq!(rate(3.2e9, "instr"), "3.20 G instr/s");
    }
}
