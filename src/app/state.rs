//! The app state and how events change it. No drawing here: `crate::ui`
//! reads this state and draws it. Key and mouse handling is in `input`.

mod input;

use std::sync::Arc;
use std::time::{Duration, Instant};

use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers, MouseEvent, MouseEventKind};
use rustc_hash::FxHashMap;

use crate::engine::{Outcome, Profiles, Scheduler, Version, VersionChoice};
use crate::model::{Cluster, PodId};
use crate::source::live::LiveOptions;
use crate::source::version::{ServerVersion, choose};

use super::Options;
use super::cursor::Cursor;
use super::feed::Feed;
use super::loader::{Loaded, Loading, Opened, Source};
use super::palette::{Command, Palette};
use super::report::PlacementReport;
use super::skew::{self, SkewReport};
use super::table::{self, NODE_SORTS, POD_SORTS, TableView};
use super::theme::{ColorDepth, DEFAULT_THEME, Theme, ThemeCatalog, no_color_requested};
use super::tiers::{self, Headroom};
use super::view::View;
use super::worker::{WorkerEvent, Workers};

/// Mouse wheel steps move the selection by this many rows.
const WHEEL_ROWS: isize = 3;

/// Views `esc` can go back through (each at most once, the latest visit).
pub const HISTORY: usize = 10;

pub enum Phase {
    Loading(Loading),
    Failed { source: String, error: String },
    Ready(Box<Session>),
}

#[derive(Default)]
pub enum Overlay {
    #[default]
    None,
    Help,
    Palette(Palette),
    /// Describe (`d`) or YAML (`y`) of a pod or node.
    Inspect(Box<super::inspect::Inspect>),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Status {
    pub text: String,
    pub is_error: bool,
}

/// What the pending-pod tally knows about one pod.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PendingOutcome {
    pub outcome: Outcome,
    pub node: Option<String>,
}

/// Counts per outcome over the pending pods, and how many are still computing.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct OutcomeCounts {
    pub scheduled: usize,
    pub preempt: usize,
    pub unschedulable: usize,
    pub computing: usize,
}

/// Everything that exists once a cluster is loaded.
pub struct Session {
    pub loaded: Loaded,
    workers: Workers,
    /// Why the engine's background work stopped (a thread that could not
    /// start or died): shown in place of a "computing…" that would never end.
    pub worker_failure: Option<String>,
    pub outcomes: FxHashMap<PodId, PendingOutcome>,
    /// The pending pods the Overview lists: all, or those of `namespace`.
    pub pending_rows: Vec<PodId>,
    /// Selection in the Overview's pending list (an index into `pending_rows`).
    pub pending_cursor: Cursor,
    /// Scroll of the Overview's node bars.
    pub node_bars: Cursor,
    /// Scroll of Skew's fleet pane (the mouse wheel over it).
    pub fleet_scroll: Cursor,
    pub skew_filter: String,
    /// Indices into `derived.skew_subjects` matching the filter.
    pub skew_rows: Vec<usize>,
    pub skew_cursor: Cursor,
    /// Which of the subject's spread constraints is shown (`t` cycles).
    pub skew_key: usize,
    /// The report shown (the previous one while the next is computed).
    pub skew: Option<SkewReport>,
    /// Computes Skew reports off the UI thread, newest selection first.
    skew_job: super::job::Job<skew::SkewRequest, (u64, SkewReport)>,
    /// The request whose report is awaited (`None`: the one shown is current).
    skew_waiting: Option<u64>,
    skew_seq: u64,
    pub tier_cursor: Cursor,
    /// The selected tier's headroom, worked out when the Tiers view first
    /// draws it (it reads every pod of every node: a live batch's swap
    /// would otherwise pay for it on the UI thread in every view).
    headroom: std::cell::OnceCell<Option<Headroom>>,
    pub nodes: TableView,
    pub pods: TableView,
    /// `:ns NAME`: the namespaced lists (Overview's pending pods, Skew's
    /// workloads, Pods) show only this namespace; `None`: every namespace.
    pub namespace: Option<String>,
    pub placement_pod: Option<PodId>,
    /// `/` in Placement: a search of the answer's text.
    pub placement_search: super::inspect::TextSearch,
    pub placement: Option<Arc<PlacementReport>>,
    pub placement_scroll: Cursor,
    placement_cache: FxHashMap<PodId, Arc<PlacementReport>>,
    /// "How to make it fit" for the pod in Placement: the search's progress
    /// or its remedies; finished searches are kept per pod.
    pub remedies: Option<Arc<super::remedies::RemedyPanel>>,
    remedies_cache: FxHashMap<PodId, Arc<super::remedies::RemedyPanel>>,
    /// The remedy enter opens in What-if (`[` and `]` choose).
    pub remedy_selected: usize,
    /// The pod Placement showed before the cluster changed, when it no
    /// longer exists (deleted live, or not yet created at this moment).
    pub placement_gone: Option<String>,
    /// The What-if view: draft, answers, replicas, disruptions.
    pub whatif: super::whatif::WhatIf,
    /// The release and profiles every answer of this session is asked of.
    pub scheduler: Scheduler,
    /// After a release switch: the Placement shown before it and the release
    /// that answered it, to say what changed once the new answer arrives.
    version_before: Option<(Switch, Arc<PlacementReport>)>,
    /// What the switch changed for the pod in Placement (taken by the app).
    version_note: Option<String>,
    /// Which of the view caches built after the first screen this session
    /// has taken in (its tables filled, its selections placed).
    caches_taken: CachesTaken,
}

/// See [`Session::take_built_caches`].
#[derive(Clone, Copy, Debug, Default)]
struct CachesTaken {
    pods: bool,
    fleet: bool,
    tiers: bool,
}

impl Session {
    fn new(loaded: Loaded, scheduler: Scheduler) -> Session {
        let mut s = Session::unfilled(loaded, scheduler);
        s.refresh_nodes();
        s.take_built_caches();
        s
    }

    /// A session whose tables are not filled yet: [`Session::new`] fills
    /// them, or a swap fills them once, from the session before it
    /// ([`Session::keep_place_from`]), instead of twice.
    fn unfilled(loaded: Loaded, scheduler: Scheduler) -> Session {
        let workers = Workers::start(
            loaded.cluster.clone(),
            loaded.derived.pending.clone(),
            scheduler.clone(),
        );
        let mut whatif = super::whatif::WhatIf::default();
        whatif.scheduler = scheduler.clone();
        Session {
            workers,
            worker_failure: None,
            outcomes: FxHashMap::default(),
            pending_rows: loaded.derived.pending.clone(),
            pending_cursor: Cursor::default(),
            node_bars: Cursor::default(),
            fleet_scroll: Cursor::default(),
            skew_filter: String::new(),
            skew_rows: Vec::new(),
            skew_cursor: Cursor::default(),
            skew_key: 0,
            skew: None,
            skew_job: skew::skew_job(),
            skew_waiting: None,
            skew_seq: 0,
            tier_cursor: Cursor::default(),
            headroom: Default::default(),
            nodes: TableView::default(),
            pods: TableView::default(),
            namespace: None,
            placement_pod: None,
            placement_search: Default::default(),
            placement: None,
            placement_scroll: Cursor::default(),
            placement_cache: FxHashMap::default(),
            remedies: None,
            remedies_cache: FxHashMap::default(),
            remedy_selected: 0,
            placement_gone: None,
            whatif,
            scheduler,
            version_before: None,
            version_note: None,
            caches_taken: CachesTaken::default(),
            loaded,
        }
    }

    /// Records every view cache as taken in: a swap filled every table
    /// and placed every selection from the session before it (and built
    /// the caches it read), which a later arrival must not reset.
    pub(super) fn took_every_cache(&mut self) {
        self.caches_taken = CachesTaken {
            pods: true,
            fleet: true,
            tiers: true,
        };
    }

    /// Takes in each view cache built since the last call (on a first load
    /// they arrive after the first screen): fills its table and puts its
    /// selection on the starting row. Returns whether any arrived.
    fn take_built_caches(&mut self) -> bool {
        let mut arrived = false;
        let d = &self.loaded.derived;
        if !self.caches_taken.pods && d.pods().is_some() {
            self.caches_taken.pods = true;
            self.refresh_pods();
            arrived = true;
        }
        let d = &self.loaded.derived;
        if !self.caches_taken.fleet
            && let Some(fleet) = d.fleet()
        {
            self.caches_taken.fleet = true;
            // Start on the biggest workload with a hard spread constraint:
            // the one whose skew can keep pods pending.
            let cluster = &self.loaded.cluster;
            let hard = |w: &super::derived::Workload| {
                w.sample_pod().is_some_and(|p| {
                    cluster.pod(p).spread_constraints.iter().any(|c| {
                        c.when_unsatisfiable == crate::model::pod::WhenUnsatisfiable::DoNotSchedule
                    })
                })
            };
            // (Unless a filter typed while it was built left other rows.)
            if self.skew_filter.is_empty() && self.namespace.is_none() {
                self.skew_cursor.selected = fleet.workloads.iter().position(hard).unwrap_or(0);
            }
            self.refresh_skew_rows();
            arrived = true;
        }
        let d = &self.loaded.derived;
        if !self.caches_taken.tiers
            && let Some(tiers) = d.tiers()
        {
            self.caches_taken.tiers = true;
            // Start the Tiers view on the default tier, if any, else the top.
            self.tier_cursor.selected = tiers
                .rows
                .iter()
                .position(|t| t.global_default)
                .unwrap_or(0);
            self.refresh_headroom();
            arrived = true;
        }
        arrived
    }

    /// Whether a view cache is still being built (its view says so).
    pub fn caches_building(&self) -> bool {
        !self.loaded.derived.complete()
    }

    pub fn cluster(&self) -> &Cluster {
        &self.loaded.cluster
    }

    /// The outcomes of the pending pods listed (those of the namespace
    /// shown, under `:ns`), so the counts describe the list below them.
    pub fn counts(&self) -> OutcomeCounts {
        let mut c = OutcomeCounts::default();
        for id in &self.pending_rows {
            match self.outcomes.get(id).map(|o| o.outcome) {
                Some(Outcome::Scheduled) => c.scheduled += 1,
                Some(Outcome::Preempt) => c.preempt += 1,
                Some(
                    Outcome::Unschedulable
                    | Outcome::Rejected
                    | Outcome::Gated
                    | Outcome::WaitingForClaims
                    | Outcome::NoProfile,
                ) => c.unschedulable += 1,
                None => c.computing += 1,
            }
        }
        c
    }

    /// Whether a Placement answer is on its way.
    pub fn placement_computing(&self) -> bool {
        self.placement_pod.is_some() && self.placement.is_none() && self.worker_failure.is_none()
    }

    /// The remedy search for the pod in Placement is still running.
    pub fn remedies_computing(&self) -> bool {
        let wanted = self.placement.as_ref().is_some_and(|r| {
            matches!(
                r.outcome,
                crate::engine::Outcome::Unschedulable | crate::engine::Outcome::Preempt
            )
        });
        wanted && self.remedies.as_ref().is_none_or(|p| p.progress.is_some())
    }

    pub(super) fn refresh_nodes(&mut self) {
        let d = &self.loaded.derived;
        table::refresh_nodes(&mut self.nodes, &d.nodes.rows, &d.nodes.orders);
    }

    /// Refilters the pod table (nothing before it is built).
    pub(super) fn refresh_pods(&mut self) {
        let Some(table) = self.loaded.derived.pods() else {
            return;
        };
        table::refresh_pods(&mut self.pods, table, self.namespace.as_deref());
    }

    /// The fleet's skew alerts in the namespace shown (`:ns`), in the
    /// fleet's order.
    pub fn fleet_alerts<'f>(&self, fleet: &'f super::derived::Fleet) -> Vec<&'f skew::SkewAlert> {
        fleet
            .skew_alerts
            .iter()
            .filter(|a| {
                fleet
                    .workloads
                    .get(a.workload)
                    .is_none_or(|w| self.in_namespace(&w.label))
            })
            .collect()
    }

    /// Whether `key` (`namespace/name`) is in the namespace shown.
    pub fn in_namespace(&self, key: &str) -> bool {
        self.namespace
            .as_deref()
            .is_none_or(|ns| key.split_once('/').is_some_and(|(n, _)| n == ns))
    }

    pub(super) fn refresh_pending(&mut self) {
        let cluster = &self.loaded.cluster;
        let ns = self.namespace.as_deref();
        self.pending_rows = self
            .loaded
            .derived
            .pending
            .iter()
            .copied()
            .filter(|&id| {
                ns.is_none_or(|ns| cluster.interner.resolve(cluster.pod(id).namespace) == ns)
            })
            .collect();
        self.pending_cursor.clamp(self.pending_rows.len());
    }

    pub(super) fn refresh_skew_rows(&mut self) {
        let Some(fleet) = self.loaded.derived.fleet() else {
            return;
        };
        let mut rows = table::fuzzy_rank_indices(&fleet.skew_labels, &self.skew_filter);
        rows.retain(|&i| self.in_namespace(&fleet.skew_labels[i]));
        self.skew_rows = rows;
        self.skew_cursor.clamp(self.skew_rows.len());
        self.refresh_skew();
    }

    /// What the Skew view's selection is.
    pub fn selected_subject(&self) -> Option<&skew::Subject> {
        let i = self.skew_rows.get(self.skew_cursor.selected)?;
        self.loaded.derived.fleet()?.skew_subjects.get(*i)
    }

    /// The workload selected in Skew (an index into `derived.workloads`).
    pub fn selected_workload(&self) -> Option<usize> {
        match self.selected_subject()? {
            skew::Subject::Workload(w) => Some(*w),
            skew::Subject::Pending(_) => None,
        }
    }

    /// Asks for the Skew report of the selection off the UI thread (the
    /// engine's Filter pass over every node); the newest request wins.
    pub(super) fn refresh_skew(&mut self) {
        let Some(subject) = self.selected_subject().cloned() else {
            self.skew = None;
            self.skew_waiting = None;
            return;
        };
        let cluster = self.loaded.cluster.clone();
        // Built: a subject is selected.
        let fleet = self.loaded.derived.fleet_now();
        let Some((name, note, pod)) = skew::subject_pod(&cluster, &subject, &fleet.workloads)
        else {
            self.skew = Some(SkewReport {
                subject: fleet.skew_labels[self.skew_rows[self.skew_cursor.selected]].to_string(),
                pod_note: "the workload has no pod in the snapshot to ask about".into(),
                ..Default::default()
            });
            self.skew_waiting = None;
            return;
        };
        self.skew_seq += 1;
        self.skew_waiting = Some(self.skew_seq);
        self.skew_job.request(skew::SkewRequest {
            seq: self.skew_seq,
            cluster,
            subject: name,
            pod_note: note,
            pod,
            scheduler: self.scheduler.clone(),
            index: self.skew_key,
        });
    }

    /// Whether the Skew report shown is older than the selection.
    pub fn skew_computing(&self) -> bool {
        self.skew_waiting.is_some()
    }

    /// Takes a finished Skew report; returns whether one arrived. A job
    /// that cannot answer says why in the report's place.
    fn pump_skew(&mut self) -> bool {
        let Some(waiting) = self.skew_waiting else {
            return false;
        };
        while let Some((seq, report)) = self.skew_job.try_recv() {
            if seq == waiting {
                self.skew = Some(report);
                self.skew_waiting = None;
                return true;
            }
        }
        if let Some(failure) = self.skew_job.failure() {
            let subject = self.skew.take().map(|r| r.subject).unwrap_or_default();
            self.skew = Some(SkewReport {
                subject,
                pod_note: format!("cannot answer: {failure}"),
                ..Default::default()
            });
            self.skew_waiting = None;
            return true;
        }
        false
    }

    /// Forgets the headroom shown: the tier or the cluster changed.
    pub(super) fn refresh_headroom(&mut self) {
        self.headroom = Default::default();
    }

    /// The selected tier's headroom (`None` while the tiers are built).
    pub fn headroom(&self) -> Option<&Headroom> {
        self.headroom
            .get_or_init(|| {
                tiers::headroom(
                    &self.loaded.cluster,
                    &self.loaded.derived,
                    self.tier_cursor.selected,
                )
            })
            .as_ref()
    }

    pub(super) fn open_placement(&mut self, pod: PodId) {
        self.placement_pod = Some(pod);
        self.placement_scroll = Cursor::default();
        self.placement_search = Default::default();
        self.placement = self.placement_cache.get(&pod).cloned();
        self.remedies = self.remedies_cache.get(&pod).cloned();
        self.remedy_selected = 0;
        // A remedy search cut short by another pod is run again.
        let search_missing = self.remedies.is_none()
            && self.placement.as_ref().is_some_and(|r| {
                matches!(
                    r.outcome,
                    crate::engine::Outcome::Unschedulable | crate::engine::Outcome::Preempt
                )
            });
        if self.placement.is_none() || search_missing {
            self.workers.request_placement(pod);
        }
    }

    /// Answers as another release from now on: the tally, the Placement and
    /// the what-if answers are computed again.
    fn set_scheduler(&mut self, scheduler: Scheduler) {
        if self.scheduler == scheduler {
            return;
        }
        let before = Switch {
            was: self.scheduler.clone(),
            now: scheduler.clone(),
        };
        self.scheduler = scheduler.clone();
        self.workers = Workers::start(
            self.loaded.cluster.clone(),
            self.loaded.derived.pending.clone(),
            scheduler.clone(),
        );
        self.worker_failure = None;
        self.outcomes.clear();
        self.placement_cache.clear();
        self.remedies_cache.clear();
        self.remedies = None;
        self.version_before = self.placement.take().map(|r| (before, r));
        if let Some(pod) = self.placement_pod {
            self.workers.request_placement(pod);
        }
        let cluster = self.loaded.cluster.clone();
        self.whatif.set_scheduler(&cluster, scheduler);
        self.refresh_skew();
    }

    /// Applies worker results; returns whether anything changed.
    fn pump(&mut self) -> bool {
        let mut changed = false;
        while let Some(event) = self.workers.try_recv() {
            self.apply(event);
            changed = true;
        }
        if self.worker_failure.is_none() {
            self.worker_failure = self.workers.failure();
            changed |= self.worker_failure.is_some();
        }
        changed |= self.whatif.pump(&self.loaded.cluster.clone());
        changed |= self.pump_skew();
        changed |= self.take_built_caches();
        changed
    }

    fn apply(&mut self, event: WorkerEvent) {
        match event {
            WorkerEvent::Placement { pod, report } => {
                if self.placement_pod == Some(pod) {
                    if let Some((was, before)) = self.version_before.take() {
                        self.version_note = Some(version_change(was, &before, &report));
                    }
                    self.placement = Some(report.clone());
                }
                self.placement_cache.insert(pod, report);
            }
            WorkerEvent::Outcome { pod, outcome, node } => {
                self.outcomes.insert(pod, PendingOutcome { outcome, node });
            }
            WorkerEvent::Remedies { pod, panel, done } => {
                if self.placement_pod == Some(pod) {
                    self.remedies = Some(panel.clone());
                }
                if done {
                    self.remedies_cache.insert(pod, panel);
                }
            }
        }
    }

    fn busy(&self) -> bool {
        let tallying = !self.workers.background_stopped()
            && self.outcomes.len() < self.loaded.derived.pending.len();
        self.placement_computing()
            || self.remedies_computing()
            || tallying
            || self.whatif.busy()
            || self.skew_computing()
            || self.caches_building()
    }

    /// The pod under the selection of the current list, if it is a pod list.
    pub(crate) fn selected_pod(&self, view: View) -> Option<PodId> {
        match view {
            View::Pods => self.pods.selected_row(),
            View::Placement => self.placement_pod,
            View::Skew => match self.selected_subject()? {
                skew::Subject::Pending(id) => Some(*id),
                skew::Subject::Workload(_) => None,
            },
            View::Overview => self.pending_rows.get(self.pending_cursor.selected).copied(),
            _ => None,
        }
    }
}

/// `UNSCHEDULABLE` or `SCHEDULED → node-a`.
fn verdict(r: &PlacementReport) -> String {
    match &r.node {
        Some(n) => format!("{} → {n}", r.outcome.as_str().to_uppercase()),
        None => r.outcome.as_str().to_uppercase(),
    }
}

/// A switch of release or profiles, remembered until the Placement shown
/// is answered again.
struct Switch {
    was: Scheduler,
    now: Scheduler,
}

impl Switch {
    /// "kube-scheduler v1.32 (was v1.34)", or for a profile switch "the
    /// profiles of sched.yaml (was the default profile)".
    fn describe(&self) -> String {
        let (was, now) = (self.was.version.version, self.now.version.version);
        if was != now {
            format!("kube-scheduler {now} (was {was})")
        } else {
            format!(
                "{} (was {})",
                self.now.describe_profiles(),
                self.was.describe_profiles()
            )
        }
    }
}

/// What a release or profile switch changed for the pod in Placement.
fn version_change(switch: Switch, before: &PlacementReport, after: &PlacementReport) -> String {
    let what = switch.describe();
    if before.pod != after.pod {
        return format!("now answering as {what}");
    }
    let (b, a) = (verdict(before), verdict(after));
    if b == a {
        format!("now answering as {what}: {} unchanged, {a}", after.pod)
    } else {
        format!(
            "now answering as {what}: {} changed: {a} (was {b})",
            after.pod
        )
    }
}

pub struct App {
    pub phase: Phase,
    pub view: View,
    history: Vec<View>,
    pub overlay: Overlay,
    /// Typing into the current view's filter.
    pub filtering: bool,
    /// Where the filter's cursor is (a character index).
    pub filter_cursor: usize,
    pub theme: Theme,
    pub themes: ThemeCatalog,
    pub status: Option<Status>,
    /// Why the demo opened instead of a live cluster.
    pub demo_note: Option<String>,
    pub should_quit: bool,
    /// Animation frame for spinners.
    pub tick: u64,
    /// `NAMESPACE/NAME` whose Placement opens once a cluster is shown:
    /// `--pod` at load, or a replay jump when its moment is built.
    pub(crate) open_pod: Option<String>,
    /// `-n NAMESPACE`, applied once a cluster is shown.
    pub(crate) open_namespace: Option<String>,
    /// Live cluster or recording: where the next snapshots come from.
    pub feed: Option<Feed>,
    /// First line of the help overlay shown (when it does not fit).
    pub help_scroll: u16,
    /// `--kubeconfig`, for `:ctx`.
    pub(crate) kubeconfig: Option<std::path::PathBuf>,
    /// `:ctx NAME` connecting: the context and its load. The cluster shown
    /// stays until it is ready; a failure leaves it.
    pub(crate) context_switch: Option<(String, Loading)>,
    /// The kube-scheduler release every answer is asked of, and why. Chosen
    /// from the source when it opens (or changes) unless `scheduler_flag`.
    pub scheduler: VersionChoice,
    /// `--scheduler-version` or `:version X.Y`: overrides the source.
    pub scheduler_flag: Option<Version>,
    /// Why the server's own version is not used (`/version` failed), if so.
    pub scheduler_note: Option<String>,
    /// `--scheduler-config` or `:config PATH`: the configuration's profiles
    /// (merged again with each release's defaults); `None`: the default profile.
    pub scheduler_config: Option<Arc<Profiles>>,
}

impl App {
    /// Starts loading the source the options name.
    pub fn new(options: Options) -> App {
        let source = if let Some(path) = &options.snapshot {
            Source::File(path.clone())
        } else if options.demo_replay {
            Source::DemoTimeline
        } else if options.demo {
            Source::Demo
        } else if options.live.is_some() || options.auto {
            Source::Live {
                options: LiveOptions {
                    target: options.live.clone().unwrap_or_default(),
                    ..Default::default()
                },
                fallback: options.auto,
            }
        } else {
            Source::Demo
        };
        let mut app = App::bare(&options);
        app.phase = Phase::Loading(Loading::start(source));
        app
    }

    /// An app on a cluster already in memory (benchmarks, tests).
    pub fn with_cluster(cluster: Cluster, name: &str, options: Options) -> App {
        App::with_loaded(
            Loaded::new(cluster, name.to_string(), Duration::ZERO),
            options,
        )
    }

    /// An app on a loaded cluster, its view caches as they are (tests).
    pub fn with_loaded(loaded: Loaded, options: Options) -> App {
        let mut app = App::bare(&options);
        app.become_ready(Opened {
            loaded,
            feed: None,
            note: None,
        });
        app
    }

    fn bare(options: &Options) -> App {
        let themes = ThemeCatalog::load();
        let mut status = themes.problems.first().map(|p| Status {
            text: p.clone(),
            is_error: true,
        });
        let theme = if no_color_requested() {
            Theme::monochrome()
        } else {
            match themes.resolve(options.theme.as_deref().unwrap_or(DEFAULT_THEME)) {
                Ok(t) => t,
                Err(e) => {
                    status = Some(Status {
                        text: e,
                        is_error: true,
                    });
                    Theme::default_theme()
                }
            }
            .for_depth(ColorDepth::from_env())
        };
        App {
            phase: Phase::Failed {
                source: String::new(),
                error: String::new(),
            },
            view: View::Overview,
            history: Vec::new(),
            overlay: Overlay::None,
            filtering: false,
            filter_cursor: 0,
            theme,
            themes,
            status,
            demo_note: None,
            should_quit: false,
            tick: 0,
            open_pod: match (&options.pod, &options.namespace) {
                (Some(pod), Some(ns)) if !pod.contains('/') => Some(format!("{ns}/{pod}")),
                (pod, _) => pod.clone(),
            },
            open_namespace: options.namespace.clone(),
            feed: None,
            help_scroll: 0,
            kubeconfig: options.live.as_ref().and_then(|t| t.kubeconfig.clone()),
            context_switch: None,
            scheduler: match options.scheduler_version {
                Some(v) => VersionChoice::flag(v),
                None => VersionChoice::default_newest(),
            },
            scheduler_flag: options.scheduler_version,
            scheduler_note: None,
            scheduler_config: options.scheduler_config.clone(),
        }
    }

    pub fn session(&self) -> Option<&Session> {
        match &self.phase {
            Phase::Ready(s) => Some(s),
            _ => None,
        }
    }

    pub(crate) fn session_mut(&mut self) -> Option<&mut Session> {
        match &mut self.phase {
            Phase::Ready(s) => Some(s),
            _ => None,
        }
    }

    /// What the source says about its server's release: live, `/version`;
    /// a recording, what `kplace record` stored.
    fn server_version(feed: Option<&super::feed::Feed>, cluster: &Cluster) -> ServerVersion {
        match feed.and_then(super::feed::Feed::live) {
            Some(live) => live.server_version(),
            None => ServerVersion::of_recording(cluster),
        }
    }

    /// Chooses the release for `cluster` (from `feed`); says why when the
    /// server's own version could not be used.
    fn choose_scheduler(
        &mut self,
        feed: Option<&super::feed::Feed>,
        cluster: &Cluster,
    ) -> VersionChoice {
        let server = Self::server_version(feed, cluster);
        let choice = choose(self.scheduler_flag, &server, cluster);
        let note = server.note(&choice);
        if note.is_some() && note != self.scheduler_note {
            self.set_info(note.clone().unwrap_or_default());
        }
        self.scheduler_note = note;
        self.scheduler = choice.clone();
        choice
    }

    /// The engine's input for a release: that release with the profiles in
    /// force (the configuration's, merged for it, or its default profile).
    /// A configuration the release cannot merge falls back to the default
    /// profile; `:config` reports that when it loads one.
    pub(crate) fn engine_scheduler(&self, choice: VersionChoice) -> Scheduler {
        Scheduler::configured(choice.clone(), self.scheduler_config.as_deref())
            .unwrap_or_else(|_| Scheduler::new(choice))
    }

    /// `:config PATH` answers with that KubeSchedulerConfiguration's
    /// profiles from now on; `:config default` goes back to the default
    /// profile; `:config` says which profiles answer.
    pub fn set_scheduler_config(&mut self, arg: &str) {
        let arg = arg.trim();
        let config = match arg {
            "" => {
                let scheduler = self.engine_scheduler(self.scheduler.clone());
                let text = format!(
                    "answering with {} (:config PATH loads a KubeSchedulerConfiguration, :config default goes back)",
                    scheduler.describe_profiles()
                );
                self.set_info(text);
                return;
            }
            "default" => None,
            path => {
                let path = match (path.strip_prefix("~/"), dirs::home_dir()) {
                    (Some(rest), Some(home)) => home.join(rest),
                    _ => std::path::PathBuf::from(path),
                };
                match crate::source::scheduler_config::load(&path, self.scheduler.version) {
                    Ok(p) => Some(Arc::new(p)),
                    Err(e) => {
                        self.set_error(format!(":config: {e}"));
                        return;
                    }
                }
            }
        };
        self.scheduler_config = config;
        let scheduler = self.engine_scheduler(self.scheduler.clone());
        let described = scheduler.describe_profiles();
        if let Some(s) = self.session_mut() {
            s.set_scheduler(scheduler.clone());
        }
        if let Some(r) = self.feed.as_mut().and_then(super::feed::Feed::replay_mut)
            && r.trust.is_some()
        {
            r.start_trust_check(&scheduler);
        }
        self.set_info(format!(
            "now answering as {described}: every answer is computed again"
        ));
    }

    /// Moves what a release switch changed into the status line.
    fn take_version_note(&mut self) {
        if let Some(note) = self.session_mut().and_then(|s| s.version_note.take()) {
            self.set_info(note);
        }
    }

    fn become_ready(&mut self, opened: Opened) {
        let choice = self.choose_scheduler(opened.feed.as_ref(), &opened.loaded.cluster);
        let scheduler = self.engine_scheduler(choice);
        self.phase = Phase::Ready(Box::new(Session::new(opened.loaded, scheduler)));
        self.feed = opened.feed;
        if opened.note.is_some() {
            self.demo_note = opened.note;
        }
        self.open_waiting_pod();
    }

    /// Opens the Placement `open_pod` asks for in the cluster shown; a
    /// pod that is not there is named in the status line.
    pub(crate) fn open_waiting_pod(&mut self) {
        if let Some(ns) = self.open_namespace.take() {
            self.set_namespace(Some(ns));
        }
        let Some(key) = self.open_pod.take() else {
            return;
        };
        let Some(s) = self.session() else { return };
        let cluster = s.cluster();
        let found = match key.split_once('/') {
            Some((ns, name)) => cluster.find_pod(ns, name),
            // A name alone opens the one pod of that name, if there is one.
            None => {
                let mut named = cluster.pods_named(&key);
                named.next().filter(|_| named.next().is_none())
            }
        };
        match found {
            Some(pod) => self.show_placement(pod),
            None => {
                let name = key.rsplit('/').next().unwrap_or(&key);
                let hint = cluster
                    .pods_named_list(name, 4)
                    .map_or("give NAMESPACE/NAME".to_string(), |list| {
                        format!("pods of that name: {list}")
                    });
                let shown = s.loaded.name.clone();
                self.set_error(format!("--pod {key}: no such pod in {shown} ({hint})"));
            }
        }
    }

    /// Applies background results (load, engine answers). Call before
    /// drawing; returns whether anything changed.
    pub fn pump(&mut self) -> bool {
        if let Phase::Loading(loading) = &self.phase {
            return match loading.poll() {
                None => false,
                Some(result) => {
                    self.finish_loading(result);
                    true
                }
            };
        }
        let mut changed = self.pump_context_switch(None);
        changed |= self.pump_feed();
        changed |= self.feed.as_mut().is_some_and(Feed::take_repaint);
        changed |= self.session_mut().is_some_and(|s| s.pump());
        if let Some(note) = self.session_mut().and_then(|s| s.whatif.take_status_note()) {
            self.set_info(note);
            changed = true;
        }
        self.take_version_note();
        changed
    }

    /// One turn of the event loop without input: takes whatever background
    /// work finished (answers, the trust check, a comparison, a new moment
    /// or live snapshot) and says whether a frame must be drawn: something
    /// arrived, or work in flight needs its spinner. The loop asks this at
    /// least every frame interval, so a result shows without a key press.
    pub fn frame_due(&mut self) -> bool {
        let arrived = self.pump();
        arrived || self.busy()
    }

    /// `:version X.Y` answers as that release from now on; `:version auto`
    /// goes back to the one the source reports; `:version` says which and why.
    pub fn set_scheduler_version(&mut self, arg: &str) {
        let arg = arg.trim();
        let flag = match arg {
            "" => {
                let text = format!(
                    "answering as kube-scheduler {}: {} (:version X.Y switches, :version auto follows the cluster)",
                    self.scheduler.version,
                    self.scheduler.reason()
                );
                self.set_info(text);
                return;
            }
            "auto" => None,
            _ => match arg.parse::<Version>() {
                Ok(v) => Some(v),
                Err(e) => {
                    self.set_error(format!(":version {arg}: {e}"));
                    return;
                }
            },
        };
        let was = self.scheduler.version;
        self.scheduler_flag = flag;
        let choice = match self.session() {
            Some(s) => {
                let cluster = s.loaded.cluster.clone();
                let feed = self.feed.take();
                let c = self.choose_scheduler(feed.as_ref(), &cluster);
                self.feed = feed;
                c
            }
            None => {
                self.scheduler =
                    flag.map_or_else(VersionChoice::default_newest, VersionChoice::flag);
                self.scheduler.clone()
            }
        };
        let now = choice.version;
        let scheduler = self.engine_scheduler(choice.clone());
        if let Some(s) = self.session_mut() {
            s.set_scheduler(scheduler.clone());
        }
        if let Some(r) = self.feed.as_mut().and_then(super::feed::Feed::replay_mut)
            && r.trust.is_some()
        {
            r.start_trust_check(&scheduler);
        }
        if now == was {
            self.set_info(format!(
                "answering as kube-scheduler {now} (unchanged): {}",
                choice.reason()
            ));
        } else {
            self.set_info(format!("now answering as kube-scheduler {now} (was {was})"));
        }
    }

    /// Takes the `:ctx NAME` connection once it is done (waiting up to
    /// `wait` for it): its cluster replaces the one shown, or its error is
    /// said and the cluster shown stays. Returns whether it finished.
    fn pump_context_switch(&mut self, wait: Option<Duration>) -> bool {
        let Some((_, loading)) = &self.context_switch else {
            return false;
        };
        let result = match wait {
            Some(w) => loading.wait(w),
            None => loading.poll(),
        };
        let Some(result) = result else { return false };
        let Some((name, _)) = self.context_switch.take() else {
            return false;
        };
        match result {
            Ok(opened) => {
                let nodes = opened.loaded.cluster.nodes.len();
                let pods = opened.loaded.cluster.pods.len();
                self.become_ready(opened);
                self.set_info(format!(
                    "context {name}: {nodes} nodes, {pods} pods (:ctx lists the contexts)"
                ));
            }
            Err(e) => self.set_error(format!(":ctx {name}: {e}; the cluster shown stays")),
        }
        true
    }

    /// Swaps in a newer cluster from the live cluster or the recording.
    fn pump_feed(&mut self) -> bool {
        let Some(next) = self.feed.as_mut().and_then(Feed::poll) else {
            return false;
        };
        self.replace_cluster(next);
        true
    }

    /// Shows `next` instead of the current cluster, keeping the view, the
    /// selections, filters, the pod in Placement and the what-if draft.
    /// Live updates and replay moments come through here (public for the
    /// benchmark of its cost on the UI thread).
    pub fn replace_cluster(&mut self, mut next: Loaded) {
        let Phase::Ready(old) = std::mem::replace(
            &mut self.phase,
            Phase::Failed {
                source: String::new(),
                error: String::new(),
            },
        ) else {
            return;
        };
        if next.name.is_empty() {
            next.name = old.loaded.name.clone();
        }
        let feed = self.feed.take();
        let choice = self.choose_scheduler(feed.as_ref(), &next.cluster);
        self.feed = feed;
        let mut session = Session::unfilled(next, self.engine_scheduler(choice));
        session.keep_place_from(*old);
        if let Some(r) = self.feed.as_mut().and_then(Feed::replay_mut) {
            r.compare_with(&session.loaded);
        }
        self.phase = Phase::Ready(Box::new(session));
        if !self.replay().is_some_and(|r| r.catching_up()) {
            self.open_waiting_pod();
        }
    }

    fn finish_loading(&mut self, result: Result<Opened, String>) {
        match result {
            Ok(opened) => self.become_ready(opened),
            Err(error) => {
                let source = match &self.phase {
                    Phase::Loading(l) => l.name.clone(),
                    _ => String::new(),
                };
                self.phase = Phase::Failed { source, error };
            }
        }
    }

    /// Whether a load or an engine answer is still on its way.
    pub fn busy(&self) -> bool {
        match &self.phase {
            Phase::Loading(_) => true,
            Phase::Failed { .. } => false,
            Phase::Ready(s) => {
                s.busy()
                    || self.feed.as_ref().is_some_and(Feed::busy)
                    || self.context_switch.is_some()
            }
        }
    }

    /// Blocks until nothing is in flight or `timeout` passes (tests,
    /// benchmarks). Returns whether it settled.
    pub fn wait_until_idle(&mut self, timeout: Duration) -> bool {
        let deadline = Instant::now() + timeout;
        loop {
            if let Phase::Loading(loading) = &self.phase {
                let left = deadline.saturating_duration_since(Instant::now());
                if let Some(result) = loading.wait(left) {
                    self.finish_loading(result);
                }
            }
            if self.context_switch.is_some() {
                let left = deadline
                    .saturating_duration_since(Instant::now())
                    .min(Duration::from_millis(20));
                self.pump_context_switch(Some(left));
            }
            if self.pump_feed() {
                continue;
            }
            if let Phase::Ready(s) = &mut self.phase {
                s.pump();
                if !s.busy() && self.feed.as_ref().is_some_and(Feed::busy) {
                    std::thread::sleep(Duration::from_millis(5));
                } else if s.busy() {
                    let left = deadline
                        .saturating_duration_since(Instant::now())
                        .min(Duration::from_millis(20));
                    if let Some(e) = s.workers.recv_timeout(left) {
                        s.apply(e);
                    }
                }
            }
            self.take_version_note();
            if !self.busy() {
                return true;
            }
            if Instant::now() >= deadline {
                return false;
            }
        }
    }

    /// Stops background work the benchmark does not want competing for CPU.
    pub fn stop_background(&self) {
        if let Some(s) = self.session() {
            s.workers.stop_background();
        }
    }

    pub fn on_tick(&mut self) {
        self.tick = self.tick.wrapping_add(1);
    }

    pub(crate) fn set_error(&mut self, text: impl Into<String>) {
        self.status = Some(Status {
            text: text.into(),
            is_error: true,
        });
    }

    pub(crate) fn set_info(&mut self, text: impl Into<String>) {
        self.status = Some(Status {
            text: text.into(),
            is_error: false,
        });
    }

    pub fn switch_to(&mut self, view: View) {
        if view == View::Replay {
            let scheduler = self.engine_scheduler(self.scheduler.clone());
            if let Some(r) = self.feed.as_mut().and_then(Feed::replay_mut) {
                r.start_trust_check(&scheduler);
            }
        }
        if view != self.view {
            // Each view once, at its latest visit, so esc never walks
            // through the same views again and again.
            let from = self.view;
            self.history.retain(|&v| v != from && v != view);
            self.history.push(from);
            if self.history.len() > HISTORY {
                self.history.remove(0);
            }
            self.view = view;
        }
        self.filtering = false;
    }

    pub(crate) fn show_placement(&mut self, pod: PodId) {
        if let Some(s) = self.session_mut() {
            s.open_placement(pod);
        }
        self.switch_to(View::Placement);
    }

    fn back(&mut self) {
        if let Some(v) = self.history.pop() {
            self.view = v;
        }
    }

    /// The views `esc` goes back through, oldest first.
    pub fn history(&self) -> &[View] {
        &self.history
    }

    pub fn set_theme(&mut self, name: &str) {
        if no_color_requested() {
            self.set_info("NO_COLOR is set: colours stay off");
            return;
        }
        match self.themes.resolve(name) {
            Ok(t) => {
                self.set_info(format!("theme {}", t.name));
                self.theme = t.for_depth(ColorDepth::from_env());
            }
            Err(e) => {
                self.theme = Theme::default_theme().for_depth(ColorDepth::from_env());
                self.set_error(e);
            }
        }
    }

    /// The current view's filter text, if the view has one.
    pub fn filter_text(&self) -> Option<&str> {
        let s = self.session()?;
        match self.view {
            View::Nodes => Some(&s.nodes.filter),
            View::Pods => Some(&s.pods.filter),
            View::Skew => Some(&s.skew_filter),
            _ => None,
        }
    }

    fn edit_filter(&mut self, edit: impl FnOnce(&mut String)) {
        let view = self.view;
        let Some(s) = self.session_mut() else { return };
        match view {
            View::Nodes => {
                edit(&mut s.nodes.filter);
                s.nodes.cursor.home();
                s.refresh_nodes();
            }
            View::Pods => {
                edit(&mut s.pods.filter);
                s.pods.cursor.home();
                s.refresh_pods();
            }
            View::Skew => {
                edit(&mut s.skew_filter);
                s.skew_cursor.home();
                s.refresh_skew_rows();
            }
            _ => {}
        }
    }
}
