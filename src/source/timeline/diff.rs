//! What changed between two moments of a timeline: pods added, removed, and
//! moved between nodes (or bound/unbound).

use super::{ObjectSet, Timeline};
use crate::source::build::ModelObject;
use crate::source::live::kind::Kind;

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Diff {
    /// `namespace/name` of pods present only at the later moment.
    pub added: Vec<String>,
    /// Pods present only at the earlier moment.
    pub removed: Vec<String>,
    pub moved: Vec<Move>,
}

/// A pod whose node changed (`None`: not bound).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Move {
    pub pod: String,
    pub from: Option<String>,
    pub to: Option<String>,
}

fn node_of(t: &Timeline, set: &ObjectSet, obj: u32) -> Option<String> {
    let v = set.get(&obj)?;
    match &t.version(*v).model {
        Some(ModelObject::Pod(p)) => p.node_name.as_deref().map(str::to_string),
        _ => None,
    }
}

pub fn diff(t: &Timeline, a: &ObjectSet, b: &ObjectSet) -> Diff {
    let mut d = Diff::default();
    let is_pod = |obj: u32| t.key(obj).0 == Kind::Pod;
    for &obj in b.keys().filter(|&&o| is_pod(o)) {
        if !a.contains_key(&obj) {
            d.added.push(t.key(obj).1.to_string());
            continue;
        }
        let (from, to) = (node_of(t, a, obj), node_of(t, b, obj));
        if from != to {
            d.moved.push(Move {
                pod: t.key(obj).1.to_string(),
                from,
                to,
            });
        }
    }
    for &obj in a.keys().filter(|&&o| is_pod(o)) {
        if !b.contains_key(&obj) {
            d.removed.push(t.key(obj).1.to_string());
        }
    }
    d.added.sort();
    d.removed.sort();
    d.moved.sort_by(|x, y| x.pod.cmp(&y.pod));
    d
}
