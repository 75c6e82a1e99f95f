//! Hex input: machine code pasted as text, e.g. from objdump, a C array or a
//! C string. Accepts `48 01 d8`, `4801d8`, `0x48,0x01,0xd8`, `"\x48\x01"`,
//! with whitespace, newlines, commas, quotes and braces as separators, and
//! `#` or `//` comments to the end of the line. Kept lenient about layout but
//! strict about content, so a typo is reported with its position instead of
//! silently producing different bytes.

use crate::{CodeBlock, SourceError};

/// Parses hex text into one code block named "hex" at address 0.
///
/// Each run of hex digits must have an even length, except that a single
/// digit right after an explicit `0x` or `\x` prefix is one byte (`0x1` = 01).
/// Bytes of x86-64 code by default; set the block's `isa` for another ISA.
pub fn from_hex(text: &str) -> Result<CodeBlock, SourceError> {
    let bytes = parse_hex(text)?;
    if bytes.is_empty() {
        return Err(SourceError::NoBytes);
    }
    Ok(CodeBlock {
        address: 0,
        isa: crate::Isa::X86_64,
        bytes,
        name: "hex".to_string(),
        source_lines: Vec::new(),
        functions: Vec::new(),
    })
}

/// Position of a character, for error messages.
#[derive(Clone, Copy)]
struct Pos {
    offset: usize,
    line: usize,
    column: usize,
}

fn parse_hex(text: &str) -> Result<Vec<u8>, SourceError> {
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    let mut out = Vec::new();
    let mut line = 1usize;
    let mut line_start = 0usize; // index into `chars` of the current line's first char
    let mut i = 0usize;

    let pos_at = |i: usize, line: usize, line_start: usize| Pos {
        offset: chars.get(i).map_or(text.len(), |&(o, _)| o),
        line,
        column: i - line_start + 1,
    };
    let next_is_x = |i: usize| matches!(chars.get(i + 1), Some((_, 'x' | 'X')));

    while let Some(&(_, c)) = chars.get(i) {
        match c {
            '\n' => {
                i += 1;
                line += 1;
                line_start = i;
            }
            c if c.is_whitespace() || matches!(c, ',' | '"' | '{' | '}') => i += 1,
            '#' => i = skip_to_eol(&chars, i),
            '/' if matches!(chars.get(i + 1), Some((_, '/'))) => i = skip_to_eol(&chars, i),
            '\\' if next_is_x(i) => {
                i = read_token(&chars, i + 2, true, pos_at(i, line, line_start), &mut out)?;
            }
            '0' if next_is_x(i) => {
                i = read_token(&chars, i + 2, true, pos_at(i, line, line_start), &mut out)?;
            }
            c if c.is_ascii_hexdigit() => {
                i = read_token(&chars, i, false, pos_at(i, line, line_start), &mut out)?;
            }
            ch => {
                let p = pos_at(i, line, line_start);
                return Err(SourceError::BadHexChar {
                    ch,
                    line: p.line,
                    column: p.column,
                    offset: p.offset,
                });
            }
        }
    }
    Ok(out)
}

fn skip_to_eol(chars: &[(usize, char)], mut i: usize) -> usize {
    while let Some(&(_, c)) = chars.get(i) {
        if c == '\n' {
            break;
        }
        i += 1;
    }
    i
}

/// Reads the run of hex digits starting at `start` (just after any prefix),
/// appends its bytes and returns the index after it. `token_pos` is where the
/// token (prefix included) began, for error messages.
fn read_token(
    chars: &[(usize, char)],
    start: usize,
    prefixed: bool,
    token_pos: Pos,
    out: &mut Vec<u8>,
) -> Result<usize, SourceError> {
    let mut end = start;
    while matches!(chars.get(end), Some((_, c)) if c.is_ascii_hexdigit()) {
        end += 1;
    }
    let digits: Vec<u8> = chars[start..end]
        .iter()
        .filter_map(|&(_, c)| c.to_digit(16).map(|d| d as u8))
        .collect();
    if digits.is_empty() {
        // A prefix with nothing after it: blame the character after the prefix.
        let (offset, ch) = chars.get(end).copied().unwrap_or((usize::MAX, '\n'));
        let column = token_pos.column + (end - start) + 2;
        return Err(SourceError::BadHexChar {
            ch,
            line: token_pos.line,
            column,
            offset: if offset == usize::MAX {
                token_pos.offset + 2
            } else {
                offset
            },
        });
    }
    if prefixed && digits.len() == 1 {
        out.push(digits[0]);
    } else if digits.len() % 2 != 0 {
        let prefix_len = if prefixed { 2 } else { 0 };
        let token: String = chars[start - prefix_len..end]
            .iter()
            .map(|&(_, c)| c)
            .collect();
        return Err(SourceError::OddHexDigits {
            token,
            digits: digits.len(),
            line: token_pos.line,
            column: token_pos.column,
        });
    } else {
        out.extend(digits.chunks(2).map(|p| (p[0] << 4) | p[1]));
    }
    Ok(end)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefix_without_digits_names_the_next_char() {
        let e = from_hex("48 0xzz").unwrap_err();
        match e {
            SourceError::BadHexChar { ch, column, .. } => {
                assert_eq!(ch, 'z');
                assert_eq!(column, 6);
            }
            other => panic!("unexpected {other:?}"),
        }
    }

    #[test]
    fn prefix_at_end_of_input_is_an_error() {
        assert!(matches!(
            from_hex("\\x"),
            Err(SourceError::BadHexChar { .. })
        ));
    }

    #[test]
    fn single_digit_after_prefix_is_a_byte() {
        assert_eq!(from_hex("0x1, \\x2").unwrap().bytes, vec![1, 2]);
    }
}
