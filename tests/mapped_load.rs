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

/// The first 30 items that are not pods and the first 30 pods, in order.
fn some_of_each(items: &[serde_json::Value]) -> Vec<serde_json::Value> {
    let is_pod = |i: &&serde_json::Value| i["kind"] == "Pod";
    let others = items.iter().filter(|i| !is_pod(i)).take(30);
    let pods = items.iter().filter(is_pod).take(30);
    others.chain(pods).cloned().collect()
}

/// A snapshot `List` as one serde_json parse of the whole file reads it:
/// its items each a raw value (what kplace did before its items were
/// found by structure alone).
#[derive(serde::Deserialize)]
#[allow(dead_code, reason = "only the parse's verdict is used")]
struct WholeList<'a> {
    kind: Option<String>,
    #[serde(borrow)]
    items: Option<Vec<&'a serde_json::value::RawValue>>,
    metadata: Option<serde_json::Value>,
}

/// serde_json's verdict on the whole file read as one `List`.
fn whole_file_verdict(bytes: &[u8]) -> Result<(), serde_json::Error> {
    let text = std::str::from_utf8(bytes).expect("UTF-8");
    serde_json::from_str::<WholeList>(text).map(|_| ())
}

/// `bad` loaded from memory and from a mapped file: both refuse it with
/// the one error serde_json gives for the whole file, at its line.
fn assert_refused_as_serde_json_refuses(bad: &[u8], what: &str) {
    let whole = whole_file_verdict(bad).expect_err(what).to_string();
    let file = synthetic_file(bad);
    let name = file.path().display().to_string();
    // (Not `expect_err`: it would print the whole cluster.)
    let refused = |loaded: Result<_, kplace::source::file::SourceError>| match loaded {
        Ok(_) => panic!("{what}: loaded"),
        Err(e) => e.to_string(),
    };
    let mapped = refused(load_snapshot(file.path()));
    let in_memory = refused(load_snapshot_bytes(bad, &name));
    assert_eq!(mapped, in_memory, "{what}");
    let line = whole
        .rsplit_once(" at line ")
        .and_then(|(_, at)| at.split_once(' '))
        .map(|(line, _)| line.to_string())
        .expect("a line");
    assert_eq!(mapped, format!("{name}:{line}: {whole}"), "{what}");
}

/// Items of a large `List` are found by its structure alone and checked
/// as JSON only when read (on both cores): a syntax error in any item, of
/// any kind, early or late, on an item's first line or a later one, is
/// still the error serde_json gives for the whole file, at the same line
/// and column, and it wins over an error in the same item's data.
#[test]
fn a_syntax_error_in_any_item_is_serde_jsons_error_for_the_whole_file() {
    let compact = String::from_utf8(small_cluster_json()).expect("UTF-8");
    let value: serde_json::Value = serde_json::from_str(&compact).expect("JSON");
    // As kubectl writes it: one field per line, items at one indentation.
    let pretty = serde_json::to_string_pretty(&value).expect("JSON");
    for (layout, json) in [("one item per line", &compact), ("pretty", &pretty)] {
        let first_pod = json.find("\"Pod\"").expect("a pod");
        let last_pod = json.rfind("\"Pod\"").expect("a pod");
        let first_node = json.find("\"Node\"").expect("a node");
        assert!(last_pod > json.len() / 2 && first_pod < json.len() / 4);
        let after = |from: usize, text: &str| from + json[from..].find(text).expect(text);
        let items_open = json.find('[').expect("items");
        let mut cases: Vec<(String, String)> = Vec::new();
        // Edits as (at, bytes removed, text inserted), in any order.
        let mut edit = |what: &str, mut edits: Vec<(usize, usize, &str)>| {
            edits.sort_by_key(|&(at, _, _)| std::cmp::Reverse(at));
            let mut bad = json.clone();
            for (at, remove, insert) in edits {
                bad.replace_range(at..at + remove, insert);
            }
            cases.push((format!("{layout}: {what}"), bad));
        };
        // A value missing, early and late (the second half of the split).
        let value_of = |key: usize| key + json[key..].find(':').unwrap() + 1;
        let early = value_of(after(first_pod, "\"metadata\""));
        edit("a value missing early", vec![(early, 0, "}")]);
        let late = value_of(after(last_pod, "\"metadata\""));
        edit("a value missing late", vec![(late, 0, "}")]);
        // Deep in a late pod (on a later line of a pretty item).
        let containers = value_of(after(last_pod, "\"containers\""));
        edit("a bad literal in a late pod", vec![(containers, 0, "tru,")]);
        // A key without its colon, in a node (read whole, not lean).
        let node_name = after(first_node, "\"name\"") + "\"name\"".len();
        edit("a key without its colon", vec![(node_name, 1, "")]);
        // A pod's name of the wrong type before a syntax error: the syntax
        // error is what the whole file's parse meets first.
        let name = value_of(after(last_pod, "\"name\""));
        let name = name + json[name..].find('"').unwrap();
        let name_end = name + 1 + json[name + 1..].find('"').unwrap() + 1;
        edit(
            "a data error, then syntax",
            vec![(name, name_end - name, "5"), (containers, 0, "tru,")],
        );
        // Items kplace skips, and items without a kind (indented: an
        // error on the first line of an item is in the column after it).
        for (what, item) in [
            (
                "a kind kplace skips",
                r#"{"kind":"ConfigMap","data":{"a":tru}}"#,
            ),
            ("an item without a kind", r#"{"metadata":{"name":"x",}}"#),
            ("an item with an empty kind", "{\"kind\":\"\",\n\"a\":[1}}"),
        ] {
            let item = format!("\n    {item},");
            edit(what, vec![(items_open + 1, 0, &item)]);
        }
        for (what, bad) in cases {
            assert_refused_as_serde_json_refuses(bad.as_bytes(), &what);
        }
    }
}

/// One byte of a `List` replaced, at a thousand places chosen by a fixed
/// seed, by each of JSON's structural characters: whenever serde_json
/// refuses the whole file, loading refuses it with serde_json's error, at
/// its line and column; whenever serde_json reads it, loading never gives
/// a JSON syntax error.
#[test]
fn a_byte_changed_anywhere_gets_serde_jsons_verdict() {
    let compact = String::from_utf8(small_cluster_json()).expect("UTF-8");
    let mut value: serde_json::Value = serde_json::from_str(&compact).expect("JSON");
    let items = value["items"].as_array_mut().expect("items");
    *items = some_of_each(items);
    let layouts = [
        serde_json::to_string(&value).expect("JSON"),
        serde_json::to_string_pretty(&value).expect("JSON"),
    ];
    let mut seed = 0x9e37_79b9_7f4a_7c15_u64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let mut refused = 0;
    for json in &layouts {
        for _ in 0..500 {
            let at = (next() % json.len() as u64) as usize;
            let replacement = b"\"\\{}[],: \n0a"[(next() % 12) as usize];
            let mut bad = json.clone().into_bytes();
            bad[at] = replacement;
            let loaded = load_snapshot_bytes(&bad, "f.json");
            match whole_file_verdict(&bad) {
                Err(whole) => {
                    refused += 1;
                    let line = whole.line();
                    let got = loaded.err().map(|e| e.to_string());
                    assert_eq!(
                        got.as_deref(),
                        Some(format!("f.json:{line}: {whole}").as_str()),
                        "byte {at} set to {:?}",
                        replacement as char
                    );
                }
                Ok(_) => {
                    // (A missing `kind` is a syntax error of kplace's own.)
                    if let Err(e @ kplace::source::file::SourceError::Syntax { .. }) = &loaded
                        && e.to_string().contains(" at line ")
                    {
                        panic!("byte {at} set to {:?}: {e}", replacement as char);
                    }
                }
            }
        }
    }
    assert!(refused > 300, "most changes break the JSON ({refused})");
}

/// A field of the wrong type is named with its object (even when the
/// field is the object's own namespace) and placed at its line and column
/// in the file, not in the item read alone: on one line with every other
/// item, pretty-printed (where it is on a later line of its item), and in
/// a `List` after another document on the same line.
#[test]
fn a_field_of_the_wrong_type_is_placed_in_the_file() {
    let compact = String::from_utf8(small_cluster_json()).expect("UTF-8");
    let mut value: serde_json::Value = serde_json::from_str(&compact).expect("JSON");
    let items = value["items"].as_array_mut().expect("items");
    *items = some_of_each(items);
    let pod = items
        .iter_mut()
        .rfind(|i| i["kind"] == "Pod")
        .expect("a pod");
    let name = pod["metadata"]["name"]
        .as_str()
        .expect("a name")
        .to_string();
    pod["metadata"]["namespace"] = serde_json::json!(5);
    // A document before the List: its items are read out of file order.
    let node = r#"{"apiVersion":"v1","kind":"Node","metadata":{"name":"before"}}"#;
    let one_line = serde_json::to_string(&value).expect("JSON");
    let layouts = [
        ("one line", one_line.clone()),
        (
            "pretty",
            serde_json::to_string_pretty(&value).expect("JSON"),
        ),
        ("after a document", format!("{node} {one_line}")),
    ];
    for (layout, json) in layouts {
        let at = json
            .find("\"namespace\":5")
            .or_else(|| json.find("\"namespace\": 5"));
        let at = at.expect("the bad namespace") + json[at.unwrap()..].find('5').unwrap();
        let line = json[..at].matches('\n').count() + 1;
        let column = at - json[..at].rfind('\n').map_or(0, |n| n + 1) + 1;
        let item_line = {
            let field = json[..at]
                .rfind("\"apiVersion\"")
                .expect("the item's start");
            let item = json[..field].rfind('{').expect("the item's brace");
            json[..item].matches('\n').count() + 1
        };
        let err = match load_snapshot_bytes(json.as_bytes(), "f.json") {
            Ok(_) => panic!("{layout}: loaded"),
            Err(e) => e.to_string(),
        };
        assert_eq!(
            err,
            format!(
                "f.json:{item_line}: Pod {name}: metadata.namespace: invalid type: integer `5`, \
                 expected a string at line {line} column {column}"
            ),
            "{layout}"
        );
    }
}
