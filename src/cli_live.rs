//! `kplace record` (snapshot or timeline of a live cluster) and `kplace
//! verify` (kplace's predictions against the bindings a recording saw).

use std::collections::BTreeSet;
use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use anyhow::Result;
use clap::{Args, ValueEnum};
use rustc_hash::FxHashMap;
use serde_json::{Value, json};

use kplace::engine::{self, Outcome};
use kplace::model::Cluster;
use kplace::source::live::build::ModelObject;
use kplace::source::live::{Kind, LiveError, Target};
use kplace::source::record::{RecordError, RecordOptions};
use kplace::source::timeline::{ObjId, Timeline, VersionId};

use crate::cli::CliError;

#[derive(Args, Debug)]
pub struct RecordArgs {
    /// The kubeconfig context (default: the current context).
    #[arg(long, value_name = "NAME")]
    pub context: Option<String>,
    /// The kubeconfig file (default: $KUBECONFIG, then ~/.kube/config, then in-cluster).
    #[arg(long, value_name = "PATH")]
    pub kubeconfig: Option<PathBuf>,
    /// Output file: a List snapshot (`.gz` compresses), or with --duration a gzip timeline.
    #[arg(short, long, value_name = "FILE")]
    pub output: PathBuf,
    /// Record a timeline for this long (`30s`, `10m`, `1h`; `0` = until ctrl-c).
    #[arg(long, value_name = "D", value_parser = parse_duration)]
    pub duration: Option<Duration>,
    /// Give up when the first full list takes longer than this many seconds.
    #[arg(long, default_value_t = 60, value_name = "SECS")]
    pub sync_timeout: u64,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum VerifyFormat {
    Table,
    Json,
}

#[derive(Args, Debug)]
pub struct VerifyArgs {
    /// A timeline written by `kplace record --duration`.
    #[arg(value_name = "TIMELINE")]
    pub timeline: PathBuf,
    #[arg(short, long, value_enum, default_value = "table")]
    pub output: VerifyFormat,
    /// Disagreements listed in the table (0 = all).
    #[arg(long, default_value_t = 20, value_name = "N")]
    pub limit: usize,
}

/// `30s`, `10m`, `1h`, `500ms`, or plain seconds.
pub fn parse_duration(s: &str) -> Result<Duration, String> {
    let s = s.trim();
    let split = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
    let (num, unit) = s.split_at(split);
    let n: u64 = num
        .parse()
        .map_err(|_| format!("{s:?}: expected a duration such as 30s, 10m or 1h"))?;
    let ms = match unit {
        "ms" => n,
        "" | "s" => n * 1000,
        "m" => n * 60_000,
        "h" => n * 3_600_000,
        _ => return Err(format!("{s:?}: unknown unit {unit:?} (use ms, s, m or h)")),
    };
    Ok(Duration::from_millis(ms))
}

pub fn record(args: &RecordArgs) -> Result<()> {
    let stop = Arc::new(AtomicBool::new(false));
    let flag = stop.clone();
    // ctrl-c stops a timeline cleanly (the file is finished, not cut).
    std::thread::spawn(move || {
        if let Ok(rt) = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
        {
            rt.block_on(async {
                if tokio::signal::ctrl_c().await.is_ok() {
                    flag.store(true, Ordering::SeqCst);
                }
            });
        }
    });
    let options = RecordOptions {
        target: Target {
            kubeconfig: args.kubeconfig.clone(),
            context: args.context.clone(),
        },
        output: args.output.clone(),
        duration: args.duration,
        sync_timeout: Duration::from_secs(args.sync_timeout),
        stop,
    };
    if let Some(d) = args.duration {
        eprintln!(
            "recording to {} {}",
            args.output.display(),
            if d.is_zero() {
                "until ctrl-c".to_string()
            } else {
                format!("for {} s (ctrl-c stops early)", d.as_secs())
            }
        );
    }
    let summary = kplace::source::record::record(&options).map_err(|e| match e {
        RecordError::Live(LiveError::BadKubeconfig(_)) => {
            anyhow::Error::from(CliError::BadInput(e.to_string()))
        }
        e => anyhow::anyhow!(e),
    })?;
    for l in &summary.limitations {
        eprintln!("kplace: warning: {l}");
    }
    match args.duration {
        None => eprintln!(
            "recorded {} objects from {} to {}",
            summary.objects,
            summary.context,
            args.output.display()
        ),
        Some(_) => eprintln!(
            "recorded {} objects and {} events from {} over {:.1} s to {}",
            summary.objects,
            summary.events,
            summary.context,
            summary.elapsed.as_secs_f64(),
            args.output.display()
        ),
    }
    Ok(())
}

/// A binding the recording saw, and what kplace predicted for it.
struct Check {
    pod: String,
    t: u64,
    bound: String,
    outcome: Outcome,
    best: Vec<String>,
    feasible: usize,
    in_best: bool,
    in_feasible: bool,
    /// For a binding that followed preemption: (actual, predicted) victims.
    preemption: Option<(BTreeSet<String>, BTreeSet<String>, Option<String>)>,
}

fn pod_of(t: &Timeline, v: VersionId) -> Option<&kplace::model::Pod> {
    match &t.version(v).model {
        Some(ModelObject::Pod(p)) => Some(p.as_ref()),
        _ => None,
    }
}

/// How long before a nomination a victim's preemption may happen.
const VICTIM_WINDOW_MS: u64 = 30_000;

fn predict(t: &Timeline, at: usize, key: &str) -> Option<(Cluster, engine::Placement)> {
    let cluster = t.state_after(at);
    let (ns, name) = key.split_once('/')?;
    let id = cluster.find_pod(ns, name)?;
    let answer = engine::place_existing(&cluster, id);
    Some((cluster, answer))
}

fn names(cluster: &Cluster, ids: &[u32]) -> Vec<String> {
    ids.iter()
        .map(|&n| cluster.node(n).name.to_string())
        .collect()
}

/// Finds every pending→bound transition and checks kplace's answer for it.
fn checks(t: &Timeline) -> Vec<Check> {
    let mut current: FxHashMap<ObjId, VersionId> = t.objects_after(0);
    // Per pod: the event index where it was first nominated.
    let mut nominated_at: FxHashMap<ObjId, usize> = FxHashMap::default();
    // (event index, t, node, pod key) of pods preempted or deleted.
    let mut gone: Vec<(usize, u64, Option<String>, String)> = Vec::new();
    let mut out = Vec::new();
    for (i, e) in t.events().iter().enumerate() {
        let (kind, key) = t.key(e.obj);
        let before = current.get(&e.obj).and_then(|&v| pod_of(t, v));
        let after = e.version.and_then(|v| pod_of(t, v));
        if kind == Kind::Pod {
            let was_bound = before.is_some_and(|p| p.node_name.is_some());
            let was_preempted = before.is_some_and(|p| p.preempted_by_scheduler);
            if let Some(b) = before.filter(|p| p.node_name.is_some()) {
                let marked = after.is_some_and(|p| p.preempted_by_scheduler) && !was_preempted;
                if e.version.is_none() && !was_preempted || marked {
                    gone.push((i, e.t, b.node_name.as_deref().map(Into::into), key.into()));
                }
            }
            if let Some(a) = after {
                if a.node_name.is_none() && a.nominated_node_name.is_some() {
                    nominated_at.entry(e.obj).or_insert(i);
                }
                if before.is_some()
                    && !was_bound
                    && let Some(node) = &a.node_name
                {
                    out.extend(check_bind(
                        t,
                        i,
                        e.t,
                        e.obj,
                        key,
                        node,
                        &nominated_at,
                        &gone,
                    ));
                }
            }
        }
        match e.version {
            Some(v) => current.insert(e.obj, v),
            None => current.remove(&e.obj),
        };
    }
    out
}

#[allow(clippy::too_many_arguments)]
fn check_bind(
    t: &Timeline,
    i: usize,
    at_ms: u64,
    obj: ObjId,
    key: &str,
    node: &str,
    nominated_at: &FxHashMap<ObjId, usize>,
    gone: &[(usize, u64, Option<String>, String)],
) -> Option<Check> {
    let bound = node.to_string();
    let (at, preemption_victims) = match nominated_at.get(&obj) {
        Some(&nom) => {
            let nom_t = t.events()[nom].t;
            let victims: Vec<&(usize, u64, Option<String>, String)> = gone
                .iter()
                .filter(|g| g.0 < nom && nom_t.saturating_sub(g.1) <= VICTIM_WINDOW_MS)
                .filter(|g| g.2.as_deref() == Some(node))
                .collect();
            let first = victims.iter().map(|g| g.0).min().unwrap_or(nom);
            let set: BTreeSet<String> = victims.iter().map(|g| g.3.clone()).collect();
            (first, Some(set))
        }
        None => (i, None),
    };
    let (cluster, answer) = predict(t, at, key)?;
    let best = names(&cluster, &answer.best);
    let feasible = names(&cluster, &answer.feasible);
    let preemption = preemption_victims.map(|actual| {
        let predicted: BTreeSet<String> = answer
            .preemption
            .as_ref()
            .map(|p| p.victims.iter().map(|&v| cluster.pod_key(v)).collect())
            .unwrap_or_default();
        let pnode = answer
            .preemption
            .as_ref()
            .and_then(|p| p.node)
            .map(|n| cluster.node(n).name.to_string());
        (actual, predicted, pnode)
    });
    let (in_best, in_feasible) = match &preemption {
        Some((_, _, pnode)) => {
            let hit = pnode.as_deref() == Some(node) || best.contains(&bound);
            (hit, hit || feasible.contains(&bound))
        }
        None => (best.contains(&bound), feasible.contains(&bound)),
    };
    Some(Check {
        pod: key.to_string(),
        t: at_ms,
        bound,
        outcome: answer.outcome,
        feasible: feasible.len(),
        best,
        in_best,
        in_feasible,
        preemption,
    })
}

fn rate(n: usize, of: usize) -> f64 {
    if of == 0 { 1.0 } else { n as f64 / of as f64 }
}

pub fn verify(args: &VerifyArgs) -> Result<()> {
    let timeline = Timeline::load(&args.timeline).map_err(CliError::from)?;
    let checks = checks(&timeline);
    let n = checks.len();
    let best = checks.iter().filter(|c| c.in_best).count();
    let feasible = checks.iter().filter(|c| c.in_feasible).count();
    let pre: Vec<&Check> = checks.iter().filter(|c| c.preemption.is_some()).collect();
    let victims_ok = pre
        .iter()
        .filter(|c| c.preemption.as_ref().is_some_and(|p| p.0 == p.1))
        .count();
    let disagreeing: Vec<&Check> = checks
        .iter()
        .filter(|c| !c.in_best || c.preemption.as_ref().is_some_and(|p| p.0 != p.1))
        .collect();
    let mut out = std::io::stdout().lock();
    match args.output {
        VerifyFormat::Json => {
            let cases: Vec<Value> = disagreeing
                .iter()
                .map(|c| {
                    let mut v = json!({
                        "pod": c.pod, "t": c.t, "boundNode": c.bound,
                        "outcome": c.outcome.as_str(), "bestNodes": c.best,
                        "feasibleNodes": c.feasible, "inBest": c.in_best, "inFeasible": c.in_feasible,
                    });
                    if let Some((actual, predicted, node)) = &c.preemption {
                        v["preemption"] = json!({"actualVictims": actual,
                            "predictedVictims": predicted, "predictedNode": node});
                    }
                    v
                })
                .collect();
            let report = json!({
                "timeline": args.timeline.display().to_string(),
                "bindings": n,
                "bestNodeAgreement": rate(best, n),
                "feasibleAgreement": rate(feasible, n),
                "inBest": best,
                "inFeasible": feasible,
                "preemptions": pre.len(),
                "victimAgreement": rate(victims_ok, pre.len()),
                "disagreements": cases,
            });
            serde_json::to_writer_pretty(&mut out, &report)?;
            writeln!(out)?;
        }
        VerifyFormat::Table => {
            writeln!(out, "{n} pods went from pending to bound")?;
            writeln!(
                out,
                "  bound node among bestNodes: {best}/{n} ({:.1}%)",
                100.0 * rate(best, n)
            )?;
            writeln!(
                out,
                "  bound node feasible:        {feasible}/{n} ({:.1}%)",
                100.0 * rate(feasible, n)
            )?;
            if !pre.is_empty() {
                writeln!(
                    out,
                    "  preemptions: {}, victims agree: {victims_ok} ({:.1}%)",
                    pre.len(),
                    100.0 * rate(victims_ok, pre.len())
                )?;
            }
            let limit = if args.limit == 0 {
                usize::MAX
            } else {
                args.limit
            };
            for c in disagreeing.iter().take(limit) {
                writeln!(
                    out,
                    "  t={:.1}s {}: bound to {}, kplace: {} best [{}]",
                    c.t as f64 / 1000.0,
                    c.pod,
                    c.bound,
                    c.outcome.as_str(),
                    c.best.join(", ")
                )?;
                if let Some((actual, predicted, _)) = &c.preemption
                    && actual != predicted
                {
                    let a: Vec<&str> = actual.iter().map(String::as_str).collect();
                    let p: Vec<&str> = predicted.iter().map(String::as_str).collect();
                    writeln!(
                        out,
                        "      victims: actual [{}], kplace [{}]",
                        a.join(", "),
                        p.join(", ")
                    )?;
                }
            }
        }
    }
    Ok(())
}
