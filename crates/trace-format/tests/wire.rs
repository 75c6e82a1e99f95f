//! The wire format: records against their documented layouts, round trips,
//! and broken bytes (cut short or garbage), which must be errors, never panics.

use bottlenose_trace_format::record::{self, MemInfo, Record, WireError};
use bottlenose_trace_format::{decode, record_len, Tag, MAGIC, VERSION};

/// One record of every kind, encoded.
fn samples() -> Vec<Vec<u8>> {
    let mut def = Vec::new();
    record::push_tb_def_header(&mut def, 0, 2);
    record::push_tb_def_insn(&mut def, 0x401000, &[0x48, 0x01, 0xd8]); // add rax, rbx
    record::push_tb_def_insn(&mut def, 0x401003, &[0xc3]); // ret
    let mut exec = Vec::new();
    record::push_exec(&mut exec, b"/bin/true");
    let mut note = Vec::new();
    record::push_note(&mut note, "execveat not followed".as_bytes());
    let mut map = Vec::new();
    record::push_map(&mut map, 0x400000, 0x401000, 0x1000, b"/usr/bin/prog");
    let mut skipped = Vec::new();
    record::push_skipped(&mut skipped, &[(3, 1_000_000), (0, 1)]);
    vec![
        record::hello().to_vec(),
        def,
        record::tb_exec(0, 0).to_vec(),
        record::mem(1, MemInfo::new(3, true), 0x7fff_0000_1000).to_vec(),
        record::mem_vcpu(2).to_vec(),
        exec,
        record::exit(-1).to_vec(),
        note,
        map,
        record::pause().to_vec(),
        skipped,
        record::end().to_vec(),
    ]
}

#[test]
fn tags_are_the_documented_bytes() {
    let expected = [
        (Tag::Hello, 0, "HELLO"),
        (Tag::TbDef, 1, "TB_DEF"),
        (Tag::TbExec, 2, "TB_EXEC"),
        (Tag::Mem, 3, "MEM"),
        (Tag::End, 4, "END"),
        (Tag::MemVcpu, 5, "MEM_VCPU"),
        (Tag::Exec, 6, "EXEC"),
        (Tag::Exit, 7, "EXIT"),
        (Tag::Note, 8, "NOTE"),
        (Tag::Map, 9, "MAP"),
        (Tag::Pause, 10, "PAUSE"),
        (Tag::Skipped, 11, "SKIPPED"),
    ];
    for (tag, byte, name) in expected {
        assert_eq!(tag.byte(), byte);
        assert_eq!(Tag::from_byte(byte), Some(tag));
        assert_eq!(tag.name(), name);
    }
    for byte in 12..=255u8 {
        assert_eq!(Tag::from_byte(byte), None);
    }
}

#[test]
fn fixed_records_have_the_documented_bytes() {
    // HELLO: tag 0, "BNQT", u16 version 3 little-endian
    assert_eq!(record::hello(), [0, b'B', b'N', b'Q', b'T', 3, 0]);
    assert_eq!(VERSION, 3);
    assert_eq!(MAGIC, b"BNQT");
    // TB_EXEC: tag 2, u32 id, u16 vCPU
    assert_eq!(record::tb_exec(0x0102_0304, 0x0506), [2, 4, 3, 2, 1, 6, 5]);
    // MEM: tag 3, u16 index, info (bit 7 store, log2 size 3 = 8 bytes), u64 vaddr
    assert_eq!(record::mem(0x0102, MemInfo::new(3, true), 0x1122_3344_5566_7788), [3, 2, 1, 0x83, 0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11]);
    assert_eq!(record::mem(0, MemInfo::new(0, false), 0)[3], 0x00);
    // MEM_VCPU, EXIT (-2 is 0xfffffffe), END
    assert_eq!(record::mem_vcpu(0x0203), [5, 3, 2]);
    assert_eq!(record::exit(-2), [7, 0xfe, 0xff, 0xff, 0xff]);
    assert_eq!(record::end(), [4]);
}

#[test]
fn variable_records_have_the_documented_bytes() {
    let mut def = Vec::new();
    record::push_tb_def_header(&mut def, 0, 1);
    record::push_tb_def_insn(&mut def, 0x10, &[0x90]);
    record::set_tb_def_id(&mut def, 7);
    assert_eq!(def, [1, 7, 0, 0, 0, 1, 0, 0x10, 0, 0, 0, 0, 0, 0, 0, 1, 0x90]);
    let mut map = Vec::new();
    record::push_map(&mut map, 1, 2, 3, b"ab");
    let mut expected = vec![9];
    for v in [1u64, 2, 3] {
        expected.extend_from_slice(&v.to_le_bytes());
    }
    expected.extend_from_slice(&[2, 0, b'a', b'b']);
    assert_eq!(map, expected);
    assert_eq!(map.len(), 8 * 3 + 1 + 2 + 2);
    let mut note = Vec::new();
    record::push_note(&mut note, b"hi");
    assert_eq!(note, [8, 2, 0, b'h', b'i']);
    // PAUSE: the tag alone; SKIPPED: tag 11, u16 count, then (u32 id, u64 executions) each
    assert_eq!(record::pause(), [10]);
    let mut skipped = Vec::new();
    record::push_skipped(&mut skipped, &[(0x0102_0304, 0x05)]);
    assert_eq!(skipped, [11, 1, 0, 4, 3, 2, 1, 5, 0, 0, 0, 0, 0, 0, 0]);
    // more entries than one record holds: the rest is the caller's
    let many = vec![(1u32, 1u64); record::MAX_SKIPPED_ENTRIES + 5];
    let mut rec = Vec::new();
    record::push_skipped(&mut rec, &many);
    assert_eq!(rec.len(), 3 + 12 * record::MAX_SKIPPED_ENTRIES);
}

#[test]
fn every_record_decodes_to_what_was_encoded() {
    let got: Vec<String> = samples()
        .iter()
        .map(|bytes| {
            let (rec, len) = decode(bytes).unwrap();
            assert_eq!(len, bytes.len(), "{rec:?}");
            assert_eq!(record_len(bytes), Ok(len));
            let mut again = Vec::new();
            rec.encode(&mut again);
            assert_eq!(&again, bytes, "{rec:?} re-encoded");
            match rec {
                Record::TbDef(d) => format!("{:?} id {} {:x?}", rec.tag(), d.id, d.insns().collect::<Vec<_>>()),
                Record::Mem { insn_index, info, vaddr } => format!("Mem {insn_index} {} store {} {vaddr:#x}", info.size(), info.is_store()),
                Record::Skipped(b) => format!("Skipped {:?}", b.iter().collect::<Vec<_>>()),
                other => format!("{other:?}"),
            }
        })
        .collect();
    assert_eq!(
        got,
        [
            "Hello { version: 3 }",
            "TbDef id 0 [(401000, [48, 1, d8]), (401003, [c3])]",
            "TbExec { id: 0, vcpu: 0 }",
            "Mem 1 8 store true 0x7fff00001000",
            "MemVcpu { vcpu: 2 }",
            "Exec { path: [47, 98, 105, 110, 47, 116, 114, 117, 101] }",
            "Exit { code: -1 }",
            "Note { text: [101, 120, 101, 99, 118, 101, 97, 116, 32, 110, 111, 116, 32, 102, 111, 108, 108, 111, 119, 101, 100] }",
            "Map { start: 4194304, end: 4198400, offset: 4096, path: [47, 117, 115, 114, 47, 98, 105, 110, 47, 112, 114, 111, 103] }",
            "Pause",
            "Skipped [(3, 1000000), (0, 1)]",
            "End",
        ]
    );
}

#[test]
fn a_record_cut_anywhere_is_incomplete_and_says_how_much_it_needs() {
    assert_eq!(decode(&[]), Err(WireError::Incomplete { tag: None, needed: 1 }));
    for bytes in samples() {
        for cut in 1..bytes.len() {
            let part = &bytes[..cut];
            match decode(part) {
                Err(WireError::Incomplete { tag, needed }) => {
                    assert_eq!(tag.map(Tag::byte), Some(bytes[0]));
                    // what it asks for is more than it has and no more than the record
                    assert!(needed > cut && needed <= bytes.len(), "cut {cut} of {bytes:?}: needs {needed}");
                }
                other => panic!("cut {cut} of {bytes:?}: {other:?}"),
            }
            assert!(matches!(record_len(part), Err(WireError::Incomplete { .. })));
        }
    }
}

#[test]
fn broken_records_are_errors_naming_the_problem() {
    let check = |bytes: &[u8], expected: WireError, message: &str| {
        let err = decode(bytes).unwrap_err();
        assert_eq!(err, expected);
        assert_eq!(err.to_string(), message);
    };
    check(&[12], WireError::UnknownTag(12), "unknown record tag 0x0c");
    check(&[0, b'B', b'N', b'Q', b'X', 2, 0], WireError::BadMagic, "stream does not start with the bottlenose header; is the plugin from another version?");
    check(&[1, 5, 0, 0, 0, 0, 0], WireError::EmptyBlock { id: 5 }, "TB_DEF 5 has no instructions");
    // the second instruction claims 16 bytes: its length byte is at 7 + 9 + 1 + 8
    let mut def = Vec::new();
    record::push_tb_def_header(&mut def, 3, 2);
    record::push_tb_def_insn(&mut def, 0, &[0x90]);
    record::push_tb_def_insn(&mut def, 1, &[0x90; 16]);
    check(&def, WireError::InsnLength { id: 3, index: 1, len: 16, at: 25 }, "instruction 1 of TB_DEF 3 has length 16");
    assert_eq!(decode(&def).unwrap_err().offset_in_record(), 25);
    // record_len frames it all the same (a writer walks what it wrote)
    assert_eq!(record_len(&def), Ok(def.len()));
    check(&[3, 0, 0, 8, 0, 0, 0, 0, 0, 0, 0, 0], WireError::AccessTooLarge { shift: 8 }, "MEM access size 2^8 bytes is too large");
    let mut map = Vec::new();
    record::push_map(&mut map, 0x2000, 0x2000, 0, b"");
    check(&map, WireError::EmptyMap { start: 0x2000, end: 0x2000 }, "MAP of an empty range 0x2000..0x2000");
}

#[test]
fn long_texts_are_cut_at_the_u16_limit() {
    let long = vec![b'x'; 70_000];
    let mut rec = Vec::new();
    record::push_note(&mut rec, &long);
    assert_eq!(rec.len(), 3 + 65_535);
    assert!(matches!(decode(&rec), Ok((Record::Note { text }, 65_538)) if text.len() == 65_535));
}

#[test]
fn garbage_never_panics() {
    // xorshift64: deterministic bytes, biased towards valid tags so that
    // decoding gets past the first byte often
    let mut s = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        s
    };
    let mut outcomes = [0usize; 3];
    for _ in 0..20_000 {
        let len = (next() % 48) as usize;
        let mut bytes: Vec<u8> = (0..len).map(|_| next() as u8).collect();
        if let Some(b) = bytes.first_mut() {
            *b %= 11;
        }
        let decoded = decode(&bytes);
        let framed = record_len(&bytes);
        match decoded {
            Ok((_, n)) => {
                outcomes[0] += 1;
                assert!(n <= bytes.len());
                assert_eq!(framed, Ok(n));
            }
            Err(WireError::Incomplete { needed, .. }) => {
                outcomes[1] += 1;
                assert!(needed > bytes.len());
            }
            Err(_) => outcomes[2] += 1,
        }
    }
    // all three outcomes were exercised
    assert!(outcomes.iter().all(|&n| n > 0), "{outcomes:?}");
}
