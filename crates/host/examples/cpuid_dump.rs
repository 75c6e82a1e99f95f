//! Prints this CPU's CPUID in the dump format (`cargo run -p bottlenose-host --example cpuid_dump`),
//! with what it decodes to and the machine it identifies as in the header.
fn main() {
    let Some(dump) = bottlenose_host::CpuidDump::read_live() else {
        eprintln!("CPUID is only readable on x86-64");
        std::process::exit(1);
    };
    if let Ok(cpu) = bottlenose_host::HostCpu::from_dump(&dump) {
        let id = bottlenose_host::identify(&cpu);
        println!("# {}", cpu.describe());
        println!("# features: {}", cpu.features.names().join(" "));
        println!(
            "# identified: {} ({}): {}",
            id.machine,
            id.how.as_str(),
            id.reason
        );
    }
    print!("{}", dump.to_text());
}
