//! Times one kind of bench over a range of sizes on this host, for checking a curve by eye.
//!
//! ```text
//! cargo run --release -p bottlenose-calibrate --example bench_curve -- chase [4k]   # latency vs buffer size
//! cargo run --release -p bottlenose-calibrate --example bench_curve -- wong rob|sched|lq|sq FROM TO STEP
//! cargo run --release -p bottlenose-calibrate --example bench_curve -- branch       # random vs periodic branches
//! cargo run --release -p bottlenose-calibrate --example bench_curve -- forward      # store forwarding, renaming
//! cargo run --release -p bottlenose-calibrate --example bench_curve -- code         # cycles per line vs code size
//! cargo run --release -p bottlenose-calibrate --example bench_curve -- form "div r64"
//! ```

use bottlenose_calibrate::{time_bench, Bench, ChaseLoad, NativeTimer, WongKind};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut t = NativeTimer::new().expect("native timer");
    match args.first().map(String::as_str) {
        Some("clock") => {
            // add-chain ticks per cycle and the ALU dispatch mix, alternately, raw
            use bottlenose_calibrate::{ChainOp, Mix, Timer};
            let chain = Bench::Chain { op: ChainOp::Add };
            let mix = Bench::Dispatch { mix: Mix::Alu };
            t.prepare(&chain).unwrap();
            t.prepare(&mix).unwrap();
            for _ in 0..40 {
                let a = t.ticks(&chain, 300).unwrap() / (300.0 * 200.0);
                let m = t.ticks(&mix, 300).unwrap() / (300.0 * 121.0);
                let b = t.ticks(&chain, 300).unwrap() / (300.0 * 200.0);
                println!("tpc {a:.4} {b:.4}  ipc(add) {:.3}", a.min(b) / m);
            }
        }
        Some("wong") => {
            let kind = match args.get(1).map(String::as_str) {
                Some("sched") => WongKind::Scheduler,
                Some("lq") => WongKind::LoadBuffer,
                Some("sq") => WongKind::StoreBuffer,
                _ => WongKind::Rob,
            };
            let num = |i: usize, d: u32| args.get(i).and_then(|s| s.parse().ok()).unwrap_or(d);
            let (from, to, step) = (num(2, 0), num(3, 800), num(4, 16));
            let mut n = from;
            while n <= to {
                let (c, s, u) = time_bench(&mut t, &Bench::Wong { kind, fillers: n }).unwrap();
                println!("{n:6} {c:9.1} {s:5.1}%{}", if u { " unstable" } else { "" });
                n += step;
            }
        }
        Some("branch") => {
            for random in [true, false, true, false] {
                let (c, s, u) = time_bench(&mut t, &Bench::Branch { random }).unwrap();
                println!("random={random}: {c:6.2} cycles per branch {s:5.1}%{}", if u { " unstable" } else { "" });
            }
        }
        Some("forward") => {
            for renamed in [false, true] {
                let (c, s, u) = time_bench(&mut t, &Bench::StoreForward { renamed }).unwrap();
                println!("renamed={renamed}: {c:6.2} cycles per round {s:5.1}%{}", if u { " unstable" } else { "" });
            }
        }
        Some("code") => {
            for kib in [4u64, 8, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512, 768, 1024, 2048] {
                let (c, s, u) = time_bench(&mut t, &Bench::CodeStream { bytes: kib << 10 }).unwrap();
                println!("{kib:6} KiB {c:6.2} cycles per 64-byte line {s:5.1}%{}", if u { " unstable" } else { "" });
            }
        }
        Some("form") => {
            for key in &args[1..] {
                let (l, _, _) = time_bench(&mut t, &Bench::FormLatency { form: key.clone() }).unwrap_or((f64::NAN, 0.0, true));
                let (r, _, _) = time_bench(&mut t, &Bench::FormThroughput { form: key.clone() }).unwrap_or((f64::NAN, 0.0, true));
                println!("{key}: latency chain {l:.2} cycles per copy, throughput {r:.3}");
            }
        }
        _ => {
            let huge = !args.iter().any(|a| a == "4k");
            for kib in [16u64, 24, 48, 128, 256, 512, 768, 1024, 2048, 4096, 8192, 12288, 16384, 24576, 32768, 65536, 262144] {
                let b = Bench::Chase { bytes: kib << 10, load: ChaseLoad::Int, huge };
                let (c, s, u) = time_bench(&mut t, &b).unwrap();
                println!("{kib:8} KiB {c:8.1} {s:5.1}%{}", if u { " unstable" } else { "" });
            }
        }
    }
}
