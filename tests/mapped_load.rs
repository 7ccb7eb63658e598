//! A snapshot file of 1 MiB or more is mapped rather than read (#15 item
//! 1), and its pages are given back behind the parser: the cluster loaded
//! from the mapped file, and the error a bad object late in it gives, are
//! exactly those of the same bytes loaded from memory.

use std::io::Write;

use kplace::source::file::{FileBytes, load_snapshot, load_snapshot_bytes, read_bytes};
use kplace::synth::{SynthSpec, write_cluster_json};

fn synthetic_file(bytes: &[u8]) -> tempfile::NamedTempFile {
    let mut f = tempfile::Builder::new()
        .suffix(".json")
        .tempfile()
        .expect("temp file");
    f.write_all(bytes).expect("write");
    f.flush().expect("flush");
    f
}

fn small_cluster_json() -> Vec<u8> {
    let mut json = Vec::new();
    write_cluster_json(&mut json, &SynthSpec::small()).expect("write to memory");
    json
}

#[test]
fn a_mapped_file_loads_the_same_cluster_as_its_bytes_in_memory() {
    let json = small_cluster_json();
    assert!(json.len() > 4 << 20, "large enough to be mapped and split");
    let file = synthetic_file(&json);
    let name = file.path().display().to_string();
    assert!(matches!(
        read_bytes(file.path()).expect("reads"),
        FileBytes::Mapped(_)
    ));
    let (mapped, _) = load_snapshot(file.path()).expect("mapped file loads");
    let (in_memory, _) = load_snapshot_bytes(&json, &name).expect("bytes load");
    assert_eq!(mapped.pods.len(), 6000);
    let differences = mapped.model_differences(&in_memory);
    assert!(differences.is_empty(), "{differences:#?}");
}

#[test]
fn a_bad_object_late_in_a_mapped_file_is_named_at_its_line() {
    let json = String::from_utf8(small_cluster_json()).expect("UTF-8");
    // The last pod's first CPU request, far past the pages given back.
    const REQUEST: &str = "\"requests\":{\"cpu\":\"";
    let pod = json.rfind("\"kind\":\"Pod\"").expect("a pod");
    let at = pod + json[pod..].find(REQUEST).expect("a cpu request") + REQUEST.len();
    let end = at + json[at..].find('"').expect("closing quote");
    let bad = format!("{}lots{}", &json[..at], &json[end..]);
    let line = bad[..at].matches('\n').count() + 1;
    let file = synthetic_file(bad.as_bytes());
    let name = file.path().display().to_string();
    let mapped = load_snapshot(file.path()).expect_err("refused").to_string();
    let in_memory = load_snapshot_bytes(bad.as_bytes(), &name)
        .expect_err("refused")
        .to_string();
    assert_eq!(mapped, in_memory);
    assert!(
        mapped.starts_with(&format!("{name}:{line}: Pod ")),
        "{mapped}"
    );
    assert!(mapped.contains("cpu"), "{mapped}");
}

/// A byte that is not UTF-8, in an item of either half of a large `List`
/// (read on both cores) or after its items, is refused as the whole
/// file's check refuses it: at the bad byte's line, mapped or in memory.
#[test]
fn a_byte_that_is_not_utf8_is_named_at_its_line_wherever_it_is() {
    let json = small_cluster_json();
    let text = std::str::from_utf8(&json).expect("UTF-8");
    // A resourceVersion (a field no parse reads) early, late, and the
    // List's own metadata after the items.
    const FIELD: &str = "\"resourceVersion\":\"";
    let early = text.find(FIELD).expect("a resourceVersion") + FIELD.len();
    let late = text.rfind("\"kind\":\"Pod\"").expect("a pod");
    let late = late + text[late..].find(FIELD).expect("late resourceVersion") + FIELD.len();
    let tail = text.rfind(']').expect("the items' end") + 1;
    assert!(late > json.len() / 2 && early < json.len() / 4);
    for at in [early, late, tail] {
        let mut bad = json.clone();
        bad.insert(at, 0xff);
        let line = bad[..at].iter().filter(|&&b| b == b'\n').count() + 1;
        let file = synthetic_file(&bad);
        let name = file.path().display().to_string();
        let mapped = load_snapshot(file.path()).expect_err("refused").to_string();
        let in_memory = load_snapshot_bytes(&bad, &name)
            .expect_err("refused")
            .to_string();
        assert_eq!(mapped, in_memory);
        let expected =
            format!("{name}:{line}: not UTF-8: invalid utf-8 sequence of 1 bytes from index {at}");
        assert_eq!(mapped, expected);
    }
}
