//! The trace stream reader and the instruction layer on hand-made streams:
//! record order, truncation and corruption errors, buffer refills, process
//! events. Real programs under QEMU are in `qemu.rs`.
//!
//! A little over 500 lines: one cohesive file, the stream writer the cases
//! share and one case per property of the reader.

mod common;
use common::{load, store, Recorder};

use std::io::Read;

use bottlenose_trace::{
    read_stream, ExecutedInsn,
    InstructionStream, MemAccess, QemuError, StreamSummary, STREAM_VERSION,
};
use bottlenose_trace_format::Tag;

/// Writes records in the plugin's wire format and remembers where each
/// record starts. The layouts are written out by hand (the format crate's
/// encoders are the plugin's), so that these tests check the reader against
/// the documented layout.
#[derive(Default)]
struct Stream {
    bytes: Vec<u8>,
    starts: Vec<usize>,
}

impl Stream {
    fn new() -> Self {
        let mut s = Stream::default();
        s.start();
        s.bytes.push(Tag::Hello.byte());
        s.bytes.extend_from_slice(b"BNQT");
        s.bytes.extend_from_slice(&STREAM_VERSION.to_le_bytes());
        s
    }
    fn start(&mut self) {
        self.starts.push(self.bytes.len());
    }
    fn tb_def(&mut self, id: u32, insns: &[(u64, &[u8])]) -> &mut Self {
        self.start();
        self.bytes.push(Tag::TbDef.byte());
        self.bytes.extend_from_slice(&id.to_le_bytes());
        self.bytes
            .extend_from_slice(&(insns.len() as u16).to_le_bytes());
        for (vaddr, b) in insns {
            self.bytes.extend_from_slice(&vaddr.to_le_bytes());
            self.bytes.push(b.len() as u8);
            self.bytes.extend_from_slice(b);
        }
        self
    }
    fn exec(&mut self, id: u32, vcpu: u16) -> &mut Self {
        self.start();
        self.bytes.push(Tag::TbExec.byte());
        self.bytes.extend_from_slice(&id.to_le_bytes());
        self.bytes.extend_from_slice(&vcpu.to_le_bytes());
        self
    }
    fn mem(&mut self, index: u16, store: bool, shift: u8, vaddr: u64) -> &mut Self {
        self.start();
        self.bytes.push(Tag::Mem.byte());
        self.bytes.extend_from_slice(&index.to_le_bytes());
        self.bytes.push(shift | if store { 0x80 } else { 0 });
        self.bytes.extend_from_slice(&vaddr.to_le_bytes());
        self
    }
    fn mem_vcpu(&mut self, vcpu: u16) -> &mut Self {
        self.start();
        self.bytes.push(Tag::MemVcpu.byte());
        self.bytes.extend_from_slice(&vcpu.to_le_bytes());
        self
    }
    fn end(&mut self) -> &mut Self {
        self.start();
        self.bytes.push(Tag::End.byte());
        self
    }
    fn map(&mut self, start: u64, end: u64, offset: u64, path: &str) -> &mut Self {
        self.start();
        self.bytes.push(Tag::Map.byte());
        for v in [start, end, offset] {
            self.bytes.extend_from_slice(&v.to_le_bytes());
        }
        self.bytes.extend_from_slice(&(path.len() as u16).to_le_bytes());
        self.bytes.extend_from_slice(path.as_bytes());
        self
    }
}

/// An executed instruction with owned bytes, for comparisons.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Owned {
    vaddr: u64,
    bytes: Vec<u8>,
    tb_id: u32,
    index: u16,
    static_id: u32,
    vcpu: u16,
    mem: Vec<MemAccess>,
    overflow: u32,
    next: Option<u64>,
}

fn own(i: &ExecutedInsn<'_>) -> Owned {
    Owned {
        vaddr: i.vaddr,
        bytes: i.bytes.to_vec(),
        tb_id: i.tb_id,
        index: i.index_in_tb,
        static_id: i.static_id,
        vcpu: i.vcpu,
        mem: i.mem().to_vec(),
        overflow: i.mem_overflow,
        next: i.next_vaddr,
    }
}

fn insns_of(bytes: &[u8]) -> (Vec<Owned>, StreamSummary) {
    let mut out = Vec::new();
    let mut stream = InstructionStream::new(|i: &ExecutedInsn<'_>| out.push(own(i)));
    let sum = read_stream(bytes, &mut stream).unwrap();
    if !sum.complete {
        stream.finish();
    }
    drop(stream);
    (out, sum)
}

/// Two blocks: 0x1000 (3 instructions) and 0x2000 (1 instruction).
fn two_blocks() -> Stream {
    let mut s = Stream::new();
    s.tb_def(
        0,
        &[
            (0x1000, &[0x48, 0x8b, 0x07]),
            (0x1003, &[0x01, 0xc0]),
            (0x1005, &[0x89, 0x06]),
        ],
    )
    .exec(0, 0)
    .mem(0, false, 3, 0x5000)
    .mem(2, true, 2, 0x6000)
    .tb_def(1, &[(0x2000, &[0xc3])])
    .exec(1, 0)
    .mem(0, false, 3, 0x7ff0)
    .exec(0, 0)
    .end();
    s
}

#[test]
fn stream_records_reach_the_visitor_in_order() {
    let s = two_blocks();
    let mut rec = Recorder::default();
    let sum = read_stream(&s.bytes[..], &mut rec).unwrap();
    assert_eq!(
        rec.0,
        [
            "def 0 [0x1000:488b07 0x1003:01c0 0x1005:8906]",
            "exec 0 on 0",
            "mem 0/0 load 8@0x5000",
            "mem 0/2 store 4@0x6000",
            "def 1 [0x2000:c3]",
            "exec 1 on 0",
            "mem 0/0 load 8@0x7ff0",
            "exec 0 on 0",
            "end",
        ]
    );
    assert_eq!(
        sum,
        StreamSummary {
            records: 10,
            bytes: s.bytes.len() as u64,
            started: true,
            complete: true,
            tb_defs: 2,
            tb_execs: 3,
            mems: 3,
        }
    );
}

#[test]
fn map_records_reach_the_visitor_with_their_path() {
    let mut s = Stream::new();
    s.map(0x40_0000_0000, 0x40_0000_9000, 0x1000, "/usr/bin/a b").map(0x7000, 0x8000, 0, "").tb_def(0, &[(0x40_0000_1000, &[0x90])]).end();
    let mut r = Recorder::default();
    read_stream(&s.bytes[..], &mut r).unwrap();
    assert_eq!(r.0[..2], ["map 0x4000000000-0x4000009000@0x1000 /usr/bin/a b".to_string(), "map 0x7000-0x8000@0x0 ".to_string()]);
    // a cut anywhere inside a MAP record is a truncation, not a clean stop
    for cut in s.starts[1] + 1..s.starts[2] {
        assert!(read_stream(&s.bytes[..cut], &mut Recorder::default()).is_err(), "cut at {cut}");
    }
}

#[test]
fn stream_stops_reading_at_end() {
    let mut s = two_blocks();
    s.bytes.extend_from_slice(b"garbage after the end");
    let sum = read_stream(&s.bytes[..], &mut Recorder::default()).unwrap();
    assert!(sum.complete);
    assert_eq!(sum.bytes as usize, s.bytes.len() - 21);
}

#[test]
fn instruction_stream_emits_each_executed_instruction() {
    let (insns, sum) = insns_of(&two_blocks().bytes);
    assert!(sum.complete);
    let i = |vaddr, bytes: &[u8], tb_id, index, static_id, mem: Vec<MemAccess>, next| Owned {
        vaddr,
        bytes: bytes.to_vec(),
        tb_id,
        index,
        static_id,
        vcpu: 0,
        mem,
        overflow: 0,
        next,
    };
    assert_eq!(
        insns,
        [
            i(
                0x1000,
                &[0x48, 0x8b, 0x07],
                0,
                0,
                0,
                vec![load(8, 0x5000)],
                Some(0x1003)
            ),
            i(0x1003, &[0x01, 0xc0], 0, 1, 1, vec![], Some(0x1005)),
            i(
                0x1005,
                &[0x89, 0x06],
                0,
                2,
                2,
                vec![store(4, 0x6000)],
                Some(0x2000)
            ),
            i(
                0x2000,
                &[0xc3],
                1,
                0,
                3,
                vec![load(8, 0x7ff0)],
                Some(0x1000)
            ),
            i(0x1000, &[0x48, 0x8b, 0x07], 0, 0, 0, vec![], Some(0x1003)),
            i(0x1003, &[0x01, 0xc0], 0, 1, 1, vec![], Some(0x1005)),
            i(0x1005, &[0x89, 0x06], 0, 2, 2, vec![], None),
        ]
    );
}

#[test]
fn instruction_stream_waits_for_the_next_block_before_the_last_instruction() {
    let mut s = Stream::new();
    s.tb_def(0, &[(0x10, &[0x90]), (0x11, &[0x90])])
        .exec(0, 0)
        .mem(1, true, 0, 0x99);
    let mut seen = Vec::new();
    let mut stream = InstructionStream::new(|i: &ExecutedInsn<'_>| seen.push(i.vaddr));
    let sum = read_stream(&s.bytes[..], &mut stream).unwrap();
    assert!(!sum.complete);
    // The MEM record for instruction 1 releases instruction 0 only.
    assert_eq!(stream.executed(), 1);
    stream.finish();
    assert_eq!(stream.executed(), 2);
    assert_eq!(stream.static_insn(1), Some((0x11, &[0x90u8][..])));
    drop(stream);
    assert_eq!(seen, [0x10, 0x11]);
}

#[test]
fn instruction_stream_keeps_four_accesses_and_counts_the_rest() {
    let mut s = Stream::new();
    s.tb_def(0, &[(0x10, &[0xf3, 0xa4])]).exec(0, 0);
    for k in 0..6 {
        s.mem(0, k % 2 == 1, 0, 0x100 + k);
    }
    s.end();
    let (insns, _) = insns_of(&s.bytes);
    assert_eq!(insns.len(), 1);
    assert_eq!(
        insns[0].mem,
        [
            load(1, 0x100),
            store(1, 0x101),
            load(1, 0x102),
            store(1, 0x103)
        ]
    );
    assert_eq!(insns[0].overflow, 2);
}

#[test]
fn mem_records_follow_the_vcpu_of_mem_vcpu_records() {
    let mut s = Stream::new();
    s.tb_def(0, &[(0x10, &[0x8b, 0x07]), (0x12, &[0xc3])])
        .exec(0, 0)
        .exec(0, 1)
        .mem_vcpu(0)
        .mem(0, false, 2, 0xa0)
        .mem_vcpu(1)
        .mem(0, false, 2, 0xb0)
        .mem(1, false, 3, 0xb8)
        .mem_vcpu(0)
        .mem(1, false, 3, 0xa8)
        .end();
    let mut rec = Recorder::default();
    read_stream(&s.bytes[..], &mut rec).unwrap();
    assert_eq!(
        &rec.0[3..],
        [
            "mem 0/0 load 4@0xa0",
            "mem 1/0 load 4@0xb0",
            "mem 1/1 load 8@0xb8",
            "mem 0/1 load 8@0xa8",
            "end"
        ]
    );
    let (insns, _) = insns_of(&s.bytes);
    let by_vcpu = |v| -> Vec<(u64, Vec<MemAccess>, Option<u64>)> {
        insns
            .iter()
            .filter(|i| i.vcpu == v)
            .map(|i| (i.vaddr, i.mem.clone(), i.next))
            .collect()
    };
    assert_eq!(
        by_vcpu(0),
        [
            (0x10, vec![load(4, 0xa0)], Some(0x12)),
            (0x12, vec![load(8, 0xa8)], None)
        ]
    );
    assert_eq!(
        by_vcpu(1),
        [
            (0x10, vec![load(4, 0xb0)], Some(0x12)),
            (0x12, vec![load(8, 0xb8)], None)
        ]
    );
}

#[test]
fn every_truncation_is_either_a_clean_stop_or_an_error_with_the_offset() {
    let s = two_blocks();
    let len = s.bytes.len();
    for cut in 0..=len {
        let result = read_stream(&s.bytes[..cut], &mut Recorder::default());
        if cut == 0 {
            let sum = result.unwrap();
            assert!(!sum.started && !sum.complete && sum.records == 0);
        } else if cut == len {
            assert!(result.unwrap().complete);
        } else if s.starts.contains(&cut) {
            let sum = result.unwrap();
            assert!(!sum.complete, "cut {cut}");
            assert_eq!(sum.bytes as usize, cut);
            assert_eq!(
                sum.records as usize,
                s.starts.iter().filter(|&&b| b < cut).count()
            );
        } else {
            let record_start = *s.starts.iter().filter(|&&b| b < cut).max().unwrap();
            match result {
                Err(QemuError::Truncated {
                    offset,
                    record_offset,
                    ..
                }) => {
                    assert_eq!(offset as usize, cut);
                    assert_eq!(record_offset as usize, record_start);
                }
                other => panic!("cut {cut}: {other:?}"),
            }
        }
    }
    let err = read_stream(&s.bytes[..9], &mut Recorder::default()).unwrap_err();
    assert_eq!(
        err.to_string(),
        "trace stream truncated at byte offset 9 (inside a TB_DEF record starting at byte offset 7)"
    );
}

#[test]
fn corrupt_streams_are_errors_naming_the_offset() {
    let check = |bytes: &[u8], expected: &str| {
        let err = read_stream(bytes, &mut Recorder::default()).unwrap_err();
        assert!(matches!(err, QemuError::Corrupt { .. }), "{err:?}");
        assert_eq!(err.to_string(), expected);
    };
    check(
        &[2, 0, 0, 0, 0, 0, 0],
        "corrupt trace stream at byte offset 0: stream does not start with the bottlenose header (first byte 0x02); is the plugin from another version?",
    );
    check(
        b"\x00BNQX\x01\x00",
        "corrupt trace stream at byte offset 0: stream does not start with the bottlenose header; is the plugin from another version?",
    );
    check(
        b"\x00BNQT\x04\x00",
        "corrupt trace stream at byte offset 0: stream format version 4, this bottlenose reads version 3: rebuild the plugin",
    );
    let mut s = Stream::new();
    s.map(0x2000, 0x1000, 0, "/x");
    check(&s.bytes, "corrupt trace stream at byte offset 7: MAP of an empty range 0x2000..0x1000");
    let mut s = Stream::new();
    s.bytes.push(12);
    check(
        &s.bytes,
        "corrupt trace stream at byte offset 7: unknown record tag 0x0c",
    );
    // SKIPPED (tag 11, u16 count, u32 id, u64 executions) of a block never defined
    let mut s = Stream::new();
    s.bytes.extend_from_slice(&[11, 1, 0, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0]);
    check(
        &s.bytes,
        "corrupt trace stream at byte offset 7: SKIPPED count of undefined block 0",
    );
    let mut s = Stream::new();
    s.exec(0, 0);
    check(
        &s.bytes,
        "corrupt trace stream at byte offset 7: TB_EXEC of undefined block 0",
    );
    let mut s = Stream::new();
    s.tb_def(1, &[(0x10, &[0x90])]);
    check(
        &s.bytes,
        "corrupt trace stream at byte offset 7: TB_DEF id 1 out of sequence (expected 0)",
    );
    let mut s = Stream::new();
    s.tb_def(0, &[(0x10, &[])]);
    check(
        &s.bytes,
        "corrupt trace stream at byte offset 22: instruction 0 of TB_DEF 0 has length 0",
    );
    let mut s = Stream::new();
    s.tb_def(0, &[(0x10, &[0x90])]).mem(0, false, 0, 0);
    check(
        &s.bytes,
        "corrupt trace stream at byte offset 24: MEM record before any TB_EXEC on vCPU 0",
    );
    let mut s = Stream::new();
    s.tb_def(0, &[(0x10, &[0x90])])
        .exec(0, 0)
        .mem(1, false, 0, 0);
    check(
        &s.bytes,
        "corrupt trace stream at byte offset 31: MEM record for instruction 1 of block 0, which has 1 instructions",
    );
    let mut s = Stream::new();
    s.bytes
        .extend_from_slice(&[0, b'B', b'N', b'Q', b'T', 2, 0]);
    check(
        &s.bytes,
        "corrupt trace stream at byte offset 7: second HELLO record",
    );
}

/// Hands out at most `chunk` bytes per read, to exercise refills at every
/// position of every record.
struct Trickle<'a> {
    data: &'a [u8],
    chunk: usize,
}

impl Read for Trickle<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.chunk.min(buf.len()).min(self.data.len());
        buf[..n].copy_from_slice(&self.data[..n]);
        self.data = &self.data[n..];
        Ok(n)
    }
}

#[test]
fn long_streams_parse_across_buffer_refills() {
    // ~1.4 MB: larger than the parser's 1 MiB buffer, with TB_DEFs of
    // varying size straddling refills.
    let mut s = Stream::new();
    let mut expected = 0u64;
    let mut n_defs = 0u32;
    for round in 0..40_000u32 {
        if round % 100 == 0 {
            let n = 1 + (round / 100 % 40) as usize;
            let insns: Vec<(u64, Vec<u8>)> = (0..n)
                .map(|k| (0x40_0000 + 16 * k as u64, vec![0x90; 1 + k % 15]))
                .collect();
            let refs: Vec<(u64, &[u8])> = insns.iter().map(|(v, b)| (*v, &b[..])).collect();
            s.tb_def(n_defs, &refs);
            n_defs += 1;
        }
        let id = round % n_defs;
        s.exec(id, 0);
        expected += 1 + (id % 40) as u64;
        s.mem(0, round % 3 == 0, 3, round as u64 * 8);
        s.mem(0, false, 0, 1);
    }
    s.end();
    assert!(s.bytes.len() > 1 << 20, "{}", s.bytes.len());
    for chunk in [usize::MAX, 4096, 7, 1] {
        let mut count = 0u64;
        let mut mems = 0u64;
        let mut stream = InstructionStream::new(|i: &ExecutedInsn<'_>| {
            count += 1;
            mems += i.mem().len() as u64;
        });
        let sum = read_stream(
            Trickle {
                data: &s.bytes,
                chunk,
            },
            &mut stream,
        )
        .unwrap();
        drop(stream);
        assert!(sum.complete);
        assert_eq!(sum.bytes as usize, s.bytes.len());
        assert_eq!(sum.tb_execs, 40_000);
        assert_eq!(count, expected, "chunk {chunk}");
        assert_eq!(mems, 80_000);
    }
}

#[test]
fn exit_exec_and_note_records_reach_the_process_events() {
    let mut s = two_blocks();
    s.bytes.pop(); // no END: the process goes on in the program it exec's
    s.bytes.extend_from_slice(&[8, 5, 0]);
    s.bytes.extend_from_slice(b"a b c");
    s.bytes.extend_from_slice(&[7]);
    s.bytes.extend_from_slice(&(-3i32).to_le_bytes());
    s.bytes.extend_from_slice(&[6, 9, 0]);
    s.bytes.extend_from_slice(b"/bin/true");
    let mut stream = InstructionStream::new(|_: &ExecutedInsn<'_>| {});
    let sum = read_stream(&s.bytes[..], &mut stream).unwrap();
    assert!(!sum.complete, "an exec is not END");
    let e = stream.events();
    assert_eq!(e.exit_code, Some(-3));
    assert_eq!(e.exec.as_deref(), Some("/bin/true"));
    assert_eq!(e.notes, vec!["a b c".to_string()]);
    // a NOTE cut short is a truncation, not a shorter note
    let mut cut = two_blocks();
    cut.bytes.pop();
    cut.bytes.extend_from_slice(&[8, 5, 0, b'a']);
    assert!(matches!(read_stream(&cut.bytes[..], &mut InstructionStream::new(|_: &ExecutedInsn<'_>| {})), Err(QemuError::Truncated { .. })));
}
