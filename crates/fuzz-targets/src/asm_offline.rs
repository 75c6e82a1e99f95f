//! The pure-Rust half of the assembly input (`bottlenose_inputs::assemble_offline`):
//! LLVM-MCA region markers, the AT&T/Intel guess, the mapping of `as` error
//! messages back to the user's lines, the `as -aln` listing reader and the
//! cutting of one block per region, with `as` replaced by its outputs.
//!
//! Input: `SOURCE \0 LISTING \0 STDERR \0 TAIL`, where TAIL's first byte picks
//! the syntax (0 AT&T, 1 Intel, else auto), the next two (LE) the length of
//! the `.text` bytes, and the rest are LE u16 label offsets (region i: begin
//! at 2i, end at 2i+1). Missing parts are empty. Seeds: `scripts/fuzz.sh`
//! makes them from examples/*.s and bench/blocks/*.s with real `as` output.

use bottlenose_inputs::{assemble_offline, AsmSyntax};

pub fn run(data: &[u8]) {
    let mut parts = data.splitn(4, |&b| b == 0);
    let source = String::from_utf8_lossy(parts.next().unwrap_or(&[]));
    let listing = String::from_utf8_lossy(parts.next().unwrap_or(&[]));
    let stderr = String::from_utf8_lossy(parts.next().unwrap_or(&[]));
    let tail = parts.next().unwrap_or(&[]);
    let syntax = match tail.first() {
        Some(0) => AsmSyntax::Att,
        Some(1) => AsmSyntax::Intel,
        _ => AsmSyntax::Auto,
    };
    let text_len = match tail.get(1..3) {
        Some(b) => u16::from_le_bytes([b[0], b[1]]) as usize,
        None => 64,
    };
    let text: Vec<u8> = (0..text_len).map(|i| i as u8).collect();
    let offsets: Vec<u64> = tail
        .get(3..)
        .unwrap_or(&[])
        .chunks_exact(2)
        .map(|c| u16::from_le_bytes([c[0], c[1]]) as u64)
        .collect();
    match assemble_offline(
        &source, "fuzz.s", syntax, &stderr, &listing, &text, &offsets,
    ) {
        Ok(blocks) => {
            for b in &blocks {
                assert!(!b.bytes.is_empty());
                for l in &b.source_lines {
                    assert!((l.offset as usize) < b.bytes.len() && l.line >= 1);
                }
                for (off, _) in &b.functions {
                    assert!((*off as usize) < b.bytes.len());
                }
            }
        }
        Err(e) => {
            let _ = e.to_string();
        }
    }
}
