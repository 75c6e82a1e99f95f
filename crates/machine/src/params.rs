//! Machine parameters as written in a machine TOML file.

use serde::{Deserialize, Serialize};

/// Everything in a machine file except the form table.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Params {
    pub core: CoreParams,
    #[serde(default)]
    pub fusion: FusionParams,
    pub memory: MemoryParams,
    /// String instructions (`rep movs`, `rep stos`, `repe cmps`...), timed per execution.
    #[serde(default)]
    pub strings: StringParams,
    /// Cache levels, nearest first (`[[cache]]` in the file).
    #[serde(default, rename = "cache")]
    pub caches: Vec<CacheParams>,
    #[serde(default, rename = "tlb")]
    pub tlbs: Vec<TlbParams>,
    #[serde(default)]
    pub branch: BranchParams,
    #[serde(default)]
    pub vector: VectorParams,
    /// The data prefetchers the core runs (`--prefetcher machine`, the default).
    #[serde(default)]
    pub prefetch: PrefetchParams,
}

/// Widths and window sizes of the out-of-order core.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CoreParams {
    /// Fused uops allocated into the ROB per cycle: Top-Down's "issue point" slots.
    pub dispatch_width: f64,
    /// Fused uops retired per cycle.
    pub commit_width: f64,
    /// Reorder buffer entries (fused uops).
    pub rob: u32,
    /// Scheduler (reservation station) entries (unfused uops).
    pub scheduler: u32,
    pub load_buffer: u32,
    pub store_buffer: u32,
    /// Instruction bytes fetched per cycle from the L1I / decoders (dynamic runs).
    #[serde(default = "default_fetch_bytes")]
    pub fetch_bytes: u32,
    /// Treat every instruction as independent (the premise of Gus Fig. 4; also an idealization).
    #[serde(default)]
    pub ignore_dependencies: bool,
    /// Late forwarding of the accumulator between chained FMAs: an FMA whose
    /// accumulator (its destination, read too) comes from another FMA may start
    /// this many cycles after that FMA issued, not after its full latency (Arm's
    /// "4 (2)" figures). None: no such forwarding.
    #[serde(default)]
    pub fma_accumulate_latency: Option<f64>,
    /// Size of the aligned code window one fetch block comes from (op-cache line or fetch
    /// window); a block also ends at a taken branch. 0: blocks end only at taken branches.
    #[serde(default)]
    pub fetch_block_bytes: u32,
    /// Fetch blocks delivered per cycle (so at most this many taken branches per cycle).
    /// 0: unlimited (the frontend is only limited by `dispatch_width`).
    #[serde(default)]
    pub fetch_blocks_per_cycle: f64,
    /// How many cycles the fetch unit may run ahead of dispatch (the decoupling queue),
    /// so short and long blocks average out.
    #[serde(default = "default_fetch_runahead")]
    pub fetch_runahead_cycles: f64,
    /// Instruction-cache line misses the fetch unit keeps in flight while streaming
    /// sequential code (next-line / fetch-directed prefetch); 1 = one miss at a time.
    #[serde(default = "default_icache_misses_in_flight")]
    pub icache_misses_in_flight: f64,
}

fn default_fetch_bytes() -> u32 {
    16
}
fn default_fetch_runahead() -> f64 {
    4.0
}
fn default_icache_misses_in_flight() -> f64 {
    1.0
}

/// Renamer and decoder tricks.
#[derive(Debug, Clone, Serialize, Deserialize, Default)]
#[serde(deny_unknown_fields, default)]
pub struct FusionParams {
    /// A load (or store-address + store-data) and its ALU uop take one ROB slot.
    pub micro_fusion: bool,
    /// cmp/test/add/sub/and/inc/dec followed by a conditional branch take one slot and one port uop.
    pub macro_fusion: bool,
    /// xor r,r and friends are executed by the renamer: no port, no latency.
    pub zero_idioms: bool,
    /// Register-to-register moves are eliminated at rename.
    pub move_elimination: bool,
}

/// Load/store pipeline facts and which resource groups carry memory uops.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MemoryParams {
    /// Load-to-use latency of an L1 hit, included in the forms' latencies.
    pub load_latency: f64,
    /// Store-to-load forwarding latency.
    pub store_forward_latency: f64,
    /// Memory renaming (AMD Zen 2+ "memfile"): a load that names the same address expression
    /// (base register or RIP, displacement, size; no index) as an in-flight store takes the
    /// stored value directly, `renamed_forward_latency` after the store's data is written.
    #[serde(default)]
    pub memory_renaming: bool,
    #[serde(default)]
    pub renamed_forward_latency: f64,
    /// Groups that carry the load uop of a form (e.g. `p23`).
    pub load_groups: Vec<String>,
    /// Groups that carry the store-address uop.
    pub store_address_groups: Vec<String>,
    /// Where the store-address uop of a store with an index register (or a VSIB scatter)
    /// goes instead: one group for all of `store_address_groups`, or one per entry of it,
    /// in order (Haswell/Skylake: port 7 takes only base + displacement, so `["p23"]`).
    /// Empty: indexed stores use `store_address_groups` like the others.
    #[serde(default)]
    pub indexed_store_address_groups: Vec<String>,
    /// Groups that carry the store-data uop.
    pub store_data_groups: Vec<String>,
    /// Groups the form table charges to pure stores that, measured on the machine, stores
    /// do not occupy (e.g. LLVM's znver4 books FP stores on the FP load pipes): dropped.
    #[serde(default)]
    pub stores_skip_groups: Vec<String>,
    /// Load-to-use latency of a general-purpose-register load with base + displacement
    /// addressing, when measured on the machine (overrides the form table's load part).
    #[serde(default)]
    pub integer_load_latency: Option<f64>,
    /// What an index register adds to `integer_load_latency`.
    #[serde(default)]
    pub indexed_load_extra_latency: f64,
    /// Stores written from the store buffer to L1 per cycle (after retirement).
    #[serde(default = "default_stores_per_cycle")]
    pub stores_per_cycle: f64,
    /// Load-pipe slots a load that spans two cache lines takes (1: no penalty). The
    /// pipes read one line per access, so a split load is two accesses on most cores.
    #[serde(default = "one")]
    pub split_load_slots: f64,
    /// Store-pipe slots (store-data uop and L1 write) a store spanning two lines takes.
    #[serde(default = "one")]
    pub split_store_slots: f64,
    /// Latency of a DRAM access in core cycles.
    #[serde(default = "default_dram_latency")]
    pub dram_latency: f64,
    /// Sustained DRAM bandwidth in bytes per core cycle (one core).
    #[serde(default = "default_dram_bw")]
    pub dram_bytes_per_cycle: f64,
}

fn one() -> f64 {
    1.0
}
fn default_stores_per_cycle() -> f64 {
    1.0
}
fn default_dram_latency() -> f64 {
    250.0
}
fn default_dram_bw() -> f64 {
    8.0
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CacheKind {
    Data,
    Instruction,
    Unified,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Replacement {
    Lru,
    Plru,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CacheParams {
    pub name: String,
    pub level: u8,
    pub kind: CacheKind,
    pub size_kib: u32,
    pub ways: u32,
    pub line_bytes: u32,
    /// Load-to-use latency of a hit at this level, in cycles.
    pub latency: f64,
    /// Fill bandwidth from this level towards the core, bytes per cycle.
    pub bytes_per_cycle: f64,
    pub replacement: Replacement,
    /// Bytes per cycle this level accepts from the level nearer the core (its dirty
    /// victims) on a path of its own. Absent: write-backs share the fill bandwidth.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub writeback_bytes_per_cycle: Option<f64>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TlbParams {
    pub name: String,
    pub kind: CacheKind,
    pub entries: u32,
    pub ways: u32,
    pub page_kib: u32,
    pub miss_latency: f64,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct BranchParams {
    /// Cycles from a mispredicted branch's resolution to the first correct-path uop dispatch.
    pub mispredict_penalty: f64,
    pub btb_entries: u32,
    pub btb_ways: u32,
    pub ras_entries: u32,
    /// TAGE: number of tagged tables and log2 entries per table.
    pub tage_tables: u32,
    pub tage_log_entries: u32,
    pub tage_min_history: u32,
    pub tage_max_history: u32,
    /// Frontend bubble of a taken branch that hits the BTB.
    pub taken_bubble: f64,
    /// Extra frontend bubble after a correctly predicted return (return-stack lookup).
    pub return_bubble: f64,
    /// Extra frontend bubble after a correctly predicted indirect jump or call (indirect target array).
    pub indirect_bubble: f64,
    /// Cycles a correctly predicted taken branch loses when its target was not in the BTB
    /// (the decoder finds the branch and resteers fetch). Dynamic runs only.
    pub btb_miss_penalty: f64,
}

impl Default for BranchParams {
    fn default() -> Self {
        Self {
            mispredict_penalty: 15.0,
            btb_entries: 4096,
            btb_ways: 4,
            ras_entries: 16,
            tage_tables: 7,
            tage_log_entries: 10,
            tage_min_history: 5,
            tage_max_history: 640,
            taken_bubble: 0.0,
            return_bubble: 0.0,
            indirect_bubble: 0.0,
            // the value bottlenose has always used (a decode-time resteer, a few cycles on
            // every modelled core); not measured per core yet
            btb_miss_penalty: 6.0,
        }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct VectorParams {
    /// Vector FP execution units that can each start one FP op per cycle (FLOPS stacks).
    pub fp_units: u32,
    /// Widest native vector in bits.
    pub max_bits: u32,
    pub fma: bool,
    /// The core executes AVX-512 (EVEX) instructions. Where it does not, such
    /// forms are rejected by `analyze` and flagged by `run` instead of being
    /// timed as the default form.
    pub avx512: bool,
}

impl Default for VectorParams {
    fn default() -> Self {
        Self { fp_units: 2, max_bits: 256, fma: true, avx512: false }
    }
}

/// The core's hardware data prefetchers, as the model runs them by default.
///
/// The model has one prefetch engine at L1D that sees every demand access
/// (by line, no instruction address): a next-line prefetcher on L1D misses
/// and a stream/stride prefetcher trained per 4 KiB page. A prefetched line
/// is filled into every level on the way, its transfer taking fill bandwidth.
/// Real cores also prefetch into L2/L3 only, further ahead there; the model's
/// one distance is what hides the DRAM latency of a stream.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct PrefetchParams {
    /// On an L1D demand miss to line X, fetch X+1 (Intel's DCU next-line prefetcher).
    pub next_line: bool,
    /// A stream/stride prefetcher (Intel's IP-stride and L2 streamer, AMD's
    /// stride and L2 stream prefetchers).
    pub stream: bool,
    /// Streams tracked at once (one per 4 KiB page).
    pub streams: u32,
    /// How far ahead of the demand stream the stream prefetcher runs, in lines.
    /// Absent: far enough for one stream to run at DRAM bandwidth, see
    /// [`PrefetchParams::distance_lines`].
    pub stream_distance_lines: Option<u32>,
}

impl Default for PrefetchParams {
    /// No prefetcher: a machine file without a `[prefetch]` section (the paper's
    /// toy machines) runs none.
    fn default() -> Self {
        Self { next_line: false, stream: false, streams: 16, stream_distance_lines: None }
    }
}

impl PrefetchParams {
    /// Longest distance the model runs: two 4 KiB pages of 64-byte lines.
    pub const MAX_DISTANCE_LINES: u32 = 128;

    /// The stream distance in lines: the machine file's, or else the lines
    /// that arrive from DRAM during one DRAM latency at the sustained DRAM
    /// bandwidth (Little's law: fewer and a lone stream waits on latency, not
    /// bandwidth), at least 4 and at most [`Self::MAX_DISTANCE_LINES`] and an
    /// eighth of the L1D. Derived rather than written down so that a calibration
    /// that measures the latency and the bandwidth moves it with them.
    ///
    /// Why the L1D bound: the model's one engine prefetches into L1D, so every
    /// stream keeps its distance's worth of lines there; with a few streams
    /// (a triad has three) and 8 ways, more than an eighth evicts prefetched lines
    /// before their loads come (a calibrated 600-cycle DRAM latency on the Zen 4
    /// host gave 95 lines, and an L2-resident triad missed L1 on most lines).
    /// Real cores run the far part of the distance in their L2 streamer.
    pub fn distance_lines(&self, memory: &MemoryParams, caches: &[CacheParams]) -> u32 {
        let l1d = caches.iter().find(|c| c.level == 1 && c.kind != CacheKind::Instruction);
        let line = l1d.map_or(64, |c| c.line_bytes.max(1));
        self.stream_distance_lines.unwrap_or_else(|| {
            let in_flight = memory.dram_latency * memory.dram_bytes_per_cycle / line as f64;
            let l1_share = l1d.map_or(Self::MAX_DISTANCE_LINES, |c| (c.size_kib * 1024 / line / 8).max(4));
            (in_flight.ceil() as u32).clamp(4, Self::MAX_DISTANCE_LINES.min(l1_share))
        })
    }
}

/// The same core as other tools name it: the peers' models closest to this one
/// and the Top-Down event table of its PMU.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct PeerNames {
    /// `llvm-mca -mcpu=` value (also the LLVM model the form table came from).
    pub llvm_mcpu: Option<String>,
    /// OSACA `--arch` value.
    pub osaca_arch: Option<String>,
    /// The Top-Down event table (`bottlenose topdown --cpu`) of this core's PMU.
    pub topdown_table: Option<String>,
    /// QEMU's `-cpu` for `run` (the features the guest sees, so that its
    /// ifuncs pick the code this core would run: `neoverse-n1` has no SVE,
    /// `max,sve128=on` gives SVE with the V2's 128-bit vectors); QEMU's default when absent.
    pub qemu_cpu: Option<String>,
}

impl PeerNames {
    /// The SVE vector length in bits programs see under QEMU 7.2's `-cpu` (`qemu_cpu`),
    /// None for a core without SVE. User-mode QEMU runs with the default length
    /// (`sve-default-vector-length`, 64 bytes unless given) clamped to the largest
    /// `sveN=on` length and the model's maximum (`max` 2048 bits, `a64fx` 512); `rdvl`
    /// under `qemu-aarch64 -cpu max` reads 512 bits, `max,sve128=on` 128,
    /// `max,sve128=on,sve256=on` 256.
    pub fn sve_vector_bits(&self) -> Option<u16> {
        let cpu = self.qemu_cpu.as_deref().unwrap_or("max");
        let mut parts = cpu.split(',');
        let model_max = match parts.next()?.trim() {
            "max" => 2048,
            "a64fx" => 512,
            _ => return None,
        };
        let mut enabled_max = None;
        let mut default_bits = 512u32;
        for prop in parts {
            let (key, value) = prop.split_once('=').unwrap_or((prop, "on"));
            match (key.trim(), value.trim()) {
                ("sve", "off") => return None,
                ("sve-default-vector-length", v) => {
                    if let Ok(bytes) = v.parse::<i64>() {
                        default_bits = if bytes < 0 { model_max } else { bytes as u32 * 8 };
                    }
                }
                (k, "on") => {
                    if let Some(bits) = k.strip_prefix("sve").and_then(|n| n.parse::<u32>().ok()) {
                        enabled_max = Some(enabled_max.unwrap_or(0).max(bits));
                    }
                }
                _ => {}
            }
        }
        Some(default_bits.min(enabled_max.unwrap_or(model_max)).min(model_max) as u16)
    }
}

/// String instructions (`movs`, `stos`, `lods`, `cmps`, `scas`, with or without a
/// `rep`/`repe`/`repne` prefix), timed once per executed instruction from its element
/// count, not per element: a start-up cost, then a rate in bytes (fast strings, ERMSB)
/// or in elements (a microcoded loop), whichever is slower. The lines it touches go
/// through the caches: fills from L2, L3 and DRAM bound it like any other miss stream,
/// and its stores drain into L1 at `store_bytes_per_cycle`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct StringParams {
    /// Bytes per cycle a string instruction's stores are written into L1D.
    pub store_bytes_per_cycle: f64,
    /// How long before a string instruction completes younger instructions dispatch: the
    /// frontend sequences its microcode until the rest fits the ROB, so a short one holds
    /// nothing up and a long one the frontend for all but its last this many cycles. Two
    /// string instructions never overlap.
    pub overlap_cycles: f64,
    /// Bytes per cycle a string instruction writes lines to memory without reading them
    /// first (see [`StringOpParams::no_rfo`]).
    pub streaming_bytes_per_cycle: f64,
    pub movs: StringOpParams,
    pub stos: StringOpParams,
    pub lods: StringOpParams,
    pub cmps: StringOpParams,
    pub scas: StringOpParams,
}

/// Timing of one kind of string instruction (see [`StringParams`]).
///
/// A repeated instruction over `n` bytes in `e` elements takes `short_cycles` if
/// `n <= short_bytes` (FSRM's fast short `rep movsb`; rcx = 0 included), else
/// `startup + max(n / bytes_per_cycle, e * cycles_per_element)` with its data in L1. One
/// without a prefix takes `max(n / bytes_per_cycle, cycles_per_element)`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct StringOpParams {
    /// Cycles from the start of a repeated instruction to its first element (microcode
    /// set-up and its branch mispredictions).
    pub startup: f64,
    /// Bytes per cycle once running, data in L1.
    pub bytes_per_cycle: f64,
    /// Cycles per element at least (0: the byte rate alone).
    pub cycles_per_element: f64,
    /// Operations of at most this many bytes take `short_cycles` in all (0: no short path).
    pub short_bytes: u32,
    pub short_cycles: f64,
    /// Dispatch slots (and ROB entries) the instruction takes; the frontend is then busy
    /// sequencing its microcode until it completes.
    pub uops: u32,
    /// Its stores write whole lines that are not in L1 or L2 without reading them first (no
    /// read-for-ownership): those lines take no fill, they stream out at
    /// `streaming_bytes_per_cycle`.
    pub no_rfo: bool,
}

impl StringOpParams {
    /// A generic fast-string operation: no short path, 35 cycles to start, 16 bytes per cycle,
    /// its stores read their lines first.
    const GENERIC_BULK: StringOpParams =
        StringOpParams { startup: 35.0, bytes_per_cycle: 16.0, cycles_per_element: 0.0, short_bytes: 0, short_cycles: 0.0, uops: 4, no_rfo: false };
    /// A generic element-by-element microcode loop: 20 cycles to start, 2 cycles per element.
    const GENERIC_LOOP: StringOpParams = StringOpParams { cycles_per_element: 2.0, startup: 20.0, ..Self::GENERIC_BULK };
}

impl Default for StringOpParams {
    fn default() -> Self {
        Self::GENERIC_BULK
    }
}

impl Default for StringParams {
    /// A machine file without `[strings]` (the paper's toy machines): a generic core with
    /// fast `rep movs`/`rep stos` and microcoded loops for the others.
    fn default() -> Self {
        Self {
            store_bytes_per_cycle: 16.0,
            overlap_cycles: 50.0,
            streaming_bytes_per_cycle: 8.0,
            movs: StringOpParams::GENERIC_BULK,
            stos: StringOpParams::GENERIC_BULK,
            lods: StringOpParams::GENERIC_LOOP,
            cmps: StringOpParams::GENERIC_LOOP,
            scas: StringOpParams::GENERIC_LOOP,
        }
    }
}

impl StringParams {
    /// The parameters of each kind, with its name in the machine file.
    pub fn kinds(&self) -> [(&'static str, &StringOpParams); 5] {
        [("movs", &self.movs), ("stos", &self.stos), ("lods", &self.lods), ("cmps", &self.cmps), ("scas", &self.scas)]
    }
}
