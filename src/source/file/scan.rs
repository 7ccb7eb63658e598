//! A minimal JSON scanner that finds one top-level string field (an
//! item's `kind`) without parsing the item. kubectl writes `apiVersion`
//! and `kind` first, so this usually reads a few dozen bytes. Anything it
//! is not sure about (escapes, malformed input) is left to the real parser.
//!
//! It also finds a `List`'s items on both cores ([`array_items`]): each item
//! is still read by serde_json, so what it accepts is exactly what
//! serde_json's parse of the whole array accepts.

use serde_json::value::RawValue;

pub enum Found {
    Value(String),
    Absent,
    Unsure,
}

fn skip_ws(b: &[u8], mut i: usize) -> usize {
    while i < b.len() && b[i].is_ascii_whitespace() {
        i += 1;
    }
    i
}

/// Index just past a string starting at `i` (which is `"`), and whether it
/// held escapes.
fn skip_string(b: &[u8], mut i: usize) -> Option<(usize, bool)> {
    i += 1;
    let mut escaped = false;
    while i < b.len() {
        match b[i] {
            b'\\' => {
                escaped = true;
                i += 2;
            }
            b'"' => return Some((i + 1, escaped)),
            _ => i += 1,
        }
    }
    None
}

/// Index just past the value starting at `i`.
fn skip_value(b: &[u8], i: usize) -> Option<usize> {
    match *b.get(i)? {
        b'"' => skip_string(b, i).map(|(end, _)| end),
        b'{' | b'[' => {
            let mut depth = 0usize;
            let mut j = i;
            while j < b.len() {
                match b[j] {
                    b'"' => {
                        j = skip_string(b, j)?.0;
                        continue;
                    }
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth -= 1;
                        if depth == 0 {
                            return Some(j + 1);
                        }
                    }
                    _ => {}
                }
                j += 1;
            }
            None
        }
        _ => {
            let mut j = i;
            while j < b.len() && !matches!(b[j], b',' | b'}' | b']') && !b[j].is_ascii_whitespace()
            {
                j += 1;
            }
            Some(j)
        }
    }
}

/// Where a key's value is in a top-level object, as far as the scanner
/// can tell.
enum Place {
    /// The index the value starts at.
    At(usize),
    Absent,
    Unsure,
}

/// Walks the top-level object `b`'s keys, skipping their values, to `key`.
fn top_level_place(b: &[u8], key: &[u8]) -> Place {
    let mut i = skip_ws(b, 0);
    if b.get(i) != Some(&b'{') {
        return Place::Unsure;
    }
    i += 1;
    loop {
        i = skip_ws(b, i);
        match b.get(i) {
            Some(b'}') => return Place::Absent,
            Some(b'"') => {}
            _ => return Place::Unsure,
        }
        let Some((key_end, key_escaped)) = skip_string(b, i) else {
            return Place::Unsure;
        };
        let this_key = &b[i + 1..key_end - 1];
        i = skip_ws(b, key_end);
        if b.get(i) != Some(&b':') || key_escaped {
            return Place::Unsure;
        }
        i = skip_ws(b, i + 1);
        if this_key == key {
            return Place::At(i);
        }
        let Some(end) = skip_value(b, i) else {
            return Place::Unsure;
        };
        i = skip_ws(b, end);
        match b.get(i) {
            Some(b',') => i += 1,
            Some(b'}') => return Place::Absent,
            _ => return Place::Unsure,
        }
    }
}

/// Where the value of `key` in the top-level object `b` starts, when the
/// scanner is sure (`None`: absent, or anything it is not sure about).
pub fn top_level_value(b: &[u8], key: &[u8]) -> Option<usize> {
    match top_level_place(b, key) {
        Place::At(i) => Some(i),
        Place::Absent | Place::Unsure => None,
    }
}

/// JSON's whitespace, exactly as serde_json skips it (not form feeds).
fn is_json_ws(c: u8) -> bool {
    matches!(c, b' ' | b'\n' | b'\t' | b'\r')
}

fn skip_json_ws(b: &[u8], mut i: usize) -> usize {
    while i < b.len() && is_json_ws(b[i]) {
        i += 1;
    }
    i
}

/// A JSON array's elements and where it closes.
pub struct ArrayItems<'a> {
    pub items: Vec<&'a RawValue>,
    /// The index of the closing `]`.
    pub close: usize,
    /// Read in two halves on both cores (the second half was kept).
    #[cfg_attr(
        not(test),
        allow(dead_code, reason = "the tests check that large arrays do split")
    )]
    pub split: bool,
}

/// The elements of the array whose `[` is at `open`, each read by
/// serde_json as a `RawValue`, the separators between them checked as
/// serde_json checks them (a trailing comma is refused). `None` for
/// anything serde_json would refuse: the caller then leaves the whole
/// text to serde_json, for its error.
///
/// The bytes need not have been checked as UTF-8: serde_json checks each
/// element it reads from bytes, and the separators are ASCII, so the array
/// is UTF-8 whenever this answers. The check then happens on both cores,
/// element by element, where it is also the first touch of a mapped
/// file's pages: on the 237 MB synthetic cluster a check of the whole file
/// first took 70–100 ms on one core, most of it faulting the pages in.
///
/// From `split_from` bytes on, the array is read on both cores: the
/// second half starts at the first place after the middle that looks like
/// an element start (the whitespace that comes before the second element,
/// which must hold a newline, then the same first byte), and is kept only
/// if the first half's reading lands exactly there. kubectl and
/// `kplace record` write one element per line (or at one indentation), so
/// it does; otherwise the first half reads on to the end.
pub fn array_items(b: &[u8], open: usize, split_from: usize) -> Option<ArrayItems<'_>> {
    if b.get(open) != Some(&b'[') {
        return None;
    }
    let first = skip_json_ws(b, open + 1);
    if b.get(first) == Some(&b']') || b.len() - open < split_from {
        return read_on(b, Vec::new(), first);
    }
    // The first element alone, to learn what comes before an element.
    let mut items = Vec::new();
    let after_first = elements_from(b, first, first + 1, &mut items)?;
    if b[after_first] == b']' {
        return read_on(b, items, after_first);
    }
    let mut lead_start = after_first;
    while lead_start > 0 && is_json_ws(b[lead_start - 1]) {
        lead_start -= 1;
    }
    let pattern = &b[lead_start..=after_first];
    let middle = open + (b.len() - open) / 2;
    let candidate = pattern
        .contains(&b'\n')
        .then(|| memchr::memmem::find(b.get(middle..)?, pattern))
        .flatten()
        .map(|at| middle + at + pattern.len() - 1);
    let Some(candidate) = candidate else {
        return read_on(b, items, after_first);
    };
    let mut second = Vec::new();
    let (reached, rest) = rayon::join(
        || elements_from(b, after_first, candidate, &mut items),
        || elements_from(b, candidate, usize::MAX, &mut second),
    );
    let reached = reached?;
    match rest {
        Some(close) if reached == candidate => {
            items.append(&mut second);
            Some(ArrayItems {
                items,
                close,
                split: true,
            })
        }
        // Not an element start after all: read on from where the first
        // half is.
        _ => read_on(b, items, reached),
    }
}

/// `items` and the elements from `at` (an element's start, or the `]`)
/// to the end of the array, read in one piece.
fn read_on<'a>(b: &'a [u8], mut items: Vec<&'a RawValue>, at: usize) -> Option<ArrayItems<'a>> {
    let close = match b.get(at) {
        Some(b']') => at,
        _ => elements_from(b, at, usize::MAX, &mut items)?,
    };
    Some(ArrayItems {
        items,
        close,
        split: false,
    })
}

/// Elements from `at` (an element's start): each read by serde_json, then
/// `,` or `]` after whitespace. Stops at the `]` (its index) or at the
/// first element starting at or after `stop` (its index).
fn elements_from<'a>(
    b: &'a [u8],
    mut at: usize,
    stop: usize,
    out: &mut Vec<&'a RawValue>,
) -> Option<usize> {
    loop {
        // An element must follow (`[1,]` is refused, as serde_json does).
        if at >= b.len() || b[at] == b']' {
            return None;
        }
        if at >= stop {
            return Some(at);
        }
        // From bytes, serde_json checks that the element is UTF-8.
        let mut stream = serde_json::Deserializer::from_slice(&b[at..]).into_iter::<&RawValue>();
        let value = stream.next()?.ok()?;
        // Where the value itself starts (the stream skips whitespace).
        if value.get().as_ptr() != b[at..].as_ptr() {
            return None;
        }
        out.push(value);
        let end = skip_json_ws(b, at + stream.byte_offset());
        match b.get(end)? {
            b',' => at = skip_json_ws(b, end + 1),
            b']' => return Some(end),
            _ => return None,
        }
    }
}

/// The string value of `key` in the top-level object `b`.
pub fn top_level_string(b: &[u8], key: &[u8]) -> Found {
    let i = match top_level_place(b, key) {
        Place::At(i) => i,
        Place::Absent => return Found::Absent,
        Place::Unsure => return Found::Unsure,
    };
    if b.get(i) != Some(&b'"') {
        return Found::Unsure;
    }
    match skip_string(b, i) {
        Some((end, false)) => match std::str::from_utf8(&b[i + 1..end - 1]) {
            Ok(s) => Found::Value(s.to_string()),
            Err(_) => Found::Unsure,
        },
        _ => Found::Unsure,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kind(s: &str) -> Option<String> {
        match top_level_string(s.as_bytes(), b"kind") {
            Found::Value(v) => Some(v),
            Found::Absent => Some("<absent>".into()),
            Found::Unsure => None,
        }
    }

    #[test]
    fn finds_kind_after_other_fields() {
        assert_eq!(
            kind(r#"{"apiVersion":"v1","kind":"Pod","metadata":{}}"#).as_deref(),
            Some("Pod")
        );
        let nested = r#"{ "metadata": {"kind": "no", "a": [1, {"b": "}"}]}, "kind" : "Node" }"#;
        assert_eq!(kind(nested).as_deref(), Some("Node"));
    }

    /// What serde_json's parse of the whole array gives: each element's
    /// place in `text`, or `None` when it refuses the array.
    fn serde_elements(text: &str, open: usize) -> Option<Vec<(usize, usize)>> {
        let mut stream =
            serde_json::Deserializer::from_str(&text[open..]).into_iter::<Vec<&RawValue>>();
        let items = stream.next()?.ok()?;
        Some(places(text, &items))
    }

    fn places(text: &str, items: &[&RawValue]) -> Vec<(usize, usize)> {
        items
            .iter()
            .map(|r| {
                let at = r.get().as_ptr() as usize - text.as_ptr() as usize;
                (at, at + r.get().len())
            })
            .collect()
    }

    /// `n` elements made by `element`, joined by `separator`.
    fn joined(n: usize, element: impl Fn(usize) -> String, separator: &str) -> String {
        (0..n).map(element).collect::<Vec<_>>().join(separator)
    }

    /// `array_items` on `text`'s array (at `open`), read in one piece and
    /// forced to split, against serde_json.
    fn check(text: &str, open: usize) -> bool {
        let expected = serde_elements(text, open);
        let mut split = false;
        for split_from in [usize::MAX, 0] {
            let found = array_items(text.as_bytes(), open, split_from);
            assert_eq!(
                found.as_ref().map(|f| places(text, &f.items)),
                expected,
                "{text:?}, split from {split_from}"
            );
            if let Some(f) = found {
                assert_eq!(text.as_bytes()[f.close], b']');
                assert!(!f.split || split_from == 0, "only large arrays split");
                split |= f.split;
            }
        }
        split
    }

    #[test]
    fn array_items_are_serde_jsons_one_per_line_or_indented() {
        let one_per_line = format!(
            "[\n{}\n]",
            joined(
                40,
                |i| format!(r#"{{"kind":"Pod","n":{i},"s":"{{\"x\""}}"#),
                ",\n"
            )
        );
        assert!(check(&one_per_line, 0), "one element per line splits");
        let element = |i| {
            format!(
                "{{\n            \"a\": [\n                {{ \"b\": {i} }}\n            ]\n        }}"
            )
        };
        let indented = format!("[\n        {}\n    ]", joined(30, element, ",\n        "));
        assert!(check(&indented, 0), "elements at one indentation split");
        // On one line: no element start to find, read in one piece.
        assert!(!check(r#"[{"a":1},{"b":[1,2]},"s",3,true,null,[]]"#, 0));
        for small in ["[]", "[ ]", "[1]", "[\n1\n]"] {
            assert!(!check(small, 0));
        }
    }

    #[test]
    fn a_misleading_element_start_falls_back_to_reading_on() {
        // Every element holds lines that start like an element; wherever
        // the middle falls, the split is either right or dropped.
        let element = |i| format!("[\n{{\"inner\":{i}}},\n{{\"more\":[\n{{}}\n]}}\n]");
        let tricky = format!("[\n{}\n]", joined(25, element, ",\n"));
        let _ = check(&tricky, 0);
        // Elements after an envelope's array look alike too.
        let list = format!(
            "{{\"items\":[\n{}\n],\n\"other\":[\n{{\"x\":1}},\n{{\"x\":2}}]}}",
            joined(3, |i| format!("{{\"i\":{i}}}"), ",\n")
        );
        let open = top_level_value(list.as_bytes(), b"items").expect("items found");
        let _ = check(&list, open);
    }

    #[test]
    fn array_items_refuse_what_serde_json_refuses() {
        for bad in [
            "[1,]",
            "[1 2]",
            "[{\"a\":1}\n,\n{\"a\":}]",
            "[{\"a\":1},\u{c}{\"a\":2}]",
            "[{\"a\":1},",
            "[{\"a\":1}",
            "[\n{\"a\":1},\n{\"a\":2},\n{\"a\":3},\n{\"a\":4]",
            "[\n{\"a\":1},\n{\"a\":2},\n{\"a\":3},\n{\"a\":4},\n]",
            "[\"\\x\"]",
            "[",
        ] {
            assert!(
                serde_elements(bad, 0).is_none(),
                "serde_json accepts {bad:?}"
            );
            assert!(!check(bad, 0));
        }
    }

    /// Bytes that are not UTF-8 inside any element, read in one piece or
    /// split, are refused (serde_json checks each element it reads).
    #[test]
    fn array_items_refuse_elements_that_are_not_utf8() {
        let element = |i| format!("{{\"n\":{i},\"s\":\"x\"}}");
        let good = format!("[\n{}\n]", joined(40, element, ",\n"));
        assert!(check(&good, 0), "splits when well formed");
        for at in [good.find('x').unwrap(), good.rfind('x').unwrap()] {
            let mut bad = good.clone().into_bytes();
            bad[at] = 0xff;
            for split_from in [usize::MAX, 0] {
                assert!(
                    array_items(&bad, 0, split_from).is_none(),
                    "{at} {split_from}"
                );
            }
        }
    }

    #[test]
    fn top_level_value_finds_only_top_level_keys() {
        let doc = r#"{"metadata":{"items":[1]},"kind":"List","items" : [2]}"#;
        assert_eq!(top_level_value(doc.as_bytes(), b"items"), doc.rfind('['));
        assert_eq!(top_level_value(br#"{"it\u0065ms":[]}"#, b"items"), None);
        assert_eq!(top_level_value(br#"[{"items":[]}]"#, b"items"), None);
        assert_eq!(top_level_value(br#"{"kind":"List"}"#, b"items"), None);
    }

    #[test]
    fn absent_and_unsure() {
        assert_eq!(kind(r#"{"apiVersion":"v1"}"#).as_deref(), Some("<absent>"));
        assert_eq!(
            kind(r#"{"kind":"P\u006fd"}"#),
            None,
            "escapes go to the real parser"
        );
        assert_eq!(kind(r#"{"kind": 3}"#), None);
        assert_eq!(kind("[1]"), None);
    }
}
