//! Replay of a recorded timeline: the moment shown, stepping event by event
//! or by time, playing at a chosen speed, jumping to a time, and a mark to
//! compare two moments. Each new moment is assembled on a background thread
//! (a seek replays from the nearest checkpoint) and swapped in by the app.

pub mod compare;
mod replay_actions;
pub mod trust;

use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::source::timeline::Timeline;

use super::job::{Ctx, Job};
use super::loader::Loaded;
use compare::{Comparison, Moment, MomentInput};
use trust::TrustCheck;

/// Playback speeds offered by `+` and `-` (recorded seconds per second).
pub const SPEEDS: [u32; 8] = [1, 2, 5, 10, 30, 60, 300, 600];

/// `{` and `}` move by this much recorded time.
pub const TIME_STEP_MS: u64 = 10_000;

pub struct Replay {
    pub timeline: Arc<Timeline>,
    /// The moment asked for, in ms since the recording started.
    pub clock_ms: u64,
    /// Events applied at `clock_ms`.
    pub position: usize,
    /// The position of the cluster on screen.
    pub shown: usize,
    pub playing: bool,
    /// Index into [`SPEEDS`].
    pub speed: usize,
    /// Wall time and recording time when play started (or the speed changed).
    anchor: Option<(Instant, u64)>,
    /// A moment to compare with (`m`): its position and time.
    pub mark: Option<(usize, u64)>,
    /// Assembles the moment at a position, off the UI thread.
    seeker: Job<usize, (usize, Loaded)>,
    /// The position being assembled.
    building: Option<usize>,
    /// The last comparison of the mark with the moment shown.
    pub comparison: Option<Comparison>,
    /// `(mark, shown)` being compared; the answer carries the mark's counts.
    comparer: Job<CompareRequest, ((usize, usize), ComparisonDone)>,
    comparing: Option<(usize, usize)>,
    /// The newest moment to compare once the running comparison is done.
    compare_next: Option<(usize, MomentInput)>,
    /// The trust check, started when the Replay view is first shown.
    pub trust: Option<TrustCheck>,
    /// The Replay view's scroll.
    pub scroll: super::cursor::Cursor,
    /// The mark's moment, kept to compare against every new position.
    mark_moment: Option<MarkMoment>,
    /// A background result (trust check, comparison) arrived since the
    /// last frame: the screen must be drawn again.
    repaint: bool,
    /// Why a moment or a comparison cannot be shown (a background thread
    /// could not start or died): drawn instead of waiting forever.
    pub failure: Option<String>,
}

/// Compare the mark (`before`, its counts once computed) at `positions.0`
/// with the moment `after` at `positions.1`.
struct CompareRequest {
    positions: (usize, usize),
    before: MarkMoment,
    after: MomentInput,
}

/// A comparison, and the mark's counts it computed (kept for the next).
type ComparisonDone = (Comparison, Arc<Moment>);

/// The mark's counts are computed once, by the first comparison; until
/// then the mark keeps what computing them needs (which holds its cluster).
#[derive(Clone)]
enum MarkMoment {
    Pending(Arc<MomentInput>),
    Ready(Arc<Moment>),
}

impl Replay {
    /// Paused at the first moment (the initial state, no events applied).
    pub fn new(timeline: Arc<Timeline>) -> Replay {
        let recording = timeline.clone();
        let seeker = Job::spawn("seek", move |at, ctx: &Ctx<(usize, Loaded)>| {
            let started = Instant::now();
            let cluster = recording.state_after(at);
            ctx.send((at, Loaded::new(cluster, String::new(), started.elapsed())));
        });
        let recording = timeline.clone();
        let comparer = Job::spawn("compare", move |r: CompareRequest, ctx| {
            let pods = recording.diff(r.positions.0, r.positions.1);
            let before = match r.before {
                MarkMoment::Ready(m) => m,
                MarkMoment::Pending(input) => Arc::new(Moment::of(&input)),
            };
            let after = Moment::of(&r.after);
            ctx.send((
                r.positions,
                (Comparison::new(pods, &before, &after), before),
            ));
        });
        Replay {
            timeline,
            seeker,
            comparer,
            failure: None,
            clock_ms: 0,
            position: 0,
            shown: 0,
            playing: false,
            speed: 0,
            anchor: None,
            mark: None,
            building: None,
            comparison: None,
            comparing: None,
            compare_next: None,
            trust: None,
            scroll: Default::default(),
            mark_moment: None,
            repaint: false,
        }
    }

    pub fn end_ms(&self) -> u64 {
        self.timeline.end_ms
    }

    pub fn len(&self) -> usize {
        self.timeline.len()
    }

    pub fn is_empty(&self) -> bool {
        self.timeline.is_empty()
    }

    pub fn speed(&self) -> u32 {
        SPEEDS[self.speed]
    }

    /// Whether frames are needed: playing, or a moment is being built.
    pub fn busy(&self) -> bool {
        self.playing
            || self.building.is_some()
            || self.comparing.is_some()
            || self.trust.as_ref().is_some_and(TrustCheck::running)
    }

    /// Starts the trust check as the `scheduler` release, once per release.
    pub fn start_trust_check(&mut self, scheduler: &crate::engine::Scheduler) {
        if self
            .trust
            .as_ref()
            .is_none_or(|t| &t.scheduler != scheduler)
        {
            self.trust = Some(TrustCheck::start(self.timeline.clone(), scheduler.clone()));
        }
    }

    /// Whether the screen shows an older moment than the one asked for.
    pub fn catching_up(&self) -> bool {
        self.building.is_some() || self.shown != self.position
    }

    /// Jumps to `t_ms` (clamped to the recording).
    pub fn seek_time(&mut self, t_ms: u64) {
        self.clock_ms = t_ms.min(self.end_ms());
        self.position = self.timeline.events_until(self.clock_ms);
        if self.playing {
            self.anchor = Some((Instant::now(), self.clock_ms));
        }
    }

    /// Moves by `delta` events; the clock goes to the event's time.
    pub fn step_events(&mut self, delta: isize) {
        let n = (self.position as isize + delta).clamp(0, self.len() as isize) as usize;
        self.position = n;
        self.clock_ms = match n {
            0 => 0,
            n => self.timeline.events()[n - 1].t,
        };
        self.pause();
    }

    /// Goes to the moment after the first `n` events, paused.
    pub fn seek_events(&mut self, n: usize) {
        self.step_events(n as isize - self.position as isize);
    }

    /// Moves by `delta_ms` of recorded time.
    pub fn step_time(&mut self, delta_ms: i64) {
        let t = (self.clock_ms as i64 + delta_ms).max(0) as u64;
        self.seek_time(t);
    }

    pub fn toggle_play(&mut self) {
        if self.playing {
            self.pause();
        } else {
            if self.clock_ms >= self.end_ms() {
                self.seek_time(0);
            }
            self.playing = true;
            self.anchor = Some((Instant::now(), self.clock_ms));
        }
    }

    pub fn pause(&mut self) {
        self.playing = false;
        self.anchor = None;
    }

    /// `+` / `-`: the next speed up or down.
    pub fn change_speed(&mut self, faster: bool) {
        self.speed = if faster {
            (self.speed + 1).min(SPEEDS.len() - 1)
        } else {
            self.speed.saturating_sub(1)
        };
        if self.playing {
            self.anchor = Some((Instant::now(), self.clock_ms));
        }
    }

    /// `m`: marks the moment shown (or clears the mark when it is here).
    pub fn toggle_mark(&mut self, here: &Loaded) {
        if self.mark.is_some_and(|(p, _)| p == self.shown) {
            self.mark = None;
            self.mark_moment = None;
            self.comparison = None;
            self.compare_next = None;
            return;
        }
        // A comparison with the old mark still running is of no use now.
        self.comparing = None;
        self.compare_next = None;
        self.mark = Some((self.shown, self.clock_ms));
        self.mark_moment = Some(MarkMoment::Pending(Arc::new(MomentInput::of(
            &here.cluster,
            &here.derived,
        ))));
        self.comparison = None;
        self.compare_with(here);
    }

    /// Starts comparing the mark with a newly shown moment.
    /// One comparison runs at a time; while it does, only the newest moment
    /// waits for the next (playing fast does not pile up threads).
    pub fn compare_with(&mut self, now: &Loaded) {
        if self.mark.is_none() {
            return;
        }
        let after = (self.shown, MomentInput::of(&now.cluster, &now.derived));
        if self.comparing.is_some() {
            self.compare_next = Some(after);
        } else {
            self.start_compare(after);
        }
    }

    fn start_compare(&mut self, (shown, after): (usize, MomentInput)) {
        let (Some((mark, _)), Some(before)) = (self.mark, self.mark_moment.clone()) else {
            return;
        };
        self.comparing = Some((mark, shown));
        self.comparer.request(CompareRequest {
            positions: (mark, shown),
            before,
            after,
        });
    }

    /// Advances play, collects a built moment, starts the next build.
    pub fn poll(&mut self) -> Option<Loaded> {
        if let Some(t) = &mut self.trust {
            self.repaint |= t.poll();
        }
        if let Some((since, from)) = self.anchor {
            let t = from + (since.elapsed().as_millis() as u64) * u64::from(self.speed());
            self.clock_ms = t.min(self.end_ms());
            self.position = self.timeline.events_until(self.clock_ms);
            if t >= self.end_ms() {
                self.pause();
            }
        }
        if let Some(asked) = self.comparing {
            while let Some(((mark, shown), (c, before))) = self.comparer.try_recv() {
                if (mark, shown) != asked {
                    continue;
                }
                if self.mark.is_some_and(|m| m.0 == mark) {
                    self.mark_moment = Some(MarkMoment::Ready(before));
                }
                self.comparison = Some(c);
                self.comparing = None;
                self.repaint = true;
            }
            if let Some(failure) = self.comparing.and_then(|_| self.comparer.failure()) {
                self.failure = Some(failure);
                self.comparing = None;
                self.compare_next = None;
                self.repaint = true;
            }
            if self.comparing.is_none()
                && let Some(next) = self.compare_next.take()
            {
                self.start_compare(next);
            }
        }
        let mut ready = None;
        if let Some(asked) = self.building {
            while let Some((at, loaded)) = self.seeker.try_recv() {
                if at == asked {
                    self.shown = at;
                    ready = Some(loaded);
                    self.building = None;
                }
            }
            if let Some(failure) = self.building.and_then(|_| self.seeker.failure()) {
                self.failure = Some(failure);
                self.building = None;
                self.repaint = true;
            }
        }
        if self.building.is_none()
            && self.failure.is_none()
            && self.position != self.shown
            && ready.is_none()
        {
            self.building = Some(self.position);
            self.seeker.request(self.position);
        }
        ready
    }

    /// Whether a background result arrived since the last call.
    pub fn take_repaint(&mut self) -> bool {
        std::mem::take(&mut self.repaint)
    }

    /// Blocks until the moment asked for is built (tests).
    pub fn wait(&mut self, timeout: Duration) -> Option<Loaded> {
        let deadline = Instant::now() + timeout;
        loop {
            if let Some(l) = self.poll() {
                return Some(l);
            }
            if Instant::now() >= deadline || !self.catching_up() {
                return None;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
    }
}

/// `1:30`, `01:02:03`, `90s`, `2m`, `+30s`, `-1m`, `start`, `end`: the
/// time to jump to, from the current clock.
pub fn parse_time(text: &str, clock_ms: u64, end_ms: u64) -> Result<u64, String> {
    let s = text.trim();
    let bad = || format!("{s:?}: give a time such as 1:30, 00:12:00, 90s, +30s, -2m, start or end");
    match s {
        "start" | "begin" => return Ok(0),
        "end" => return Ok(end_ms),
        _ => {}
    }
    let (sign, rest) = match s.as_bytes().first() {
        Some(b'+') => (1i64, &s[1..]),
        Some(b'-') => (-1i64, &s[1..]),
        _ => (0, s),
    };
    let ms: u64 = if rest.contains(':') {
        hms(rest).ok_or_else(bad)?
    } else {
        let split = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(rest.len());
        let (num, unit) = rest.split_at(split);
        let n: f64 = num.parse().map_err(|_| bad())?;
        let scale = match unit {
            "ms" => 1.0,
            "" | "s" => 1000.0,
            "m" => 60_000.0,
            "h" => 3_600_000.0,
            _ => return Err(bad()),
        };
        (n * scale) as u64
    };
    let t = match sign {
        0 if ms > end_ms => {
            return Err(format!(
                "{s:?} is past the end of the recording ({}); `end` jumps there",
                clock(end_ms)
            ));
        }
        0 => ms as i64,
        s => clock_ms as i64 + s * ms as i64,
    };
    Ok((t.max(0) as u64).min(end_ms))
}

/// `h:m:s`, `m:s` (seconds may have a fraction).
fn hms(s: &str) -> Option<u64> {
    let parts: Vec<&str> = s.split(':').collect();
    if parts.len() > 3 {
        return None;
    }
    let mut total_ms = 0f64;
    for (i, p) in parts.iter().enumerate() {
        let n: f64 = p.parse().ok()?;
        // Minutes and seconds after the first field are below 60 (9:99 is
        // no time).
        if n < 0.0 || !n.is_finite() || (i > 0 && n >= 60.0) {
            return None;
        }
        total_ms = total_ms * 60.0 + n;
    }
    Some((total_ms * 1000.0) as u64)
}

/// `hh:mm:ss` (or `mm:ss` under an hour) for a recording time.
pub fn clock(ms: u64) -> String {
    let s = ms / 1000;
    if s >= 3600 {
        format!("{:02}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60)
    } else {
        format!("{:02}:{:02}", s / 60, s % 60)
    }
}

/// The Replay view's scrolling lines: the trust check, then the comparison
/// with the mark.
pub fn view_lines(r: &Replay) -> Vec<super::report::Line> {
    use super::report::{Line, Tone};
    let mut out = Vec::new();
    if let Some(f) = &r.failure {
        out.push(Line {
            tone: Tone::Bad,
            text: format!("cannot replay further: {f}"),
        });
    }
    if let Some(t) = &r.trust {
        out.extend(t.lines());
        out.push(Line {
            tone: Tone::Text,
            text: String::new(),
        });
    }
    match (r.mark, &r.comparison) {
        (None, _) => out.push(Line {
            tone: Tone::Muted,
            text: "No mark. Press m at a moment, move to another ([ ] { } space :at), and this view lists what changed between the two.".into(),
        }),
        (Some((_, t)), None) => out.push(Line {
            tone: Tone::Muted,
            text: format!("comparing {} with {}…", clock(t), clock(r.clock_ms)),
        }),
        (Some((_, t)), Some(c)) => {
            out.push(Line {
                tone: Tone::Heading,
                text: format!("Changes from the mark ({}) to the moment shown ({})", clock(t), clock(r.clock_ms)),
            });
            if c.is_empty() {
                out.push(Line {
                    tone: Tone::Muted,
                    text: "  nothing changed".into(),
                });
            } else {
                out.extend(c.lines(COMPARE_LIMIT));
            }
        }
    }
    out
}

/// Pods listed per kind of change before "… N more".
const COMPARE_LIMIT: usize = 200;

/// How many lines [`view_lines`] has (for scrolling).
pub fn view_len(r: &Replay) -> usize {
    view_lines(r).len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn at_is_range_checked() {
        assert_eq!(parse_time("1:30", 0, 180_000), Ok(90_000));
        assert!(
            parse_time("9:99", 0, 3_600_000)
                .unwrap_err()
                .contains("give a time")
        );
        assert!(parse_time("1:60", 0, 3_600_000).is_err());
        let past = parse_time("9:00", 0, 180_000).unwrap_err();
        assert!(
            past.contains("past the end of the recording (03:00)"),
            "{past}"
        );
        // Relative jumps stop at the ends.
        assert_eq!(parse_time("+10m", 0, 180_000), Ok(180_000));
        assert_eq!(parse_time("-1m", 30_000, 180_000), Ok(0));
    }

    #[test]
    fn times_parse_absolute_and_relative() {
        assert_eq!(parse_time("1:30", 0, 600_000), Ok(90_000));
        assert_eq!(parse_time("01:00:05", 0, 10_000_000), Ok(3_605_000));
        assert_eq!(parse_time("90s", 0, 600_000), Ok(90_000));
        assert_eq!(parse_time("2m", 0, 600_000), Ok(120_000));
        assert_eq!(parse_time("+30s", 60_000, 600_000), Ok(90_000));
        assert_eq!(parse_time("-2m", 60_000, 600_000), Ok(0));
        assert_eq!(parse_time("end", 0, 600_000), Ok(600_000));
        // Past the end is said, not clamped silently (`end` goes there).
        assert!(parse_time("99m", 0, 600_000).is_err());
        assert!(parse_time("soon", 0, 600_000).is_err());
        assert!(parse_time("1:2:3:4", 0, 600_000).is_err());
    }

    #[test]
    fn clock_formats() {
        assert_eq!(clock(0), "00:00");
        assert_eq!(clock(90_500), "01:30");
        assert_eq!(clock(3_723_000), "01:02:03");
    }
}
