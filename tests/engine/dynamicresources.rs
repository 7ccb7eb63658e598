//! The plugin and its allocator on hand-built slices and claims.

use crate::support::prelude::*;

use crate::support::{cluster_from_yaml, pod_from_yaml};
use kplace::engine::plugins::dynamicresources::*;
use kplace::engine::status::Code;
use kplace::model::NodeId;

/// Two nodes: n1 (zone z1) with two A100s and an L4, n2 (zone z2) with one
/// L4; a fabric pool reachable from zone z1.
const BASE: &str = r#"
apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Node
  metadata: {name: n1, labels: {topology.kubernetes.io/zone: z1}}
  status: {allocatable: {cpu: "8", memory: 32Gi, pods: "110"}}
- apiVersion: v1
  kind: Node
  metadata: {name: n2, labels: {topology.kubernetes.io/zone: z2}}
  status: {allocatable: {cpu: "8", memory: 32Gi, pods: "110"}}
- apiVersion: resource.k8s.io/v1
  kind: DeviceClass
  metadata: {name: gpu}
  spec:
    selectors:
    - cel: {expression: device.driver == "gpu.example.com"}
- apiVersion: resource.k8s.io/v1
  kind: DeviceClass
  metadata: {name: big-gpu}
  spec:
    selectors:
    - cel: {expression: device.driver == "gpu.example.com"}
    - cel: {expression: 'device.capacity["gpu.example.com"].memory.compareTo(quantity("40Gi")) >= 0'}
- apiVersion: resource.k8s.io/v1
  kind: DeviceClass
  metadata: {name: fabric}
  spec:
    selectors:
    - cel: {expression: device.driver == "fabric.example.com"}
- apiVersion: resource.k8s.io/v1
  kind: ResourceSlice
  metadata: {name: n1-gpus}
  spec:
    driver: gpu.example.com
    nodeName: n1
    pool: {name: n1, generation: 1, resourceSliceCount: 1}
    devices:
    - name: gpu-0
      attributes: {model: {string: a100}, numa: {int: 0}}
      capacity: {memory: {value: 80Gi}}
    - name: gpu-1
      attributes: {model: {string: a100}, numa: {int: 1}}
      capacity: {memory: {value: 80Gi}}
    - name: gpu-2
      attributes: {model: {string: l4}, numa: {int: 0}}
      capacity: {memory: {value: 24Gi}}
- apiVersion: resource.k8s.io/v1
  kind: ResourceSlice
  metadata: {name: n2-gpus}
  spec:
    driver: gpu.example.com
    nodeName: n2
    pool: {name: n2, generation: 1, resourceSliceCount: 1}
    devices:
    - name: gpu-0
      attributes: {model: {string: l4}, numa: {int: 0}}
      capacity: {memory: {value: 24Gi}}
- apiVersion: resource.k8s.io/v1
  kind: ResourceSlice
  metadata: {name: fabric-z1}
  spec:
    driver: fabric.example.com
    nodeSelector:
      nodeSelectorTerms:
      - matchExpressions:
        - {key: topology.kubernetes.io/zone, operator: In, values: [z1]}
    pool: {name: fabric-z1, generation: 1, resourceSliceCount: 1}
    devices:
    - name: f-0
      attributes: {model: {string: a100}}
"#;

fn claim(name: &str, requests: &str, status: &str) -> String {
    format!(
        r#"
- apiVersion: resource.k8s.io/v1
  kind: ResourceClaim
  metadata: {{name: {name}, namespace: default, uid: uid-{name}}}
  spec:
    devices:
{requests}
{status}"#
    )
}

fn exact(request: &str, class: &str, count: &str, selector: &str) -> String {
    let selectors = if selector.is_empty() {
        String::new()
    } else {
        format!("\n          selectors:\n          - cel: {{expression: '{selector}'}}")
    };
    format!(
        "      requests:\n      - name: {request}\n        exactly:\n          deviceClassName: {class}\n          {count}{selectors}"
    )
}

fn allocated(devices: &[(&str, &str)], node: Option<&str>) -> String {
    let mut s = String::from("  status:\n    allocation:\n      devices:\n        results:\n");
    for (pool, device) in devices {
        s.push_str(&format!(
            "        - {{request: gpu, driver: gpu.example.com, pool: {pool}, device: {device}}}\n"
        ));
    }
    if let Some(n) = node {
        s.push_str(&format!(
            "      nodeSelector:\n        nodeSelectorTerms:\n        - matchFields:\n          - {{key: metadata.name, operator: In, values: [{n}]}}\n"
        ));
    }
    s
}

fn pod(claims: &[&str]) -> String {
    let mut s = String::from(
        "apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: default, uid: pod-uid}\nspec:\n  containers:\n  - name: c\n    image: x\n  resourceClaims:\n",
    );
    for (i, c) in claims.iter().enumerate() {
        s.push_str(&format!("  - {{name: c{i}, resourceClaimName: {c}}}\n"));
    }
    s
}

/// The Filter verdict per node (n1, n2): `Ok(devices)` or the reason.
fn run(extra: &str, claims: &[&str]) -> Vec<Result<Vec<String>, String>> {
    let mut cluster = cluster_from_yaml(&format!("{BASE}{extra}"));
    let p = pod_from_yaml(&pod(claims), &mut cluster);
    let state = match pre_filter(&cluster, &p) {
        Err(r) => return vec![Err(format!("prefilter: {}", r.reasons.join(",")))],
        Ok(s) => s.expect("the pod has claims"),
    };
    (0..cluster.nodes.len() as NodeId)
        .map(|n| {
            state
                .allocate(&cluster, cluster.node(n))
                .map(|r| {
                    r.into_iter()
                        .flatten()
                        .map(|d| format!("{}={}/{}", d.request, d.id.pool, d.id.device))
                        .collect()
                })
                .map_err(|r| {
                    assert_eq!(r.code, Code::UnschedulableAndUnresolvable);
                    r.reasons.join(",")
                })
        })
        .collect()
}

fn cannot() -> Result<Vec<String>, String> {
    Err(REASON_CANNOT_ALLOCATE.to_string())
}

#[test]
fn exact_count_takes_distinct_matching_devices() {
    let c = claim("two", &exact("gpu", "big-gpu", "count: 2", ""), "");
    let got = run(&c, &["two"]);
    assert_eq!(
        got[0],
        Ok(vec!["gpu=n1/gpu-0".into(), "gpu=n1/gpu-1".into()])
    );
    assert_eq!(got[1], cannot());
    let c = claim("three", &exact("gpu", "big-gpu", "count: 3", ""), "");
    assert_eq!(run(&c, &["three"]), vec![cannot(), cannot()]);
}

#[test]
fn request_selectors_narrow_the_class() {
    let c = claim(
        "l4",
        &exact(
            "gpu",
            "gpu",
            "count: 1",
            r#"device.attributes["gpu.example.com"].model == "l4""#,
        ),
        "",
    );
    let got = run(&c, &["l4"]);
    assert_eq!(got[0], Ok(vec!["gpu=n1/gpu-2".into()]));
    assert_eq!(got[1], Ok(vec!["gpu=n2/gpu-0".into()]));
}

#[test]
fn all_mode_needs_every_matching_device_free() {
    let c = claim("all", &exact("gpu", "gpu", "allocationMode: All", ""), "");
    let got = run(&c, &["all"]);
    assert_eq!(got[0].as_ref().map(Vec::len), Ok(3));
    assert_eq!(got[1], Ok(vec!["gpu=n2/gpu-0".into()]));
    // One of n1's GPUs is held by another claim: All fails there.
    let held = claim(
        "held",
        &exact("gpu", "gpu", "count: 1", ""),
        &allocated(&[("n1", "gpu-2")], Some("n1")),
    );
    let got = run(&format!("{c}{held}"), &["all"]);
    assert_eq!(got[0], cannot());
    assert_eq!(got[1], Ok(vec!["gpu=n2/gpu-0".into()]));
}

#[test]
fn devices_held_by_other_claims_are_not_free() {
    let held = claim(
        "held",
        &exact("gpu", "gpu", "count: 1", ""),
        &allocated(&[("n1", "gpu-0")], Some("n1")),
    );
    let c = claim("two", &exact("gpu", "big-gpu", "count: 2", ""), "");
    assert_eq!(run(&format!("{held}{c}"), &["two"])[0], cannot());
    let c = claim("one", &exact("gpu", "big-gpu", "count: 1", ""), "");
    assert_eq!(
        run(&format!("{held}{c}"), &["one"])[0],
        Ok(vec!["gpu=n1/gpu-1".into()])
    );
}

#[test]
fn two_claims_do_not_share_a_device() {
    let a = claim("a", &exact("gpu", "big-gpu", "count: 1", ""), "");
    let b = claim("b", &exact("gpu", "big-gpu", "count: 2", ""), "");
    assert_eq!(
        run(&format!("{a}{b}"), &["a", "b"]),
        vec![cannot(), cannot()]
    );
    let b = claim("b", &exact("gpu", "big-gpu", "count: 1", ""), "");
    assert_eq!(
        run(&format!("{a}{b}"), &["a", "b"])[0],
        Ok(vec!["gpu=n1/gpu-0".into(), "gpu=n1/gpu-1".into()])
    );
}

#[test]
fn first_available_takes_the_first_subrequest_that_fits() {
    let requests = r#"      requests:
      - name: gpu
        firstAvailable:
        - {name: a100x2, deviceClassName: big-gpu, count: 2}
        - {name: any, deviceClassName: gpu, count: 1}"#;
    let c = claim("fa", requests, "");
    let got = run(&c, &["fa"]);
    assert_eq!(
        got[0],
        Ok(vec![
            "gpu/a100x2=n1/gpu-0".into(),
            "gpu/a100x2=n1/gpu-1".into()
        ])
    );
    assert_eq!(got[1], Ok(vec!["gpu/any=n2/gpu-0".into()]));
}

#[test]
fn network_pools_follow_their_node_selector() {
    let c = claim("net", &exact("gpu", "fabric", "count: 1", ""), "");
    let got = run(&c, &["net"]);
    assert_eq!(got[0], Ok(vec!["gpu=fabric-z1/f-0".into()]));
    assert_eq!(got[1], cannot());
}

#[test]
fn an_allocated_shared_claim_limits_nodes_to_its_selector() {
    let shared = claim(
        "shared",
        &exact("gpu", "gpu", "count: 1", ""),
        &allocated(&[("n1", "gpu-2")], Some("n1")),
    );
    let got = run(&shared, &["shared"]);
    assert_eq!(got[0], Ok(vec![]));
    assert_eq!(got[1], Err(REASON_NOT_AVAILABLE.to_string()));
}

#[test]
fn match_attribute_constraint() {
    let requests = r#"      requests:
      - name: gpu
        exactly: {deviceClassName: gpu, count: 2}
      constraints:
      - {requests: [gpu], matchAttribute: gpu.example.com/numa}"#;
    let c = claim("numa", requests, "");
    let got = run(&c, &["numa"]);
    assert_eq!(
        got[0],
        Ok(vec!["gpu=n1/gpu-0".into(), "gpu=n1/gpu-2".into()])
    );
    assert_eq!(got[1], cannot());
}

#[test]
fn a_missing_device_class_rejects_every_node() {
    let c = claim("x", &exact("gpu", "nope", "count: 1", ""), "");
    assert_eq!(
        run(&c, &["x"]),
        vec![Err(
            "prefilter: request gpu: device class nope does not exist".into()
        )]
    );
}

#[test]
fn incomplete_pools_fail_all_mode_with_an_error() {
    let extra = r#"
- apiVersion: resource.k8s.io/v1
  kind: ResourceSlice
  metadata: {name: n2-more}
  spec:
    driver: gpu.example.com
    nodeName: n2
    pool: {name: n2b, generation: 1, resourceSliceCount: 2}
    devices:
    - name: gpu-9
      attributes: {model: {string: l4}}
"#;
    let c = claim("all", &exact("gpu", "gpu", "allocationMode: All", ""), "");
    let got = run(&format!("{extra}{c}"), &["all"]);
    assert!(
        got[1].as_ref().is_err_and(|e| e.contains(
            "asks for all devices, but resource pool gpu.example.com/n2b is currently being updated"
        )),
        "{got:?}"
    );
    // ExactCount still uses the incomplete pool's devices.
    let c = claim("two", &exact("gpu", "gpu", "count: 2", ""), "");
    assert_eq!(
        run(&format!("{extra}{c}"), &["two"])[1]
            .as_ref()
            .map(Vec::len),
        Ok(2)
    );
}

#[test]
fn pre_enqueue_waits_for_missing_and_ungenerated_claims() {
    let mut cluster = cluster_from_yaml(BASE);
    let p = pod_from_yaml(&pod(&["gone"]), &mut cluster);
    assert_eq!(
        pre_enqueue(&cluster, &p),
        Err("could not find ResourceClaim \"default/gone\"".into())
    );
    let templated = "apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: default}\nspec:\n  containers:\n  - name: c\n    image: x\n  resourceClaims:\n  - {name: gpu, resourceClaimTemplateName: t}\n";
    let p = pod_from_yaml(templated, &mut cluster);
    assert_eq!(
        pre_enqueue(&cluster, &p),
        Err("pod \"default/p\": ResourceClaim not created yet".into())
    );
}

#[test]
fn inventory_counts_matching_and_held_devices_per_request() {
    let held = claim(
        "held",
        &exact("gpu", "gpu", "count: 1", ""),
        &allocated(&[("n1", "gpu-0")], Some("n1")),
    );
    let c = claim("three", &exact("gpu", "big-gpu", "count: 3", ""), "");
    let mut cluster = cluster_from_yaml(&format!("{BASE}{held}{c}"));
    let p = pod_from_yaml(&pod(&["three"]), &mut cluster);
    let state = pre_filter(&cluster, &p).unwrap().unwrap();
    let alloc = state.allocator.as_ref().unwrap();
    let n1 = alloc.inventory(cluster.node(0), &cluster.interner).unwrap();
    assert_eq!(n1.len(), 1);
    assert_eq!(n1[0].request, "gpu");
    assert_eq!(n1[0].device_class, "big-gpu");
    assert_eq!(n1[0].count, Some(3));
    // Two A100s pass big-gpu's memory selector; the L4 does not.
    assert_eq!(n1[0].matching, 2);
    assert_eq!(
        n1[0].held,
        vec![DeviceId {
            driver: "gpu.example.com".into(),
            pool: "n1".into(),
            device: "gpu-0".into()
        }]
    );
    let n2 = alloc.inventory(cluster.node(1), &cluster.interner).unwrap();
    assert_eq!((n2[0].matching, n2[0].held.len()), (0, 0));
}

#[test]
fn inventory_lists_each_first_available_subrequest() {
    let c = claim(
        "alt",
        "      requests:\n      - name: gpu\n        firstAvailable:\n        - {name: big, deviceClassName: big-gpu, count: 4}\n        - {name: any, deviceClassName: gpu, allocationMode: All}",
        "",
    );
    let mut cluster = cluster_from_yaml(&format!("{BASE}{c}"));
    let p = pod_from_yaml(&pod(&["alt"]), &mut cluster);
    let state = pre_filter(&cluster, &p).unwrap().unwrap();
    let alloc = state.allocator.as_ref().unwrap();
    let n1 = alloc.inventory(cluster.node(0), &cluster.interner).unwrap();
    let got: Vec<_> = n1
        .iter()
        .map(|r| (r.request.as_str(), r.count, r.matching))
        .collect();
    assert_eq!(got, vec![("gpu/big", Some(4), 2), ("gpu/any", None, 3)]);
}

#[test]
fn an_unschedulable_answer_says_which_nodes_have_matching_devices_and_who_holds_them() {
    let held = claim(
        "held",
        &exact("gpu", "gpu", "count: 1", ""),
        &allocated(&[("n1", "gpu-0")], Some("n1")),
    )
    .replace(
        "  status:\n",
        "  status:\n    reservedFor:\n    - {resource: pods, name: trainer, uid: trainer-uid}\n",
    );
    let trainer = "\n- apiVersion: v1\n  kind: Pod\n  metadata: {name: trainer, namespace: default, uid: trainer-uid}\n  spec:\n    nodeName: n1\n    containers: [{name: c, image: x}]\n";
    let c = claim("two", &exact("gpu", "big-gpu", "count: 2", ""), "");
    let mut cluster = cluster_from_yaml(&format!("{BASE}{held}{c}{trainer}"));
    let p = pod_from_yaml(&pod(&["two"]), &mut cluster);
    let scheduler = kplace::engine::Scheduler::new(kplace::engine::version::VersionChoice::flag(
        kplace::engine::version::Version::V1_34,
    ));
    let answer = kplace::engine::place(&cluster, &p, &scheduler);
    assert_eq!(answer.outcome, kplace::engine::Outcome::Unschedulable);
    assert_eq!(answer.device_availability.len(), 1, "n2 has no big GPU");
    let n1 = &answer.device_availability[0];
    assert_eq!(cluster.node(n1.node).name.as_ref(), "n1");
    let r = &n1.requests[0];
    assert_eq!(
        (r.claim.as_str(), r.matching, r.free),
        ("default/two", 2, 1)
    );
    assert_eq!(r.held.len(), 1);
    assert_eq!(r.held[0].device, "gpu.example.com/n1/gpu-0");
    assert_eq!(r.held[0].claim, "default/held");
    assert_eq!(r.held[0].pods, vec!["default/trainer".to_string()]);
}
