//! A minimal JSON scanner that finds one top-level string field (an
//! item's `kind`) without parsing the item. kubectl writes `apiVersion`
//! and `kind` first, so this usually reads a few dozen bytes. Anything it
//! is not sure about (escapes, malformed input) is left to the real parser.
//!
//! It also finds a `List`'s items on both cores by their structure alone
//! ([`array_items`]); each item is then read by serde_json, so what is
//! accepted is exactly what serde_json's parse of the whole array accepts.

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

/// Elements found, in order, each with whether its bytes are all ASCII
/// and the newlines before it.
#[derive(Default)]
pub struct Elements<'a> {
    /// Each element's bytes, from its `{` to its matching `}`.
    pub items: Vec<&'a [u8]>,
    /// Per element: every byte is ASCII (below 0x80), so the element is
    /// UTF-8 without checking it again. `false` can also mean unknown.
    pub ascii: Vec<bool>,
    /// Per element: the newlines between the array's first element and
    /// it, counted from the blocks the scan classifies anyway (a second
    /// pass over the bytes to count them was about 2% of a large
    /// snapshot's load).
    pub lines: Vec<Lines>,
    /// The newlines up to where the scan stopped last.
    counted: Lines,
}

/// Newlines between the array's first element and a place after it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Lines {
    pub newlines: usize,
    /// Where the place's line starts (just after the last of those
    /// newlines); 0 when there are none (nothing starts a line at 0).
    pub line_start: usize,
}

impl Lines {
    /// These lines, then `later`'s, counted from where these end.
    fn then(self, later: Lines) -> Lines {
        Lines {
            newlines: self.newlines + later.newlines,
            line_start: if later.line_start != 0 {
                later.line_start
            } else {
                self.line_start
            },
        }
    }

    /// These lines, then the newlines `mask` marks in the block at `pos`.
    fn then_block(self, pos: usize, mask: u64) -> Lines {
        Lines {
            newlines: self.newlines + mask.count_ones() as usize,
            line_start: if mask != 0 {
                pos + 64 - mask.leading_zeros() as usize
            } else {
                self.line_start
            },
        }
    }
}

impl<'a> Elements<'a> {
    fn push(&mut self, item: &'a [u8], ascii: bool, lines: Lines) {
        self.items.push(item);
        self.ascii.push(ascii);
        self.lines.push(lines);
    }

    /// `other`'s elements after these; `other` was read from where these
    /// stopped, its newlines counted from there.
    fn append(&mut self, other: &mut Elements<'a>) {
        let before = self.counted;
        self.items.append(&mut other.items);
        self.ascii.append(&mut other.ascii);
        self.lines
            .extend(other.lines.drain(..).map(|lines| before.then(lines)));
        self.counted = before.then(other.counted);
    }
}

/// A JSON array's elements and where it closes.
pub struct ArrayItems<'a> {
    pub elements: Elements<'a>,
    /// The index of the closing `]`.
    pub close: usize,
    /// Read in two halves on both cores (the second half was kept).
    #[cfg_attr(
        not(test),
        allow(dead_code, reason = "the tests check that large arrays do split")
    )]
    pub split: bool,
}

/// The elements of the array whose `[` is at `open`, found by its
/// structure alone: strings (with their escapes) and brackets, 64 bytes at
/// a time. Every element must be an object, and what lies between them
/// exactly what JSON allows there (whitespace and one comma; no trailing
/// comma); `None` for anything else, and the caller leaves the whole text
/// to serde_json, for its items or its error.
///
/// The elements themselves are not checked here: each is read whole by
/// serde_json later, on both cores, and the reading is the check (see
/// `JsonItem`). Finding them with serde_json first checked every byte twice
/// and was a quarter of the whole load's instructions (callgrind, the
/// 237 MB synthetic cluster); this finds them about four times faster.
/// When every element reads as one JSON value, the array is valid JSON
/// with exactly these elements: the first element that does not read
/// gets the error serde_json gives for the whole text, at the same place,
/// because up to the first byte that breaks the grammar this scan and
/// serde_json see the same strings and brackets.
///
/// Nor are the bytes checked as UTF-8: each element is, as it is read,
/// unless this scan found every byte of it ASCII ([`Elements::ascii`],
/// for almost nothing: one more mask per block).
///
/// From `split_from` bytes on, the array is read on both cores: the
/// second half starts at the first place after the middle that looks like
/// an element start (the whitespace that comes before the second element,
/// which must hold a newline, then `{`), and is kept only if the first
/// half's reading lands exactly there. A newline is never inside a JSON
/// string, but it can be inside an element; kubectl and `kplace record`
/// write one element per line (or at one indentation), so the place is
/// usually right, and otherwise the first half reads on to the end.
pub fn array_items(b: &[u8], open: usize, split_from: usize) -> Option<ArrayItems<'_>> {
    if b.get(open) != Some(&b'[') {
        return None;
    }
    let first = skip_json_ws(b, open + 1);
    if b.get(first) == Some(&b']') {
        return Some(ArrayItems {
            elements: Elements::default(),
            close: first,
            split: false,
        });
    }
    if b.len() - open < split_from {
        return read_on(b, Elements::default(), first);
    }
    // The first element alone, to learn what comes before an element.
    let mut items = Elements::default();
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
    let mut second = Elements::default();
    let (reached, rest) = rayon::join(
        || elements_from(b, after_first, candidate, &mut items),
        || elements_from(b, candidate, usize::MAX, &mut second),
    );
    let reached = reached?;
    match rest {
        Some(close) if reached == candidate => {
            items.append(&mut second);
            Some(ArrayItems {
                elements: items,
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
fn read_on<'a>(b: &'a [u8], mut items: Elements<'a>, at: usize) -> Option<ArrayItems<'a>> {
    let close = match b.get(at) {
        Some(b']') => at,
        _ => elements_from(b, at, usize::MAX, &mut items)?,
    };
    Some(ArrayItems {
        elements: items,
        close,
        split: false,
    })
}

/// Elements from `at` (an element's start, outside any string), to the
/// array's `]` (its index), or to the first element starting at or after
/// `stop` (its index).
fn elements_from<'a>(b: &'a [u8], at: usize, stop: usize, out: &mut Elements<'a>) -> Option<usize> {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx512bw") {
            // SAFETY: this processor has AVX-512BW (checked just above).
            return unsafe { elements_from_avx512(b, at, stop, out) };
        }
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: this processor has AVX2 (checked just above).
            return unsafe { elements_from_avx2(b, at, stop, out) };
        }
    }
    elements_with(b, at, stop, out, Classes::of)
}

/// [`elements_from`] with each block classified at once (AVX-512BW).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512bw")]
fn elements_from_avx512<'a>(
    b: &'a [u8],
    at: usize,
    stop: usize,
    out: &mut Elements<'a>,
) -> Option<usize> {
    // (The closure runs with this function's AVX-512BW.)
    elements_with(b, at, stop, out, |block| Classes::of_avx512(block))
}

/// [`elements_from`] with the blocks classified 32 bytes at a time: the
/// classification was most of the scan's instructions, which were a
/// tenth of a snapshot's load (callgrind, the synthetic cluster).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn elements_from_avx2<'a>(
    b: &'a [u8],
    at: usize,
    stop: usize,
    out: &mut Elements<'a>,
) -> Option<usize> {
    // (The closure runs with this function's AVX2.)
    elements_with(b, at, stop, out, |block| Classes::of_avx2(block))
}

/// [`elements_from`], its blocks classified by `classes`.
#[inline(always)]
fn elements_with<'a>(
    b: &'a [u8],
    at: usize,
    stop: usize,
    out: &mut Elements<'a>,
    classes: impl Fn(&[u8; BLOCK]) -> Classes,
) -> Option<usize> {
    // An element must follow (`[1,]` is refused, as serde_json does).
    if b.get(at) != Some(&b'{') {
        return None;
    }
    let mut depth = 0usize;
    let mut start = at;
    // Where the last element ended: what follows up to the next element
    // is checked when that element starts.
    let mut after: Option<usize> = None;
    let mut strings = Strings::default();
    // The blocks of the element being read so far hold only ASCII.
    let mut ascii = true;
    // The newlines up to the block, and up to the element being read.
    let mut counted = out.counted;
    let mut start_lines = counted;
    let mut pos = at;
    let mut tail = [b' '; BLOCK];
    while pos < b.len() {
        let block: &[u8; BLOCK] = match b.get(pos..pos + BLOCK) {
            Some(full) => full.try_into().ok()?,
            None => {
                // Spaces after the end: never a string or a bracket.
                tail[..b.len() - pos].copy_from_slice(&b[pos..]);
                &tail
            }
        };
        let classes = classes(block);
        // The newlines up to a place in this block.
        let lines_at = |i: usize| counted.then_block(pos, classes.newlines & ((1u64 << i) - 1));
        let block_ascii = classes.high == 0;
        ascii &= block_ascii;
        let outside = !strings.inside(&classes);
        let opens = classes.opens & outside;
        let mut brackets = (classes.opens | classes.closes) & outside;
        while brackets != 0 {
            let i = brackets.trailing_zeros() as usize;
            brackets &= brackets - 1;
            let p = pos + i;
            if opens >> i & 1 == 1 {
                if depth == 0 {
                    if let Some(end) = after
                        && (!is_separator(&b[end..p]) || b[p] != b'{')
                    {
                        return None;
                    }
                    if p >= stop {
                        out.counted = lines_at(i);
                        return Some(p);
                    }
                    start = p;
                    ascii = block_ascii;
                    start_lines = lines_at(i);
                }
                depth += 1;
            } else if depth == 0 {
                // The array's `]`, after nothing but whitespace.
                let end = after?;
                return (b[p] == b']' && b[end..p].iter().all(|&c| is_json_ws(c))).then_some(p);
            } else {
                depth -= 1;
                if depth == 0 {
                    out.push(&b[start..=p], ascii, start_lines);
                    after = Some(p + 1);
                }
            }
        }
        counted = counted.then_block(pos, classes.newlines);
        pos += BLOCK;
    }
    None
}

/// Whitespace, one comma, whitespace: what JSON allows between elements.
fn is_separator(between: &[u8]) -> bool {
    let mut commas = 0;
    for &c in between {
        match c {
            b',' => commas += 1,
            c if is_json_ws(c) => {}
            _ => return false,
        }
    }
    commas == 1
}

/// Bytes the structural scan classifies at once.
const BLOCK: usize = 64;

/// One block's quotes, backslashes, opening (`{`, `[`) and closing (`}`,
/// `]`) brackets, one bit per byte.
struct Classes {
    quotes: u64,
    backslashes: u64,
    opens: u64,
    closes: u64,
    /// Bytes that are not ASCII (0x80 and above).
    high: u64,
    newlines: u64,
}

impl Classes {
    /// `{` and `[` differ only in the bit 0x20, as do `}` and `]`.
    #[cfg(target_arch = "x86_64")]
    fn of(block: &[u8; BLOCK]) -> Self {
        use std::arch::x86_64::{
            __m128i, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_movemask_epi8, _mm_or_si128,
            _mm_set1_epi8,
        };
        let mut c = Classes {
            quotes: 0,
            backslashes: 0,
            opens: 0,
            closes: 0,
            high: 0,
            newlines: 0,
        };
        // SAFETY: SSE2 is part of every x86_64 processor, and each load
        // reads 16 bytes inside the 64-byte block.
        unsafe {
            let quote = _mm_set1_epi8(b'"' as i8);
            let backslash = _mm_set1_epi8(b'\\' as i8);
            let fold = _mm_set1_epi8(0x20);
            let open = _mm_set1_epi8(b'{' as i8);
            let close = _mm_set1_epi8(b'}' as i8);
            let newline = _mm_set1_epi8(b'\n' as i8);
            for k in 0..BLOCK / 16 {
                let v = _mm_loadu_si128(block.as_ptr().add(16 * k).cast::<__m128i>());
                let folded = _mm_or_si128(v, fold);
                let bits = |m: __m128i| (_mm_movemask_epi8(m) as u16 as u64) << (16 * k);
                c.quotes |= bits(_mm_cmpeq_epi8(v, quote));
                c.backslashes |= bits(_mm_cmpeq_epi8(v, backslash));
                c.opens |= bits(_mm_cmpeq_epi8(folded, open));
                c.closes |= bits(_mm_cmpeq_epi8(folded, close));
                // The sign bit of each byte: 0x80 and above.
                c.high |= bits(v);
                c.newlines |= bits(_mm_cmpeq_epi8(v, newline));
            }
        }
        c
    }

    /// [`Classes::of`], 32 bytes at a time.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    #[inline]
    fn of_avx2(block: &[u8; BLOCK]) -> Self {
        use std::arch::x86_64::{
            __m256i, _mm256_cmpeq_epi8, _mm256_loadu_si256, _mm256_movemask_epi8, _mm256_or_si256,
            _mm256_set1_epi8,
        };
        let quote = _mm256_set1_epi8(b'"' as i8);
        let backslash = _mm256_set1_epi8(b'\\' as i8);
        let fold = _mm256_set1_epi8(0x20);
        let open = _mm256_set1_epi8(b'{' as i8);
        let close = _mm256_set1_epi8(b'}' as i8);
        // SAFETY: each load reads 32 bytes inside the 64-byte block.
        let (low, high) = unsafe {
            let at = block.as_ptr().cast::<__m256i>();
            (_mm256_loadu_si256(at), _mm256_loadu_si256(at.add(1)))
        };
        let bits = |byte: __m256i| {
            let mask =
                |v: __m256i| u64::from(_mm256_movemask_epi8(_mm256_cmpeq_epi8(v, byte)) as u32);
            mask(low) | mask(high) << 32
        };
        let folded = |v: __m256i| _mm256_or_si256(v, fold);
        let folded_bits = |byte: __m256i| {
            let mask = |v: __m256i| {
                u64::from(_mm256_movemask_epi8(_mm256_cmpeq_epi8(folded(v), byte)) as u32)
            };
            mask(low) | mask(high) << 32
        };
        // The sign bit of each byte: 0x80 and above.
        let sign = |v: __m256i| u64::from(_mm256_movemask_epi8(v) as u32);
        Classes {
            quotes: bits(quote),
            backslashes: bits(backslash),
            opens: folded_bits(open),
            closes: folded_bits(close),
            high: sign(low) | sign(high) << 32,
            newlines: bits(_mm256_set1_epi8(b'\n' as i8)),
        }
    }

    /// [`Classes::of`], the whole block at once.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512bw")]
    #[inline]
    fn of_avx512(block: &[u8; BLOCK]) -> Self {
        use std::arch::x86_64::{
            __m512i, _mm512_cmpeq_epi8_mask, _mm512_loadu_si512, _mm512_movepi8_mask,
            _mm512_or_si512, _mm512_set1_epi8,
        };
        // SAFETY: the load reads the 64 bytes of the block.
        let v = unsafe { _mm512_loadu_si512(block.as_ptr().cast::<__m512i>()) };
        let folded = _mm512_or_si512(v, _mm512_set1_epi8(0x20));
        let is = |v: __m512i, byte: u8| _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8(byte as i8));
        Classes {
            quotes: is(v, b'"'),
            backslashes: is(v, b'\\'),
            opens: is(folded, b'{'),
            closes: is(folded, b'}'),
            high: _mm512_movepi8_mask(v),
            newlines: is(v, b'\n'),
        }
    }

    #[cfg(not(target_arch = "x86_64"))]
    fn of(block: &[u8; BLOCK]) -> Self {
        Self::of_each_byte(block)
    }

    /// The same classes, a byte at a time (other processors; and what the
    /// tests hold the SIMD form to).
    #[cfg_attr(target_arch = "x86_64", allow(dead_code))]
    fn of_each_byte(block: &[u8; BLOCK]) -> Self {
        let mut c = Classes {
            quotes: 0,
            backslashes: 0,
            opens: 0,
            closes: 0,
            high: 0,
            newlines: 0,
        };
        for (i, &byte) in block.iter().enumerate() {
            c.quotes |= u64::from(byte == b'"') << i;
            c.backslashes |= u64::from(byte == b'\\') << i;
            c.opens |= u64::from(byte | 0x20 == b'{') << i;
            c.closes |= u64::from(byte | 0x20 == b'}') << i;
            c.high |= u64::from(!byte.is_ascii()) << i;
            c.newlines |= u64::from(byte == b'\n') << i;
        }
        c
    }
}

/// Which bytes are inside strings, carried from block to block.
#[derive(Default)]
struct Strings {
    /// The last block ended inside a string.
    inside: bool,
    /// The last block ended with a backslash that escapes the next byte.
    escape_next: bool,
}

impl Strings {
    /// The block's bytes inside strings (an opening quote counts as
    /// inside, a closing one not; brackets are never quotes, so it does
    /// not matter which).
    fn inside(&mut self, c: &Classes) -> u64 {
        let mut escaped = 0u64;
        if c.backslashes != 0 || self.escape_next {
            // A backslash escapes the next byte unless it is escaped
            // itself (`\\`): walked in order. Rare in Kubernetes objects.
            let mut pending = c.backslashes;
            if std::mem::take(&mut self.escape_next) {
                escaped = 1;
                pending &= !1;
            }
            while pending != 0 {
                let i = pending.trailing_zeros();
                if i == 63 {
                    self.escape_next = true;
                } else {
                    escaped |= 1 << (i + 1);
                }
                pending &= !(1u64 << i) & !escaped;
            }
        }
        let quotes = c.quotes & !escaped;
        // Each bit: the parity of the quotes up to it (a prefix XOR).
        let mut inside = quotes;
        for shift in [1, 2, 4, 8, 16, 32] {
            inside ^= inside << shift;
        }
        if self.inside {
            inside = !inside;
        }
        self.inside = inside >> 63 == 1;
        inside
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
        use serde_json::value::RawValue;
        let mut stream =
            serde_json::Deserializer::from_str(&text[open..]).into_iter::<Vec<&RawValue>>();
        let items = stream.next()?.ok()?;
        Some(places(text, items.iter().map(|r| r.get().as_bytes())))
    }

    fn places<'a>(text: &str, items: impl Iterator<Item = &'a [u8]>) -> Vec<(usize, usize)> {
        items
            .map(|r| {
                let at = r.as_ptr() as usize - text.as_ptr() as usize;
                (at, at + r.len())
            })
            .collect()
    }

    /// `n` elements made by `element`, joined by `separator`.
    fn joined(n: usize, element: impl Fn(usize) -> String, separator: &str) -> String {
        (0..n).map(element).collect::<Vec<_>>().join(separator)
    }

    /// `array_items` on `text`'s array (at `open`), read in one piece and
    /// forced to split, against serde_json: an array of objects serde_json
    /// accepts gives exactly its elements; one it refuses gives `None` or
    /// elements of which one does not read alone. Whether it split.
    fn check(text: &str, open: usize) -> bool {
        let expected = serde_elements(text, open);
        let mut split = false;
        for split_from in [usize::MAX, 0] {
            let found = array_items(text.as_bytes(), open, split_from);
            let context = format!("{text:?}, split from {split_from}");
            match (&expected, &found) {
                (Some(expected), Some(f)) => {
                    assert_eq!(
                        &places(text, f.elements.items.iter().copied()),
                        expected,
                        "{context}"
                    )
                }
                (Some(_), None) => {}
                (None, Some(f)) => assert!(
                    f.elements
                        .items
                        .iter()
                        .any(|i| serde_json::from_slice::<IgnoredAny>(i).is_err()),
                    "{context}: every element reads, yet serde_json refuses the array"
                ),
                (None, None) => {}
            }
            if let Some(f) = found {
                assert_eq!(text.as_bytes()[f.close], b']');
                assert_eq!(f.elements.ascii.len(), f.elements.items.len());
                let offset_in = |item: &[u8]| item.as_ptr() as usize - text.as_ptr() as usize;
                let first = f.elements.items.first().map(|i| offset_in(i));
                for (item, lines) in f.elements.items.iter().zip(&f.elements.lines) {
                    let (first, at) = (first.unwrap(), offset_in(item));
                    let between = &text.as_bytes()[first..at];
                    let newlines = between.iter().filter(|&&c| c == b'\n').count();
                    let line_start = between
                        .iter()
                        .rposition(|&c| c == b'\n')
                        .map_or(0, |n| first + n + 1);
                    assert_eq!(
                        (lines.newlines, lines.line_start),
                        (newlines, line_start),
                        "{context}: the lines before {at}"
                    );
                }
                for (item, &ascii) in f.elements.items.iter().zip(&f.elements.ascii) {
                    assert!(!ascii || item.is_ascii(), "{context}: marked ASCII");
                }
                assert!(!f.split || split_from == 0, "only large arrays split");
                split |= f.split;
            }
        }
        split
    }

    /// As [`check`], for an array serde_json accepts: the elements must be
    /// found.
    fn check_found(text: &str, open: usize) -> bool {
        assert!(serde_elements(text, open).is_some(), "{text:?}");
        for split_from in [usize::MAX, 0] {
            assert!(
                array_items(text.as_bytes(), open, split_from).is_some(),
                "{text:?}"
            );
        }
        check(text, open)
    }

    use serde::de::IgnoredAny;

    #[test]
    fn array_items_are_serde_jsons_one_per_line_or_indented() {
        let one_per_line = format!(
            "[\n{}\n]",
            joined(
                40,
                |i| format!(r#"{{"kind":"Pod","n":{i},"s":"{{\"x\"]","t":"\\\\","u":["}}"]}}"#),
                ",\n"
            )
        );
        assert!(check_found(&one_per_line, 0), "one element per line splits");
        let element = |i| {
            format!(
                "{{\n            \"a\": [\n                {{ \"b\": {i} }}\n            ]\n        }}"
            )
        };
        let indented = format!("[\n        {}\n    ]", joined(30, element, ",\n        "));
        assert!(
            check_found(&indented, 0),
            "elements at one indentation split"
        );
        // On one line: no element start to find, read in one piece.
        assert!(!check_found(r#"[{"a":1},{"b":[1,2]},{"c":"]"}]"#, 0));
        for small in ["[]", "[ ]", "[{}]", "[\n{}\n]"] {
            assert!(!check_found(small, 0));
        }
        // Any JSON whitespace around the commas.
        assert!(check_found("[\t{\"a\":{}} ,\r\n{},\r\n{} ]", 0));
    }

    /// Elements nesting several deep, and shallow ones beside them, their
    /// ends placed across every block boundary: the depth carried from
    /// block to block ends each element where serde_json ends it.
    #[test]
    fn deep_elements_across_blocks_end_where_serde_json_ends_them() {
        for pad in 0..(2 * BLOCK) {
            let p = "p".repeat(pad);
            let deep = format!(
                r#"{{"a":{{"b":[{{"c":[[{{"d":"{p}}}]"}}],[]]}},{{}}],"e":{{"f":{{"g":[1,{{"h":"{p}"}}]}}}}}}}}"#
            );
            let shallow = format!(r#"{{"s":"{p}"}}"#);
            let text = format!("[\n{deep},\n{shallow},\n{deep},\n{deep},\n{shallow}\n]");
            assert!(serde_json::from_str::<IgnoredAny>(&text).is_ok(), "{text}");
            check_found(&text, 0);
            let found = array_items(text.as_bytes(), 0, usize::MAX).expect("found");
            assert_eq!(found.elements.items.len(), 5, "{text}");
            assert_eq!(found.elements.items[0], deep.as_bytes());
            assert_eq!(found.elements.items[4], shallow.as_bytes());
        }
    }

    /// Strings that hold quotes, backslashes and brackets, placed across
    /// every block boundary: where each element ends is found as
    /// serde_json finds it.
    #[test]
    fn strings_and_escapes_across_blocks_are_skipped_as_serde_json_skips_them() {
        let tricky = [r#"\""#, r#"\\"#, r#"\\\""#, "}", "]", "{[", r#"\\\\"#, "é"];
        for pad in 0..(2 * BLOCK) {
            for t in tricky {
                let element = format!(r#"{{"k":"{}{t}","x":[{{}}]}}"#, "p".repeat(pad));
                let text = format!("[{element},\n{element} ,{element}]");
                check_found(&text, 0);
            }
        }
    }

    #[test]
    fn a_misleading_element_start_falls_back_to_reading_on() {
        // Every element holds lines that start like an element; wherever
        // the middle falls, the split is either right or dropped.
        let element = |i| format!("{{\"a\":[\n{{\"inner\":{i}}},\n{{\"more\":[\n{{}}\n]}}\n]}}");
        let tricky = format!("[\n{}\n]", joined(25, element, ",\n"));
        let _ = check_found(&tricky, 0);
        // Elements after an envelope's array look alike too.
        let list = format!(
            "{{\"items\":[\n{}\n],\n\"other\":[\n{{\"x\":1}},\n{{\"x\":2}}]}}",
            joined(3, |i| format!("{{\"i\":{i}}}"), ",\n")
        );
        let open = top_level_value(list.as_bytes(), b"items").expect("items found");
        let _ = check_found(&list, open);
    }

    #[test]
    fn what_lies_between_elements_is_held_to_what_serde_json_allows() {
        for bad in [
            "[{},]",
            "[{} {}]",
            "[{},,{}]",
            "[{},\u{c}{}]",
            "[{},",
            "[{}",
            "[",
            "[\n{\"a\":1},\n{\"a\":2},\n{\"a\":3},\n{\"a\":4},\n]",
        ] {
            assert!(serde_elements(bad, 0).is_none(), "{bad:?}");
            assert_left_to_serde_json(bad);
        }
    }

    /// `array_items` refuses `text`'s array, read in one piece and forced
    /// to split: the whole text is left to serde_json.
    fn assert_left_to_serde_json(text: &str) {
        for split_from in [usize::MAX, 0] {
            assert!(
                array_items(text.as_bytes(), 0, split_from).is_none(),
                "{text:?}, split from {split_from}"
            );
        }
    }

    /// Elements that are not objects are left to serde_json (a `List`'s
    /// items are objects; anything else is refused by the one-pass read).
    #[test]
    fn elements_other_than_objects_are_left_to_serde_json() {
        for other in [
            "[1]",
            "[\"{\"]",
            "[{},2]",
            "[[]]",
            "[{}, null]",
            "[true,{}]",
        ] {
            assert_left_to_serde_json(other);
        }
    }

    /// Elements that break JSON inside are found anyway, and the first of
    /// them does not read alone: its reading gives the error.
    #[test]
    fn elements_that_break_json_inside_do_not_read_alone() {
        for bad in [
            "[{\"a\":1},\n{\"a\":}]",
            "[{\"a\":[1}]",
            "[{\"a\":1]}",
            "[{\"a\":1,}]",
            "[{\"a\":tru}]",
            "[{\"\\x\":1}]",
            "[\n{\"a\":1},\n{\"a\":2},\n{\"a\":3},\n{\"a\":4]",
            "[{a:1}]",
            "[{\"a\":1}}]",
        ] {
            assert!(
                serde_elements(bad, 0).is_none(),
                "serde_json accepts {bad:?}"
            );
            check(bad, 0);
        }
    }

    /// Bytes that are not UTF-8 are left for each element's reading to
    /// refuse: the scan finds the same elements around them.
    #[test]
    fn bytes_that_are_not_utf8_are_passed_through() {
        let element = |i| format!("{{\"n\":{i},\"s\":\"x\"}}");
        let good = format!("[\n{}\n]", joined(40, element, ",\n"));
        let expected = array_items(good.as_bytes(), 0, usize::MAX).expect("found");
        let mut bad = good.clone().into_bytes();
        let at = good.rfind('x').unwrap();
        bad[at] = 0xff;
        for split_from in [usize::MAX, 0] {
            let found = array_items(&bad, 0, split_from).expect("found");
            assert_eq!(found.elements.items.len(), expected.elements.items.len());
            assert!(std::str::from_utf8(found.elements.items[39]).is_err());
            assert!(!found.elements.ascii[39]);
        }
    }

    /// An element is marked ASCII only when every byte of it is: a byte of
    /// 0x80 or above anywhere in an element (first byte to last, in blocks
    /// of every alignment) clears its mark, and only elements sharing a
    /// block with it may lose theirs.
    #[test]
    fn elements_are_marked_ascii_only_when_every_byte_is() {
        let element = |i: usize| format!("{{\"n\":{i},\"s\":\"{}\"}}", "y".repeat(i % 90));
        let good = format!("[\n{}\n]", joined(30, element, ",\n"));
        let found = array_items(good.as_bytes(), 0, usize::MAX).expect("found");
        assert!(found.elements.ascii.iter().all(|&a| a), "all ASCII");
        let starts: Vec<usize> = found
            .elements
            .items
            .iter()
            .map(|i| i.as_ptr() as usize - good.as_ptr() as usize)
            .collect();
        for (k, item) in found.elements.items.iter().enumerate() {
            for at in [0, 1, item.len() / 2, item.len() - 2] {
                // A byte no ASCII text holds, anywhere in the element (at
                // its brackets the array no longer reads: nothing found).
                let mut text = good.clone().into_bytes();
                text[starts[k] + at] = 0xc3;
                for split_from in [usize::MAX, 0] {
                    let Some(f) = array_items(&text, 0, split_from) else {
                        continue;
                    };
                    for (item, &ascii) in f.elements.items.iter().zip(&f.elements.ascii) {
                        assert!(!ascii || item.is_ascii(), "element {k}, byte {at}");
                        // No block of 64 bytes holds both this element and
                        // the changed byte: its mark stays.
                        let from = item.as_ptr() as usize - text.as_ptr() as usize;
                        let place = starts[k] + at;
                        if from > place + 64 || from + item.len() + 64 < place {
                            assert!(ascii, "element at {from} lost its mark for byte {place}");
                        }
                    }
                }
            }
        }
    }

    /// The SIMD classes are the byte-at-a-time ones, for every byte value
    /// at every place in a block.
    #[test]
    fn block_classes_match_the_byte_at_a_time_ones() {
        let mut block = [0u8; BLOCK];
        for value in 0..=255u8 {
            for at in 0..BLOCK {
                block.fill(b'a');
                block[at] = value;
                block[(at * 7 + 3) % BLOCK] = value.wrapping_add(1);
                let each = Classes::of_each_byte(&block);
                let mut simd = vec![("Classes::of", Classes::of(&block))];
                #[cfg(target_arch = "x86_64")]
                if std::arch::is_x86_feature_detected!("avx2") {
                    // SAFETY: this processor has AVX2 (checked just above).
                    simd.push(("AVX2", unsafe { Classes::of_avx2(&block) }));
                }
                #[cfg(target_arch = "x86_64")]
                if std::arch::is_x86_feature_detected!("avx512bw") {
                    // SAFETY: this processor has AVX-512BW (checked just above).
                    simd.push(("AVX-512BW", unsafe { Classes::of_avx512(&block) }));
                }
                for (which, simd) in simd {
                    assert_eq!(
                        (
                            simd.quotes,
                            simd.backslashes,
                            simd.opens,
                            simd.closes,
                            simd.high,
                            simd.newlines
                        ),
                        (
                            each.quotes,
                            each.backslashes,
                            each.opens,
                            each.closes,
                            each.high,
                            each.newlines
                        ),
                        "{which}: byte {value:#x} at {at}"
                    );
                }
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
