//! A minimal JSON scanner that finds one top-level string field (an
//! item's `kind`) without parsing the item. kubectl writes `apiVersion`
//! and `kind` first, so this usually reads a few dozen bytes. Anything it
//! is not sure about (escapes, malformed input) is left to the real parser.

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

/// The string value of `key` in the top-level object `b`.
pub fn top_level_string(b: &[u8], key: &[u8]) -> Found {
    let mut i = skip_ws(b, 0);
    if b.get(i) != Some(&b'{') {
        return Found::Unsure;
    }
    i += 1;
    loop {
        i = skip_ws(b, i);
        match b.get(i) {
            Some(b'}') => return Found::Absent,
            Some(b'"') => {}
            _ => return Found::Unsure,
        }
        let Some((key_end, key_escaped)) = skip_string(b, i) else {
            return Found::Unsure;
        };
        let this_key = &b[i + 1..key_end - 1];
        i = skip_ws(b, key_end);
        if b.get(i) != Some(&b':') {
            return Found::Unsure;
        }
        i = skip_ws(b, i + 1);
        if key_escaped {
            return Found::Unsure;
        }
        if this_key == key {
            if b.get(i) != Some(&b'"') {
                return Found::Unsure;
            }
            return match skip_string(b, i) {
                Some((end, false)) => match std::str::from_utf8(&b[i + 1..end - 1]) {
                    Ok(s) => Found::Value(s.to_string()),
                    Err(_) => Found::Unsure,
                },
                _ => Found::Unsure,
            };
        }
        let Some(end) = skip_value(b, i) else {
            return Found::Unsure;
        };
        i = skip_ws(b, end);
        match b.get(i) {
            Some(b',') => i += 1,
            Some(b'}') => return Found::Absent,
            _ => return Found::Unsure,
        }
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
