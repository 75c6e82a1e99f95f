//! Optional hardware data prefetchers (off by default).
//!
//! The prefetchers watch the demand stream of the L1D (in L1D line units) and
//! name at most one line to bring into L1D (and on the way L2/L3) per access.
//! The functional layer puts the line in the caches at once; the timing model
//! books its transfer and makes a demand load that comes before the line wait
//! for it, so a prefetch issued too late hides only part of the latency.
//!
//! * [`Prefetcher::NextLine`]: on an L1D demand miss to line X, fetch X+1
//!   (Intel's "DCU next-line prefetcher").
//! * [`Prefetcher::Stride`]: a streamer. A 16-entry table of streams keyed by
//!   4 KiB region (no PC is available at this interface); once the same non-zero
//!   line delta has been seen twice in a row in a region, every access fetches
//!   the line [`DISTANCE_LINES`] ahead along the stride (at least one stride),
//!   within the page or into the next one (as Intel's L2 streamer with its
//!   next-page prefetcher): far enough ahead to cover a DRAM access of a
//!   stream.

use serde::{Deserialize, Serialize};

/// Which data prefetcher the cache hierarchy runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Prefetcher {
    #[default]
    None,
    NextLine,
    Stride,
}

impl Prefetcher {
    /// Short name for reports: `none`, `next-line`, `stride`.
    pub fn describe(&self) -> &'static str {
        match self {
            Prefetcher::None => "none",
            Prefetcher::NextLine => "next-line",
            Prefetcher::Stride => "stride",
        }
    }
}

impl std::str::FromStr for Prefetcher {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "none" | "off" => Ok(Prefetcher::None),
            "next-line" | "nextline" | "next_line" => Ok(Prefetcher::NextLine),
            "stride" => Ok(Prefetcher::Stride),
            _ => Err(format!("unknown prefetcher `{s}` (none, next-line, stride)")),
        }
    }
}

const STREAMS: usize = 16;

/// How far ahead the stride prefetcher runs, in lines (Intel's L2 streamer
/// runs up to 20 lines ahead of the demand stream).
pub const DISTANCE_LINES: i64 = 16;

#[derive(Debug, Clone, Copy, Default)]
struct Stream {
    region: u64,
    valid: bool,
    last_line: u64,
    stride: i64,
    confidence: u8,
}

/// Prefetcher state; fixed size, no allocation after construction.
#[derive(Debug, Clone)]
pub(crate) struct PrefetchEngine {
    kind: Prefetcher,
    /// log2 of lines per 4 KiB page.
    page_lines_shift: u32,
    streams: [Stream; STREAMS],
    next_victim: usize,
}

impl PrefetchEngine {
    pub fn new(kind: Prefetcher, line_shift: u32) -> Self {
        Self {
            kind,
            page_lines_shift: 12u32.saturating_sub(line_shift),
            streams: [Stream::default(); STREAMS],
            next_victim: 0,
        }
    }

    pub fn kind(&self) -> Prefetcher {
        self.kind
    }

    #[inline]
    fn same_page(&self, a: u64, b: u64) -> bool {
        a >> self.page_lines_shift == b >> self.page_lines_shift
    }

    /// Observe a demand access to L1D line `line` (`miss`: it missed L1D) and
    /// return the line to prefetch, if any.
    #[inline]
    pub fn observe(&mut self, line: u64, miss: bool) -> Option<u64> {
        match self.kind {
            Prefetcher::None => None,
            Prefetcher::NextLine => {
                let next = line.wrapping_add(1);
                (miss && self.same_page(line, next)).then_some(next)
            }
            Prefetcher::Stride => self.observe_stride(line),
        }
    }

    fn observe_stride(&mut self, line: u64) -> Option<u64> {
        let region = line >> self.page_lines_shift;
        let idx = match self.streams.iter().position(|s| s.valid && s.region == region) {
            Some(i) => i,
            None => {
                let i = self.next_victim;
                self.next_victim = (i + 1) % STREAMS;
                self.streams[i] = Stream { region, valid: true, last_line: line, stride: 0, confidence: 0 };
                return None;
            }
        };
        let s = &mut self.streams[idx];
        let delta = line.wrapping_sub(s.last_line) as i64;
        if delta == 0 {
            return None;
        }
        if delta == s.stride {
            s.confidence = (s.confidence + 1).min(3);
        } else {
            s.stride = delta;
            s.confidence = 0;
        }
        s.last_line = line;
        if s.confidence >= 1 {
            let stride = s.stride;
            let k = (DISTANCE_LINES / stride.abs()).max(1);
            let target = line.wrapping_add((k * stride) as u64);
            // this page or the next one along the stream
            let page = |l: u64| (l >> self.page_lines_shift) as i64;
            let step = page(target).wrapping_sub(page(line));
            if step == 0 || step == stride.signum() {
                return Some(target);
            }
        }
        None
    }
}
