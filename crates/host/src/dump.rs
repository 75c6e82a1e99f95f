//! CPUID register sets by (leaf, subleaf): read live on x86-64 or parsed from a
//! recorded dump.
//!
//! The text format is one register set per line, as printed by [`CpuidDump::to_text`]
//! and by the Linux `cpuid -r` tool (leading blanks, `CPU:` / `CPU 0:` headers and
//! `#` comments allowed):
//!
//! ```text
//! # any comment
//! 0x00000004 0x01: eax=0x1c004122 ebx=0x01c0003f ecx=0x0000003f edx=0x00000000
//! ```
//!
//! AIDA64 reports as published by InstLatx64 (`CPUID 00000004: 1C004122-01C0003F-0000003F-00000000 [SL 01]`)
//! are read as well: a file with such lines is a report, whose prose lines are
//! skipped; the subleaf is the `[SL nn]` tag, or without one the line's rank among
//! consecutive lines of the same leaf. Only the first CPU of a dump is kept (a
//! second `CPU n:` header, or leaf 0 again after other leaves, ends it).

use std::collections::BTreeMap;
use std::fmt;
use std::path::Path;

/// The four registers CPUID returns.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Regs {
    /// EAX.
    pub eax: u32,
    /// EBX.
    pub ebx: u32,
    /// ECX.
    pub ecx: u32,
    /// EDX.
    pub edx: u32,
}

impl Regs {
    /// The registers' bytes in EBX, EDX, ECX order (the vendor string of leaf 0).
    pub fn vendor_bytes(&self) -> [u8; 12] {
        let mut b = [0u8; 12];
        b[..4].copy_from_slice(&self.ebx.to_le_bytes());
        b[4..8].copy_from_slice(&self.edx.to_le_bytes());
        b[8..].copy_from_slice(&self.ecx.to_le_bytes());
        b
    }

    /// The registers' bytes in EAX, EBX, ECX, EDX order (brand string leaves).
    pub fn bytes(&self) -> [u8; 16] {
        let mut b = [0u8; 16];
        for (i, r) in [self.eax, self.ebx, self.ecx, self.edx]
            .into_iter()
            .enumerate()
        {
            b[i * 4..i * 4 + 4].copy_from_slice(&r.to_le_bytes());
        }
        b
    }
}

/// A malformed or unreadable dump: one line, naming the file and, for a bad line, its number.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DumpError {
    /// The file (or `live CPUID`).
    pub file: String,
    /// The 1-based line, when the error is about one line.
    pub line: Option<usize>,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for DumpError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(l) => write!(f, "{}:{}: {}", self.file, l, self.message),
            None => write!(f, "{}: {}", self.file, self.message),
        }
    }
}

impl std::error::Error for DumpError {}

/// CPUID register sets by (leaf, subleaf). Leaves without subleaves are at subleaf 0.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CpuidDump {
    regs: BTreeMap<(u32, u32), Regs>,
    /// Where the dump came from (a path, or `live CPUID`), for messages.
    pub source: String,
}

/// Leaves whose ECX input selects a subleaf (for reports without `[SL nn]` tags).
const SUBLEAF_LEAVES: &[u32] = &[
    4,
    7,
    0xB,
    0xD,
    0xF,
    0x10,
    0x12,
    0x14,
    0x17,
    0x18,
    0x1D,
    0x1E,
    0x1F,
    0x20,
    0x23,
    0x24,
    0x8000_001D,
    0x8000_0020,
    0x8000_0026,
];

impl CpuidDump {
    /// An empty dump named `source`.
    pub fn new(source: impl Into<String>) -> CpuidDump {
        CpuidDump {
            regs: BTreeMap::new(),
            source: source.into(),
        }
    }

    /// Sets the registers of (leaf, subleaf).
    pub fn insert(&mut self, leaf: u32, subleaf: u32, regs: Regs) {
        self.regs.insert((leaf, subleaf), regs);
    }

    /// The registers of (leaf, subleaf), when recorded.
    pub fn get(&self, leaf: u32, subleaf: u32) -> Option<Regs> {
        self.regs.get(&(leaf, subleaf)).copied()
    }

    /// The registers of `leaf`, subleaf 0.
    pub fn leaf(&self, leaf: u32) -> Option<Regs> {
        self.get(leaf, 0)
    }

    /// The recorded subleaves of `leaf`, in order.
    pub fn subleaves(&self, leaf: u32) -> impl Iterator<Item = (u32, Regs)> + '_ {
        self.regs
            .range((leaf, 0)..=(leaf, u32::MAX))
            .map(|(&(_, s), &r)| (s, r))
    }

    /// Every register set, ordered by (leaf, subleaf).
    pub fn iter(&self) -> impl Iterator<Item = ((u32, u32), Regs)> + '_ {
        self.regs.iter().map(|(&k, &r)| (k, r))
    }

    /// The number of register sets.
    pub fn len(&self) -> usize {
        self.regs.len()
    }

    /// True when nothing is recorded.
    pub fn is_empty(&self) -> bool {
        self.regs.is_empty()
    }

    /// The dump in the text format (one `0xLEAF 0xSUB: eax=... ebx=... ecx=... edx=...` line per set).
    pub fn to_text(&self) -> String {
        let mut s = String::new();
        for (&(leaf, sub), r) in &self.regs {
            s.push_str(&format!(
                "0x{leaf:08x} 0x{sub:02x}: eax=0x{:08x} ebx=0x{:08x} ecx=0x{:08x} edx=0x{:08x}\n",
                r.eax, r.ebx, r.ecx, r.edx
            ));
        }
        s
    }

    /// Reads a dump file (see the module documentation for the formats).
    pub fn from_file(path: &Path) -> Result<CpuidDump, DumpError> {
        let name = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|e| DumpError {
            file: name.clone(),
            line: None,
            message: format!("cannot read the CPUID dump: {e}"),
        })?;
        CpuidDump::parse(&text, &name)
    }

    /// Parses a dump; `name` names it in errors.
    pub fn parse(text: &str, name: &str) -> Result<CpuidDump, DumpError> {
        let err = |line: usize, message: String| DumpError {
            file: name.to_string(),
            line: Some(line),
            message,
        };
        let report = text.lines().any(|l| l.trim_start().starts_with("CPUID "));
        let mut dump = CpuidDump::new(name);
        let mut cpu_headers = 0;
        // AIDA64 reports: the previous line's leaf and its rank, for untagged subleaves.
        let mut last: Option<(u32, u32)> = None;
        for (i, raw) in text.lines().enumerate() {
            let n = i + 1;
            let line = raw.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            if is_cpu_header(line) {
                cpu_headers += 1;
                if cpu_headers > 1 && !dump.is_empty() {
                    break;
                }
                continue;
            }
            let (leaf, sub, regs) = if let Some(rest) = line.strip_prefix("CPUID ") {
                let (leaf, tagged, regs) = parse_report_line(rest).map_err(|m| err(n, m))?;
                let sub = match tagged {
                    Some(s) => s,
                    None => match last {
                        Some((l, s)) if l == leaf && SUBLEAF_LEAVES.contains(&leaf) => s + 1,
                        _ => 0,
                    },
                };
                (leaf, sub, regs)
            } else if line.starts_with("0x") || line.starts_with("0X") {
                parse_raw_line(line).map_err(|m| err(n, m))?
            } else if report {
                continue;
            } else {
                let shown: String = line.chars().take(40).collect();
                return Err(err(n, format!("expected `0xLEAF 0xSUBLEAF: eax=0x... ebx=0x... ecx=0x... edx=0x...`, found `{shown}`")));
            };
            // Leaf 0 after other leaves: the next CPU of a multi-CPU report.
            if leaf == 0 && dump.regs.keys().any(|&(l, _)| l != 0) {
                break;
            }
            last = Some((leaf, sub));
            match dump.regs.get(&(leaf, sub)) {
                Some(old) if *old != regs && !report => {
                    return Err(err(n, format!("leaf 0x{leaf:08x} subleaf 0x{sub:02x} given twice with different values")));
                }
                Some(_) => {}
                None => dump.insert(leaf, sub, regs),
            }
        }
        if dump.is_empty() {
            return Err(DumpError {
                file: name.to_string(),
                line: None,
                message: "no CPUID register lines in it".into(),
            });
        }
        Ok(dump)
    }

    /// Reads CPUID on the CPU this thread runs on (`None` off x86-64): the standard
    /// leaves up to leaf 0's maximum with the subleaves of 4, 7, 0xB, 0xD, 0xF, 0x10,
    /// 0x14, 0x18, 0x1D, 0x1F, 0x20, 0x23, the hypervisor leaves (0x40000000..) when
    /// leaf 1 says a hypervisor is present, and the extended leaves 0x80000000.. up to
    /// their maximum with the subleaves of 0x8000001D, 0x80000020 and 0x80000026.
    pub fn read_live() -> Option<CpuidDump> {
        live::read()
    }
}

fn is_cpu_header(line: &str) -> bool {
    let Some(rest) = line.strip_prefix("CPU") else {
        return false;
    };
    let Some(num) = rest.strip_suffix(':') else {
        return false;
    };
    num.trim().chars().all(|c| c.is_ascii_digit())
}

fn hex(s: &str, what: &str) -> Result<u32, String> {
    let t = s.trim();
    let digits = t
        .strip_prefix("0x")
        .or_else(|| t.strip_prefix("0X"))
        .unwrap_or(t);
    if digits.is_empty() || digits.len() > 8 {
        return Err(format!("bad {what} `{t}` (up to 8 hex digits)"));
    }
    u32::from_str_radix(digits, 16).map_err(|_| format!("bad {what} `{t}` (not hexadecimal)"))
}

/// `0x00000004 0x01: eax=0x... ebx=0x... ecx=0x... edx=0x...`
fn parse_raw_line(line: &str) -> Result<(u32, u32, Regs), String> {
    let (head, regs_text) = line
        .split_once(':')
        .ok_or("missing `:` after the leaf and subleaf")?;
    let mut head_words = head.split_whitespace();
    let leaf = hex(head_words.next().ok_or("missing leaf")?, "leaf")?;
    let sub = match head_words.next() {
        Some(s) => hex(s, "subleaf")?,
        None => {
            return Err(
                "missing subleaf before `:` (write 0x00 for leaves without subleaves)".into(),
            )
        }
    };
    if let Some(extra) = head_words.next() {
        return Err(format!("unexpected `{extra}` before `:`"));
    }
    let mut vals: [Option<u32>; 4] = [None; 4];
    for word in regs_text.split_whitespace() {
        let (reg, val) = word
            .split_once('=')
            .ok_or_else(|| format!("expected REG=0xVALUE, found `{word}`"))?;
        let idx = match reg.to_ascii_lowercase().as_str() {
            "eax" => 0,
            "ebx" => 1,
            "ecx" => 2,
            "edx" => 3,
            _ => return Err(format!("unknown register `{reg}` (eax, ebx, ecx, edx)")),
        };
        if vals[idx].replace(hex(val, reg)?).is_some() {
            return Err(format!("{reg} given twice"));
        }
    }
    let names = ["eax", "ebx", "ecx", "edx"];
    let get = |i: usize| vals[i].ok_or_else(|| format!("missing {}", names[i]));
    Ok((
        leaf,
        sub,
        Regs {
            eax: get(0)?,
            ebx: get(1)?,
            ecx: get(2)?,
            edx: get(3)?,
        },
    ))
}

/// AIDA64: `00000004: 1C004122-01C0003F-0000003F-00000000 [SL 01] [L1I: 32 KB]` (after `CPUID `).
fn parse_report_line(rest: &str) -> Result<(u32, Option<u32>, Regs), String> {
    let (leaf_text, after) = rest.split_once(':').ok_or("missing `:` after the leaf")?;
    let leaf = hex(leaf_text, "leaf")?;
    let after = after.trim_start();
    let (values, tail) = after.split_once(char::is_whitespace).unwrap_or((after, ""));
    let parts: Vec<&str> = values.split('-').collect();
    if parts.len() != 4 {
        return Err(format!("expected EAX-EBX-ECX-EDX, found `{values}`"));
    }
    let regs = Regs {
        eax: hex(parts[0], "eax")?,
        ebx: hex(parts[1], "ebx")?,
        ecx: hex(parts[2], "ecx")?,
        edx: hex(parts[3], "edx")?,
    };
    let sub = match tail.find("[SL ") {
        Some(p) => {
            let t = &tail[p + 4..];
            let end = t.find(']').ok_or("unclosed `[SL`")?;
            Some(hex(&t[..end], "subleaf")?)
        }
        None => None,
    };
    Ok((leaf, sub, regs))
}

#[cfg(target_arch = "x86_64")]
mod live;

#[cfg(not(target_arch = "x86_64"))]
mod live {
    pub(super) fn read() -> Option<super::CpuidDump> {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn raw_format_round_trip() {
        let text = "CPU:\n   0x00000000 0x00: eax=0x00000010 ebx=0x68747541 ecx=0x444d4163 edx=0x69746e65\n   0x00000004 0x01: eax=0x1 ebx=0x2 ecx=0x3 edx=0x4\n";
        let d = CpuidDump::parse(text, "t").unwrap();
        assert_eq!(d.len(), 2);
        assert_eq!(&d.leaf(0).unwrap().vendor_bytes(), b"AuthenticAMD");
        assert_eq!(
            d.get(4, 1),
            Some(Regs {
                eax: 1,
                ebx: 2,
                ecx: 3,
                edx: 4
            })
        );
        assert_eq!(CpuidDump::parse(&d.to_text(), "t").unwrap(), d);
    }

    #[test]
    fn only_the_first_cpu() {
        let text = "CPU 0:\n0x00000000 0x00: eax=0x1 ebx=0 ecx=0 edx=0\nCPU 1:\n0x00000000 0x00: eax=0x2 ebx=0 ecx=0 edx=0\n";
        assert_eq!(CpuidDump::parse(text, "t").unwrap().leaf(0).unwrap().eax, 1);
    }

    #[test]
    fn report_format() {
        let text = "------[ CPUID ]------\nallcpu: whatever\nCPUID 00000000: 00000016-756E6547-6C65746E-49656E69 [GenuineIntel]\n\
                    CPUID 00000004: 1C004121-01C0003F-0000003F-00000000\nCPUID 00000004: 1C004122-01C0003F-0000003F-00000000\n\
                    CPUID 00000007: 00000000-029C6FBF-00000000-9C002400 [SL 00]\nCPUID 0000000D: 00000040-00000440-00000000-00000000 [SL 05] [AVX-512 Opmask]\n\
                    L1 Data Cache: 32 KB\nCPUID 00000000: 00000016-756E6547-6C65746E-49656E69\nCPUID 00000001: 1-2-3-4\n";
        let d = CpuidDump::parse(text, "r").unwrap();
        assert_eq!(&d.leaf(0).unwrap().vendor_bytes(), b"GenuineIntel");
        assert_eq!(d.get(4, 1).unwrap().eax, 0x1C004122);
        assert_eq!(d.get(0xD, 5).unwrap().eax, 0x40);
        assert!(d.leaf(1).is_none(), "the second CPU is not read");
    }

    #[test]
    fn errors_name_file_and_line() {
        let e = |t: &str| CpuidDump::parse(t, "dump.txt").unwrap_err().to_string();
        assert_eq!(
            e("# c\n0x00000001 0x00: eax=0x1 ebx=0x2 ecx=0x3\n"),
            "dump.txt:2: missing edx"
        );
        assert_eq!(
            e("0x00000001 0x00: eax=0xZZ ebx=0 ecx=0 edx=0\n"),
            "dump.txt:1: bad eax `0xZZ` (not hexadecimal)"
        );
        assert_eq!(
            e("0x00000001: eax=0 ebx=0 ecx=0 edx=0\n"),
            "dump.txt:1: missing subleaf before `:` (write 0x00 for leaves without subleaves)"
        );
        assert!(e("hello\n").starts_with("dump.txt:1: expected `0xLEAF 0xSUBLEAF: "));
        assert_eq!(
            e("\n# nothing\n"),
            "dump.txt: no CPUID register lines in it"
        );
        assert_eq!(
            e("CPUID 00000001: 1-2-3\n"),
            "dump.txt:1: expected EAX-EBX-ECX-EDX, found `1-2-3`"
        );
    }

    #[test]
    fn live_dump_parses_back() {
        if let Some(d) = CpuidDump::read_live() {
            assert!(d.leaf(0).is_some() && d.leaf(1).is_some());
            assert_eq!(
                CpuidDump::parse(&d.to_text(), "live")
                    .unwrap()
                    .iter()
                    .count(),
                d.len()
            );
        }
    }
}
