//! Event references as they appear in formulas (`NAME:c1:e1`, `cpu@name\,cmask\=0x6@`)
//! and their normalized lookup key.
//!
//! The key is the lower-cased event name followed by its modifiers in canonical
//! form and order (`u0x..`, `cN`, `i1`, `e1`, `any`, then the others sorted):
//! `IDQ_UOPS_NOT_DELIVERED.CORE:e1:c1` and `idq_uops_not_delivered.core:cmask=1:edge`
//! both become `idq_uops_not_delivered.core:c1:e1`. The PMU prefix is kept aside
//! and is not part of the key (one engine serves one core type).

use crate::table::EventDef;
use std::fmt;

/// A reference to a named value in a formula: an event (with modifiers) or,
/// when the name matches a metric and has no modifiers, another metric.
#[derive(Clone, Debug, PartialEq)]
pub struct NameRef {
    /// PMU prefix of the `pmu@event@` form (`cpu_core`), if any other than `cpu`.
    pub pmu: Option<String>,
    /// The name as written (case preserved).
    pub name: String,
    /// Canonical modifiers (`c1`, `e1`, `u0xfc`, `sup`, ...).
    pub mods: Vec<String>,
    /// Normalized lookup key (see module docs).
    pub key: String,
}

impl NameRef {
    /// Builds a reference from a name and raw modifiers (any accepted spelling).
    pub fn new(pmu: Option<&str>, name: &str, raw_mods: &[String]) -> NameRef {
        let pmu = pmu
            .map(|p| p.to_ascii_lowercase())
            .filter(|p| !p.is_empty() && p != "cpu");
        let mut mods: Vec<String> = raw_mods.iter().filter_map(|m| canonical_modifier(m)).collect();
        mods.sort_by(|a, b| (modifier_rank(a), a.as_str()).cmp(&(modifier_rank(b), b.as_str())));
        mods.dedup();
        let key = make_key(name, &mods);
        NameRef { pmu, name: name.to_string(), mods, key }
    }

    /// A plain name without modifiers.
    pub fn plain(name: &str) -> NameRef {
        NameRef::new(None, name, &[])
    }

    /// True when there is neither a PMU prefix nor a modifier.
    pub fn is_plain(&self) -> bool {
        self.pmu.is_none() && self.mods.is_empty()
    }

    /// The cmask (counter mask) requested by a `cN` modifier.
    pub fn cmask(&self) -> Option<u32> {
        self.mods.iter().find_map(|m| m.strip_prefix('c').and_then(|v| v.parse().ok()))
    }

    /// A copy with another name (same modifiers), e.g. the canonical spelling.
    pub fn renamed(&self, name: &str) -> NameRef {
        let key = make_key(name, &self.mods);
        NameRef { pmu: self.pmu.clone(), name: name.to_string(), mods: self.mods.clone(), key }
    }
}

impl fmt::Display for NameRef {
    /// Prints the normalized syntax: `NAME:mod:mod`, the name quoted when it
    /// has characters outside `[A-Za-z0-9_.]`; perf's `pmu@NAME:mod@` with a
    /// PMU, or when a modifier is more than `key[=value]` (e.g. `@x,a b@`).
    /// Whatever the name and modifiers hold, the text parses back to the same
    /// reference.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let plain_mods = self.mods.iter().all(|m| is_plain_modifier(m));
        if self.pmu.is_none() && plain_mods {
            let simple = self.name.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
                && self.name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.');
            if simple {
                f.write_str(&self.name)?;
            } else if !self.name.contains('"') {
                write!(f, "\"{}\"", self.name)?;
            } else {
                // `\` escapes every character that is not a name character.
                for (i, c) in self.name.chars().enumerate() {
                    let keep = c.is_ascii_alphabetic() || c == '_' || (i > 0 && (c.is_ascii_digit() || c == '.'));
                    if !keep {
                        f.write_str("\\")?;
                    }
                    write!(f, "{c}")?;
                }
            }
            for m in &self.mods {
                write!(f, ":{m}")?;
            }
            return Ok(());
        }
        // perf's form. A PMU name is a name (escaped like one); inside `@...@`
        // only `@` and `\` need escaping, and modifiers are separated by `,`
        // when one holds something `:mod` cannot.
        if let Some(p) = &self.pmu {
            for (i, c) in p.chars().enumerate() {
                if !(c.is_ascii_alphabetic() || c == '_' || (i > 0 && c.is_ascii_digit())) {
                    f.write_str("\\")?;
                }
                write!(f, "{c}")?;
            }
        }
        let at_escaped = |f: &mut fmt::Formatter<'_>, s: &str| -> fmt::Result {
            for c in s.chars() {
                if c == '@' || c == '\\' {
                    f.write_str("\\")?;
                }
                write!(f, "{c}")?;
            }
            Ok(())
        };
        f.write_str("@")?;
        at_escaped(f, &self.name)?;
        let sep = if plain_mods { ":" } else { "," };
        for m in &self.mods {
            f.write_str(sep)?;
            at_escaped(f, m)?;
        }
        f.write_str("@")
    }
}

/// A modifier that the `NAME:mod` syntax can carry: `key` or `key=value`
/// with ASCII letters, digits and `_` (none in the value).
fn is_plain_modifier(m: &str) -> bool {
    let word = |s: &str, underscore: bool| s.chars().all(|c| c.is_ascii_alphanumeric() || (underscore && c == '_'));
    match m.split_once('=') {
        Some((k, v)) => !k.is_empty() && word(k, true) && word(v, false),
        None => !m.is_empty() && word(m, true),
    }
}

/// The normalized key for an event written in any accepted form
/// (`"INST_RETIRED.ANY"`, `"uops_executed.core:c1"`, `"cpu@x\\,cmask\\=2@"`).
/// Returns `None` when the text is not a single event reference.
pub fn event_key(text: &str) -> Option<String> {
    match crate::expr::parse(text).ok()? {
        crate::expr::Expr::Name(n) => Some(n.key),
        _ => None,
    }
}

fn make_key(name: &str, mods: &[String]) -> String {
    let mut key = name.to_ascii_lowercase();
    for m in mods {
        key.push(':');
        key.push_str(m);
    }
    key
}

fn modifier_rank(m: &str) -> u8 {
    if m.starts_with("u0x") {
        0
    } else if m.starts_with('c') && m[1..].chars().all(|c| c.is_ascii_digit()) && m.len() > 1 {
        1
    } else if m == "i1" {
        2
    } else if m == "e1" {
        3
    } else if m == "any" {
        4
    } else {
        5
    }
}

fn parse_num(v: &str) -> Option<u64> {
    let v = v.trim();
    if let Some(h) = v.strip_prefix("0x").or_else(|| v.strip_prefix("0X")) {
        u64::from_str_radix(h, 16).ok()
    } else {
        v.parse().ok()
    }
}

/// Canonical spelling of one modifier; `None` drops it (e.g. `inv=0`).
fn canonical_modifier(raw: &str) -> Option<String> {
    let m = raw.trim().to_ascii_lowercase();
    let (k, v) = match m.split_once('=') {
        Some((k, v)) => (k.trim().to_string(), Some(v.trim().to_string())),
        None => (m.clone(), None),
    };
    let flag = |v: &Option<String>| v.as_deref().map(|v| parse_num(v).unwrap_or(1) != 0).unwrap_or(true);
    match (k.as_str(), &v) {
        ("cmask" | "c", Some(v)) => parse_num(v).and_then(|n| (n != 0).then(|| format!("c{n}"))),
        ("inv" | "i", _) => flag(&v).then(|| "i1".to_string()),
        ("edge" | "e", _) => flag(&v).then(|| "e1".to_string()),
        ("any" | "t", _) => flag(&v).then(|| "any".to_string()),
        ("umask", Some(v)) => parse_num(v).map(|n| format!("u0x{n:x}")),
        ("k" | "sup", None) => Some("sup".into()),
        ("u" | "user", None) => Some("user".into()),
        // An empty modifier (`@EVENT:@`, `cpu/EVENT,,/`) says nothing.
        ("", None) => None,
        (_, None) => {
            // Short forms: c1, i1, e0, u0xfc. (`k` may start with any
            // character: split after the first one, not after its first byte.)
            let mut chars = k.chars();
            let head = chars.next()?;
            let tail = chars.as_str();
            match head {
                'c' if !tail.is_empty() && tail.chars().all(|c| c.is_ascii_digit()) => {
                    let n: u64 = tail.parse().ok()?;
                    (n != 0).then(|| format!("c{n}"))
                }
                'i' | 'e' if tail == "0" || tail == "1" => (tail == "1").then(|| format!("{head}1")),
                'u' if tail.starts_with("0x") => parse_num(tail).map(|n| format!("u0x{n:x}")),
                _ => Some(k),
            }
        }
        (_, Some(v)) => Some(format!("{k}={v}")),
    }
}

/// An event a metric needs, with its encoding when the table knows it
/// (formula modifiers such as `:c1` applied to the encoding).
#[derive(Clone, Debug, PartialEq)]
pub struct EventSpec {
    /// Normalized key, as used by [`Counts`].
    pub key: String,
    /// The name as spelled in the table (canonical case).
    pub name: String,
    /// PMU of the event (`cpu_core`), from the formula or the table.
    pub pmu: Option<String>,
    /// Canonical modifiers from the formula (`c1`, `e1`, `sup`, ...).
    pub modifiers: Vec<String>,
    /// Encoding from the table with the modifiers applied; `None` for events the
    /// table does not describe (`TSC`, generic perf events, uncore).
    pub def: Option<EventDef>,
}

impl EventSpec {
    /// Whether the table describes this event.
    pub fn is_known(&self) -> bool {
        self.def.is_some()
    }

    /// A raw encoding in perf's `event=..,umask=..[,cmask=N][,inv][,edge][,any]` form.
    pub fn encoding(&self) -> Option<String> {
        let d = self.def.as_ref()?;
        let code = d.code.as_deref()?.split(',').next()?.trim().to_ascii_lowercase();
        let mut s = format!("event={code}");
        if let Some(u) = &d.umask {
            s.push_str(&format!(",umask={}", u.to_ascii_lowercase()));
        }
        if d.cmask != 0 {
            s.push_str(&format!(",cmask={}", d.cmask));
        }
        for (on, name) in [(d.inv, "inv"), (d.edge, "edge"), (d.any_thread, "any")] {
            if on {
                s.push(',');
                s.push_str(name);
            }
        }
        Some(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(name: &str, mods: &[&str]) -> String {
        NameRef::new(None, name, &mods.iter().map(|s| s.to_string()).collect::<Vec<_>>()).key
    }

    #[test]
    fn modifiers_are_canonical() {
        assert_eq!(key("ICACHE_16B.IFDATA_STALL", &["e1", "c1"]), "icache_16b.ifdata_stall:c1:e1");
        assert_eq!(key("x", &["cmask=0x6"]), "x:c6");
        assert_eq!(key("x", &["inv", "cmask=1"]), "x:c1:i1");
        assert_eq!(key("x", &["i1", "c1"]), "x:c1:i1");
        assert_eq!(key("x", &["SUP"]), "x:sup");
        assert_eq!(key("x", &["u0xFC"]), "x:u0xfc");
        assert_eq!(key("x", &["umask=0x80"]), "x:u0x80");
        assert_eq!(key("x", &["inv=0", "c0"]), "x");
        assert_eq!(key("x", &["ocr_msr_val=0x103B800002"]), "x:ocr_msr_val=0x103b800002");
    }

    #[test]
    fn event_key_accepts_all_spellings() {
        assert_eq!(event_key("UOPS_EXECUTED.CORE:c1").unwrap(), "uops_executed.core:c1");
        assert_eq!(
            event_key(r"cpu@de_no_dispatch_per_slot.no_ops_from_frontend\,cmask\=0x6@").unwrap(),
            "de_no_dispatch_per_slot.no_ops_from_frontend:c6"
        );
        assert_eq!(event_key("cpu_core@INST_RETIRED.ANY@").unwrap(), "inst_retired.any");
        assert!(event_key("a + b").is_none());
    }
}
