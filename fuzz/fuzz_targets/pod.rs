//! The pod (and workload) manifest loader, then placement of what loads on
//! the built-in demo cluster.
#![no_main]

use std::sync::OnceLock;

use kplace::engine::{Scheduler, place};
use kplace::model::Cluster;
use kplace::source::file::load_manifest_bytes;
use kplace_fuzz::fuzz_target;

fn demo() -> &'static Cluster {
    static DEMO: OnceLock<Cluster> = OnceLock::new();
    DEMO.get_or_init(|| kplace::app::demo::load_demo().expect("the demo loads"))
}

fuzz_target!(|data: &[u8]| {
    let mut cluster = demo().clone();
    if let Ok(m) = load_manifest_bytes(data, "fuzz", &mut cluster.interner, None) {
        let _ = place(&cluster, &m.pod, &Scheduler::default());
    }
});
