//! `nodeunschedulable`: cordoned nodes, unless the pod tolerates the
//! `node.kubernetes.io/unschedulable:NoSchedule` taint.

use super::taint_toleration::tolerates;
use crate::engine::status::{FilterResult, Plugin, Rejection};
use crate::model::node::{Node, Taint, TaintEffect};
use crate::model::pod::Pod;

pub const REASON: &str = "node(s) were unschedulable";

pub fn filter(pod: &Pod, node: &Node) -> FilterResult {
    if !node.unschedulable {
        return Ok(());
    }
    static TAINT: std::sync::LazyLock<Taint> = std::sync::LazyLock::new(|| {
        Taint::new(
            "node.kubernetes.io/unschedulable",
            "",
            TaintEffect::NoSchedule,
        )
    });
    if pod.tolerations.iter().any(|t| tolerates(t, &TAINT)) {
        return Ok(());
    }
    Err(Rejection::unresolvable(Plugin::NodeUnschedulable, REASON))
}
