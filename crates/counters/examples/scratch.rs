use bottlenose_metrics::{Counts, MetricEngine};
fn main() {
    for u in MetricEngine::available() {
        let e = MetricEngine::for_uarch(u).unwrap();
        let specs = e.events_for_tree(None, &Counts::new());
        let mut c = Counts::new();
        for s in &specs { c.set(&s.key, 1000.0 + s.key.len() as f64); }
        let ev = e.evaluate(&c).unwrap();
        let nodes = e.tree_metrics(None);
        let mut bad = 0;
        for n in &nodes { let r = ev.result(n).unwrap(); if let Some(err) = &r.error { bad += 1; if bad < 4 { println!("  {u} {} {}", r.name, err); } } }
        let unk: Vec<_> = specs.iter().filter(|s| !s.is_known()).map(|s| s.key.clone()).collect();
        println!("{u}: {} nodes, {} bad, {} events, unknown {:?}", nodes.len(), bad, specs.len(), unk);
    }
}
