//! `Program` against binaries gcc builds inside the test.

mod common;

use bottlenose_attribution::{attribute, AttributionError, InsnStat, Program, SHARED};
use common::*;

fn check_symbols_and_lines(pie: bool) {
    let flags: &[&str] = if pie {
        &["-O1", "-g"]
    } else {
        &["-O1", "-g", "-no-pie"]
    };
    let (_dir, exe) = compile(PROG_C, flags);
    let program = Program::open(&exe).unwrap();
    assert_eq!(program.is_pie(), pie);
    assert!(program.has_lines());
    assert_eq!(program.load_bias(), 0);

    for name in ["main", "work", "fact"] {
        let (start, size) = nm(&exe, name);
        assert_eq!(
            program.function_range(name),
            Some((start, start + size)),
            "{name}"
        );
        assert_eq!(program.function_at(start), Some(name));
        assert_eq!(program.function_at(start + size - 1), Some(name));
    }
    assert_eq!(program.function_range("no_such_function"), None);
    assert!(program.contains(nm(&exe, "main").0));
    assert!(!program.contains(0x7fff_0000_0000));
    assert_eq!(program.function_at(0x7fff_0000_0000), None);

    // Every address of each function that has a line maps into prog.c within
    // the function's span, and the first address maps to the opening line.
    for (name, (first, last)) in [
        ("work", WORK_LINES),
        ("fact", FACT_LINES),
        ("main", MAIN_LINES),
    ] {
        let (start, end) = program.function_range(name).unwrap();
        let (file, line) = program.line_at(start).expect("line of function start");
        assert!(file.ends_with("prog.c"), "{file}");
        assert!((first..=last).contains(&line), "{name} start: line {line}");
        let (file, line) = program.function_line(name).expect("declaration line");
        assert!(file.ends_with("prog.c"), "{file}");
        assert_eq!(line, first, "{name} is declared on its opening line");
        let mut seen = std::collections::BTreeSet::new();
        for a in start..end {
            if let Some((file, line)) = program.line_at(a) {
                assert!(file.ends_with("prog.c"), "{name}@{a:#x}: {file}");
                assert!(
                    (first..=last).contains(&line),
                    "{name}@{a:#x}: line {line} outside {first}..={last}"
                );
                seen.insert(line);
            }
        }
        assert!(
            seen.len() >= 2,
            "{name}: several lines expected, got {seen:?}"
        );
    }
    // Loop body line of `work`.
    let (ws, we) = program.function_range("work").unwrap();
    assert!((ws..we).any(|a| program.line_at(a).is_some_and(|(_, l)| l == 7)));

    // Load bias shifts every runtime address.
    let mut program = program;
    let bias = 0x5555_5555_4000;
    let (start, size) = nm(&exe, "main");
    program.set_load_bias(bias);
    assert_eq!(
        program.function_range("main"),
        Some((start + bias, start + size + bias))
    );
    assert_eq!(program.function_at(start + bias + 1), Some("main"));
    assert_eq!(program.function_at(start), None);
    assert!(program
        .line_at(start + bias)
        .is_some_and(|(_, l)| (MAIN_LINES.0..=MAIN_LINES.1).contains(&l)));
    assert_eq!(
        program.function_line("main").map(|(_, l)| l),
        Some(MAIN_LINES.0)
    );
    assert_eq!(program.line_at(start), None);
    assert!(program.contains(start + bias));
}

#[test]
fn non_pie_symbols_and_lines() {
    check_symbols_and_lines(false);
}

#[test]
fn pie_symbols_and_lines() {
    check_symbols_and_lines(true);
}

#[test]
fn not_elf_is_an_error_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("notes.txt");
    std::fs::write(&path, "just some text, not an executable\n").unwrap();
    let err = Program::open(&path).unwrap_err();
    assert!(matches!(err, AttributionError::NotElf { .. }), "{err:?}");
    assert!(err.to_string().contains("notes.txt"), "{err}");

    let missing = dir.path().join("missing-binary");
    let err = Program::open(&missing).unwrap_err();
    assert!(matches!(err, AttributionError::Io { .. }), "{err:?}");
    assert!(err.to_string().contains("missing-binary"), "{err}");

    // ELF magic followed by garbage.
    let bad = dir.path().join("truncated.elf");
    std::fs::write(&bad, b"\x7fELF\x02\x01\x01garbage").unwrap();
    let err = Program::open(&bad).unwrap_err();
    assert!(err.to_string().contains("truncated.elf"), "{err}");
}

#[test]
fn elf_without_dwarf_has_no_lines() {
    let (_dir, exe) = compile(PROG_C, &["-O1", "-no-pie"]);
    let program = Program::open(&exe).unwrap();
    assert!(!program.has_lines());
    let (start, end) = program.function_range("work").unwrap();
    assert_eq!(
        program.function_range("work"),
        Some((nm(&exe, "work").0, end))
    );
    for a in start..end {
        assert_eq!(program.line_at(a), None);
    }
    let stats = vec![InsnStat {
        vaddr: start,
        len: 1,
        executions: 3,
        cycles: 5.0,
        ..Default::default()
    }];
    let a = attribute(&stats, Some(&program));
    assert_eq!(a.functions[0].function, "work");
    assert_eq!(
        (a.functions[0].file.clone(), a.functions[0].line),
        (None, None)
    );
    assert_eq!((a.lines[0].file.clone(), a.lines[0].line), (None, None));

    // Stripped: no .symtab, no DWARF; only dynamic symbols remain.
    let status = std::process::Command::new("strip")
        .arg("-s")
        .arg(&exe)
        .status()
        .unwrap();
    assert!(status.success());
    let stripped = Program::open(&exe).unwrap();
    assert_eq!(stripped.function_range("work"), None);
    assert_eq!(stripped.function_at(start), None);
    assert!(stripped.contains(start));
    assert_eq!(stripped.line_at(start), None);
    // no symbol, but .eh_frame still has the function: its range is named
    // by where nm saw `work` start before stripping
    let a = attribute(&stats, Some(&stripped));
    assert_eq!(a.functions[0].function, format!("prog+{start:#x}"));
}

/// Every instruction of `work`, `fact` and `main` as if each ran once with
/// its direct target taken: the loops are those of `work` only — `fact`'s
/// recursive call and its returns are not back edges.
#[test]
fn loops_of_a_real_binary() {
    for flags in [&["-O1", "-g", "-no-pie"][..], &["-O1", "-g"][..]] {
        let (_dir, exe) = compile(PROG_C, flags);
        let mut program = Program::open(&exe).unwrap();
        let bias = if program.is_pie() {
            0x5555_5555_4000
        } else {
            0
        };
        program.set_load_bias(bias);
        let dis = objdump(&exe, &["work", "fact", "main"]);
        assert!(dis
            .iter()
            .any(|d| d.mnemonic.starts_with("call") && d.target == Some(nm(&exe, "fact").0)));
        let (fact_start, fact_size) = nm(&exe, "fact");
        let after_recursive_call: Vec<u64> = dis
            .iter()
            .filter(|d| d.function == "fact" && d.mnemonic.starts_with("call"))
            .map(|d| d.addr + u64::from(d.len) + bias)
            .collect();
        let stats: Vec<InsnStat> = dis
            .iter()
            .map(|d| {
                let mut taken_targets: Vec<u64> = d.target.map(|t| t + bias).into_iter().collect();
                if d.function == "fact" && d.mnemonic.starts_with("ret") {
                    taken_targets = after_recursive_call.clone();
                }
                InsnStat {
                    vaddr: d.addr + bias,
                    len: d.len,
                    executions: 1,
                    cycles: 1.0,
                    counters: [0.0; 4],
                    is_branch: d.is_branch(),
                    taken_targets,
                }
            })
            .collect();
        let a = attribute(&stats, Some(&program));
        assert_eq!(a.total_cycles, stats.len() as f64);

        assert_eq!(a.loops.len(), 2, "{flags:?}: {:#?}", a.loops);
        assert!(a
            .loops
            .iter()
            .all(|l| l.function.as_deref() == Some("work")));
        let outer = &a.loops[0];
        let inner = &a.loops[1];
        assert_eq!((outer.depth, inner.depth), (0, 1));
        assert!(outer.cycles > inner.cycles);
        assert!(outer.body.0 <= inner.body.0 && inner.body.1 <= outer.body.1);
        assert!(inner
            .instructions
            .iter()
            .all(|i| outer.instructions.contains(i)));
        // The inner loop closes with a conditional branch back to its head.
        let tail = dis.iter().find(|d| d.addr + bias == inner.tail).unwrap();
        assert!(
            tail.mnemonic.starts_with('j') && tail.mnemonic != "jmp",
            "{tail:?}"
        );
        assert_eq!(tail.target.map(|t| t + bias), Some(inner.head));
        // Nothing in fact.
        let fact = (fact_start + bias, fact_start + fact_size + bias);
        assert!(a.loops.iter().all(|l| l.head < fact.0 || l.head >= fact.1));

        // Lines of the loop body belong to work's span.
        for l in &a.lines {
            if l.function == "work" {
                let line = l.line.expect("work has lines");
                assert!((WORK_LINES.0..=WORK_LINES.1).contains(&line));
            }
        }
    }
}

/// Per-function and per-line hotspots with a real symbol table, plus code
/// outside the executable.
#[test]
fn functions_and_lines_of_a_real_binary() {
    let (_dir, exe) = compile(PROG_C, &["-O1", "-g"]);
    let mut program = Program::open(&exe).unwrap();
    let bias = 0x40_0000_0000;
    program.set_load_bias(bias);
    let dis = objdump(&exe, &["work", "fact", "main"]);
    let cycles_of = |f: &str| match f {
        "work" => 10.0,
        "fact" => 2.0,
        _ => 1.0,
    };
    let mut stats: Vec<InsnStat> = dis
        .iter()
        .map(|d| InsnStat {
            vaddr: d.addr + bias,
            len: d.len,
            executions: 2,
            cycles: cycles_of(&d.function),
            counters: [1.0, 0.0, 0.0, 0.5],
            is_branch: false,
            taken_targets: vec![],
        })
        .collect();
    // libc code.
    stats.push(InsnStat {
        vaddr: 0x7fff_f7e0_0000,
        len: 3,
        executions: 7,
        cycles: 40.0,
        ..Default::default()
    });
    stats.push(InsnStat {
        vaddr: 0x7fff_f7e0_0003,
        len: 2,
        executions: 7,
        cycles: 60.0,
        ..Default::default()
    });

    let count = |f: &str| dis.iter().filter(|d| d.function == f).count() as f64;
    let a = attribute(&stats, Some(&program));
    let total = 10.0 * count("work") + 2.0 * count("fact") + count("main") + 100.0;
    assert_eq!(a.total_cycles, total);

    let row = |f: &str| {
        a.functions
            .iter()
            .find(|h| h.function == f)
            .unwrap()
            .clone()
    };
    assert_eq!(a.functions.len(), 4);
    assert_eq!(row(SHARED).cycles, 100.0);
    assert_eq!(row(SHARED).instructions, 14);
    assert_eq!((row(SHARED).file, row(SHARED).line), (None, None));
    assert_eq!(row("work").cycles, 10.0 * count("work"));
    assert_eq!(row("work").instructions, 2 * count("work") as u64);
    assert_eq!(
        row("work").counters,
        [count("work"), 0.0, 0.0, 0.5 * count("work")]
    );
    assert_eq!(row("work").line, Some(WORK_LINES.0));
    assert!(row("work").file.unwrap().ends_with("prog.c"));
    assert_eq!(row("fact").line, Some(FACT_LINES.0));
    assert!((a.functions.iter().map(|h| h.share).sum::<f64>() - 1.0).abs() < 1e-12);
    assert!(a.functions.windows(2).all(|w| w[0].cycles >= w[1].cycles));

    // Lines: every row of a function lies within its span; rows add up.
    assert!((a.lines.iter().map(|h| h.cycles).sum::<f64>() - total).abs() < 1e-9);
    assert!((a.lines.iter().map(|h| h.share).sum::<f64>() - 1.0).abs() < 1e-12);
    assert!(a.lines.windows(2).all(|w| w[0].cycles >= w[1].cycles));
    for h in &a.lines {
        let span = match h.function.as_str() {
            "work" => WORK_LINES,
            "fact" => FACT_LINES,
            "main" => MAIN_LINES,
            _ => {
                assert_eq!((h.file.clone(), h.line), (None, None));
                continue;
            }
        };
        let line = h.line.unwrap();
        assert!((span.0..=span.1).contains(&line), "{h:?}");
    }
    let work_lines: f64 = a
        .lines
        .iter()
        .filter(|h| h.function == "work")
        .map(|h| h.cycles)
        .sum();
    assert_eq!(work_lines, 10.0 * count("work"));
    assert!(a
        .lines
        .iter()
        .any(|h| h.function == "work" && h.line == Some(7)));
}
