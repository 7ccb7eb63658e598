//! `NodeResourcesFit` Filter: pod count, cpu, memory, ephemeral storage and
//! extended resources against `allocatable − requested`.

use super::resource_allocation::{self, Requests, ScoredResource};
use super::{least_allocated, most_allocated, requested_to_capacity_ratio};
use crate::engine::profile::{FitArgs, ScoringStrategy};
use std::ops::ControlFlow;

use crate::engine::status::{Code, FilterResult, Plugin, Reason, Reasons, Rejection};
use crate::engine::version::Version;
use crate::model::intern::Interner;
use crate::model::resources::CpuMem;
use crate::model::{Node, NodeInfo, NodeLoad, Pod};

/// One pod against one node: NodeResourcesFit's Filter ([`FitCheck::filter`])
/// or its verdict alone ([`FitCheck::fits`]).
pub struct FitCheck<'a> {
    pub pod: &'a Pod,
    pub node: &'a Node,
    pub info: &'a NodeInfo,
    pub interner: &'a Interner,
    pub args: &'a FitArgs,
    pub version: Version,
}

/// [`FitCheck::fits`] for a pod that requests cpu and memory alone
/// (`request`), from the node's dense sums: what a placement asks of every
/// node that passed the memo's prefix when this is the only filter left.
pub fn fits_load(request: CpuMem, load: &NodeLoad, version: Version) -> bool {
    let used = load.requested_cpu_mem(version);
    let alloc = load.allocatable();
    (load.pods() as i64) < load.allowed_pods()
        && !(request.milli_cpu > 0
            && request.milli_cpu > alloc.milli_cpu.wrapping_sub(used.milli_cpu))
        && !(request.memory > 0 && request.memory > alloc.memory.wrapping_sub(used.memory))
}

/// The pod's cpu and memory request when it requests nothing else (no
/// ephemeral storage, no extended resources): [`fits_load`] decides then.
pub fn cpu_mem_request_alone(pod: &Pod, version: Version) -> Option<CpuMem> {
    let r = pod.requests_in(version);
    (r.ephemeral_storage == 0 && r.scalars.is_empty()).then_some(CpuMem {
        milli_cpu: r.milli_cpu,
        memory: r.memory,
    })
}

impl FitCheck<'_> {
    /// From v1.34 a request above the node's whole allocatable makes the
    /// status UnschedulableAndUnresolvable (preemption cannot free what was
    /// never there); "Too many pods" never does.
    pub fn filter(&self) -> FilterResult {
        let mut reasons = Reasons::none();
        let mut unresolvable = false;
        let _ = self.shortages(|reason, above| {
            reasons.push(reason());
            unresolvable |= above;
            ControlFlow::Continue(())
        });
        if reasons.is_empty() {
            Ok(())
        } else {
            Err(Rejection {
                plugin: Plugin::NodeResourcesFit,
                code: if unresolvable && self.version.fit_unresolvable_above_allocatable() {
                    Code::UnschedulableAndUnresolvable
                } else {
                    Code::Unschedulable
                },
                reasons,
            })
        }
    }

    /// Whether the pod fits: [`FitCheck::filter`] without building its
    /// rejection, for preemption's reprieve, which asks once per victim on
    /// every node.
    pub fn fits(&self) -> bool {
        self.shortages(|_, _| ControlFlow::Break(())).is_continue()
    }

    /// Calls `each` with every resource the node lacks for the pod, in
    /// upstream's order: its reason (built on demand) and whether the
    /// request exceeds the node's whole allocatable. `each` may stop the walk.
    fn shortages(
        &self,
        mut each: impl FnMut(&dyn Fn() -> Reason, bool) -> ControlFlow<()>,
    ) -> ControlFlow<()> {
        let FitCheck {
            pod,
            node,
            info,
            interner,
            args,
            version,
        } = *self;
        let alloc = &node.allocatable;
        if info.pods.len() as i64 + 1 > alloc.allowed_pods {
            each(&|| "Too many pods".into(), false)?;
        }
        let r = pod.requests_in(version);
        let empty =
            r.milli_cpu == 0 && r.memory == 0 && r.ephemeral_storage == 0 && r.scalars.is_empty();
        if empty {
            return ControlFlow::Continue(());
        }
        let used = &info.requested;
        let used_cpu_mem = info.requested_cpu_mem(version);
        if r.milli_cpu > 0 && r.milli_cpu > alloc.milli_cpu.wrapping_sub(used_cpu_mem.milli_cpu) {
            each(&|| "Insufficient cpu".into(), r.milli_cpu > alloc.milli_cpu)?;
        }
        if r.memory > 0 && r.memory > alloc.memory.wrapping_sub(used_cpu_mem.memory) {
            each(&|| "Insufficient memory".into(), r.memory > alloc.memory)?;
        }
        if r.ephemeral_storage > 0
            && r.ephemeral_storage > alloc.ephemeral_storage.wrapping_sub(used.ephemeral_storage)
        {
            each(
                &|| "Insufficient ephemeral-storage".into(),
                r.ephemeral_storage > alloc.ephemeral_storage,
            )?;
        }
        for &(name, want) in &r.scalars {
            let resource = interner.resolve(name);
            if is_extended_resource(resource) && args.ignores(resource) {
                continue;
            }
            if want != 0
                && want
                    > alloc
                        .scalar(name)
                        .wrapping_sub(info.requested_scalar(name, version))
            {
                each(
                    &|| format!("Insufficient {resource}").into(),
                    want > alloc.scalar(name),
                )?;
            }
        }
        ControlFlow::Continue(())
    }
}

/// `v1helper.IsExtendedResourceName`: not a native (`kubernetes.io/`) name,
/// has a domain prefix, and is not a quota `requests.` name.
fn is_extended_resource(name: &str) -> bool {
    name.contains('/') && !name.contains("kubernetes.io/") && !name.starts_with("requests.")
}

/// NodeResourcesFit's PreScore state: the strategy and the pod's request
/// of each configured resource.
pub struct FitScorer<'a> {
    strategy: &'a ScoringStrategy,
    resources: Vec<ScoredResource>,
    version: Version,
}

/// PreScore.
pub fn pre_score<'a>(
    pod: &Pod,
    args: &'a FitArgs,
    interner: &Interner,
    version: Version,
) -> FitScorer<'a> {
    FitScorer {
        strategy: &args.strategy,
        resources: resource_allocation::resolve(
            &args.resources,
            pod,
            interner,
            Requests::NonZeroForFit,
            version,
        ),
        version,
    }
}

impl FitScorer<'_> {
    /// The pod's request of each scored resource.
    pub fn resources(&self) -> &[ScoredResource] {
        &self.resources
    }

    /// The node's request sums the score reads (when it reads only cpu
    /// and memory, [`resource_allocation::reads_only_cpu_mem`]).
    pub fn sums(&self, load: &crate::model::NodeLoad) -> crate::model::resources::CpuMem {
        resource_allocation::cpu_mem_sums_of_load(load, Requests::NonZeroForFit, self.version)
    }

    /// The strategy's weighted average over the resources a node has.
    pub fn score(&self, node: &Node, info: &NodeInfo) -> i64 {
        let (mut node_score, mut weight_sum) = (0i64, 0i64);
        for r in &self.resources {
            let (alloc, requested) = resource_allocation::allocatable_and_requested(
                r,
                node,
                info,
                Requests::NonZeroForFit,
                self.version,
            );
            if alloc == 0 {
                continue;
            }
            let score = match self.strategy {
                ScoringStrategy::LeastAllocated => {
                    least_allocated::least_requested_score(requested, alloc)
                }
                ScoringStrategy::MostAllocated => {
                    most_allocated::most_requested_score(requested, alloc)
                }
                ScoringStrategy::RequestedToCapacityRatio(shape) => {
                    let s = requested_to_capacity_ratio::resource_score(shape, requested, alloc);
                    // RequestedToCapacityRatio counts only resources that score.
                    if s <= 0 {
                        continue;
                    }
                    s
                }
            };
            node_score += score * r.weight;
            weight_sum += r.weight;
        }
        if weight_sum == 0 {
            return 0;
        }
        match self.strategy {
            ScoringStrategy::RequestedToCapacityRatio(_) => {
                crate::engine::plugins::round_to_i64(node_score as f64 / weight_sum as f64)
            }
            _ => node_score / weight_sum,
        }
    }
}
