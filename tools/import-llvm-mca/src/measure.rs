//! Measuring every form: one representative per form through llvm-mca, with
//! retries. Each form has a list of attempts (representative × spelling); a
//! rejected attempt moves the form on to its next one, in the next round.

use crate::{corpus, gas, isa, mca};
use anyhow::{anyhow, bail, Result};
use std::collections::BTreeMap;

pub struct Measured {
    pub resources: Vec<mca::Resource>,
    pub rows: BTreeMap<String, mca::Row>,
    /// Forms llvm-mca rejected in every attempt, with the reasons.
    pub rejected: BTreeMap<String, Vec<String>>,
}

/// Measures one representative per form. Each form has a list of attempts
/// (representative × spelling); a rejected attempt moves the form to its next one.
pub fn measure(
    mca: &mca::Mca,
    corpus: &corpus::Corpus,
    allowed: Option<&[&str]>,
    batch: usize,
    verbose: bool,
) -> Result<Measured> {
    let mut printer = gas::Printer::new();
    let mut attempts: BTreeMap<&str, Vec<(usize, String)>> = BTreeMap::new();
    let mut not_on_cpu: BTreeMap<&str, Vec<String>> = BTreeMap::new();
    for (key, cands) in &corpus.forms {
        let mut list: Vec<(usize, String)> = Vec::new();
        for (ci, c) in cands.iter().enumerate() {
            let Some(instr) = &c.instr else {
                // AArch64: one spelling, the decoder's Arm syntax
                for text in corpus::arm_texts(&c.inst) {
                    if !list.iter().any(|(_, t)| *t == text) {
                        list.push((ci, text));
                    }
                }
                continue;
            };
            if let Some(allowed) = allowed {
                let missing = isa::missing(instr, allowed);
                if !missing.is_empty() {
                    not_on_cpu.insert(key, missing);
                    continue;
                }
            }
            for v in 0..gas::VARIANTS {
                let text = printer.att(instr, v);
                if !list.iter().any(|(_, t)| *t == text) {
                    list.push((ci, text));
                }
            }
        }
        if !list.is_empty() {
            not_on_cpu.remove(key.as_str());
            attempts.insert(key, list);
        }
    }
    if !not_on_cpu.is_empty() {
        let mut by_feature: BTreeMap<&str, usize> = BTreeMap::new();
        for m in not_on_cpu.values() {
            *by_feature.entry(m[0].as_str()).or_default() += 1;
        }
        let list: Vec<String> = by_feature.iter().map(|(f, n)| format!("{f} {n}")).collect();
        eprintln!(
            "dropped {} forms of extensions -mcpu={} lacks: {}",
            not_on_cpu.len(),
            mca.mcpu,
            list.join(", ")
        );
        if verbose {
            for (k, m) in &not_on_cpu {
                eprintln!("  not on this CPU: {k} (needs {})", m.join(", "));
            }
        }
    }
    let mut next: BTreeMap<&str, usize> = attempts.keys().map(|&k| (k, 0)).collect();
    let mut rows: BTreeMap<String, mca::Row> = BTreeMap::new();
    let mut reasons: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut resources: Option<Vec<mca::Resource>> = None;
    let mut mismatched = Vec::new();
    for round in 0.. {
        let pending: Vec<(&str, &(usize, String))> = attempts
            .iter()
            .filter(|(k, _)| !rows.contains_key(**k))
            .filter_map(|(k, list)| list.get(next[k]).map(|a| (*k, a)))
            .collect();
        if pending.is_empty() {
            break;
        }
        eprintln!(
            "llvm-mca -mcpu={} round {}: {} lines",
            mca.mcpu,
            round + 1,
            pending.len()
        );
        for chunk in pending.chunks(batch) {
            let lines: Vec<String> = chunk.iter().map(|(_, (_, t))| t.clone()).collect();
            let (res, outcomes) = mca.run(&lines)?;
            match &resources {
                None => resources = Some(res),
                Some(r) if *r != res => bail!("llvm-mca listed different resources in two runs"),
                Some(_) => {}
            }
            for ((key, (cand, text)), outcome) in chunk.iter().zip(outcomes) {
                let why = match outcome {
                    mca::Outcome::Row(row) => {
                        if !same_mnemonic(text, &row.text) {
                            mismatched.push(format!(
                                "{key}: sent '{text}', llvm-mca printed '{}'",
                                row.text
                            ));
                        }
                        rows.insert(key.to_string(), row);
                        continue;
                    }
                    mca::Outcome::ParseError(e) => format!("'{text}': cannot parse: {e}"),
                    mca::Outcome::Unsupported => format!("'{text}': no scheduling data"),
                    mca::Outcome::Expanded(v) => {
                        format!("'{text}': assembles to {}", v.join(" + "))
                    }
                };
                let why = format!("{why} [{}]", corpus.forms[*key][*cand].inst.asm);
                reasons.entry(key.to_string()).or_default().push(why);
                // Another spelling of an instruction the model lacks will not help:
                // skip to the next representative.
                let list = &attempts[key];
                let n = next.get_mut(key).expect("known form");
                *n += 1;
                if reasons[*key]
                    .last()
                    .is_some_and(|r| r.contains("': no scheduling data"))
                {
                    while list.get(*n).is_some_and(|(c, _)| c == cand) {
                        *n += 1;
                    }
                }
            }
        }
    }
    let resources = resources.ok_or_else(|| anyhow!("no forms to measure"))?;
    let rejected: BTreeMap<String, Vec<String>> = reasons
        .into_iter()
        .filter(|(k, _)| !rows.contains_key(k))
        .collect();
    let parse_errors = rejected
        .values()
        .filter(|r| r.iter().any(|x| x.contains("cannot parse")))
        .count();
    eprintln!(
        "measured {} forms; rejected {} ({} with parse errors, the rest without scheduling data or expanded)",
        rows.len(),
        rejected.len(),
        parse_errors
    );
    if verbose {
        for (k, r) in &rejected {
            eprintln!("  rejected {k}: {}", r.join("; "));
        }
    }
    if !mismatched.is_empty() {
        eprintln!(
            "{} rows whose mnemonic differs from the line sent (aliases):",
            mismatched.len()
        );
        for m in mismatched.iter().take(if verbose { usize::MAX } else { 5 }) {
            eprintln!("  note: {m}");
        }
    }
    Ok(Measured {
        resources,
        rows,
        rejected,
    })
}

/// Loose check that llvm-mca's row is the instruction we sent: the mnemonics agree
/// on their first two letters once prefixes are dropped (`sal`/`shl` differ, `shlq`/`shlq` agree).
fn same_mnemonic(sent: &str, printed: &str) -> bool {
    let first = |s: &str| -> String {
        s.split_whitespace()
            .find(|w| {
                !matches!(
                    *w,
                    "lock"
                        | "rep"
                        | "repe"
                        | "repz"
                        | "repne"
                        | "repnz"
                        | "notrack"
                        | "bnd"
                        | "data16"
                        | "data32"
                )
            })
            .unwrap_or("")
            .chars()
            .take(2)
            .collect()
    };
    first(sent) == first(printed)
}
