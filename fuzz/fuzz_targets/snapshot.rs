//! The snapshot loader (JSON, YAML, gzip), then placement of the pending
//! pods of whatever loads.
#![no_main]

use kplace::engine::{Scheduler, place_existing};
use kplace::source::file::load_snapshot_bytes;
use kplace_fuzz::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok((cluster, _)) = load_snapshot_bytes(data, "fuzz") {
        let scheduler = Scheduler::default();
        for id in (0..cluster.pods.len() as u32).take(4) {
            let _ = place_existing(&cluster, id, &scheduler);
        }
    }
});
