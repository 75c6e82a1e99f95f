//! The whole assembly input with the real GNU assembler
//! (`bottlenose_inputs::assemble_with`): one `as` process per input, so run
//! it with a small `-max_len` (scripts/fuzz.sh uses 512). Inputs with
//! directives that make `as` itself slow or large (`.rept`, `.fill`,
//! `.incbin`, ...) are skipped: they test `as`, not bottlenose.

use std::path::PathBuf;
use std::sync::OnceLock;

use bottlenose_inputs::{assemble_with, find_gnu_as, AsmSyntax};

static AS: OnceLock<Option<PathBuf>> = OnceLock::new();

const SKIP: &[&str] = &[
    "rept", "irp", "fill", "skip", "space", "zero", "incbin", "include", "org", "macro", "align",
    ".ds", "octa", "sleb", "uleb", "nops", "print", "err", "abort", "fail", "warning", "/dev",
    "/proc",
];

pub fn run(data: &[u8]) {
    let Some(as_path) = AS.get_or_init(find_gnu_as) else {
        return;
    };
    let Ok(source) = std::str::from_utf8(data) else {
        return;
    };
    let lower = source.to_ascii_lowercase();
    if SKIP.iter().any(|w| lower.contains(w)) {
        return;
    }
    let syntax = match data.first().map(|b| b % 3) {
        Some(0) => AsmSyntax::Auto,
        Some(1) => AsmSyntax::Att,
        _ => AsmSyntax::Intel,
    };
    match assemble_with(as_path, source, "fuzz.s", syntax) {
        Ok(blocks) => {
            assert!(!blocks.is_empty());
            for b in &blocks {
                assert!(!b.bytes.is_empty());
                for l in &b.source_lines {
                    assert!((l.offset as usize) < b.bytes.len() && l.line >= 1);
                }
                for (off, _) in &b.functions {
                    assert!((*off as usize) < b.bytes.len());
                }
                let _ = bottlenose_decode::decode_block(&b.bytes, b.address);
            }
        }
        Err(e) => {
            let _ = e.to_string();
        }
    }
}
