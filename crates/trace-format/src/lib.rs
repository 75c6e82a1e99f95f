//! The wire format between bottlenose's QEMU plugin (crate
//! `bottlenose-qemu-plugin`, the writer) and its trace reader
//! (`bottlenose_trace`): the one place where record tags and layouts
//! are defined. No dependencies, so that the plugin, which runs inside QEMU,
//! stays small.
//!
//! # Records
//!
//! A stream is a sequence of records, each a one-byte [`Tag`] followed by a
//! little-endian payload:
//!
//! | tag | name     | payload |
//! |-----|----------|---------|
//! | 0   | HELLO    | `b"BNQT"`, u16 format version ([`VERSION`]). Always the first record. |
//! | 1   | TB_DEF   | u32 tb_id, u16 n_insns (at least 1), then per insn: u64 vaddr, u8 len (1..=15), `len` bytes. Written at translation time; ids count up from 0 with no gaps. |
//! | 2   | TB_EXEC  | u32 tb_id, u16 vcpu_index. Written when the block starts executing. |
//! | 3   | MEM      | u16 insn_index_in_tb, u8 info (bit 7 = store, bits 0..=6 = log2 size, at most 7), u64 vaddr. After the access. |
//! | 4   | END      | nothing. Written by the plugin's atexit callback, just before the final flush; reading stops there. |
//! | 5   | MEM_VCPU | u16 vcpu_index: the MEM records that follow belong to this vCPU. Only written when a MEM record's vCPU differs from the vCPU of the latest TB_EXEC/MEM_VCPU record, so single-threaded guests never see it. |
//! | 6   | EXEC     | u16 len, the path the guest exec'd (followed under QEMU, on a stream of its own); this stream ends. |
//! | 7   | EXIT     | i32, the code the guest passed to exit_group. |
//! | 8   | NOTE     | u16 len, UTF-8: what the plugin did not trace, and why. |
//! | 9   | MAP      | u64 start, u64 end (> start), u64 file offset, u16 path length, path bytes (empty: anonymous memory): a line of the guest's `/proc/self/maps`, new or changed since the last MAP records, written before the TB_DEF of the first block translated after the change. |
//! | 10  | PAUSE    | nothing. Fast-forward (plugin argument `pause=N`): the plugin stops before the next block and waits for the reader's [`transport::Resume`] on the control socket. |
//! | 11  | SKIPPED  | u16 n, then n times (u32 tb_id, u64 executions): blocks executed while the plugin fast-forwarded (no TB_EXEC or MEM records for them); a skipped stretch ends with one or more of these records, then the full stream resumes. |
//!
//! MEM records of an instruction come after the TB_EXEC of its block, in
//! program order, and carry no vCPU: they belong to the vCPU of the latest
//! TB_EXEC or MEM_VCPU record. Records never straddle two writes (or two
//! shared memory regions).
//!
//! [`record`] encodes and decodes single records; [`transport`] holds the
//! layouts of the shared memory file and of the hub's hello message.

pub mod record;
pub mod transport;

pub use record::{decode, record_len, MemInfo, Record, TbDef, WireError};

/// Magic bytes of the HELLO record.
pub const MAGIC: &[u8; 4] = b"BNQT";
/// Version of the format described here; a reader refuses other versions.
pub const VERSION: u16 = 3;

/// The kind of a record: its first byte.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum Tag {
    Hello = 0,
    TbDef = 1,
    TbExec = 2,
    Mem = 3,
    End = 4,
    MemVcpu = 5,
    Exec = 6,
    Exit = 7,
    Note = 8,
    Map = 9,
    Pause = 10,
    Skipped = 11,
}

impl Tag {
    /// Every tag, in byte order.
    pub const ALL: [Tag; 12] = [
        Tag::Hello,
        Tag::TbDef,
        Tag::TbExec,
        Tag::Mem,
        Tag::End,
        Tag::MemVcpu,
        Tag::Exec,
        Tag::Exit,
        Tag::Note,
        Tag::Map,
        Tag::Pause,
        Tag::Skipped,
    ];

    /// The tag whose byte is `byte`, if any.
    #[inline]
    pub fn from_byte(byte: u8) -> Option<Tag> {
        Tag::ALL.get(byte as usize).copied()
    }

    /// Its byte on the wire.
    #[inline]
    pub fn byte(self) -> u8 {
        self as u8
    }

    /// Its name in the format's documentation and in error messages.
    pub fn name(self) -> &'static str {
        match self {
            Tag::Hello => "HELLO",
            Tag::TbDef => "TB_DEF",
            Tag::TbExec => "TB_EXEC",
            Tag::Mem => "MEM",
            Tag::End => "END",
            Tag::MemVcpu => "MEM_VCPU",
            Tag::Exec => "EXEC",
            Tag::Exit => "EXIT",
            Tag::Note => "NOTE",
            Tag::Map => "MAP",
            Tag::Pause => "PAUSE",
            Tag::Skipped => "SKIPPED",
        }
    }
}
