//! The engine's tests that need clusters written as YAML. They live beside
//! the application because the core crate has no YAML reader and no
//! object→model conversion (that is the sources' job): each module tests one
//! engine module through its public functions, on clusters loaded exactly as
//! `kplace` loads them.

#[path = "engine/support.rs"]
mod support;

#[path = "engine/daemonset.rs"]
mod daemonset;
#[path = "engine/disruption.rs"]
mod disruption;
#[path = "engine/dynamicresources.rs"]
mod dynamicresources;
#[path = "engine/existing.rs"]
mod existing;
#[path = "engine/interpodaffinity.rs"]
mod interpodaffinity;
#[path = "engine/kept_lookups.rs"]
mod kept_lookups;
#[path = "engine/label_index.rs"]
mod label_index;
#[path = "engine/nodevolumelimits.rs"]
mod nodevolumelimits;
#[path = "engine/podtopologyspread.rs"]
mod podtopologyspread;
#[path = "engine/preemption.rs"]
mod preemption;
#[path = "engine/remedies.rs"]
mod remedies;
#[path = "engine/replicas.rs"]
mod replicas;
#[path = "engine/split_passes.rs"]
mod split_passes;
#[path = "engine/termination.rs"]
mod termination;
#[path = "engine/volumebinding.rs"]
mod volumebinding;
#[path = "engine/volumerestrictions.rs"]
mod volumerestrictions;
#[path = "engine/volumezone.rs"]
mod volumezone;
