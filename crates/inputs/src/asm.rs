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
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use object::{Object, ObjectSection, ObjectSymbol};

use crate::{AsmSyntax, CodeBlock, SourceError, SourceLine};

const BEGIN_LABEL: &str = "__bn_region_begin_";
const END_LABEL: &str = "__bn_region_end_";

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

/// A region found in the source. Lines are the user's, 1-based.
#[derive(Debug)]
struct Region {
    name: Option<String>,
    begin_line: usize,
    end_line: Option<usize>,
}

/// The text handed to `as` plus what we need to map results back.
#[derive(Debug)]
struct Prepared {
    text: String,
    /// Lines we put before the user's first line.
    prepended: usize,
    regions: Vec<Region>,
}

enum Marker {
    Begin(Option<String>),
    End(Option<String>),
}

/// Recognises a whole-line `# LLVM-MCA-BEGIN [name]` / `# LLVM-MCA-END [name]`.
fn parse_marker(line: &str) -> Option<Marker> {
    let rest = line.trim_start().strip_prefix('#')?.trim_start();
    let name_of = |s: &str| {
        if !s.is_empty() && !s.starts_with(char::is_whitespace) {
            return None; // e.g. LLVM-MCA-BEGINNING: not a marker
        }
        let s = s.trim();
        Some((!s.is_empty()).then(|| s.to_string()))
    };
    if let Some(r) = rest.strip_prefix("LLVM-MCA-BEGIN") {
        return name_of(r).map(Marker::Begin);
    }
    if let Some(r) = rest.strip_prefix("LLVM-MCA-END") {
        return name_of(r).map(Marker::End);
    }
    None
}

/// Replaces region markers with labels, checks they pair up and picks the syntax prelude.
fn prepare(source: &str, file_name: &str, syntax: AsmSyntax) -> Result<Prepared, SourceError> {
    let intel_prelude = match syntax {
        AsmSyntax::Att => false,
        AsmSyntax::Intel => true,
        AsmSyntax::Auto => looks_intel_without_directive(source),
    };
    let mut text = String::with_capacity(source.len() + 64);
    let mut prepended = 0;
    if intel_prelude {
        text.push_str(".intel_syntax noprefix\n");
        prepended += 1;
    }

    let region_err = |line: usize, message: String| SourceError::Region {
        file: file_name.to_string(),
        line,
        message,
    };
    let mut regions: Vec<Region> = Vec::new();
    let mut open: Vec<usize> = Vec::new(); // indices into `regions`
    for (idx, line) in source.lines().enumerate() {
        let line_no = idx + 1;
        match parse_marker(line) {
            None => text.push_str(line),
            Some(Marker::Begin(name)) => {
                if let Some(&prev) = open.iter().find(|&&r| regions[r].name == name) {
                    let what = describe(&name);
                    return Err(region_err(
                        line_no,
                        format!(
                            "LLVM-MCA-BEGIN: {what} is already open (since line {})",
                            regions[prev].begin_line
                        ),
                    ));
                }
                text.push_str(&format!("{BEGIN_LABEL}{}:", regions.len()));
                open.push(regions.len());
                regions.push(Region {
                    name,
                    begin_line: line_no,
                    end_line: None,
                });
            }
            Some(Marker::End(name)) => {
                let pos = match &name {
                    Some(_) => open.iter().rposition(|&r| regions[r].name == name),
                    None => open.len().checked_sub(1),
                };
                let Some(pos) = pos else {
                    return Err(region_err(
                        line_no,
                        format!(
                            "LLVM-MCA-END without a matching LLVM-MCA-BEGIN ({})",
                            describe(&name)
                        ),
                    ));
                };
                let r = open.remove(pos);
                regions[r].end_line = Some(line_no);
                text.push_str(&format!("{END_LABEL}{r}:"));
            }
        }
        text.push('\n');
    }
    if let Some(&r) = open.first() {
        return Err(region_err(
            regions[r].begin_line,
            format!(
                "LLVM-MCA-BEGIN without a matching LLVM-MCA-END ({})",
                describe(&regions[r].name)
            ),
        ));
    }
    debug_assert!(regions.iter().all(|r| r.end_line.is_some()));
    Ok(Prepared {
        text,
        prepended,
        regions,
    })
}

fn describe(name: &Option<String>) -> String {
    match name {
        Some(n) => format!("region `{n}`"),
        None => "anonymous region".to_string(),
    }
}

/// Strips `#`, `//` and single-line `/* */` comments, for the syntax guess.
fn strip_comment(line: &str) -> &str {
    let mut end = line.len();
    for pat in ["#", "//", "/*"] {
        if let Some(i) = line.find(pat) {
            end = end.min(i);
        }
    }
    &line[..end]
}

/// `Auto` syntax: true when the source should get an `.intel_syntax noprefix`
/// prelude, i.e. it chooses no syntax itself, has instructions, and uses
/// neither `%` registers nor `$` immediates (both AT&T only).
fn looks_intel_without_directive(source: &str) -> bool {
    let mut has_instruction = false;
    for raw in source.lines() {
        let line = strip_comment(raw);
        if line.contains(".intel_syntax") || line.contains(".att_syntax") {
            return false; // the source picks its own syntax
        }
        if line.contains('%') || line.contains('$') {
            return false;
        }
        // Drop leading `label:` parts, then see if an instruction remains.
        let mut rest = line.trim();
        while let Some(colon) = rest.find(':') {
            let label = &rest[..colon];
            if label.is_empty()
                || !label
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '$'))
            {
                break;
            }
            rest = rest[colon + 1..].trim_start();
        }
        if !rest.is_empty() && !rest.starts_with('.') {
            has_instruction = true;
        }
    }
    has_instruction
}

struct AsOutput {
    object: Vec<u8>,
    listing: String,
}

/// Runs the assembler (`as --64`, or the AArch64 one) on the prepared text in a temporary directory.
fn run_as(as_path: &Path, prepared: &Prepared, file_name: &str, target_flags: &[&str]) -> Result<AsOutput, SourceError> {
    let io = |context: &str| {
        let context = context.to_string();
        move |source| SourceError::Io { context, source }
    };
    let dir = tempfile::Builder::new()
        .prefix("bottlenose-as")
        .tempdir()
        .map_err(io("creating a temporary directory"))?;
    let input = dir.path().join("input.s");
    let object_path = dir.path().join("out.o");
    let listing_path = dir.path().join("listing.lst");
    std::fs::write(&input, &prepared.text).map_err(io("writing the assembler input"))?;

    let mut listing_arg = OsString::from("-aln=");
    listing_arg.push(listing_path.as_os_str());
    let result = Command::new(as_path)
        .args(target_flags)
        .arg(listing_arg)
        .arg("-o")
        .arg(&object_path)
        .arg(&input)
        .stdin(Stdio::null())
        .output();
    let output = match result {
        Ok(o) => o,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(SourceError::AssemblerNotFound {
                path: Some(as_path.to_path_buf()),
            })
        }
        Err(e) => {
            return Err(SourceError::Io {
                context: format!("running {}", as_path.display()),
                source: e,
            })
        }
    };
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        let input_name = input.to_string_lossy();
        return Err(map_as_error(
            &stderr,
            &input_name,
            file_name,
            prepared.prepended,
            &output.status.to_string(),
        ));
    }
    let object = std::fs::read(&object_path).map_err(io("reading the object written by as"))?;
    // The listing is a nicety: a missing one just means no source lines.
    let listing = std::fs::read_to_string(&listing_path).unwrap_or_default();
    Ok(AsOutput { object, listing })
}

/// Turns `as` stderr into one error naming the user's file and line.
///
/// `as` prints `/tmp/…/input.s:3: Error: no such instruction: `foo'`; this
/// becomes `file.s:3: no such instruction: `foo'` (line shifted back by the
/// lines we prepended).
fn map_as_error(
    stderr: &str,
    input_name: &str,
    file_name: &str,
    prepended: usize,
    status: &str,
) -> SourceError {
    let mut fallback: Option<String> = None;
    for line in stderr.lines() {
        let line = line.trim_end();
        if line.is_empty() || line.ends_with("Assembler messages:") {
            continue;
        }
        let Some(rest) = line
            .strip_prefix(input_name)
            .and_then(|r| r.strip_prefix(':'))
        else {
            fallback.get_or_insert_with(|| line.replace(input_name, file_name));
            continue;
        };
        let (num, msg) = match rest.split_once(':') {
            Some((n, m)) => (n.trim().parse::<usize>().ok(), m.trim_start()),
            None => (None, rest.trim_start()),
        };
        if msg.starts_with("Warning:") {
            continue;
        }
        let msg = msg
            .strip_prefix("Error:")
            .or_else(|| msg.strip_prefix("Fatal error:"))
            .unwrap_or(msg)
            .trim_start()
            .replace(input_name, file_name);
        let user_line = num
            .and_then(|n| n.checked_sub(prepended))
            .filter(|&n| n > 0);
        return SourceError::Assembler {
            file: file_name.to_string(),
            line: user_line,
            message: msg,
        };
    }
    SourceError::Assembler {
        file: file_name.to_string(),
        line: None,
        message: fallback.unwrap_or_else(|| format!("as failed ({status}) without a message")),
    }
}

/// Reads the `as -aln` listing into `.text offset -> user source line`.
///
/// Listing lines look like `   3 0003 4883E901 \tsubq $1, %rcx`; lines
/// without an address (labels, directives) and continuation lines (no tab)
/// are skipped. Section directives are followed so that `.data` bytes are
/// not mistaken for code. Best effort: anything odd is just left out.
fn listing_lines(listing: &str, source: &str, prepended: usize) -> Listing {
    let user_lines: Vec<&str> = source.lines().collect();
    let mut out = BTreeMap::new();
    let mut in_text = true;
    let mut previous = true;
    let mut stack: Vec<bool> = Vec::new();
    for line in listing.lines() {
        let Some((head, src)) = line.split_once('\t') else {
            continue;
        };
        let mut fields = head.split_whitespace();
        let (Some(num), addr, data) = (fields.next(), fields.next(), fields.next()) else {
            continue;
        };
        if let Some(now) = section_change(src, in_text, previous, &mut stack) {
            previous = in_text;
            in_text = now;
            continue;
        }
        let (Some(addr), Some(_)) = (addr, data) else {
            continue;
        };
        let (Ok(num), Ok(addr)) = (num.parse::<usize>(), u64::from_str_radix(addr, 16)) else {
            continue;
        };
        if !in_text {
            continue;
        }
        let Some(i) = num.checked_sub(prepended + 1) else { continue };
        let text = user_lines
            .get(i)
            .map(|l| l.trim())
            // `.endr`/`.endm` lines carry a whole expansion's bytes: not one line's.
            .filter(|l| !l.is_empty() && !l.starts_with(".endr") && !l.starts_with(".endm"));
        if let Some(text) = text {
            out.entry(addr).or_insert_with(|| (i + 1, text.to_string()));
        }
    }
    out
}

/// If `src` switches sections, returns whether the new section is `.text`.
fn section_change(src: &str, in_text: bool, previous: bool, stack: &mut Vec<bool>) -> Option<bool> {
    let s = strip_comment(src).trim();
    let mut words = s.split(|c: char| c.is_whitespace() || c == ',');
    let directive = words.next()?.to_ascii_lowercase();
    let arg = || {
        s.split(|c: char| c.is_whitespace() || c == ',')
            .filter(|w| !w.is_empty())
            .nth(1)
            .map(|w| w.trim_matches('"') == ".text")
            .unwrap_or(false)
    };
    match directive.as_str() {
        ".text" => Some(true),
        ".data" | ".bss" | ".rodata" => Some(false),
        ".section" => Some(arg()),
        ".pushsection" => {
            stack.push(in_text);
            Some(arg())
        }
        ".popsection" => Some(stack.pop().unwrap_or(true)),
        ".previous" => Some(previous),
        _ => None,
    }
}

/// Offsets of the region labels in `.text`, keyed by (is_begin, region index).
fn region_offsets(
    object: &object::File<'_>,
    text_index: object::SectionIndex,
) -> BTreeMap<(bool, usize), u64> {
    let mut out = BTreeMap::new();
    for sym in object.symbols() {
        let Ok(name) = sym.name() else { continue };
        let (is_begin, idx) = if let Some(n) = name.strip_prefix(BEGIN_LABEL) {
            (true, n)
        } else if let Some(n) = name.strip_prefix(END_LABEL) {
            (false, n)
        } else {
            continue;
        };
        let Ok(idx) = idx.parse::<usize>() else {
            continue;
        };
        if sym.section_index() == Some(text_index) {
            out.insert((is_begin, idx), sym.address());
        }
    }
    out
}

/// The `.text` offsets of the function symbols (`.type f, @function`), one
/// name per offset.
fn function_offsets(object: &object::File<'_>, text_index: object::SectionIndex) -> BTreeMap<u64, String> {
    let mut out = BTreeMap::new();
    for sym in object.symbols() {
        if sym.kind() != object::SymbolKind::Text || sym.section_index() != Some(text_index) {
            continue;
        }
        if let Ok(name) = sym.name() {
            out.entry(sym.address()).or_insert_with(|| name.to_string());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn maps_as_error_lines_back_to_the_user_file() {
        let stderr = "/tmp/x/input.s: Assembler messages:\n/tmp/x/input.s:4: Error: no such instruction: `foo'\n";
        let e = map_as_error(stderr, "/tmp/x/input.s", "jacobi.s", 1, "exit status: 1");
        assert_eq!(e.to_string(), "jacobi.s:3: no such instruction: `foo'");
    }

    #[test]
    fn skips_warnings_and_handles_messages_without_a_line() {
        let stderr = "Assembler messages:\n/tmp/x/input.s:2: Warning: something\n\
                      Error: can't open /tmp/x/input.s for reading\n";
        let e = map_as_error(stderr, "/tmp/x/input.s", "a.s", 0, "exit status: 1");
        assert_eq!(e.to_string(), "a.s: Error: can't open a.s for reading");
    }

    #[test]
    fn recognises_markers() {
        assert!(
            matches!(parse_marker("# LLVM-MCA-BEGIN loop"), Some(Marker::Begin(Some(n))) if n == "loop")
        );
        assert!(matches!(
            parse_marker("  #LLVM-MCA-END"),
            Some(Marker::End(None))
        ));
        assert!(parse_marker("# LLVM-MCA-BEGINNING").is_none());
        assert!(parse_marker("# just a comment").is_none());
    }

    #[test]
    fn syntax_guess() {
        assert!(looks_intel_without_directive(
            "loop:\n  add rax, rbx # a comment with %\n  jne loop\n"
        ));
        assert!(!looks_intel_without_directive("addq %rbx, %rax\n"));
        assert!(!looks_intel_without_directive("pushq $1\n"));
        assert!(!looks_intel_without_directive(
            ".intel_syntax noprefix\nadd rax, rbx\n"
        ));
        assert!(!looks_intel_without_directive(
            "# only a comment\n.p2align 4\n"
        ));
    }

    #[test]
    fn listing_follows_sections() {
        let listing = "   1              \ttop:\n   2 0000 4801D8   \t  addq %rbx, %rax\n\
                       \x20  3              \t.data\n   4 0000 0102     \t.byte 1,2\n\
                       \x20  5              \t.text\n   6 0003 90       \tnop\n   6      90 \n";
        let source = "top:\n  addq %rbx, %rax\n.data\n.byte 1,2\n.text\nnop\n";
        let lines = listing_lines(listing, source, 0);
        let v: Vec<_> = lines.into_iter().collect();
        assert_eq!(
            v,
            vec![(0, (2, "addq %rbx, %rax".to_string())), (3, (6, "nop".to_string()))]
        );
    }
}
