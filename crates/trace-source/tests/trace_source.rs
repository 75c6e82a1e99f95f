//! A trace through [`TraceSource`] into the engine, on made-up traces in the
//! plugin's wire format (no QEMU): the batches it hands out, what it says at
//! the end, and the cycles the engine gets from them.

use bottlenose_machine::Machine;
use bottlenose_simulate::{drive, Source, VariantEngine};
use bottlenose_timing::{Acceleration, BatchPart, CoreConfig};
use bottlenose_trace::{GuestExit, ProcessTrace, TraceStream};
use bottlenose_trace_format::record as wire;
use bottlenose_trace_source::{Exact, TraceEnd, TraceOptions, TraceSource, BATCH};
use bottlenose_views::SharedFacts;
use std::num::NonZeroU64;

/// `add rax, rbx`: each one waits for the one before (through rax).
const ADD: [u8; 3] = [0x48, 0x01, 0xd8];
const PER_BLOCK: usize = 4;

/// One block of four dependent adds at 0x401000, executed `executions` times,
/// then EXIT 0 and END: what the plugin writes for a loop without branches.
fn chain_trace(executions: usize) -> Vec<u8> {
    let mut s = wire::hello().to_vec();
    wire::push_tb_def_header(&mut s, 0, PER_BLOCK as u16);
    for k in 0..PER_BLOCK {
        wire::push_tb_def_insn(&mut s, 0x40_1000 + 3 * k as u64, &ADD);
    }
    for _ in 0..executions {
        s.extend_from_slice(&wire::tb_exec(0, 0));
    }
    s.extend_from_slice(&wire::exit(0));
    s.extend_from_slice(&wire::end());
    s
}

fn options(max_instructions: Option<u64>) -> TraceOptions<()> {
    TraceOptions { max_instructions: max_instructions.and_then(NonZeroU64::new), ..Default::default() }
}

fn baseline(machine: &Machine) -> Vec<CoreConfig> {
    vec![CoreConfig::new(machine, &Acceleration::nominal(machine))]
}

/// (records, new static instructions, timed in full) of every batch, and the source's end.
fn batches(executions: usize, max_instructions: Option<u64>) -> (Vec<(usize, usize, bool)>, TraceEnd<Exact>) {
    let m = Machine::resolve("skylake").unwrap();
    let trace = ProcessTrace::child(TraceStream::recorded(std::io::Cursor::new(chain_trace(executions))));
    let mut engine = VariantEngine::inline(baseline(&m), ());
    let mut source = TraceSource::new(&m, trace, options(max_instructions), engine.take_returns(), Vec::new(), SharedFacts::new(), None::<Exact>);
    let mut seen = Vec::new();
    while let Some(b) = source.next_batch() {
        // every record names the static instruction the block has at its place
        for (k, r) in b.records.iter().enumerate() {
            assert_eq!(r.id as usize, k % PER_BLOCK, "record {k} of a batch");
        }
        seen.push((b.records.len(), b.new_instructions.len(), b.part == BatchPart::Whole));
        engine.feed_shared(b);
    }
    (seen, source.finish().expect("a well-formed trace"))
}

#[test]
fn the_trace_comes_in_full_batches_with_each_static_instruction_once() {
    // 3000 executions of 4 instructions: 12000 records, two full batches and the rest
    let (seen, end) = batches(3000, None);
    assert_eq!(BATCH, 4096);
    assert_eq!(seen, [(4096, 4, true), (4096, 0, true), (12000 - 2 * 4096, 0, true)]);
    assert_eq!((end.executed, end.simulated), (12000, 12000));
    assert!(end.complete, "the trace ended with END");
    assert_eq!(end.exit, GuestExit::Code(0));
    assert_eq!(end.ending.stop_reason, None);
    assert_eq!(end.statics.len(), PER_BLOCK);
    assert_eq!(end.statics[1].inst.address, 0x40_1003);
}

#[test]
fn the_instruction_limit_ends_the_stream_and_says_so() {
    let (seen, end) = batches(3000, Some(5000));
    assert_eq!(seen, [(4096, 4, true), (5000 - 4096, 0, true)]);
    assert_eq!(end.simulated, 5000);
    assert!(!end.complete);
    assert_eq!(end.ending.stop_reason.as_deref(), Some("instruction limit"));
}

#[test]
fn the_engine_driven_by_the_source_times_the_dependency_chain() {
    let m = Machine::resolve("skylake").unwrap();
    let executions = 3000;
    let trace = ProcessTrace::child(TraceStream::recorded(std::io::Cursor::new(chain_trace(executions))));
    let mut engine = VariantEngine::inline(baseline(&m), ());
    let mut source = TraceSource::new(&m, trace, options(None), engine.take_returns(), Vec::new(), SharedFacts::new(), None::<Exact>);
    drive(&mut source, &mut engine);
    source.finish().unwrap();
    let (outcomes, ()) = engine.finish();
    // 12000 adds in one chain, 1 cycle of latency each on Skylake (4 ALU ports
    // would take 3000): 12000 cycles, plus the cold start (the first fetch
    // misses every cache level, and the pipeline fills) and nothing per add
    let adds = (executions * PER_BLOCK) as f64;
    let cycles = outcomes[0].cycles;
    assert_eq!(outcomes[0].instructions, adds as u64);
    assert!(cycles >= adds && cycles <= adds + 1000.0, "{cycles} cycles for {adds} dependent adds");
}
