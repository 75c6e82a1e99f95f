//! The attribution crate's ELF/DWARF side (`Program::parse` + `line_at`,
//! `function_at`, `function_range`, `function_line` (DWARF `decl_line`),
//! `contains`, `bytes_at`, `label`, and `attribute` over
//! synthetic per-instruction statistics).

use std::path::Path;

use bottlenose_attribution::{attribute, InsnStat, Program, Symbolize};

pub fn run(data: &[u8]) {
    let mut program = match Program::parse(Path::new("fuzz.elf"), data) {
        Ok(p) => p,
        Err(e) => {
            let _ = e.to_string();
            return;
        }
    };
    let entry = program.entry();
    // Addresses to ask about: the entry, around it, and words of the input.
    let mut addrs = vec![
        entry,
        entry.wrapping_add(1),
        entry.wrapping_sub(1),
        0,
        u64::MAX,
    ];
    addrs.extend(
        data.chunks_exact(8)
            .take(64)
            .map(|c| u64::from_le_bytes(c.try_into().unwrap())),
    );
    for &a in &addrs {
        let _ = program.line_at(a);
        if let Some(name) = program.function_at(a).map(str::to_string) {
            let _ = program.function_range(&name);
            let _ = program.function_line(&name);
        }
        let _ = program.contains(a);
        if let Some(b) = program.bytes_at(a, 16) {
            assert!(b.len() <= 16);
        }
    }
    let _ = program.has_lines();
    for &a in &addrs {
        let _ = program.label(a);
        let _ = program.symbol_start(a);
        let _ = Symbolize::function_line(&program, a);
        let _ = program.dso_address(a);
    }
    program.set_load_bias(0x5555_5555_4000);

    let stats: Vec<InsnStat> = addrs
        .iter()
        .enumerate()
        .map(|(i, &a)| InsnStat {
            vaddr: a.wrapping_add(program.load_bias()),
            len: (i % 15 + 1) as u8,
            executions: i as u64 + 1,
            cycles: i as f64 * 1.5,
            counters: [0.0; 4],
            is_branch: i % 3 == 0,
            taken_targets: if i % 3 == 0 {
                vec![entry.wrapping_add(program.load_bias())]
            } else {
                vec![]
            },
        })
        .collect();
    let _ = attribute(&stats, Some(&program));
}
