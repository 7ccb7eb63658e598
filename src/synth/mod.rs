//! Synthetic clusters at scale, for benchmarks and `kplace synth`.
//!
//! [`write_cluster_json`] writes a deterministic, production-looking cluster
//! in the shape of `kubectl get ... -o json` (a `List`): EKS-like nodes in
//! four node pools across zones, Deployments (via ReplicaSets) and
//! StatefulSets in many namespaces with their pods bound so that nodes are
//! 60–90% allocated, DaemonSets, Services, PodDisruptionBudgets and
//! PriorityClasses. Each StatefulSet pod has a claim from its set's
//! `volumeClaimTemplates`, bound to a zonal CSI volume in its node's zone
//! (a Pending pod's waits unbound) in the default WaitForFirstConsumer
//! class, and every node has a CSINode with the driver's attach limit. [`fitting_pod_yaml`] and [`preempting_pod_yaml`] are
//! incoming pods that drive the scoring path and the preemption path.
//!
//! Everything derives from [`SynthSpec::seed`]: the same spec always gives
//! the same bytes, so benchmark runs compare like with like.

mod catalog;
mod incoming;
mod planner;
mod rng;
#[cfg(test)]
mod tests;
mod writers;

use std::cmp::Reverse;
use std::fmt::Write as _;
use std::io::{self, BufWriter, Write};

use rustc_hash::FxHashSet;
use serde_json::{Map, Value, json};

use catalog::*;
use planner::*;
use rng::*;
use writers::*;

pub use incoming::{fitting_pod_yaml, preempting_pod_yaml};
pub use writers::{Written, write_cluster_json};

use crate::source::convert::rfc3339;

/// The size and shape of a synthetic cluster.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SynthSpec {
    /// Nodes in four pools: general, compute, memory and tainted infra.
    pub nodes: usize,
    /// Every pod of the snapshot: DaemonSet pods, workload pods and a few pending ones.
    pub pods: usize,
    /// Availability zones (1 to 26).
    pub zones: usize,
    /// Everything random derives from it: equal specs give equal bytes.
    pub seed: u64,
}

impl Default for SynthSpec {
    /// A large production cluster: 5,000 nodes and 150,000 pods in 5 zones.
    fn default() -> Self {
        SynthSpec {
            nodes: 5000,
            pods: 150_000,
            zones: 5,
            seed: 42,
        }
    }
}

impl SynthSpec {
    /// The same density as the default at 1/25 of the size, for tests.
    pub fn small() -> Self {
        SynthSpec {
            nodes: 200,
            pods: 6000,
            zones: 3,
            seed: 42,
        }
    }
}
