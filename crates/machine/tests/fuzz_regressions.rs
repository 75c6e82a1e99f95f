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

/// A cache needs a whole number of sets, not a power of two: hosts report L3s such as
/// 260 MiB in 20 ways (212992 sets), which the functional caches index by remainder.
#[test]
fn cache_sets_must_be_whole_but_need_not_be_a_power_of_two() {
    let forms = include_str!("../../../machines/skylake.forms.toml");
    // skylake's L3: 8 MiB, 16-way; 10 MiB in 16 ways is 10240 sets
    let ten = SKYLAKE.replacen("size_kib = 8192", "size_kib = 10240", 1);
    let m = Machine::from_strs("m.toml", &ten, forms).unwrap();
    assert_eq!(m.params.caches.iter().find(|c| c.name == "L3").map(|c| c.size_kib), Some(10240));
    // 8 MiB in 12 ways: 131072 lines / 12 is not whole
    let (_, field, message) = invalid(&SKYLAKE.replacen("size_kib = 8192\nways = 16", "size_kib = 8192\nways = 12", 1), forms);
    assert_eq!(field, "cache[3].size_kib");
    assert!(message.contains("not a whole number of sets"), "{message}");
}
