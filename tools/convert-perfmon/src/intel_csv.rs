//! `TMA_Metrics-full.csv`: one row per node/metric/auxiliary, one column per
//! uarch (an empty cell inherits from the nearest non-empty cell to its right,
//! i.e. the older generation; `#NA` means absent). Used for Ivy Bridge, which
//! has no metrics JSON, and to cross-check the JSON trees.
//!
//! Translation: node names → `tma_<name>`, `Info.X` metrics → `tma_info_x_<name>`,
//! `#Aux` rows are inlined (their own per-column formulas), `##Node` is the
//! sum of the node's present children, `#SMT_on` → `#smt_on`, `#EBS_Mode` and
//! `#PERF_METRICS_MSR` → 0, events get the events file's spelling (`_PS`
//! dropped). Thresholds: `> 0.1 & P` → `tma_x > 0.1` (P, the parent, is the
//! tree's business), a bare node name means that node's own condition, `#Aux`
//! that auxiliary's; `; $issue...` tags are dropped.

use crate::canon::{constant, intel_metric_name, Canon};
use crate::util::{parse_csv, parse_ctx, short_desc, simplify};
use anyhow::{anyhow, bail, Context, Result};
use bottlenose_metrics::expr::{BinOp, Expr};
use bottlenose_metrics::table::MetricDef;
use bottlenose_metrics::{NameRef, Unit};
use std::collections::{BTreeSet, HashMap, HashSet};
use std::path::Path;

#[derive(Clone, Debug, PartialEq)]
enum Kind {
    Node,
    Info,
    Bottleneck,
    Aux,
}

#[derive(Clone, Debug)]
struct Row {
    kind: Kind,
    area: String,
    /// The name as written (without `#` for aux rows).
    name: String,
    /// Our metric name.
    ours: String,
    depth: usize,
    parent: Option<String>,
    cells: Vec<String>,
    threshold: String,
    desc: String,
    groups: String,
    /// The `Count Domain` cell (`Slots`, `Clocks_Estimated` ...).
    domain: String,
}

/// The parsed spreadsheet.
pub struct Csv {
    rows: Vec<Row>,
    columns: Vec<String>,
    /// Columns marked `Server` in the spreadsheet's second row.
    server: Vec<bool>,
    /// The version cell of the first row (`5.2-full`).
    pub version: String,
}

impl Csv {
    /// Reads the spreadsheet.
    pub fn load(path: &Path) -> Result<Csv> {
        let text = std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
        let table = parse_csv(&text);
        let hdr_i = table.iter().position(|r| r.first().map(String::as_str) == Some("Key")).ok_or_else(|| anyhow!("no Key header row"))?;
        let hdr = &table[hdr_i];
        let col = |name: &str| hdr.iter().position(|h| h == name).ok_or_else(|| anyhow!("no column {name}"));
        let first_col = col("Level6")? + 1;
        let last_col = col("Locate-with").or_else(|_| col("Count Domain"))?;
        let (thr, desc, grp, dom) = (col("Threshold")?, col("Metric Description")?, col("Metric Group")?, col("Count Domain")?);
        let version = table.first().and_then(|r| r.get(2)).cloned().unwrap_or_default();
        let mut rows = Vec::new();
        let mut stack: Vec<String> = Vec::new();
        for r in &table[hdr_i + 1..] {
            let key = r.first().map(|k| k.trim().to_string()).unwrap_or_default();
            let Some((depth, raw)) = (1..=6).find_map(|d| r.get(d).map(|c| c.trim()).filter(|c| !c.is_empty()).map(|c| (d, c.to_string()))) else {
                continue;
            };
            if key == "." {
                continue;
            }
            let kind = match key.as_str() {
                "Aux" => Kind::Aux,
                "Bottleneck" => Kind::Bottleneck,
                k if k.starts_with("Info") => Kind::Info,
                _ => Kind::Node,
            };
            let name = raw.trim_start_matches('#').to_string();
            let ours = match kind {
                Kind::Node => intel_metric_name(&name, true),
                Kind::Info => intel_metric_name(&format!("{}_{}", key.replace('.', "_"), name), true),
                Kind::Bottleneck => intel_metric_name(&format!("Bottleneck_{name}"), true),
                Kind::Aux => name.to_ascii_lowercase(),
            };
            let parent = if kind == Kind::Node {
                stack.truncate(depth - 1);
                let p = stack.last().cloned();
                stack.push(ours.clone());
                p
            } else {
                None
            };
            let get = |i: usize| r.get(i).map(|c| c.trim().to_string()).unwrap_or_default();
            rows.push(Row {
                kind,
                area: key.clone(),
                name,
                ours,
                depth,
                parent,
                cells: (first_col..last_col).map(get).collect(),
                threshold: get(thr),
                desc: get(desc),
                groups: get(grp),
                domain: get(dom),
            });
        }
        let marks = table.get(1).cloned().unwrap_or_default();
        let server = (first_col..last_col).map(|i| marks.get(i).is_some_and(|m| m.trim() == "Server")).collect();
        Ok(Csv { rows, columns: hdr[first_col..last_col].to_vec(), server, version })
    }

    /// Index of a uarch column (`SKL/KBL`, `IVB`).
    pub fn column(&self, name: &str) -> Result<usize> {
        self.columns.iter().position(|c| c == name).ok_or_else(|| anyhow!("no uarch column {name} (have {})", self.columns.join(", ")))
    }

    /// The cell of `row` for `col`: an empty cell inherits from the nearest
    /// non-empty cell to its right; a client column does not inherit from
    /// server columns (server-only nodes such as Remote_MEM).
    fn value(&self, row: &Row, col: usize) -> Option<String> {
        let client = !self.server[col];
        let v = (col..row.cells.len()).filter(|&i| i == col || !(client && self.server[i])).map(|i| &row.cells[i]).find(|c| !c.is_empty())?;
        (v != "#NA" && v != "N/A").then(|| v.clone())
    }

    /// The tree nodes present in a column (our names), parents before children.
    pub fn node_names(&self, col: usize) -> BTreeSet<String> {
        let mut present = BTreeSet::new();
        for r in self.rows.iter().filter(|r| r.kind == Kind::Node) {
            if self.value(r, col).is_some() && !matches!(&r.parent, Some(p) if !present.contains(p)) {
                present.insert(r.ours.clone());
            }
        }
        present
    }

    /// Converts one column into metrics (tree nodes and Info metrics).
    pub fn convert(&self, col: usize, canon: &Canon, notes: &mut Vec<String>) -> Result<Vec<MetricDef>> {
        let mut present: HashSet<String> = self
            .rows
            .iter()
            .filter(|r| matches!(r.kind, Kind::Node | Kind::Info | Kind::Bottleneck) && self.value(r, col).is_some())
            .map(|r| r.ours.clone())
            .collect();
        // Children need their parent.
        for r in self.rows.iter().filter(|r| r.kind == Kind::Node) {
            if r.parent.as_ref().is_some_and(|p| !present.contains(p)) {
                present.remove(&r.ours);
            }
        }
        for _ in 0..16 {
            let mut failed = Vec::new();
            for r in self.rows.iter().filter(|r| present.contains(&r.ours)) {
                let mut tx = Tx { csv: self, col, canon, present: &present, stack: Vec::new() };
                if let Err(e) = tx.expr(&self.value(r, col).unwrap_or_default()) {
                    failed.push((r.ours.clone(), e));
                }
            }
            if failed.is_empty() {
                break;
            }
            for (n, e) in failed {
                notes.push(format!("{}: {n} not converted: {e}", self.columns[col]));
                present.remove(&n);
                // Drop the subtree as well.
                for r in self.rows.iter().filter(|r| r.parent.as_deref() == Some(n.as_str())) {
                    present.remove(&r.ours);
                }
            }
        }
        let mut out = Vec::new();
        for r in self.rows.iter().filter(|r| present.contains(&r.ours)) {
            let mut tx = Tx { csv: self, col, canon, present: &present, stack: Vec::new() };
            let expr = simplify(tx.expr(&self.value(r, col).unwrap_or_default())?);
            let threshold = match tx.threshold(r, &Expr::Name(NameRef::plain(&r.ours))) {
                Ok(t) => t.map(|t| simplify(t).to_string()),
                Err(e) => {
                    notes.push(format!("{}: threshold of {} dropped: {e}", self.columns[col], r.ours));
                    None
                }
            };
            let node = r.kind == Kind::Node;
            out.push(MetricDef {
                name: r.ours.clone(),
                label: Some(match r.kind {
                    Kind::Info => format!("{}_{}", r.area.trim().replace('.', "_"), r.name),
                    _ => r.name.clone(),
                }),
                expr: expr.to_string(),
                unit: node.then(|| "100%".to_string()),
                domain: if node {
                    let u = Unit::from_name(&r.domain);
                    if u.is_none() {
                        notes.push(format!("{}: count domain '{}' is not a node unit", r.ours, r.domain));
                    }
                    u
                } else {
                    None
                },
                desc: short_desc(&r.desc),
                groups: r.groups.split(';').map(str::trim).filter(|g| !g.is_empty()).map(str::to_string).collect(),
                tma: node,
                level: node.then_some(r.depth as u32),
                parent: r.parent.clone(),
                area: node.then(|| r.area.clone()),
                threshold,
            });
        }
        Ok(out)
    }

    fn find(&self, name: &str) -> Option<&Row> {
        let lower = name.to_ascii_lowercase();
        self.rows
            .iter()
            .find(|r| r.kind != Kind::Aux && r.name == name)
            .or_else(|| self.rows.iter().find(|r| r.kind != Kind::Aux && r.name.to_ascii_lowercase() == lower))
    }

    fn aux(&self, name: &str) -> Option<&Row> {
        let lower = name.to_ascii_lowercase();
        self.rows.iter().find(|r| r.kind == Kind::Aux && r.ours == lower)
    }
}

struct Tx<'a> {
    csv: &'a Csv,
    col: usize,
    canon: &'a Canon,
    present: &'a HashSet<String>,
    stack: Vec<String>,
}

impl Tx<'_> {
    fn expr(&mut self, text: &str) -> Result<Expr> {
        let text = text.replace("##", "__children__");
        let e = parse_ctx(&text, "cell")?;
        self.rewrite(e)
    }

    fn rewrite(&mut self, e: Expr) -> Result<Expr> {
        Ok(match e {
            Expr::Name(n) => self.name(n)?,
            Expr::Const(c) => self.constant(&c)?,
            Expr::Unary(op, a) => Expr::Unary(op, Box::new(self.rewrite(*a)?)),
            Expr::Binary(op, a, b) => Expr::Binary(op, Box::new(self.rewrite(*a)?), Box::new(self.rewrite(*b)?)),
            Expr::If(a, c, b) => Expr::If(Box::new(self.rewrite(*a)?), Box::new(self.rewrite(*c)?), Box::new(self.rewrite(*b)?)),
            Expr::Call(f, args) => Expr::Call(f, args.into_iter().map(|a| self.rewrite(a)).collect::<Result<_>>()?),
            other => other,
        })
    }

    fn constant(&mut self, c: &str) -> Result<Expr> {
        match c {
            "smt_on" => return Ok(Expr::Const("smt_on".into())),
            "ebs_mode" => return Ok(Expr::Num(0.0)),
            // The PERF_METRICS MSR exists from Ice Lake on (TOPDOWN.SLOTS is its fixed counter).
            "perf_metrics_msr" => return Ok(Expr::Num(if self.canon.known("TOPDOWN.SLOTS") { 1.0 } else { 0.0 })),
            _ => {}
        }
        if let Some(e) = constant(c).filter(|_| c == "durationtimeinseconds") {
            return Ok(e);
        }
        self.inline_aux(c)
    }

    fn inline_aux(&mut self, name: &str) -> Result<Expr> {
        let row = self.csv.aux(name).ok_or_else(|| anyhow!("unknown auxiliary #{name}"))?;
        let v = self.csv.value(row, self.col).ok_or_else(|| anyhow!("auxiliary #{} absent", row.name))?;
        if self.stack.contains(&row.ours) || self.stack.len() > 24 {
            bail!("auxiliary cycle at #{}", row.name);
        }
        self.stack.push(row.ours.clone());
        let e = self.expr(&v);
        self.stack.pop();
        e
    }

    fn name(&mut self, n: NameRef) -> Result<Expr> {
        if !n.is_plain() {
            return Ok(Expr::Name(self.canon.event(&n, &HashMap::new(), true)));
        }
        if let Some(node) = n.name.strip_prefix("__children__") {
            let parent = intel_metric_name(node, true);
            let kids: Vec<Expr> = self
                .csv
                .rows
                .iter()
                .filter(|r| r.parent.as_deref() == Some(parent.as_str()) && self.present.contains(&r.ours))
                .map(|r| Expr::Name(NameRef::plain(&r.ours)))
                .collect();
            return kids
                .into_iter()
                .reduce(|a, b| Expr::Binary(BinOp::Add, Box::new(a), Box::new(b)))
                .ok_or_else(|| anyhow!("##{node} has no children here"));
        }
        match n.name.as_str() {
            "Num_CPUs" => return Ok(Expr::Const("num_cpus".into())),
            "DurationTimeInMilliSeconds" => return Ok(constant("durationtimeinmilliseconds").unwrap()),
            "TSC" => return Ok(Expr::Name(NameRef::plain("TSC"))),
            _ => {}
        }
        if let Some(r) = self.csv.find(&n.name) {
            if !self.present.contains(&r.ours) {
                bail!("{} absent", r.name);
            }
            return Ok(Expr::Name(NameRef::plain(&r.ours)));
        }
        if self.csv.aux(&n.name).is_some() {
            return self.inline_aux(&n.name);
        }
        if !n.name.contains('.') && !self.canon.known(&n.name) && !n.name.starts_with("UNC_") {
            bail!("unknown name {}", n.name);
        }
        Ok(Expr::Name(self.canon.event(&n, &HashMap::new(), true)))
    }

    /// Translates a row's threshold cell into a condition on `subject`.
    fn threshold(&mut self, row: &Row, subject: &Expr) -> Result<Option<Expr>> {
        let text = row.threshold.split(';').next().unwrap_or("").trim().to_string();
        if text.is_empty() {
            return Ok(None);
        }
        let text = strip_outer_parens(&text);
        let mut out: Option<Expr> = None;
        let mut pending_op = BinOp::And;
        for (op, part) in split_top(&text) {
            let part = part.trim();
            let cond = if part == "P" {
                None
            } else if let Some((cmp, rest)) = comparison(part) {
                Some(Expr::Binary(cmp, Box::new(subject.clone()), Box::new(self.expr(rest)?)))
            } else if let Some(aux) = part.strip_prefix('#') {
                let r = self.csv.aux(aux).ok_or_else(|| anyhow!("unknown auxiliary #{aux}"))?.clone();
                let e = self.inline_aux(aux)?;
                self.threshold(&r, &e)?
            } else if let Some(r) = self.csv.find(part).cloned() {
                if self.present.contains(&r.ours) {
                    self.threshold(&r, &Expr::Name(NameRef::plain(&r.ours)))?
                } else {
                    None
                }
            } else {
                bail!("cannot read threshold part `{part}`");
            };
            if let Some(op) = op {
                pending_op = op;
            }
            if let Some(c) = cond {
                out = Some(match out {
                    None => c,
                    Some(prev) => Expr::Binary(pending_op, Box::new(prev), Box::new(c)),
                });
            }
        }
        Ok(out)
    }
}

fn comparison(part: &str) -> Option<(BinOp, &str)> {
    [(">=", BinOp::Ge), ("<=", BinOp::Le), ("==", BinOp::Eq), (">", BinOp::Gt), ("<", BinOp::Lt)]
        .into_iter()
        .find_map(|(p, op)| part.strip_prefix(p).map(|rest| (op, rest.trim())))
}

fn strip_outer_parens(t: &str) -> String {
    let t = t.trim();
    if t.starts_with('(') && t.ends_with(')') {
        let mut depth = 0;
        for (i, c) in t.char_indices() {
            match c {
                '(' => depth += 1,
                ')' => {
                    depth -= 1;
                    if depth == 0 && i != t.len() - 1 {
                        return t.to_string();
                    }
                }
                _ => {}
            }
        }
        return strip_outer_parens(&t[1..t.len() - 1]);
    }
    t.to_string()
}

/// Splits at top-level `&`/`|`: (operator before the part, part).
fn split_top(t: &str) -> Vec<(Option<BinOp>, String)> {
    let mut out = Vec::new();
    let mut depth = 0;
    let mut cur = String::new();
    let mut op = None;
    for c in t.chars() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            '&' | '|' if depth == 0 => {
                out.push((op, std::mem::take(&mut cur)));
                op = Some(if c == '&' { BinOp::And } else { BinOp::Or });
                continue;
            }
            _ => {}
        }
        cur.push(c);
    }
    out.push((op, cur));
    out
}
