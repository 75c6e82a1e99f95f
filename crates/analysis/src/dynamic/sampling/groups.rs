//! The functions' and loops' shares centred on the report's.
//!
//! The sampling section first gives each group (function, loop) the windows'
//! ratio estimate `R` of its share of the cycles, `± h_R`
//! (`super::unit_costs::UnitCosts::group_shares`). The report's table shows
//! another estimate `V`: the group's cycles from the code-mix estimate, which
//! prices each class of code on the run's exact instruction mix and cold code
//! apart ([`super::code_mix`]), over the estimated cycles. Where the windows
//! missed code, cold code at the run's end above all, `R` is off and `V` is
//! not: on run_sampling's program, the windows gave main 93.1 % ± 0.5 of the
//! cycles where it took 91.5 %, the rest being the exit no window measured.
//! The interval is centred on `V`, its half-width `h_R + V · h_C / C`: the
//! group's own sampling error (with the whole of its code priced, not
//! measured, `P_g / C`), and the share's part of the cycles' relative
//! half-width (which holds all the priced code's). Without `P_g / C` a group
//! that is mostly priced code, the loader's lazy binding or the exit's
//! `printf`, got the total's relative half-width only: on three short
//! programs sampled 36 ways, 76 % of the functions' intervals and 86 % of the
//! loops' covered the exact share; 99 % of each with it.

use bottlenose_report_model::sampling::{Interval, ShareInterval};

/// Re-centres `shares` on the report's share of each group (`report`, by name).
pub fn centre_group_shares(shares: &mut [ShareInterval], report: impl Fn(&str) -> Option<f64>, cycles: Interval) {
    let relative = if cycles.value > 0.0 { cycles.half_width / cycles.value } else { f64::NAN };
    for s in shares {
        if let Some(v) = report(&s.name) {
            s.share = Interval { value: v, half_width: s.share.half_width + v * relative };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// main: the windows say 0.931 ± 0.005, the report 0.915, the cycles ± 2 %:
    /// 0.915 ± (0.005 + 0.915 · 0.02); a group the report does not show keeps its interval.
    #[test]
    fn shares_are_centred_on_the_report_with_the_cycles_part() {
        let mut shares = vec![
            ShareInterval { name: "main".into(), share: Interval { value: 0.931, half_width: 0.005 } },
            ShareInterval { name: "other".into(), share: Interval { value: 0.02, half_width: 0.001 } },
        ];
        centre_group_shares(&mut shares, |n| (n == "main").then_some(0.915), Interval { value: 1000.0, half_width: 20.0 });
        assert_eq!(shares[0].share.value, 0.915);
        assert!((shares[0].share.half_width - (0.005 + 0.915 * 0.02)).abs() < 1e-12, "{:?}", shares[0]);
        assert_eq!((shares[1].share.value, shares[1].share.half_width), (0.02, 0.001));
    }
}
