//! `kplace record` (snapshot or timeline of a live cluster) and `kplace
//! verify` (kplace's predictions against the bindings a recording saw).

use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

use anyhow::Result;
use clap::{Args, ValueEnum};
use serde_json::{Value, json};

use kplace::source::live::{LiveError, Target};
use kplace::source::record::{RecordError, RecordOptions};
use kplace::source::timeline::Timeline;
use kplace::source::version::ServerVersion;
use kplace::verify::{self, Check, Summary};

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
    /// Replace FILE if it exists (without it, an existing file is refused).
    #[arg(long)]
    pub force: bool,
    /// Keep what the recording removes by default, comma-separated:
    /// args (container args and command, probe/hook exec commands), headers
    /// (probe/hook httpHeaders and path query strings), volume-attributes
    /// (CSI volumeAttributes, StorageClass parameters), config-refs (Secret
    /// and ConfigMap names referred to), annotations (those the scheduler
    /// does not read), messages (status and condition messages).
    #[arg(long, value_name = "WHAT", value_delimiter = ',', value_parser = parse_keep)]
    pub keep: Vec<&'static str>,
}

/// One `--keep` category.
fn parse_keep(s: &str) -> Result<&'static str, String> {
    kplace::source::live::Keep::NAMES
        .into_iter()
        .find(|n| *n == s.trim())
        .ok_or_else(|| {
            format!(
                "{s:?}: not a category; use {}",
                kplace::source::live::Keep::NAMES.join(", ")
            )
        })
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
    /// Check as this kube-scheduler release (1.30–1.34) instead of the server
    /// version the recording stored (or its newest kubelet's).
    #[arg(long, value_name = "X.Y", value_parser = crate::cli::parse_scheduler_version)]
    pub scheduler_version: Option<kplace::engine::Version>,
    /// Check with the profiles of this KubeSchedulerConfiguration (the file
    /// the cluster's kube-scheduler reads with --config).
    #[arg(long, value_name = "FILE")]
    pub scheduler_config: Option<std::path::PathBuf>,
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

/// The signals that stop a recording cleanly: the timeline is finished (its
/// END line, the gzip trailer) and renamed into place. A second one exits at
/// once with 128 + signo.
const STOP_SIGNALS: [i32; 3] = [
    signal_hook::consts::SIGINT,
    signal_hook::consts::SIGTERM,
    signal_hook::consts::SIGHUP,
];

fn signal_name(signo: usize) -> &'static str {
    match signo as i32 {
        signal_hook::consts::SIGINT => "SIGINT",
        signal_hook::consts::SIGTERM => "SIGTERM",
        signal_hook::consts::SIGHUP => "SIGHUP",
        _ => "a signal",
    }
}

pub fn record(args: &RecordArgs) -> Result<()> {
    let stop = Arc::new(AtomicBool::new(false));
    let which = Arc::new(AtomicUsize::new(0));
    for signo in STOP_SIGNALS {
        // The order matters: the shutdown checks the flag the second
        // registration sets, so only a second signal exits at once.
        signal_hook::flag::register_conditional_shutdown(signo, 128 + signo, stop.clone())?;
        signal_hook::flag::register(signo, stop.clone())?;
        signal_hook::flag::register_usize(signo, which.clone(), signo as usize)?;
    }
    let options = RecordOptions {
        target: Target {
            kubeconfig: args.kubeconfig.clone(),
            context: args.context.clone(),
        },
        output: args.output.clone(),
        duration: args.duration,
        sync_timeout: Duration::from_secs(args.sync_timeout),
        stop,
        force: args.force,
        progress: Some(|note| eprintln!("{note}")),
        keep: {
            let mut keep = kplace::source::live::Keep::default();
            for name in &args.keep {
                keep.add(name);
            }
            keep
        },
    };
    let summary = kplace::source::record::record(&options).map_err(|e| match e {
        RecordError::Live(LiveError::BadKubeconfig(_)) | RecordError::Exists(_) => {
            anyhow::Error::from(CliError::BadInput(e.to_string()))
        }
        e => anyhow::anyhow!(e),
    })?;
    let signo = which.load(Ordering::SeqCst);
    if signo != 0 {
        eprintln!(
            "stopped by {}; the recording is complete up to then",
            signal_name(signo)
        );
    }
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

/// Says, on stderr, which of a recording's objects were left out because
/// the API server would refuse them (the first three, escaped), so a
/// binding they hide is not silently missing from the counts.
fn note_left_out(invalid: &[String]) {
    if invalid.is_empty() {
        return;
    }
    eprintln!(
        "kplace: note: {} object(s) of the recording left out, as the API server would refuse them:",
        invalid.len()
    );
    for why in invalid.iter().take(3) {
        eprintln!("  {}", kplace::report::escape_controls(why));
    }
    if invalid.len() > 3 {
        eprintln!("  … and {} more", invalid.len() - 3);
    }
}

pub fn verify(args: &VerifyArgs) -> Result<()> {
    let timeline = Timeline::load(&args.timeline).map_err(CliError::from)?;
    note_left_out(&timeline.invalid);
    // Long recordings take a while: say how far it is when a person watches.
    let tty = std::io::stderr().is_terminal();
    let config = crate::cli::load_scheduler_config(args.scheduler_config.as_deref())?;
    let scheduler = crate::cli::configured_scheduler(
        verify::scheduler_for(&timeline, args.scheduler_version).version,
        config.as_deref(),
    )?;
    let checks = verify::checks_with_progress(&timeline, &scheduler, &mut |done, total| {
        if tty && total > 0 {
            eprint!("\rchecking bindings: {done}/{total}");
            if done == total {
                eprint!("\r\x1b[K");
            }
        }
    });
    let summary = Summary::of(&checks);
    let disagreeing: Vec<&Check> = checks.iter().filter(|c| !c.agrees()).collect();
    let mut out = std::io::stdout().lock();
    match args.output {
        VerifyFormat::Json => {
            let report = verify_json(&args.timeline, &scheduler, &summary, &disagreeing);
            serde_json::to_writer_pretty(&mut out, &report)?;
            writeln!(out)?;
        }
        VerifyFormat::Table => {
            writeln!(
                out,
                "{}",
                kplace::report::table::scheduler_line(&scheduler.version)
            )?;
            // Pod and node names come from the recording: their control
            // characters are shown escaped, never sent to the terminal.
            let mut table = Vec::new();
            verify_table(&mut table, &summary, &disagreeing, args.limit)?;
            let table = String::from_utf8_lossy(&table);
            out.write_all(kplace::report::escape_controls(&table).as_bytes())?
        }
    }
    Ok(())
}

/// `verify -o json`: the rates, then every disagreeing check.
fn verify_json(
    timeline: &std::path::Path,
    scheduler: &kplace::engine::Scheduler,
    s: &Summary,
    disagreeing: &[&Check],
) -> Value {
    let cases: Vec<Value> = disagreeing
        .iter()
        .map(|c| {
            let mut v = json!({
                "pod": c.pod, "t": c.t, "boundNode": c.bound,
                "outcome": c.outcome.as_str(), "bestNodes": c.best,
                "feasibleNodes": c.feasible, "inBest": c.in_best, "inFeasible": c.in_feasible,
            });
            if let Some(p) = &c.preemption {
                v["preemption"] = json!({"actualVictims": p.actual_victims,
                    "predictedVictims": p.predicted_victims, "predictedNode": p.predicted_node});
            }
            v
        })
        .collect();
    json!({
        "timeline": timeline.display().to_string(),
        "schedulerVersion": scheduler.version.version.as_str(),
        "schedulerVersionSource": kplace::report::json::scheduler_source(&scheduler.version),
        "bindings": s.bindings,
        "bestNodeAgreement": s.best_rate(),
        "feasibleAgreement": s.feasible_rate(),
        "inBest": s.in_best,
        "inFeasible": s.in_feasible,
        "preemptions": s.preemptions,
        "victimAgreement": s.victim_rate(),
        "disagreements": cases,
    })
}

/// `verify` as a table: the rates, then up to `limit` disagreeing checks
/// (0 = all).
fn verify_table(
    out: &mut impl Write,
    s: &Summary,
    disagreeing: &[&Check],
    limit: usize,
) -> std::io::Result<()> {
    let n = s.bindings;
    writeln!(out, "{n} pods went from pending to bound")?;
    writeln!(
        out,
        "  bound node among bestNodes: {}/{n} ({:.1}%)",
        s.in_best,
        100.0 * s.best_rate()
    )?;
    writeln!(
        out,
        "  bound node feasible:        {}/{n} ({:.1}%)",
        s.in_feasible,
        100.0 * s.feasible_rate()
    )?;
    if s.preemptions > 0 {
        writeln!(
            out,
            "  preemptions: {}, victims agree: {} ({:.1}%)",
            s.preemptions,
            s.victims_agree,
            100.0 * s.victim_rate()
        )?;
    }
    let limit = if limit == 0 { usize::MAX } else { limit };
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
        if let Some(p) = c.preemption.as_ref().filter(|p| !p.victims_agree()) {
            let a: Vec<&str> = p.actual_victims.iter().map(String::as_str).collect();
            let k: Vec<&str> = p.predicted_victims.iter().map(String::as_str).collect();
            writeln!(
                out,
                "      victims: actual [{}], kplace [{}]",
                a.join(", "),
                k.join(", ")
            )?;
        }
    }
    Ok(())
}

/// A live cluster listed once for a one-shot answer (`kplace place
/// --context`): read-only (get, list, watch; nothing is written), the first full
/// list awaited for at most `sync_timeout`. Returns the cluster, what the
/// API server said its version is, the context's name, and notes (kinds
/// that could not be read, objects left out) for stderr.
/// `hint` follows a kubeconfig error (what else the command can read).
pub fn list_live_cluster(
    target: Target,
    sync_timeout: Duration,
    hint: Option<&str>,
) -> Result<(kplace::model::Cluster, ServerVersion, String, Vec<String>)> {
    use kplace::source::live::{LiveOptions, LiveSource};
    let live = LiveSource::connect(
        LiveOptions {
            target,
            fail_fast: true,
            ..Default::default()
        },
        None,
    )
    .map_err(|e| match e {
        LiveError::BadKubeconfig(_) => anyhow::Error::from(CliError::BadInput(match hint {
            Some(hint) => format!("{e}; {hint}"),
            None => e.to_string(),
        })),
        e => anyhow::anyhow!(e),
    })?;
    if std::io::stderr().is_terminal() {
        eprintln!(
            "kplace: listing the cluster of context {} (read-only)…",
            live.context()
        );
    }
    live.wait_synced(sync_timeout)
        .map_err(|e| anyhow::anyhow!("context {}: {e}", live.context()))?;
    let server = live.wait_server_version(Duration::from_secs(5));
    let (cluster, skipped) = live.cluster();
    let mut notes: Vec<String> = live.limitations().into_iter().map(|l| l.message).collect();
    if !skipped.is_empty() {
        notes.push(format!(
            "{} object(s) the API server returned were left out: {}",
            skipped.len(),
            skipped
                .iter()
                .take(3)
                .map(|s| kplace::report::escape_controls(s))
                .collect::<Vec<_>>()
                .join("; ")
        ));
    }
    Ok((cluster, server, live.context().to_string(), notes))
}
