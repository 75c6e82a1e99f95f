//! Intel perfmon event files (`<DIR>/events/*_core.json`).

use crate::util::{read_json, s, short_desc};
use anyhow::Result;
use bottlenose_metrics::table::{EventDef, SourceFile};
use std::collections::HashSet;
use std::path::Path;

fn flag(v: &serde_json::Value, key: &str) -> bool {
    s(v, key).is_some_and(|x| x != "0" && !x.eq_ignore_ascii_case("null"))
}

fn nonzero(v: Option<String>) -> Option<String> {
    v.filter(|x| {
        let t = x.trim_start_matches("0x").trim_start_matches("0X");
        !t.chars().all(|c| c == '0') && !x.eq_ignore_ascii_case("null")
    })
}

/// Reads one events file; `pmu` is set on every event (hybrid parts).
pub fn read(path: &Path, rel: &str, pmu: Option<&str>, out: &mut Vec<EventDef>, seen: &mut HashSet<String>) -> Result<SourceFile> {
    let v = read_json(path)?;
    let header = v.get("Header");
    let list = v.get("Events").or(Some(&v)).and_then(|x| x.as_array()).cloned().unwrap_or_default();
    for e in &list {
        let Some(name) = s(e, "EventName") else { continue };
        if !seen.insert(name.to_ascii_lowercase()) {
            continue; // first definition wins (e.g. the fixed-counter form)
        }
        let counters = s(e, "Counter");
        let ht_off = s(e, "CounterHTOff").filter(|c| Some(c) != counters.as_ref());
        out.push(EventDef {
            name,
            pmu: pmu.map(str::to_string),
            code: s(e, "EventCode").map(|c| c.replace(' ', "")),
            umask: s(e, "UMask"),
            cmask: s(e, "CounterMask").and_then(|c| c.parse().ok()).unwrap_or(0),
            inv: flag(e, "Invert"),
            edge: flag(e, "EdgeDetect"),
            any_thread: flag(e, "AnyThread"),
            msr_index: nonzero(s(e, "MSRIndex")),
            msr_value: nonzero(s(e, "MSRValue")),
            counters,
            counters_ht_off: ht_off,
            precise: flag(e, "PEBS") || flag(e, "Precise"),
            desc: s(e, "BriefDescription").and_then(|d| short_desc(&d)),
        });
    }
    Ok(SourceFile {
        path: rel.to_string(),
        version: header.and_then(|h| s(h, "Version")),
        date: header.and_then(|h| s(h, "DatePublished")),
        license: Some("BSD-3-Clause (intel-perfmon LICENSE)".into()),
    })
}
