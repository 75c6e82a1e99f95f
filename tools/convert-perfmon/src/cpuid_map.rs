//! CPU id rules from `intel-perfmon/mapfile.csv` (explicit family-model
//! patterns per directory, hybrid core types) and `linux-pmu-events/mapfile.csv`
//! (regular expressions; AMD family 19h zen3/zen4), plus family 1Ah → zen5.

use crate::util::parse_csv;
use anyhow::Result;
use bottlenose_metrics::cpuid::{CpuidMap, CpuidRule};
use std::path::Path;

/// Builds the mapping for the shipped uarches. `dirs`: (perfmon dir, linux name, uarch).
pub fn build(data: &Path, dirs: &[(&str, &str, &str)]) -> Result<CpuidMap> {
    let mut map = CpuidMap::default();
    let push = |r: CpuidRule, map: &mut CpuidMap| {
        if !map.rules.iter().any(|x| x.pattern == r.pattern && x.core_type == r.core_type) {
            map.rules.push(r);
        }
    };
    let intel = data.join("intel-perfmon/mapfile.csv");
    if let Ok(text) = std::fs::read_to_string(&intel) {
        let rows = parse_csv(&text);
        for r in rows.iter().skip(1) {
            let (Some(fm), Some(file), Some(kind)) = (r.first(), r.get(2), r.get(3)) else { continue };
            if kind != "core" && kind != "hybridcore" {
                continue;
            }
            let dir = file.trim_start_matches('/').split('/').next().unwrap_or("");
            let Some((_, _, uarch)) = dirs.iter().find(|(d, _, _)| *d == dir) else { continue };
            let core_type = r.get(6).filter(|c| !c.is_empty()).cloned();
            push(CpuidRule { pattern: fm.clone(), uarch: uarch.to_string(), core_type, shipped: true, source: "intel-perfmon/mapfile.csv".into() }, &mut map);
        }
        map.notes.push(format!("intel-perfmon/mapfile.csv: {} rules for shipped uarches", map.rules.len()));
    }
    let linux = data.join("linux-pmu-events/mapfile.csv");
    if let Ok(text) = std::fs::read_to_string(&linux) {
        let before = map.rules.len();
        for r in parse_csv(&text).iter().skip(1) {
            let (Some(fm), Some(name)) = (r.first(), r.get(2)) else { continue };
            // Unshipped entries stay as guards: the first match wins, so a broad
            // later pattern (amdzen4) must not capture another part's models.
            let (uarch, shipped) = match dirs.iter().find(|(_, l, _)| l == name) {
                Some((_, _, u)) => (u.to_string(), true),
                None => (name.clone(), false),
            };
            push(CpuidRule { pattern: fm.clone(), uarch, core_type: None, shipped, source: "linux-pmu-events/mapfile.csv".into() }, &mut map);
        }
        map.notes.push(format!("linux-pmu-events/mapfile.csv: {} rules added", map.rules.len() - before));
    }
    if dirs.iter().any(|(_, _, u)| *u == "zen5") {
        push(
            CpuidRule {
                pattern: "AuthenticAMD-26-[[:xdigit:]]+".into(),
                uarch: "zen5".into(),
                core_type: None,
                shipped: true,
                source: "converter: AMD family 1Ah is Zen 5 (not in the shipped mapfile)".into(),
            },
            &mut map,
        );
    }
    map.notes.push("rules with shipped=false name parts without a table; they only stop later, broader patterns from matching".into());
    map.notes.push("patterns are matched against Vendor-Family(decimal)-Model(hex)[-Stepping(hex)], whole string; first match wins".into());
    Ok(map)
}
