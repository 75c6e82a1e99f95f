//! CPU identifier → microarchitecture, from the perfmon/perf mapfiles
//! (`GenuineIntel-6-55-[01234]` → `skx`, `AuthenticAMD-25-...` → `zen3`/`zen4`,
//! family 1Ah → `zen5`). Patterns are POSIX-style regular expressions; a small
//! matcher for the subset they use (literals, `.`, `[...]` with ranges and
//! `[:xdigit:]`, groups with `|`, `* + ?`) lives here.

use serde::{Deserialize, Serialize};
use std::sync::OnceLock;

/// One mapping rule; the first matching rule wins.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct CpuidRule {
    /// Regular expression over `Vendor-Family-Model[-Stepping]` (family decimal, model hex).
    pub pattern: String,
    /// The table id (`skl`), or the mapfile's name for parts without a table.
    pub uarch: String,
    /// Hybrid core type (`Core`, `Atom`) when the pattern covers a hybrid part.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub core_type: Option<String>,
    /// False for parts without a table (kept so that a broader later pattern
    /// does not capture their ids).
    #[serde(default = "yes")]
    pub shipped: bool,
    /// Where the rule came from (mapfile path, or `converter` for added knowledge).
    pub source: String,
}

fn yes() -> bool {
    true
}

/// The mapping file: rules plus provenance notes.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct CpuidMap {
    /// Rules in match order.
    pub rules: Vec<CpuidRule>,
    #[serde(default)]
    /// Provenance notes.
    pub notes: Vec<String>,
}

/// The embedded rules.
pub fn rules() -> &'static [CpuidRule] {
    static MAP: OnceLock<CpuidMap> = OnceLock::new();
    &MAP.get_or_init(|| serde_json::from_str(crate::table::CPUID_JSON).expect("embedded cpuid.json is valid")).rules
}

/// Formats a CPU identifier the way the mapfiles expect:
/// `GenuineIntel-6-8F`, `GenuineIntel-6-55-4`, `AuthenticAMD-25-61`.
pub fn cpuid_string(vendor: &str, family: u32, model: u32, stepping: Option<u32>) -> String {
    match stepping {
        Some(s) => format!("{vendor}-{family}-{model:X}-{s:X}"),
        None => format!("{vendor}-{family}-{model:X}"),
    }
}

/// The uarch for a CPU identifier, using the embedded rules.
/// An identifier with a stepping also matches stepping-less patterns.
pub fn uarch_for_cpuid(id: &str) -> Option<&'static str> {
    uarch_in(rules(), id)
}

/// The uarch for a CPU identifier under the given rules (`None` when the first
/// matching rule is for a part without a table).
pub fn uarch_in<'r>(rules: &'r [CpuidRule], id: &str) -> Option<&'r str> {
    let without_stepping = {
        let parts: Vec<&str> = id.split('-').collect();
        (parts.len() == 4).then(|| parts[..3].join("-"))
    };
    let core_first = rules.iter().filter(|r| r.core_type.as_deref() != Some("Atom"));
    for r in core_first {
        let Some(re) = Regex::new(&r.pattern) else { continue };
        if re.is_match(id) || without_stepping.as_deref().is_some_and(|s| re.is_match(s)) {
            return r.shipped.then_some(r.uarch.as_str());
        }
    }
    None
}

#[derive(Debug, Clone)]
enum Node {
    Char(char),
    Any,
    Class(Vec<(char, char)>, bool),
    Group(Vec<Vec<Node>>),
    Repeat(Box<Node>, usize, usize),
}

/// A compiled pattern (full-string match).
#[derive(Debug, Clone)]
pub struct Regex(Vec<Node>);

impl Regex {
    /// Compiles `pat`; `None` for unsupported syntax.
    pub fn new(pat: &str) -> Option<Regex> {
        let chars: Vec<char> = pat.chars().collect();
        let mut i = 0;
        let alts = parse_alts(&chars, &mut i)?;
        if i != chars.len() {
            return None;
        }
        Some(Regex(vec![Node::Group(alts)]))
    }

    /// True when the whole of `s` matches.
    pub fn is_match(&self, s: &str) -> bool {
        let s: Vec<char> = s.chars().collect();
        match_seq(&self.0, &s, 0, &mut |p| p == s.len())
    }
}

fn parse_alts(c: &[char], i: &mut usize) -> Option<Vec<Vec<Node>>> {
    let mut alts = vec![Vec::new()];
    while *i < c.len() {
        let node = match c[*i] {
            ')' => break,
            '|' => {
                *i += 1;
                alts.push(Vec::new());
                continue;
            }
            '(' => {
                *i += 1;
                let g = parse_alts(c, i)?;
                if c.get(*i) != Some(&')') {
                    return None;
                }
                *i += 1;
                Node::Group(g)
            }
            '[' => parse_class(c, i)?,
            '.' => {
                *i += 1;
                Node::Any
            }
            '\\' => {
                *i += 2;
                Node::Char(*c.get(*i - 1)?)
            }
            ch => {
                *i += 1;
                Node::Char(ch)
            }
        };
        let node = match c.get(*i) {
            Some('*') => Node::Repeat(Box::new(node), 0, usize::MAX),
            Some('+') => Node::Repeat(Box::new(node), 1, usize::MAX),
            Some('?') => Node::Repeat(Box::new(node), 0, 1),
            _ => {
                alts.last_mut()?.push(node);
                continue;
            }
        };
        *i += 1;
        alts.last_mut()?.push(node);
    }
    Some(alts)
}

fn parse_class(c: &[char], i: &mut usize) -> Option<Node> {
    *i += 1;
    let neg = c.get(*i) == Some(&'^');
    if neg {
        *i += 1;
    }
    let mut ranges = Vec::new();
    let mut first = true;
    loop {
        let ch = *c.get(*i)?;
        if ch == ']' && !first {
            *i += 1;
            break;
        }
        first = false;
        if ch == '[' && c.get(*i + 1) == Some(&':') {
            let rest: String = c[*i..].iter().collect();
            let end = rest.find(":]")?;
            match &rest[2..end] {
                "xdigit" => ranges.extend([('0', '9'), ('a', 'f'), ('A', 'F')]),
                "digit" => ranges.push(('0', '9')),
                "alpha" => ranges.extend([('a', 'z'), ('A', 'Z')]),
                "alnum" => ranges.extend([('0', '9'), ('a', 'z'), ('A', 'Z')]),
                _ => return None,
            }
            *i += end + 2;
        } else if c.get(*i + 1) == Some(&'-') && c.get(*i + 2).is_some_and(|e| *e != ']') {
            ranges.push((ch, c[*i + 2]));
            *i += 3;
        } else {
            ranges.push((ch, ch));
            *i += 1;
        }
    }
    Some(Node::Class(ranges, neg))
}

fn match_one(n: &Node, s: &[char], p: usize, k: &mut dyn FnMut(usize) -> bool) -> bool {
    match n {
        Node::Char(ch) => s.get(p) == Some(ch) && k(p + 1),
        Node::Any => p < s.len() && k(p + 1),
        Node::Class(r, neg) => {
            s.get(p).is_some_and(|ch| r.iter().any(|(a, b)| (a..=b).contains(&ch)) != *neg) && k(p + 1)
        }
        Node::Group(alts) => alts.iter().any(|seq| match_seq(seq, s, p, k)),
        Node::Repeat(inner, min, max) => match_repeat(inner, *min, *max, s, p, k),
    }
}

fn match_repeat(n: &Node, min: usize, max: usize, s: &[char], p: usize, k: &mut dyn FnMut(usize) -> bool) -> bool {
    // Greedy: try one more repetition first (guarding against empty loops).
    if max > 0 && match_one(n, s, p, &mut |q| q > p && match_repeat(n, min.saturating_sub(1), max - 1, s, q, k)) {
        return true;
    }
    min == 0 && k(p)
}

fn match_seq(seq: &[Node], s: &[char], p: usize, k: &mut dyn FnMut(usize) -> bool) -> bool {
    match seq.split_first() {
        None => k(p),
        Some((first, rest)) => match_one(first, s, p, &mut |q| match_seq(rest, s, q, k)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn regex_subset() {
        let re = |p: &str, s: &str| Regex::new(p).unwrap().is_match(s);
        assert!(re("GenuineIntel-6-(4E|5E|8E|9E|A5|A6)", "GenuineIntel-6-9E"));
        assert!(!re("GenuineIntel-6-(4E|5E)", "GenuineIntel-6-4E-3"));
        assert!(re("GenuineIntel-6-55-[01234]", "GenuineIntel-6-55-4"));
        assert!(!re("GenuineIntel-6-55-[01234]", "GenuineIntel-6-55-7"));
        let zen3 = "AuthenticAMD-25-([245][[:xdigit:]]|[[:xdigit:]])";
        assert!(re(zen3, "AuthenticAMD-25-21"));
        assert!(re(zen3, "AuthenticAMD-25-5F"));
        assert!(re(zen3, "AuthenticAMD-25-1"));
        assert!(!re(zen3, "AuthenticAMD-25-61"));
        assert!(re("AuthenticAMD-25-[[:xdigit:]]+", "AuthenticAMD-25-61"));
        assert!(re("a.c*d?", "abccc"));
        assert!(!re("[^0-9]x", "1x"));
    }

    #[test]
    fn embedded_mapping() {
        assert_eq!(uarch_for_cpuid(&cpuid_string("GenuineIntel", 6, 0x9E, Some(10))), Some("skl"));
        assert_eq!(uarch_for_cpuid("GenuineIntel-6-55-4"), Some("skx"));
        assert_eq!(uarch_for_cpuid("GenuineIntel-6-55-7"), None, "Cascade Lake is not Skylake-X");
        assert_eq!(uarch_for_cpuid("GenuineIntel-6-3A"), Some("ivb"));
        assert_eq!(uarch_for_cpuid("GenuineIntel-6-3C"), Some("hsw"));
        assert_eq!(uarch_for_cpuid("GenuineIntel-6-7E"), Some("icl"));
        assert_eq!(uarch_for_cpuid("GenuineIntel-6-8F"), Some("spr"));
        assert_eq!(uarch_for_cpuid("GenuineIntel-6-97"), Some("adl"));
        assert_eq!(uarch_for_cpuid(&cpuid_string("AuthenticAMD", 0x19, 0x21, None)), Some("zen3"));
        assert_eq!(uarch_for_cpuid(&cpuid_string("AuthenticAMD", 0x19, 0x61, Some(2))), Some("zen4"));
        assert_eq!(uarch_for_cpuid(&cpuid_string("AuthenticAMD", 0x1A, 0x44, None)), Some("zen5"));
        assert_eq!(uarch_for_cpuid("AuthenticAMD-23-71"), None);
    }
}
