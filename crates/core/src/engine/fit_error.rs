//! The scheduler's `FitError` text (`0/N nodes are available: ...`), as
//! `kubectl describe pod` shows it in the `FailedScheduling` event.

use std::collections::BTreeMap;

use super::status::Rejection;

pub const NO_NODES_AVAILABLE: &str = "no nodes available to schedule pods";

/// Builds the message from the per-node statuses, or from PreFilter's
/// rejection when PreFilter failed.
pub fn fit_error_message<'r>(
    num_nodes: usize,
    prefilter: Option<&Rejection>,
    statuses: impl IntoIterator<Item = &'r Rejection>,
) -> String {
    let mut msg = format!("0/{num_nodes} nodes are available:");
    if let Some(pre) = prefilter {
        msg.push(' ');
        msg.push_str(&pre.reasons.join(", "));
        msg.push('.');
        return msg;
    }
    let mut histogram: BTreeMap<&str, usize> = BTreeMap::new();
    for status in statuses {
        for r in &status.reasons {
            *histogram.entry(r).or_default() += 1;
        }
    }
    let mut items: Vec<String> = histogram.iter().map(|(r, n)| format!("{n} {r}")).collect();
    items.sort();
    if !items.is_empty() {
        msg.push(' ');
        msg.push_str(&items.join(", "));
        msg.push('.');
    }
    msg
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::status::{Plugin, Rejection};

    #[test]
    fn histogram_sorts_bytewise_with_counts() {
        let mut statuses = Vec::new();
        for _ in 0..10 {
            statuses.push(Rejection::unschedulable(
                Plugin::NodeResourcesFit,
                "Insufficient memory",
            ));
        }
        for _ in 0..2 {
            statuses.push(Rejection::unschedulable(
                Plugin::NodeResourcesFit,
                "Insufficient cpu",
            ));
        }
        let msg = fit_error_message(12, None, &statuses);
        assert_eq!(
            msg,
            "0/12 nodes are available: 10 Insufficient memory, 2 Insufficient cpu."
        );
    }

    /// A taint's shared reason and the same text built or borrowed count
    /// as one reason: the message groups by text, however it is held.
    #[test]
    fn reasons_held_differently_count_together() {
        use crate::model::node::{Taint, TaintEffect};
        let taint = Taint::new("gpu", "true", TaintEffect::NoSchedule);
        let text = "node(s) had untolerated taint {gpu: true}";
        assert_eq!(&**taint.untolerated(), text);
        let statuses = [
            Rejection::unresolvable(Plugin::TaintToleration, taint.untolerated().clone()),
            Rejection::unresolvable(Plugin::TaintToleration, taint.untolerated().clone()),
            Rejection::unresolvable(Plugin::TaintToleration, text.to_string()),
            Rejection::unresolvable(Plugin::TaintToleration, text),
        ];
        assert_eq!(statuses[0], statuses[2]);
        assert_eq!(statuses[0], statuses[3]);
        assert_eq!(
            fit_error_message(4, None, &statuses),
            "0/4 nodes are available: 4 node(s) had untolerated taint {gpu: true}."
        );
    }

    #[test]
    fn empty_status_map_ends_after_colon() {
        assert_eq!(fit_error_message(3, None, &[]), "0/3 nodes are available:");
    }
}
