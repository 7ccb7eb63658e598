//! Replay at scale: seeking in a synthetic hour-long timeline (the live
//! store's memory is `benches/live_memory.rs`).
//!
//! `KPLACE_BENCH_NODES` / `KPLACE_BENCH_PODS` / `KPLACE_BENCH_EVENTS` scale
//! it (defaults: 5,000 nodes, 150,000 pods, 36,000 events = 10 a second).

use std::hint::black_box;
use std::io::Write;

use criterion::{Criterion, criterion_group, criterion_main};
use kplace::source::timeline::Timeline;
use serde_json::{Value, json};

fn env(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn synth_items() -> Vec<Value> {
    let spec = kplace::synth::SynthSpec {
        nodes: env("KPLACE_BENCH_NODES", 5000),
        pods: env("KPLACE_BENCH_PODS", 150_000),
        zones: 5,
        seed: 42,
    };
    let mut out = Vec::new();
    kplace::synth::write_cluster_json(&mut out, &spec).unwrap();
    let list: Value = serde_json::from_slice(&out).unwrap();
    list["items"].as_array().cloned().unwrap_or_default()
}

/// A tiny deterministic generator (xorshift).
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

/// An hour of events over the synthetic cluster: pods added (pending, then
/// bound), deleted, and moved between nodes.
fn timeline_bytes(items: &[Value], events: usize) -> Vec<u8> {
    let nodes: Vec<String> = items
        .iter()
        .filter(|o| o["kind"] == "Node")
        .map(|o| o["metadata"]["name"].as_str().unwrap().to_string())
        .collect();
    let mut pods: Vec<Value> = items
        .iter()
        .filter(|o| o["kind"] == "Pod")
        .cloned()
        .collect();
    let mut out = Vec::new();
    writeln!(
        out,
        "{}",
        json!({"kplaceTimeline": 1, "context": "bench", "initialObjects": items.len()})
    )
    .unwrap();
    for o in items {
        writeln!(out, "{}", json!({"t": 0, "type": "ADDED", "object": o})).unwrap();
    }
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let hour_ms = 3_600_000u64;
    for i in 0..events {
        let t = hour_ms * i as u64 / events as u64;
        let r = rng.next();
        let idx = (r >> 8) as usize % pods.len();
        match r % 3 {
            0 => {
                let mut p = pods[idx].clone();
                p["metadata"]["name"] = json!(format!("bench-{i}"));
                p["spec"]["nodeName"] = json!(nodes[(r >> 20) as usize % nodes.len()]);
                writeln!(out, "{}", json!({"t": t, "type": "ADDED", "object": p})).unwrap();
                pods.push(p);
            }
            1 => {
                let p = pods.swap_remove(idx);
                writeln!(out, "{}", json!({"t": t, "type": "DELETED", "object": p})).unwrap();
            }
            _ => {
                pods[idx]["spec"]["nodeName"] = json!(nodes[(r >> 20) as usize % nodes.len()]);
                writeln!(
                    out,
                    "{}",
                    json!({"t": t, "type": "MODIFIED", "object": pods[idx]})
                )
                .unwrap();
            }
        }
    }
    writeln!(out, "{}", json!({"t": hour_ms, "type": "END"})).unwrap();
    out
}

/// Counts live heap bytes, so the store's own footprint can be measured
/// (resident memory hides it behind freed parse buffers).
struct Counting;
static LIVE_BYTES: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

unsafe impl std::alloc::GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: std::alloc::Layout) -> *mut u8 {
        LIVE_BYTES.fetch_add(l.size(), std::sync::atomic::Ordering::Relaxed);
        unsafe { std::alloc::System.alloc(l) }
    }
    unsafe fn dealloc(&self, p: *mut u8, l: std::alloc::Layout) {
        LIVE_BYTES.fetch_sub(l.size(), std::sync::atomic::Ordering::Relaxed);
        unsafe { std::alloc::System.dealloc(p, l) }
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

fn heap_mib() -> f64 {
    LIVE_BYTES.load(std::sync::atomic::Ordering::Relaxed) as f64 / (1024.0 * 1024.0)
}

fn rss_mib() -> f64 {
    let statm = std::fs::read_to_string("/proc/self/statm").unwrap_or_default();
    let pages: f64 = statm
        .split_whitespace()
        .nth(1)
        .and_then(|v| v.parse().ok())
        .unwrap_or(0.0);
    pages * 4096.0 / (1024.0 * 1024.0)
}

fn bench(c: &mut Criterion) {
    let items = synth_items();
    let bytes = timeline_bytes(&items, env("KPLACE_BENCH_EVENTS", 36_000));
    drop(items);
    let started = std::time::Instant::now();
    let timeline = Timeline::from_bytes(&bytes, "bench").unwrap();
    eprintln!(
        "timeline: {} events, loaded in {:.1} s, heap {:.0} MiB, rss {:.0} MiB",
        timeline.len(),
        started.elapsed().as_secs_f64(),
        heap_mib(),
        rss_mib()
    );
    drop(bytes);
    let mut rng = Rng(7);
    let mut g = c.benchmark_group("replay");
    g.sample_size(10);
    g.bench_function("state_at random time", |b| {
        b.iter(|| {
            let t = rng.next() % (timeline.end_ms + 1);
            black_box(timeline.state_at(t).pods.len())
        })
    });
    g.bench_function("objects_after random event (no assembly)", |b| {
        b.iter(|| {
            let n = rng.next() as usize % (timeline.len() + 1);
            black_box(timeline.objects_after(n).len())
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
