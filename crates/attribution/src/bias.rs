//! Load-bias detection for a PIE main executable run under QEMU.

use std::collections::HashMap;

use crate::symbols::Program;

/// How many bytes at the entry point must match before a candidate is taken.
pub const MIN_MATCH: usize = 8;
/// How many bytes at the entry point are compared at most.
const MAX_MATCH: usize = 16;

/// Works out the load bias of a PIE main executable from what QEMU executed.
///
/// `seen` lists executed instructions (or larger byte runs) in execution
/// order, each as its guest virtual address and its bytes. The first item
/// whose address ≡ `e_entry` (mod 4096) and whose bytes — continued through
/// the items seen at the following contiguous addresses, since a single
/// instruction such as `endbr64` is shorter than 8 bytes — equal the ELF's
/// bytes at `e_entry` for at least [`MIN_MATCH`] bytes gives
/// `bias = vaddr - e_entry`.
///
/// A non-PIE program always answers `Some(0)`. `None` when nothing matches.
pub fn detect_bias<'a>(
    program: &Program,
    seen: impl Iterator<Item = (u64, &'a [u8])>,
) -> Option<u64> {
    if !program.is_pie() {
        return Some(0);
    }
    let entry = program.entry();
    let want = {
        let b = program.entry_bytes_at_file();
        &b[..b.len().min(MAX_MATCH)]
    };
    if want.is_empty() {
        return None;
    }
    let need = want.len().min(MIN_MATCH);

    let items: Vec<(u64, &[u8])> = seen.collect();
    let mut at: HashMap<u64, &[u8]> = HashMap::with_capacity(items.len());
    for &(va, bytes) in &items {
        if !bytes.is_empty() {
            at.entry(va).or_insert(bytes);
        }
    }

    items
        .iter()
        .filter(|&&(va, bytes)| {
            !bytes.is_empty() && va >= entry && (va - entry).is_multiple_of(4096)
        })
        .find(|&&(va, _)| matches_at(&at, va, want) >= need)
        .map(|&(va, _)| va - entry)
}

/// How many bytes of `want` the items seen from `va` onwards reproduce
/// (0 on any mismatch).
fn matches_at(at: &HashMap<u64, &[u8]>, va: u64, want: &[u8]) -> usize {
    let mut off = 0usize;
    let mut cur = va;
    while off < want.len() {
        let Some(bytes) = at.get(&cur) else { break };
        let n = bytes.len().min(want.len() - off);
        if bytes[..n] != want[off..off + n] {
            return 0;
        }
        off += n;
        cur = cur.wrapping_add(bytes.len() as u64);
    }
    off
}
