//! Encoding and decoding single records (layouts in the [crate docs](crate)).
//!
//! The writer builds records with the functions here (fixed-size records as
//! arrays on the stack, variable-size ones appended to a buffer); the reader
//! takes them apart with [`decode`], which never panics: bytes that end
//! inside a record are [`WireError::Incomplete`] (saying how many bytes the
//! record needs so far, so that a streaming reader can read more and try
//! again), bytes that break the format are the other [`WireError`]s.
//!
//! One file past the usual size on purpose: each record's encoder sits beside
//! its decoder, so that a layout change is made, and reviewed, in one place.

use std::fmt;

use crate::{Tag, MAGIC, VERSION};

/// HELLO: tag, magic, u16 version.
pub const HELLO_LEN: usize = 7;
/// TB_DEF before its instructions: tag, u32 id, u16 count.
pub const TB_DEF_HEADER_LEN: usize = 7;
/// One instruction of a TB_DEF before its bytes: u64 vaddr, u8 length.
pub const TB_DEF_INSN_HEADER_LEN: usize = 9;
/// Longest instruction a TB_DEF may carry (x86-64's limit).
pub const MAX_INSN_LEN: usize = 15;
/// TB_EXEC: tag, u32 id, u16 vCPU.
pub const TB_EXEC_LEN: usize = 7;
/// MEM: tag, u16 instruction index, u8 info, u64 vaddr.
pub const MEM_LEN: usize = 12;
/// END: the tag alone.
pub const END_LEN: usize = 1;
/// MEM_VCPU: tag, u16 vCPU.
pub const MEM_VCPU_LEN: usize = 3;
/// EXEC and NOTE before their text: tag, u16 length.
pub const TEXT_HEADER_LEN: usize = 3;
/// EXIT: tag, i32 code.
pub const EXIT_LEN: usize = 5;
/// MAP before its path: tag, u64 start, u64 end, u64 offset, u16 path length.
pub const MAP_HEADER_LEN: usize = 27;
/// PAUSE: the tag alone.
pub const PAUSE_LEN: usize = 1;
/// SKIPPED before its entries: tag, u16 count.
pub const SKIPPED_HEADER_LEN: usize = 3;
/// One entry of a SKIPPED record: u32 block id, u64 executions.
pub const SKIPPED_ENTRY_LEN: usize = 12;

/// The info byte of a MEM record: bit 7 set for a store, bits 0..=6 the
/// log2 of the access size.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MemInfo(u8);

impl MemInfo {
    const STORE: u8 = 0x80;
    const SHIFT: u8 = 0x7f;
    /// Largest size shift a reader accepts: 2^7 = 128-byte accesses.
    pub const MAX_SIZE_SHIFT: u8 = 7;

    /// An access of 2^`size_shift` bytes (`size_shift` is cut to 7 bits).
    #[inline]
    pub fn new(size_shift: u8, is_store: bool) -> Self {
        MemInfo(if is_store { Self::STORE } else { 0 } | (size_shift & Self::SHIFT))
    }
    #[inline]
    pub fn from_byte(byte: u8) -> Self {
        MemInfo(byte)
    }
    #[inline]
    pub fn byte(self) -> u8 {
        self.0
    }
    #[inline]
    pub fn is_store(self) -> bool {
        self.0 & Self::STORE != 0
    }
    #[inline]
    pub fn size_shift(self) -> u8 {
        self.0 & Self::SHIFT
    }
    /// The access size in bytes (valid once [`decode`] accepted the record).
    #[inline]
    pub fn size(self) -> u8 {
        1u8 << self.size_shift().min(Self::MAX_SIZE_SHIFT)
    }
}

/// A decoded TB_DEF: a translated block's instructions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TbDef<'a> {
    pub id: u32,
    /// Number of instructions (at least 1).
    pub len: u16,
    /// The instructions as on the wire (checked by [`decode`]).
    body: &'a [u8],
}

impl<'a> TbDef<'a> {
    /// (guest virtual address, machine code bytes) of each instruction, in block order.
    pub fn insns(&self) -> impl Iterator<Item = (u64, &'a [u8])> + 'a {
        let mut rest = self.body;
        std::iter::from_fn(move || {
            let (head, tail) = rest.split_first_chunk::<TB_DEF_INSN_HEADER_LEN>()?;
            let (vaddr, len) = (u64::from_le_bytes(*head.first_chunk::<8>()?), head[8] as usize);
            let bytes = tail.get(..len)?;
            rest = &tail[len..];
            Some((vaddr, bytes))
        })
    }
}

/// The entries of a SKIPPED record: (block id, executions) pairs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SkippedBlocks<'a> {
    body: &'a [u8],
}

impl<'a> SkippedBlocks<'a> {
    pub fn len(&self) -> usize {
        self.body.len() / SKIPPED_ENTRY_LEN
    }
    pub fn is_empty(&self) -> bool {
        self.body.is_empty()
    }
    /// (block id, executions) of each entry, in record order.
    pub fn iter(&self) -> impl Iterator<Item = (u32, u64)> + 'a {
        self.body.chunks_exact(SKIPPED_ENTRY_LEN).map(|e| (u32_at(e, 0), u64_at(e, 4)))
    }
}

/// One record, borrowing its variable-size parts from the bytes it was decoded from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Record<'a> {
    /// The stream's header (its magic is checked by [`decode`]).
    Hello { version: u16 },
    TbDef(TbDef<'a>),
    TbExec { id: u32, vcpu: u16 },
    Mem { insn_index: u16, info: MemInfo, vaddr: u64 },
    End,
    MemVcpu { vcpu: u16 },
    Exec { path: &'a [u8] },
    Exit { code: i32 },
    Note { text: &'a [u8] },
    Map { start: u64, end: u64, offset: u64, path: &'a [u8] },
    Pause,
    Skipped(SkippedBlocks<'a>),
}

impl Record<'_> {
    pub fn tag(&self) -> Tag {
        match self {
            Record::Hello { .. } => Tag::Hello,
            Record::TbDef(_) => Tag::TbDef,
            Record::TbExec { .. } => Tag::TbExec,
            Record::Mem { .. } => Tag::Mem,
            Record::End => Tag::End,
            Record::MemVcpu { .. } => Tag::MemVcpu,
            Record::Exec { .. } => Tag::Exec,
            Record::Exit { .. } => Tag::Exit,
            Record::Note { .. } => Tag::Note,
            Record::Map { .. } => Tag::Map,
            Record::Pause => Tag::Pause,
            Record::Skipped(_) => Tag::Skipped,
        }
    }

    /// The record's bytes, as the writer's functions below make them.
    pub fn encode(&self, out: &mut Vec<u8>) {
        match *self {
            Record::Hello { version } => out.extend_from_slice(&hello_of_version(version)),
            Record::TbDef(def) => {
                push_tb_def_header(out, def.id, def.len);
                out.extend_from_slice(def.body);
            }
            Record::TbExec { id, vcpu } => out.extend_from_slice(&tb_exec(id, vcpu)),
            Record::Mem { insn_index, info, vaddr } => out.extend_from_slice(&mem(insn_index, info, vaddr)),
            Record::End => out.extend_from_slice(&end()),
            Record::MemVcpu { vcpu } => out.extend_from_slice(&mem_vcpu(vcpu)),
            Record::Exec { path } => push_exec(out, path),
            Record::Exit { code } => out.extend_from_slice(&exit(code)),
            Record::Note { text } => push_note(out, text),
            Record::Map { start, end, offset, path } => push_map(out, start, end, offset, path),
            Record::Pause => out.extend_from_slice(&pause()),
            Record::Skipped(blocks) => {
                out.push(Tag::Skipped as u8);
                out.extend_from_slice(&(blocks.len() as u16).to_le_bytes());
                out.extend_from_slice(blocks.body);
            }
        }
    }
}

/// Why bytes are not a record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WireError {
    /// The bytes end inside a record: the record needs at least `needed`
    /// bytes (counted from its tag) to go on. `tag` is `None` for no bytes at all.
    Incomplete { tag: Option<Tag>, needed: usize },
    /// The first byte is no [`Tag`].
    UnknownTag(u8),
    /// A HELLO record without [`MAGIC`].
    BadMagic,
    /// A TB_DEF without instructions.
    EmptyBlock { id: u32 },
    /// Instruction `index` of TB_DEF `id` claims `len` bytes (1..=15 allowed).
    InsnLength { id: u32, index: u16, len: u8, at: usize },
    /// A MEM record's size shift above [`MemInfo::MAX_SIZE_SHIFT`].
    AccessTooLarge { shift: u8 },
    /// A MAP record whose end is not after its start.
    EmptyMap { start: u64, end: u64 },
}

impl WireError {
    /// Where in the record (bytes from its tag) the problem is.
    pub fn offset_in_record(&self) -> usize {
        match self {
            WireError::InsnLength { at, .. } => *at,
            _ => 0,
        }
    }
}

impl fmt::Display for WireError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WireError::Incomplete { tag: Some(t), needed } => write!(f, "{} record incomplete: it needs at least {needed} bytes", t.name()),
            WireError::Incomplete { tag: None, .. } => write!(f, "no record: no bytes"),
            WireError::UnknownTag(b) => write!(f, "unknown record tag {b:#04x}"),
            WireError::BadMagic => write!(f, "stream does not start with the bottlenose header; is the plugin from another version?"),
            WireError::EmptyBlock { id } => write!(f, "TB_DEF {id} has no instructions"),
            WireError::InsnLength { id, index, len, .. } => write!(f, "instruction {index} of TB_DEF {id} has length {len}"),
            WireError::AccessTooLarge { shift } => write!(f, "MEM access size 2^{shift} bytes is too large"),
            WireError::EmptyMap { start, end } => write!(f, "MAP of an empty range {start:#x}..{end:#x}"),
        }
    }
}

impl std::error::Error for WireError {}

#[inline(always)]
fn u16_at(buf: &[u8], at: usize) -> u16 {
    u16::from_le_bytes([buf[at], buf[at + 1]])
}

#[inline(always)]
fn u32_at(buf: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([buf[at], buf[at + 1], buf[at + 2], buf[at + 3]])
}

#[inline(always)]
fn u64_at(buf: &[u8], at: usize) -> u64 {
    let mut b = [0u8; 8];
    b.copy_from_slice(&buf[at..at + 8]);
    u64::from_le_bytes(b)
}

/// Decodes the record at the start of `buf`: the record and its length in bytes.
#[inline(always)]
pub fn decode(buf: &[u8]) -> Result<(Record<'_>, usize), WireError> {
    let Some(&byte) = buf.first() else {
        return Err(WireError::Incomplete { tag: None, needed: 1 });
    };
    // the records of every executed block first: the reader's hot path
    if byte == Tag::Mem as u8 {
        if let Some(r) = buf.first_chunk::<MEM_LEN>() {
            let info = MemInfo::from_byte(r[3]);
            if info.size_shift() > MemInfo::MAX_SIZE_SHIFT {
                return Err(WireError::AccessTooLarge { shift: info.size_shift() });
            }
            let vaddr = u64::from_le_bytes([r[4], r[5], r[6], r[7], r[8], r[9], r[10], r[11]]);
            return Ok((Record::Mem { insn_index: u16::from_le_bytes([r[1], r[2]]), info, vaddr }, MEM_LEN));
        }
    } else if byte == Tag::TbExec as u8 {
        if let Some(r) = buf.first_chunk::<TB_EXEC_LEN>() {
            let id = u32::from_le_bytes([r[1], r[2], r[3], r[4]]);
            return Ok((Record::TbExec { id, vcpu: u16::from_le_bytes([r[5], r[6]]) }, TB_EXEC_LEN));
        }
    }
    decode_other(buf, byte)
}

/// [`decode`] of the rarer records, and of a MEM or TB_EXEC cut short.
#[inline(never)]
fn decode_other(buf: &[u8], byte: u8) -> Result<(Record<'_>, usize), WireError> {
    let tag = Tag::from_byte(byte).ok_or(WireError::UnknownTag(byte))?;
    let need = |n: usize| if buf.len() >= n { Ok(()) } else { Err(WireError::Incomplete { tag: Some(tag), needed: n }) };
    // the fixed part first; a variable part after it
    let fixed = match tag {
        Tag::Hello => HELLO_LEN,
        Tag::TbDef => TB_DEF_HEADER_LEN,
        Tag::TbExec => TB_EXEC_LEN,
        Tag::Mem => MEM_LEN,
        Tag::End => END_LEN,
        Tag::MemVcpu => MEM_VCPU_LEN,
        Tag::Exec | Tag::Note => TEXT_HEADER_LEN,
        Tag::Exit => EXIT_LEN,
        Tag::Map => MAP_HEADER_LEN,
        Tag::Pause => PAUSE_LEN,
        Tag::Skipped => SKIPPED_HEADER_LEN,
    };
    need(fixed)?;
    Ok(match tag {
        Tag::TbExec => (Record::TbExec { id: u32_at(buf, 1), vcpu: u16_at(buf, 5) }, TB_EXEC_LEN),
        Tag::Mem => {
            let info = MemInfo::from_byte(buf[3]);
            if info.size_shift() > MemInfo::MAX_SIZE_SHIFT {
                return Err(WireError::AccessTooLarge { shift: info.size_shift() });
            }
            (Record::Mem { insn_index: u16_at(buf, 1), info, vaddr: u64_at(buf, 4) }, MEM_LEN)
        }
        Tag::Hello => {
            if &buf[1..5] != MAGIC {
                return Err(WireError::BadMagic);
            }
            (Record::Hello { version: u16_at(buf, 5) }, HELLO_LEN)
        }
        Tag::TbDef => {
            let (id, len) = (u32_at(buf, 1), u16_at(buf, 5));
            if len == 0 {
                return Err(WireError::EmptyBlock { id });
            }
            let mut off = TB_DEF_HEADER_LEN;
            for index in 0..len {
                need(off + TB_DEF_INSN_HEADER_LEN)?;
                let n = buf[off + 8];
                if !(1..=MAX_INSN_LEN).contains(&(n as usize)) {
                    return Err(WireError::InsnLength { id, index, len: n, at: off + 8 });
                }
                off += TB_DEF_INSN_HEADER_LEN + n as usize;
                need(off)?;
            }
            (Record::TbDef(TbDef { id, len, body: &buf[TB_DEF_HEADER_LEN..off] }), off)
        }
        Tag::End => (Record::End, END_LEN),
        Tag::MemVcpu => (Record::MemVcpu { vcpu: u16_at(buf, 1) }, MEM_VCPU_LEN),
        Tag::Exec | Tag::Note => {
            let total = TEXT_HEADER_LEN + u16_at(buf, 1) as usize;
            need(total)?;
            let text = &buf[TEXT_HEADER_LEN..total];
            (if tag == Tag::Exec { Record::Exec { path: text } } else { Record::Note { text } }, total)
        }
        Tag::Exit => (Record::Exit { code: u32_at(buf, 1) as i32 }, EXIT_LEN),
        Tag::Map => {
            let (start, end, offset) = (u64_at(buf, 1), u64_at(buf, 9), u64_at(buf, 17));
            if end <= start {
                return Err(WireError::EmptyMap { start, end });
            }
            let total = MAP_HEADER_LEN + u16_at(buf, 25) as usize;
            need(total)?;
            (Record::Map { start, end, offset, path: &buf[MAP_HEADER_LEN..total] }, total)
        }
        Tag::Pause => (Record::Pause, PAUSE_LEN),
        Tag::Skipped => {
            let total = SKIPPED_HEADER_LEN + u16_at(buf, 1) as usize * SKIPPED_ENTRY_LEN;
            need(total)?;
            (Record::Skipped(SkippedBlocks { body: &buf[SKIPPED_HEADER_LEN..total] }), total)
        }
    })
}

/// The length of the record at the start of `buf`, from its framing alone
/// (its contents are not checked): for a writer walking records it wrote.
pub fn record_len(buf: &[u8]) -> Result<usize, WireError> {
    let Some(&byte) = buf.first() else {
        return Err(WireError::Incomplete { tag: None, needed: 1 });
    };
    let tag = Tag::from_byte(byte).ok_or(WireError::UnknownTag(byte))?;
    let need = |n: usize| if buf.len() >= n { Ok(n) } else { Err(WireError::Incomplete { tag: Some(tag), needed: n }) };
    match tag {
        Tag::Hello => need(HELLO_LEN),
        Tag::TbExec => need(TB_EXEC_LEN),
        Tag::Mem => need(MEM_LEN),
        Tag::End => need(END_LEN),
        Tag::MemVcpu => need(MEM_VCPU_LEN),
        Tag::Exit => need(EXIT_LEN),
        Tag::Exec | Tag::Note => need(TEXT_HEADER_LEN).and_then(|h| need(h + u16_at(buf, 1) as usize)),
        Tag::Map => need(MAP_HEADER_LEN).and_then(|h| need(h + u16_at(buf, 25) as usize)),
        Tag::Pause => need(PAUSE_LEN),
        Tag::Skipped => need(SKIPPED_HEADER_LEN).and_then(|h| need(h + u16_at(buf, 1) as usize * SKIPPED_ENTRY_LEN)),
        Tag::TbDef => {
            let mut off = need(TB_DEF_HEADER_LEN)?;
            for _ in 0..u16_at(buf, 5) {
                off = need(off + TB_DEF_INSN_HEADER_LEN)?;
                off = need(off + buf[off - 1] as usize)?;
            }
            Ok(off)
        }
    }
}

// ---------------------------------------------------------------------------
// Writing

/// The HELLO record of this format's [`VERSION`].
#[inline]
pub fn hello() -> [u8; HELLO_LEN] {
    hello_of_version(VERSION)
}

fn hello_of_version(version: u16) -> [u8; HELLO_LEN] {
    let v = version.to_le_bytes();
    [Tag::Hello as u8, MAGIC[0], MAGIC[1], MAGIC[2], MAGIC[3], v[0], v[1]]
}

#[inline]
pub fn tb_exec(id: u32, vcpu: u16) -> [u8; TB_EXEC_LEN] {
    let mut rec = [0u8; TB_EXEC_LEN];
    rec[0] = Tag::TbExec as u8;
    rec[1..5].copy_from_slice(&id.to_le_bytes());
    rec[5..7].copy_from_slice(&vcpu.to_le_bytes());
    rec
}

#[inline]
pub fn mem(insn_index: u16, info: MemInfo, vaddr: u64) -> [u8; MEM_LEN] {
    let mut rec = [0u8; MEM_LEN];
    rec[0] = Tag::Mem as u8;
    rec[1..3].copy_from_slice(&insn_index.to_le_bytes());
    rec[3] = info.byte();
    rec[4..12].copy_from_slice(&vaddr.to_le_bytes());
    rec
}

#[inline]
pub fn end() -> [u8; END_LEN] {
    [Tag::End as u8]
}

#[inline]
pub fn pause() -> [u8; PAUSE_LEN] {
    [Tag::Pause as u8]
}

/// Most entries a writer puts in one SKIPPED record (a record stays well
/// below the smallest shared memory region).
pub const MAX_SKIPPED_ENTRIES: usize = 4096;

/// Appends a SKIPPED record of `entries` (block id, executions); at most
/// [`MAX_SKIPPED_ENTRIES`] of them are taken, the caller writes the rest in
/// further records.
pub fn push_skipped(out: &mut Vec<u8>, entries: &[(u32, u64)]) {
    let entries = &entries[..entries.len().min(MAX_SKIPPED_ENTRIES)];
    out.push(Tag::Skipped as u8);
    out.extend_from_slice(&(entries.len() as u16).to_le_bytes());
    for &(id, n) in entries {
        out.extend_from_slice(&id.to_le_bytes());
        out.extend_from_slice(&n.to_le_bytes());
    }
}

#[inline]
pub fn mem_vcpu(vcpu: u16) -> [u8; MEM_VCPU_LEN] {
    let v = vcpu.to_le_bytes();
    [Tag::MemVcpu as u8, v[0], v[1]]
}

#[inline]
pub fn exit(code: i32) -> [u8; EXIT_LEN] {
    let c = code.to_le_bytes();
    [Tag::Exit as u8, c[0], c[1], c[2], c[3]]
}

/// Appends an EXEC record; a path longer than 65535 bytes is cut there.
pub fn push_exec(out: &mut Vec<u8>, path: &[u8]) {
    push_text(out, Tag::Exec, path);
}

/// Appends a NOTE record; a text longer than 65535 bytes is cut there.
pub fn push_note(out: &mut Vec<u8>, text: &[u8]) {
    push_text(out, Tag::Note, text);
}

fn push_text(out: &mut Vec<u8>, tag: Tag, text: &[u8]) {
    let t = &text[..text.len().min(u16::MAX as usize)];
    out.push(tag as u8);
    out.extend_from_slice(&(t.len() as u16).to_le_bytes());
    out.extend_from_slice(t);
}

/// Appends a MAP record; a path longer than 65535 bytes is cut there.
pub fn push_map(out: &mut Vec<u8>, start: u64, end: u64, offset: u64, path: &[u8]) {
    let path = &path[..path.len().min(u16::MAX as usize)];
    out.reserve(MAP_HEADER_LEN + path.len());
    out.push(Tag::Map as u8);
    out.extend_from_slice(&start.to_le_bytes());
    out.extend_from_slice(&end.to_le_bytes());
    out.extend_from_slice(&offset.to_le_bytes());
    out.extend_from_slice(&(path.len() as u16).to_le_bytes());
    out.extend_from_slice(path);
}

/// Appends the start of a TB_DEF record of `n_insns` instructions; the
/// instructions follow with [`push_tb_def_insn`]. The writer may fill the id
/// in later with [`set_tb_def_id`] (it is numbered under a lock).
pub fn push_tb_def_header(out: &mut Vec<u8>, id: u32, n_insns: u16) {
    out.push(Tag::TbDef as u8);
    out.extend_from_slice(&id.to_le_bytes());
    out.extend_from_slice(&n_insns.to_le_bytes());
}

/// Sets the id of the TB_DEF record at the start of `record`.
pub fn set_tb_def_id(record: &mut [u8], id: u32) {
    record[1..5].copy_from_slice(&id.to_le_bytes());
}

/// Appends one instruction of a TB_DEF record: its address and its bytes
/// (at most 255; a reader accepts 1 to 15).
pub fn push_tb_def_insn(out: &mut Vec<u8>, vaddr: u64, bytes: &[u8]) {
    let bytes = &bytes[..bytes.len().min(u8::MAX as usize)];
    out.extend_from_slice(&vaddr.to_le_bytes());
    out.push(bytes.len() as u8);
    out.extend_from_slice(bytes);
}
