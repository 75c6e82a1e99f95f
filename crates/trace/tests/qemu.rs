//! QEMU runner and trace stream: hand-made streams for the parser and the
//! instruction layer, then real programs (built with gcc) run under
//! `qemu-x86_64` with the plugin (built here with cargo when needed).
//!
//! Tests that change environment variables are in `qemu_env.rs` (their own
//! process).

use std::ffi::OsString;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::time::Instant;

use bottlenose_inputs::elf_function_symbols;
use bottlenose_trace::{
    find_plugin, read_stream, run_program, run_program_with, trace_run, ExecutedInsn, GuestExit,
    InstructionStream, MemAccess, QemuCommand, QemuError, StreamSummary, TraceVisitor,
    PLUGIN_FILE_NAME, STREAM_VERSION,
};
use bottlenose_trace_format::Tag;
use object::{Object, ObjectSymbol};

// ---------------------------------------------------------------------------
// Hand-made streams

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

/// Records every visitor call as text.
#[derive(Default)]
struct Recorder(Vec<String>);

impl TraceVisitor for Recorder {
    fn tb_def(&mut self, id: u32, insns: &[(u64, &[u8])]) {
        let list: Vec<String> = insns
            .iter()
            .map(|(v, b)| format!("{v:#x}:{}", hex(b)))
            .collect();
        self.0.push(format!("def {id} [{}]", list.join(" ")));
    }
    fn tb_exec(&mut self, id: u32, vcpu: u16) {
        self.0.push(format!("exec {id} on {vcpu}"));
    }
    fn mem(&mut self, vcpu: u16, insn_index: u16, vaddr: u64, size: u8, is_store: bool) {
        let kind = if is_store { "store" } else { "load" };
        self.0
            .push(format!("mem {vcpu}/{insn_index} {kind} {size}@{vaddr:#x}"));
    }
    fn map(&mut self, start: u64, end: u64, offset: u64, path: &[u8]) {
        self.0.push(format!("map {start:#x}-{end:#x}@{offset:#x} {}", String::from_utf8_lossy(path)));
    }
    fn end(&mut self) {
        self.0.push("end".to_string());
    }
    fn exit(&mut self, code: i32) {
        self.0.push(format!("exit {code}"));
    }
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
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

fn load(size: u8, vaddr: u64) -> MemAccess {
    MemAccess {
        vaddr,
        size,
        is_store: false,
    }
}

fn store(size: u8, vaddr: u64) -> MemAccess {
    MemAccess {
        vaddr,
        size,
        is_store: true,
    }
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

// ---------------------------------------------------------------------------
// Real programs under QEMU

/// Builds the plugin with cargo (a no-op when up to date) into this test
/// binary's profile directory, where `find_plugin` looks.
fn plugin() -> PathBuf {
    static PLUGIN: OnceLock<PathBuf> = OnceLock::new();
    PLUGIN
        .get_or_init(|| {
            let exe = std::env::current_exe().unwrap();
            // target/<profile>/deps/<test binary>
            let profile_dir = exe.parent().unwrap().parent().unwrap().to_path_buf();
            let mut cmd = Command::new(env!("CARGO"));
            cmd.args(["build", "--quiet", "-p", "bottlenose-qemu-plugin"])
                .current_dir(env!("CARGO_MANIFEST_DIR"));
            if profile_dir.file_name() == Some("release".as_ref()) {
                cmd.arg("--release");
            }
            let status = cmd.status().expect("cargo runs");
            assert!(status.success(), "building the plugin failed");
            let so = profile_dir.join(PLUGIN_FILE_NAME);
            assert!(so.is_file(), "{} missing after the build", so.display());
            if std::env::var_os("BOTTLENOSE_QEMU_PLUGIN").is_none() {
                // It finds target/<profile>/deps/ (cargo's own copy, a hard
                // link) or target/<profile>/.
                let found = find_plugin().unwrap();
                assert_eq!(found.file_name(), so.file_name());
                assert!(
                    so.parent().unwrap().starts_with(found.parent().unwrap())
                        || found.parent().unwrap().starts_with(so.parent().unwrap())
                );
            }
            so
        })
        .clone()
}

/// Compiles `files` (name, text) with gcc into `dir/name`.
fn gcc(dir: &Path, name: &str, files: &[(&str, &str)], flags: &[&str]) -> PathBuf {
    let out = dir.join(name);
    let mut cmd = Command::new("gcc");
    cmd.args(flags).arg("-o").arg(&out);
    for (file, text) in files {
        let p = dir.join(file);
        std::fs::write(&p, text).unwrap();
        cmd.arg(p);
    }
    let status = cmd.status().expect("gcc must be installed for these tests");
    assert!(status.success(), "gcc failed for {name}");
    out
}

fn function_range(program: &Path, name: &str) -> std::ops::Range<u64> {
    let data = std::fs::read(program).unwrap();
    let (_, addr, size) = elf_function_symbols(&data)
        .unwrap()
        .into_iter()
        .find(|(n, _, _)| n == name)
        .unwrap_or_else(|| panic!("no symbol {name}"));
    assert!(size > 0);
    addr..addr + size
}

fn data_symbol(program: &Path, name: &str) -> u64 {
    let data = std::fs::read(program).unwrap();
    let file = object::File::parse(&data[..]).unwrap();
    let sym = file.symbols().find(|s| s.name() == Ok(name)).unwrap();
    sym.address()
}

/// The guest's mappings as the plugin reports them: every executed block
/// lies in a mapping reported before its TB_DEF, the program's code in the
/// mapping of its own file (canonical path), libc's in libc's.
#[test]
fn mappings_cover_every_executed_block_and_name_the_files() {
    plugin();
    let dir = tempfile::tempdir().unwrap();
    let prog = gcc(dir.path(), "maps", &[("maps.c", "#include <string.h>\n#include <stdio.h>\nint main(void) { char a[64]; memset(a, 1, sizeof a); printf(\"%d\\n\", (int)strlen(a + 60)); return 0; }\n")], &["-O1"]);
    #[derive(Default)]
    struct Maps {
        maps: Vec<(u64, u64, String)>,
        /// first address of each block, with the file of the mapping holding it
        blocks: Vec<(u64, Option<String>)>,
    }
    impl TraceVisitor for Maps {
        fn map(&mut self, start: u64, end: u64, _offset: u64, path: &[u8]) {
            self.maps.push((start, end, String::from_utf8_lossy(path).into_owned()));
        }
        fn tb_def(&mut self, _id: u32, insns: &[(u64, &[u8])]) {
            let a = insns[0].0;
            let file = self.maps.iter().rev().find(|m| m.0 <= a && a < m.1).map(|m| m.2.clone());
            self.blocks.push((a, file));
        }
    }
    let mut v = Maps::default();
    let (exit, sum) = run_program_with(&prog, &[], &mut v).unwrap();
    assert_eq!(exit, GuestExit::Code(0));
    assert!(sum.complete);
    let unmapped: Vec<u64> = v.blocks.iter().filter(|b| b.1.is_none()).map(|b| b.0).collect();
    assert!(unmapped.is_empty(), "blocks outside every reported mapping: {unmapped:x?}");
    let exe = prog.canonicalize().unwrap().display().to_string();
    let files: std::collections::BTreeSet<String> = v.blocks.iter().filter_map(|b| b.1.clone()).collect();
    assert!(files.contains(&exe), "{files:?}");
    assert!(files.iter().any(|f| f.ends_with("/libc.so.6")), "{files:?}");
    assert!(files.iter().any(|f| f.contains("/ld-linux-x86-64.so.2")), "{files:?}");
}

const ECHO_C: &str = r#"
#include <stdio.h>
#include <string.h>
int main(int argc, char **argv) {
    char line[100] = "";
    if (!fgets(line, sizeof line, stdin)) line[0] = 0;
    line[strcspn(line, "\n")] = 0;
    volatile long s = 0;
    for (long i = 0; i < 1000; i++) s += i;
    printf("guest says %s argc=%d arg1=%s sum=%ld\n", line, argc, argc > 1 ? argv[1] : "-", (long)s);
    fprintf(stderr, "guest stderr line\n");
    return 3;
}
"#;

#[test]
fn stdio_pipes_arguments_and_exit_code_pass_through() {
    plugin();
    let dir = tempfile::tempdir().unwrap();
    let prog = gcc(dir.path(), "echo", &[("echo.c", ECHO_C)], &["-O1"]);
    let mut run = QemuCommand::new(&prog)
        .arg("first arg")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    run.take_stdin().unwrap().write_all(b"ping\n").unwrap();
    let mut stdout = run.take_stdout().unwrap();
    let mut count = 0u64;
    let mut insns = InstructionStream::new(|_: &ExecutedInsn<'_>| count += 1);
    let (exit, sum) = trace_run(run, &mut insns).unwrap();
    drop(insns);
    let mut out = String::new();
    stdout.read_to_string(&mut out).unwrap();
    assert_eq!(out, "guest says ping argc=2 arg1=first arg sum=499500\n");
    assert_eq!(exit, GuestExit::Code(3));
    assert_eq!(exit.to_string(), "exited with code 3");
    assert!(sum.complete && sum.started);
    // The loop alone runs thousands of instructions; libc start-up many more.
    assert!(count > 10_000, "{count}");
}

/// Runs in a child process of `stdio_is_inherited_by_default` only.
#[test]
fn inherited_stdio_child() {
    let Some(prog) = std::env::var_os("BOTTLENOSE_QEMU_TEST_PROG") else {
        return;
    };
    let out = run_program(Path::new(&prog), &[OsString::from("inherited")], |_| {}).unwrap();
    assert_eq!(out.exit, GuestExit::Code(3));
    assert!(out.complete);
}

#[test]
fn stdio_is_inherited_by_default() {
    plugin();
    let dir = tempfile::tempdir().unwrap();
    let prog = gcc(dir.path(), "echo", &[("echo.c", ECHO_C)], &["-O1"]);
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "inherited_stdio_child",
            "--nocapture",
            "--test-threads=1",
        ])
        .env("BOTTLENOSE_QEMU_TEST_PROG", &prog)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(b"pong\n").unwrap();
    let out = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "child test failed:\n{stdout}\n{stderr}"
    );
    assert!(
        stdout.contains("guest says pong argc=2 arg1=inherited sum=499500\n"),
        "{stdout}"
    );
    assert!(stderr.contains("guest stderr line"), "{stderr}");
}

const COUNT_S: &str = r#"
    .intel_syntax noprefix
    .text
    .globl count_loop
    .type count_loop, @function
count_loop:
    xor eax, eax
    mov ecx, edi
1:  add rax, 1
    dec ecx
    jnz 1b
    ret
    .size count_loop, .-count_loop
    .section .note.GNU-stack,"",@progbits
"#;

const COUNT_C: &str = r#"
long count_loop(int n);
int main(void) {
    long a = count_loop(1000);
    long b = count_loop(7);
    return a == 1000 && b == 7 ? 0 : 1;
}
"#;

/// What `count_loop` did, as seen through an `InstructionStream`.
#[derive(Debug, Default, PartialEq, Eq)]
struct LoopStats {
    inside: u64,
    adds: u64,
    back_edges: u64,
    exits: u64,
    rets: Vec<u64>,
}

fn observe(stats: &mut LoopStats, range: &std::ops::Range<u64>, i: &ExecutedInsn<'_>) {
    if !range.contains(&i.vaddr) {
        return;
    }
    let loop_head = range.start + 4; // after xor eax,eax (2) and mov ecx,edi (2)
    stats.inside += 1;
    match i.bytes {
        [0x48, 0x83, 0xc0, 0x01] => stats.adds += 1,
        [0x75, _] => {
            if i.next_vaddr == Some(loop_head) {
                stats.back_edges += 1;
            } else {
                assert_eq!(i.next_vaddr, Some(i.vaddr + 2));
                stats.exits += 1;
            }
        }
        [0xc3] => {
            assert_eq!(i.mem().len(), 1, "ret pops the return address");
            stats.rets.push(i.next_vaddr.unwrap());
        }
        _ => {}
    }
}

#[test]
fn executed_instruction_count_in_a_function_is_exact() {
    plugin();
    let dir = tempfile::tempdir().unwrap();
    let prog = gcc(
        dir.path(),
        "count",
        &[("count.c", COUNT_C), ("count.s", COUNT_S)],
        &["-O1", "-no-pie"],
    );
    let range = function_range(&prog, "count_loop");
    let main = function_range(&prog, "main");
    let check = |stats: &LoopStats| {
        // Per call: xor, mov, 3 per iteration, ret.
        assert_eq!(stats.inside, (3 + 3 * 1000) + (3 + 3 * 7));
        assert_eq!(stats.adds, 1007);
        assert_eq!(stats.back_edges, 999 + 6);
        assert_eq!(stats.exits, 2);
        assert_eq!(stats.rets.len(), 2);
        assert!(
            stats.rets.iter().all(|r| main.contains(r)),
            "{:x?}",
            stats.rets
        );
    };

    // Shared memory transport (the default), through run_program.
    let mut shm = LoopStats::default();
    let out = run_program(&prog, &[], |i| observe(&mut shm, &range, i)).unwrap();
    assert_eq!(out.exit, GuestExit::Code(0));
    assert!(out.complete);
    check(&shm);

    // Plain socket transport.
    let mut sock = LoopStats::default();
    let run = QemuCommand::new(&prog)
        .shared_memory(false)
        .spawn()
        .unwrap();
    let mut insns = InstructionStream::new(|i: &ExecutedInsn<'_>| observe(&mut sock, &range, i));
    let (exit, sum) = trace_run(run, &mut insns).unwrap();
    let total = insns.executed();
    drop(insns);
    assert!(exit.success() && sum.complete);
    assert_eq!(total, out.instructions);
    check(&sock);

    // The plugin writing to a plain file, QEMU started by hand.
    let trace = dir.path().join("count.trace");
    let file = std::fs::File::create(&trace).unwrap();
    let fd = std::os::fd::AsRawFd::as_raw_fd(&file);
    let mut cmd = Command::new(bottlenose_trace::find_qemu().unwrap());
    cmd.arg("-plugin")
        .arg(format!("{},fd=3", plugin().display()))
        .arg(&prog);
    // SAFETY: dup2 only.
    unsafe {
        std::os::unix::process::CommandExt::pre_exec(&mut cmd, move || {
            let copy = libc::fcntl(fd, libc::F_DUPFD_CLOEXEC, 10);
            if copy < 0 || libc::dup2(copy, 3) < 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    assert!(cmd.status().unwrap().success());
    drop(file);
    let mut from_file = LoopStats::default();
    let mut insns =
        InstructionStream::new(|i: &ExecutedInsn<'_>| observe(&mut from_file, &range, i));
    let sum = read_stream(std::fs::File::open(&trace).unwrap(), &mut insns).unwrap();
    let total = insns.executed();
    drop(insns);
    assert!(sum.complete);
    assert_eq!(total, out.instructions);
    check(&from_file);
}

const STORE_S: &str = r#"
    .intel_syntax noprefix
    .text
    .globl store_loop
    .type store_loop, @function
store_loop:
    lea rdi, [rip + arr]
    xor eax, eax
1:  mov dword ptr [rdi + rax*4], eax
    mov rdx, qword ptr [rdi]
    movzx edx, byte ptr [rdi + 255]
    add rax, 1
    cmp rax, 64
    jne 1b
    ret
    .size store_loop, .-store_loop
    .data
    .globl arr
    .type arr, @object
arr:
    .zero 256
    .size arr, 256
    .section .note.GNU-stack,"",@progbits
"#;

const STORE_C: &str = r#"
void store_loop(void);
extern int arr[64];
int main(void) { store_loop(); return arr[63] == 63 ? 0 : 1; }
"#;

#[test]
fn memory_accesses_have_the_right_addresses_sizes_and_kinds() {
    plugin();
    let dir = tempfile::tempdir().unwrap();
    let prog = gcc(
        dir.path(),
        "store",
        &[("store.c", STORE_C), ("store.s", STORE_S)],
        &["-O1", "-no-pie"],
    );
    let range = function_range(&prog, "store_loop");
    let arr = data_symbol(&prog, "arr");
    let mut accesses: Vec<(Vec<u8>, Vec<MemAccess>)> = Vec::new();
    let out = run_program(&prog, &[], |i| {
        if range.contains(&i.vaddr) && !i.mem().is_empty() {
            accesses.push((i.bytes.to_vec(), i.mem().to_vec()));
        }
    })
    .unwrap();
    assert_eq!(out.exit, GuestExit::Code(0));
    // 64 iterations of store, 8-byte load, byte load; then ret's pop.
    assert_eq!(accesses.len(), 64 * 3 + 1);
    for k in 0..64u64 {
        let it = &accesses[3 * k as usize..3 * k as usize + 3];
        assert_eq!(it[0].1, [store(4, arr + 4 * k)]);
        assert_eq!(it[1].1, [load(8, arr)]);
        assert_eq!(it[2].1, [load(1, arr + 255)]);
    }
    let (ret_bytes, ret_mem) = &accesses[64 * 3];
    assert_eq!(ret_bytes, &[0xc3]);
    assert_eq!(ret_mem.len(), 1);
    assert!(!ret_mem[0].is_store && ret_mem[0].size == 8);
}

const FILL_S: &str = r#"
    .intel_syntax noprefix
    .text
    .globl fill
    .type fill, @function
fill:
    xor eax, eax
1:  mov dword ptr [rdi + rax*4], eax
    add rax, 1
    cmp rax, 64
    jne 1b
    ret
    .size fill, .-fill
    .section .note.GNU-stack,"",@progbits
"#;

const THREADS_C: &str = r#"
#include <pthread.h>
void fill(int *arr);
int a[64], b[64];
/* both threads are alive at once, so QEMU cannot reuse one vCPU index for both */
static pthread_barrier_t start, stop;
static void *work(void *arr) {
    pthread_barrier_wait(&start);
    for (int i = 0; i < 2000; i++) fill(arr);
    pthread_barrier_wait(&stop);
    return 0;
}
int main(void) {
    pthread_t t1, t2;
    pthread_barrier_init(&start, 0, 2);
    pthread_barrier_init(&stop, 0, 2);
    pthread_create(&t1, 0, work, a);
    pthread_create(&t2, 0, work, b);
    pthread_join(t1, 0);
    pthread_join(t2, 0);
    return a[63] + b[63] == 126 ? 0 : 1;
}
"#;

#[test]
fn threads_get_their_own_vcpu_and_memory_records() {
    plugin();
    let dir = tempfile::tempdir().unwrap();
    let prog = gcc(
        dir.path(),
        "threads",
        &[("threads.c", THREADS_C), ("fill.s", FILL_S)],
        &["-O1", "-no-pie", "-pthread"],
    );
    let range = function_range(&prog, "fill");
    let a = data_symbol(&prog, "a");
    let b = data_symbol(&prog, "b");
    // Per vCPU: stores into a, stores into b, executed instructions of fill.
    let mut per_vcpu: std::collections::BTreeMap<u16, (u64, u64, u64)> = Default::default();
    let insns = InstructionStream::new(|i: &ExecutedInsn<'_>| {
        if !range.contains(&i.vaddr) {
            return;
        }
        let e = per_vcpu.entry(i.vcpu).or_default();
        e.2 += 1;
        for m in i.mem() {
            if m.is_store {
                assert_eq!(m.size, 4);
                if (a..a + 256).contains(&m.vaddr) {
                    e.0 += 1;
                } else if (b..b + 256).contains(&m.vaddr) {
                    e.1 += 1;
                } else {
                    panic!("store to {:#x}", m.vaddr);
                }
            }
        }
    });
    /// Forwards to the instruction stream and counts how often the
    /// executing vCPU changes in the stream.
    struct Switches<V> {
        inner: V,
        last: u16,
        switches: u64,
    }
    impl<V: TraceVisitor> TraceVisitor for Switches<V> {
        fn tb_def(&mut self, id: u32, insns: &[(u64, &[u8])]) {
            self.inner.tb_def(id, insns);
        }
        fn tb_exec(&mut self, id: u32, vcpu: u16) {
            if vcpu != self.last {
                self.switches += 1;
                self.last = vcpu;
            }
            self.inner.tb_exec(id, vcpu);
        }
        fn mem(&mut self, vcpu: u16, index: u16, vaddr: u64, size: u8, store: bool) {
            self.inner.mem(vcpu, index, vaddr, size, store);
        }
        fn end(&mut self) {
            self.inner.end();
        }
    }
    let mut v = Switches {
        inner: insns,
        last: 0,
        switches: 0,
    };
    let (exit, sum) = run_program_with(&prog, &[], &mut v).unwrap();
    let switches = v.switches;
    drop(v);
    eprintln!("threads: {switches} vCPU switches in the stream");
    assert_eq!(exit, GuestExit::Code(0));
    assert!(sum.complete);
    // Two threads, each on its own vCPU, each filling one array only.
    assert_eq!(per_vcpu.len(), 2, "{per_vcpu:?}");
    let mut seen: Vec<(u64, u64, u64)> = per_vcpu.values().copied().collect();
    seen.sort();
    let per_call = 1 + 4 * 64 + 1;
    assert_eq!(
        seen,
        [
            (0, 2000 * 64, 2000 * per_call),
            (2000 * 64, 0, 2000 * per_call)
        ]
    );
    assert!(per_vcpu.keys().all(|&v| v != 0), "main thread is vCPU 0");
}

const FORK_C: &str = r#"
#include <stdio.h>
#include <unistd.h>
#include <sys/wait.h>
int main(void) {
    pid_t quick = fork();
    if (quick == 0) { volatile long s = 0; for (int i = 0; i < 100000; i++) s += i; _exit(7); }
    int st = 0;
    waitpid(quick, &st, 0);
    if (fork() == 0) { sleep(3); _exit(0); }   /* outlives the parent */
    return WEXITSTATUS(st);
}
"#;

#[test]
fn forked_children_do_not_write_into_the_stream_nor_hold_it_open() {
    plugin();
    let dir = tempfile::tempdir().unwrap();
    let prog = gcc(
        dir.path(),
        "fork",
        &[("fork.c", FORK_C)],
        &["-O1", "-no-pie"],
    );
    let main = function_range(&prog, "main");
    let mut in_main = 0u64;
    let t = Instant::now();
    let out = run_program(&prog, &[], |i| {
        if main.contains(&i.vaddr) {
            in_main += 1;
        }
    })
    .unwrap();
    let secs = t.elapsed().as_secs_f64();
    assert_eq!(out.exit, GuestExit::Code(7));
    assert!(out.complete);
    // The child's 100000-iteration loop is not in the parent's trace.
    assert!(in_main < 1000, "{in_main}");
    eprintln!("fork: run took {secs:.2} s");
    assert!(
        secs < 2.5,
        "waited for the sleeping grandchild: {secs:.1} s"
    );
}

const CRASH_C: &str = r#"
#include <stdio.h>
int main(void) {
    volatile long s = 0;
    for (long i = 0; i < 100; i++) s += i;
    volatile int *p = 0;
    *p = (int)s;
    return 0;
}
"#;

/// Runs CRASH_C; returns (instructions in all, in main, last address
/// executed in main, summary).
fn run_crash(prog: &Path, shared_memory: bool) -> (u64, u64, Option<u64>, StreamSummary) {
    let main = function_range(prog, "main");
    let mut in_main = 0u64;
    let mut last_in_main = None;
    let mut insns = InstructionStream::new(|i: &ExecutedInsn<'_>| {
        if main.contains(&i.vaddr) {
            in_main += 1;
            last_in_main = Some(i.vaddr);
        }
    });
    // QEMU reports the uncaught signal on stderr; keep the test output clean.
    let run = QemuCommand::new(prog)
        .shared_memory(shared_memory)
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let (exit, sum) = trace_run(run, &mut insns).unwrap();
    if !sum.complete {
        insns.finish();
    }
    let total = insns.executed();
    drop(insns);
    assert_eq!(
        exit,
        GuestExit::Signal {
            signal: libc::SIGSEGV,
            core_dumped: false
        }
    );
    assert_eq!(exit.to_string(), "killed by signal 11 (SIGSEGV)");
    assert!(sum.started);
    (total, in_main, last_in_main, sum)
}

#[test]
fn a_crashing_program_reports_the_signal_and_its_trace() {
    plugin();
    let dir = tempfile::tempdir().unwrap();
    let prog = gcc(
        dir.path(),
        "crash",
        &[("crash.c", CRASH_C)],
        &["-O1", "-no-pie"],
    );
    let (total, in_main, last, sum) = run_crash(&prog, true);
    eprintln!(
        "crash (shared memory): {total} instructions, {in_main} in main, complete: {}",
        sum.complete
    );
    // QEMU 7.2 runs no plugin exit hook on a fatal signal: no END, but
    // everything the plugin wrote is there, main's loop included.
    assert!(!sum.complete);
    assert!(in_main > 300, "{in_main}");
    assert!(last.is_some());

    // With plain socket writes, the plugin's unflushed buffer is lost.
    let (total_sock, _, _, sum_sock) = run_crash(&prog, false);
    assert!(!sum_sock.complete);
    assert!(total_sock < total, "{total_sock} vs {total}");
}

const SPIN_C: &str = r#"
int main(void) { volatile long s = 0; for (;;) s++; }
"#;

/// Kills QEMU after it has run for a while.
struct KillAfter {
    pid: i32,
    execs: u64,
}

impl TraceVisitor for KillAfter {
    fn tb_exec(&mut self, _id: u32, _vcpu: u16) {
        self.execs += 1;
        if self.execs == 300_000 {
            // SAFETY: signalling our own child.
            unsafe { libc::kill(self.pid, libc::SIGKILL) };
        }
    }
}

#[test]
fn a_killed_run_ends_incomplete_not_in_error() {
    plugin();
    let dir = tempfile::tempdir().unwrap();
    let prog = gcc(dir.path(), "spin", &[("spin.c", SPIN_C)], &["-O1"]);
    let run = QemuCommand::new(&prog).spawn().unwrap();
    let mut v = KillAfter {
        pid: run.id() as i32,
        execs: 0,
    };
    let (exit, sum) = trace_run(run, &mut v).unwrap();
    assert_eq!(exit.signal(), Some(libc::SIGKILL));
    assert!(sum.started && !sum.complete);
    assert!(v.execs >= 300_000);
}

#[test]
fn program_errors() {
    plugin();
    let dir = tempfile::tempdir().unwrap();
    let run = |p: &Path| run_program(p, &[], |_| {}).unwrap_err().to_string();

    let missing = dir.path().join("no-such-program");
    assert_eq!(
        run(&missing),
        format!("program not found: {}", missing.display())
    );
    assert_eq!(
        run(Path::new("bottlenose-no-such-program")),
        "program not found: bottlenose-no-such-program"
    );

    let text = dir.path().join("notes.txt");
    std::fs::write(&text, "just text\n").unwrap();
    assert_eq!(
        run(&text),
        format!("{} is not an x86-64 or AArch64 ELF executable", text.display())
    );

    assert_eq!(
        run(dir.path()),
        format!("{} is not an x86-64 or AArch64 ELF executable", dir.path().display())
    );

    // A relocatable object is ELF x86-64 but not an executable.
    let obj = dir.path().join("spin.o");
    std::fs::write(dir.path().join("spin.c"), SPIN_C).unwrap();
    let status = Command::new("gcc")
        .arg("-c")
        .arg("-o")
        .arg(&obj)
        .arg(dir.path().join("spin.c"))
        .status()
        .unwrap();
    assert!(status.success());
    assert_eq!(
        run(&obj),
        format!("{} is not an x86-64 or AArch64 ELF executable", obj.display())
    );

    // An x86-64 executable without execute permission.
    let prog = gcc(dir.path(), "spin", &[("spin.c", SPIN_C)], &["-O1"]);
    let noexec = dir.path().join("noexec");
    std::fs::copy(&prog, &noexec).unwrap();
    std::fs::set_permissions(&noexec, std::os::unix::fs::PermissionsExt::from_mode(0o644)).unwrap();
    assert_eq!(
        run(&noexec),
        format!("{} is not executable: permission denied", noexec.display())
    );

    // A cut-off executable passes the header check, but QEMU cannot load it.
    let cut = dir.path().join("cut");
    std::fs::write(&cut, &std::fs::read(&prog).unwrap()[..200]).unwrap();
    std::fs::set_permissions(&cut, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let err = QemuCommand::new(&cut)
        .stderr(Stdio::null())
        .spawn()
        .and_then(|run| trace_run(run, &mut Recorder::default()))
        .unwrap_err();
    assert!(matches!(err, QemuError::QemuFailed { .. }), "{err:?}");
    assert!(
        err.to_string().ends_with(
            "failed before the program ran (exited with code 255); see its message above"
        ),
        "{err}"
    );

    // An ELF for another machine: patch e_machine to RISC-V (243).
    let mut data = std::fs::read(&prog).unwrap();
    data[18] = 243;
    data[19] = 0;
    let arm = dir.path().join("riscv");
    std::fs::write(&arm, &data).unwrap();
    assert_eq!(
        run(&arm),
        format!("{} is not an x86-64 or AArch64 ELF executable", arm.display())
    );
}

#[test]
fn run_program_with_a_visitor_sees_raw_records() {
    plugin();
    let dir = tempfile::tempdir().unwrap();
    let prog = gcc(
        dir.path(),
        "count",
        &[("count.c", COUNT_C), ("count.s", COUNT_S)],
        &["-O1", "-no-pie"],
    );
    let mut rec = Recorder::default();
    let (exit, sum) = run_program_with(&prog, &[], &mut rec).unwrap();
    assert!(exit.success());
    assert!(sum.complete);
    assert_eq!(rec.0.last().map(String::as_str), Some("end"));
    assert_eq!(rec.0[rec.0.len() - 2], "exit 0", "exit_group's code, then the plugin's END");
    // the mappings holding the first block come before it
    assert!(rec.0[0].starts_with("map "), "{}", rec.0[0]);
    assert!(rec.0.iter().find(|r| !r.starts_with("map ")).unwrap().starts_with("def 0 ["));
    assert_eq!(sum.records, rec.0.len() as u64 + 1, "HELLO is counted too");
}

/// Runs in a child process of `missing_qemu_or_plugin` only: it changes
/// environment variables, which must race with no other test.
#[test]
fn env_child() {
    if std::env::var_os("BOTTLENOSE_QEMU_TEST_ENV_CHILD").is_none() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let prog = gcc(
        dir.path(),
        "hello",
        &[("hello.c", "int main(void) { return 0; }\n")],
        &[],
    );
    let run = || run_program(&prog, &[], |_| {});

    std::env::remove_var("BOTTLENOSE_QEMU");
    std::env::remove_var("BOTTLENOSE_QEMU_PLUGIN");
    let out = run().unwrap();
    assert!(out.exit.success() && out.complete);

    std::env::set_var("BOTTLENOSE_QEMU", "/nonexistent/qemu-x86_64");
    let err = run().unwrap_err();
    assert!(matches!(err, QemuError::QemuNotFound { .. }));
    assert_eq!(
        err.to_string(),
        "qemu-x86_64 not found: install the Debian package qemu-user (apt-get install qemu-user) (BOTTLENOSE_QEMU=/nonexistent/qemu-x86_64 is not an executable file)"
    );

    std::env::remove_var("BOTTLENOSE_QEMU");
    let path = std::env::var_os("PATH").unwrap();
    std::env::set_var("PATH", dir.path());
    let err = run().unwrap_err();
    std::env::set_var("PATH", &path);
    assert_eq!(
        err.to_string(),
        "qemu-x86_64 not found: install the Debian package qemu-user (apt-get install qemu-user)"
    );

    std::env::set_var("BOTTLENOSE_QEMU_PLUGIN", "/nonexistent/plugin.so");
    let err = run().unwrap_err();
    assert_eq!(
        err.to_string(),
        "QEMU plugin libbottlenose_qemu_plugin.so not found (BOTTLENOSE_QEMU_PLUGIN=/nonexistent/plugin.so does not exist): build it with `cargo build -p bottlenose-qemu-plugin` (or with --release)"
    );

    // A file that is not a plugin: QEMU refuses it and exits before running
    // the program.
    let fake = dir.path().join("fake.so");
    std::fs::write(&fake, "not a shared object").unwrap();
    std::env::set_var("BOTTLENOSE_QEMU_PLUGIN", &fake);
    let err = run().unwrap_err();
    std::env::remove_var("BOTTLENOSE_QEMU_PLUGIN");
    assert!(matches!(err, QemuError::QemuFailed { .. }), "{err:?}");
    assert!(
        err.to_string()
            .ends_with("failed before the program ran (exited with code 1); see its message above"),
        "{err}"
    );
}

#[test]
fn missing_qemu_or_plugin() {
    plugin();
    let out = Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "env_child", "--nocapture", "--test-threads=1"])
        .env("BOTTLENOSE_QEMU_TEST_ENV_CHILD", "1")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "child test failed:\n{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("test env_child ... ok"));
}

// ---------------------------------------------------------------------------
// Throughput (run by hand: cargo test --release -p bottlenose-trace --test qemu -- --ignored --nocapture)

const BENCH_S: &str = r#"
    .intel_syntax noprefix
    .text
    .globl alu_loop
    .type alu_loop, @function
alu_loop:
    xor eax, eax
1:  add rax, rdi
    xor rdx, rax
    dec rdi
    jnz 1b
    ret
    .size alu_loop, .-alu_loop
    .globl mem_loop
    .type mem_loop, @function
mem_loop:
    xor eax, eax
    sub rsp, 64
1:  mov qword ptr [rsp + 8], rax
    add rax, qword ptr [rsp + 8]
    dec rdi
    jnz 1b
    add rsp, 64
    ret
    .size mem_loop, .-mem_loop
    .section .note.GNU-stack,"",@progbits
"#;

const BENCH_C: &str = r#"
#include <stdlib.h>
#include <string.h>
long alu_loop(long n);
long mem_loop(long n);
int main(int argc, char **argv) {
    long n = atol(argv[2]);
    long r = strcmp(argv[1], "mem") == 0 ? mem_loop(n) : alu_loop(n);
    return (int)(r & 1);
}
"#;

#[derive(Default)]
struct Counter {
    execs: u64,
    mems: u64,
}

impl TraceVisitor for Counter {
    fn tb_exec(&mut self, _: u32, _: u16) {
        self.execs += 1;
    }
    fn mem(&mut self, _: u16, _: u16, _: u64, _: u8, _: bool) {
        self.mems += 1;
    }
}

#[test]
#[ignore]
fn throughput() {
    plugin();
    let dir = tempfile::tempdir().unwrap();
    let prog = gcc(
        dir.path(),
        "bench",
        &[("bench.c", BENCH_C), ("bench.s", BENCH_S)],
        &["-O1", "-no-pie"],
    );
    // 4 instructions per iteration: 50M iterations = 200M instructions.
    let iters = std::env::var("BENCH_ITERS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(50_000_000u64);
    let insns = 4 * iters;
    let qemu = bottlenose_trace::find_qemu().unwrap();
    // CPU seconds (user + system) of this process and of its waited-for
    // children: the machine may be shared, so wall time alone misleads.
    let cpu = |who| {
        // SAFETY: getrusage into a zeroed struct.
        let r = unsafe {
            let mut r: libc::rusage = std::mem::zeroed();
            libc::getrusage(who, &mut r);
            r
        };
        let t = |v: libc::timeval| v.tv_sec as f64 + v.tv_usec as f64 / 1e6;
        t(r.ru_utime) + t(r.ru_stime)
    };
    // Runs `f`, returns (wall, reader CPU, child CPU) seconds.
    let measure = |f: &mut dyn FnMut()| {
        let (s0, c0, t) = (
            cpu(libc::RUSAGE_SELF),
            cpu(libc::RUSAGE_CHILDREN),
            Instant::now(),
        );
        f();
        let wall = t.elapsed().as_secs_f64();
        (
            wall,
            cpu(libc::RUSAGE_SELF) - s0,
            cpu(libc::RUSAGE_CHILDREN) - c0,
        )
    };
    let line = |what: &str, (wall, me, child): (f64, f64, f64)| {
        println!(
            "  {what:30} {:7.1} M insn/s  wall {wall:5.2} s  cpu: reader {me:5.2} s, child {child:5.2} s",
            insns as f64 / wall / 1e6
        );
    };
    for kind in ["alu", "mem"] {
        let args = [OsString::from(kind), OsString::from(iters.to_string())];
        let native = measure(&mut || {
            Command::new(&prog).args(&args).status().unwrap();
        });
        let plain = measure(&mut || {
            Command::new(&qemu).arg(&prog).args(&args).status().unwrap();
        });
        let mut sum = StreamSummary::default();
        let raw = measure(&mut || {
            sum = run_program_with(&prog, &args, &mut Counter::default())
                .unwrap()
                .1;
        });
        let raw_socket = measure(&mut || {
            let run = QemuCommand::new(&prog)
                .args(&args)
                .shared_memory(false)
                .spawn()
                .unwrap();
            trace_run(run, &mut Counter::default()).unwrap();
        });
        let mut n = 0u64;
        let mut mem = 0u64;
        let full = measure(&mut || {
            let out = run_program(&prog, &args, |i| {
                n += 1;
                mem += i.mem().len() as u64;
            })
            .unwrap();
            assert_eq!(out.instructions, n);
        });
        println!(
            "{kind} loop, {insns} loop instructions ({n} executed in all, {mem} memory accesses, {} MB stream):",
            sum.bytes / 1_000_000
        );
        line("native", native);
        line("qemu-x86_64, no plugin", plain);
        line("plugin + read_stream (shm)", raw);
        line("plugin + read_stream (socket)", raw_socket);
        line("plugin + ExecutedInsn (shm)", full);
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
