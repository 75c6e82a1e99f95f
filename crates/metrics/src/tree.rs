//! The Top-Down tree of an evaluation, with Yasin's hierarchical safety
//! (§3.1): a node is *flagged* only when its own threshold holds **and** its
//! parent is flagged, so a high child under an unflagged parent is ignored.
//!
//! Every node keeps its raw value exactly as the table's formula gives it
//! (Intel's TMA value, in the node's [`Unit`]) and gets a *normalized* value:
//! its share of all pipeline slots, fitted inside its parent. Raw values of
//! different units do not add up (Backend_Bound 45 % of slots, Memory_Bound 49 %
//! of cycles); normalized values do, so bars and rankings use them. The rule,
//! from the top (level-1 nodes fit inside "all slots" = 1), for the children
//! `c` of a parent `p` with raw value `v(p)`, normalized `N(p)`:
//!
//! 1. A first share `s(c)` of all slots, from the raw value `v(c) ≥ 0`
//!    (negative raw values count as 0):
//!    * same [`Basis`] as the parent (a node without a unit is taken in its
//!      parent's): `s = v(c) · N(p) / v(p)`, the conversion the parent got
//!      (0 when `v(p) ≤ 0`);
//!    * retired uops under another basis: `s = v(c) · N(r)`, with `r` the
//!      level-1 ancestor (Retiring, the retired share of all slots);
//!    * otherwise (cycles under slots, slots under cycles): `s = v(c)`. A cycle
//!      holds W slots, so a fraction of cycles is the share of all slots in
//!      those cycles (an upper bound on the slots lost in them).
//! 2. Fit: when the siblings' shares add up to more than `N(p)`, every share
//!    is scaled by `N(p) / Σ s`, so that the children never exceed the parent;
//!    otherwise they stay as they are (children may explain part of a parent).
//!
//! A node without a value, or under a parent without a normalized value, has
//! no normalized value. Slot nodes whose children are slot nodes summing to
//! at most the parent keep `normalized == value`.

use crate::engine::{Evaluation, MetricEngine};
use crate::evaluation::Reason;
use crate::expr::{self, BinOp, Expr};
use crate::unit::{Basis, Unit};
use std::fmt;

/// One node of the tree.
#[derive(Clone, Debug, PartialEq)]
pub struct Node {
    /// Metric name (`tma_memory_bound`).
    pub name: String,
    /// Display name (`Memory_Bound`).
    pub label: String,
    /// Tree level (1 at the top).
    pub level: u32,
    /// Top-level area (`FE`, `BAD`, `RET`, `BE/Mem`, `BE/Core`).
    pub area: Option<String>,
    /// The node's value as the formula gives it (a fraction of its `unit`).
    pub value: Option<f64>,
    /// What `value` is a fraction of (slots, clocks, uops ...), from the table.
    pub unit: Option<Unit>,
    /// The share of all slots, fitted inside the parent (see the module docs).
    pub normalized: Option<f64>,
    /// Why `value` is missing.
    pub reason: Option<Reason>,
    /// The node's own threshold condition (formula text).
    pub threshold: Option<String>,
    /// `K` when the threshold is the simple `value > K`.
    pub threshold_value: Option<f64>,
    /// Whether the node's own threshold holds (None: no threshold or not computable).
    pub above_threshold: Option<bool>,
    /// Above threshold and every ancestor flagged.
    pub flagged: bool,
    /// Child nodes in table order.
    pub children: Vec<Node>,
}

/// The whole tree: level-1 nodes and their descendants.
#[derive(Clone, Debug, PartialEq)]
pub struct Tree {
    /// The table the tree comes from.
    pub uarch: String,
    /// Level-1 nodes.
    pub roots: Vec<Node>,
}

fn simple_threshold(name: &str, t: &str) -> Option<f64> {
    match expr::parse(t).ok()? {
        Expr::Binary(BinOp::Gt, a, b) => match (*a, *b) {
            (Expr::Name(n), Expr::Num(k)) if n.is_plain() && n.name.eq_ignore_ascii_case(name) => Some(k),
            _ => None,
        },
        _ => None,
    }
}

impl Tree {
    /// Builds the tree from the table's TMA nodes (`tma`, `level`, `parent`).
    pub fn build(engine: &MetricEngine, ev: &Evaluation) -> Tree {
        let metrics = engine.metrics();
        let is_node = |name: &str| metrics.iter().any(|m| m.tma && m.name.eq_ignore_ascii_case(name));
        fn make(engine: &MetricEngine, ev: &Evaluation, i: usize, parent_flagged: bool) -> Node {
            let m = &engine.metrics()[i];
            let r = ev.result(&m.name);
            let above = r.and_then(|r| r.above_threshold);
            let flagged = parent_flagged && above == Some(true);
            let children = engine
                .metrics()
                .iter()
                .enumerate()
                .filter(|(_, c)| c.tma && c.parent.as_deref().is_some_and(|p| p.eq_ignore_ascii_case(&m.name)))
                .map(|(j, _)| make(engine, ev, j, flagged))
                .collect();
            Node {
                name: m.name.clone(),
                label: m.label.clone().unwrap_or_else(|| m.name.clone()),
                level: m.level.unwrap_or(1),
                area: m.area.clone(),
                value: r.and_then(|r| r.value),
                unit: m.domain,
                normalized: None,
                reason: r.and_then(|r| r.error.as_ref()).map(|e| Reason::of(e).labelled(engine)),
                threshold: m.threshold.clone(),
                threshold_value: m.threshold.as_deref().and_then(|t| simple_threshold(&m.name, t)),
                above_threshold: above,
                flagged,
                children,
            }
        }
        let mut roots: Vec<Node> = metrics
            .iter()
            .enumerate()
            .filter(|(_, m)| m.tma && !matches!(m.parent.as_deref(), Some(p) if is_node(p)))
            .map(|(i, _)| make(engine, ev, i, true))
            .collect();
        normalize(&mut roots);
        Tree { uarch: ev.uarch.clone(), roots }
    }

    /// A copy without the children of unflagged nodes (unless `all`): what a
    /// user should look at, per the hierarchical-safety property.
    pub fn pruned(&self, all: bool) -> Tree {
        fn prune(n: &Node, all: bool) -> Node {
            let mut c = n.clone();
            c.children = if all || n.flagged { n.children.iter().map(|k| prune(k, all)).collect() } else { Vec::new() };
            c
        }
        Tree { uarch: self.uarch.clone(), roots: self.roots.iter().map(|n| prune(n, all)).collect() }
    }

    /// From the top, repeatedly the flagged node with the largest normalized
    /// value among siblings (raw value where there is none); empty when no
    /// level-1 node is flagged.
    pub fn bottleneck_path(&self) -> Vec<&Node> {
        fn best(nodes: &[Node]) -> Option<&Node> {
            nodes.iter().filter(|n| n.flagged && n.value.is_some()).max_by(|a, b| a.share().total_cmp(&b.share()))
        }
        let mut path = Vec::new();
        let mut cur = best(&self.roots);
        while let Some(n) = cur {
            path.push(n);
            cur = best(&n.children);
        }
        path
    }

    /// The node with this name or label.
    pub fn find(&self, name: &str) -> Option<&Node> {
        fn find<'a>(nodes: &'a [Node], name: &str) -> Option<&'a Node> {
            nodes.iter().find_map(|n| {
                if n.name.eq_ignore_ascii_case(name) || n.label.eq_ignore_ascii_case(name) {
                    Some(n)
                } else {
                    find(&n.children, name)
                }
            })
        }
        find(&self.roots, name)
    }

    /// All nodes, depth-first, with their depth (0 for level-1 nodes).
    pub fn walk(&self) -> Vec<(usize, &Node)> {
        fn go<'a>(n: &'a Node, d: usize, out: &mut Vec<(usize, &'a Node)>) {
            out.push((d, n));
            n.children.iter().for_each(|c| go(c, d + 1, out));
        }
        let mut out = Vec::new();
        self.roots.iter().for_each(|r| go(r, 0, &mut out));
        out
    }

    /// The deepest level present.
    pub fn depth(&self) -> u32 {
        self.walk().iter().map(|(_, n)| n.level).max().unwrap_or(0)
    }
}

impl Node {
    /// The value to rank and draw by: normalized, else raw.
    pub fn share(&self) -> f64 {
        self.normalized.or(self.value).unwrap_or(0.0)
    }
}

/// Normalizes every node (see the module docs): level-1 nodes fit inside all
/// slots, as children of a virtual root in slots with value and share 1.
fn normalize(roots: &mut [Node]) {
    fit(roots, Some(Unit::Slots), Some(1.0), Some(1.0), None);
}

/// Step 1 and 2 of the module docs for one sibling group, then recursion.
/// `retired`: the normalized value of the level-1 ancestor (None at the top).
fn fit(nodes: &mut [Node], parent_unit: Option<Unit>, parent_value: Option<f64>, parent_share: Option<f64>, retired: Option<f64>) {
    let Some(frame) = parent_share else {
        nodes.iter_mut().for_each(|n| {
            n.normalized = None;
            fit(&mut n.children, n.unit.or(parent_unit), n.value, None, None);
        });
        return;
    };
    let parent_basis = parent_unit.map(Unit::basis);
    let share = |n: &Node| -> Option<f64> {
        let v = n.value?.max(0.0);
        let basis = n.unit.map(Unit::basis).or(parent_basis);
        Some(match basis {
            b if b == parent_basis => match parent_value {
                Some(pv) if pv > 0.0 => v * frame / pv,
                _ => 0.0,
            },
            Some(Basis::RetiredUops) => v * retired.unwrap_or(1.0),
            _ => v,
        })
    };
    let shares: Vec<Option<f64>> = nodes.iter().map(share).collect();
    let total: f64 = shares.iter().flatten().sum();
    let scale = if total > frame { frame / total } else { 1.0 };
    for (n, s) in nodes.iter_mut().zip(shares) {
        n.normalized = s.map(|s| s * scale);
        let retired = retired.or(n.normalized);
        fit(&mut n.children, n.unit.or(parent_unit), n.value, n.normalized, retired);
    }
}

impl fmt::Display for Tree {
    /// One line per node: indentation, label, value in percent with its unit,
    /// the normalized share of all slots, `<==` on flagged nodes.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (d, n) in self.walk() {
            let v = n.value.map(|v| format!("{:6.1}", v * 100.0)).unwrap_or_else(|| "   n/a".into());
            let unit = n.unit.map(|u| u.to_string()).unwrap_or_else(|| "%".into());
            let norm = n.normalized.map(|v| format!("{:5.1}% of slots", v * 100.0)).unwrap_or_default();
            writeln!(
                f,
                "{:indent$}{:<width$} {v} {unit:<13} {norm}{}",
                "",
                n.label,
                if n.flagged { "  <==" } else { "" },
                indent = d * 2,
                width = 36 - d * 2
            )?;
        }
        Ok(())
    }
}
