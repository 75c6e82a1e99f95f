//! Running `llvm-mca -instruction-tables` and reading its text report.
//!
//! Every input line is followed by a marker instruction, and llvm-mca is told to
//! skip what it cannot handle (`-skip-unsupported-instructions=any`): the rows
//! between two markers then belong to exactly one input line, whatever was skipped
//! — no bisection, one run per batch.

use anyhow::{anyhow, bail, Context, Result};
use bottlenose_decode::Isa;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// One port unit as llvm-mca lists it: `[12.1] - Zn4FP45` is `Zn4FP45` unit 1.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resource {
    pub name: String,
    /// Unit index for resources with several units.
    pub sub: Option<u32>,
}

/// One instruction's row of the report.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    pub uops: u32,
    pub latency: u32,
    pub rthroughput: f64,
    pub may_load: bool,
    pub may_store: bool,
    pub side_effects: bool,
    /// The instruction as LLVM prints it.
    pub text: String,
    /// Cycles of pressure per unit, in [`Report::resources`] order.
    pub pressure: Vec<f64>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Report {
    pub resources: Vec<Resource>,
    pub rows: Vec<Row>,
}

/// Parses the text llvm-mca prints with `-instruction-tables`.
pub fn parse_report(text: &str) -> Result<Report> {
    let lines: Vec<&str> = text.lines().collect();
    let find = |title: &str| lines.iter().position(|l| l.trim_end() == title);

    // Instruction Info: fixed columns located from the header line.
    let info =
        find("Instruction Info:").ok_or_else(|| anyhow!("no 'Instruction Info:' section"))?;
    let hdr = (info..lines.len())
        .find(|&i| lines[i].starts_with("[1]") && lines[i].contains("Instructions:"))
        .ok_or_else(|| anyhow!("no Instruction Info table header"))?;
    let h = lines[hdr];
    let col = |label: &str| {
        h.find(label)
            .ok_or_else(|| anyhow!("Instruction Info header lacks {label}"))
    };
    let (c4, c5, c6, ci) = (col("[4]")?, col("[5]")?, col("[6]")?, col("Instructions:")?);
    let mut rows = Vec::new();
    for (n, line) in lines[hdr + 1..].iter().enumerate() {
        if line.trim().is_empty() {
            break;
        }
        let bad = || anyhow!("Instruction Info row {}: cannot read '{line}'", n + 1);
        let part =
            |a: usize, b: usize| line.get(a.min(line.len())..b.min(line.len())).unwrap_or("");
        let mut nums = part(0, c4).split_whitespace();
        let uops = nums.next().and_then(|s| s.parse().ok()).ok_or_else(bad)?;
        let latency = nums.next().and_then(|s| s.parse().ok()).ok_or_else(bad)?;
        let rthroughput = nums.next().and_then(|s| s.parse().ok()).ok_or_else(bad)?;
        rows.push(Row {
            uops,
            latency,
            rthroughput,
            may_load: part(c4, c5).contains('*'),
            may_store: part(c5, c6).contains('*'),
            side_effects: part(c6, ci).contains('U'),
            text: part(ci, line.len()).trim().to_string(),
            pressure: Vec::new(),
        });
    }

    // Resources: "[3]   - Zn4ALU0", "[12.1] - Zn4FP45".
    let res = find("Resources:").ok_or_else(|| anyhow!("no 'Resources:' section"))?;
    let mut resources = Vec::new();
    for line in &lines[res + 1..] {
        let Some(rest) = line.strip_prefix('[') else {
            break;
        };
        let (label, name) = rest
            .split_once(']')
            .ok_or_else(|| anyhow!("bad resource line '{line}'"))?;
        let name = name.trim().trim_start_matches('-').trim().to_string();
        let sub = match label.split_once('.') {
            Some((_, s)) => Some(
                s.parse()
                    .with_context(|| format!("bad resource label '{label}'"))?,
            ),
            None => None,
        };
        resources.push(Resource { name, sub });
    }
    if resources.is_empty() {
        bail!("empty 'Resources:' list");
    }

    // Resource pressure by instruction: one token per unit ('-' = 0), then the text.
    let rp = find("Resource pressure by instruction:")
        .ok_or_else(|| anyhow!("no 'Resource pressure by instruction:' section"))?;
    let mut r = 0;
    for line in lines[rp + 2..].iter() {
        if line.trim().is_empty() {
            break;
        }
        let row = rows
            .get_mut(r)
            .ok_or_else(|| anyhow!("more pressure rows than instruction rows"))?;
        let mut rest = line.trim_start();
        for _ in 0..resources.len() {
            let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
            let tok = &rest[..end];
            row.pressure.push(if tok == "-" {
                0.0
            } else {
                tok.parse()
                    .with_context(|| format!("pressure row {}: bad value '{tok}'", r + 1))?
            });
            rest = rest[end..].trim_start();
        }
        if squash(rest) != squash(&row.text) {
            bail!(
                "pressure row {} is '{}' but instruction row is '{}'",
                r + 1,
                rest,
                row.text
            );
        }
        r += 1;
    }
    if r != rows.len() {
        bail!("{} instruction rows but {r} pressure rows", rows.len());
    }
    Ok(Report { resources, rows })
}

fn squash(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The marker line put after every input line, per ISA: an instruction no compiler
/// writes, and how llvm-mca prints it back.
fn marker(isa: Isa) -> &'static str {
    match isa {
        Isa::X86_64 => "movabsq $0x5a5a5a5a5a5a5a5a, %r15",
        Isa::Aarch64 => "movk x28, #0x5a5a, lsl #48",
    }
}

fn is_marker(row: &Row) -> bool {
    (row.text.starts_with("movabsq") && row.text.contains("6510615555426900570") && row.text.ends_with("%r15"))
        || (row.text.starts_with("movk") && squash(&row.text) == "movk x28, #23130, lsl #48")
}

/// The `-mattr` that lets llvm-mca parse SVE for an Arm core with SVE (the cores'
/// own feature sets include it; the flag makes the parser accept SVE2 spellings
/// whatever the CPU's defaults), None for cores without SVE (Neoverse N1, Cortex-A7x).
pub fn sve_attr(mcpu: &str) -> Option<&'static str> {
    match mcpu {
        "neoverse-v2" | "neoverse-v3" | "neoverse-n2" | "neoverse-n3" | "neoverse-512tvb" => Some("+sve2"),
        "neoverse-v1" | "a64fx" => Some("+sve"),
        _ => None,
    }
}

/// llvm-mca's target triple for an ISA.
fn triple(isa: Isa) -> &'static str {
    match isa {
        Isa::X86_64 => "x86_64-unknown-linux-gnu",
        Isa::Aarch64 => "aarch64-unknown-linux-gnu",
    }
}

/// What became of one input line.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    Row(Row),
    /// llvm-mca could not parse the line (its message).
    ParseError(String),
    /// Parsed, but no row: the model has no scheduling data for it.
    Unsupported,
    /// The line became several instructions (`fstsw` = `wait` + `fnstsw`).
    Expanded(Vec<String>),
}

pub struct Mca {
    pub exe: PathBuf,
    pub mcpu: String,
    pub isa: Isa,
    scratch: PathBuf,
}

impl Mca {
    /// Checks that the executable runs and returns it with its version line.
    pub fn new(exe: &Path, mcpu: &str, isa: Isa) -> Result<(Mca, String)> {
        let out = Command::new(exe).arg("--version").output().map_err(|e| {
            if e.kind() == std::io::ErrorKind::NotFound {
                anyhow!(
                    "{} not found: install the Debian package llvm-19 or pass --llvm-mca PATH",
                    exe.display()
                )
            } else {
                anyhow!("cannot run {}: {e}", exe.display())
            }
        })?;
        let text = String::from_utf8_lossy(&out.stdout);
        let version = text
            .lines()
            .find(|l| l.contains("version"))
            .map(|l| l.trim().to_string())
            .ok_or_else(|| anyhow!("{} --version printed no version line", exe.display()))?;
        let scratch =
            std::env::temp_dir().join(format!("import-llvm-mca-{}-{mcpu}.s", std::process::id()));
        Ok((
            Mca {
                exe: exe.to_path_buf(),
                mcpu: mcpu.to_string(),
                isa,
                scratch,
            },
            version,
        ))
    }

    /// Runs one batch; returns the resources and one outcome per line.
    pub fn run(&self, lines: &[String]) -> Result<(Vec<Resource>, Vec<Outcome>)> {
        let mut src = String::new();
        let marker = marker(self.isa);
        src.push_str(marker);
        src.push('\n');
        for l in lines {
            src.push_str(l);
            src.push('\n');
            src.push_str(marker);
            src.push('\n');
        }
        src.push_str(".Lt:\n");
        std::fs::File::create(&self.scratch)
            .and_then(|mut f| f.write_all(src.as_bytes()))
            .with_context(|| format!("writing {}", self.scratch.display()))?;
        let out = Command::new(&self.exe)
            .args([
                &format!("-mtriple={}", triple(self.isa)),
                &format!("-mcpu={}", self.mcpu),
            ])
            .args(self.isa.eq(&Isa::Aarch64).then(|| sve_attr(&self.mcpu)).flatten().map(|a| format!("-mattr={a}")))
            .args(["-instruction-tables", "-skip-unsupported-instructions=any"])
            .arg(&self.scratch)
            .stdin(Stdio::null())
            .output()
            .with_context(|| format!("running {}", self.exe.display()))?;
        let stdout = String::from_utf8_lossy(&out.stdout);
        let stderr = String::from_utf8_lossy(&out.stderr);
        if !out.status.success() {
            bail!(
                "{} -mcpu={} failed: {}",
                self.exe.display(),
                self.mcpu,
                stderr.lines().next().unwrap_or("")
            );
        }
        if stderr.contains("not a recognized processor") {
            bail!("llvm-mca does not know -mcpu={}", self.mcpu);
        }
        let report = parse_report(&stdout).context("reading llvm-mca output")?;
        // Parse errors name the file line: input line i is file line 2i + 2.
        let mut parse_errors: Vec<Option<String>> = vec![None; lines.len()];
        let file = self.scratch.to_string_lossy();
        for l in stderr.lines() {
            let Some(rest) = l.strip_prefix(&*file).and_then(|r| r.strip_prefix(':')) else {
                continue;
            };
            let mut it = rest.splitn(3, ':');
            let (Some(line), Some(_col), Some(msg)) = (it.next(), it.next(), it.next()) else {
                continue;
            };
            let Ok(line) = line.parse::<usize>() else {
                continue;
            };
            if line >= 2 && line % 2 == 0 && line / 2 - 1 < lines.len() {
                let msg = msg.trim().trim_start_matches("error:").trim().to_string();
                parse_errors[line / 2 - 1].get_or_insert(msg);
            }
        }
        let outcomes = split_by_markers(&report.rows, lines.len(), parse_errors)?;
        Ok((report.resources, outcomes))
    }
}

impl Drop for Mca {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.scratch);
    }
}

/// Assigns the rows between consecutive markers to the input lines.
fn split_by_markers(
    rows: &[Row],
    n: usize,
    mut parse_errors: Vec<Option<String>>,
) -> Result<Vec<Outcome>> {
    let mut chunks: Vec<Vec<&Row>> = Vec::new();
    for row in rows {
        if is_marker(row) {
            chunks.push(Vec::new());
        } else {
            chunks
                .last_mut()
                .ok_or_else(|| anyhow!("llvm-mca output does not start with the marker"))?
                .push(row);
        }
    }
    if chunks.len() != n + 1 {
        bail!(
            "expected {} markers in llvm-mca output, found {}",
            n + 1,
            chunks.len()
        );
    }
    if !chunks[n].is_empty() {
        bail!("rows after the last marker");
    }
    Ok(chunks
        .into_iter()
        .take(n)
        .enumerate()
        .map(|(i, c)| match c.len() {
            0 => match parse_errors[i].take() {
                Some(e) => Outcome::ParseError(e),
                None => Outcome::Unsupported,
            },
            1 => Outcome::Row(c[0].clone()),
            // a movprfx and the partner written on its line (corpus::arm_texts)
            2 if c[0].text.starts_with("movprfx") => Outcome::Row(c[0].clone()),
            _ => Outcome::Expanded(c.iter().map(|r| r.text.clone()).collect()),
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    const ZEN4: &str = include_str!("../tests/fixtures/znver4-instruction-tables.txt");

    #[test]
    fn parses_captured_znver4_output() {
        let r = parse_report(ZEN4).unwrap();
        assert_eq!(r.resources.len(), 23);
        assert_eq!(
            r.resources[3],
            Resource {
                name: "Zn4ALU0".into(),
                sub: None
            }
        );
        assert_eq!(
            r.resources[13],
            Resource {
                name: "Zn4FP45".into(),
                sub: Some(1)
            }
        );
        assert_eq!(
            r.resources[22],
            Resource {
                name: "Zn4Store".into(),
                sub: Some(1)
            }
        );
        let add = r.rows.iter().find(|x| x.text.starts_with("addq")).unwrap();
        assert_eq!((add.uops, add.latency, add.rthroughput), (1, 1, 0.25));
        assert!(!add.may_load && !add.may_store && !add.side_effects);
        assert_eq!(&add.pressure[3..7], &[0.25; 4]);
        assert_eq!(add.pressure.iter().sum::<f64>(), 1.0);
        let vaddsd = r
            .rows
            .iter()
            .find(|x| x.text.starts_with("vaddsd"))
            .unwrap();
        assert!(vaddsd.may_load && !vaddsd.may_store);
        assert_eq!((vaddsd.uops, vaddsd.latency), (1, 10));
        assert_eq!(vaddsd.pressure[10], 0.5);
        assert_eq!(vaddsd.pressure[15], 0.33);
        let store = r
            .rows
            .iter()
            .find(|x| x.text.starts_with("vmovsd"))
            .unwrap();
        assert!(!store.may_load && store.may_store);
        let div = r.rows.iter().find(|x| x.text.starts_with("divq")).unwrap();
        assert!(div.side_effects);
        assert_eq!((div.uops, div.latency, div.pressure[3]), (2, 17, 17.0));
        assert!(r.rows.iter().all(|x| x.pressure.len() == 23));
    }

    #[test]
    fn markers_split_rows() {
        let r = parse_report(ZEN4).unwrap();
        let marker = r.rows.iter().find(|x| is_marker(x)).unwrap().clone();
        let a = r
            .rows
            .iter()
            .find(|x| x.text.starts_with("addq"))
            .unwrap()
            .clone();
        let w = Row {
            text: "wait".into(),
            ..a.clone()
        };
        let rows = vec![
            marker.clone(),
            a.clone(),
            marker.clone(),
            marker.clone(),
            w,
            a.clone(),
            marker.clone(),
            marker,
        ];
        let out = split_by_markers(
            &rows,
            4,
            vec![None, Some("invalid operand".into()), None, None],
        )
        .unwrap();
        assert_eq!(out[0], Outcome::Row(a.clone()));
        assert_eq!(out[1], Outcome::ParseError("invalid operand".into()));
        assert!(matches!(&out[2], Outcome::Expanded(v) if v.len() == 2));
        assert_eq!(out[3], Outcome::Unsupported);
        assert!(split_by_markers(&rows, 3, vec![None; 3]).is_err());
    }
}
