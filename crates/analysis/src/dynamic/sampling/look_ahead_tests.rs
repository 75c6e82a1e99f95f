//! Fast-forward's look-ahead (`Sampler::fast_forward_ahead`): what a pause
//! tells the plugin to skip must be what the schedule then fast-forwards,
//! including across the controller's period changes.

use super::*;

#[test]
fn the_look_ahead_matches_the_fast_forward_that_follows() {
    let batch = 100;
    // adaptive: steady units make the period double at each decision point
    let opts = SamplingOptions { exact_below: 0, seed: 5, ..Default::default() };
    let mut s = Sampler::new(opts, batch);
    let (mut parts, mut predictions) = (Vec::new(), Vec::new());
    let mut simulated = 0;
    let mut part = s.next_batch(0);
    for k in 0..200_000 {
        if part.is_none() {
            predictions.push((k, s.fast_forward_ahead(simulated + batch, 1 << 20)));
        }
        parts.push(part);
        s.end_batch(batch, part);
        if let Some(p @ BatchPart::Unit { .. }) = part {
            // one loop throughout (as the pipeline notes each batch's code before its cycles)
            s.note_batch(p, &[bottlenose_simulate::engine::DynRecord { id: 3, info: Default::default() }].into_iter().collect());
            s.on_cycles(p, 100.0 + (k % 7) as f64);
        }
        simulated += batch;
        part = s.next_batch(simulated);
    }
    let periods: Vec<u64> = s.finish().unwrap().2.iter().map(|st| st.period).collect();
    assert!(periods.windows(2).any(|w| w[1] != w[0]), "the period changed: {periods:?}");
    let (mut exact, mut stopped) = (0, 0);
    for (k, (n, window_next)) in predictions {
        let actual = parts[k + 1..].iter().take_while(|p| p.is_none()).count() as u64;
        if k + 1 + actual as usize >= parts.len() {
            continue; // runs into the end of the test
        }
        if window_next {
            assert_eq!(n, actual, "batch {k}: {n} fast-forward batches announced, {actual} followed");
            exact += 1;
        } else {
            // it stops where the controller decides; what follows may be longer, never shorter
            assert!(n <= actual, "batch {k}: {n} announced up to a decision, {actual} followed");
            stopped += 1;
        }
    }
    assert!(exact > 100 && stopped > 0, "{exact} exact look-aheads, {stopped} stopped at decisions");
}

/// In the exact prefix the variants wait (the producer keeps the prefix for
/// them), unless there are none; once sampling begins they time their windows.
#[test]
fn the_variants_wait_in_the_exact_prefix() {
    let opts = SamplingOptions { exact_below: 3 * 100, period: Some(10), ..Default::default() };
    let mut with = Sampler::new(opts.clone(), 100).with_variant_cores(2);
    let mut without = Sampler::new(opts, 100);
    for k in 0..3 {
        assert_eq!(with.next_batch(k * 100), Some(BatchPart::Whole));
        assert_eq!(with.variants_time(), VariantsTime::Skip, "batch {k}");
        assert_eq!(without.next_batch(k * 100), Some(BatchPart::Whole));
        assert_eq!(without.variants_time(), VariantsTime::Same, "batch {k}");
    }
    // past the prefix: a window of theirs within the first periods, fast-forward around it
    let mut seen = Vec::new();
    for k in 3..200 {
        with.next_batch(k * 100);
        seen.push(with.variants_time());
        with.end_batch(100, None);
    }
    assert!(seen.contains(&VariantsTime::Same) && seen.contains(&VariantsTime::Skip), "{seen:?}");
}
