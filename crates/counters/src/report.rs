//! Evaluation of counts into the Top-Down tree and its text / JSON / CSV forms.
//!
//! Shown nodes: those of the selection (level, `--nodes` and their
//! ancestors); the children of a node that is not flagged are hidden unless
//! `all` (hierarchical safety); nodes whose counts lack an input are hidden
//! when `hide_missing` (imports, where the file decides what exists) unless
//! `all` — a node whose formula divides by zero on the counts stays, with why.
//! The bottleneck path (from the top, the flagged node with the largest
//! normalized value among its siblings) is marked `<==`; other flagged nodes `*`.
//!
//! Each node shows its value as the table's formula gives it, in its unit
//! (`% Slots`, `% Clocks` ...: Intel's TMA mixes them, so a child in clocks can
//! exceed a parent in slots), and its normalized value, the share of all slots
//! fitted inside the parent (see `bottlenose_metrics::tree`), which the bars draw.

use crate::plan::{Method, Selection};
use bottlenose_metrics::{Counts, MetricEngine, Node, Tree};
use serde_json::{json, Value};
use std::collections::HashSet;

/// One event as measured or imported.
#[derive(Clone, Debug, PartialEq)]
pub struct EventOut {
    /// Display name.
    pub name: String,
    /// Counts key.
    pub key: String,
    /// Value (scaled); `None` when not counted.
    pub value: Option<f64>,
    /// Fraction of time running, when known.
    pub running: Option<f64>,
}

/// How to show a report.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct View {
    /// Show children of unflagged nodes (and nodes without values).
    pub all: bool,
    /// Hide nodes without a value.
    pub hide_missing: bool,
}

/// One evaluated tree with its inputs.
#[derive(Clone, Debug)]
pub struct Report {
    /// The microarchitecture (`hsw`); the table's id unless the caller says otherwise.
    pub uarch: String,
    /// The table that evaluated it (`hsw`, `topdown5`, `levinthal-core2`).
    pub table: String,
    /// The method.
    pub method: Method,
    /// The selected part of the tree (all children, flags computed on the whole tree).
    pub tree: Tree,
    /// Seconds since the start (interval mode).
    pub time: Option<f64>,
    /// A label (likwid region, ...).
    pub label: Option<String>,
    /// The events behind it.
    pub events: Vec<EventOut>,
    /// Warnings (multiplexing, skipped events, ...).
    pub warnings: Vec<String>,
}

fn filter(nodes: &[Node], keep: &dyn Fn(&Node) -> bool) -> Vec<Node> {
    nodes
        .iter()
        .filter(|n| keep(n))
        .map(|n| {
            let mut c = n.clone();
            c.children = filter(&n.children, keep);
            c
        })
        .collect()
}

impl Report {
    /// Evaluates `counts` with `engine` and keeps the selected nodes.
    pub fn new(engine: &MetricEngine, method: Method, counts: &Counts, sel: &Selection) -> Report {
        let full = match engine.evaluate(counts) {
            Ok(ev) => engine.tree(&ev),
            Err(_) => Tree { uarch: engine.uarch().to_string(), roots: Vec::new() },
        };
        let selected: HashSet<String> = sel.metrics(engine).unwrap_or_default().into_iter().map(|s| s.to_ascii_lowercase()).collect();
        let keep = |n: &Node| selected.is_empty() || selected.contains(&n.name.to_ascii_lowercase());
        let tree = Tree { uarch: full.uarch.clone(), roots: filter(&full.roots, &keep) };
        Report { uarch: engine.uarch().to_string(), table: engine.uarch().to_string(), method, tree, time: None, label: None, events: Vec::new(), warnings: Vec::new() }
    }

    /// The tree as shown under `view`.
    pub fn shown(&self, view: View) -> Tree {
        let t = self.tree.pruned(view.all);
        if view.hide_missing && !view.all {
            let has_value_or_why = |n: &Node| n.value.is_some() || n.reason.as_ref().is_some_and(|r| !r.is_missing_input());
            Tree { uarch: t.uarch.clone(), roots: filter(&t.roots, &has_value_or_why) }
        } else {
            t
        }
    }

    /// Names of the nodes on the bottleneck path.
    pub fn path(&self) -> Vec<String> {
        self.tree.bottleneck_path().iter().map(|n| n.name.clone()).collect()
    }

    fn hidden(&self, view: View) -> usize {
        self.tree.walk().len() - self.shown(view).walk().len()
    }

    /// Text: one line per node with value, threshold and marks.
    pub fn text(&self, view: View) -> String {
        let mut s = String::new();
        let mut head = format!("Top-Down ({}, method {})", self.uarch, self.method.name());
        if let Some(t) = self.time {
            head.push_str(&format!(" at {t:.3} s"));
        }
        if let Some(l) = &self.label {
            head.push_str(&format!(" {l}"));
        }
        s.push_str(&head);
        s.push('\n');
        s.push_str(&format!("{:<40} {:>6} {:<13} {:>10}\n", "", "value", "unit", "normalized"));
        let path = self.path();
        let last = path.last().cloned();
        for (d, n) in self.shown(view).walk() {
            let value = match n.value {
                Some(v) => format!("{:6.1}", v * 100.0),
                None => "   n/a".into(),
            };
            let unit = n.unit.map(|u| u.to_string()).unwrap_or_else(|| "%".into());
            let norm = n.normalized.map(|v| format!("{:9.1}%", v * 100.0)).unwrap_or_default();
            let thr = n.threshold_value.map(|k| format!("> {:.0}%", k * 100.0)).unwrap_or_default();
            let mark = if last.as_deref() == Some(n.name.as_str()) {
                "<== bottleneck".to_string()
            } else if path.contains(&n.name) {
                "<==".into()
            } else if n.flagged {
                "*".into()
            } else {
                String::new()
            };
            // a bar of the node's normalized share of all slots, 20 characters for 100 %
            let bar = n.normalized.map(|v| "#".repeat((v.clamp(0.0, 1.0) * 20.0).round() as usize)).unwrap_or_default();
            let mut line = format!(
                "{:indent$}{:<width$} {value} {unit:<13} {norm:>10}  {bar:<20}  {thr:<7} {mark}",
                "",
                n.label,
                indent = d * 2,
                width = 40usize.saturating_sub(d * 2)
            );
            if n.value.is_none() {
                if let Some(r) = &n.reason {
                    line.push_str(&format!("({r})"));
                }
            }
            s.push_str(line.trim_end());
            s.push('\n');
        }
        let hidden = self.hidden(view);
        if hidden > 0 {
            s.push_str(&format!("({hidden} nodes hidden: below unflagged nodes or without values; --all shows them)\n"));
        }
        s.push_str("value: the table's formula, a fraction of its unit (thresholds apply to it)\nnormalized: the share of all slots, fitted inside the parent; bars draw it (20 # = 100 %)\n");
        if path.is_empty() {
            s.push_str("no node is above its threshold\n");
        } else {
            s.push_str("* above threshold with every ancestor; <== bottleneck path\n");
        }
        s
    }

    /// JSON: `{uarch, method, tree: {name, value, unit, normalized, flagged, children}, events, warnings}`.
    pub fn json(&self, view: View) -> Value {
        let path = self.path();
        fn node(n: &Node, path: &[String]) -> Value {
            let mut o = json!({
                "name": n.name,
                "label": n.label,
                "level": n.level,
                "value": n.value,
                "unit": n.unit.map(|u| u.name()),
                "normalized": n.normalized,
                "threshold": n.threshold_value,
                "flagged": n.flagged,
                "bottleneck": path.contains(&n.name),
                "children": n.children.iter().map(|c| node(c, path)).collect::<Vec<_>>(),
            });
            if let (None, Some(r)) = (n.value, &n.reason) {
                o["reason"] = json!(r.to_string());
            }
            o
        }
        let shown = self.shown(view);
        let total: Option<f64> = self.tree.roots.iter().map(|n| n.value).sum();
        let mut o = json!({
            "uarch": self.uarch,
            "table": self.table,
            "method": self.method.name(),
            "tree": {"name": "Top-Down", "value": total, "unit": "Slots", "normalized": total, "flagged": true, "children": shown.roots.iter().map(|n| node(n, &path)).collect::<Vec<_>>()},
            "bottleneck_path": path,
            "events": self.events.iter().map(|e| json!({"name": e.name, "key": e.key, "value": e.value, "running": e.running})).collect::<Vec<_>>(),
            "warnings": self.warnings,
        });
        if let Some(t) = self.time {
            o["time"] = json!(t);
        }
        if let Some(l) = &self.label {
            o["label"] = json!(l);
        }
        o
    }

    /// CSV rows `node,level,value,threshold,flagged,unit,normalized` (with a
    /// leading `time` column when the report has a time); `header` adds the header line.
    pub fn csv(&self, view: View, header: bool) -> String {
        let mut s = String::new();
        let time = self.time.map(|t| format!("{t:.6},"));
        if header {
            s.push_str(if time.is_some() { "time," } else { "" });
            s.push_str("node,level,value,threshold,flagged,unit,normalized\n");
        }
        for (_, n) in self.shown(view).walk() {
            let value = n.value.map(|v| format!("{v:.6}")).unwrap_or_default();
            let thr = match (n.threshold_value, &n.threshold) {
                (Some(k), _) => format!("{k}"),
                (None, Some(t)) => format!("\"{}\"", t.replace('"', "\"\"")),
                _ => String::new(),
            };
            let unit = n.unit.map(|u| u.name()).unwrap_or_default();
            let norm = n.normalized.map(|v| format!("{v:.6}")).unwrap_or_default();
            s.push_str(&format!("{}{},{},{value},{thr},{},{unit},{norm}\n", time.as_deref().unwrap_or(""), n.label, n.level, n.flagged));
        }
        s
    }
}
