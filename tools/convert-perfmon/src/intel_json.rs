//! Intel perfmon metrics files (`<DIR>/metrics/*.json`): formulas from
//! `BaseFormula` (metric references + lower-case events; `Formula` with its
//! alias tables for the non-TMA metrics that have no `BaseFormula`), the tree
//! from `Level`/`ParentCategory`, thresholds from `Threshold.BaseFormula`.

use crate::canon::{constant, intel_metric_name, Canon};
use crate::util::{and_all, conjuncts, names_of, parse_ctx, read_json, s, short_desc, simplify};
use anyhow::{anyhow, bail, Result};
use bottlenose_metrics::expr::Expr;
use bottlenose_metrics::table::{MetricDef, SourceFile};
use bottlenose_metrics::{NameRef, Unit};
use std::collections::{HashMap, HashSet};
use std::path::Path;

/// The converted metrics of one file.
pub struct Converted {
    pub metrics: Vec<MetricDef>,
    pub source: SourceFile,
    pub tma_version: Option<String>,
    pub notes: Vec<String>,
}

struct Raw {
    name: String,
    label: String,
    v: serde_json::Value,
    parent: Option<String>,
}

/// Replaces `metric_TMA_..Name(%)` by `(tma_name * 100)` and `metric_TMA_Name` by `tma_name`.
fn legacy_refs(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(i) = rest.find("metric_TMA_") {
        out.push_str(&rest[..i]);
        let after = rest[i + "metric_TMA_".len()..].trim_start_matches('.');
        let end = after.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).unwrap_or(after.len());
        let name = intel_metric_name(&after[..end], true);
        let tail = &after[end..];
        if let Some(t) = tail.strip_prefix("(%)") {
            out.push_str(&format!("({name} * 100)"));
            rest = t;
        } else {
            out.push_str(&name);
            rest = tail;
        }
    }
    out.push_str(rest);
    out
}

fn event_hints(v: &serde_json::Value) -> (HashMap<String, String>, HashMap<String, String>) {
    let mut by_lower = HashMap::new();
    let mut by_alias = HashMap::new();
    for e in v.get("Events").and_then(|x| x.as_array()).into_iter().flatten() {
        if let (Some(n), Some(a)) = (s(e, "Name"), s(e, "Alias")) {
            let base = n.split(':').next().unwrap_or(&n).to_string();
            by_lower.insert(base.to_ascii_lowercase(), base);
            by_alias.insert(a, n);
        }
    }
    (by_lower, by_alias)
}

/// Converts a metrics file; `canon` has the uarch's event names.
pub fn convert(path: &Path, rel: &str, canon: &Canon) -> Result<Converted> {
    let v = read_json(path)?;
    let header = v.get("Header");
    let list = v.get("Metrics").and_then(|x| x.as_array()).ok_or_else(|| anyhow!("{rel}: no Metrics array"))?;
    let mut notes = Vec::new();
    let raws: Vec<Raw> = list
        .iter()
        .filter_map(|m| {
            let label = s(m, "MetricName")?;
            let tma = s(m, "Category").as_deref() == Some("TMA");
            Some(Raw {
                name: intel_metric_name(&label, tma),
                parent: s(m, "ParentCategory").map(|p| intel_metric_name(&p, true)),
                label,
                v: m.clone(),
            })
        })
        .collect();
    let names: HashSet<String> = raws.iter().map(|r| r.name.clone()).collect();
    let parent_of: HashMap<&str, &str> = raws.iter().filter_map(|r| Some((r.name.as_str(), r.parent.as_deref()?))).collect();
    let parents: HashSet<&str> = parent_of.values().copied().collect();
    let ancestors = |n: &str| -> Vec<String> {
        let mut out = Vec::new();
        let mut cur = n;
        while let Some(p) = parent_of.get(cur) {
            out.push(p.to_string());
            cur = p;
            if out.len() > 16 {
                break;
            }
        }
        out
    };
    let area = |n: &str| -> Option<String> {
        let mut chain = ancestors(n);
        chain.insert(0, n.to_string());
        let root = chain.last()?.clone();
        let top = match root.as_str() {
            "tma_frontend_bound" => "FE",
            "tma_bad_speculation" => "BAD",
            "tma_retiring" => "RET",
            "tma_backend_bound" => "BE",
            _ => return None,
        };
        Some(if chain.iter().any(|c| c == "tma_memory_bound") {
            "BE/Mem".into()
        } else if chain.iter().any(|c| c == "tma_core_bound") {
            "BE/Core".into()
        } else {
            top.into()
        })
    };

    let mut metrics = Vec::new();
    let mut skipped = HashSet::new();
    for r in &raws {
        let (hints, aliases) = event_hints(&r.v);
        let expr = match (s(&r.v, "BaseFormula"), s(&r.v, "Formula")) {
            (Some(b), _) => base_formula(&b, &names, canon, &hints),
            (None, Some(f)) => alias_formula(&f, &r.v, canon, &aliases),
            _ => Err(anyhow!("no formula")),
        };
        let expr = match expr {
            Ok(e) => simplify(e),
            Err(e) => {
                notes.push(format!("skipped {}: {e}", r.label));
                skipped.insert(r.name.clone());
                continue;
            }
        };
        // A node has a parent or children; level-1 TMA categories (TmaL1 group) count even when leaves.
        let level1 = s(&r.v, "MetricGroup").is_some_and(|g| g.split(';').any(|x| x == "TmaL1"))
            && !r.label.starts_with("Info")
            && !r.label.starts_with("Bottleneck")
            && s(&r.v, "Category").as_deref() == Some("TMA");
        let is_node = r.parent.is_some() || parents.contains(r.name.as_str()) || level1;
        let threshold = r.v.get("Threshold").and_then(|t| s(t, "BaseFormula")).and_then(|t| {
            match threshold(&t, &ancestors(&r.name)) {
                Ok(x) => x,
                Err(e) => {
                    notes.push(format!("threshold of {} dropped: {e}", r.label));
                    None
                }
            }
        });
        let unit = match (s(&r.v, "UnitOfMeasure").as_deref(), s(&r.v, "CountDomain").as_deref()) {
            (Some("percent"), _) => Some("100%".to_string()),
            (_, Some("Scaled_Slots")) => Some("1%".to_string()),
            (Some(u), _) => Some(u.to_string()),
            _ => None,
        };
        let domain = match s(&r.v, "CountDomain") {
            Some(d) if is_node => {
                let u = Unit::from_name(&d);
                if u.is_none() {
                    notes.push(format!("{}: count domain '{d}' is not a node unit", r.label));
                }
                u
            }
            _ => None,
        };
        metrics.push(MetricDef {
            name: r.name.clone(),
            label: Some(r.label.clone()),
            expr: expr.to_string(),
            unit,
            domain,
            desc: s(&r.v, "BriefDescription").and_then(|d| short_desc(&d)),
            groups: s(&r.v, "MetricGroup").map(|g| g.split(';').filter(|x| !x.is_empty()).map(str::to_string).collect()).unwrap_or_default(),
            tma: is_node,
            level: is_node.then(|| r.v.get("Level").and_then(|l| l.as_u64()).unwrap_or(1) as u32),
            parent: r.parent.clone(),
            area: if is_node { area(&r.name) } else { None },
            threshold: threshold.map(|t| t.to_string()),
        });
    }
    crate::drop_dependents(&mut metrics, skipped, &mut notes);
    Ok(Converted {
        metrics,
        source: SourceFile {
            path: rel.into(),
            version: header.and_then(|h| s(h, "Version")),
            date: header.and_then(|h| s(h, "DatePublished")),
            license: Some("BSD-3-Clause (intel-perfmon LICENSE)".into()),
        },
        tma_version: header.and_then(|h| Some(format!("{} ({})", s(h, "TmaVersion")?, s(h, "TmaFlavor").unwrap_or_default()))),
        notes,
    })
}

fn base_formula(src: &str, names: &HashSet<String>, canon: &Canon, hints: &HashMap<String, String>) -> Result<Expr> {
    let e = parse_ctx(src, "BaseFormula")?;
    let mut err = None;
    let out = e.map_names(&mut |n: NameRef| {
        if n.is_plain() {
            if n.key.starts_with("tma_") {
                if !names.contains(&n.key) {
                    err = Some(anyhow!("unknown metric {}", n.key));
                }
                return Expr::Name(NameRef::plain(&n.key));
            }
            if n.key == "tsc" {
                return Expr::Name(NameRef::plain("TSC"));
            }
            if let Some(c) = constant(&n.key) {
                return c;
            }
        }
        Expr::Name(canon.event(&n, hints, true))
    });
    match err {
        Some(e) => Err(e),
        None => Ok(out),
    }
}

fn alias_formula(src: &str, m: &serde_json::Value, canon: &Canon, aliases: &HashMap<String, String>) -> Result<Expr> {
    let consts: HashMap<String, String> = m
        .get("Constants")
        .and_then(|x| x.as_array())
        .into_iter()
        .flatten()
        .filter_map(|c| Some((s(c, "Alias")?, s(c, "Name")?)))
        .collect();
    let e = parse_ctx(src, "Formula")?;
    let mut err = None;
    let out = e.map_names(&mut |n: NameRef| {
        if let Some(ev) = aliases.get(&n.name).filter(|_| n.is_plain()) {
            return match bottlenose_metrics::expr::parse(ev) {
                Ok(Expr::Name(r)) if r.key == "tsc" => Expr::Name(NameRef::plain("TSC")),
                Ok(Expr::Name(r)) => Expr::Name(canon.event(&r, &HashMap::new(), true)),
                _ => {
                    err = Some(anyhow!("bad event name {ev}"));
                    Expr::Num(0.0)
                }
            };
        }
        let cname = consts.get(&n.name).cloned().unwrap_or_else(|| n.name.clone());
        constant(&cname).unwrap_or_else(|| {
            err = Some(anyhow!("unknown alias {}", n.name));
            Expr::Num(0.0)
        })
    });
    match err {
        Some(e) => Err(e),
        None => Ok(out),
    }
}

/// The node's own condition: legacy names mapped, conditions on ancestors
/// dropped (the tree applies them), `(x * 100) > 10` folded to `x > 0.1`.
fn threshold(text: &str, ancestors: &[String]) -> Result<Option<Expr>> {
    let e = parse_ctx(&legacy_refs(text), "Threshold")?;
    let own: Vec<Expr> = conjuncts(e)
        .into_iter()
        .filter(|c| {
            let ns = names_of(c);
            ns.is_empty() || !ns.iter().all(|n| ancestors.contains(n))
        })
        .collect();
    if own.is_empty() {
        bail!("only ancestor conditions");
    }
    Ok(and_all(own).map(simplify))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thresholds() {
        let anc = vec!["tma_frontend_bound".to_string()];
        let t = threshold("( metric_TMA_..Fetch_Latency(%) > 10 ) & ( metric_TMA_Frontend_Bound(%) > 15 )", &anc).unwrap().unwrap();
        assert_eq!(t.to_string(), "tma_fetch_latency > 0.1");
        let t = threshold("metric_TMA_Retiring(%) > 70 | metric_TMA_..Heavy_Operations(%) > 10", &[]).unwrap().unwrap();
        assert_eq!(t.to_string(), "tma_retiring > 0.7 | tma_heavy_operations > 0.1");
        let t = threshold("metric_TMA_Info_Thread_UpTB < 4 * 1.5", &[]).unwrap().unwrap();
        assert_eq!(t.to_string(), "tma_info_thread_uptb < 4 * 1.5");
    }
}
