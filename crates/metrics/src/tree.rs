//! The Top-Down tree of an evaluation, with Yasin's hierarchical safety
//! (§3.1): a node is *flagged* only when its own threshold holds **and** its
//! parent is flagged, so a high child under an unflagged parent is ignored.

use crate::engine::{Evaluation, MetricEngine};
use crate::expr::{self, BinOp, Expr};
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
    /// The node's value (a fraction of slots/cycles for TMA nodes).
    pub value: Option<f64>,
    /// Why `value` is missing.
    pub reason: Option<String>,
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
                reason: r.and_then(|r| r.reason()),
                threshold: m.threshold.clone(),
                threshold_value: m.threshold.as_deref().and_then(|t| simple_threshold(&m.name, t)),
                above_threshold: above,
                flagged,
                children,
            }
        }
        let roots = metrics
            .iter()
            .enumerate()
            .filter(|(_, m)| m.tma && !matches!(m.parent.as_deref(), Some(p) if is_node(p)))
            .map(|(i, _)| make(engine, ev, i, true))
            .collect();
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

    /// From the top, repeatedly the flagged node with the largest value among
    /// siblings; empty when no level-1 node is flagged.
    pub fn bottleneck_path(&self) -> Vec<&Node> {
        fn best(nodes: &[Node]) -> Option<&Node> {
            nodes
                .iter()
                .filter(|n| n.flagged && n.value.is_some())
                .max_by(|a, b| a.value.unwrap().total_cmp(&b.value.unwrap()))
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

impl fmt::Display for Tree {
    /// One line per node: indentation, label, value in percent, `<==` on flagged nodes.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (d, n) in self.walk() {
            let v = n.value.map(|v| format!("{:6.1}%", v * 100.0)).unwrap_or_else(|| "    n/a".into());
            writeln!(f, "{:indent$}{:<width$} {v}{}", "", n.label, if n.flagged { "  <==" } else { "" }, indent = d * 2, width = 36 - d * 2)?;
        }
        Ok(())
    }
}
