//! Assembly input: runs the GNU assembler (`as --64`) on the user's snippet
//! and reads the `.text` bytes back from the ELF object it writes.
//!
//! We use the real assembler rather than our own so that every instruction,
//! directive and label form GNU accepts works, with its exact encodings.
//! llvm-mca style `# LLVM-MCA-BEGIN name` / `# LLVM-MCA-END` markers are
//! turned into plain labels (same line count, so `as` line numbers still
//! match the user's), and their offsets are read from the symbol table to
//! cut one block per region. The assembler listing (`-aln`) gives the source
//! line of each offset.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use object::{Object, ObjectSection};

use crate::{AsmSyntax, CodeBlock, SourceError, SourceLine};

mod gnu_as;
mod listing;
mod markers;

use gnu_as::{map_as_error, run_as};
use listing::{function_offsets, listing_lines, region_offsets};
use markers::{prepare, Region};

/// Returns the first `as` executable on `PATH`, if any.
pub fn find_gnu_as() -> Option<PathBuf> {
    find_on_path("as")
}

fn find_on_path(program: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(program))
        .find(|p| is_executable(p))
}

/// Assembles `source` for `isa`: x86-64 with `as` (see [`assemble`]), AArch64 with
/// `aarch64-linux-gnu-as` (Arm syntax; `syntax` does not apply) for Armv9-A with SVE2, so
/// that SVE code assembles without an `.arch` line (a machine without SVE refuses it later).
pub fn assemble_for(
    isa: crate::Isa,
    source: &str,
    file_name: &str,
    syntax: AsmSyntax,
) -> Result<Vec<CodeBlock>, SourceError> {
    match isa {
        crate::Isa::X86_64 => assemble(source, file_name, syntax),
        crate::Isa::Aarch64 => {
            let program = "aarch64-linux-gnu-as";
            let as_path = find_on_path(program).ok_or_else(|| SourceError::CrossAssemblerNotFound {
                program: program.into(),
                package: "binutils-aarch64-linux-gnu".into(),
            })?;
            let mut blocks = assemble_isa(&as_path, source, file_name, AsmSyntax::Att, &["-march=armv9-a+sve2"])?;
            for b in &mut blocks {
                b.isa = isa;
            }
            Ok(blocks)
        }
    }
}

#[cfg(unix)]
fn is_executable(p: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    p.metadata()
        .map(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        .unwrap_or(false)
}

#[cfg(not(unix))]
fn is_executable(p: &Path) -> bool {
    p.is_file()
}

/// Assembles `source` with the `as` found on `PATH`.
///
/// Returns one block per llvm-mca region when the source has
/// `# LLVM-MCA-BEGIN`/`# LLVM-MCA-END` markers, else one block with the whole
/// `.text` section named `file_name`. `file_name` is only used in names and
/// error messages; nothing is read from it.
pub fn assemble(
    source: &str,
    file_name: &str,
    syntax: AsmSyntax,
) -> Result<Vec<CodeBlock>, SourceError> {
    let as_path = find_gnu_as().ok_or(SourceError::AssemblerNotFound { path: None })?;
    assemble_with(&as_path, source, file_name, syntax)
}

/// Like [`assemble`], with an explicit path to the GNU assembler.
pub fn assemble_with(
    as_path: &Path,
    source: &str,
    file_name: &str,
    syntax: AsmSyntax,
) -> Result<Vec<CodeBlock>, SourceError> {
    assemble_isa(as_path, source, file_name, syntax, &["--64"])
}

/// [`assemble_with`] with the assembler's target flags (`--64` for x86-64, none for AArch64).
fn assemble_isa(
    as_path: &Path,
    source: &str,
    file_name: &str,
    syntax: AsmSyntax,
    target_flags: &[&str],
) -> Result<Vec<CodeBlock>, SourceError> {
    let prepared = prepare(source, file_name, syntax)?;
    let output = run_as(as_path, &prepared, file_name, target_flags)?;
    let object = object::File::parse(&*output.object).map_err(|e| SourceError::BadObject {
        file: file_name.to_string(),
        message: format!("cannot read the object written by as: {e}"),
    })?;
    let text = match object.section_by_name(".text") {
        Some(s) => s,
        None => return Err(no_instructions(file_name)),
    };
    let bytes = text.data().map_err(|e| SourceError::BadObject {
        file: file_name.to_string(),
        message: format!("cannot read .text: {e}"),
    })?;
    let lines = listing_lines(&output.listing, source, prepared.prepended);
    let functions = function_offsets(&object, text.index());

    if prepared.regions.is_empty() {
        if bytes.is_empty() {
            return Err(no_instructions(file_name));
        }
        return Ok(vec![block(file_name.to_string(), bytes, 0, &lines, &functions)]);
    }

    let offsets = region_offsets(&object, text.index());
    cut_regions(file_name, &prepared.regions, &offsets, bytes, &lines, &functions)
}

/// Cuts one block per region out of the `.text` bytes, given the offsets of
/// the region labels (keyed by (is_begin, region index)) and the listing's
/// source lines. Pure: the part of [`assemble_with`] after `as` has run.
fn cut_regions(
    file_name: &str,
    regions: &[Region],
    offsets: &BTreeMap<(bool, usize), u64>,
    bytes: &[u8],
    lines: &Listing,
    functions: &BTreeMap<u64, String>,
) -> Result<Vec<CodeBlock>, SourceError> {
    let mut blocks = Vec::with_capacity(regions.len());
    for (i, region) in regions.iter().enumerate() {
        let region_err = |message: String| SourceError::Region {
            file: file_name.to_string(),
            line: region.begin_line,
            message,
        };
        let name = region
            .name
            .clone()
            .unwrap_or_else(|| format!("region {}", i + 1));
        let (begin, end) = match (offsets.get(&(true, i)), offsets.get(&(false, i))) {
            (Some(&b), Some(&e)) => (b, e),
            _ => {
                return Err(region_err(format!(
                    "region `{name}` is not in the .text section"
                )))
            }
        };
        let slice = usize::try_from(begin)
            .ok()
            .zip(usize::try_from(end).ok())
            .and_then(|(b, e)| bytes.get(b..e));
        match slice {
            Some(s) if !s.is_empty() => blocks.push(block(name, s, begin, lines, functions)),
            Some(_) => {
                return Err(region_err(format!(
                    "region `{name}` contains no instructions"
                )))
            }
            None => {
                return Err(region_err(format!(
                    "region `{name}` ends before it begins (offsets {begin:#x}..{end:#x})"
                )))
            }
        }
    }
    Ok(blocks)
}

/// Name of the assembler input file that [`assemble_offline`] pretends `as`
/// was run on (its `stderr` argument should name it).
#[doc(hidden)]
pub const OFFLINE_INPUT_NAME: &str = "/tmp/bottlenose-as/input.s";

/// The pure steps of [`assemble_with`] with `as` replaced by its outputs:
/// markers and the syntax guess (`prepare`), then, when `as_stderr` is not
/// empty, the mapping of its message (as if `as` failed on
/// [`OFFLINE_INPUT_NAME`]); else the listing's source lines and the cut of
/// the blocks out of `text`, region `i` starting at `label_offsets[2 * i]`
/// and ending at `label_offsets[2 * i + 1]` (a missing offset is a label
/// outside `.text`). Not a stable API: it exists for the fuzz targets in
/// `fuzz/`.
#[doc(hidden)]
pub fn assemble_offline(
    source: &str,
    file_name: &str,
    syntax: AsmSyntax,
    as_stderr: &str,
    listing: &str,
    text: &[u8],
    label_offsets: &[u64],
) -> Result<Vec<CodeBlock>, SourceError> {
    let prepared = prepare(source, file_name, syntax)?;
    if !as_stderr.is_empty() {
        return Err(map_as_error(
            as_stderr,
            OFFLINE_INPUT_NAME,
            file_name,
            prepared.prepended,
            "exit status: 1",
        ));
    }
    let lines = listing_lines(listing, source, prepared.prepended);
    if prepared.regions.is_empty() {
        if text.is_empty() {
            return Err(no_instructions(file_name));
        }
        return Ok(vec![block(file_name.to_string(), text, 0, &lines, &BTreeMap::new())]);
    }
    let offsets: BTreeMap<(bool, usize), u64> = label_offsets
        .iter()
        .enumerate()
        .map(|(k, &off)| ((k % 2 == 0, k / 2), off))
        .collect();
    cut_regions(file_name, &prepared.regions, &offsets, text, &lines, &BTreeMap::new())
}

fn no_instructions(file_name: &str) -> SourceError {
    SourceError::NoInstructions {
        file: file_name.to_string(),
    }
}

/// Builds a block from `bytes` that starts at `.text` offset `start`,
/// keeping the listing lines that fall inside it, rebased to the block.
fn block(name: String, bytes: &[u8], start: u64, lines: &Listing, functions: &BTreeMap<u64, String>) -> CodeBlock {
    let end = start + bytes.len() as u64;
    CodeBlock {
        address: 0,
        isa: crate::Isa::X86_64,
        bytes: bytes.to_vec(),
        name,
        source_lines: lines
            .range(start..end)
            .map(|(&off, (line, text))| SourceLine { offset: off - start, line: *line, text: text.clone() })
            .collect(),
        functions: functions.range(start..end).map(|(&off, name)| (off - start, name.clone())).collect(),
    }
}

/// Offset in `.text` -> (the user's 1-based line, its text).
type Listing = BTreeMap<u64, (usize, String)>;
