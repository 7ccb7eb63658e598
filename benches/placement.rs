//! Placement, preemption and snapshot loading on a synthetic production-size
//! cluster (5,000 nodes, 150,000 pods by default; see `kplace::synth`).
//!
//! `KPLACE_BENCH_NODES` and `KPLACE_BENCH_PODS` scale the cluster down (or
//! up) for quicker runs; benchmark ids name the node count.

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, SamplingMode, criterion_group, criterion_main};
use kplace::engine;
use kplace::model::{Cluster, Pod, PodId};
use kplace::source::file::{load_pod_bytes, load_snapshot_bytes};
use kplace::synth::{SynthSpec, fitting_pod_yaml, preempting_pod_yaml, write_cluster_json};

#[path = "common/mod.rs"]
mod common;
#[path = "common/live.rs"]
mod live;
use common::bench_spec;
use live::{live_batch, live_batch_in_one_namespace};

/// The allocator the binary uses, so the figures are the ones `kplace` shows.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Everything built once, outside the measurements.
struct Fixture {
    spec: SynthSpec,
    json: Vec<u8>,
    cluster: Cluster,
    fitting: Pod,
    preempting: Pod,
}

fn fixture() -> Fixture {
    let spec = bench_spec();
    let mut json = Vec::new();
    write_cluster_json(&mut json, &spec).expect("write to memory");
    let (mut cluster, _) =
        load_snapshot_bytes(&json, "synth.json").expect("synthetic cluster loads");
    let mut pod = |yaml: String| {
        load_pod_bytes(yaml.as_bytes(), "pod.yaml", &mut cluster.interner)
            .expect("synthetic pod loads")
    };
    let fitting = pod(fitting_pod_yaml(&spec));
    let preempting = pod(preempting_pod_yaml(&spec));
    Fixture {
        spec,
        json,
        cluster,
        fitting,
        preempting,
    }
}

fn benches(c: &mut Criterion) {
    kplace::allocator::tune();
    let f = fixture();
    let nodes = format!("{}-nodes", f.spec.nodes);

    let mut group = c.benchmark_group("placement");
    group.bench_function(&nodes, |b| {
        b.iter(|| {
            engine::place(
                &f.cluster,
                black_box(&f.fitting),
                &engine::Scheduler::default(),
            )
        })
    });
    group.finish();

    // A bound pod's answer as if it were rescheduled (`place --pod NS/NAME`,
    // the Placement view): the cluster without it is a fork that shares
    // every untouched pod and node, not a copy.
    let middle = f.cluster.pods.len() / 2;
    let bound = (middle..f.cluster.pods.len())
        .chain(0..middle)
        .find(|&i| f.cluster.pods[i].node.is_some())
        .expect("the synthetic cluster has bound pods") as PodId;
    let mut group = c.benchmark_group("existing-pod");
    group.bench_function(&nodes, |b| {
        b.iter(|| {
            let asked = engine::ExistingQuestion::new(&f.cluster, black_box(bound));
            engine::place(&asked.cluster, &asked.pod, &engine::Scheduler::default())
        })
    });
    group.finish();

    // Live updates (#15): a batch of 100 pod watch events applied in place
    // to a fork of the cluster the views hold (the first write to a chunk
    // copies it), against rebuilding the views' caches from scratch.
    let batch = live_batch(&f.cluster, 100);
    let mut followed = f.cluster.clone();
    // Built once when a live feed starts following the cluster.
    followed.index_pod_keys();
    let mut group = c.benchmark_group("live-update");
    group.bench_function(format!("{nodes}-100-pod-events"), |b| {
        b.iter_batched(
            || {
                // The feed's model owns its pod index; the views hold the
                // previous snapshot, so pods and nodes are shared.
                let mut model = followed.snapshot();
                model.index_pod_keys();
                let views = model.snapshot();
                (model, batch.clone(), views)
            },
            |(mut model, batch, views)| {
                kplace::source::live::apply_changes(&mut model, black_box(batch));
                (model, views)
            },
            criterion::BatchSize::LargeInput,
        )
    });
    group.bench_function(format!("{nodes}-fork"), |b| b.iter(|| followed.snapshot()));
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(15));
    let shared = std::sync::Arc::new(f.cluster.clone());
    group.bench_function(format!("{nodes}-view-caches"), |b| {
        b.iter(|| kplace::app::derived::Derived::build(black_box(&shared)))
    });
    // The pod table after the batch: built anew, and updated from the
    // table before it (the live feed's way), which keeps current the sort
    // columns a view asked for: the Pods view's default (by name), and
    // all seven for a user who tried every sort.
    let before = kplace::app::derived::PodTable::build(&f.cluster);
    before.column(0);
    let every_sort = kplace::app::derived::PodTable::build(&f.cluster);
    for col in 0..kplace::app::derived::PodTable::SORT_COLUMNS {
        every_sort.column(col);
    }
    let mut after = f.cluster.clone();
    after.index_pod_keys();
    let touched = kplace::source::live::apply_changes(&mut after, batch.clone());
    group.bench_function(format!("{nodes}-pod-table"), |b| {
        b.iter(|| kplace::app::derived::PodTable::build(black_box(&after)))
    });
    group.bench_function(format!("{nodes}-pod-table-updated-100-pod-events"), |b| {
        b.iter(|| {
            kplace::app::derived::PodTable::updated(&before, black_box(&after), &touched.pods)
        })
    });
    group.bench_function(
        format!("{nodes}-pod-table-updated-100-pod-events-every-sort"),
        |b| {
            b.iter(|| {
                kplace::app::derived::PodTable::updated(
                    &every_sort,
                    black_box(&after),
                    &touched.pods,
                )
            })
        },
    );
    // Every view cache after a batch, updated from the caches before it
    // (the live feed's way): the batch above (pods all over the cluster)
    // and a rollout's (one namespace).
    let shared_before = std::sync::Arc::new(f.cluster.clone());
    let caches_before = kplace::app::derived::Derived::build(&shared_before).built();
    // The Pods view sorted by name, as it opens.
    caches_before.pods.as_ref().expect("built").column(0);
    let mut rolled = f.cluster.clone();
    rolled.index_pod_keys();
    let rollout = live_batch_in_one_namespace(&f.cluster, 100);
    let rollout_touched = kplace::source::live::apply_changes(&mut rolled, rollout);
    for (name, cluster, touched) in [
        ("100-pod-events", after.snapshot(), &touched),
        ("rollout", rolled.snapshot(), &rollout_touched),
    ] {
        let cluster = std::sync::Arc::new(cluster);
        group.bench_function(format!("{nodes}-view-caches-updated-{name}"), |b| {
            b.iter(|| {
                kplace::app::derived::Derived::updated(black_box(&cluster), &caches_before, touched)
            })
        });
    }
    // What the first screen waits for: the Overview's and Nodes' caches
    // (the pod table, workloads and tiers follow in the background).
    group.bench_function(format!("{nodes}-first-screen-caches"), |b| {
        b.iter(|| kplace::app::derived::Derived::new(black_box(&shared)))
    });
    group.finish();

    // A dry run on every potential node: tens to hundreds of milliseconds.
    let mut group = c.benchmark_group("preemption");
    group
        .sample_size(20)
        .measurement_time(Duration::from_secs(30));
    group.bench_function(&nodes, |b| {
        b.iter(|| {
            engine::place(
                &f.cluster,
                black_box(&f.preempting),
                &engine::Scheduler::default(),
            )
        })
    });
    group.finish();

    // Seconds per iteration: a handful of flat samples.
    let mut group = c.benchmark_group("load");
    group
        .sample_size(10)
        .sampling_mode(SamplingMode::Flat)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(40));
    group.bench_function(format!("{nodes}-json"), |b| {
        b.iter(|| load_snapshot_bytes(black_box(&f.json), "synth.json").expect("loads"))
    });
    group.finish();
}

criterion_group!(placement, benches);
criterion_main!(placement);
