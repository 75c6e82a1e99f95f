//! Hardware data prefetchers.
//!
//! The prefetchers watch the demand stream of the L1D (in L1D line units) and
//! name at most one line to bring into L1D (and on the way L2/L3) per access.
//! The functional layer puts the line in the caches at once; the timing model
//! books its transfer and makes a demand load that comes before the line wait
//! for it, so a prefetch issued too late hides only part of the latency.
//!
//! * next-line: on an L1D demand miss to line X, fetch X+1 (Intel's "DCU
//!   next-line prefetcher").
//! * stream: a table of streams keyed by 4 KiB page (no instruction address
//!   is available at this interface, so a stride is learnt per page, not per
//!   load). Once the same non-zero line delta has been seen twice in a row in
//!   a page, every access (also one that stays in the current line) fetches
//!   the next two lines along the stride while the stream is less than
//!   `distance` lines ahead of the demand, and one when it is `distance`
//!   ahead: the lead ramps up by a line per access without leaving holes, and
//!   then holds. A stream that reaches the next page carries on there without
//!   training again, and its prefetches run on into the pages ahead (Intel's
//!   streamer with its next-page prefetcher; a real L2 streamer stops at the
//!   physical page, but then its prefetches into L3 run further ahead, which
//!   the model's single distance stands for).
//!
//! So at most two lines per access: [`Prefetches`].
//!
//! `--prefetcher machine` (the default) runs what the machine file's
//! `[prefetch]` section says the core has; `none`, `next-line` and `stride`
//! force one choice (`stride` at the machine's distance).

use bottlenose_machine::Params;
use serde::{Deserialize, Serialize};

/// Which data prefetchers the cache hierarchy runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Prefetcher {
    /// The machine file's `[prefetch]` section (none when it has none).
    #[default]
    Machine,
    None,
    NextLine,
    Stride,
}

impl Prefetcher {
    /// Short name for reports: `machine`, `none`, `next-line`, `stride`.
    pub fn describe(&self) -> &'static str {
        match self {
            Prefetcher::Machine => "machine",
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
            "machine" | "default" => Ok(Prefetcher::Machine),
            "none" | "off" => Ok(Prefetcher::None),
            "next-line" | "nextline" | "next_line" => Ok(Prefetcher::NextLine),
            "stride" | "stream" => Ok(Prefetcher::Stride),
            _ => Err(format!("unknown prefetcher `{s}` (machine, none, next-line, stride)")),
        }
    }
}

/// Upper bound of `[prefetch] streams` (the machine loader checks it).
const MAX_STREAMS: usize = 64;

/// Distance of `--prefetcher stride` on a machine without a `[prefetch]` section.
const FALLBACK_DISTANCE_LINES: i64 = 16;

/// Bit `i` set where `keys[i] == key` (`keys.len()` a multiple of 4, at most 64).
#[inline(always)]
fn matches_u32(keys: &[u32], key: u32) -> u64 {
    #[cfg(target_arch = "x86_64")]
    {
        use core::arch::x86_64::{_mm_castsi128_ps, _mm_cmpeq_epi32, _mm_loadu_si128, _mm_movemask_ps, _mm_set1_epi32};
        let mut m = 0u64;
        // SAFETY: SSE2 is in every x86-64 CPU; each load reads 4 keys inside the slice
        unsafe {
            let k = _mm_set1_epi32(key as i32);
            for (c, chunk) in keys.chunks_exact(4).enumerate() {
                let v = _mm_loadu_si128(chunk.as_ptr().cast());
                m |= (_mm_movemask_ps(_mm_castsi128_ps(_mm_cmpeq_epi32(v, k))) as u64) << (4 * c);
            }
        }
        m
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        keys.iter().enumerate().fold(0, |m, (i, &k)| m | ((k == key) as u64) << i)
    }
}

#[derive(Debug, Clone, Copy, Default)]
struct Stream {
    page: u64,
    valid: bool,
    last_line: u64,
    stride: i64,
    confidence: u8,
    /// The furthest line prefetched along the stream (meaningful once confident).
    ahead: u64,
}

/// The lines (L1D line numbers) one access asks the prefetcher to bring, nearest first.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Prefetches {
    lines: [u64; 2],
    len: u8,
}

impl Prefetches {
    fn one(line: u64) -> Self {
        Self { lines: [line, 0], len: 1 }
    }

    fn push(&mut self, line: u64) {
        self.lines[self.len as usize] = line;
        self.len += 1;
    }

    pub fn as_slice(&self) -> &[u64] {
        &self.lines[..self.len as usize]
    }
}

/// What the engine runs, resolved from the choice and the machine.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Active {
    next_line: bool,
    stream: bool,
}

/// Prefetcher state; fixed size, no allocation after construction.
#[derive(Debug, Clone)]
pub(crate) struct PrefetchEngine {
    kind: Prefetcher,
    active: Active,
    /// log2 of lines per 4 KiB page.
    page_lines_shift: u32,
    distance: i64,
    n_streams: usize,
    streams: [Stream; MAX_STREAMS],
    /// Each stream's page ([`NO_PAGE`] while invalid), apart from the streams: the lookup
    /// of every access compares them all at once (was a scan of the 40-byte entries).
    pages: [u64; MAX_STREAMS],
    /// The low 32 bits of `pages`: what the lookup compares.
    keys: [u32; MAX_STREAMS],
    /// The stream the last access found: accesses run along a few streams at a time.
    last_hit: usize,
    next_victim: usize,
}

/// The page of no stream (a page number is an address shifted right by 12: never this).
const NO_PAGE: u64 = u64::MAX;

impl PrefetchEngine {
    pub fn new(kind: Prefetcher, params: &Params, line_shift: u32) -> Self {
        let machine = &params.prefetch;
        let active = match kind {
            Prefetcher::Machine => Active { next_line: machine.next_line, stream: machine.stream },
            Prefetcher::None => Active { next_line: false, stream: false },
            Prefetcher::NextLine => Active { next_line: true, stream: false },
            Prefetcher::Stride => Active { next_line: false, stream: true },
        };
        let configured = machine.stream || machine.next_line;
        let distance = if configured {
            machine.distance_lines(&params.memory, &params.caches) as i64
        } else {
            FALLBACK_DISTANCE_LINES
        };
        let n_streams = if configured { machine.streams as usize } else { 16 };
        Self {
            kind,
            active,
            page_lines_shift: 12u32.saturating_sub(line_shift),
            distance: distance.max(1),
            n_streams: n_streams.clamp(1, MAX_STREAMS),
            streams: [Stream::default(); MAX_STREAMS],
            pages: [NO_PAGE; MAX_STREAMS],
            keys: [NO_PAGE as u32; MAX_STREAMS],
            last_hit: 0,
            next_victim: 0,
        }
    }

    pub fn kind(&self) -> Prefetcher {
        self.kind
    }

    /// Whether any prefetcher runs (then every demand access must be observed).
    #[inline]
    pub fn runs(&self) -> bool {
        self.active.next_line || self.active.stream
    }

    /// What runs, for reports: `none`, `next-line`, `stream 64 lines`, `next-line + stream 64 lines`.
    pub fn describe(&self) -> String {
        let stream = format!("stream {} lines ahead", self.distance);
        match (self.active.next_line, self.active.stream) {
            (false, false) => "none".into(),
            (true, false) => "next-line".into(),
            (false, true) => stream,
            (true, true) => format!("next-line + {stream}"),
        }
    }

    #[inline]
    fn page(&self, line: u64) -> u64 {
        line >> self.page_lines_shift
    }

    /// Observe a demand access to L1D line `line` (`miss`: it missed L1D) and
    /// return the lines to prefetch.
    #[inline]
    pub fn observe(&mut self, line: u64, miss: bool) -> Prefetches {
        if self.active.stream {
            let p = self.observe_stream(line);
            if p.len > 0 {
                return p;
            }
        }
        if self.active.next_line && miss {
            let next = line.wrapping_add(1);
            if self.page(line) == self.page(next) {
                return Prefetches::one(next);
            }
        }
        Prefetches::default()
    }

    /// The stream of `page`, if one is valid (at most one is: a stream is made for a
    /// page only when none has it).
    #[inline(always)]
    fn find(&mut self, page: u64) -> Option<usize> {
        if self.pages[self.last_hit] == page {
            return Some(self.last_hit);
        }
        // the low halves of the pages compared four at a time; a match is checked whole
        let mut m = matches_u32(&self.keys[..self.n_streams.next_multiple_of(4)], page as u32);
        while m != 0 {
            let i = m.trailing_zeros() as usize;
            if self.pages[i] == page {
                self.last_hit = i;
                return Some(i);
            }
            m &= m - 1;
        }
        None
    }

    fn observe_stream(&mut self, line: u64) -> Prefetches {
        let page = self.page(line);
        let n = self.n_streams;
        let idx = match self.find(page) {
            Some(i) => i,
            None => {
                // a stream that walked into this page from the page before it
                // carries on (its prefetches already run into this page)
                let carried = self.streams[..n].iter().find(|s| {
                    s.valid && s.confidence > 0 && s.page.wrapping_add(s.stride.signum() as u64) == page
                });
                let fresh = Stream { page, valid: true, last_line: line, stride: 0, confidence: 0, ahead: line };
                let new = carried.map(|s| Stream { page, last_line: line, ..*s }).unwrap_or(fresh);
                let i = self.next_victim;
                self.next_victim = (i + 1) % n;
                self.streams[i] = new;
                self.pages[i] = page;
                self.keys[i] = page as u32;
                if new.confidence == 0 {
                    return Prefetches::default();
                }
                i
            }
        };
        let distance = self.distance;
        let s = &mut self.streams[idx];
        let delta = line.wrapping_sub(s.last_line) as i64;
        if delta != 0 {
            if delta == s.stride {
                if s.confidence == 0 {
                    s.ahead = line; // newly confirmed: ramp up from here
                }
                s.confidence = (s.confidence + 1).min(3);
            } else {
                s.stride = delta;
                s.confidence = 0;
            }
            s.last_line = line;
        }
        let mut out = Prefetches::default();
        if s.confidence == 0 {
            return out;
        }
        // ramp up to, then hold, `distance` lines (at least one stride) ahead of the demand
        let stride = s.stride;
        let target = distance.max(stride.abs());
        if (s.ahead.wrapping_sub(line) as i64) * stride.signum() < 0 {
            s.ahead = line; // the demand overtook the stream
        }
        for _ in 0..2 {
            let lead = s.ahead.wrapping_sub(line) as i64 * stride.signum();
            let next = s.ahead.wrapping_add(stride as u64);
            if lead >= target {
                break;
            }
            s.ahead = next;
            out.push(next);
            if lead + stride.abs() >= target {
                break; // at the distance now: hold it with one line per access
            }
        }
        out
    }
}
