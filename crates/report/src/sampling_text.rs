//! Terminal view of a sampled run's estimates and their confidence intervals.

use bottlenose_report_model::Interval;
use bottlenose_report_model::{SamplingSummary, ShareInterval};
use std::fmt::Write;

/// ` ±half-width` at `digits` after scaling, or nothing for an interval that could not be estimated.
fn pm(i: &Interval, scale: f64, digits: usize) -> String {
    if i.known() {
        format!(" ±{:.*}", digits, i.half_width * scale)
    } else {
        String::new()
    }
}

/// `value ±half-width` of a percentage.
fn pct(i: &Interval) -> String {
    format!("{:+.2} %{}", i.value * 100.0, pm(i, 100.0, 2))
}

fn shares(o: &mut String, label: &str, v: &[ShareInterval]) {
    if v.is_empty() {
        return;
    }
    let parts: Vec<String> = v.iter().map(|s| format!("{} {:.1}{} %", s.name, s.share.value * 100.0, pm(&s.share, 100.0, 1))).collect();
    let _ = writeln!(o, "  {label:<10} {}", parts.join(", "));
}

pub fn render_sampling(s: &SamplingSummary) -> String {
    let mut o = String::new();
    let conf = s.confidence * 100.0;
    let _ = writeln!(o, "Sampling ({}; intervals at {conf:.1} % confidence):", s.method);
    let _ = writeln!(
        o,
        "  {} instructions timed exactly first, then {} units of {} instructions, each after a detailed warm-up of {}; {} of the run timed in detail",
        s.exact_instructions,
        s.units,
        s.unit_instructions,
        s.warm_up_instructions,
        format_args!("{:.1} %", 100.0 * s.detailed_instructions as f64 / (s.exact_instructions + s.strata.iter().map(|x| x.instructions).sum::<u64>()).max(1) as f64)
    );
    if let Some(k) = s.code_classes {
        let _ = writeln!(o, "  cycles from the run's exact instruction mix: {k} classes of code, each its executions times its cycles per execution on the units");
    }
    if let Some(p) = s.priced_cycles.filter(|&p| p > 0.0) {
        let share = 100.0 * p / s.cycles.value.max(1.0);
        let _ = writeln!(o, "  priced, not measured: {p:.0} cycles ({share:.2} % of the estimate), code no unit measured (start-up, the exit) at the cycles per execution of the cold code the exact prefix and the units timed; the interval holds all of it");
    }
    let periods: Vec<String> = s.strata.iter().map(|x| format!("{} instructions at 1 window in {} batches ({} units)", x.instructions, x.period, x.units)).collect();
    let _ = writeln!(o, "  strata: {}", periods.join("; "));
    if (!s.sensitivity.is_empty() || !s.idealization.is_empty()) && s.variant_units < s.units {
        let every: Vec<String> = s.strata.iter().map(|x| format!("1 in {} ({} units)", x.variants_every, x.variant_units)).collect();
        let _ = writeln!(
            o,
            "  sensitivity and idealizations timed a sub-sample of {} units (by stratum: {}); their intervals are paired ratios to the baseline over it",
            s.variant_units,
            every.join("; ")
        );
    }
    if s.exact_instructions > 0 && (!s.sensitivity.is_empty() || !s.idealization.is_empty()) {
        let _ = writeln!(o, "  the exact prefix for the variants: {}", prefix_for_variants(s.prefix_idealized, s.prefix_variant_units as u64));
    }
    if s.cycles.known() {
        let _ = writeln!(
            o,
            "  cycles {:.0} ±{:.0} (±{:.2} %)   CPI {:.4} ±{:.4}",
            s.cycles.value,
            s.cycles.half_width,
            s.cycles.relative() * 100.0,
            s.cpi.value,
            s.cpi.half_width
        );
    } else {
        let _ = writeln!(o, "  cycles {:.0}   CPI {:.4}   (NO INTERVAL: {} units measured)", s.cycles.value, s.cpi.value, s.units);
    }
    if !s.cycles.known() {
        // the warning below says why and what to do
    } else if s.target.reached {
        let _ = writeln!(o, "  target ±{:.1} % reached (±{:.2} %)", s.target.relative_half_width * 100.0, s.target.achieved * 100.0);
    } else {
        let _ = writeln!(
            o,
            "  target ±{:.1} % NOT reached (±{:.2} %){}",
            s.target.relative_half_width * 100.0,
            s.target.achieved * 100.0,
            s.target.advice.as_deref().map(|a| format!(": {a}")).unwrap_or_default()
        );
    }
    if let Some(w) = &s.warning {
        let _ = writeln!(o, "  warning: {w}");
    }
    if !s.sensitivity.is_empty() {
        let mut v: Vec<_> = s.sensitivity.iter().collect();
        v.sort_by(|a, b| b.speedup.value.total_cmp(&a.speedup.value));
        let parts: Vec<String> = v.iter().take(8).map(|x| format!("{} x{}: {}", x.resources.join("+"), x.weight, pct(&x.speedup))).collect();
        let _ = writeln!(o, "  speedups  {}", parts.join(", "));
    }
    if !s.idealization.is_empty() {
        let parts: Vec<String> = s.idealization.iter().map(|x| format!("{} -{:.4}{}", x.what, x.cpi_reduction.value, pm(&x.cpi_reduction, 1.0, 4))).collect();
        let _ = writeln!(o, "  ideal CPI {}", parts.join(", "));
    }
    shares(&mut o, "Top-Down", &s.topdown_level1);
    if let Some(st) = &s.cpi_stacks {
        shares(&mut o, "dispatch", &st.dispatch);
        shares(&mut o, "issue", &st.issue);
        shares(&mut o, "commit", &st.commit);
    }
    if !s.flops_stack.is_empty() {
        let parts: Vec<String> = s.flops_stack.iter().map(|f| format!("{} {:.3}{}", f.name, f.flops_per_cycle.value, pm(&f.flops_per_cycle, 1.0, 3))).collect();
        let _ = writeln!(o, "  {:<10} {} (flops/cycle)", "FLOPS", parts.join(", "));
    }
    shares(&mut o, "functions", &s.functions);
    let loops: Vec<ShareInterval> = s.loops.iter().take(10).map(|l| ShareInterval { name: format!("0x{}", l.name), share: l.share }).collect();
    shares(&mut o, "loops", &loops);
    o.push('\n');
    o
}

/// How the sensitivity variants and the idealizations had the exact prefix of
/// a sampled run (`prefix_idealized`, `prefix_variant_units`): the text and
/// HTML reports say it in these words.
pub fn prefix_for_variants(idealized: bool, units: u64) -> String {
    match (idealized, units) {
        (true, 0) => "the idealizations timed it whole after the windows".to_string(),
        (true, n) => format!("the idealizations timed it whole after the windows; the other variants a sub-sample of {n} of its batches (its error in their intervals)"),
        (false, n) if n > 0 => format!("the variants timed a sub-sample of {n} of its batches after the windows (its error in their intervals)"),
        _ => "each variant's is the baseline's at the variant's ratio over the windows (the run is 100 times its prefix or longer)".to_string(),
    }
}
