//! How records travel: the layout of the shared memory file (`shm=` mode)
//! and the hello of a process connecting to the hub (`hub=` mode). The
//! protocols themselves are described where they are implemented: the
//! plugin's crate docs and `bottlenose_trace` (modules `shm`, `hub`).

/// Size of the header page of the shared memory file, before the regions.
pub const SHM_HEADER: usize = 4096;
/// Offset in the header of the u64 region count (native endian).
pub const SHM_N_REGIONS_AT: usize = 2048;
/// Offset in the header of the u64 region size (native endian), right after the count.
pub const SHM_REGION_SIZE_AT: usize = SHM_N_REGIONS_AT + 8;
/// Each region's committed length is a u64 at `SHM_LEN_STRIDE * region` in the header.
pub const SHM_LEN_STRIDE: usize = 64;
/// At most this many regions (their lengths must fit below [`SHM_N_REGIONS_AT`]).
pub const SHM_MAX_REGIONS: usize = SHM_N_REGIONS_AT / SHM_LEN_STRIDE;
/// At least this many regions: one being filled while the reader reads another.
pub const SHM_MIN_REGIONS: usize = 2;
/// Smallest region a writer accepts (a translated block is at most a few KiB).
pub const SHM_MIN_REGION_SIZE: usize = 64 * 1024;
/// The layout bottlenose and the plugin's followed children create: enough
/// regions for the plugin to run ahead of the reader without waiting for
/// every acknowledgement.
pub const SHM_REGIONS: usize = 8;
pub const SHM_REGION_SIZE: usize = 256 * 1024;

/// First bytes of a hub hello.
pub const HUB_MAGIC: &[u8; 4] = b"BNHB";
/// A hub hello before its command: magic, u8 origin, u32 pid, u32 parent pid, u32 command length.
pub const HUB_HELLO_LEN: usize = 17;

/// How a process connecting to the hub came to be (the hello's origin byte).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum HubOrigin {
    /// A fork of a traced process.
    Fork = 1,
    /// A traced process exec'd a new program.
    Exec = 2,
}

impl HubOrigin {
    pub fn from_byte(byte: u8) -> Option<HubOrigin> {
        match byte {
            1 => Some(HubOrigin::Fork),
            2 => Some(HubOrigin::Exec),
            _ => None,
        }
    }
}

/// The reader's acknowledgement of a region (one byte on the control socket).
pub const ACK: u8 = 0;
/// First byte of a [`Resume`] on the control socket.
pub const RESUME_TAG: u8 = 1;
/// A [`Resume`] on the socket: its tag, u64 skip, u64 full (little-endian).
pub const RESUME_LEN: usize = 17;

/// The reader's answer to a PAUSE record (fast-forward, `pause=N`): skip the
/// next `skip` instructions (counting only), then stream `full` instructions
/// in full before pausing again. The plugin switches at block boundaries, so
/// it skips at least `skip` (the SKIPPED records say how many exactly).
/// `full` of [`Resume::NEVER`] never pauses again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Resume {
    pub skip: u64,
    pub full: u64,
}

impl Resume {
    pub const NEVER: u64 = u64::MAX;
    /// The whole rest of the run in full: what a reader that does not fast-forward answers.
    pub const FULL: Resume = Resume { skip: 0, full: Resume::NEVER };

    pub fn encode(self) -> [u8; RESUME_LEN] {
        let mut b = [0u8; RESUME_LEN];
        b[0] = RESUME_TAG;
        b[1..9].copy_from_slice(&self.skip.to_le_bytes());
        b[9..].copy_from_slice(&self.full.to_le_bytes());
        b
    }

    /// The message after its tag byte.
    pub fn decode(body: &[u8; RESUME_LEN - 1]) -> Resume {
        let (s, f) = body.split_at(8);
        Resume { skip: u64::from_le_bytes(s.try_into().expect("8 bytes")), full: u64::from_le_bytes(f.try_into().expect("8 bytes")) }
    }
}
