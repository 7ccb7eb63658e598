//! Resident memory and timings of the live source on a synthetic cluster
//! served by the loopback fake API server (tests/support), as an operator's
//! `kplace --context` would hold it.
//!
//! The server runs in a child process (this same bench binary, with
//! `KPLACE_SERVE=1`), so the figures are the live source's alone:
//! time to list and watch every kind, resident memory once synced (the
//! reflector stores), the time to convert the stores into the model (what a
//! live update costs), and resident memory with the model built.
//!
//! `cargo bench --bench live_memory` (5,000 nodes, 150,000 pods; smaller
//! with `KPLACE_BENCH_NODES` / `KPLACE_BENCH_PODS`).

#[path = "../tests/support/mod.rs"]
mod support;

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use kplace::source::live::{LiveOptions, LiveSource, Target};

/// The allocator the `kplace` binary uses, so resident memory is what
/// users see.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn env(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// `VmRSS` or `VmHWM` of this process, in MiB.
fn status_mib(field: &str) -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find(|l| l.starts_with(field))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|kb| kb.parse::<f64>().ok())
        .map_or(0.0, |kb| kb / 1024.0)
}

/// The child: serve the synthetic cluster, print the port, stay up until
/// stdin closes.
fn serve() {
    let nodes = env("KPLACE_BENCH_NODES", 5_000);
    let pods = env("KPLACE_BENCH_PODS", 150_000);
    let server = support::FakeServer::start(support::synth_objects(nodes, pods));
    println!("{}", server.port());
    std::io::stdout().flush().unwrap();
    let mut line = String::new();
    let _ = std::io::stdin().read_line(&mut line);
}

fn main() {
    kplace::allocator::tune();
    if std::env::var_os("KPLACE_SERVE").is_some() {
        serve();
        return;
    }
    // `cargo bench` passes `--bench`; `cargo test --benches` does not run us.
    if !std::env::args().any(|a| a == "--bench") {
        return;
    }
    let mut child = Command::new(std::env::current_exe().unwrap())
        .env("KPLACE_SERVE", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("start the fake API server");
    let mut port = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut port)
        .expect("server port");
    let port: u16 = port.trim().parse().expect("a port number");
    let dir = tempfile::tempdir().unwrap();
    let kubeconfig = dir.path().join("kubeconfig");
    std::fs::write(
        &kubeconfig,
        format!(
            "apiVersion: v1\nkind: Config\ncurrent-context: fake\nclusters:\n- name: fake\n  cluster:\n    server: http://127.0.0.1:{port}\ncontexts:\n- name: fake\n  context:\n    cluster: fake\n    user: tester\nusers:\n- name: tester\n  user:\n    token: {}\n",
            support::TOKEN
        ),
    )
    .unwrap();
    let rss_before = status_mib("VmRSS:");
    let started = Instant::now();
    let live = LiveSource::connect(
        LiveOptions {
            target: Target {
                kubeconfig: Some(kubeconfig),
                context: None,
            },
            ..Default::default()
        },
        None,
    )
    .expect("connect");
    live.wait_synced(Duration::from_secs(600)).expect("sync");
    let synced = started.elapsed();
    let counts = live.counts();
    let rss_store = status_mib("VmRSS:");
    let mut builds = Vec::new();
    let mut cluster = None;
    for _ in 0..3 {
        let t = Instant::now();
        cluster = Some(live.cluster().0);
        builds.push(t.elapsed().as_secs_f64());
    }
    let rss_model = status_mib("VmRSS:");
    let cluster = cluster.unwrap();
    builds.sort_by(f64::total_cmp);
    println!("live source on the loopback server:");
    println!("  objects: {counts:?}");
    println!(
        "  synced in {:.1} s; resident {:.0} MiB (before connecting {:.0} MiB)",
        synced.as_secs_f64(),
        rss_store,
        rss_before
    );
    println!(
        "  stores → model: median {:.2} s ({} nodes, {} pods); resident with the model {:.0} MiB; peak {:.0} MiB",
        builds[builds.len() / 2],
        cluster.nodes.len(),
        cluster.pods.len(),
        rss_model,
        status_mib("VmHWM:")
    );
    drop(child.stdin.take());
    let _ = child.wait();
}
