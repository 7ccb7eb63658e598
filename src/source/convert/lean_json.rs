//! A JSON reader for the lean pod parse, faster than serde_json's on the
//! short strings and small objects a pod is made of (#15 item 1).
//!
//! serde_json's reading of the lean pod was half of a snapshot's load
//! (callgrind), most of it finding where strings end eight bytes at a time
//! and the bookkeeping around each key. This reader finds a string's end
//! sixteen bytes at a time and keeps no error state.
//!
//! It never decides anything serde_json would decide differently: it
//! accepts a strict subset of what serde_json accepts, makes the same
//! visitor calls for it (so the value is the same), and gives up on
//! everything else — a syntax error, a float, a negative zero, an integer
//! past 64 bits, an escape inside a string it hands out, an enum, nesting
//! deeper than [`MAX_DEPTH`], or any error a visitor raises. The caller
//! then reads the text with serde_json, whose answer (or error) stands.
//! `tests` hold it to that against serde_json, byte change by byte change.

use std::fmt;

use serde::de::{self, DeserializeSeed, Visitor};

/// Nesting beyond which the reader gives up: below serde_json's own limit
/// (128), so nothing serde_json refuses for depth is accepted here.
const MAX_DEPTH: u32 = 100;

/// Reads `text` as one JSON value of type `T`; `None` when this reader
/// gave up (the caller asks serde_json).
pub fn from_str<'de, T: de::Deserialize<'de>>(text: &'de str) -> Option<T> {
    let mut reader = Reader {
        text,
        at: 0,
        depth: 0,
        gave_up: false,
    };
    let value = T::deserialize(&mut reader).ok()?;
    // A visitor that swallowed an error of this reader's has seen input
    // serde_json may read differently.
    if reader.gave_up || reader.peek().is_some() {
        return None;
    }
    Some(value)
}

/// Reads `text` as `T` with this reader and with serde_json, and panics
/// where they disagree: this reader read it and serde_json refused it or
/// read another value. `true` when this reader read it. For the tests and
/// the `lean_json` fuzz target.
#[doc(hidden)]
pub fn agrees_with_serde_json<'de, T>(text: &'de str) -> bool
where
    T: de::Deserialize<'de> + fmt::Debug,
{
    let ours = from_str::<T>(text);
    if let Some(ours) = &ours {
        match serde_json::from_str::<T>(text) {
            Ok(theirs) => assert_eq!(
                format!("{ours:?}"),
                format!("{theirs:?}"),
                "read differently: {text:?}"
            ),
            Err(e) => panic!("accepted what serde_json refuses ({e}): {text:?}"),
        }
    }
    ours.is_some()
}

/// [`agrees_with_serde_json`] on a pod and a node as the loader reads
/// them, and on any JSON value; `true` when this reader read the pod.
#[doc(hidden)]
pub fn agrees_on_objects(text: &str) -> bool {
    agrees_with_serde_json::<serde_json::Value>(text);
    agrees_with_serde_json::<super::lean_node::LeanNode>(text);
    agrees_with_serde_json::<super::lean_pod::LeanPod>(text)
}

/// The reader giving up; what it gave up on is serde_json's to say.
#[derive(Debug)]
pub struct GaveUp;

impl fmt::Display for GaveUp {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("the lean JSON reader gave up")
    }
}

impl std::error::Error for GaveUp {}

impl de::Error for GaveUp {
    fn custom<T: fmt::Display>(_: T) -> Self {
        GaveUp
    }
}

type Result<T> = std::result::Result<T, GaveUp>;

struct Reader<'de> {
    text: &'de str,
    at: usize,
    depth: u32,
    gave_up: bool,
}

/// An integer as serde_json hands it to a visitor.
enum Integer {
    Unsigned(u64),
    Signed(i64),
}

impl<'de> Reader<'de> {
    #[cold]
    fn give_up<T>(&mut self) -> Result<T> {
        self.gave_up = true;
        Err(GaveUp)
    }

    fn bytes(&self) -> &'de [u8] {
        self.text.as_bytes()
    }

    /// The next byte that is not JSON whitespace, not consumed.
    #[inline]
    fn peek(&mut self) -> Option<u8> {
        let bytes = self.bytes();
        loop {
            let b = *bytes.get(self.at)?;
            match b {
                b' ' | b'\n' | b'\t' | b'\r' => self.at += 1,
                _ => return Some(b),
            }
        }
    }

    /// `null`, after any whitespace.
    fn null(&mut self) -> Result<()> {
        self.peek();
        if self.bytes()[self.at..].starts_with(b"null") {
            self.at += 4;
            Ok(())
        } else {
            self.give_up()
        }
    }

    /// `true` or `false`, after any whitespace.
    fn boolean(&mut self) -> Result<bool> {
        let (value, word): (bool, &[u8]) = match self.peek() {
            Some(b't') => (true, b"true"),
            Some(b'f') => (false, b"false"),
            _ => return self.give_up(),
        };
        if !self.bytes()[self.at..].starts_with(word) {
            return self.give_up();
        }
        self.at += word.len();
        Ok(value)
    }

    /// A string without escapes, the reader just past its opening quote.
    #[inline]
    fn string(&mut self) -> Result<&'de str> {
        let start = self.at;
        match string_stop(self.bytes(), start) {
            Some(end) if self.bytes()[end] == b'"' => {
                self.at = end + 1;
                Ok(&self.text[start..end])
            }
            _ => self.give_up(),
        }
    }

    /// Skips a string, checking its escapes as serde_json does (a `\u`
    /// needs four hex digits, nothing more), the reader just past its
    /// opening quote.
    fn skip_string(&mut self) -> Result<()> {
        let bytes = self.bytes();
        loop {
            let Some(stop) = string_stop(bytes, self.at) else {
                return self.give_up();
            };
            match bytes[stop] {
                b'"' => {
                    self.at = stop + 1;
                    return Ok(());
                }
                b'\\' => {
                    let escape = match bytes.get(stop + 1) {
                        Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') => 2,
                        Some(b'u')
                            if bytes
                                .get(stop + 2..stop + 6)
                                .is_some_and(|hex| hex.iter().all(u8::is_ascii_hexdigit)) =>
                        {
                            6
                        }
                        _ => return self.give_up(),
                    };
                    self.at = stop + escape;
                }
                _ => return self.give_up(),
            }
        }
    }

    /// An integer as serde_json reads it, the reader at its `-` or first
    /// digit; gives up where serde_json would read a float (a fraction, an
    /// exponent, `-0`, past 64 bits) or refuse it.
    fn integer(&mut self) -> Result<Integer> {
        let bytes = self.bytes();
        let negative = bytes[self.at] == b'-';
        if negative {
            self.at += 1;
        }
        let mut value: u64 = match bytes.get(self.at) {
            Some(b'0') => {
                self.at += 1;
                0
            }
            Some(&d @ b'1'..=b'9') => {
                self.at += 1;
                u64::from(d - b'0')
            }
            _ => return self.give_up(),
        };
        if value != 0 {
            while let Some(&d @ b'0'..=b'9') = bytes.get(self.at) {
                self.at += 1;
                match value
                    .checked_mul(10)
                    .and_then(|v| v.checked_add(u64::from(d - b'0')))
                {
                    Some(v) => value = v,
                    None => return self.give_up(),
                }
            }
        }
        if let Some(b'0'..=b'9' | b'.' | b'e' | b'E') = bytes.get(self.at) {
            return self.give_up();
        }
        if !negative {
            return Ok(Integer::Unsigned(value));
        }
        // serde_json: negatives that do not fit an i64, and -0, are floats.
        let negated = (value as i64).wrapping_neg();
        if negated >= 0 {
            return self.give_up();
        }
        Ok(Integer::Signed(negated))
    }

    /// Checks a number's syntax as serde_json does when it skips one, the
    /// reader at its `-` or first digit.
    fn skip_number(&mut self) -> Result<()> {
        let bytes = self.bytes();
        if bytes[self.at] == b'-' {
            self.at += 1;
        }
        let digits = |at: &mut usize| {
            let from = *at;
            while let Some(b'0'..=b'9') = bytes.get(*at) {
                *at += 1;
            }
            *at - from
        };
        match bytes.get(self.at) {
            Some(b'0') => {
                self.at += 1;
                if let Some(b'0'..=b'9') = bytes.get(self.at) {
                    return self.give_up();
                }
            }
            Some(b'1'..=b'9') => {
                digits(&mut self.at);
            }
            _ => return self.give_up(),
        }
        if bytes.get(self.at) == Some(&b'.') {
            self.at += 1;
            if digits(&mut self.at) == 0 {
                return self.give_up();
            }
        }
        if let Some(b'e' | b'E') = bytes.get(self.at) {
            self.at += 1;
            if let Some(b'+' | b'-') = bytes.get(self.at) {
                self.at += 1;
            }
            if digits(&mut self.at) == 0 {
                return self.give_up();
            }
        }
        Ok(())
    }

    /// Skips any value, checking its syntax.
    fn skip_value(&mut self) -> Result<()> {
        match self.peek() {
            Some(b'"') => {
                self.at += 1;
                self.skip_string()
            }
            Some(b'-' | b'0'..=b'9') => self.skip_number(),
            Some(b'n') => self.null(),
            Some(b't' | b'f') => self.boolean().map(drop),
            Some(open @ (b'[' | b'{')) => {
                let close = if open == b'[' { b']' } else { b'}' };
                self.within(open, close, |reader| {
                    let mut first = true;
                    while reader.has_next(close, &mut first)? {
                        if open == b'{' {
                            reader.at += 1;
                            reader.skip_string()?;
                            reader.colon()?;
                        }
                        reader.skip_value()?;
                    }
                    Ok(())
                })
            }
            _ => self.give_up(),
        }
    }

    /// Reads an array or object with `read`, between its `open` and
    /// `close` brackets (whatever `read` leaves before `close` is refused),
    /// counting the depth.
    fn within<T>(
        &mut self,
        open: u8,
        close: u8,
        read: impl FnOnce(&mut Self) -> Result<T>,
    ) -> Result<T> {
        if self.peek() != Some(open) {
            return self.give_up();
        }
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return self.give_up();
        }
        self.at += 1;
        let value = read(self)?;
        if self.peek() != Some(close) {
            return self.give_up();
        }
        self.at += 1;
        self.depth -= 1;
        Ok(value)
    }

    /// Whether another element or member follows, consuming the comma
    /// before it; at a member the reader is left on its key's quote.
    #[inline]
    fn has_next(&mut self, close: u8, first: &mut bool) -> Result<bool> {
        let Some(b) = self.peek() else {
            return self.give_up();
        };
        if b == close {
            return Ok(false);
        }
        let next = if *first {
            *first = false;
            b
        } else if b == b',' {
            self.at += 1;
            match self.peek() {
                Some(b) if b != close => b,
                _ => return self.give_up(),
            }
        } else {
            return self.give_up();
        };
        if close == b'}' && next != b'"' {
            return self.give_up();
        }
        Ok(true)
    }

    fn colon(&mut self) -> Result<()> {
        if self.peek() != Some(b':') {
            return self.give_up();
        }
        self.at += 1;
        Ok(())
    }

    fn number<V: Visitor<'de>>(&mut self, visitor: V) -> Result<V::Value> {
        match self.peek() {
            Some(b'-' | b'0'..=b'9') => match self.integer()? {
                Integer::Unsigned(n) => visitor.visit_u64(n),
                Integer::Signed(n) => visitor.visit_i64(n),
            },
            _ => self.give_up(),
        }
    }

    /// A request serde_json reads its own way: left to it.
    fn leave_to_serde_json<V: Visitor<'de>>(&mut self, _: V) -> Result<V::Value> {
        self.give_up()
    }
}

/// Where a string's text stops, from `at`: the first `"`, `\` or control
/// character (which serde_json refuses in a string); `None` at the end.
#[inline]
fn string_stop(bytes: &[u8], mut at: usize) -> Option<usize> {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::*;
        while at + 16 <= bytes.len() {
            // SAFETY: SSE2 is part of x86_64; the 16 bytes read lie inside
            // `bytes` (checked above), and an unaligned load is asked for.
            let mask = unsafe {
                let chunk = _mm_loadu_si128(bytes.as_ptr().add(at) as *const __m128i);
                let quote = _mm_cmpeq_epi8(chunk, _mm_set1_epi8(b'"' as i8));
                let backslash = _mm_cmpeq_epi8(chunk, _mm_set1_epi8(b'\\' as i8));
                // Unsigned `chunk <= 0x1f`: the bytes the max leaves alone.
                let low = _mm_set1_epi8(0x1f);
                let control = _mm_cmpeq_epi8(_mm_max_epu8(chunk, low), low);
                _mm_movemask_epi8(_mm_or_si128(_mm_or_si128(quote, backslash), control))
            };
            if mask != 0 {
                return Some(at + mask.trailing_zeros() as usize);
            }
            at += 16;
        }
    }
    bytes[at.min(bytes.len())..]
        .iter()
        .position(|&b| b == b'"' || b == b'\\' || b < 0x20)
        .map(|i| at + i)
}

/// Deserializer methods that all read one way: `self.$how(visitor)`.
macro_rules! each_reads {
    ($how:ident: $($method:ident)*) => {
        $(
            fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
                self.$how(visitor)
            }
        )*
    };
}

impl<'de> de::Deserializer<'de> for &mut Reader<'de> {
    type Error = GaveUp;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match self.peek() {
            Some(b'"') => {
                self.at += 1;
                let s = self.string()?;
                visitor.visit_borrowed_str(s)
            }
            Some(b'-' | b'0'..=b'9') => self.number(visitor),
            Some(b'n') => {
                self.null()?;
                visitor.visit_unit()
            }
            Some(b't' | b'f') => visitor.visit_bool(self.boolean()?),
            Some(b'[') => self.deserialize_seq(visitor),
            Some(b'{') => self.deserialize_map(visitor),
            _ => self.give_up(),
        }
    }

    fn deserialize_bool<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        visitor.visit_bool(self.boolean()?)
    }

    each_reads! { number:
    deserialize_i8 deserialize_i16 deserialize_i32 deserialize_i64
    deserialize_u8 deserialize_u16 deserialize_u32 deserialize_u64 }

    // serde_json reads these its own ways (floats exactly, 128-bit integers
    // past 64 bits, bytes from strings or arrays): left to it.
    each_reads! { leave_to_serde_json:
    deserialize_f32 deserialize_f64 deserialize_i128 deserialize_u128
    deserialize_bytes deserialize_byte_buf }

    fn deserialize_char<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.deserialize_str(visitor)
    }

    #[inline]
    fn deserialize_str<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        if self.peek() != Some(b'"') {
            return self.give_up();
        }
        self.at += 1;
        let s = self.string()?;
        visitor.visit_borrowed_str(s)
    }

    fn deserialize_string<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.deserialize_str(visitor)
    }

    #[inline]
    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        if self.peek() == Some(b'n') {
            self.null()?;
            visitor.visit_none()
        } else {
            visitor.visit_some(self)
        }
    }

    fn deserialize_unit<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.null()?;
        visitor.visit_unit()
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        visitor: V,
    ) -> Result<V::Value> {
        self.deserialize_unit(visitor)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value> {
        // serde_json's own tokens (`RawValue`, say) are read its own way.
        if name.starts_with("$serde_json") {
            return self.give_up();
        }
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.within(b'[', b']', |reader| {
            visitor.visit_seq(Elements {
                reader,
                first: true,
            })
        })
    }

    fn deserialize_tuple<V: Visitor<'de>>(self, _: usize, visitor: V) -> Result<V::Value> {
        self.deserialize_seq(visitor)
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        _: usize,
        visitor: V,
    ) -> Result<V::Value> {
        self.deserialize_seq(visitor)
    }

    fn deserialize_map<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.within(b'{', b'}', |reader| {
            visitor.visit_map(Members {
                reader,
                first: true,
            })
        })
    }

    /// Objects only: serde_json also reads a struct from an array.
    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        _: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        self.deserialize_map(visitor)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _: &'static str,
        _: &'static [&'static str],
        _: V,
    ) -> Result<V::Value> {
        self.give_up()
    }

    fn deserialize_identifier<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.deserialize_str(visitor)
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.skip_value()?;
        visitor.visit_unit()
    }
}

/// An array's elements, as serde_json's `SeqAccess` walks them.
struct Elements<'r, 'de> {
    reader: &'r mut Reader<'de>,
    first: bool,
}

impl<'de> de::SeqAccess<'de> for Elements<'_, 'de> {
    type Error = GaveUp;

    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>> {
        if !self.reader.has_next(b']', &mut self.first)? {
            return Ok(None);
        }
        seed.deserialize(&mut *self.reader).map(Some)
    }
}

/// An object's members, as serde_json's `MapAccess` walks them.
struct Members<'r, 'de> {
    reader: &'r mut Reader<'de>,
    first: bool,
}

impl<'de> de::MapAccess<'de> for Members<'_, 'de> {
    type Error = GaveUp;

    #[inline]
    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>> {
        if !self.reader.has_next(b'}', &mut self.first)? {
            return Ok(None);
        }
        seed.deserialize(Key(&mut *self.reader)).map(Some)
    }

    #[inline]
    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value> {
        self.reader.colon()?;
        seed.deserialize(&mut *self.reader)
    }
}

/// A member's key, the reader on its opening quote. serde_json reads a key
/// as a string for every request but numbers, booleans, options, newtypes,
/// enums and bytes, which it reads its own ways (left to it).
struct Key<'r, 'de>(&'r mut Reader<'de>);

impl<'de> Key<'_, 'de> {
    fn leave_to_serde_json<V: Visitor<'de>>(self, _: V) -> Result<V::Value> {
        self.0.give_up()
    }
}

impl<'de> de::Deserializer<'de> for Key<'_, 'de> {
    type Error = GaveUp;

    #[inline]
    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.0.at += 1;
        let s = self.0.string()?;
        visitor.visit_borrowed_str(s)
    }

    each_reads! { leave_to_serde_json:
    deserialize_bool deserialize_i8 deserialize_i16 deserialize_i32 deserialize_i64
    deserialize_i128 deserialize_u8 deserialize_u16 deserialize_u32 deserialize_u64
    deserialize_u128 deserialize_f32 deserialize_f64 deserialize_option
    deserialize_bytes deserialize_byte_buf }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        _: V,
    ) -> Result<V::Value> {
        self.0.give_up()
    }
    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _: &'static str,
        _: &'static [&'static str],
        _: V,
    ) -> Result<V::Value> {
        self.0.give_up()
    }

    serde::forward_to_deserialize_any! {
        char str string unit unit_struct seq tuple tuple_struct map struct
        identifier ignored_any
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;
    use std::collections::BTreeMap;

    fn agrees<'de, T: Deserialize<'de> + fmt::Debug>(text: &'de str) -> bool {
        agrees_with_serde_json::<T>(text)
    }

    #[derive(Debug, Deserialize)]
    #[allow(dead_code)]
    struct Probe<'a> {
        #[serde(borrow)]
        name: Option<&'a str>,
        count: Option<i32>,
        big: Option<u64>,
        flag: Option<bool>,
        labels: Option<BTreeMap<String, String>>,
        list: Option<Vec<Option<i64>>>,
        any: Option<serde_json::Value>,
    }

    #[test]
    fn plain_json_is_read_as_serde_json_reads_it() {
        let read = [
            r#"{}"#,
            r#" { "name" : "a" , "count" : -7 } "#,
            "{\n\t\"flag\": true,\r\n\"list\": [1, null, -9223372036854775808]}",
            r#"{"big": 18446744073709551615, "count": 0}"#,
            r#"{"labels": {"b": "2", "a": "1", "b": "3"}}"#,
            r#"{"any": {"x": [true, false, null, "s", {"y": []}]}, "other": [1.5e3, "\u00e9\n", {"z": -0}]}"#,
            r#"{"name": "é, ☃ and 😀 unescaped"}"#,
            r#"{"list": []}"#,
        ];
        for text in read {
            assert!(agrees::<Probe>(text), "gave up on {text:?}");
        }
    }

    #[test]
    fn what_serde_json_reads_its_own_way_is_left_to_it() {
        let left = [
            // Escapes in a string handed out, and floats anywhere typed.
            r#"{"name": "a\"b"}"#,
            r#"{"any": 1.5}"#,
            r#"{"any": -0}"#,
            r#"{"count": 1e2}"#,
            // Past 64 bits.
            r#"{"big": 18446744073709551616}"#,
            r#"{"any": -9223372036854775809}"#,
            // A struct written as an array.
            r#"[null, 1]"#,
            // Deeper than the reader goes.
            &format!("{{\"any\": {}{}}}", "[".repeat(150), "]".repeat(150)),
            // Duplicate fields: the visitor refuses, and so does serde_json.
            r#"{"count": 1, "count": 2}"#,
            // A wrong type.
            r#"{"count": "1"}"#,
        ];
        for text in left {
            assert!(!agrees::<Probe>(text), "read {text:?}");
        }
    }

    #[test]
    fn no_syntax_error_is_accepted() {
        let refused = [
            "",
            "{",
            r#"{"name": "a",}"#,
            r#"{"list": [1,]}"#,
            r#"{"list": [,1]}"#,
            r#"{"list": [1 2]}"#,
            r#"{"name" "a"}"#,
            r#"{"name": "a" "count": 1}"#,
            r#"{name: "a"}"#,
            r#"{"count": 01}"#,
            r#"{"count": -}"#,
            r#"{"count": 1.}"#,
            r#"{"other": 1.}"#,
            r#"{"other": .5}"#,
            r#"{"other": 1e}"#,
            r#"{"other": -01}"#,
            r#"{"other": "\x"}"#,
            r#"{"other": "\u12g4"}"#,
            "{\"other\": \"tab\there\"}",
            "{\"name\": \"tab\there\"}",
            r#"{"other": nul}"#,
            r#"{"other": tru}"#,
            r#"{"flag": True}"#,
            r#"{} {}"#,
            r#"{}x"#,
            "{\u{a0}}",
            r#"{"other": [}"#,
            r#"{"other": {"a" 1}}"#,
            r#"{"other": {1: 1}}"#,
        ];
        for text in refused {
            assert!(serde_json::from_str::<Probe>(text).is_err(), "{text:?}");
            assert!(!agrees::<Probe>(text), "accepted {text:?}");
        }
    }

    #[test]
    fn strings_end_where_serde_json_ends_them_across_the_sixteen_byte_steps() {
        // (what stops the string, read when handed out, read when skipped)
        let stops = [
            ("\"", true, true),
            // An escape: checked when skipped, left to serde_json when handed out.
            ("\\n\"", false, true),
            // A control character: refused either way.
            ("\u{1}\"", false, false),
        ];
        for len in 0..40 {
            for (stop, handed_out, skipped) in stops {
                let text = format!(
                    "{{\"name\": \"{}{stop}}}",
                    "é".repeat(len / 2) + &"a".repeat(len % 2)
                );
                assert_eq!(agrees::<Probe>(&text), handed_out, "{text:?}");
                let text = format!("{{\"other\": \"{}{stop}}}", "x".repeat(len));
                assert_eq!(agrees::<Probe>(&text), skipped, "{text:?}");
            }
        }
    }
}
