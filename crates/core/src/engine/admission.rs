//! Priority admission (`plugin/pkg/admission/priority`): resolve the pod's
//! priority and preemption policy from its PriorityClass, as the API server
//! does when the pod is created.

use crate::model::pod::PreemptionPolicy;
use crate::model::{Cluster, Pod};

/// What admission wrote into the pod.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Admitted {
    pub priority: i32,
    pub preemption_policy: PreemptionPolicy,
    /// The class used, if any (the global default fills an empty name).
    pub priority_class: Option<String>,
}

/// Resolves the priority or returns the API server's refusal.
pub fn admit(cluster: &Cluster, pod: &Pod) -> Result<Admitted, String> {
    let forbidden = |msg: String| format!("pods \"{}\" is forbidden: {msg}", pod.name);
    let (priority, policy, class) = match &pod.priority_class_name {
        None => match cluster
            .priority_classes
            .iter()
            .filter(|pc| pc.global_default)
            .min_by_key(|pc| pc.value)
        {
            Some(pc) => (pc.value, pc.preemption_policy, Some(pc.name.to_string())),
            None => (0, PreemptionPolicy::PreemptLowerPriority, None),
        },
        Some(name) => match cluster.priority_class(name) {
            Some(pc) => (pc.value, pc.preemption_policy, Some(pc.name.to_string())),
            None => {
                return Err(forbidden(format!(
                    "no PriorityClass with name {name} was found"
                )));
            }
        },
    };
    if let Some(given) = pod.priority
        && given != priority
    {
        return Err(forbidden(format!(
            "the integer value of priority ({given}) must not be provided in pod spec; priority admission controller computed {priority} from the given PriorityClass name"
        )));
    }
    if let Some(given) = pod.preemption_policy
        && given != policy
    {
        return Err(forbidden(format!(
            "the string value of PreemptionPolicy ({}) must not be provided in pod spec; priority admission controller computed {} from the given PriorityClass name",
            given.as_str(),
            policy.as_str()
        )));
    }
    Ok(Admitted {
        priority,
        preemption_policy: policy,
        priority_class: class,
    })
}
