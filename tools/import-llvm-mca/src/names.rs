//! Compact names for LLVM's processor resources and for the port groups recovered
//! from them: `SKLPort0` → `p0`, `SKLDivider` → `div`, `Zn4ALU0` → `alu0`, the units
//! of a multi-unit resource `Zn4FP45` → `fp45.0`, `fp45.1`; groups `p0156`, `alu0123`,
//! `fp45` (all units of one resource), otherwise members joined with `+`.

use crate::mca::Resource;

/// One port unit of the machine, in LLVM's column order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unit {
    /// Short name written to the table (`p0`, `fp45.1`).
    pub name: String,
    /// The LLVM resource it came from (`SKLPort0`, `Zn4FP45`).
    pub llvm: String,
    /// Short name of that resource when it has several units (`fp45`), else `None`.
    pub multi: Option<String>,
}

/// Names every unit. `resources` is llvm-mca's "Resources:" list, one entry per unit.
pub fn unit_names(resources: &[Resource]) -> Vec<Unit> {
    let distinct: Vec<&str> = {
        let mut v: Vec<&str> = resources.iter().map(|r| r.name.as_str()).collect();
        v.dedup();
        v
    };
    let prefix = model_prefix(&distinct);
    resources
        .iter()
        .map(|r| {
            let short = short_resource_name(&r.name[prefix.len()..]);
            match r.sub {
                Some(i) => Unit {
                    name: format!("{short}.{i}"),
                    llvm: r.name.clone(),
                    multi: Some(short),
                },
                None => Unit {
                    name: short,
                    llvm: r.name.clone(),
                    multi: None,
                },
            }
        })
        .collect()
}

/// The scheduling model's prefix shared by all resource names (`SKL`, `Zn4`): the
/// longest common prefix that is followed by an upper-case letter in every name.
fn model_prefix(names: &[&str]) -> String {
    let Some(first) = names.first() else {
        return String::new();
    };
    let mut len = first.len();
    for n in &names[1..] {
        len = len.min(
            first
                .bytes()
                .zip(n.bytes())
                .take_while(|(a, b)| a == b)
                .count(),
        );
    }
    while len > 0 {
        let boundary = names.iter().all(|n| {
            n.as_bytes()
                .get(len)
                .is_some_and(|c| c.is_ascii_uppercase())
        });
        if boundary && first.is_char_boundary(len) {
            return first[..len].to_string();
        }
        len -= 1;
    }
    String::new()
}

/// `Port0` → `p0`, `Divider` → `div`, `FPDivider` → `fpdiv`, anything else lower-cased.
fn short_resource_name(rest: &str) -> String {
    if let Some(d) = rest.strip_prefix("Port") {
        if !d.is_empty() && d.bytes().all(|c| c.is_ascii_digit()) {
            return format!("p{d}");
        }
    }
    match rest {
        "Divider" => "div".into(),
        "FPDivider" => "fpdiv".into(),
        _ => rest.to_ascii_lowercase(),
    }
}

/// Name of a group given as unit indices (any order; at least two members).
pub fn group_name(members: &[usize], units: &[Unit]) -> String {
    let mut members = members.to_vec();
    members.sort_unstable();
    members.dedup();
    if members.len() == 1 {
        return units[members[0]].name.clone();
    }
    // All units of one multi-unit resource: the resource's name.
    if let Some(res) = &units[members[0]].multi {
        let all: Vec<usize> = units
            .iter()
            .enumerate()
            .filter(|(_, u)| u.multi.as_ref() == Some(res))
            .map(|(i, _)| i)
            .collect();
        if all == members {
            return res.clone();
        }
    }
    // Same alphabetic prefix, one trailing digit each: prefix + sorted digits.
    let split = |name: &str| -> Option<(String, char)> {
        let (head, last) = name.split_at(name.len().checked_sub(1)?);
        let d = last.chars().next()?;
        (d.is_ascii_digit() && !head.is_empty() && head.chars().all(|c| c.is_ascii_alphabetic()))
            .then(|| (head.to_string(), d))
    };
    let parts: Option<Vec<(String, char)>> =
        members.iter().map(|&m| split(&units[m].name)).collect();
    if let Some(parts) = parts {
        if parts.iter().all(|(p, _)| *p == parts[0].0) {
            let mut digits: Vec<char> = parts.iter().map(|(_, d)| *d).collect();
            digits.sort_unstable();
            return format!("{}{}", parts[0].0, digits.into_iter().collect::<String>());
        }
    }
    joined_name(&members, units)
}

/// The fallback name: members in unit order joined with `+`.
pub fn joined_name(members: &[usize], units: &[Unit]) -> String {
    let mut members = members.to_vec();
    members.sort_unstable();
    members
        .iter()
        .map(|&m| units[m].name.as_str())
        .collect::<Vec<_>>()
        .join("+")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn res(list: &[(&str, Option<u32>)]) -> Vec<Resource> {
        list.iter()
            .map(|(n, s)| Resource {
                name: n.to_string(),
                sub: *s,
            })
            .collect()
    }

    #[test]
    fn skylake_units() {
        let r = res(&[
            ("SKLDivider", None),
            ("SKLFPDivider", None),
            ("SKLPort0", None),
            ("SKLPort1", None),
            ("SKLPort5", None),
            ("SKLPort6", None),
            ("SKLPort2", None),
            ("SKLPort3", None),
            ("SKLPort7", None),
        ]);
        let u = unit_names(&r);
        let names: Vec<&str> = u.iter().map(|u| u.name.as_str()).collect();
        assert_eq!(
            names,
            ["div", "fpdiv", "p0", "p1", "p5", "p6", "p2", "p3", "p7"]
        );
        assert_eq!(group_name(&[5, 2, 4, 3], &u), "p0156");
        assert_eq!(group_name(&[6, 7], &u), "p23");
        assert_eq!(group_name(&[8, 6, 7], &u), "p237");
        assert_eq!(group_name(&[0, 2], &u), "div+p0");
        assert_eq!(group_name(&[2], &u), "p0");
    }

    #[test]
    fn zen4_units() {
        let r = res(&[
            ("Zn4AGU0", None),
            ("Zn4ALU0", None),
            ("Zn4ALU1", None),
            ("Zn4ALU2", None),
            ("Zn4ALU3", None),
            ("Zn4BRU1", None),
            ("Zn4FP0", None),
            ("Zn4FP1", None),
            ("Zn4FP45", Some(0)),
            ("Zn4FP45", Some(1)),
            ("Zn4FPSt", None),
            ("Zn4LSU", Some(0)),
            ("Zn4LSU", Some(1)),
            ("Zn4LSU", Some(2)),
            ("Zn4Load", Some(0)),
            ("Zn4Load", Some(1)),
            ("Zn4Store", Some(0)),
            ("Zn4Store", Some(1)),
        ]);
        let u = unit_names(&r);
        let names: Vec<&str> = u.iter().map(|u| u.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "agu0", "alu0", "alu1", "alu2", "alu3", "bru1", "fp0", "fp1", "fp45.0", "fp45.1",
                "fpst", "lsu.0", "lsu.1", "lsu.2", "load.0", "load.1", "store.0", "store.1"
            ]
        );
        assert_eq!(u[8].llvm, "Zn4FP45");
        assert_eq!(group_name(&[1, 2, 3, 4], &u), "alu0123");
        assert_eq!(group_name(&[4, 1], &u), "alu03");
        assert_eq!(group_name(&[6, 7], &u), "fp01");
        assert_eq!(group_name(&[8, 9], &u), "fp45");
        assert_eq!(group_name(&[11, 12, 13], &u), "lsu");
        assert_eq!(group_name(&[14, 15], &u), "load");
        assert_eq!(group_name(&[11, 12], &u), "lsu.0+lsu.1");
        assert_eq!(group_name(&[16, 17], &u), "store");
        assert_eq!(group_name(&[1, 5], &u), "alu0+bru1");
        assert_eq!(group_name(&[6, 8, 9], &u), "fp0+fp45.0+fp45.1");
    }

    #[test]
    fn prefix_needs_a_word_boundary() {
        assert_eq!(model_prefix(&["SKLPort0", "SKLPort1"]), "SKL");
        assert_eq!(model_prefix(&["HWPort0"]), "HW");
        assert_eq!(model_prefix(&["Zn4ALU0", "Zn4Load"]), "Zn4");
        assert_eq!(model_prefix(&["alpha", "beta"]), "");
    }
}
