//! The timeline reader, then the cluster at its start and end and
//! placement of their first pods.
#![no_main]

use kplace::engine::{Scheduler, place_existing};
use kplace::source::timeline::Timeline;
use kplace_fuzz::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(t) = Timeline::from_bytes(data, "fuzz") {
        let scheduler = Scheduler::default();
        for n in [0, t.events().len()] {
            let cluster = t.state_after(n);
            for id in (0..cluster.pods.len() as u32).take(2) {
                let _ = place_existing(&cluster, id, &scheduler);
            }
        }
    }
});
