//! The stream reader as a pull API ([`StreamReader`]): read in pieces, at the
//! points a visitor asks for, it hands out the same records in the same order
//! as reading the whole stream at once, and keeps its counts across the pieces.

mod common;
use common::Recorder;

use bottlenose_trace::{read_stream, Reading, StreamReader, TraceVisitor};
use bottlenose_trace_format::record as wire;

/// A stream of two blocks executed in turn `rounds` times, with a load in the
/// first block's second instruction, ended by EXIT and END.
fn stream(rounds: u32) -> Vec<u8> {
    let mut s = wire::hello().to_vec();
    wire::push_tb_def_header(&mut s, 0, 3);
    wire::push_tb_def_insn(&mut s, 0x1000, &[0x48, 0x01, 0xd8]); // add rax, rbx
    wire::push_tb_def_insn(&mut s, 0x1003, &[0x48, 0x8b, 0x07]); // mov rax, [rdi]
    wire::push_tb_def_insn(&mut s, 0x1006, &[0xeb, 0x10]); // jmp
    wire::push_tb_def_header(&mut s, 1, 1);
    wire::push_tb_def_insn(&mut s, 0x1018, &[0xeb, 0xe6]); // jmp back
    for k in 0..rounds {
        s.extend_from_slice(&wire::tb_exec(0, 0));
        s.extend_from_slice(&wire::mem(1, bottlenose_trace_format::MemInfo::new(3, false), 0x8000 + 8 * k as u64));
        s.extend_from_slice(&wire::tb_exec(1, 0));
    }
    s.extend_from_slice(&wire::exit(0));
    s.extend_from_slice(&wire::end());
    s
}

/// Records like [`Recorder`] and asks the reader to return after every block execution.
#[derive(Default)]
struct YieldAfterExec {
    rec: Recorder,
    pending_yield: bool,
}

impl TraceVisitor for YieldAfterExec {
    fn tb_def(&mut self, id: u32, insns: &[(u64, &[u8])]) {
        self.rec.tb_def(id, insns);
    }
    fn tb_exec(&mut self, id: u32, vcpu: u16) {
        self.rec.tb_exec(id, vcpu);
        self.pending_yield = true;
    }
    fn mem(&mut self, vcpu: u16, insn_index: u16, vaddr: u64, size: u8, is_store: bool) {
        self.rec.mem(vcpu, insn_index, vaddr, size, is_store);
    }
    fn exit(&mut self, code: i32) {
        self.rec.exit(code);
    }
    fn end(&mut self) {
        self.rec.end();
    }
    fn yield_now(&self) -> bool {
        self.pending_yield
    }
}

#[test]
fn reading_in_pieces_gives_the_records_of_reading_at_once() {
    let rounds = 50;
    let bytes = stream(rounds);
    let mut whole = Recorder::default();
    let whole_summary = read_stream(&bytes[..], &mut whole).unwrap();

    let mut reader = StreamReader::new(&bytes[..]);
    let mut v = YieldAfterExec::default();
    let mut yields = 0;
    loop {
        v.pending_yield = false;
        match reader.read(&mut v, &mut |_| {}).unwrap() {
            Reading::Yielded => {
                yields += 1;
                // it returned right after the record that asked for it
                assert!(v.rec.0.last().unwrap().starts_with("exec "), "{:?}", v.rec.0.last());
            }
            Reading::Ended => break,
        }
    }
    // two block executions per round, each one piece
    assert_eq!(yields, 2 * rounds);
    assert_eq!(v.rec.0, whole.0);
    assert_eq!(reader.summary(), whole_summary);
    assert!(whole_summary.complete);
    assert_eq!(whole_summary.tb_execs, 2 * rounds as u64);
    // after the end it reads nothing more
    assert_eq!(reader.read(&mut v, &mut |_| {}).unwrap(), Reading::Ended);
    assert_eq!(v.rec.0.len(), whole.0.len());
}

#[test]
fn a_stream_cut_off_mid_record_is_an_error_after_the_pieces_before_it() {
    let bytes = stream(3);
    // cut inside the last TB_EXEC's record (before EXIT and END)
    let cut = bytes.len() - wire::end().len() - wire::exit(0).len() - 2;
    let mut reader = StreamReader::new(&bytes[..cut]);
    let mut v = YieldAfterExec::default();
    let mut yields = 0;
    let err = loop {
        v.pending_yield = false;
        match reader.read(&mut v, &mut |_| {}) {
            Ok(Reading::Yielded) => yields += 1,
            Ok(Reading::Ended) => panic!("a cut record is not the end of the stream"),
            Err(e) => break e,
        }
    };
    // 3 rounds of two executions, the last one cut off
    assert_eq!(yields, 5);
    assert!(matches!(err, bottlenose_trace::QemuError::Truncated { .. }), "{err}");
    assert_eq!(reader.summary().tb_execs, 5);
}
