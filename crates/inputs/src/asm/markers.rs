//! The source as `as` gets it: llvm-mca region markers turned into labels
//! (same line count), checked to pair up, and the syntax prelude for Intel
//! snippets that do not choose a syntax themselves.

use crate::{AsmSyntax, SourceError};

pub(super) const BEGIN_LABEL: &str = "__bn_region_begin_";
pub(super) const END_LABEL: &str = "__bn_region_end_";

/// A region found in the source. Lines are the user's, 1-based.
#[derive(Debug)]
pub(super) struct Region {
    pub(super) name: Option<String>,
    pub(super) begin_line: usize,
    end_line: Option<usize>,
}

/// The text handed to `as` plus what we need to map results back.
#[derive(Debug)]
pub(super) struct Prepared {
    pub(super) text: String,
    /// Lines we put before the user's first line.
    pub(super) prepended: usize,
    pub(super) regions: Vec<Region>,
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
pub(super) fn prepare(source: &str, file_name: &str, syntax: AsmSyntax) -> Result<Prepared, SourceError> {
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
pub(super) fn strip_comment(line: &str) -> &str {
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

#[cfg(test)]
mod tests {
    use super::*;

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
}
