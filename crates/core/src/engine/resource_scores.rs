//! What a memo keeps of NodeResourcesFit's and
//! NodeResourcesBalancedAllocation's scores between placements: each
//! node's raw score for one scorer (the pod's requests under one profile
//! and release), with the node's request sums it was computed from.
//!
//! A disruption re-places 30,000 pods of a hundred or so request shapes on
//! nodes that do not change; between two placements of a shape only the
//! nodes where pods landed or were evicted changed their sums. Computing
//! the two scores (integer and floating divisions per resource) was a
//! sixth of a `:lose ZONE`; comparing the sums and reading the kept score
//! is a fraction of that. A score is reused only when the node's sums are
//! exactly those it was computed from, so the answers are the scorer's
//! (tested against full runs).
//!
//! Not part of upstream, which scores every node in every attempt.

use std::sync::atomic::{AtomicI64, Ordering::Relaxed};
use std::sync::{Arc, Mutex};

use rustc_hash::FxHashMap;

use super::plugins::noderesources::resource_allocation::ScoredResource;
use super::profile::Profile;
use super::status::Plugin;
use super::version::Version;
use crate::model::NodeId;
use crate::model::resources::CpuMem;

/// The scorers a memo keeps scores for, each with a column per node.
pub(crate) struct ResourceScores {
    nodes: usize,
    columns: Mutex<FxHashMap<ScorerKey, Arc<ScoreColumn>>>,
}

/// What a resource scorer's score on a node depends on besides the node:
/// the plugin, the profile (its strategy and resources, by identity), the
/// release, and the pod's request of each scored resource.
#[derive(Clone)]
struct ScorerKey {
    plugin: Plugin,
    profile: Arc<Profile>,
    version: Version,
    resources: Box<[ScoredResource]>,
}

impl PartialEq for ScorerKey {
    fn eq(&self, other: &Self) -> bool {
        self.plugin == other.plugin
            && Arc::ptr_eq(&self.profile, &other.profile)
            && self.version == other.version
            && self.resources == other.resources
    }
}

impl Eq for ScorerKey {}

impl std::hash::Hash for ScorerKey {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.plugin.hash(state);
        Arc::as_ptr(&self.profile).hash(state);
        self.version.hash(state);
        self.resources.hash(state);
    }
}

/// Node request slots kept at most, over all columns: about 48 MB. Past
/// it the columns are dropped and made again as placements need them.
const MAX_SLOTS: usize = 2 << 20;

impl ResourceScores {
    pub(crate) fn new(nodes: usize) -> Self {
        ResourceScores {
            nodes,
            columns: Mutex::default(),
        }
    }

    /// The column of `plugin`'s scorer for a pod requesting `resources`
    /// under `profile` and `version`, made empty when missing.
    pub(crate) fn column(
        &self,
        plugin: Plugin,
        profile: &Arc<Profile>,
        version: Version,
        resources: &[ScoredResource],
    ) -> Arc<ScoreColumn> {
        let key = ScorerKey {
            plugin,
            profile: profile.clone(),
            version,
            resources: resources.into(),
        };
        let mut columns = self.columns.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(column) = columns.get(&key) {
            return column.clone();
        }
        if (columns.len() + 1) * self.nodes.max(1) > MAX_SLOTS {
            columns.clear();
        }
        let column = Arc::new(ScoreColumn::new(self.nodes));
        columns.insert(key, column.clone());
        column
    }
}

/// One scorer's raw score per node, each with the node's request sums it
/// was computed from. Each node's slot is written only by the part of a
/// placement that scores that node, so the slot's fields never mix two
/// writes.
pub(crate) struct ScoreColumn {
    slots: Box<[Slot]>,
}

#[derive(Default)]
struct Slot {
    milli_cpu: AtomicI64,
    memory: AtomicI64,
    score: AtomicI64,
}

/// A slot never scored: raw scores are small and never this.
const UNSCORED: i64 = i64::MIN;

impl ScoreColumn {
    fn new(nodes: usize) -> Self {
        ScoreColumn {
            slots: (0..nodes)
                .map(|_| Slot {
                    score: AtomicI64::new(UNSCORED),
                    ..Slot::default()
                })
                .collect(),
        }
    }

    /// The score of `node` whose request sums are `sums`: the kept one
    /// when it was computed from these sums, else `score()`, kept.
    /// Inlined into the scoring loop, which asks it of every feasible
    /// node twice per placement (NodeResourcesFit, BalancedAllocation).
    #[inline]
    pub(crate) fn score(&self, node: NodeId, sums: CpuMem, score: impl FnOnce() -> i64) -> i64 {
        let slot = &self.slots[node as usize];
        let kept = slot.score.load(Relaxed);
        if kept != UNSCORED
            && slot.milli_cpu.load(Relaxed) == sums.milli_cpu
            && slot.memory.load(Relaxed) == sums.memory
        {
            return kept;
        }
        let fresh = score();
        slot.milli_cpu.store(sums.milli_cpu, Relaxed);
        slot.memory.store(sums.memory, Relaxed);
        slot.score.store(fresh, Relaxed);
        fresh
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;

    fn sums(milli_cpu: i64, memory: i64) -> CpuMem {
        CpuMem { milli_cpu, memory }
    }

    #[test]
    fn a_kept_score_is_used_only_with_the_sums_it_was_computed_from() {
        let column = ScoreColumn::new(2);
        let runs = Cell::new(0);
        let scorer = |v: i64| {
            runs.set(runs.get() + 1);
            v
        };
        assert_eq!(column.score(1, sums(100, 200), || scorer(7)), 7);
        assert_eq!(column.score(1, sums(100, 200), || scorer(99)), 7);
        assert_eq!(runs.get(), 1, "equal sums reuse the score");
        // Either sum changing runs the scorer again.
        assert_eq!(column.score(1, sums(100, 201), || scorer(8)), 8);
        assert_eq!(column.score(1, sums(101, 201), || scorer(9)), 9);
        assert_eq!(column.score(1, sums(101, 201), || scorer(99)), 9);
        assert_eq!(runs.get(), 3);
        // Slots are per node.
        assert_eq!(column.score(0, sums(101, 201), || scorer(4)), 4);
        assert_eq!(runs.get(), 4);
    }

    #[test]
    fn a_node_never_scored_is_scored_even_with_zero_sums() {
        let column = ScoreColumn::new(1);
        assert_eq!(column.score(0, sums(0, 0), || 42), 42);
        assert_eq!(column.score(0, sums(0, 0), || 0), 42);
    }
}
