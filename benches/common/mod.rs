//! What the benches share: the synthetic cluster's size, scaled by the
//! environment so a quick run can use a smaller one.

use kplace::synth::SynthSpec;

/// A count from the environment, or `default`; a value that is not a count
/// stops the bench (a typo must not silently measure the default).
pub fn env_count(name: &str, default: usize) -> usize {
    match std::env::var(name) {
        Ok(v) => v
            .parse()
            .unwrap_or_else(|_| panic!("{name}={v:?} is not a count")),
        Err(_) => default,
    }
}

/// The default synthetic cluster (5,000 nodes, 150,000 pods), with
/// `KPLACE_BENCH_NODES` / `KPLACE_BENCH_PODS` when set.
pub fn bench_spec() -> SynthSpec {
    let default = SynthSpec::default();
    SynthSpec {
        nodes: env_count("KPLACE_BENCH_NODES", default.nodes),
        pods: env_count("KPLACE_BENCH_PODS", default.pods),
        ..default
    }
}
