//! Streaming parser of the plugin's wire format.
//!
//! The wire format is described in the [module docs](super).
//!
//! The parser checks the stream's consistency (known block ids, instruction
//! indices inside the block, access sizes), so a visitor can trust what it
//! is given.

use std::io::{self, Read};

use super::error::QemuError;

pub(crate) const TAG_HELLO: u8 = 0;
pub(crate) const TAG_TB_DEF: u8 = 1;
pub(crate) const TAG_TB_EXEC: u8 = 2;
pub(crate) const TAG_MEM: u8 = 3;
pub(crate) const TAG_END: u8 = 4;
pub(crate) const TAG_MEM_VCPU: u8 = 5;
pub(crate) const TAG_EXEC: u8 = 6;
pub(crate) const TAG_EXIT: u8 = 7;
pub(crate) const TAG_NOTE: u8 = 8;
pub(crate) const TAG_MAP: u8 = 9;
/// Magic bytes of the HELLO record.
pub const STREAM_MAGIC: &[u8; 4] = b"BNQT";
/// Wire format version this reader understands.
pub const STREAM_VERSION: u16 = 2;

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
    let mut sum = StreamSummary::default();
    read_stream_into(reader, visitor, &mut sum)?;
    Ok(sum)
}

/// [`read_stream`] that leaves the counts of what was read before an error
/// in `sum`.
pub(crate) fn read_stream_into<R: Read, V: TraceVisitor + ?Sized>(
    reader: R,
    visitor: &mut V,
    sum: &mut StreamSummary,
) -> Result<(), QemuError> {
    let mut p = Parser {
        reader,
        buf: vec![0; BUF_SIZE],
        pos: 0,
        end: 0,
        base: 0,
    };
    // Number of instructions of each defined block, by id.
    let mut tb_len: Vec<u16> = Vec::new();
    // Block executing on each vCPU.
    let mut current: Vec<u32> = Vec::new();
    // vCPU that MEM records belong to.
    let mut mem_vcpu: u16 = 0;
    let mut scratch: Vec<(u64, std::ops::Range<usize>)> = Vec::new();

    loop {
        sum.bytes = p.offset();
        if !p.fill(1)? {
            break;
        }
        let at = p.offset();
        let tag = p.buf[p.pos];
        if !sum.started && tag != TAG_HELLO {
            return Err(corrupt(
                at,
                format!("stream does not start with the bottlenose header (first byte {tag:#04x}); is the plugin from another version?"),
            ));
        }
        match tag {
            TAG_TB_EXEC => {
                p.need(7, at, "TB_EXEC")?;
                let r = &p.buf[p.pos..p.pos + 7];
                let id = u32::from_le_bytes([r[1], r[2], r[3], r[4]]);
                let vcpu = u16::from_le_bytes([r[5], r[6]]);
                if id as usize >= tb_len.len() {
                    return Err(corrupt(at, format!("TB_EXEC of undefined block {id}")));
                }
                let v = vcpu as usize;
                if v >= current.len() {
                    current.resize(v + 1, NO_TB);
                }
                current[v] = id;
                mem_vcpu = vcpu;
                p.pos += 7;
                sum.tb_execs += 1;
                visitor.tb_exec(id, vcpu);
            }
            TAG_MEM => {
                p.need(12, at, "MEM")?;
                let r = &p.buf[p.pos..p.pos + 12];
                let index = u16::from_le_bytes([r[1], r[2]]);
                let info = r[3];
                let vaddr = u64::from_le_bytes([r[4], r[5], r[6], r[7], r[8], r[9], r[10], r[11]]);
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
                let shift = info & 0x7f;
                if shift > 7 {
                    return Err(corrupt(
                        at,
                        format!("MEM access size 2^{shift} bytes is too large"),
                    ));
                }
                p.pos += 12;
                sum.mems += 1;
                visitor.mem(mem_vcpu, index, vaddr, 1u8 << shift, info & 0x80 != 0);
            }
            TAG_TB_DEF => {
                p.need(7, at, "TB_DEF")?;
                let r = &p.buf[p.pos..p.pos + 7];
                let id = u32::from_le_bytes([r[1], r[2], r[3], r[4]]);
                let n = u16::from_le_bytes([r[5], r[6]]);
                if id as usize != tb_len.len() {
                    return Err(corrupt(
                        at,
                        format!("TB_DEF id {id} out of sequence (expected {})", tb_len.len()),
                    ));
                }
                if n == 0 {
                    return Err(corrupt(at, format!("TB_DEF {id} has no instructions")));
                }
                // Offsets are relative to the record start, which stays
                // valid across refills (`p.pos` may move, data does not
                // change relative to it).
                scratch.clear();
                let mut off = 7usize;
                for i in 0..n {
                    p.need(off + 9, at, "TB_DEF")?;
                    let s = p.pos + off;
                    let vaddr = u64::from_le_bytes(p.buf[s..s + 8].try_into().unwrap());
                    let len = p.buf[s + 8] as usize;
                    if !(1..=15).contains(&len) {
                        return Err(corrupt(
                            at + off as u64 + 8,
                            format!("instruction {i} of TB_DEF {id} has length {len}"),
                        ));
                    }
                    p.need(off + 9 + len, at, "TB_DEF")?;
                    scratch.push((vaddr, off + 9..off + 9 + len));
                    off += 9 + len;
                }
                let rec = &p.buf[p.pos..p.pos + off];
                let insns: Vec<(u64, &[u8])> =
                    scratch.iter().map(|(v, r)| (*v, &rec[r.clone()])).collect();
                tb_len.push(n);
                sum.tb_defs += 1;
                visitor.tb_def(id, &insns);
                p.pos += off;
            }
            TAG_MAP => {
                p.need(27, at, "MAP")?;
                let r = &p.buf[p.pos..p.pos + 27];
                let word = |i: usize| u64::from_le_bytes(r[i..i + 8].try_into().unwrap());
                let (start, end, offset) = (word(1), word(9), word(17));
                let len = u16::from_le_bytes([r[25], r[26]]) as usize;
                if end <= start {
                    return Err(corrupt(at, format!("MAP of an empty range {start:#x}..{end:#x}")));
                }
                p.need(27 + len, at, "MAP")?;
                let path = &p.buf[p.pos + 27..p.pos + 27 + len];
                visitor.map(start, end, offset, path);
                p.pos += 27 + len;
            }
            TAG_MEM_VCPU => {
                p.need(3, at, "MEM_VCPU")?;
                mem_vcpu = u16::from_le_bytes([p.buf[p.pos + 1], p.buf[p.pos + 2]]);
                p.pos += 3;
            }
            TAG_EXEC | TAG_NOTE => {
                p.need(3, at, "EXEC/NOTE")?;
                let len = u16::from_le_bytes([p.buf[p.pos + 1], p.buf[p.pos + 2]]) as usize;
                p.need(3 + len, at, "EXEC/NOTE")?;
                let text = &p.buf[p.pos + 3..p.pos + 3 + len];
                if tag == TAG_EXEC {
                    visitor.exec(text);
                } else {
                    visitor.note(text);
                }
                p.pos += 3 + len;
            }
            TAG_EXIT => {
                p.need(5, at, "EXIT")?;
                let r = &p.buf[p.pos..p.pos + 5];
                visitor.exit(i32::from_le_bytes([r[1], r[2], r[3], r[4]]));
                p.pos += 5;
            }
            TAG_END => {
                p.pos += 1;
                sum.records += 1;
                sum.complete = true;
                sum.bytes = p.offset();
                visitor.end();
                break;
            }
            TAG_HELLO => {
                if sum.started {
                    return Err(corrupt(at, "second HELLO record".to_string()));
                }
                p.need(7, at, "HELLO")?;
                let r = &p.buf[p.pos..p.pos + 7];
                if &r[1..5] != STREAM_MAGIC {
                    return Err(corrupt(
                        at,
                        "stream does not start with the bottlenose header; is the plugin from another version?".to_string(),
                    ));
                }
                let version = u16::from_le_bytes([r[5], r[6]]);
                if version != STREAM_VERSION {
                    return Err(corrupt(
                        at,
                        format!("stream format version {version}, this bottlenose reads version {STREAM_VERSION}: rebuild the plugin"),
                    ));
                }
                p.pos += 7;
                sum.started = true;
            }
            other => {
                return Err(corrupt(at, format!("unknown record tag {other:#04x}")));
            }
        }
        sum.records += 1;
    }
    Ok(())
}

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
