//! Machine files that crashed bottlenose, found while fuzzing the loader
//! (`fuzz/`, `scripts/fuzz.sh`: the `machine_loader` target) and probing what
//! it accepts: each must now be a clean `file:line: field: message` error.

use bottlenose_machine::{Machine, MachineError};

const GUS: &str = include_str!("../../../machines/gus-fig4.toml");
const GUS_FORMS: &str = include_str!("../../../machines/gus-fig4.forms.toml");
const SKYLAKE: &str = include_str!("../../../machines/skylake.toml");

fn invalid(machine: &str, forms: &str) -> (usize, String, String) {
    match Machine::from_strs("m.toml", machine, forms) {
        Err(MachineError::Invalid { line, field, message, .. }) => (line, field, message),
        Err(e) => panic!("unexpected error {e}"),
        Ok(_) => panic!("accepted"),
    }
}

/// `rob = 4000000000` was accepted, and the timing model then aborted on a
/// 64 GB allocation (`bottlenose analyze --machine m.toml`).
#[test]
fn huge_windows_are_rejected() {
    for key in ["rob", "scheduler", "load_buffer", "store_buffer"] {
        let text = GUS.replace(&format!("\n{key} = 4\n"), &format!("\n{key} = 4000000000\n"));
        let (line, field, message) = invalid(&text, GUS_FORMS);
        assert_eq!(field, format!("core.{key}"));
        assert_eq!(text.lines().nth(line - 1).unwrap(), format!("{key} = 4000000000"));
        assert!(message.contains("at most 1048576"), "{message}");
    }
    // Large but sane windows still load.
    Machine::from_strs("m.toml", &GUS.replace("\nrob = 4\n", "\nrob = 65536\n"), GUS_FORMS).unwrap();
}

/// Caches and TLBs are allocated by the functional layer of dynamic runs.
#[test]
fn huge_caches_and_tlbs_are_rejected() {
    let forms = include_str!("../../../machines/skylake.forms.toml");
    let text = SKYLAKE.replacen("size_kib = 8192", "size_kib = 4194304", 1);
    let (_, field, message) = invalid(&text, forms);
    assert_eq!(field, "cache[3].size_kib");
    assert!(message.contains("more than"), "{message}");

    let text = SKYLAKE.replacen("entries = 1536", "entries = 4000000000", 1);
    let (line, field, _) = invalid(&text, forms);
    assert_eq!(field, "tlb[1].entries");
    assert_eq!(text.lines().nth(line - 1).unwrap(), "entries = 4000000000");

    let text = SKYLAKE.replacen("ways = 12", "ways = 0", 1);
    let (_, field, _) = invalid(&text, forms);
    assert!(field.ends_with(".ways"), "{field}");
}
