//! The lean JSON reader the snapshot loader reads pods and nodes with,
//! against serde_json: whatever it reads (as a pod, a node, or any JSON
//! value), serde_json must read the same; anything else it must leave to
//! serde_json.
#![no_main]

use kplace_fuzz::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        kplace::source::lean_json::agrees_on_objects(text);
    }
});
