//! Small helpers: JSON/CSV reading, short descriptions, expression rewriting.

use anyhow::{Context, Result};
use bottlenose_metrics::expr::{self, BinOp, Expr};
use std::path::Path;

/// Reads and parses a JSON file.
pub fn read_json(path: &Path) -> Result<serde_json::Value> {
    let text = std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    serde_json::from_str(&text).with_context(|| format!("parsing {}", path.display()))
}

/// A string field of a JSON object (empty → None).
pub fn s(v: &serde_json::Value, key: &str) -> Option<String> {
    v.get(key).and_then(|x| x.as_str()).map(str::trim).filter(|x| !x.is_empty()).map(str::to_string)
}

/// First sentence of a description, at most ~100 characters, on one line.
pub fn short_desc(d: &str) -> Option<String> {
    let d = d.split_whitespace().collect::<Vec<_>>().join(" ");
    if d.is_empty() {
        return None;
    }
    let mut cut = d.len();
    // End of the first sentence (not at an abbreviation such as "e.g.").
    if let Some((i, _)) = d.match_indices(". ").find(|(i, _)| {
        let before = &d[..*i];
        !["e.g", "i.e", "etc", "vs", "approx"].iter().any(|a| before.ends_with(a))
    }) {
        cut = i + 1;
    }
    let mut out = d[..cut].trim_end_matches('.').to_string();
    if out.len() > 100 {
        let mut end = 97;
        while !out.is_char_boundary(end) {
            end -= 1;
        }
        let at = out[..end].rfind(' ').unwrap_or(end);
        out.truncate(at);
        out.push_str("...");
    }
    Some(out)
}

/// RFC-4180 CSV (quoted fields, doubled quotes, newlines inside quotes).
pub fn parse_csv(text: &str) -> Vec<Vec<String>> {
    let mut rows = Vec::new();
    let mut row = Vec::new();
    let mut field = String::new();
    let mut quoted = false;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if quoted {
            if c == '"' {
                if chars.peek() == Some(&'"') {
                    chars.next();
                    field.push('"');
                } else {
                    quoted = false;
                }
            } else {
                field.push(c);
            }
            continue;
        }
        match c {
            '"' => quoted = true,
            ',' => row.push(std::mem::take(&mut field)),
            '\r' => {}
            '\n' => {
                row.push(std::mem::take(&mut field));
                rows.push(std::mem::take(&mut row));
            }
            c => field.push(c),
        }
    }
    if !field.is_empty() || !row.is_empty() {
        row.push(field);
        rows.push(row);
    }
    rows
}

/// Folds `(x * 100) OP k` into `x OP k/100` and `a if 0 else b` into `b`.
pub fn simplify(e: Expr) -> Expr {
    match e {
        Expr::Binary(op, a, b) => {
            let (a, b) = (simplify(*a), simplify(*b));
            let is_cmp = matches!(op, BinOp::Gt | BinOp::Lt | BinOp::Ge | BinOp::Le);
            if let (true, Expr::Binary(BinOp::Mul, x, h), Expr::Num(k)) = (is_cmp, &a, &b) {
                if **h == Expr::Num(100.0) {
                    return Expr::Binary(op, x.clone(), Box::new(Expr::Num(round(k / 100.0))));
                }
            }
            Expr::Binary(op, Box::new(a), Box::new(b))
        }
        Expr::If(t, c, e) => match simplify(*c) {
            Expr::Num(v) => simplify(if v != 0.0 { *t } else { *e }),
            c => Expr::If(Box::new(simplify(*t)), Box::new(c), Box::new(simplify(*e))),
        },
        Expr::Unary(op, a) => Expr::Unary(op, Box::new(simplify(*a))),
        Expr::Call(f, args) => Expr::Call(f, args.into_iter().map(simplify).collect()),
        other => other,
    }
}

fn round(v: f64) -> f64 {
    (v * 1e9).round() / 1e9
}

/// The top-level `&` operands of a condition.
pub fn conjuncts(e: Expr) -> Vec<Expr> {
    match e {
        Expr::Binary(BinOp::And, a, b) => {
            let mut v = conjuncts(*a);
            v.extend(conjuncts(*b));
            v
        }
        e => vec![e],
    }
}

/// Joins conditions with `&`.
pub fn and_all(parts: Vec<Expr>) -> Option<Expr> {
    parts.into_iter().reduce(|a, b| Expr::Binary(BinOp::And, Box::new(a), Box::new(b)))
}

/// The plain names referenced by an expression.
pub fn names_of(e: &Expr) -> Vec<String> {
    let mut v = Vec::new();
    e.visit_names(&mut |n| v.push(n.key.clone()));
    v
}

/// Parses with a context message.
pub fn parse_ctx(src: &str, what: &str) -> Result<Expr> {
    expr::parse(src).map_err(|e| anyhow::anyhow!("{what}: {e} in `{src}`"))
}
