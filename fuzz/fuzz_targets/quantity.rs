//! The quantity parser, then a pod requesting what parsed, placed on the
//! built-in demo cluster.
#![no_main]

use std::sync::OnceLock;

use kplace::engine::{Scheduler, place};
use kplace::model::Cluster;
use kplace::model::quantity::Quantity;
use kplace::source::file::load_pod_bytes;
use kplace_fuzz::fuzz_target;

fn demo() -> &'static Cluster {
    static DEMO: OnceLock<Cluster> = OnceLock::new();
    DEMO.get_or_init(|| kplace::app::demo::load_demo().expect("the demo loads"))
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if Quantity::parse(text).is_err() || text.contains(['"', '\\', '\n', '\r']) {
        return;
    }
    let manifest = format!(
        "apiVersion: v1\nkind: Pod\nmetadata: {{name: q, namespace: default}}\nspec:\n  containers:\n  - name: c\n    image: x\n    resources: {{requests: {{cpu: \"{text}\", memory: \"{text}\"}}}}\n"
    );
    let mut cluster = demo().clone();
    if let Ok(pod) = load_pod_bytes(manifest.as_bytes(), "fuzz", &mut cluster.interner) {
        let _ = place(&cluster, &pod, &Scheduler::default());
    }
});
