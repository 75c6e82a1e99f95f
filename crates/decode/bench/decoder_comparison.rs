use object::{Object, ObjectSection, SectionKind};
use std::time::Instant;
use yaxpeax_arch::{Decoder, U8Reader};

fn words(path: &str) -> Vec<u32> {
    let data = std::fs::read(path).unwrap();
    let f = object::File::parse(&*data).unwrap();
    let mut out = vec![];
    for s in f.sections() {
        if s.kind() == SectionKind::Text {
            let d = s.data().unwrap();
            out.extend(d.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])));
        }
    }
    out
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let mode = &args[1];
    let mut ws = vec![];
    if mode == "speed" { for p in &args[2..] { ws.extend(words(p)); } }
    if mode == "speed" {
        let bytes: Vec<u8> = ws.iter().flat_map(|w| w.to_le_bytes()).collect();
        println!("{} words ({} KiB)", ws.len(), bytes.len() / 1024);
        for round in 0..2 {
            let dec = yaxpeax_arm::armv8::a64::InstDecoder::default();
            let t = Instant::now(); let mut ok = 0u64;
            for c in bytes.chunks_exact(4) { let mut r = U8Reader::new(c); if let Ok(i) = dec.decode(&mut r) { ok += 1; std::hint::black_box(&i); } }
            let e = t.elapsed().as_secs_f64();
            println!("round {round} yaxpeax-arm: {ok} ok, {:.1} M inst/s", ws.len() as f64 / e / 1e6);
            let t = Instant::now(); let mut ok = 0u64;
            for &w in &ws { if let Some(i) = disarm64::decoder::decode(w) { ok += 1; std::hint::black_box(&i); } }
            let e = t.elapsed().as_secs_f64();
            println!("round {round} disarm64: {ok} ok, {:.1} M inst/s", ws.len() as f64 / e / 1e6);
            let t = Instant::now(); let mut ok = 0u64;
            for &w in &ws { if let Ok(i) = bad64::decode(w, 0x1000) { ok += 1; std::hint::black_box(&i); } }
            let e = t.elapsed().as_secs_f64();
            println!("round {round} bad64: {ok} ok, {:.1} M inst/s", ws.len() as f64 / e / 1e6);
        }
    } else {
        // coverage: words from objdump's valid instruction list on stdin-like file args[2]
        let list = std::fs::read_to_string(&args[2]).unwrap();
        let ws: Vec<u32> = list.lines().filter_map(|l| u32::from_str_radix(l.trim(), 16).ok()).collect();
        let dec = yaxpeax_arm::armv8::a64::InstDecoder::default();
        let (mut y, mut d, mut b, mut sve, mut ysve, mut dsve, mut bsve) = (0, 0, 0, 0, 0, 0, 0);
        for &w in &ws {
            let bytes = w.to_le_bytes();
            let is_sve = (w >> 25) & 0xf == 0b0010;
            let yo = dec.decode(&mut U8Reader::new(&bytes)).is_ok();
            let dok = disarm64::decoder::decode(w).is_some();
            let bok = bad64::decode(w, 0x1000).is_ok();
            y += yo as u32; d += dok as u32; b += bok as u32;
            if is_sve { sve += 1; ysve += yo as u32; dsve += dok as u32; bsve += bok as u32; }
        }
        println!("{} instructions ({} in the SVE space)", ws.len(), sve);
        println!("yaxpeax-arm {y} ({:.2}%), SVE {ysve}", 100.0 * y as f64 / ws.len() as f64);
        println!("disarm64 {d} ({:.2}%), SVE {dsve}", 100.0 * d as f64 / ws.len() as f64);
        println!("bad64 {b} ({:.2}%), SVE {bsve}", 100.0 * b as f64 / ws.len() as f64);
    }
}
