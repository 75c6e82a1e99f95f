//! Streaming parser of the plugin's wire format.
//!
//! Records are decoded by `bottlenose_trace_format::decode` (the format is
//! described there).
//!
//! The parser checks the stream's consistency (known block ids, instruction
//! indices inside the block, access sizes), so a visitor can trust what it
//! is given.

use std::io::{self, Read};

use bottlenose_trace_format::transport::Resume;
use bottlenose_trace_format::{self as wire, Record, Tag, WireError};

use super::error::QemuError;

/// Magic bytes of the HELLO record.
pub const STREAM_MAGIC: &[u8; 4] = wire::MAGIC;
/// Wire format version this reader understands.
pub const STREAM_VERSION: u16 = wire::VERSION;

const BUF_SIZE: usize = 1 << 20;
const NO_TB: u32 = u32::MAX;

/// Receives the records of a trace stream, in stream order. Every method
/// has an empty default, so a visitor implements only what it needs.
pub trait TraceVisitor {
    /// A block was translated. `insns` are (guest virtual address, machine
    /// code bytes) in block order; there is at least one.
    fn tb_def(&mut self, id: u32, insns: &[(u64, &[u8])]) {
        let _ = (id, insns);
    }
    /// Block `id` (already defined) starts executing on `vcpu`.
    fn tb_exec(&mut self, id: u32, vcpu: u16) {
        let _ = (id, vcpu);
    }
    /// Instruction `insn_index` of the block executing on `vcpu` accessed
    /// `size` bytes at `vaddr`. `insn_index` is within that block.
    fn mem(&mut self, vcpu: u16, insn_index: u16, vaddr: u64, size: u8, is_store: bool) {
        let _ = (vcpu, insn_index, vaddr, size, is_store);
    }
    /// A guest mapping, new or changed: `[start, end)` maps the file at
    /// `path` from `offset` on (`path` empty: anonymous memory). Comes before
    /// the TB_DEF of the first block translated after the change.
    fn map(&mut self, start: u64, end: u64, offset: u64, path: &[u8]) {
        let _ = (start, end, offset, path);
    }
    /// The guest exited and the plugin flushed everything.
    fn end(&mut self) {}
    /// The guest process replaced itself with `program` (traced on as a new
    /// stream of the hub); this stream ends here.
    fn exec(&mut self, program: &[u8]) {
        let _ = program;
    }
    /// The guest called exit_group with `code`.
    fn exit(&mut self, code: i32) {
        let _ = code;
    }
    /// Something the plugin could not trace, and why (one line).
    fn note(&mut self, text: &[u8]) {
        let _ = text;
    }
    /// Fast-forward: the plugin waits for what to do next (skip how many
    /// instructions, then stream how many). By default: everything in full.
    fn pause(&mut self) -> Resume {
        Resume::FULL
    }
    /// Fast-forward: block `id` (already defined) ran `executions` times
    /// without being streamed.
    fn skipped(&mut self, id: u32, executions: u64) {
        let _ = (id, executions);
    }
    /// Asked after every record: whether [`StreamReader::read`] should return
    /// to its caller now (a consumer that pulls, e.g. once a batch is full).
    #[inline(always)]
    fn yield_now(&self) -> bool {
        false
    }
}

/// What [`read_stream`] saw.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct StreamSummary {
    /// Records read, HELLO and END included.
    pub records: u64,
    /// Bytes consumed.
    pub bytes: u64,
    /// A HELLO record was read (the plugin started writing).
    pub started: bool,
    /// The END record was read. False when the stream stopped at a record
    /// boundary without it (QEMU killed, or the plugin's atexit never ran).
    pub complete: bool,
    pub tb_defs: u64,
    pub tb_execs: u64,
    pub mems: u64,
}

/// Reads a whole trace stream, calling `visitor` for each record, until the
/// END record or end of file.
///
/// End of file at a record boundary is not an error: the summary then says
/// `complete: false`. End of file inside a record is [`QemuError::Truncated`];
/// bytes that break the format are [`QemuError::Corrupt`]; both name the byte
/// offset.
pub fn read_stream<R: Read, V: TraceVisitor + ?Sized>(
    reader: R,
    visitor: &mut V,
) -> Result<StreamSummary, QemuError> {
    let mut r = StreamReader::new(reader);
    while r.read(visitor, &mut |_| {})? == Reading::Yielded {}
    Ok(r.summary())
}

/// Where [`StreamReader::read`] stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reading {
    /// The visitor asked to return ([`TraceVisitor::yield_now`]); more may follow.
    Yielded,
    /// The END record, or end of file at a record boundary.
    Ended,
}

/// The stream parser as a pull API: [`StreamReader::read`] hands records to a
/// visitor until the visitor says it has what it wants (a batch of
/// instructions is full: [`TraceVisitor::yield_now`]) or the stream ends, and
/// keeps its place for the next call. [`read_stream`] is this read to the end.
pub struct StreamReader<R> {
    parser: Parser<R>,
    /// Number of instructions of each defined block, by id.
    tb_len: Vec<u16>,
    /// Block executing on each vCPU.
    current: Vec<u32>,
    /// vCPU that MEM records belong to.
    mem_vcpu: u16,
    sum: StreamSummary,
    ended: bool,
}

impl<R: Read> StreamReader<R> {
    pub fn new(reader: R) -> Self {
        StreamReader {
            parser: Parser { reader, buf: vec![0; BUF_SIZE], pos: 0, end: 0, base: 0 },
            tb_len: Vec::new(),
            current: Vec::new(),
            mem_vcpu: 0,
            sum: StreamSummary::default(),
            ended: false,
        }
    }

    /// What was read so far.
    pub fn summary(&self) -> StreamSummary {
        self.sum
    }

    /// Reads records into `visitor` until, after a record, the visitor's
    /// [`TraceVisitor::yield_now`] is true, or until the stream ends; see
    /// [`read_stream`] for the errors. After `Ended` (or an error) it reads nothing.
    pub fn read<V: TraceVisitor + ?Sized>(&mut self, visitor: &mut V, answer: &mut dyn FnMut(Resume)) -> Result<Reading, QemuError> {
        if self.ended {
            return Ok(Reading::Ended);
        }
        // the hot loop works on locals, written back when it returns
        let mut tb_len = std::mem::take(&mut self.tb_len);
        let mut current = std::mem::take(&mut self.current);
        let mut mem_vcpu = self.mem_vcpu;
        let mut sum = self.sum;
        let result = records(&mut self.parser, visitor, &mut sum, answer, &mut tb_len, &mut current, &mut mem_vcpu);
        self.tb_len = tb_len;
        self.current = current;
        self.mem_vcpu = mem_vcpu;
        self.sum = sum;
        if !matches!(result, Ok(Reading::Yielded)) {
            self.ended = true;
        }
        result
    }
}

/// The records of the stream from the parser's position into `visitor`.
fn records<R: Read, V: TraceVisitor + ?Sized>(
    p: &mut Parser<R>,
    visitor: &mut V,
    sum: &mut StreamSummary,
    answer: &mut dyn FnMut(Resume),
    tb_len: &mut Vec<u16>,
    current: &mut Vec<u32>,
    mem_vcpu: &mut u16,
) -> Result<Reading, QemuError> {
    let mem_vcpu_out = mem_vcpu;
    let mut mem_vcpu = *mem_vcpu_out;
    let result = loop {
        sum.bytes = p.offset();
        if !p.fill(1)? {
            break Ok(Reading::Ended);
        }
        let at = p.offset();
        let tag = p.buf[p.pos];
        if !sum.started && tag != Tag::Hello.byte() {
            return Err(corrupt(
                at,
                format!("stream does not start with the bottlenose header (first byte {tag:#04x}); is the plugin from another version?"),
            ));
        }
        let (record, len) = match wire::decode(&p.buf[p.pos..p.end]) {
            Ok(r) => r,
            Err(WireError::Incomplete { tag, needed }) => {
                // read more and decode again (`need` fails at end of file)
                p.need(needed, at, tag.map_or("", Tag::name))?;
                continue;
            }
            Err(e) => return Err(corrupt(at + e.offset_in_record() as u64, e.to_string())),
        };
        match record {
            Record::TbExec { id, vcpu } => {
                if id as usize >= tb_len.len() {
                    return Err(corrupt(at, format!("TB_EXEC of undefined block {id}")));
                }
                let v = vcpu as usize;
                if v >= current.len() {
                    current.resize(v + 1, NO_TB);
                }
                current[v] = id;
                mem_vcpu = vcpu;
                sum.tb_execs += 1;
                visitor.tb_exec(id, vcpu);
            }
            Record::Mem { insn_index: index, info, vaddr } => {
                let tb = current.get(mem_vcpu as usize).copied().unwrap_or(NO_TB);
                if tb == NO_TB {
                    return Err(corrupt(
                        at,
                        format!("MEM record before any TB_EXEC on vCPU {mem_vcpu}"),
                    ));
                }
                if index >= tb_len[tb as usize] {
                    return Err(corrupt(
                        at,
                        format!(
                            "MEM record for instruction {index} of block {tb}, which has {} instructions",
                            tb_len[tb as usize]
                        ),
                    ));
                }
                sum.mems += 1;
                visitor.mem(mem_vcpu, index, vaddr, info.size(), info.is_store());
            }
            Record::TbDef(def) => {
                if def.id as usize != tb_len.len() {
                    return Err(corrupt(
                        at,
                        format!("TB_DEF id {} out of sequence (expected {})", def.id, tb_len.len()),
                    ));
                }
                let insns: Vec<(u64, &[u8])> = def.insns().collect();
                tb_len.push(def.len);
                sum.tb_defs += 1;
                visitor.tb_def(def.id, &insns);
            }
            Record::Map { start, end, offset, path } => visitor.map(start, end, offset, path),
            Record::MemVcpu { vcpu } => mem_vcpu = vcpu,
            Record::Exec { path } => visitor.exec(path),
            Record::Note { text } => visitor.note(text),
            Record::Exit { code } => visitor.exit(code),
            Record::Pause => answer(visitor.pause()),
            Record::Skipped(blocks) => {
                if let Some((id, _)) = blocks.iter().find(|&(id, _)| id as usize >= tb_len.len()) {
                    return Err(corrupt(at, format!("SKIPPED count of undefined block {id}")));
                }
                // (a count no run reaches: 2^48 executions of one block is days of QEMU)
                if let Some((id, n)) = blocks.iter().find(|&(_, n)| n > MAX_SKIPPED_EXECUTIONS) {
                    return Err(corrupt(at, format!("SKIPPED count {n} of block {id} is beyond any run")));
                }
                // the blocks that were executing are left: their next block is not known
                current.iter_mut().for_each(|c| *c = NO_TB);
                for (id, executions) in blocks.iter() {
                    visitor.skipped(id, executions);
                }
            }
            Record::End => {
                p.pos += len;
                sum.records += 1;
                sum.complete = true;
                sum.bytes = p.offset();
                visitor.end();
                break Ok(Reading::Ended);
            }
            Record::Hello { version } => {
                if sum.started {
                    return Err(corrupt(at, "second HELLO record".to_string()));
                }
                if version != STREAM_VERSION {
                    return Err(corrupt(
                        at,
                        format!("stream format version {version}, this bottlenose reads version {STREAM_VERSION}: rebuild the plugin"),
                    ));
                }
                sum.started = true;
            }
        }
        p.pos += len;
        sum.records += 1;
        if visitor.yield_now() {
            break Ok(Reading::Yielded);
        }
    };
    *mem_vcpu_out = mem_vcpu;
    result
}

/// The most executions of one block a SKIPPED record may count: far beyond any run, far
/// below what the instruction totals (block length times executions, summed) can hold.
const MAX_SKIPPED_EXECUTIONS: u64 = 1 << 48;

fn corrupt(offset: u64, message: String) -> QemuError {
    QemuError::Corrupt { offset, message }
}

struct Parser<R> {
    reader: R,
    buf: Vec<u8>,
    /// Start of unparsed data in `buf`.
    pos: usize,
    /// End of valid data in `buf`.
    end: usize,
    /// Stream offset of `buf[0]`.
    base: u64,
}

impl<R: Read> Parser<R> {
    #[inline]
    fn offset(&self) -> u64 {
        self.base + self.pos as u64
    }

    /// Makes at least `n` bytes available at `pos`; false at end of file.
    #[inline]
    fn fill(&mut self, n: usize) -> Result<bool, QemuError> {
        if self.end - self.pos >= n {
            return Ok(true);
        }
        self.fill_slow(n)
    }

    #[cold]
    fn fill_slow(&mut self, n: usize) -> Result<bool, QemuError> {
        while self.end - self.pos < n {
            if self.buf.len() - self.pos < n || self.end == self.buf.len() {
                self.buf.copy_within(self.pos..self.end, 0);
                self.base += self.pos as u64;
                self.end -= self.pos;
                self.pos = 0;
                if self.buf.len() < n {
                    self.buf.resize(n.next_power_of_two(), 0);
                }
            }
            match self.reader.read(&mut self.buf[self.end..]) {
                Ok(0) => return Ok(false),
                Ok(k) => self.end += k,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => {
                    return Err(QemuError::Io {
                        context: format!(
                            "reading trace stream at byte offset {}",
                            self.base + self.end as u64
                        ),
                        source: e,
                    })
                }
            }
        }
        Ok(true)
    }

    /// Like `fill`, but end of file is a truncation error for the record of
    /// kind `record` that starts at stream offset `record_offset`.
    #[inline]
    fn need(
        &mut self,
        n: usize,
        record_offset: u64,
        record: &'static str,
    ) -> Result<(), QemuError> {
        if self.fill(n)? {
            Ok(())
        } else {
            Err(QemuError::Truncated {
                offset: self.base + self.end as u64,
                record_offset,
                record,
            })
        }
    }
}
