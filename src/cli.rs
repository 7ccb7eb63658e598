//! The command line: `kplace` (TUI), `kplace place` (headless answer) and
//! `kplace synth` (a synthetic cluster at scale). Headless commands call the
//! engine directly and print.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use clap::{Args, Parser, Subcommand, ValueEnum};

use kplace::engine::{self, Outcome, Placement, Version};
use kplace::model::Cluster;
use kplace::report;
use kplace::source::file::{LoadOptions, SourceError, load_manifest_bytes, load_snapshot_with};
use kplace::source::version::{ServerVersion, choose};
use kplace::source::workload::Replicas;

/// `--scheduler-version`: `1.33`, `v1.33` or `v1.33.2`; anything else is a
/// usage error (exit 2) that names the supported releases.
pub fn parse_scheduler_version(s: &str) -> Result<Version, String> {
    s.parse::<Version>().map_err(|e| e.to_string())
}

/// Where would this pod go, and who would be evicted? Answers as the
/// cluster's kube-scheduler release (1.30–1.34, default profile) would.
#[derive(Parser, Debug)]
#[command(name = "kplace", version, about, long_about = None)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
    #[command(flatten)]
    pub tui: TuiArgs,
    /// Refuse any input (snapshot, directory, recording, pod manifest, pipe) larger than
    /// SIZE once decompressed, e.g. 512Mi, 2Gi; the limit is enforced while reading.
    #[arg(
        long,
        global = true,
        value_name = "SIZE",
        default_value = "1Gi",
        value_parser = kplace::source::budget::parse_size
    )]
    pub max_input: u64,
}

/// Options of the interactive terminal UI (no subcommand).
#[derive(Args, Debug, Default)]
pub struct TuiArgs {
    /// Open the built-in demo cluster.
    #[arg(long, conflicts_with_all = ["snapshot", "context", "kubeconfig", "demo_replay"])]
    pub demo: bool,
    /// Open the built-in demo recording (three minutes of the demo cluster) with the timeline bar.
    #[arg(long, conflicts_with_all = ["snapshot", "context", "kubeconfig"])]
    pub demo_replay: bool,
    /// Open a saved snapshot (kubectl get -o yaml|json output, a directory of them, or .gz)
    /// or a recorded timeline (`kplace record --duration`), which opens with a timeline bar.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["context", "kubeconfig"])]
    pub snapshot: Option<PathBuf>,
    /// Open this kubeconfig context live (read-only: get, list, watch). Without any
    /// source option, kplace opens the current context, or the demo if it is unreachable.
    #[arg(long, value_name = "NAME")]
    pub context: Option<String>,
    /// Read this kubeconfig instead of $KUBECONFIG or ~/.kube/config.
    #[arg(long, value_name = "PATH")]
    pub kubeconfig: Option<PathBuf>,
    /// Colour theme: dark, light, high-contrast, or a user theme.
    #[arg(long, value_name = "NAME")]
    pub theme: Option<String>,
    /// Open the placement view of this pod (NAMESPACE/NAME, or NAME when one pod has it).
    #[arg(long, value_name = "NAMESPACE/NAME")]
    pub pod: Option<String>,
    /// Show only this namespace's pods and workloads (`:ns NAME`; `:ns all` shows all),
    /// as k9s takes it; a `--pod NAME` is looked up in it.
    #[arg(short = 'n', long, value_name = "NAMESPACE")]
    pub namespace: Option<String>,
    /// Answer as this kube-scheduler release (1.30–1.34) instead of the one the
    /// cluster reports (`:version X.Y` switches at runtime).
    #[arg(long, value_name = "X.Y", value_parser = parse_scheduler_version)]
    pub scheduler_version: Option<Version>,
    /// Answer with the profiles of this KubeSchedulerConfiguration (the file
    /// kube-scheduler reads with --config); a pod's schedulerName picks the
    /// profile. `:config PATH` switches at runtime.
    #[arg(long, value_name = "FILE")]
    pub scheduler_config: Option<PathBuf>,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Answer where a pod would go (and who would be evicted) without the UI.
    Place(PlaceArgs),
    /// Write a synthetic cluster (5,000 nodes and 150,000 pods by default) as a List.
    #[cfg(feature = "synth")]
    Synth(SynthArgs),
    /// Save a live cluster as a snapshot, or as a timeline with --duration (read-only: get, list, watch).
    Record(crate::cli_live::RecordArgs),
    /// Compare kplace's answers with the bindings a recorded timeline saw.
    Verify(crate::cli_live::VerifyArgs),
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell) to standard output.
    Completions(CompletionsArgs),
    /// Print the manual page (roff, for `man -l -`) to standard output.
    Man,
}

#[derive(Args, Debug)]
pub struct CompletionsArgs {
    /// The shell to complete for.
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum Format {
    Json,
    Yaml,
    Table,
}

/// Answers at or beyond this make `--fail-on` exit with status 3. The
/// levels are ordered: preempt < pdb-violation < unschedulable.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum FailOn {
    /// The pod would preempt others (or anything worse).
    Preempt,
    /// The preemption would break a PodDisruptionBudget (or anything worse:
    /// the pod is unschedulable or rejected).
    PdbViolation,
    /// The pod cannot be placed even with preemption, or is rejected (or
    /// gated, or waits for claims: it does not run).
    Unschedulable,
}

#[derive(Args, Debug)]
pub struct PlaceArgs {
    /// The cluster snapshot (YAML or JSON List, multi-document YAML, a directory, or .gz).
    /// Without --snapshot or --demo, the live cluster of the current kubeconfig context is asked.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["context", "kubeconfig", "demo"])]
    pub snapshot: Option<PathBuf>,
    /// Ask the live cluster of this kubeconfig context, listed once (read-only: get, list, watch).
    #[arg(long, value_name = "NAME", conflicts_with = "demo")]
    pub context: Option<String>,
    /// Read this kubeconfig instead of $KUBECONFIG or ~/.kube/config (live).
    #[arg(long, value_name = "PATH", conflicts_with = "demo")]
    pub kubeconfig: Option<PathBuf>,
    /// Ask the built-in demo cluster (the TUI's `--demo`), to try kplace out.
    #[arg(long)]
    pub demo: bool,
    /// Live: give up when the first full list takes longer than this many seconds.
    #[arg(long, default_value_t = 60, value_name = "SECS")]
    pub sync_timeout: u64,
    /// The incoming pod: a manifest file (`-` reads it from standard
    /// input) holding a Pod or a workload (Deployment, ReplicaSet,
    /// StatefulSet, DaemonSet, Job, CronJob: its pod template, as the
    /// controller's pod), alone or among other objects (`helm template`
    /// output); or NAMESPACE/NAME of a pod in the cluster. `-f FILE` and
    /// `--filename FILE` take a manifest as kubectl does.
    #[arg(
        long,
        short = 'f',
        visible_alias = "filename",
        value_name = "POD.yaml|-|NAMESPACE/NAME"
    )]
    pub pod: String,
    /// The namespace of a pod given by NAME alone (`-n shop --pod web-0`, as kubectl takes it).
    #[arg(short = 'n', long, value_name = "NAMESPACE")]
    pub namespace: Option<String>,
    /// The pod or workload to use when the manifest holds several
    /// (`deployment/web`, `sts/db`, `job/migrate`, `pod/debug`, or a name).
    #[arg(long, value_name = "KIND/NAME")]
    pub workload: Option<String>,
    #[arg(short, long, value_enum, default_value = "table")]
    pub output: Format,
    /// Exit with status 3 when the answer is this bad or worse, in the order
    /// preempt < pdb-violation < unschedulable (rejected counts as
    /// unschedulable): `--fail-on pdb-violation` also trips for a pod that
    /// cannot be placed at all.
    #[arg(long, value_enum, value_name = "preempt|pdb-violation|unschedulable")]
    pub fail_on: Option<FailOn>,
    /// Print how long loading, converting and answering took (to stderr).
    #[arg(long)]
    pub timings: bool,
    /// Compute the answer this many times (with --timings: median, min, max).
    #[arg(long, default_value_t = 1, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub repeat: u32,
    /// Rows per list in the table (0 = all).
    #[arg(long, default_value_t = 20, value_name = "N")]
    pub limit: usize,
    /// Place the pod N times in sequence, each replica added to a fork of the
    /// snapshot before the next, as a scale-up would; `max`: until the
    /// first that cannot be placed, counted with and without preemption,
    /// per zone (at most 10,000). Default for a workload: its replica count
    /// (spec.replicas, a Job's parallelism).
    #[arg(long, value_name = "N|max", value_parser = parse_replicas)]
    pub replicas: Option<ReplicaCount>,
    /// With --replicas: ask as if the pod named this PriorityClass.
    #[arg(long, value_name = "NAME", requires = "replicas")]
    pub priority_class: Option<String>,
    /// Answer as this kube-scheduler release (1.30–1.34). Default: the version
    /// `kplace record` stored, else the newest kubelet among the nodes, else 1.34.
    #[arg(long, value_name = "X.Y", value_parser = parse_scheduler_version)]
    pub scheduler_version: Option<Version>,
    /// Answer with the profiles of this KubeSchedulerConfiguration (the file
    /// kube-scheduler reads with --config); the pod's schedulerName picks the
    /// profile. Validated as kube-scheduler validates it.
    #[arg(long, value_name = "FILE")]
    pub scheduler_config: Option<PathBuf>,
    /// The same object (kind, namespace, name) twice in the snapshot: use
    /// the later and say so, instead of refusing the snapshot.
    #[arg(long)]
    pub allow_duplicates: bool,
    /// For a pod that cannot be placed or would preempt: search for the
    /// smallest changes that make it schedule (each verified by asking
    /// again), or `none` for the raw answer only.
    #[arg(long, value_enum, default_value = "search", value_name = "search|none")]
    pub remedies: RemedySearch,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReplicaCount {
    N(u32),
    /// Until the first replica that cannot be placed.
    Max,
}

fn parse_replicas(s: &str) -> Result<ReplicaCount, String> {
    if s == "max" {
        return Ok(ReplicaCount::Max);
    }
    match s.parse::<u32>() {
        Ok(n) if n >= 1 => Ok(ReplicaCount::N(n)),
        _ => Err(format!("{s:?} is neither a count of at least 1 nor `max`")),
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum RemedySearch {
    /// Search (at most 5 seconds) and list the remedies found.
    Search,
    /// No search: the answer only.
    None,
}

#[cfg(feature = "synth")]
#[derive(Args, Debug)]
pub struct SynthArgs {
    /// Output file; `.gz` compresses.
    #[arg(short, long, value_name = "FILE")]
    pub output: PathBuf,
    /// Nodes, in four pools (general, compute, memory, tainted infra), at
    /// most 50,000 (the largest cluster Kubernetes supports is 5,000).
    #[arg(long, default_value_t = 5000, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=50_000))]
    pub nodes: usize,
    /// Pods: DaemonSet pods, workload pods and a few pending ones; those the
    /// nodes cannot hold (110 per node) stay pending. At most 1,500,000.
    #[arg(long, default_value_t = 150_000, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(0..=1_500_000))]
    pub pods: usize,
    /// Availability zones, 1 to 26 (no more than there are nodes).
    #[arg(long, default_value_t = 5, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=26))]
    pub zones: usize,
    /// Everything random derives from it: the same options write the same bytes.
    #[arg(long, default_value_t = 42)]
    pub seed: u64,
    /// Also write a pod that fits on about a fifth of the nodes.
    #[arg(long, value_name = "FILE")]
    pub fitting_pod: Option<PathBuf>,
    /// Also write a high-priority pod that fits nowhere without preemption.
    #[arg(long, value_name = "FILE")]
    pub preempting_pod: Option<PathBuf>,
    /// Replace output files that already exist.
    #[arg(long)]
    pub force: bool,
}

/// Errors that map to a specific exit status.
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    /// Unreadable or invalid input: exit 2.
    #[error("{0}")]
    BadInput(String),
    /// `--fail-on` triggered: exit 3.
    #[error("{0}")]
    FailOn(String),
}

impl From<SourceError> for CliError {
    fn from(e: SourceError) -> Self {
        CliError::BadInput(e.to_string())
    }
}

/// Reads and validates `--scheduler-config` (bad input: exit 2 naming the
/// file, the field and the reason).
pub fn load_scheduler_config(
    path: Option<&Path>,
) -> Result<Option<std::sync::Arc<engine::Profiles>>, CliError> {
    let Some(path) = path else { return Ok(None) };
    kplace::source::scheduler_config::load(path, Version::NEWEST)
        .map(|p| Some(std::sync::Arc::new(p)))
        .map_err(|e| CliError::BadInput(e.to_string()))
}

/// The engine's input: the chosen release with the configuration's profiles
/// merged for it.
pub fn configured_scheduler(
    choice: engine::VersionChoice,
    config: Option<&engine::Profiles>,
) -> Result<engine::Scheduler, CliError> {
    engine::Scheduler::configured(choice, config).map_err(|e| {
        let origin = config.map_or("the configuration", |c| c.origin.as_str());
        CliError::BadInput(format!("{origin}: {e}"))
    })
}

pub fn exit_code(err: &anyhow::Error) -> ExitCode {
    if err.downcast_ref::<kplace::tui::LoadFailed>().is_some() {
        return ExitCode::from(2);
    }
    if let Some(ended) = err.downcast_ref::<kplace::tui::terminal::Ended>() {
        return ExitCode::from(ended.exit_status());
    }
    match err.downcast_ref::<CliError>() {
        Some(CliError::BadInput(_)) => ExitCode::from(2),
        Some(CliError::FailOn(_)) => ExitCode::from(3),
        None => ExitCode::from(1),
    }
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// The pod to ask about: a new pod from a file, or one of the snapshot.
enum Question {
    /// A pod from a manifest, with the ResourceClaims written beside it.
    NewPod(
        Box<kplace::model::Pod>,
        Vec<kplace::model::dra::ResourceClaim>,
    ),
    Existing(kplace::model::PodId),
}

/// The most `--pod -` reads from standard input: a pod manifest with its
/// claims is a few KiB; more is not a pod.
const STDIN_POD_LIMIT: u64 = 16 << 20;

/// What a workload manifest brings beside its pod.
struct FromWorkload {
    workload: kplace::source::workload::Workload,
    owners: Vec<kplace::model::policy::SelectorOwner>,
}

fn new_pod(
    m: kplace::source::file::Manifest,
    cluster: &mut Cluster,
    from: &mut Option<FromWorkload>,
) -> Result<Question, CliError> {
    // The manifest's selector owners (a workload's controller, the
    // Services beside the pod) join the snapshot in memory, in place of
    // any of the same kind and name, so default spreading and StatefulSet
    // ordinals see them as the cluster would.
    for owner in &m.owners {
        let owners = std::sync::Arc::make_mut(&mut cluster.owners);
        owners.retain(|o| {
            !(o.kind == owner.kind && o.namespace == owner.namespace && o.name == owner.name)
        });
        owners.push(owner.clone());
    }
    if let Some(workload) = m.workload {
        *from = Some(FromWorkload {
            workload,
            owners: m.owners,
        });
    }
    Ok(Question::NewPod(Box::new(m.pod), m.claims))
}

fn resolve_pod(
    arg: &str,
    namespace: Option<&str>,
    select: Option<&str>,
    cluster: &mut Cluster,
    from: &mut Option<FromWorkload>,
) -> Result<Question, CliError> {
    if arg == "-" {
        use std::io::Read;
        let mut bytes = Vec::new();
        std::io::stdin()
            .take(STDIN_POD_LIMIT + 1)
            .read_to_end(&mut bytes)
            .map_err(|e| CliError::BadInput(format!("<stdin>: {e}")))?;
        if bytes.len() as u64 > STDIN_POD_LIMIT {
            return Err(CliError::BadInput(
                "<stdin>: too large for a pod manifest (limit 16 MiB)".into(),
            ));
        }
        let m = load_manifest_bytes(&bytes, "<stdin>", &mut cluster.interner, select)?;
        return new_pod(m, cluster, from);
    }
    let path = Path::new(arg);
    if path.is_file() {
        let bytes = kplace::source::file::read_bytes(path)?;
        let m = load_manifest_bytes(
            &bytes,
            &path.display().to_string(),
            &mut cluster.interner,
            select,
        )
        .map_err(|e| kplace::source::file::misnamed_gzip(e, path))?;
        return new_pod(m, cluster, from);
    }
    if path.is_dir() {
        return Err(CliError::BadInput(format!(
            "{arg}: is a directory, not a manifest file (give a Pod or workload manifest, - for standard input, or NAMESPACE/NAME)"
        )));
    }
    if select.is_some() {
        return Err(CliError::BadInput(format!(
            "--workload chooses among the objects of a manifest file; {arg} is not a file"
        )));
    }
    if let (Some((ns, _)), Some(flag)) = (arg.split_once('/'), namespace)
        && !ns.is_empty()
        && ns != flag
    {
        return Err(CliError::BadInput(format!(
            "--pod {arg} names namespace {ns}, and -n names {flag}: give one"
        )));
    }
    let named = match (arg.split_once('/'), namespace) {
        (Some((ns, name)), _) if !ns.is_empty() && !name.is_empty() && !name.contains('/') => {
            Some((ns, name))
        }
        (None, Some(ns)) => Some((ns, arg)),
        _ => None,
    };
    if let Some((ns, name)) = named
        && let Some(id) = cluster.find_pod(ns, name)
    {
        return Ok(Question::Existing(id));
    }
    // A path that names no file (`/tmp/pod.yaml`, `./pod.yaml`, `pod.json`)
    // and no pod: say the file is missing, not that a pod of an empty
    // namespace is.
    let looks_like_path = arg.starts_with(['/', '.', '~'])
        || [".yaml", ".yml", ".json"]
            .iter()
            .any(|ext| arg.to_ascii_lowercase().ends_with(ext));
    if looks_like_path {
        return Err(CliError::BadInput(format!(
            "{arg}: no such file (give a Pod manifest, - for standard input, NAMESPACE/NAME, or NAME with -n NAMESPACE)"
        )));
    }
    if let Some((ns, name)) = named {
        return Err(CliError::BadInput(format!(
            "{arg}: no such file, and no pod {name} in namespace {ns} in the cluster{}",
            elsewhere(cluster, name)
        )));
    }
    Err(CliError::BadInput(format!(
        "{arg}: no such file (give a Pod manifest, - for standard input, NAMESPACE/NAME, or NAME with -n NAMESPACE){}",
        elsewhere(cluster, arg)
    )))
}

/// `; pods of that name: a/NAME, b/NAME` when the cluster holds pods of
/// that name in other namespaces, for a name asked in the wrong namespace
/// or without one.
fn elsewhere(cluster: &Cluster, name: &str) -> String {
    if name.contains('/') {
        return String::new();
    }
    cluster
        .pods_named_list(name, 5)
        .map(|list| format!("; pods of that name: {list}"))
        .unwrap_or_default()
}

/// Adds a manifest's ResourceClaims to the snapshot in memory (the file
/// is not changed) and says which are new and which replace one.
fn manifest_claims(
    cluster: &mut Cluster,
    claims: Vec<kplace::model::dra::ResourceClaim>,
) -> String {
    let names: Vec<String> = claims
        .iter()
        .map(|c| {
            let key = format!("{}/{}", cluster.interner.resolve(c.namespace), c.name);
            if cluster.dra.claim(c.namespace, &c.name).is_some() {
                format!("{key} (in place of the snapshot's)")
            } else {
                key
            }
        })
        .collect();
    cluster.dra = cluster.dra.with_claims(claims);
    format!(
        "the pod's manifest brings ResourceClaim {}",
        names.join(", ")
    )
}

/// The cluster `place` asks, and what it is.
struct OpenedCluster {
    cluster: Cluster,
    timings: kplace::source::file::LoadTimings,
    notes: Vec<String>,
    /// What the API server or the recording says the release is.
    server: ServerVersion,
    /// The file, `context NAME`, or the demo: for warnings.
    label: String,
}

/// `--snapshot FILE`, `--demo`, or else the live cluster of `--context`
/// (the current context by default), listed once.
fn open_cluster(args: &PlaceArgs, options: LoadOptions) -> Result<OpenedCluster> {
    let started = Instant::now();
    if let Some(path) = &args.snapshot {
        let (cluster, timings, notes) =
            load_snapshot_with(path, options).map_err(CliError::from)?;
        let server = ServerVersion::of_recording(&cluster);
        return Ok(OpenedCluster {
            cluster,
            timings,
            notes,
            server,
            label: path.display().to_string(),
        });
    }
    let (cluster, server, label, notes) = if args.demo {
        let cluster = kplace::app::demo::load_demo().map_err(CliError::BadInput)?;
        let server = ServerVersion::of_recording(&cluster);
        (
            cluster,
            server,
            kplace::app::demo::DEMO_NAME.to_string(),
            Vec::new(),
        )
    } else {
        let target = kplace::source::live::Target {
            kubeconfig: args.kubeconfig.clone(),
            context: args.context.clone(),
        };
        let asked = args.context.is_some() || args.kubeconfig.is_some();
        let (cluster, server, context, notes) = crate::cli_live::list_live_cluster(
            target,
            Duration::from_secs(args.sync_timeout),
            (!asked).then_some(
                "without --snapshot FILE or --demo, `place` asks the current kubeconfig context's cluster",
            ),
        )?;
        (cluster, server, format!("context {context}"), notes)
    };
    let timings = kplace::source::file::LoadTimings {
        load: started.elapsed(),
        convert: Duration::ZERO,
    };
    Ok(OpenedCluster {
        cluster,
        timings,
        notes,
        server,
        label,
    })
}

pub fn place(args: &PlaceArgs) -> Result<()> {
    let options = LoadOptions {
        allow_duplicates: args.allow_duplicates,
    };
    let OpenedCluster {
        cluster,
        mut timings,
        notes: load_notes,
        server,
        label,
    } = open_cluster(args, options)?;
    // Never dropped: the process ends with this command, and the system
    // takes its memory back at once, where freeing the 150,000-pod
    // synthetic cluster one allocation at a time held the exit for 50 ms.
    let mut cluster = std::mem::ManuallyDrop::new(cluster);
    for note in &load_notes {
        eprintln!("kplace: note: {note}");
    }
    let pod_started = Instant::now();
    let mut from_workload = None;
    let question = resolve_pod(
        &args.pod,
        args.namespace.as_deref(),
        args.workload.as_deref(),
        &mut cluster,
        &mut from_workload,
    )?;
    timings.load += pod_started.elapsed();
    // The manifest's selector owners joined the snapshot in `new_pod`.
    let mut workload_notes = Vec::new();
    let mut replicas = args.replicas;
    if let Some(f) = &from_workload {
        workload_notes.push(workload_note(&cluster, f));
        if replicas.is_none() {
            match f.workload.replicas {
                Replicas::Count(n) if n > 1 => replicas = Some(ReplicaCount::N(n)),
                _ => {}
            }
        }
    }
    let choice = choose(args.scheduler_version, &server, &cluster);
    if let Some(note) = server.note(&choice) {
        eprintln!("kplace: warning: {label}: {note}");
    }
    let config = load_scheduler_config(args.scheduler_config.as_deref())?;
    let scheduler = configured_scheduler(choice, config.as_deref())?;
    // The manifest's ResourceClaims join the snapshot in memory.
    let mut manifest_claims_note = None;
    if let Question::NewPod(_, claims) = &question
        && !claims.is_empty()
    {
        manifest_claims_note = Some(manifest_claims(&mut cluster, claims.clone()));
    }
    if let (Some(f), Question::NewPod(pod, _)) = (&from_workload, &question)
        && f.workload.replicas == Replicas::PerNode
    {
        if args.replicas.is_some() {
            return Err(CliError::BadInput(format!(
                "{}: a DaemonSet runs one pod per eligible node; --replicas does not apply",
                f.workload.key()
            ))
            .into());
        }
        return place_daemon(args, &cluster, pod, &scheduler, &f.workload);
    }
    if let Some(count) = replicas {
        let workload = from_workload.as_ref().map(|f| &f.workload);
        return place_replicas(args, &cluster, question, count, &scheduler, workload);
    }

    // A new StatefulSet replica comes with the claims its set's templates
    // create (the snapshot in memory gains them; the file is not changed).
    let mut claims_notes = Vec::new();
    if let Question::NewPod(pod, _) = &question {
        let claims = engine::statefulset::missing_claims(&cluster, pod);
        if !claims.is_empty() {
            claims_notes.push(engine::statefulset::created_note(&cluster, pod, &claims));
            for c in claims {
                cluster.storage_mut().add_claim(c);
            }
        }
    }
    let mut runs = Vec::with_capacity(args.repeat as usize);
    let mut answer: Option<Placement> = None;
    for _ in 0..args.repeat {
        let t = Instant::now();
        let a = match &question {
            Question::NewPod(pod, _) => engine::place(&cluster, pod, &scheduler),
            Question::Existing(id) => engine::place_existing(&cluster, *id, &scheduler),
        };
        runs.push(t.elapsed());
        answer = Some(a);
    }
    let mut answer = answer.expect("repeat is at least 1");
    answer.notes.extend(load_notes);
    answer.notes.extend(claims_notes);
    answer.notes.extend(manifest_claims_note.clone());
    answer.notes.extend(workload_notes);

    if args.timings {
        runs.sort();
        let median = runs[runs.len() / 2];
        eprintln!(
            "timings: load {:.1} ms, convert {:.1} ms",
            ms(timings.load),
            ms(timings.convert)
        );
        eprintln!(
            "timings: answer n={} median {:.2} ms min {:.2} ms max {:.2} ms",
            runs.len(),
            ms(median),
            ms(runs[0]),
            ms(runs[runs.len() - 1])
        );
        eprintln!(
            "timings: cluster {} nodes, {} pods ({} scheduled)",
            cluster.nodes.len(),
            cluster.pods.len(),
            cluster.num_scheduled_pods()
        );
    }

    // Remedies are searched (and `remedies` is in the JSON) only for a pod
    // that cannot be placed or would preempt.
    let remedies = (args.remedies == RemedySearch::Search && engine::remedies::applies_to(&answer))
        .then(|| search_remedies(&cluster, &question, &scheduler, &answer, args.timings));
    let document = || {
        let mut doc = report::json::placement(&cluster, &answer);
        if let (Some((found, pod, existing)), Some(map)) = (&remedies, doc.as_object_mut()) {
            map.insert(
                "remedies".into(),
                report::remedies::json_list(found, pod, *existing),
            );
            map.insert("remediesNotes".into(), serde_json::json!(found.notes));
        }
        doc
    };
    // A pod of the snapshot is introduced as bound or pending, as the
    // Placement view introduces it.
    let bound = match &question {
        Question::Existing(id) => Some(cluster.pod(*id).node.is_some()),
        Question::NewPod(..) => None,
    };
    let mut stdout = std::io::stdout().lock();
    match args.output {
        Format::Json => {
            serde_json::to_writer_pretty(&mut stdout, &document())?;
            writeln!(stdout)?;
        }
        Format::Yaml => {
            let text = serde_saphyr::to_string(&document()).context("rendering YAML")?;
            write!(stdout, "{text}")?;
            if !text.ends_with('\n') {
                writeln!(stdout)?;
            }
        }
        Format::Table => {
            write!(
                stdout,
                "{}",
                report::table::render(&cluster, &answer, bound, args.limit)
            )?;
            if let Some((found, _, _)) = &remedies {
                let section = report::remedies::table_section(found);
                write!(stdout, "{}", report::escape_controls(&section))?;
            }
        }
    }
    stdout.flush()?;
    drop(stdout);

    if let Some(fail_on) = args.fail_on
        && let Some(why) = fail_on_reason(fail_on, &answer)
    {
        return Err(CliError::FailOn(why).into());
    }
    Ok(())
}

/// The remedy search for a pod that cannot be placed or would preempt,
/// with the pod as asked (for the JSON patches) and whether it is a pod of
/// the snapshot. Progress goes to standard error when it is a terminal.
fn search_remedies(
    cluster: &Cluster,
    question: &Question,
    scheduler: &engine::Scheduler,
    answer: &Placement,
    timings: bool,
) -> (engine::remedies::Remedies, kplace::model::Pod, bool) {
    use engine::remedies::{Bounds, Progress, Question as Asked, search};
    use std::io::IsTerminal;
    let cancel = std::sync::atomic::AtomicBool::new(false);
    let show = std::io::stderr().is_terminal() && engine::remedies::applies_to(answer);
    let started = Instant::now();
    let mut first: Option<Duration> = None;
    let mut progress = |p: Progress| match p {
        Progress::Trying { kind, step, steps } if show => {
            eprint!(
                "\r\x1b[Kkplace: looking for remedies ({step}/{steps}: {})…",
                kind.as_str()
            );
        }
        Progress::Found(_) if first.is_none() => first = Some(started.elapsed()),
        _ => {}
    };
    let (found, pod, existing) = match question {
        Question::NewPod(pod, _) => {
            let asked = Asked {
                cluster,
                pod,
                existing: false,
            };
            let found = search(
                &asked,
                scheduler,
                answer,
                &Bounds::default(),
                &cancel,
                &mut progress,
            );
            (found, (**pod).clone(), false)
        }
        Question::Existing(id) => {
            let existing = engine::ExistingQuestion::new(cluster, *id);
            let asked = Asked {
                cluster: &existing.cluster,
                pod: &existing.pod,
                existing: true,
            };
            let found = search(
                &asked,
                scheduler,
                answer,
                &Bounds::default(),
                &cancel,
                &mut progress,
            );
            (found, cluster.pod(*id).clone(), true)
        }
    };
    if show {
        eprint!("\r\x1b[K");
    }
    if timings && engine::remedies::applies_to(answer) {
        eprintln!(
            "timings: remedies {} found, first after {}, all in {:.1} ms",
            found.remedies.len(),
            first.map_or("-".into(), |d| format!("{:.1} ms", ms(d))),
            ms(started.elapsed())
        );
    }
    (found, pod, existing)
}

/// `place --replicas N`: the pod (a manifest, or a pod of the snapshot used
/// as a template) placed N times in sequence on a fork of the snapshot.
fn place_replicas(
    args: &PlaceArgs,
    cluster: &Cluster,
    question: Question,
    count: ReplicaCount,
    scheduler: &engine::Scheduler,
    workload: Option<&kplace::source::workload::Workload>,
) -> Result<()> {
    let mut template = match question {
        Question::NewPod(pod, _) => *pod,
        Question::Existing(id) => {
            let mut pod = cluster.pod(id).clone();
            pod.node = None;
            pod.node_name = None;
            pod.priority = None;
            pod.preemption_policy = None;
            pod
        }
    };
    if let Some(class) = &args.priority_class {
        if cluster.priority_class(class).is_none() {
            return Err(CliError::BadInput(format!(
                "--priority-class {class}: no PriorityClass with name {class} in the cluster"
            ))
            .into());
        }
        template.priority_class_name = Some(class.as_str().into());
        template.priority = None;
        template.preemption_policy = None;
    }
    let n = match count {
        ReplicaCount::N(n) => n as usize,
        ReplicaCount::Max => return place_capacity(args, cluster, &template, scheduler),
    };
    let plan = engine::replicas::place_replicas(cluster, &template, n, scheduler);
    let json = || {
        let mut v = report::json::replica_plan(&plan);
        v["requested"] = serde_json::json!(n);
        if let Some(w) = workload {
            v["workload"] = workload_json(w);
        }
        v
    };
    let mut stdout = std::io::stdout().lock();
    match args.output {
        Format::Json => {
            serde_json::to_writer_pretty(&mut stdout, &json())?;
            writeln!(stdout)?;
        }
        Format::Yaml => {
            let text = serde_saphyr::to_string(&json()).context("rendering YAML")?;
            writeln!(stdout, "{}", text.trim_end())?;
        }
        Format::Table => {
            if let Some(w) = workload {
                let asked = if args.replicas.is_some() {
                    "--replicas".to_string()
                } else {
                    w.replicas_from.clone()
                };
                writeln!(stdout, "Workload: {}, {n} replicas ({asked})", w.key())?;
            }
            write!(
                stdout,
                "{}",
                report::table::render_replicas(&plan, n, args.limit)
            )?
        }
    }
    stdout.flush()?;
    if let Some(fail_on) = args.fail_on
        && let Some(why) = plan
            .steps
            .iter()
            .find_map(|s| fail_on_reason(fail_on, &s.placement))
    {
        return Err(CliError::FailOn(why).into());
    }
    Ok(())
}

/// `place --pod ds.yaml`: the DaemonSet's pod pinned to every node its
/// controller would run one on, each asked about in turn on one fork.
fn place_daemon(
    args: &PlaceArgs,
    cluster: &Cluster,
    template: &kplace::model::Pod,
    scheduler: &engine::Scheduler,
    workload: &kplace::source::workload::Workload,
) -> Result<()> {
    let daemon = engine::daemonset::place_daemon_pods(cluster, template, scheduler);
    let mut stdout = std::io::stdout().lock();
    let json = || {
        let mut v = report::json::daemon_plan(cluster, &daemon);
        v["workload"] = workload_json(workload);
        v
    };
    match args.output {
        Format::Json => {
            serde_json::to_writer_pretty(&mut stdout, &json())?;
            writeln!(stdout)?;
        }
        Format::Yaml => {
            let text = serde_saphyr::to_string(&json()).context("rendering YAML")?;
            writeln!(stdout, "{}", text.trim_end())?;
        }
        Format::Table => {
            writeln!(
                stdout,
                "Workload: {}, {} pods (one pod per eligible node, each pinned to its node)",
                workload.key(),
                daemon.eligibility.eligible.len()
            )?;
            write!(
                stdout,
                "{}",
                report::table::render_daemon(cluster, &daemon, args.limit)
            )?;
        }
    }
    stdout.flush()?;
    if let Some(fail_on) = args.fail_on
        && let Some(why) = daemon
            .plan
            .steps
            .iter()
            .find_map(|s| fail_on_reason(fail_on, &s.placement))
    {
        return Err(CliError::FailOn(why).into());
    }
    Ok(())
}

/// `place --replicas max`: replicas placed until the first failure, with
/// and without preemption. Progress goes to standard error on a terminal.
fn place_capacity(
    args: &PlaceArgs,
    cluster: &Cluster,
    template: &kplace::model::Pod,
    scheduler: &engine::Scheduler,
) -> Result<()> {
    use std::io::IsTerminal;
    let show = std::io::stderr().is_terminal();
    let runs: Vec<engine::replicas::Capacity> = [false, true]
        .into_iter()
        .map(|with_preemption| {
            let how = if with_preemption { "with" } else { "without" };
            let mut progress = |n: usize| {
                if show && n.is_multiple_of(25) {
                    eprint!("\r\x1b[Kkplace: counting replicas {how} preemption: {n}…");
                }
                true
            };
            engine::replicas::capacity(
                cluster,
                template,
                scheduler,
                with_preemption,
                engine::replicas::MAX_COUNTED,
                &mut progress,
            )
        })
        .collect();
    if show {
        eprint!("\r\x1b[K");
    }
    let pod = format!(
        "{}/{}",
        cluster.interner.resolve(template.namespace),
        template.name
    );
    let mut stdout = std::io::stdout().lock();
    match args.output {
        Format::Json => {
            serde_json::to_writer_pretty(&mut stdout, &report::json::capacity(&runs))?;
            writeln!(stdout)?;
        }
        Format::Yaml => {
            let text = serde_saphyr::to_string(&report::json::capacity(&runs))
                .context("rendering YAML")?;
            writeln!(stdout, "{}", text.trim_end())?;
        }
        Format::Table => write!(
            stdout,
            "{}",
            report::table::render_capacity(&pod, &runs, args.limit)
        )?,
    }
    stdout.flush()?;
    Ok(())
}

/// What the answer is about when the manifest was a workload's.
fn workload_note(cluster: &Cluster, f: &FromWorkload) -> String {
    let w = &f.workload;
    let count = match w.replicas {
        Replicas::PerNode => {
            // The DaemonSet controller makes one pod per node its pods may
            // run on, each bound there by node affinity; this asks for one.
            format!(
                "it runs one pod per eligible node (of the snapshot's {}), each pinned to its node",
                cluster.nodes.len()
            )
        }
        Replicas::Count(0) => format!(
            "{} is 0: nothing would run; answered for one pod",
            w.replicas_from
        ),
        Replicas::Count(n) => format!("{n} replica(s) ({})", w.replicas_from),
    };
    let owners: Vec<String> = f
        .owners
        .iter()
        .filter(|o| o.kind != kplace::model::policy::SelectorOwnerKind::Service)
        .map(|o| format!("{:?} {}", o.kind, o.name))
        .collect();
    let via = if owners.is_empty() {
        String::new()
    } else {
        format!(", owned by {}", owners.join(", "))
    };
    format!(
        "the pod of {} as its controller creates it{via}; {count}",
        w.key()
    )
}

fn workload_json(w: &kplace::source::workload::Workload) -> serde_json::Value {
    serde_json::json!({
        "kind": w.kind,
        "namespace": w.namespace,
        "name": w.name,
        "replicas": match w.replicas {
            Replicas::Count(n) => serde_json::json!(n),
            Replicas::PerNode => serde_json::json!("one per eligible node"),
        },
        "replicasFrom": w.replicas_from,
    })
}

/// Why the answer trips `--fail-on`, if it does. The levels are an order
/// of severity — preempt < pdb-violation < unschedulable (rejected, gated
/// and the other outcomes where the pod does not run count as
/// unschedulable) — and each level trips on itself and everything worse.
fn fail_on_reason(fail_on: FailOn, answer: &Placement) -> Option<String> {
    let outcome = answer.outcome;
    let flag = match fail_on {
        FailOn::Preempt => "preempt",
        FailOn::PdbViolation => "pdb-violation",
        FailOn::Unschedulable => "unschedulable",
    };
    if outcome.severity() >= Outcome::Unschedulable.severity() {
        return Some(format!(
            "--fail-on {flag}: the answer is {} ({})",
            outcome.as_str(),
            answer.pod
        ));
    }
    if fail_on == FailOn::Unschedulable {
        return None;
    }
    // A PDB broken by the preemption: as bad as pdb-violation.
    let broken = broken_pdbs(answer);
    let breaks = (!broken.is_empty())
        .then(|| format!("breaks PodDisruptionBudget(s) {}", broken.join(", ")));
    match (
        fail_on,
        outcome.severity() >= Outcome::Preempt.severity(),
        breaks,
    ) {
        (FailOn::Preempt, true, breaks) => Some(format!(
            "--fail-on preempt: the answer is {} ({}){}",
            outcome.as_str(),
            answer.pod,
            breaks
                .map(|b| format!("; the preemption {b}"))
                .unwrap_or_default()
        )),
        (_, _, Some(breaks)) => Some(format!(
            "--fail-on {flag}: preempting for {} {breaks}",
            answer.pod
        )),
        _ => None,
    }
}

/// The PodDisruptionBudgets the preemption breaks, each named once (several
/// victims may break the same one), in the order first met.
fn broken_pdbs(answer: &Placement) -> Vec<String> {
    let mut broken: Vec<String> = Vec::new();
    let Some(pre) = answer.preemption.as_ref() else {
        return broken;
    };
    for pdb in pre
        .termination
        .iter()
        .flat_map(|t| t.victims.iter().flat_map(|v| v.violated_pdbs.iter()))
    {
        if !broken.iter().any(|b| b == pdb) {
            broken.push(pdb.clone());
        }
    }
    broken
}

#[cfg(feature = "synth")]
pub fn synth(args: &SynthArgs) -> Result<()> {
    let spec = kplace::synth::SynthSpec {
        nodes: args.nodes,
        pods: args.pods,
        zones: args.zones,
        seed: args.seed,
    };
    // Never replace a file silently.
    for path in std::iter::once(&args.output)
        .chain(args.fitting_pod.iter())
        .chain(args.preempting_pod.iter())
    {
        if !args.force && path.symlink_metadata().is_ok() {
            return Err(CliError::BadInput(format!(
                "{}: already exists; not overwritten (use --force to replace it)",
                path.display()
            ))
            .into());
        }
    }
    let file = std::fs::File::create(&args.output)
        .map_err(|e| CliError::BadInput(format!("{}: {e}", args.output.display())))?;
    let mut w = std::io::BufWriter::new(file);
    let gz = args.output.extension().is_some_and(|e| e == "gz");
    let started = Instant::now();
    let written = if gz {
        let mut enc = flate2::write::GzEncoder::new(w, flate2::Compression::fast());
        let written = kplace::synth::write_cluster_json(&mut enc, &spec)?;
        enc.finish()?.flush()?;
        written
    } else {
        let written = kplace::synth::write_cluster_json(&mut w, &spec)?;
        w.flush()?;
        written
    };
    eprintln!(
        "wrote {} ({} nodes in {} zone(s), {} pods, {} of them pending) in {:.1} s",
        args.output.display(),
        written.nodes,
        written.zones,
        written.pods,
        written.pending,
        started.elapsed().as_secs_f64()
    );
    if written.zones < spec.zones {
        eprintln!(
            "kplace: note: {} zone(s) asked, but {} node(s) span only {}",
            spec.zones, written.nodes, written.zones
        );
    }
    if let Some(path) = &args.fitting_pod {
        std::fs::write(path, kplace::synth::fitting_pod_yaml(&spec))?;
    }
    if let Some(path) = &args.preempting_pod {
        std::fs::write(path, kplace::synth::preempting_pod_yaml(&spec))?;
    }
    Ok(())
}

pub fn tui(args: TuiArgs) -> Result<()> {
    let live = (args.context.is_some() || args.kubeconfig.is_some()).then(|| {
        kplace::source::live::Target {
            kubeconfig: args.kubeconfig.clone(),
            context: args.context.clone(),
        }
    });
    kplace::tui::run(kplace::app::Options {
        auto: !args.demo && !args.demo_replay && args.snapshot.is_none() && live.is_none(),
        demo: args.demo,
        demo_replay: args.demo_replay,
        live,
        snapshot: args.snapshot,
        theme: args.theme,
        pod: args.pod,
        namespace: args.namespace,
        scheduler_version: args.scheduler_version,
        scheduler_config: load_scheduler_config(args.scheduler_config.as_deref())?,
    })
}

/// `kplace completions SHELL`: the completion script, generated from the
/// clap definitions (so it always knows every subcommand and option).
pub fn completions(args: &CompletionsArgs, mut command: clap::Command) -> Result<()> {
    let mut out = Vec::new();
    clap_complete::generate(args.shell, &mut command, "kplace", &mut out);
    let mut stdout = std::io::stdout().lock();
    stdout.write_all(&out)?;
    stdout.flush()?;
    Ok(())
}

/// `kplace man`: the manual page (roff), generated from the clap definitions.
pub fn man(command: clap::Command) -> Result<()> {
    let mut out = Vec::new();
    clap_mangen::Man::new(command).render(&mut out)?;
    let mut stdout = std::io::stdout().lock();
    stdout.write_all(&out)?;
    stdout.flush()?;
    Ok(())
}
