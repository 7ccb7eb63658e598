//! End to end: the real `kplace --demo` in a detached tmux session of fixed
//! size, driven with keys; after each step the captured pane must show the
//! expected text. tmux is required: when it is missing the tests install it
//! (apt-get, as root) or fail; they never pass by skipping.

mod support;

use std::process::{Command, Output};
use std::time::{Duration, Instant};

const WIDTH: u32 = 160;
const HEIGHT: u32 = 48;
/// The longest a step may take before the test fails. Steps poll and go on
/// as soon as the pane shows what they expect; the bound only matters on a
/// machine so loaded that the step would never come.
const WAIT: Duration = Duration::from_secs(60);

/// A tmux server of our own (private socket), killed on drop.
struct Tmux {
    socket: String,
    session: &'static str,
}

impl Tmux {
    /// A detached session of `width`×`height` running `command` in `sh`, on
    /// a private tmux server named after `name` and this process.
    fn start(name: &'static str, width: u32, height: u32, command: &str) -> Tmux {
        let tmux = Tmux {
            socket: format!("kplace-e2e-{name}-{}", std::process::id()),
            session: name,
        };
        let started = tmux.run(&[
            "new-session",
            "-d",
            "-s",
            name,
            "-x",
            &width.to_string(),
            "-y",
            &height.to_string(),
            "sh",
            "-c",
            command,
        ]);
        assert!(
            started.status.success(),
            "tmux new-session: {}",
            String::from_utf8_lossy(&started.stderr)
        );
        tmux
    }

    fn run(&self, args: &[&str]) -> Output {
        Command::new("tmux")
            .args(["-L", &self.socket, "-f", "/dev/null"])
            .args(args)
            .output()
            .expect("run tmux")
    }

    fn capture(&self) -> String {
        let out = self.run(&["capture-pane", "-p", "-t", self.session]);
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// Literal text, typed.
    fn type_text(&self, text: &str) {
        self.run(&["send-keys", "-t", self.session, "-l", text]);
    }

    /// A named key (`Enter`, `Escape`).
    fn press(&self, key: &str) {
        self.run(&["send-keys", "-t", self.session, key]);
    }

    /// Polls the pane until it shows `needle` (up to [`WAIT`]), then until
    /// two captures in a row agree: a capture can land while kplace is
    /// halfway through writing a frame, showing the new frame's first rows
    /// over the old one's last (a torn frame).
    fn expect(&self, step: &str, needle: &str) -> String {
        let deadline = Instant::now() + WAIT;
        loop {
            let screen = self.capture();
            if screen.contains(needle) {
                return self.settled(screen, needle);
            }
            if Instant::now() >= deadline {
                panic!("{step}: the pane never showed {needle:?}; it shows:\n{screen}");
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Tmux {
    /// The pane once a frame has been written whole: the first capture that
    /// equals the one before and still shows `needle`; after two seconds of
    /// change (a spinner), the latest capture showing it.
    fn settled(&self, mut screen: String, needle: &str) -> String {
        let deadline = Instant::now() + Duration::from_secs(2);
        while Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(50));
            let next = self.capture();
            if next == screen {
                return next;
            }
            if next.contains(needle) {
                screen = next;
            }
        }
        screen
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = self.run(&["kill-server"]);
    }
}

fn tmux_works() -> bool {
    Command::new("tmux")
        .arg("-V")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// tmux on PATH, installed with apt-get when missing and possible; panics
/// (the test fails) when it cannot be had.
fn require_tmux() {
    static READY: std::sync::OnceLock<Result<(), String>> = std::sync::OnceLock::new();
    let ready = READY.get_or_init(|| {
        if tmux_works() {
            return Ok(());
        }
        let installed = Command::new("sh")
            .args([
                "-c",
                "command -v apt-get >/dev/null && (apt-get update -qq && apt-get install -y -qq tmux) >/dev/null 2>&1",
            ])
            .status()
            .is_ok_and(|s| s.success());
        if installed && tmux_works() {
            Ok(())
        } else {
            Err("tmux is required for the terminal end-to-end tests and could not be installed (apt-get install tmux)".into())
        }
    });
    if let Err(e) = ready {
        panic!("{e}");
    }
}

#[test]
fn demo_in_tmux_switches_views_searches_places_and_quits() {
    require_tmux();
    let bin = env!("CARGO_BIN_EXE_kplace");
    // After kplace exits the shell prints its status, on the restored screen.
    let command =
        format!("TERM=xterm-256color '{bin}' --demo; echo \"kplace exited with $?\"; sleep 60");
    let tmux = Tmux::start("kplace", WIDTH, HEIGHT, &command);

    let screen = tmux.expect("start", "Pending pods (6)");
    assert!(screen.contains("eu-west-1a"), "{screen}");
    assert!(screen.contains("1 Overview"), "{screen}");

    // Resizing redraws: too small says so, back to full size shows the view.
    tmux.run(&["resize-window", "-t", tmux.session, "-x", "50", "-y", "12"]);
    tmux.expect("resized small", "terminal too small");
    tmux.run(&[
        "resize-window",
        "-t",
        tmux.session,
        "-x",
        &WIDTH.to_string(),
        "-y",
        &HEIGHT.to_string(),
    ]);
    tmux.expect("resized back", "Pending pods (6)");

    tmux.type_text("2");
    tmux.expect("skew view", "maxSkew 1 (DoNotSchedule)");
    tmux.type_text("3");
    tmux.expect(
        "tiers view",
        "Headroom per zone for a pod at standard (10000)",
    );
    tmux.type_text("4");
    tmux.expect("nodes view", "Nodes (32)");
    tmux.type_text("6");
    tmux.expect("placement view", "No pod selected");
    tmux.type_text("1");
    tmux.expect(
        "back to overview",
        "would schedule 1 · preempt 1 · unschedulable 4",
    );

    tmux.type_text("?");
    tmux.expect("help", "Help: keys");
    tmux.press("Escape");
    let deadline = Instant::now() + WAIT;
    while tmux.capture().contains("Help: keys") {
        assert!(Instant::now() < deadline, "esc did not close the help");
        std::thread::sleep(Duration::from_millis(50));
    }

    tmux.type_text("5");
    tmux.expect("pods view", "Pods (404)");
    tmux.type_text("/ledger-migrate");
    tmux.expect("search", "/ledger-migrate");
    tmux.press("Enter");
    tmux.press("Enter");
    let screen = tmux.expect("placement of the searched pod", "PREEMPT → worker-b03");
    assert!(
        screen.contains("Placement: payments/ledger-migrate-x7k2p"),
        "{screen}"
    );
    assert!(screen.contains("nominated node: worker-b03"), "{screen}");
    // The report scrolls: a page down shows the victims' termination and the candidates.
    tmux.press("PageDown");
    let screen = tmux.expect("scrolled placement", "Candidate nodes (20), best first");
    assert!(
        screen.contains("earliest bind: 5s after the evictions"),
        "{screen}"
    );
    assert!(screen.contains("more PDB violations"), "{screen}");

    // What-if: draft the pending pod, lower its priority class in the form,
    // and see the preemption answer disappear.
    let cluster = kplace::app::demo::load_demo().expect("demo loads");
    let classes = kplace::app::whatif::class_choices(&cluster);
    let pod = cluster
        .find_pod("payments", "ledger-migrate-x7k2p")
        .expect("pending pod");
    let current = cluster
        .pod(pod)
        .priority_class_name
        .as_deref()
        .unwrap_or("");
    let from = classes.iter().position(|c| c.0 == current).unwrap_or(0);
    let to = classes
        .iter()
        .position(|c| c.0 == "best-effort")
        .expect("best-effort class");
    tmux.type_text("e");
    let screen = tmux.expect("draft", "Draft payments/ledger-migrate-x7k2p (valid)");
    tmux.expect("draft answer", "PREEMPT → worker-b03");
    assert!(screen.contains("7 What-if"), "{screen}");
    tmux.press("Enter");
    tmux.expect("class chooser", "enter: choose");
    for _ in from..to {
        tmux.press("Down");
    }
    tmux.press("Enter");
    let screen = tmux.expect("answer changed", "outcome PREEMPT → ");
    assert!(screen.contains("best-effort"), "{screen}");
    assert!(!screen.contains("PREEMPT → worker-b03"), "{screen}");

    tmux.type_text(":tiers");
    tmux.expect("palette", ":tiers");
    tmux.press("Enter");
    tmux.expect("palette ran", "Priority tiers");

    tmux.type_text("q");
    let screen = tmux.expect("quit", "kplace exited with 0");
    assert!(
        !screen.contains("Priority tiers"),
        "the alternate screen was not left:\n{screen}"
    );
}

#[test]
fn a_snapshot_that_fails_to_load_is_shown_then_exits_2() {
    require_tmux();
    let command = format!(
        "{} --snapshot /no/such/snapshot.yaml; echo \"kplace exited with $?\"; sleep 30",
        env!("CARGO_BIN_EXE_kplace")
    );
    let tmux = Tmux::start("bad", 120, 30, &command);
    tmux.expect("load error screen", "Could not load /no/such/snapshot.yaml");
    tmux.press("q");
    let screen = tmux.expect("exit status", "kplace exited with 2");
    assert!(
        screen.contains("kplace: /no/such/snapshot.yaml"),
        "the error is printed on the restored terminal:\n{screen}"
    );
}

#[test]
fn live_cluster_in_tmux_follows_events_and_reports_the_server_going_away() {
    require_tmux();
    let dir = tempfile::tempdir().unwrap();
    let mut server = support::FakeServer::start(support::synth_objects(3, 10));
    server.apply(serde_json::json!({
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "waiting", "namespace": "default", "uid": "uid-waiting"},
        "spec": {"containers": [{"name": "c", "image": "nginx",
                 "resources": {"requests": {"cpu": "100m", "memory": "64Mi"}}}]},
        "status": {"phase": "Pending"}
    }));
    let kubeconfig = server.kubeconfig(dir.path());
    let command = format!(
        "TERM=xterm-256color '{}' --kubeconfig '{}' --context fake --pod default/waiting; echo \"kplace exited with $?\"; sleep 30",
        env!("CARGO_BIN_EXE_kplace"),
        kubeconfig.display()
    );
    let tmux = Tmux::start("live", 160, 40, &command);
    let screen = tmux.expect("live placement", "Placement: default/waiting");
    assert!(
        screen.contains("context fake (http://127.0.0.1:"),
        "{screen}"
    );
    tmux.expect("connection state", "● live");
    // A pod created on the server shows up in the Pods view.
    server.apply(serde_json::json!({
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "arrived-later", "namespace": "default", "uid": "uid-later"},
        "spec": {"containers": [{"name": "c", "image": "nginx"}]},
        "status": {"phase": "Pending"}
    }));
    tmux.press("5");
    tmux.type_text("/arrived");
    tmux.expect("new pod listed", "arrived-later");
    tmux.press("Enter");
    server.stop();
    tmux.expect("server gone", "reconnecting");
    tmux.press("q");
    tmux.expect("exit status", "kplace exited with 0");
    // Read-only: the binary only ever sent GETs.
    assert!(server.requests().iter().all(|r| r.starts_with("GET ")));
}

#[test]
fn demo_recording_in_tmux_plays_and_shows_the_trust_check() {
    require_tmux();
    let command = format!(
        "TERM=xterm-256color '{}' --demo-replay; echo \"kplace exited with $?\"; sleep 30",
        env!("CARGO_BIN_EXE_kplace")
    );
    let tmux = Tmux::start("replay", 160, 40, &command);
    tmux.expect("timeline bar", "event 0/");
    tmux.expect("paused at the start", "00:00 / 03:00");
    // Fastest speed, play: three minutes of recording take under a second.
    for _ in 0..7 {
        tmux.type_text("+");
    }
    tmux.type_text(" ");
    tmux.expect("played to the end", "03:00 / 03:00");
    tmux.type_text("8");
    tmux.expect("trust check", "Disagreements (1)");
    tmux.type_text("q");
    tmux.expect("exit status", "kplace exited with 0");
}

#[test]
fn plain_kplace_without_a_kubeconfig_opens_the_demo_and_says_why() {
    require_tmux();
    let home = tempfile::tempdir().unwrap();
    let command = format!(
        "env -u KUBECONFIG -u KUBERNETES_SERVICE_HOST HOME='{}' TERM=xterm-256color '{}'; echo \"kplace exited with $?\"; sleep 30",
        home.path().display(),
        env!("CARGO_BIN_EXE_kplace")
    );
    let tmux = Tmux::start("nokube", 200, 30, &command);
    let screen = tmux.expect(
        "demo note",
        "Demo mode: no kubeconfig found ($KUBECONFIG, ~/.kube/config) and not running in a cluster; showing the built-in demo cluster",
    );
    assert!(screen.contains("built-in demo cluster"), "{screen}");
    tmux.type_text("q");
    tmux.expect("exit status", "kplace exited with 0");
}

/// The pane's terminal state as tmux sees it: alternate screen and mouse
/// reporting (`1` = on).
fn pane_modes(tmux: &Tmux) -> String {
    let out = tmux.run(&[
        "display-message",
        "-p",
        "-t",
        tmux.session,
        "alternate=#{alternate_on} mouse=#{mouse_any_flag}#{mouse_button_flag}#{mouse_standard_flag}#{mouse_all_flag}#{mouse_sgr_flag}",
    ]);
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// The words of the `stty -a` output the pane printed (after `stty:`).
fn stty_flags(screen: &str) -> Vec<String> {
    let Some(at) = screen.find("stty:") else {
        return Vec::new();
    };
    screen[at..]
        .split(|c: char| c.is_whitespace() || c == ';')
        .filter(|w| !w.is_empty())
        .map(str::to_string)
        .collect()
}

/// `kplace --demo` in a pane, its pid written to `pidfile` (`exec` keeps the
/// pid); after it ends the shell prints its exit status and `stty -a`.
fn demo_with_pid(name: &'static str, pidfile: &std::path::Path, prelude: &str) -> (Tmux, u32) {
    let command = format!(
        "TERM=xterm-256color sh -c '{prelude} echo $$ > \"{}\"; exec \"{}\" --demo'; echo \"kplace exited with $?\"; echo stty:; stty -a; sleep 60",
        pidfile.display(),
        env!("CARGO_BIN_EXE_kplace")
    );
    let tmux = Tmux::start(name, WIDTH, HEIGHT, &command);
    tmux.expect("started", "Pending pods (6)");
    let pid = std::fs::read_to_string(pidfile)
        .expect("pid file")
        .trim()
        .parse()
        .expect("a pid");
    // While kplace runs the pane is in the alternate screen with mouse
    // reporting on: what the signal must undo.
    let modes = pane_modes(&tmux);
    assert!(modes.starts_with("alternate=1"), "{modes}");
    assert!(!modes.ends_with("mouse=00000"), "{modes}");
    (tmux, pid)
}

fn send_signal(pid: u32, signal: &str) {
    let status = Command::new("kill")
        .args([&format!("-{signal}"), &pid.to_string()])
        .status()
        .expect("run kill");
    assert!(status.success(), "kill -{signal} {pid}");
}

fn signal_restores_the_terminal(name: &'static str, signal: &str, status: u32) {
    require_tmux();
    let dir = tempfile::tempdir().unwrap();
    let (tmux, pid) = demo_with_pid(name, &dir.path().join("pid"), "");
    send_signal(pid, signal);
    let screen = tmux.expect(
        &format!("exit after SIG{signal}"),
        &format!("kplace exited with {status}"),
    );
    tmux.expect("stty printed", "stty:");
    // Let `stty -a` finish printing.
    let screen = {
        let deadline = Instant::now() + WAIT;
        let mut screen = screen;
        while !stty_flags(&screen).iter().any(|w| w.ends_with("icanon")) {
            assert!(Instant::now() < deadline, "no stty output:\n{screen}");
            std::thread::sleep(Duration::from_millis(50));
            screen = tmux.capture();
        }
        screen
    };
    let flags = stty_flags(&screen);
    for mode in ["echo", "icanon", "icrnl", "isig"] {
        assert!(
            flags.iter().any(|w| w == mode),
            "after SIG{signal} the terminal should have {mode} on; stty says:\n{screen}"
        );
    }
    assert_eq!(
        pane_modes(&tmux),
        "alternate=0 mouse=00000",
        "after SIG{signal} the alternate screen and mouse reporting should be off:\n{screen}"
    );
    assert!(
        !screen.contains("Pending pods (6)"),
        "the TUI is still on the screen:\n{screen}"
    );
}

#[test]
fn sigterm_restores_the_terminal_and_exits_143() {
    signal_restores_the_terminal("sigterm", "TERM", 143);
}

#[test]
fn sigint_restores_the_terminal_and_exits_130() {
    signal_restores_the_terminal("sigint", "INT", 130);
}

#[test]
fn sighup_restores_the_terminal_and_exits_129() {
    signal_restores_the_terminal("sighup", "HUP", 129);
}

/// Whether `pid` is still a running (not zombie) process.
fn running(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        // `pid (comm) state …`: the state follows the last `)`.
        Ok(stat) => stat
            .rsplit_once(')')
            .is_some_and(|(_, rest)| !rest.trim_start().starts_with(['Z', 'X'])),
        Err(_) => false,
    }
}

#[test]
fn with_sighup_ignored_kplace_ends_when_its_terminal_goes_away() {
    require_tmux();
    let dir = tempfile::tempdir().unwrap();
    // `trap '' HUP` is what nohup does: kplace keeps ignoring SIGHUP, so
    // only the hung-up terminal (EOF/EIO on every read) can end it.
    let (tmux, pid) = demo_with_pid("hangup", &dir.path().join("pid"), "trap \"\" HUP;");
    assert!(running(pid));
    tmux.run(&["kill-server"]);
    let deadline = Instant::now() + Duration::from_secs(10);
    while running(pid) {
        if Instant::now() >= deadline {
            let cpu = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
            let _ = Command::new("kill")
                .args(["-KILL", &pid.to_string()])
                .status();
            panic!("kplace still runs 10 s after its terminal went away: {cpu}");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// With `TERM=screen-256color` and no `COLORTERM`, the terminal is told
/// 256-colour indexes, never 24-bit colours (`38;2;` / `48;2;`); with
/// `COLORTERM=truecolor` the theme's own RGB colours are sent.
#[test]
fn colours_follow_the_terminals_depth() {
    require_tmux();
    let bin = env!("CARGO_BIN_EXE_kplace");
    let run = |name: &'static str, env: &str| {
        let command =
            format!("unset COLORTERM NO_COLOR; {env} '{bin}' --demo --theme light; sleep 60");
        let tmux = Tmux::start(name, WIDTH, HEIGHT, &command);
        tmux.expect("start", "Pending pods (6)");
        let out = tmux.run(&["capture-pane", "-p", "-e", "-t", tmux.session]);
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let indexed = run("depth256", "TERM=screen-256color");
    assert!(
        !indexed.contains("38;2;") && !indexed.contains("48;2;"),
        "24-bit colour on a 256-colour terminal:\n{indexed:?}"
    );
    assert!(
        indexed.contains("38;5;") && indexed.contains("48;5;"),
        "256-colour indexes expected:\n{indexed:?}"
    );
    let truecolor = run("depth24", "TERM=screen-256color COLORTERM=truecolor");
    assert!(
        truecolor.contains("38;2;") && truecolor.contains("48;2;"),
        "COLORTERM=truecolor sends RGB:\n{truecolor:?}"
    );
}

/// A live cluster that never answered: quitting is exit 2 with the reason
/// on the restored terminal, not a normal exit 0.
#[test]
fn a_live_session_that_never_connected_exits_2() {
    require_tmux();
    let dir = tempfile::tempdir().unwrap();
    // Port 1 on loopback: nothing listens there.
    let kubeconfig = dir.path().join("kubeconfig");
    std::fs::write(
        &kubeconfig,
        "apiVersion: v1\nkind: Config\nclusters:\n- name: dead\n  cluster: {server: \"https://127.0.0.1:1\"}\ncontexts:\n- name: dead\n  context: {cluster: dead, user: u}\ncurrent-context: dead\nusers:\n- name: u\n  user: {token: t}\n",
    )
    .unwrap();
    let command = format!(
        "TERM=xterm-256color '{}' --kubeconfig '{}' --context dead; echo \"kplace exited with $?\"; sleep 30",
        env!("CARGO_BIN_EXE_kplace"),
        kubeconfig.display()
    );
    let tmux = Tmux::start("neverlive", 120, 30, &command);
    tmux.expect("loading screen", "dead");
    std::thread::sleep(Duration::from_millis(500));
    tmux.press("q");
    let screen = tmux.expect("exit status", "kplace exited with 2");
    assert!(
        screen.contains("kplace: "),
        "the reason is printed:\n{screen}"
    );
}
