//! Hex input: accepted layouts and every error.

use bottlenose_inputs::{from_hex, SourceError};

const ADD: [u8; 3] = [0x48, 0x01, 0xd8];

#[test]
fn accepts_common_layouts() {
    for text in [
        "48 01 d8",
        "4801d8",
        "0x48,0x01,0xd8",
        "0x48, 0x01, 0xd8",
        "\\x48\\x01\\xd8",
        "\"\\x48\\x01\\xd8\"",
        "{ 0x48, 0x01, 0xD8 }",
        "48\n01\r\n  D8\n",
        "48 01 # add rax, rbx\nd8 // tail comment\n",
        "0X4801d8",
    ] {
        let block = from_hex(text).unwrap_or_else(|e| panic!("{text:?}: {e}"));
        assert_eq!(block.bytes, ADD, "{text:?}");
        assert_eq!(block.name, "hex");
        assert_eq!(block.address, 0);
        assert!(block.source_lines.is_empty());
    }
}

#[test]
fn empty_input_is_an_error() {
    for text in ["", "   \n", "# just a comment\n// another"] {
        let err = from_hex(text).unwrap_err();
        assert!(matches!(err, SourceError::NoBytes), "{text:?}: {err:?}");
        assert_eq!(err.to_string(), "no bytes in hex input");
    }
}

#[test]
fn odd_digit_count_is_an_error() {
    let err = from_hex("48 01\n  d 8").unwrap_err();
    match &err {
        SourceError::OddHexDigits {
            token,
            digits,
            line,
            column,
        } => {
            assert_eq!((token.as_str(), *digits, *line, *column), ("d", 1, 2, 3));
        }
        other => panic!("unexpected {other:?}"),
    }
    assert_eq!(
        err.to_string(),
        "odd number of hex digits (1) in `d` at line 2, column 3 of hex input"
    );
    assert!(matches!(
        from_hex("4801d").unwrap_err(),
        SourceError::OddHexDigits { digits: 5, .. }
    ));
    assert!(matches!(
        from_hex("0x123").unwrap_err(),
        SourceError::OddHexDigits { .. }
    ));
}

#[test]
fn bad_character_is_named_with_its_position() {
    let err = from_hex("48 01\nd8 zz").unwrap_err();
    match &err {
        SourceError::BadHexChar {
            ch,
            line,
            column,
            offset,
        } => {
            assert_eq!((*ch, *line, *column, *offset), ('z', 2, 4, 9));
        }
        other => panic!("unexpected {other:?}"),
    }
    assert_eq!(
        err.to_string(),
        "invalid character 'z' at line 2, column 4 (byte offset 9) of hex input"
    );
    // A single slash is not a comment.
    assert!(matches!(
        from_hex("48 / 01").unwrap_err(),
        SourceError::BadHexChar { ch: '/', .. }
    ));
    // Hex digits glued to a word are not silently accepted.
    assert!(matches!(
        from_hex("mov 48").unwrap_err(),
        SourceError::BadHexChar { ch: 'm', .. }
    ));
}
