//! The numbers a user gives the model on the command line: `--weights
//! W,W,...` (analyze and run) and `--accelerate RESOURCE=WEIGHT` (run), through
//! the one check both use (`bottlenose_analysis::check_weight`,
//! `parse_acceleration`); then, with what was accepted, the model itself: a
//! fixed block timed on the accelerated core, and on that core with each
//! weight applied to a few knobs, must end with a finite, positive cycle
//! count. (A zero weight once left a port without capacity and the model
//! waiting forever: libFuzzer's `-timeout` reports that; NaN gave a 4-wide
//! core an IPC of 4.8.)
//!
//! Input: text; items separated by spaces, commas or newlines; `NAME=W` is an
//! acceleration, anything else a weight. At most 8 items count.

use std::sync::OnceLock;

use bottlenose_analysis::{check_weight, parse_acceleration, run_block, Knob, WEIGHT_RANGE};
use bottlenose_machine::Machine;
use bottlenose_timing::{resolve_block, Acceleration, CoreConfig, CoreKnob, InstrTiming};

/// add rax,rbx; vaddsd xmm0,xmm0,xmm1; mov rax,[rdi]; mov [rdi],rax;
/// xor eax,eax; mov rax,rbx; div rcx; vfmadd213sd xmm0,xmm1,xmm2;
/// add rdi,8; cmp rdi,rsi; jb -0x20
const BLOCK: &[u8] = &[
    0x48, 0x01, 0xd8, 0xc5, 0xfb, 0x58, 0xc1, 0x48, 0x8b, 0x07, 0x48, 0x89, 0x07, 0x31, 0xc0, 0x48,
    0x89, 0xd8, 0x48, 0xf7, 0xf1, 0xc4, 0xe2, 0xf1, 0xa9, 0xc2, 0x48, 0x83, 0xc7, 0x08, 0x48, 0x39,
    0xf7, 0x72, 0xe0,
];

/// Enough iterations for every resource of the block to have queued up.
const ITERATIONS: u32 = 16;

struct Setup {
    machine: Machine,
    block: Vec<InstrTiming>,
}

static SETUPS: OnceLock<Vec<Setup>> = OnceLock::new();

fn setups() -> Vec<Setup> {
    let insts = bottlenose_decode::decode_block(BLOCK, 0x1000).expect("the block decodes");
    // skylake; zen4 has fetch blocks and memory renaming
    ["skylake", "zen4"]
        .iter()
        .map(|name| {
            let machine = Machine::resolve(name).expect("built-in machine");
            let block = resolve_block(&machine, &insts).0;
            Setup { machine, block }
        })
        .collect()
}

fn time(s: &Setup, acc: &Acceleration, what: &str) {
    let (run, ()) = run_block(&s.block, CoreConfig::new(&s.machine, acc), ITERATIONS, ());
    assert!(
        run.total_cycles.is_finite() && run.total_cycles > 0.0,
        "{} cycles on {} with {what}",
        run.total_cycles,
        s.machine.name
    );
}

pub fn run(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let items: Vec<&str> = text.split([' ', ',', '\n']).filter(|s| !s.is_empty()).take(8).collect();
    let mut accelerations: Vec<(String, f64)> = Vec::new();
    let mut weights: Vec<f64> = Vec::new();
    for item in items {
        if item.contains('=') {
            match parse_acceleration(item) {
                Ok((name, w)) => {
                    assert!(WEIGHT_RANGE.contains(&w), "{item} accepted with weight {w}");
                    accelerations.push((name, w));
                }
                Err(e) => {
                    let msg = e.to_string();
                    assert!(!msg.contains('\n') && msg.contains(item), "the error names the argument: {msg:?}");
                }
            }
        } else if let Ok(w) = item.parse::<f64>() {
            match check_weight(w) {
                Ok(()) => weights.push(w),
                Err(e) => assert!(e.to_string().starts_with(&format!("bad weight {w}")), "{e}"),
            }
        }
    }
    for s in SETUPS.get_or_init(setups) {
        let m = &s.machine;
        // as `run` builds its baseline: each resource once, unknown names refused
        let mut acc = Acceleration::nominal(m);
        let mut applied: Vec<Knob> = Vec::new();
        for (name, w) in &accelerations {
            if let Some(k) = Knob::parse(m, name).filter(|k| !applied.contains(k)) {
                k.apply(&mut acc, *w);
                applied.push(k);
            }
        }
        time(s, &acc, &format!("{accelerations:?}"));
        let load_ports = m.params.memory.load_groups.first().and_then(|g| Knob::parse(m, g));
        for &w in weights.iter().take(3) {
            for k in [Some(Knob::Core(CoreKnob::Latency)), Some(Knob::Core(CoreKnob::Frontend)), Some(Knob::Core(CoreKnob::Window)), load_ports].into_iter().flatten() {
                let mut a = acc.clone();
                k.apply(&mut a, w);
                time(s, &a, &format!("{accelerations:?} and {} x{w}", k.name(m)));
            }
        }
    }
}
