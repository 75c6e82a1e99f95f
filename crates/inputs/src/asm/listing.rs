//! What the assembler's outputs say about the user's source: the listing's
//! source line of each `.text` offset, and the offsets of the region labels
//! and function symbols in the object.

use std::collections::BTreeMap;

use object::{Object, ObjectSymbol};

use super::markers::{strip_comment, BEGIN_LABEL, END_LABEL};
use super::Listing;

/// Reads the `as -aln` listing into `.text offset -> user source line`.
///
/// Listing lines look like `   3 0003 4883E901 \tsubq $1, %rcx`; lines
/// without an address (labels, directives) and continuation lines (no tab)
/// are skipped. Section directives are followed so that `.data` bytes are
/// not mistaken for code. Best effort: anything odd is just left out.
pub(super) fn listing_lines(listing: &str, source: &str, prepended: usize) -> Listing {
    let user_lines: Vec<&str> = source.lines().collect();
    let mut out = BTreeMap::new();
    let mut in_text = true;
    let mut previous = true;
    let mut stack: Vec<bool> = Vec::new();
    for line in listing.lines() {
        let Some((head, src)) = line.split_once('\t') else {
            continue;
        };
        let mut fields = head.split_whitespace();
        let (Some(num), addr, data) = (fields.next(), fields.next(), fields.next()) else {
            continue;
        };
        if let Some(now) = section_change(src, in_text, previous, &mut stack) {
            previous = in_text;
            in_text = now;
            continue;
        }
        let (Some(addr), Some(_)) = (addr, data) else {
            continue;
        };
        let (Ok(num), Ok(addr)) = (num.parse::<usize>(), u64::from_str_radix(addr, 16)) else {
            continue;
        };
        if !in_text {
            continue;
        }
        let Some(i) = num.checked_sub(prepended + 1) else { continue };
        let text = user_lines
            .get(i)
            .map(|l| l.trim())
            // `.endr`/`.endm` lines carry a whole expansion's bytes: not one line's.
            .filter(|l| !l.is_empty() && !l.starts_with(".endr") && !l.starts_with(".endm"));
        if let Some(text) = text {
            out.entry(addr).or_insert_with(|| (i + 1, text.to_string()));
        }
    }
    out
}

/// If `src` switches sections, returns whether the new section is `.text`.
fn section_change(src: &str, in_text: bool, previous: bool, stack: &mut Vec<bool>) -> Option<bool> {
    let s = strip_comment(src).trim();
    let mut words = s.split(|c: char| c.is_whitespace() || c == ',');
    let directive = words.next()?.to_ascii_lowercase();
    let arg = || {
        s.split(|c: char| c.is_whitespace() || c == ',')
            .filter(|w| !w.is_empty())
            .nth(1)
            .map(|w| w.trim_matches('"') == ".text")
            .unwrap_or(false)
    };
    match directive.as_str() {
        ".text" => Some(true),
        ".data" | ".bss" | ".rodata" => Some(false),
        ".section" => Some(arg()),
        ".pushsection" => {
            stack.push(in_text);
            Some(arg())
        }
        ".popsection" => Some(stack.pop().unwrap_or(true)),
        ".previous" => Some(previous),
        _ => None,
    }
}

/// Offsets of the region labels in `.text`, keyed by (is_begin, region index).
pub(super) fn region_offsets(
    object: &object::File<'_>,
    text_index: object::SectionIndex,
) -> BTreeMap<(bool, usize), u64> {
    let mut out = BTreeMap::new();
    for sym in object.symbols() {
        let Ok(name) = sym.name() else { continue };
        let (is_begin, idx) = if let Some(n) = name.strip_prefix(BEGIN_LABEL) {
            (true, n)
        } else if let Some(n) = name.strip_prefix(END_LABEL) {
            (false, n)
        } else {
            continue;
        };
        let Ok(idx) = idx.parse::<usize>() else {
            continue;
        };
        if sym.section_index() == Some(text_index) {
            out.insert((is_begin, idx), sym.address());
        }
    }
    out
}

/// The `.text` offsets of the function symbols (`.type f, @function`), one
/// name per offset.
pub(super) fn function_offsets(object: &object::File<'_>, text_index: object::SectionIndex) -> BTreeMap<u64, String> {
    let mut out = BTreeMap::new();
    for sym in object.symbols() {
        if sym.kind() != object::SymbolKind::Text || sym.section_index() != Some(text_index) {
            continue;
        }
        if let Ok(name) = sym.name() {
            out.entry(sym.address()).or_insert_with(|| name.to_string());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn listing_follows_sections() {
        let listing = "   1              \ttop:\n   2 0000 4801D8   \t  addq %rbx, %rax\n\
                       \x20  3              \t.data\n   4 0000 0102     \t.byte 1,2\n\
                       \x20  5              \t.text\n   6 0003 90       \tnop\n   6      90 \n";
        let source = "top:\n  addq %rbx, %rax\n.data\n.byte 1,2\n.text\nnop\n";
        let lines = listing_lines(listing, source, 0);
        let v: Vec<_> = lines.into_iter().collect();
        assert_eq!(
            v,
            vec![(0, (2, "addq %rbx, %rax".to_string())), (3, (6, "nop".to_string()))]
        );
    }
}
