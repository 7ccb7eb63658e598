//! Drawing each TUI view into a 200x60 `TestBackend` on a large synthetic
//! cluster (`SynthSpec::default()`: 5,000 nodes, 150,000 pods). Target:
//! every view draws in ≤ 16 ms, which holds because views read aggregates
//! cached when the cluster loads and build only the rows on screen.
//!
//! `KPLACE_BENCH_SMALL=1` uses `SynthSpec::small()` for a quick run.

use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use kplace::app::whatif::draft::Draft;
use kplace::app::whatif::form::{self, Target};
use kplace::app::{App, Options, View};
use kplace::synth::{SynthSpec, write_cluster_json};
use ratatui::Terminal;
use ratatui::backend::TestBackend;

#[path = "common/live.rs"]
mod live;

/// The allocator the binary uses: loading makes millions of small allocations.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn spec() -> SynthSpec {
    if std::env::var_os("KPLACE_BENCH_SMALL").is_some() {
        SynthSpec::small()
    } else {
        SynthSpec::default()
    }
}

fn press(app: &mut App, code: KeyCode) {
    app.handle_key(KeyEvent::new(code, KeyModifiers::NONE));
}

fn large_app() -> App {
    let spec = spec();
    let started = Instant::now();
    let mut json = Vec::new();
    write_cluster_json(&mut json, &spec).expect("synth cluster");
    let (cluster, _) =
        kplace::source::file::load_snapshot_bytes(&json, "synth").expect("synth loads");
    drop(json);
    let loaded = Instant::now();
    let app = App::with_cluster(cluster, "synth", Options::default());
    // The pending-pod tally would compete for the two cores.
    app.stop_background();
    eprintln!(
        "synth {} nodes / {} pods: generate+load {:.1}s, view caches {:.1}s",
        spec.nodes,
        spec.pods,
        (loaded - started).as_secs_f64(),
        loaded.elapsed().as_secs_f64()
    );
    app
}

fn draw_views(c: &mut Criterion) {
    kplace::allocator::tune();
    let mut app = large_app();
    let mut terminal = Terminal::new(TestBackend::new(200, 60)).expect("terminal");
    // A Placement to draw: the first pending pod, or else the first pod.
    press(&mut app, KeyCode::Char('5'));
    let placed = Instant::now();
    press(&mut app, KeyCode::Enter);
    assert!(
        app.wait_until_idle(Duration::from_secs(600)),
        "placement did not finish"
    );
    eprintln!(
        "placement answer (worker thread): {:.0} ms",
        placed.elapsed().as_secs_f64() * 1000.0
    );

    // A live update or replay step: the model and view caches are built on
    // a background thread; swapping them in (new session, selections and
    // filters carried over by name) is what the UI thread pays.
    app.run_command(kplace::app::palette::Command::Show(View::Pods));
    let copy = (*app.session().expect("ready").loaded.cluster).clone();
    let built = Instant::now();
    let next = kplace::app::loader::Loaded::new(copy, String::new(), Duration::ZERO);
    let caches = built.elapsed();
    let swapped = Instant::now();
    app.replace_cluster(next);
    eprintln!(
        "cluster update: view caches {:.0} ms (background), swap {:.1} ms (UI thread)",
        caches.as_secs_f64() * 1000.0,
        swapped.elapsed().as_secs_f64() * 1000.0
    );
    // A live batch: 100 pod events (spread over the cluster, or a
    // rollout's in one namespace) applied to the feed's model and the
    // caches updated from those shown (the feed's thread), then swapped in
    // (the UI thread), each timed three times.
    type Batch = fn(&kplace::model::Cluster, usize) -> Vec<kplace::source::live::Change>;
    let batches: [(&str, Batch); 2] = [
        ("spread over the cluster", live::live_batch),
        ("a rollout's", live::live_batch_in_one_namespace),
    ];
    for (kind, make_batch) in batches.into_iter().flat_map(|b| [b; 3]) {
        let session = app.session().expect("ready");
        let mut model = (*session.loaded.cluster).clone();
        model.index_pod_keys();
        let batch = make_batch(&model, 100);
        let built = session.loaded.derived.built();
        let started = Instant::now();
        let touched = kplace::source::live::apply_changes(&mut model, batch);
        let next = kplace::app::loader::Loaded::updated(
            model.snapshot(),
            String::new(),
            &built,
            &touched,
            started,
        );
        let feed = started.elapsed();
        let swapped = Instant::now();
        app.replace_cluster(next);
        let swap = swapped.elapsed();
        // The Tiers view's headroom, worked out when Tiers is drawn after
        // the swap (the UI thread, only when Tiers is the view shown).
        let headroom = Instant::now();
        let session = app.session().expect("ready");
        assert!(session.headroom().is_some(), "the tiers are built");
        eprintln!(
            "live batch of 100 pod events ({kind}): model and view caches {:.1} ms (feed thread), swap {:.1} ms (UI thread), then Tiers' headroom {:.1} ms",
            feed.as_secs_f64() * 1000.0,
            swap.as_secs_f64() * 1000.0,
            headroom.elapsed().as_secs_f64() * 1000.0
        );
    }
    app.stop_background();

    let mut group = c.benchmark_group("draw_200x60");
    group
        .sample_size(30)
        .measurement_time(Duration::from_secs(3))
        .warm_up_time(Duration::from_millis(500));
    for view in View::ALL {
        app.run_command(kplace::app::palette::Command::Show(view));
        group.bench_function(view.title(), |b| {
            b.iter(|| {
                terminal.draw(|f| kplace::ui::draw(f, &app)).expect("draw");
            });
        });
    }
    group.finish();

    // Keystroke cost of the fuzzy filter over every pod (not per frame).
    let mut group = c.benchmark_group("interaction");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(3))
        .warm_up_time(Duration::from_millis(500));
    app.run_command(kplace::app::palette::Command::Show(View::Pods));
    group.bench_function("pods_filter_keystroke", |b| {
        b.iter(|| {
            press(&mut app, KeyCode::Char('/'));
            for ch in "web".chars() {
                press(&mut app, KeyCode::Char(ch));
            }
            press(&mut app, KeyCode::Esc);
        });
    });
    group.bench_function("pods_sort_cycle", |b| {
        b.iter(|| press(&mut app, KeyCode::Char('s')))
    });
    group.finish();

    // What-if: a form edit (the CPU request) → YAML → parse → engine::place
    // for the synth fitting pod, as the What-if worker runs it. Target ≤ 16 ms.
    let cluster = app.session().expect("ready").cluster();
    let mut interner = cluster.interner.clone();
    let mut draft = Draft::new(serde_json::json!({}));
    draft
        .set_yaml(&kplace::synth::fitting_pod_yaml(&spec()), &mut interner)
        .expect("fitting pod YAML");
    assert!(draft.valid, "{:?}", draft.error);
    let cpu = Target::Request("cpu");
    let mut group = c.benchmark_group("whatif");
    group
        .sample_size(20)
        .measurement_time(Duration::from_secs(5))
        .warm_up_time(Duration::from_millis(500));
    let mut flip = false;
    group.bench_function("form_edit_parse_place", |b| {
        b.iter(|| {
            flip = !flip;
            let mut doc = draft.doc.clone();
            form::apply(&mut doc, &cpu, if flip { "101m" } else { "100m" });
            draft.set_doc(doc, &mut interner);
            let pod = draft.pod.as_ref().expect("valid draft");
            kplace::engine::place(cluster, pod, &kplace::engine::Scheduler::default())
        });
    });
    group.finish();
}

/// The first usable screen (#15): from `App::new` on the synthetic cluster's
/// JSON file to the Overview drawn, as the event loop does it (take what
/// arrived, draw). The Pods, Skew and Tiers caches are built afterwards in
/// the background; each run waits for them, untimed, before the next.
/// Set in a child of this bench: the snapshot to open as `kplace
/// --snapshot` would, reporting when the Overview is drawn.
const FIRST_SCREEN_CHILD: &str = "KPLACE_BENCH_FIRST_SCREEN_OF";

/// The TUI's start on `path`, as a user's fresh `kplace --snapshot` makes
/// it: `App::new` until the session is ready, then one frame drawn. Gives
/// the time from `started` to the drawn frame, and the app.
fn open_and_draw(path: &std::path::Path, started: Instant) -> (Duration, App) {
    let mut terminal = Terminal::new(TestBackend::new(200, 60)).expect("terminal");
    let mut app = App::new(Options {
        snapshot: Some(path.to_path_buf()),
        ..Options::default()
    });
    while app.session().is_none() {
        assert!(started.elapsed() < Duration::from_secs(600), "never loaded");
        app.frame_due();
        std::thread::sleep(Duration::from_millis(1));
    }
    terminal.draw(|f| kplace::ui::draw(f, &app)).expect("draw");
    let drawn = started.elapsed();
    let screen = format!("{:?}", terminal.backend().buffer());
    assert!(screen.contains("Overview"), "the Overview is drawn");
    (drawn, app)
}

/// The child's whole life: open, draw, say when, and leave without
/// freeing anything (the user's TUI goes on running; its exit is not part
/// of the first screen).
fn first_screen_child(path: &str) -> ! {
    let started = Instant::now();
    kplace::allocator::tune();
    let (drawn, _app) = open_and_draw(std::path::Path::new(path), started);
    println!("drawn {}", drawn.as_nanos());
    use std::io::Write;
    std::io::stdout().flush().expect("stdout");
    std::process::exit(0)
}

/// The first usable screen on the 5,000-node synthetic file, two ways:
///
/// - `fresh_process`: what a user waits for after typing `kplace
///   --snapshot FILE`. Each run is a new process (this bench's binary,
///   started again as a child), timed from its spawn to the drawn
///   Overview, so start-up is counted and no earlier load leaves its
///   memory behind.
/// - `reload_in_process`: the same load again and again in one process
///   (`:ctx`, a relist): each load finds the pages the one before gave
///   back split into small ones, and faults them in again one by one.
fn first_screen(c: &mut Criterion) {
    kplace::allocator::tune();
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("synth.json");
    let mut json = Vec::new();
    write_cluster_json(&mut json, &spec()).expect("synth cluster");
    std::fs::write(&path, json).expect("write the synthetic cluster");
    let mut group = c.benchmark_group("first_screen");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(40))
        .warm_up_time(Duration::from_millis(1));
    let exe = std::env::current_exe().expect("this bench's path");
    group.bench_function("fresh_process", |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                use std::io::BufRead;
                let started = Instant::now();
                let mut child = std::process::Command::new(&exe)
                    .env(FIRST_SCREEN_CHILD, &path)
                    .stdout(std::process::Stdio::piped())
                    .spawn()
                    .expect("start the child");
                let mut line = String::new();
                std::io::BufReader::new(child.stdout.take().expect("piped"))
                    .read_line(&mut line)
                    .expect("the child's report");
                let took = started.elapsed();
                let status = child.wait().expect("the child ends");
                assert!(status.success(), "the child failed: {status}");
                let inside: u64 = line
                    .trim()
                    .strip_prefix("drawn ")
                    .and_then(|n| n.parse().ok())
                    .unwrap_or_else(|| panic!("the child said {line:?}"));
                eprintln!(
                    "first screen (fresh process): drawn {:.2} s after the spawn, {:.2} s after its main began",
                    took.as_secs_f64(),
                    Duration::from_nanos(inside).as_secs_f64()
                );
                total += took;
            }
            total
        })
    });
    group.bench_function("reload_in_process", |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                let (drawn, mut app) = open_and_draw(&path, Instant::now());
                eprintln!(
                    "first screen (reload in process): drawn {:.2} s",
                    drawn.as_secs_f64()
                );
                total += drawn;
                // The background caches are not left to the next load.
                app.stop_background();
                assert!(app.wait_until_idle(Duration::from_secs(600)));
            }
            total
        })
    });
    group.finish();
}

criterion_group!(benches, draw_views, first_screen);

fn main() {
    if let Some(path) = std::env::var_os(FIRST_SCREEN_CHILD) {
        first_screen_child(&path.to_string_lossy());
    }
    benches();
    Criterion::default().configure_from_args().final_summary();
}
