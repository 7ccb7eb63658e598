//! The Nodes and Pods tables: a sort column (cycled with `s`, or chosen by
//! its shift-letter), and a filter: fuzzy text over every column, `!text`
//! for the rows without it, `-l app=web,tier!=db` for a label selector.
//! Both produce a list of row indices, recomputed only when the sort or
//! filter changes, never per frame.

use std::cmp::Ordering;
use std::sync::atomic::{AtomicBool, Ordering as AtomicOrdering};
use std::sync::{Arc, OnceLock};

use fuzzy_matcher::FuzzyMatcher;
use fuzzy_matcher::skim::SkimMatcherV2;
use rayon::prelude::*;

use super::cursor::Cursor;
use super::derived::{NodeRow, PodRow};

/// A column the table can sort by, and the shift-letter that picks it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SortColumn {
    pub name: &'static str,
    pub letter: char,
}

const fn col(name: &'static str, letter: char) -> SortColumn {
    SortColumn { name, letter }
}

/// Every order is ascending (`↑`) before `S`-style reversal: A→Z, smallest
/// first, youngest first for AGE.
pub const NODE_SORTS: [SortColumn; 7] = [
    col("NAME", 'N'),
    col("ZONE", 'Z'),
    col("PODS", 'P'),
    col("CPU", 'C'),
    col("MEM", 'M'),
    col("STATUS", 'S'),
    col("AGE", 'A'),
];
pub const POD_SORTS: [SortColumn; 7] = [
    col("NAME", 'N'),
    col("NODE", 'O'),
    col("PRIORITY", 'P'),
    col("CPU", 'C'),
    col("MEM", 'M'),
    col("PHASE", 'S'),
    col("AGE", 'A'),
];

/// Oldest last: a creation time sorts by age, unknown ones after all.
fn by_age(a: Option<i64>, b: Option<i64>) -> Ordering {
    match (a, b) {
        (Some(x), Some(y)) => y.cmp(&x),
        (Some(_), None) => Ordering::Less,
        (None, Some(_)) => Ordering::Greater,
        (None, None) => Ordering::Equal,
    }
}

#[derive(Clone, Debug, Default)]
pub struct TableView {
    /// Index into the table's sort column names.
    pub sort: usize,
    pub descending: bool,
    pub filter: String,
    /// Row indices in display order.
    pub rows: Vec<u32>,
    pub cursor: Cursor,
    /// Every row matching `matched_for` (before the quality cut): typing
    /// one more character only searches these, since a fuzzy match of
    /// `abc` is also one of `ab`.
    matched: Vec<u32>,
    matched_for: String,
}

impl TableView {
    pub fn selected_row(&self) -> Option<u32> {
        self.rows.get(self.cursor.selected).copied()
    }

    /// The rows in scope changed (`:ns`): the next filter starts afresh.
    pub fn forget_matches(&mut self) {
        self.matched.clear();
        self.matched_for.clear();
    }

    /// Shift-letter: sort by the column of that letter, or reverse the
    /// order when it already is. Returns whether a column has the letter.
    pub fn sort_by_letter(&mut self, columns: &[SortColumn], letter: char) -> bool {
        let Some(i) = columns.iter().position(|c| c.letter == letter) else {
            return false;
        };
        if self.sort == i {
            self.descending = !self.descending;
        } else {
            self.sort = i;
            self.descending = false;
        }
        self.cursor.home();
        true
    }
}

/// Rows in the order of each sort column (ascending), so a sort key or
/// filter keystroke never re-sorts strings: it only reads these. The Nodes
/// table's are all built with the table. The Pods table's (150,000 rows)
/// are each built when first asked for, and a live update keeps current
/// only the columns asked for since the first table of its feed: merging
/// all seven on every batch took 4 ms of the batch's 5 ms budget.
#[derive(Clone, Debug, Default)]
pub struct SortOrders {
    /// `order[column]`: the rows in that column's order, once built.
    order: Vec<OnceLock<Vec<u32>>>,
    /// `rank[column][row]`: the row's position in that column's order,
    /// worked out when first read.
    rank: Vec<OnceLock<Vec<u32>>>,
    /// Per column, whether a view asked for it: shared by every update of
    /// these orders, so a live feed keeps the asked-for columns current.
    asked: Arc<[AtomicBool]>,
}

/// The same columns built, in the same orders (the ranks follow from the
/// orders).
impl PartialEq for SortOrders {
    fn eq(&self, other: &Self) -> bool {
        self.order.len() == other.order.len()
            && self
                .order
                .iter()
                .zip(&other.order)
                .all(|(a, b)| a.get() == b.get())
    }
}

impl Eq for SortOrders {}

/// Each row's position in `order`.
fn ranks(order: &[u32]) -> Vec<u32> {
    let mut r = vec![0u32; order.len()];
    for (pos, &row) in order.iter().enumerate() {
        r[row as usize] = pos as u32;
    }
    r
}

/// The rows by name (`by_name`, a total order).
fn sorted_by_name(len: usize, by_name: &(dyn Fn(usize, usize) -> Ordering + Sync)) -> Vec<u32> {
    let mut names: Vec<u32> = (0..len as u32).collect();
    names.par_sort_by(|&a, &b| by_name(a as usize, b as usize));
    names
}

/// The rows by a column's key, ties broken by the name's rank: an integer
/// compare instead of comparing names again.
fn sorted_by_key(
    name_rank: &[u32],
    by_key: &(dyn Fn(usize, usize) -> Ordering + Sync),
) -> Vec<u32> {
    let mut rows: Vec<u32> = (0..name_rank.len() as u32).collect();
    // Unstable is exact here: the name rank makes keys unique.
    rows.par_sort_unstable_by(|&a, &b| {
        by_key(a as usize, b as usize)
            .then_with(|| name_rank[a as usize].cmp(&name_rank[b as usize]))
    });
    rows
}

impl SortOrders {
    /// Every column built.
    fn of(order: Vec<Vec<u32>>) -> SortOrders {
        let asked = order.iter().map(|_| AtomicBool::new(false)).collect();
        SortOrders {
            rank: order.iter().map(|_| OnceLock::new()).collect(),
            order: order.into_iter().map(OnceLock::from).collect(),
            asked,
        }
    }

    /// No column built yet.
    fn unbuilt(columns: usize) -> SortOrders {
        SortOrders {
            order: (0..columns).map(|_| OnceLock::new()).collect(),
            rank: (0..columns).map(|_| OnceLock::new()).collect(),
            asked: (0..columns).map(|_| AtomicBool::new(false)).collect(),
        }
    }

    /// Column `col`'s order and ranks, if built; a view asking keeps it
    /// current through live updates.
    fn column(&self, col: usize) -> Option<(&[u32], &[u32])> {
        let order = self.order.get(col)?.get()?;
        self.asked[col].store(true, AtomicOrdering::Relaxed);
        let rank = self.rank[col].get_or_init(|| ranks(order));
        Some((order, rank))
    }

    /// Column `col`'s order and ranks, built now by `build` if not yet,
    /// without asking to keep it current.
    fn built_with(&self, col: usize, build: impl FnOnce() -> Vec<u32>) -> (&[u32], &[u32]) {
        let order = self.order[col].get_or_init(build);
        let rank = self.rank[col].get_or_init(|| ranks(order));
        (order, rank)
    }

    /// Sorts once by name (`by_name`, a total order), then every other
    /// column by its key with ties broken by the name's rank.
    fn build(
        len: usize,
        columns: usize,
        by_name: &(dyn Fn(usize, usize) -> Ordering + Sync),
        by_column: &(dyn Fn(usize, usize, usize) -> Ordering + Sync),
    ) -> SortOrders {
        let names = sorted_by_name(len, by_name);
        let name_rank = ranks(&names);
        let mut order = vec![names];
        order.extend(
            (1..columns).map(|col| sorted_by_key(&name_rank, &|a, b| by_column(col, a, b))),
        );
        SortOrders::of(order)
    }

    /// These orders after some rows changed: `fresh` (ascending, unique)
    /// are the rows rebuilt or added, every other row below `len` is
    /// unchanged, and rows from `len` on are gone. The columns built here
    /// that `carry` names are merged; the others are left to be built
    /// when asked for. The unchanged rows keep their relative order, so
    /// each column is one merge of the fresh rows into its runs of kept
    /// rows, with the order [`SortOrders::build`] gives (its name-rank
    /// tie-break is the name order itself).
    fn updated(
        &self,
        len: usize,
        fresh: &[u32],
        carry: &(dyn Fn(usize) -> bool + Sync),
        by_name: &(dyn Fn(usize, usize) -> Ordering + Sync),
        by_column: &(dyn Fn(usize, usize, usize) -> Ordering + Sync),
    ) -> SortOrders {
        let mut is_fresh = vec![false; len];
        for &r in fresh {
            is_fresh[r as usize] = true;
        }
        let kept = |r: u32| (r as usize) < len && !is_fresh[r as usize];
        let order: Vec<OnceLock<Vec<u32>>> = self
            .order
            .par_iter()
            .enumerate()
            .map(|(col, old)| {
                let Some(old) = old.get().filter(|_| carry(col)) else {
                    return OnceLock::new();
                };
                let cmp = |a: u32, b: u32| {
                    let (a, b) = (a as usize, b as usize);
                    if col == 0 {
                        by_name(a, b)
                    } else {
                        by_column(col, a, b).then_with(|| by_name(a, b))
                    }
                };
                let mut added = fresh.to_vec();
                added.sort_unstable_by(|&a, &b| cmp(a, b));
                // The runs of kept rows in the old order, copied whole
                // (the rows between them are few: fresh or gone).
                let mut runs: Vec<&[u32]> = old
                    .split(|&r| !kept(r))
                    .filter(|run| !run.is_empty())
                    .collect();
                runs.reverse();
                let mut merged = Vec::with_capacity(len);
                for r in added {
                    while let Some(run) = runs.last_mut() {
                        let at = run.partition_point(|&k| cmp(k, r) == Ordering::Less);
                        merged.extend_from_slice(&run[..at]);
                        if at < run.len() {
                            *run = &run[at..];
                            break;
                        }
                        runs.pop();
                    }
                    merged.push(r);
                }
                for run in runs.iter().rev() {
                    merged.extend_from_slice(run);
                }
                OnceLock::from(merged)
            })
            .collect();
        SortOrders {
            rank: order.iter().map(|_| OnceLock::new()).collect(),
            order,
            asked: self.asked.clone(),
        }
    }

    pub fn nodes<R: AsRef<NodeRow> + Sync>(rows: &[R], zone_names: &[String]) -> SortOrders {
        SortOrders::build(
            rows.len(),
            NODE_SORTS.len(),
            &|a, b| nodes_by_name(rows, a, b),
            &|col, a, b| nodes_by_column(rows, zone_names, col, a, b),
        )
    }

    /// The nodes' orders after `fresh` rows (ascending) were rebuilt, the
    /// nodes themselves unchanged (a live update of their pods): every
    /// column, as the Nodes table (5,000 rows) keeps them all.
    pub fn nodes_updated<R: AsRef<NodeRow> + Sync>(
        &self,
        rows: &[R],
        zone_names: &[String],
        fresh: &[u32],
    ) -> SortOrders {
        self.updated(
            rows.len(),
            fresh,
            &|_| true,
            &|a, b| nodes_by_name(rows, a, b),
            &|col, a, b| nodes_by_column(rows, zone_names, col, a, b),
        )
    }

    /// The Nodes table's column `col`.
    pub fn node_column(&self, col: usize) -> Option<(&[u32], &[u32])> {
        self.column(col)
    }

    /// The pods' orders with none built: each is built when first asked
    /// for ([`SortOrders::pod_column`]).
    pub fn pods() -> SortOrders {
        SortOrders::unbuilt(POD_SORTS.len())
    }

    /// The pods' column `col` of `rows` (the rows these orders are of),
    /// built now if not yet; kept current by live updates from now on.
    pub fn pod_column<R: PodRows + ?Sized>(
        &self,
        rows: &R,
        col: usize,
    ) -> Option<(&[u32], &[u32])> {
        self.asked.get(col)?.store(true, AtomicOrdering::Relaxed);
        Some(self.pod_order(rows, col))
    }

    /// The pods' column `col`, built now if not yet (name order first:
    /// the other columns break ties by it), without asking to keep it.
    pub fn pod_order<R: PodRows + ?Sized>(&self, rows: &R, col: usize) -> (&[u32], &[u32]) {
        self.built_with(col, || {
            if col == 0 {
                return sorted_by_name(rows.len(), &|a, b| pods_by_name(rows, a, b));
            }
            let (_, name_rank) = self.pod_order(rows, 0);
            sorted_by_key(name_rank, &|a, b| pods_by_column(rows, col, a, b))
        })
    }

    /// These orders, with the columns `other` was asked for asked for
    /// (shared from now on).
    pub fn asked_like(self, other: &SortOrders) -> SortOrders {
        SortOrders {
            asked: other.asked.clone(),
            ..self
        }
    }

    /// Builds every pod column asked for (side by side). Name order first,
    /// which the others read: a worker waiting in one column's sort may
    /// pick up another column's task, and two of them each building the
    /// name order inside their own would have one thread wait on itself.
    pub fn build_asked<R: PodRows + ?Sized>(&self, rows: &R) {
        self.pod_order(rows, 0);
        (1..self.order.len())
            .into_par_iter()
            .filter(|&col| self.asked[col].load(AtomicOrdering::Relaxed))
            .for_each(|col| {
                self.pod_order(rows, col);
            });
    }

    /// The pods' orders after `fresh` rows (ascending) were rebuilt or
    /// added and rows from `rows.len()` on removed (a live update): the
    /// columns asked for merged, the others left to be built when asked.
    pub fn pods_updated<R: PodRows + ?Sized>(&self, rows: &R, fresh: &[u32]) -> SortOrders {
        self.updated(
            rows.len(),
            fresh,
            &|col| self.asked[col].load(AtomicOrdering::Relaxed),
            &|a, b| pods_by_name(rows, a, b),
            &|col, a, b| pods_by_column(rows, col, a, b),
        )
    }
}

/// The pods' rows by index: a slice of them, or the Pods table's shared
/// chunks (a live update copies only the chunks it changes).
pub trait PodRows: Sync {
    fn len(&self) -> usize;
    fn row(&self, i: usize) -> &PodRow;
}

impl<R: AsRef<PodRow> + Sync> PodRows for [R] {
    fn len(&self) -> usize {
        <[R]>::len(self)
    }
    fn row(&self, i: usize) -> &PodRow {
        self[i].as_ref()
    }
}

impl<const BITS: u32> PodRows for crate::model::shared_vec::SharedVec<Arc<PodRow>, BITS> {
    fn len(&self) -> usize {
        crate::model::shared_vec::SharedVec::len(self)
    }
    fn row(&self, i: usize) -> &PodRow {
        &self[i]
    }
}

/// Node names are unique in a cluster: no further tie-break.
fn nodes_by_name<R: AsRef<NodeRow>>(rows: &[R], a: usize, b: usize) -> Ordering {
    rows[a].as_ref().name.cmp(&rows[b].as_ref().name)
}

fn nodes_by_column<R: AsRef<NodeRow>>(
    rows: &[R],
    zone_names: &[String],
    col: usize,
    a: usize,
    b: usize,
) -> Ordering {
    let (x, y) = (rows[a].as_ref(), rows[b].as_ref());
    match col {
        1 => zone_names[x.zone].cmp(&zone_names[y.zone]),
        2 => x.pods.cmp(&y.pods),
        3 => x.cpu.percent().cmp(&y.cpu.percent()),
        4 => x.memory.percent().cmp(&y.memory.percent()),
        5 => x.status.cmp(&y.status),
        6 => by_age(x.created, y.created),
        _ => Ordering::Equal,
    }
}

fn pods_by_name<R: PodRows + ?Sized>(rows: &R, a: usize, b: usize) -> Ordering {
    let (x, y) = (rows.row(a), rows.row(b));
    x.namespace
        .cmp(&y.namespace)
        .then_with(|| x.name.cmp(&y.name))
        // Two rows of one name (never in a cluster): stable.
        .then(a.cmp(&b))
}

fn pods_by_column<R: PodRows + ?Sized>(rows: &R, col: usize, a: usize, b: usize) -> Ordering {
    let (x, y) = (rows.row(a), rows.row(b));
    match col {
        1 => x.node.cmp(&y.node),
        2 => x.priority.cmp(&y.priority),
        3 => x.cpu.cmp(&y.cpu),
        4 => x.memory.cmp(&y.memory),
        5 => x.phase.cmp(y.phase),
        6 => by_age(x.created, y.created),
        _ => Ordering::Equal,
    }
}

/// A filter as typed after `/`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Filter<'a> {
    None,
    /// Fuzzy over every column (substring matches first).
    Text(&'a str),
    /// `!text`: the rows that do not contain the text.
    Without(&'a str),
    /// `-l app=web,tier!=db,gpu`: a label selector (equality-based, as
    /// `kubectl get -l`).
    Labels(Vec<Requirement>),
}

/// One requirement of a `-l` selector.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Requirement {
    Equals(String, String),
    NotEquals(String, String),
    Exists(String),
    Missing(String),
}

impl Requirement {
    fn matches(&self, labels: &[(&str, &str)]) -> bool {
        let get = |k: &str| labels.iter().find(|(lk, _)| *lk == k).map(|(_, v)| *v);
        match self {
            Requirement::Equals(k, v) => get(k) == Some(v.as_str()),
            Requirement::NotEquals(k, v) => get(k) != Some(v.as_str()),
            Requirement::Exists(k) => get(k).is_some(),
            Requirement::Missing(k) => get(k).is_none(),
        }
    }
}

impl Filter<'_> {
    pub fn parse(text: &str) -> Filter<'_> {
        let trimmed = text.trim_start();
        if let Some(sel) = trimmed.strip_prefix("-l") {
            let reqs = sel
                .split(',')
                .map(str::trim)
                .filter(|r| !r.is_empty())
                .map(|r| {
                    if let Some((k, v)) = r.split_once("!=") {
                        Requirement::NotEquals(k.trim().into(), v.trim().into())
                    } else if let Some((k, v)) = r.split_once("==").or_else(|| r.split_once('=')) {
                        Requirement::Equals(k.trim().into(), v.trim().into())
                    } else if let Some(k) = r.strip_prefix('!') {
                        Requirement::Missing(k.trim().into())
                    } else {
                        Requirement::Exists(r.into())
                    }
                })
                .collect();
            return Filter::Labels(reqs);
        }
        if let Some(t) = text.strip_prefix('!') {
            return if t.is_empty() {
                Filter::None
            } else {
                Filter::Without(t)
            };
        }
        if text.is_empty() {
            Filter::None
        } else {
            Filter::Text(text)
        }
    }
}

/// The `k=v` pairs at the end of a row's search text (after `labels_at`).
fn labels_of(search: &str, labels_at: usize) -> Vec<(&str, &str)> {
    search
        .get(labels_at..)
        .unwrap_or("")
        .split(' ')
        .filter_map(|kv| kv.split_once('='))
        .collect()
}

/// A table's rows to the filter: each row's search text (every column,
/// then its labels as `k=v` from byte `labels_at`) and whether the row is
/// in scope at all (the namespace chosen with `:ns`).
pub struct Source<'r> {
    pub search: &'r (dyn Fn(usize) -> (&'r str, usize) + Sync),
    pub keep: &'r (dyn Fn(usize) -> bool + Sync),
}

/// Without a filter: every row in the sort column's order. With one: the
/// fuzzy matches, best match first (so enter opens what was typed), ties
/// in the sort column's order. `!text` and `-l` keep the sort order.
fn refresh(view: &mut TableView, column: Option<(&[u32], &[u32])>, source: &Source) {
    let Some((order, rank)) = column else {
        view.rows.clear();
        return;
    };
    let descending = view.descending;
    let in_order = |view: &mut TableView, keep: &(dyn Fn(u32) -> bool + Sync)| {
        view.rows = order.par_iter().copied().filter(|&r| keep(r)).collect();
        if descending {
            view.rows.reverse();
        }
        view.matched_for.clear();
        view.cursor.clamp(view.rows.len());
    };
    let keep = source.keep;
    let filter = Filter::parse(&view.filter);
    let filter = match filter {
        Filter::None => return in_order(view, &|r| keep(r as usize)),
        Filter::Without(text) => {
            let needle = text.to_ascii_lowercase();
            return in_order(view, &|r| {
                keep(r as usize)
                    && !contains_ignore_ascii_case((source.search)(r as usize).0, &needle)
            });
        }
        Filter::Labels(reqs) => {
            return in_order(view, &|r| {
                let (text, at) = (source.search)(r as usize);
                let labels = labels_of(text, at);
                keep(r as usize) && reqs.iter().all(|q| q.matches(&labels))
            });
        }
        Filter::Text(t) => t,
    };
    let search = |i: usize| (source.search)(i).0;
    let narrowing = !view.matched_for.is_empty() && filter.starts_with(view.matched_for.as_str());
    let candidates: Vec<u32> = if narrowing {
        view.matched.clone()
    } else {
        (0..order.len() as u32)
            .filter(|&r| keep(r as usize))
            .collect()
    };
    let scored = rank_matches(&candidates, filter, &search);
    view.matched = scored.iter().map(|r| r.0).collect();
    view.matched_for = filter.to_string();
    if scored.len() > FUZZY_RANK_LIMIT && scored.iter().all(|r| r.1 == 0) {
        // Too many rows contain the text to rank them: keep the sort
        // column's order, filtering it rather than sorting again.
        let mut keep = vec![false; order.len()];
        for &(row, _) in &scored {
            keep[row as usize] = true;
        }
        view.rows = order
            .iter()
            .copied()
            .filter(|&r| keep[r as usize])
            .collect();
        if descending {
            view.rows.reverse();
        }
        view.cursor.clamp(view.rows.len());
        return;
    }
    let mut scored = scored;
    // Letters scattered over a long row (name, node, labels) match almost
    // anything; keep the rows that match about as well as the best.
    let best = scored.iter().map(|r| r.1).max().unwrap_or(0);
    scored.retain(|r| r.1 * 2 >= best);
    let position = |row: u32| {
        let r = rank[row as usize];
        if descending { u32::MAX - r } else { r }
    };
    scored.par_sort_unstable_by_key(|&(row, score)| (std::cmp::Reverse(score), position(row)));
    view.rows = scored.into_iter().map(|r| r.0).collect();
    view.cursor.clamp(view.rows.len());
}

/// Above this many rows containing the text, fuzzy scores are not worth
/// their cost: the rows keep the sort column's order.
const FUZZY_RANK_LIMIT: usize = 5_000;

/// The rows matching `filter` with a score (higher is better). Rows that
/// contain the text (ignoring ASCII case) come first and are cheap to find
/// in 150,000 rows; only when none does is every row fuzzy-matched, after a
/// quick in-order character check.
fn rank_matches<'r>(
    candidates: &[u32],
    filter: &str,
    search: &(dyn Fn(usize) -> &'r str + Sync),
) -> Vec<(u32, i64)> {
    let needle = filter.to_ascii_lowercase();
    let contains: Vec<u32> = candidates
        .par_iter()
        .copied()
        .filter(|&i| contains_ignore_ascii_case(search(i as usize), &needle))
        .collect();
    let matcher = SkimMatcherV2::default().ignore_case();
    let fuzzy = |i: u32| {
        matcher
            .fuzzy_match(search(i as usize), filter)
            .map(|s| (i, s))
    };
    if contains.len() > FUZZY_RANK_LIMIT {
        return contains.into_iter().map(|i| (i, 0)).collect();
    }
    if !contains.is_empty() {
        return contains.par_iter().filter_map(|&i| fuzzy(i)).collect();
    }
    candidates
        .par_iter()
        .copied()
        .filter(|&i| in_order_ignore_ascii_case(search(i as usize), &needle))
        .filter_map(fuzzy)
        .collect()
}

fn contains_ignore_ascii_case(haystack: &str, lower_needle: &str) -> bool {
    let (h, n) = (haystack.as_bytes(), lower_needle.as_bytes());
    n.is_empty()
        || h.windows(n.len())
            .any(|w| w.iter().zip(n).all(|(a, b)| a.to_ascii_lowercase() == *b))
}

/// Every character of the needle appears in the haystack, in order: a
/// necessary condition for a fuzzy match, and much cheaper.
fn in_order_ignore_ascii_case(haystack: &str, lower_needle: &str) -> bool {
    let mut wanted = lower_needle.chars().peekable();
    for c in haystack.chars() {
        match wanted.peek() {
            None => return true,
            Some(&w) if c.to_ascii_lowercase() == w => {
                wanted.next();
            }
            _ => {}
        }
    }
    wanted.peek().is_none()
}

pub fn refresh_nodes(view: &mut TableView, rows: &[std::sync::Arc<NodeRow>], orders: &SortOrders) {
    let search = |i: usize| (rows[i].search.as_str(), rows[i].labels_at);
    let column = orders.node_column(view.sort);
    refresh(
        view,
        column,
        &Source {
            search: &search,
            keep: &|_| true,
        },
    );
}

/// `namespace`: only that namespace's pods (`:ns NAME`).
pub fn refresh_pods(
    view: &mut TableView,
    table: &super::derived::PodTable,
    namespace: Option<&str>,
) {
    let rows = &table.rows;
    let search = |i: usize| (rows[i].search.as_str(), rows[i].labels_at);
    let keep = |i: usize| namespace.is_none_or(|ns| rows[i].namespace == ns);
    refresh(
        view,
        table.column(view.sort),
        &Source {
            search: &search,
            keep: &keep,
        },
    );
}

/// Indices of the `choices` matching `input` (fuzzy), best first; all, in
/// order, when `input` is empty.
pub fn fuzzy_rank_indices<S: AsRef<str>>(choices: &[S], input: &str) -> Vec<usize> {
    if input.is_empty() {
        return (0..choices.len()).collect();
    }
    let matcher = SkimMatcherV2::default().ignore_case();
    let mut scored: Vec<(i64, usize)> = choices
        .iter()
        .enumerate()
        .filter_map(|(i, c)| matcher.fuzzy_match(c.as_ref(), input).map(|s| (s, i)))
        .collect();
    scored.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    scored.into_iter().map(|(_, i)| i).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows() -> Vec<String> {
        vec![
            "shop/frontend-abc worker-a01 ReplicaSet app=frontend".into(),
            "payments/ledger-migrate worker-b03 Job app=ledger".into(),
            "ml/trainer-xl <pending> app=trainer".into(),
        ]
    }

    fn matches(filter: &str) -> Vec<u32> {
        let rows = rows();
        let search = |i: usize| rows[i].as_str();
        let mut m: Vec<u32> = rank_matches(&[0, 1, 2], filter, &search)
            .into_iter()
            .map(|r| r.0)
            .collect();
        m.sort();
        m
    }

    #[test]
    fn substring_matches_ignore_case() {
        assert_eq!(matches("LEDGER"), vec![1]);
        assert_eq!(matches("worker-"), vec![0, 1]);
    }

    #[test]
    fn fuzzy_matches_when_no_row_contains_the_text() {
        assert_eq!(matches("trnxl"), vec![2], "letters in order, not adjacent");
        assert!(matches("zzz").is_empty());
    }

    #[test]
    fn filters_parse_inverse_and_label_selectors() {
        assert_eq!(Filter::parse("!web"), Filter::Without("web"));
        assert_eq!(
            Filter::parse("-l app=web,tier!=db,gpu,!spot"),
            Filter::Labels(vec![
                Requirement::Equals("app".into(), "web".into()),
                Requirement::NotEquals("tier".into(), "db".into()),
                Requirement::Exists("gpu".into()),
                Requirement::Missing("spot".into()),
            ])
        );
        let labels = labels_of("shop/web-1 node-a Running app=web tier=front", 26);
        assert_eq!(labels, vec![("app", "web"), ("tier", "front")]);
        assert!(Requirement::NotEquals("tier".into(), "db".into()).matches(&labels));
        assert!(!Requirement::Exists("gpu".into()).matches(&labels));
    }

    #[test]
    fn in_order_check() {
        assert!(in_order_ignore_ascii_case("Trainer-XL", "trxl"));
        assert!(!in_order_ignore_ascii_case("trainer", "xt"));
    }

    fn pod_row(namespace: &str, name: &str, priority: i32, node: &str) -> PodRow {
        PodRow {
            id: 0,
            namespace: namespace.into(),
            name: name.into(),
            node: node.into(),
            phase: "Running",
            priority,
            cpu: 0,
            memory: 0,
            owner: String::new(),
            created: None,
            search: String::new(),
            labels_at: 0,
        }
    }

    #[test]
    fn every_column_breaks_ties_by_namespace_then_name() {
        let rows = [
            pod_row("shop", "web-b", 100, "node-2"),
            pod_row("data", "db-0", 1000, "node-1"),
            pod_row("shop", "web-a", 100, "node-1"),
            pod_row("data", "cache", 100, "node-2"),
            pod_row("shop", "api", 1000, "node-1"),
        ];
        let orders = SortOrders::pods();
        let names = |col: usize| -> Vec<String> {
            orders
                .pod_column(&rows[..], col)
                .unwrap()
                .0
                .iter()
                .map(|&r| format!("{}/{}", rows[r as usize].namespace, rows[r as usize].name))
                .collect()
        };
        assert_eq!(
            names(0),
            [
                "data/cache",
                "data/db-0",
                "shop/api",
                "shop/web-a",
                "shop/web-b"
            ]
        );
        // PRIORITY ascending, equal priorities by namespace and name.
        assert_eq!(
            names(2),
            [
                "data/cache",
                "shop/web-a",
                "shop/web-b",
                "data/db-0",
                "shop/api"
            ]
        );
        // NODE, then namespace and name.
        assert_eq!(
            names(1),
            [
                "data/db-0",
                "shop/api",
                "shop/web-a",
                "data/cache",
                "shop/web-b"
            ]
        );
        // Ranks are the inverse of the orders.
        for col in 0..POD_SORTS.len() {
            let (order, rank) = orders.pod_column(&rows[..], col).unwrap();
            for (pos, &row) in order.iter().enumerate() {
                assert_eq!(rank[row as usize], pos as u32);
            }
        }
    }

    /// A live update merges only the columns a view asked for; the others
    /// are built when first asked, and either way equal a fresh sort.
    #[test]
    fn an_update_keeps_the_asked_columns_and_builds_the_others_when_asked() {
        let before = [
            pod_row("shop", "web-b", 100, "node-2"),
            pod_row("data", "db-0", 1000, "node-1"),
            pod_row("shop", "web-a", 100, "node-1"),
            pod_row("data", "cache", 100, "node-2"),
        ];
        let orders = SortOrders::pods();
        orders.pod_column(&before[..], 0);
        orders.pod_column(&before[..], 2);
        // Row 1 changes priority, row 3 is gone (the last row), a new row 3
        // is not: three rows left, then one added as row 3.
        let mut after = before.to_vec();
        after[1] = pod_row("data", "db-0", 10, "node-1");
        after[3] = pod_row("ads", "api", 500, "node-3");
        let updated = orders.pods_updated(&after[..], &[1, 3]);
        let built = |col: usize| updated.order[col].get().is_some();
        assert_eq!(
            (0..POD_SORTS.len())
                .filter(|&c| built(c))
                .collect::<Vec<_>>(),
            [0, 2]
        );
        let fresh = SortOrders::pods();
        for col in 0..POD_SORTS.len() {
            assert_eq!(
                updated.pod_column(&after[..], col).unwrap().0,
                fresh.pod_column(&after[..], col).unwrap().0,
                "column {col}"
            );
        }
        // Asked for once, every column is now kept by the next update.
        let next = updated.pods_updated(&after[..], &[]);
        assert!((0..POD_SORTS.len()).all(|c| next.order[c].get().is_some()));
    }
}
