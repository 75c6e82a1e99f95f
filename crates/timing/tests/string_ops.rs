//! String instructions in the core model: one operation per execution, timed from its
//! element count and the line fills it needed, on a small machine whose figures make the
//! expected cycles easy to derive.
use bottlenose_decode::decode_block;
use bottlenose_machine::Machine;
use bottlenose_timing::*;

const MACHINE: &str = r#"
name = "tiny-strings"
forms = "tiny.forms.toml"
[core]
dispatch_width = 4
commit_width = 4
rob = 64
scheduler = 32
load_buffer = 16
store_buffer = 16
[memory]
load_latency = 4
store_forward_latency = 5
load_groups = ["ld"]
store_address_groups = ["st"]
store_data_groups = ["st"]
[strings]
store_bytes_per_cycle = 16
overlap_cycles = 10
movs = { short_bytes = 32, short_cycles = 6, startup = 20, bytes_per_cycle = 32, uops = 4 }
stos = { startup = 20, bytes_per_cycle = 64, uops = 4 }
lods = { startup = 15, bytes_per_cycle = 32, cycles_per_element = 2, uops = 4 }
cmps = { startup = 15, bytes_per_cycle = 32, cycles_per_element = 3, uops = 4 }
scas = { startup = 15, bytes_per_cycle = 32, cycles_per_element = 2, uops = 4 }
[[cache]]
name = "L1D"
level = 1
kind = "data"
size_kib = 32
ways = 8
line_bytes = 64
latency = 4
bytes_per_cycle = 64
replacement = "lru"
[[cache]]
name = "L2"
level = 2
kind = "unified"
size_kib = 256
ways = 8
line_bytes = 64
latency = 14
bytes_per_cycle = 32
replacement = "lru"
[default_form]
uops = 1
latency = 1
use = { alu = 1 }
"#;

const FORMS: &str = r#"
[units]
a0 = "alu0"
ld = "load"
st = "store"
[groups]
alu = ["a0"]
[forms]
"add r64, r64" = { uops = 1, latency = 1, use = { alu = 1 } }
"#;

fn machine() -> Machine {
    Machine::from_strs("tiny-strings.toml", MACHINE, FORMS).expect("machine")
}

/// rep movsb; add rax, rbx (independent of the copy); rep stosb; repne scasb; movsb
fn block(m: &Machine) -> Vec<InstrTiming> {
    let insts = decode_block(&[0xf3, 0xa4, 0x48, 0x01, 0xd8, 0xf3, 0xaa, 0xf2, 0xae, 0xa4], 0).unwrap();
    resolve_block(m, &insts).0
}

fn work(elements: u32, fills: [u32; 3]) -> DynInfo {
    DynInfo { string: StringWork { elements, fills }, ..Default::default() }
}

fn core(m: &Machine) -> Core {
    Core::new(CoreConfig::new(m, &Acceleration::nominal(m)))
}

#[test]
fn string_instructions_take_their_figures_not_the_form_table() {
    let m = machine();
    let b = block(&m);
    let movs = b[0].string.expect("rep movsb is a string instruction");
    assert!(!b[0].unknown_form && b[0].fused_uops == 4 && b[0].load_uses.is_empty() && b[0].compute_uses.is_empty());
    assert_eq!(movs.params.startup, 20.0);
    assert!(b[1].string.is_none());
    assert_eq!(b[2].string.unwrap().store_bytes_per_cycle, 16.0);
    assert_eq!(b[3].string.unwrap().store_bytes_per_cycle, 0.0, "scas does not store");
}

#[test]
fn a_copy_in_l1_takes_startup_plus_bytes_at_the_core_rate() {
    let m = machine();
    let b = block(&m);
    let mut c = core(&m);
    // 1 KiB in L1: 20 + 1024 / 32 = 52 cycles; its stores drain at 16 B/cycle: 64 cycles
    let t = c.step(&b[0], &work(1024, [0; 3]), &mut StageDetails::default());
    assert_eq!(t.ready - t.issue, 64.0, "the drain of 1 KiB at 16 bytes per cycle bounds it");
    // a short copy: 6 cycles in all; its 16 bytes drain in one
    let mut c = core(&m);
    let t = c.step(&b[0], &work(16, [0; 3]), &mut StageDetails::default());
    assert_eq!(t.ready - t.issue, 6.0);
    // rcx = 0 takes the short path too
    let mut c = core(&m);
    let t = c.step(&b[0], &work(0, [0; 3]), &mut StageDetails::default());
    assert_eq!(t.ready - t.issue, 6.0);
}

#[test]
fn line_fills_bound_a_copy_from_l2() {
    let m = machine();
    let b = block(&m);
    let mut c = core(&m);
    // 8 KiB from L2: 128 source + 128 destination lines at 32 / 64 = 0.5 lines per cycle
    // take 512 cycles, then the L2 latency beyond L1 (14 - 4) once: 522 (the core rate
    // would take 20 + 256, the drain 512)
    let t = c.step(&b[0], &work(8192, [256, 0, 0]), &mut StageDetails::default());
    assert_eq!(t.ready - t.issue, 522.0);
    assert_eq!(t.issue_cause, IssueCause::CacheMiss);
}

#[test]
fn element_loops_count_elements() {
    let m = machine();
    let b = block(&m);
    let mut c = core(&m);
    // repne scasb that stopped after 100 bytes: 15 + 100 x 2
    let t = c.step(&b[3], &work(100, [0; 3]), &mut StageDetails::default());
    assert_eq!(t.ready - t.issue, 215.0);
    // movsb without a prefix: one element, one cycle
    let t = c.step(&b[4], &work(1, [0; 3]), &mut StageDetails::default());
    assert_eq!(t.ready - t.issue, 1.0);
}

#[test]
fn younger_work_overlaps_only_the_tail_and_string_instructions_do_not_overlap() {
    let m = machine();
    let b = block(&m);
    let mut c = core(&m);
    // rep stosb of 4 KiB: 20 + 4096 / 64 = 84 cycles of work, its drain 256 cycles
    let s = c.step(&b[2], &work(4096, [0; 3]), &mut StageDetails::default());
    assert_eq!(s.ready - s.issue, 256.0);
    // the independent add dispatches in the last 10 cycles (overlap_cycles), not before
    let add = c.step(&b[1], &DynInfo::default(), &mut StageDetails::default());
    assert_eq!(add.dispatch, s.ready - 10.0);
    assert_eq!(add.dispatch_cause, DispatchCause::Microcode);
    // the next string instruction starts when the first is done
    let next = c.step(&b[3], &work(0, [0; 3]), &mut StageDetails::default());
    assert!(next.issue >= s.ready, "{} starts before {}", next.issue, s.ready);
    // a string instruction shorter than the overlap holds nothing up
    let mut c = core(&m);
    let short = c.step(&b[0], &work(16, [0; 3]), &mut StageDetails::default());
    let add = c.step(&b[1], &DynInfo::default(), &mut StageDetails::default());
    assert!(add.dispatch < short.ready, "an independent add waits for a 6-cycle copy");
    assert_ne!(add.dispatch_cause, DispatchCause::Microcode);
}

#[test]
fn faster_fills_speed_up_a_copy_from_l2() {
    let m = machine();
    let b = block(&m);
    let mut acc = Acceleration::nominal(&m);
    acc.scale(CoreKnob::L2Bandwidth, 2.0);
    let mut c = Core::new(CoreConfig::new(&m, &acc));
    // twice the L2 bandwidth: 256 lines in 256 cycles + 10; the drain (512) now binds
    let t = c.step(&b[0], &work(8192, [256, 0, 0]), &mut StageDetails::default());
    assert_eq!(t.ready - t.issue, 512.0);
}
