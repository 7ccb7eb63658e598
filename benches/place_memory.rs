//! `kplace place` on the synthetic production-size cluster (5,000 nodes,
//! 150,000 pods by default) as a user runs it: the binary in a child
//! process, reading the snapshot from a file. Prints each run's peak
//! resident memory (the kernel's `ru_maxrss` for the child), its
//! `timings: load …, convert …` figures (the time to the first answer) and
//! its wall time, then the median and range, against #15's budget of
//! 300 MB. Exits 1 when the median peak is over the budget, so the figure
//! in the README is a check, not a hope.
//!
//! `cargo bench --bench place_memory` (`KPLACE_BENCH_NODES`/`_PODS` scale
//! the cluster, `KPLACE_BENCH_RUNS` sets the runs, 5 by default).

use std::io::Write;
use std::process::{Command, Stdio};
use std::time::Instant;

use kplace::synth::{fitting_pod_yaml, write_cluster_json};

#[path = "common/mod.rs"]
mod common;
use common::{bench_spec, env_count};

/// #15: the model of 150,000 pods in at most 300 MB peak for `place`.
const BUDGET_MB: f64 = 300.0;

/// One `place` run's figures.
struct Run {
    peak_mb: f64,
    load_ms: f64,
    convert_ms: f64,
    wall_s: f64,
}

/// Runs the binary once and reads its peak from `wait4`'s resource usage,
/// which counts the child alone (`Child::wait` does not return it, and
/// `RUSAGE_CHILDREN` keeps the largest of all runs). The child is reaped
/// by that `wait4`, which clippy cannot see.
#[allow(clippy::zombie_processes)]
fn run_place(snapshot: &std::path::Path, pod: &std::path::Path) -> Run {
    let started = Instant::now();
    let child = Command::new(env!("CARGO_BIN_EXE_kplace"))
        .arg("place")
        .arg("--snapshot")
        .arg(snapshot)
        .arg("--pod")
        .arg(pod)
        .arg("--timings")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("kplace starts");
    let pid = child.id() as libc::pid_t;
    let mut stderr = child.stderr.expect("piped stderr");
    let mut text = String::new();
    std::io::Read::read_to_string(&mut stderr, &mut text).expect("stderr reads");
    let mut status = 0;
    // SAFETY: `rusage` is plain data, and `pid` is our own unwaited child.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let waited = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    let wall_s = started.elapsed().as_secs_f64();
    assert_eq!(
        waited,
        pid,
        "wait4 failed: {}",
        std::io::Error::last_os_error()
    );
    assert!(
        libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
        "kplace place failed ({status}):\n{text}"
    );
    let (load_ms, convert_ms) =
        load_and_convert(&text).unwrap_or_else(|| panic!("no `timings: load` line in:\n{text}"));
    Run {
        peak_mb: usage.ru_maxrss as f64 / 1024.0,
        load_ms,
        convert_ms,
        wall_s,
    }
}

/// `timings: load 812.3 ms, convert 690.1 ms` → (812.3, 690.1).
fn load_and_convert(stderr: &str) -> Option<(f64, f64)> {
    let line = stderr.lines().find(|l| l.starts_with("timings: load "))?;
    let mut numbers = line
        .split(|c: char| !(c.is_ascii_digit() || c == '.'))
        .filter(|s| !s.is_empty())
        .filter_map(|s| s.parse::<f64>().ok());
    Some((numbers.next()?, numbers.next()?))
}

/// Median, minimum and maximum.
fn spread(mut values: Vec<f64>) -> (f64, f64, f64) {
    values.sort_by(f64::total_cmp);
    (
        values[values.len() / 2],
        values[0],
        values[values.len() - 1],
    )
}

fn main() {
    // `cargo bench` passes `--bench`; `cargo test --benches` does not run us.
    if !std::env::args().any(|a| a == "--bench") {
        return;
    }
    let spec = bench_spec();
    let runs = env_count("KPLACE_BENCH_RUNS", 5).max(1);
    let dir = tempfile::tempdir().expect("temporary directory");
    let snapshot = dir.path().join("cluster.json");
    let pod = dir.path().join("fit.yaml");
    let mut file = std::io::BufWriter::new(std::fs::File::create(&snapshot).expect("create"));
    write_cluster_json(&mut file, &spec).expect("write the cluster");
    file.flush().expect("write the cluster");
    drop(file);
    std::fs::write(&pod, fitting_pod_yaml(&spec)).expect("write the pod");
    let size_mb = std::fs::metadata(&snapshot).map_or(0.0, |m| m.len() as f64 / 1e6);
    println!(
        "place_memory: {} nodes, {} pods ({size_mb:.0} MB of JSON), {runs} runs of `kplace place --timings`",
        spec.nodes, spec.pods
    );
    // One untimed run puts the file in the page cache, as for every run after.
    run_place(&snapshot, &pod);
    let mut all = Vec::with_capacity(runs);
    for i in 1..=runs {
        let r = run_place(&snapshot, &pod);
        println!(
            "  run {i}: peak {:.1} MB, load {:.0} ms + convert {:.0} ms = {:.0} ms, wall {:.2} s",
            r.peak_mb,
            r.load_ms,
            r.convert_ms,
            r.load_ms + r.convert_ms,
            r.wall_s
        );
        all.push(r);
    }
    let (peak, peak_min, peak_max) = spread(all.iter().map(|r| r.peak_mb).collect());
    let (first, first_min, first_max) =
        spread(all.iter().map(|r| r.load_ms + r.convert_ms).collect());
    let (wall, wall_min, wall_max) = spread(all.iter().map(|r| r.wall_s).collect());
    println!(
        "peak resident: median {peak:.1} MB ({peak_min:.1}-{peak_max:.1}), budget {BUDGET_MB:.0} MB"
    );
    println!("load + convert: median {first:.0} ms ({first_min:.0}-{first_max:.0})");
    println!("wall: median {wall:.2} s ({wall_min:.2}-{wall_max:.2})");
    if peak > BUDGET_MB {
        eprintln!(
            "place_memory: the median peak {peak:.1} MB is over the {BUDGET_MB:.0} MB budget"
        );
        std::process::exit(1);
    }
}
