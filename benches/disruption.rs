//! `:lose ZONE` on the synthetic production-size cluster (5,000 nodes,
//! 150,000 pods by default): every pod of the zone with the most pods is
//! displaced and placed again in queue order. Prints the wall time, how
//! many pods were placed, and the process's peak resident memory before
//! and after (Linux `VmHWM`), so the README's figures can be re-measured:
//!
//! `cargo bench --bench disruption` (`KPLACE_BENCH_NODES`/`_PODS` scale it).

use std::time::Instant;

use kplace::engine::Scheduler;
use kplace::engine::disruption::{Disruption, ZONE_LABEL, simulate};
use kplace::source::file::load_snapshot_bytes;
use kplace::synth::write_cluster_json;

#[path = "common/mod.rs"]
mod common;
use common::bench_spec;

/// The allocator the `kplace` binary uses, so time and resident memory are
/// what users see.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Peak and current resident memory in MB (`VmHWM`, `VmRSS`).
fn memory_mb() -> (u64, u64) {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let field = |name: &str| {
        status
            .lines()
            .find(|l| l.starts_with(name))
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|kb| kb.parse::<u64>().ok())
            .map_or(0, |kb| kb / 1024)
    };
    (field("VmHWM:"), field("VmRSS:"))
}

fn main() {
    kplace::allocator::tune();
    // `cargo bench` passes `--bench`; `cargo test --benches` does not run us.
    if !std::env::args().any(|a| a == "--bench") {
        return;
    }
    let spec = bench_spec();
    let mut json = Vec::new();
    write_cluster_json(&mut json, &spec).expect("write to memory");
    let (cluster, _) = load_snapshot_bytes(&json, "synth.json").expect("synthetic cluster loads");
    drop(json);
    let key = cluster.interner.lookup(ZONE_LABEL).expect("zone label");
    let mut per_zone: std::collections::BTreeMap<String, usize> = Default::default();
    for (i, n) in cluster.nodes.iter().enumerate() {
        if let Some(z) = n.labels.get(key) {
            *per_zone
                .entry(cluster.interner.resolve(z).to_string())
                .or_default() += cluster.node_info(i as u32).pods.len();
        }
    }
    let (zone, pods) = per_zone
        .into_iter()
        .max_by_key(|(_, n)| *n)
        .expect("a zone");
    let (peak_before, rss_before) = memory_mb();
    let started = Instant::now();
    let plan = simulate(
        &cluster,
        &Disruption::LoseZone(zone.clone()),
        &Scheduler::default(),
    );
    let took = started.elapsed();
    let (peak_after, _) = memory_mb();
    let landed = plan.displaced.iter().filter(|d| d.landed()).count();
    println!(
        "lose {zone} on {} nodes / {} pods: {} of {pods} displaced pods placed ({} land) in {:.1} s; peak RSS {} MB before, {} MB after (resident {} MB before)",
        cluster.nodes.len(),
        cluster.pods.len(),
        plan.displaced.len(),
        landed,
        took.as_secs_f64(),
        peak_before,
        peak_after,
        rss_before
    );
    drop(plan);
    let (_, rss_freed) = memory_mb();
    println!("resident after the plan is dropped: {rss_freed} MB");
}
