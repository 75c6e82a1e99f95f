//! Terminal view of a verdict: the ranked causes, each with its gain, every
//! view's evidence, whether the views agree (why not, when they do not) and
//! what to try; for runs, the same for the hottest functions and loops.

use bottlenose_report_model::verdict::{Agreement, Evidence, Finding, HotspotKind, Verdict};
use std::fmt::Write;

/// The full verdict, as the first section of a report.
pub fn render_verdict(v: &Verdict) -> String {
    let mut o = String::new();
    let _ = writeln!(o, "Verdict ({}; ranked by the cycles each fix would save, gains overlap):", v.scope);
    causes(&mut o, v, "  ", true);
    if !v.hotspots.is_empty() {
        o.push_str("  Per hotspot:\n");
        for h in &v.hotspots {
            let name = match h.kind {
                HotspotKind::Function => format!("function {}", h.name),
                HotspotKind::Loop => h.name.clone(),
            };
            let src = h.source.as_deref().map(|s| format!(" ({})", basename(s))).unwrap_or_default();
            let _ = writeln!(o, "    {name}{src}, {:.1} % of the cycles:", h.share * 100.0);
            causes(&mut o, &h.verdict, "      ", false);
        }
    }
    o.push('\n');
    o
}

fn causes(o: &mut String, v: &Verdict, indent: &str, full: bool) {
    if v.causes.is_empty() {
        let _ = writeln!(o, "{indent}no cause found");
    }
    for f in &v.causes {
        finding(o, f, indent, full);
    }
    for n in &v.notes {
        let _ = writeln!(o, "{indent}note: {n}");
    }
}

fn finding(o: &mut String, f: &Finding, indent: &str, full: bool) {
    let agreement = match f.agreement {
        Agreement::Agree => "views agree".to_string(),
        Agreement::Disagree => "views disagree".to_string(),
    };
    let _ = writeln!(o, "{indent}{}. {}: {:.1} % of the cycles ({}); {agreement}", f.rank, f.title, f.gain.share * 100.0, f.gain.basis);
    let more = format!("{indent}   ");
    if full {
        let ev = evidence(&f.evidence);
        if !ev.is_empty() {
            let _ = writeln!(o, "{more}evidence: {}", ev.join("; "));
        }
    }
    if let Some(r) = &f.reason {
        let _ = writeln!(o, "{more}{}: {r}", if f.agreement == Agreement::Disagree { "why" } else { "note" });
    }
    let _ = writeln!(o, "{more}try: {}", f.action);
}

fn pct(x: f64) -> String {
    format!("{:.1} %", x * 100.0)
}

fn weight(w: f64) -> String {
    if w < 1.5 {
        format!("+{:.0} %", (w - 1.0) * 100.0)
    } else if w.fract() == 0.0 {
        format!("x{w:.0}")
    } else {
        format!("x{w:.2}")
    }
}

/// One phrase per view.
fn evidence(e: &Evidence) -> Vec<String> {
    let mut v = Vec::new();
    if !e.sensitivity.is_empty() {
        let parts: Vec<String> = e
            .sensitivity
            .iter()
            .map(|s| {
                let mut t = format!("{} {:+.1} % at {}", s.resources.join("+"), s.speedup * 100.0, weight(s.weight));
                if s.max_weight != s.weight {
                    let _ = write!(t, ", {:+.1} % at {}", s.max_speedup * 100.0, weight(s.max_weight));
                }
                t
            })
            .collect();
        v.push(format!("sensitivity {}", parts.join(", ")));
    }
    if let Some(t) = &e.topdown {
        // the unit's text is `% Slots`, `% Clocks`...
        let value = t.value.map(|x| format!("{:.1}", x * 100.0)).unwrap_or_else(|| "n/a".into());
        let unit = t.unit.map(|u| format!(" {u}")).unwrap_or_else(|| " %".into());
        let normalized = t.normalized.map(|n| format!(" (normalized {})", pct(n))).unwrap_or_default();
        v.push(format!("Top-Down {} {value}{unit}{normalized}{}", t.node, if t.flagged { ", flagged" } else { "" }));
    }
    if let Some(s) = &e.stacks {
        v.push(format!(
            "stacks {} {:.1}/{:.1}/{:.1} % of cycles (dispatch/issue/commit)",
            s.components.join("+"),
            s.dispatch * 100.0,
            s.issue * 100.0,
            s.commit * 100.0
        ));
    }
    if let Some(i) = &e.idealization {
        let mut t = format!("{} {} fewer cycles", i.what, pct(i.share));
        if i.apportioned < 1.0 {
            let _ = write!(t, " ({:.0} % of its gain, by the stacks' share of this level)", i.apportioned * 100.0);
        }
        v.push(t);
    }
    if let Some(u) = &e.usage {
        v.push(format!("resource usage {} {} busy", u.resource, pct(u.usage)));
    }
    for c in &e.counters {
        v.push(format!("{} {} x {:.0} cycles = {} of its cycles", c.count, c.event.name(), c.penalty, pct(c.share)));
    }
    v
}

fn basename(s: &str) -> &str {
    s.rsplit('/').next().unwrap_or(s)
}
