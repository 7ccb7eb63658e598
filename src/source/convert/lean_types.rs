//! The pieces the lean parses ([`super::lean_pod`], [`super::lean_node`])
//! share: strings borrowed from the file's bytes, maps of them walked as
//! a `BTreeMap` walks them, and timestamps read as `k8s-openapi` reads
//! them (#15 item 1).

use std::fmt;
use std::marker::PhantomData;

use serde::Deserialize;
use serde::de::{self, MapAccess, Visitor};

/// A string borrowed from the input. A string with an escape cannot be
/// borrowed: the object is then refused, and the loader parses it whole
/// (the lean JSON reader already gives up on one; serde_json, reading
/// where it gave up, hands it over decoded, which this refuses). Borrowed
/// only, a string is two words with nothing to drop: as a `Cow`, the
/// checks on reading and dropping every string of every pod were about
/// 5% of converting pods and 4% of parsing them (a profile of the load).
#[derive(Debug, Clone, Copy)]
pub struct Str<'a>(&'a str);

impl<'de: 'a, 'a> Deserialize<'de> for Str<'a> {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct StrVisitor<'a>(PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for StrVisitor<'a> {
            type Value = Str<'a>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a string without escapes")
            }
            fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Str<'a>, E> {
                Ok(Str(v))
            }
        }
        d.deserialize_str(StrVisitor(PhantomData))
    }
}

impl<'a> Str<'a> {
    pub fn get(&self) -> &'a str {
        self.0
    }
}

pub fn opt<'s>(s: &'s Option<Str<'_>>) -> Option<&'s str> {
    s.as_ref().map(Str::get)
}

/// One JSON item read lean as `T` (serde_json where the lean reader gives
/// up: its answer stands); `None` when neither reads it, or its
/// `apiVersion` is one `k8s-openapi` refuses for a core object (not
/// `v1`): the caller then parses it whole.
pub fn read_v1<'a, T: Deserialize<'a>>(
    json: &'a str,
    api_version: impl Fn(&T) -> Option<&str>,
) -> Option<T> {
    let object: T = super::lean_json::from_str(json).or_else(|| serde_json::from_str(json).ok())?;
    match api_version(&object) {
        None | Some("v1") => Some(object),
        Some(_) => None,
    }
}

/// A map of strings walked as a `BTreeMap` walks it: in key order, a key
/// given twice keeping its last value.
#[derive(Debug, Default)]
pub struct StrMap<'a>(Vec<(Str<'a>, Str<'a>)>);

impl<'de: 'a, 'a> Deserialize<'de> for StrMap<'a> {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct MapVisitor<'a>(PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for MapVisitor<'a> {
            type Value = StrMap<'a>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a map of strings")
            }
            fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> Result<StrMap<'a>, M::Error> {
                // Room for the labels a pod usually has: the map lives only
                // until its object is converted, and growing it from empty
                // (0, 4, 8) was about 1.8% of a snapshot's load (callgrind).
                let mut pairs: Vec<(Str<'a>, Str<'a>)> =
                    Vec::with_capacity(map.size_hint().unwrap_or(8));
                while let Some(pair) = map.next_entry::<Str<'a>, Str<'a>>()? {
                    pairs.push(pair);
                }
                // Stable: of a key given twice, the later stays later. (The
                // API server writes keys sorted: then this only checks.)
                pairs.sort_by(|a, b| a.0.get().cmp(b.0.get()));
                if pairs.windows(2).all(|w| w[0].0.get() != w[1].0.get()) {
                    return Ok(StrMap(pairs));
                }
                let mut unique: Vec<(Str<'a>, Str<'a>)> = Vec::with_capacity(pairs.len());
                for (k, v) in pairs {
                    match unique.last_mut() {
                        Some(last) if last.0.get() == k.get() => last.1 = v,
                        _ => unique.push((k, v)),
                    }
                }
                Ok(StrMap(unique))
            }
        }
        d.deserialize_map(MapVisitor(PhantomData))
    }
}

impl StrMap<'_> {
    pub fn iter(&self) -> impl Iterator<Item = (&str, &str)> {
        self.0.iter().map(|(k, v)| (k.get(), v.get()))
    }
}

pub fn pairs<'s>(map: &'s Option<StrMap<'_>>) -> impl Iterator<Item = (&'s str, &'s str)> {
    map.iter().flat_map(StrMap::iter)
}

pub fn seconds(t: &Option<Seconds>) -> Option<i64> {
    t.map(|t| t.0)
}

/// A timestamp (`metav1.Time`) as seconds since the Unix epoch: what
/// conversion reads of it. The form the API server writes,
/// `2024-09-18T17:32:30Z`, is read directly; anything else goes to the
/// parser `k8s-openapi` uses (jiff's), so what is accepted, and the
/// seconds, are the same. jiff's parse was about a twentieth of the lean
/// parse's instructions (two or three timestamps per pod; callgrind).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Seconds(pub i64);

impl<'de> Deserialize<'de> for Seconds {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct SecondsVisitor;
        impl Visitor<'_> for SecondsVisitor {
            type Value = Seconds;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a timestamp")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Seconds, E> {
                Seconds::parse(v).map_err(E::custom)
            }
        }
        d.deserialize_str(SecondsVisitor)
    }
}

impl Seconds {
    /// `text` as jiff's `Timestamp` parses it, in seconds.
    pub fn parse(text: &str) -> Result<Seconds, String> {
        if let Some(seconds) = utc_seconds(text.as_bytes()) {
            return Ok(Seconds(seconds));
        }
        text.parse::<k8s_openapi::jiff::Timestamp>()
            .map(|t| Seconds(t.as_second()))
            .map_err(|e| e.to_string())
    }
}

/// Seconds since the epoch of `YYYY-MM-DDTHH:MM:SSZ`, for the years 1 to
/// 9998 and a valid day, hour, minute and second (never a leap second);
/// `None` for anything else, even when valid (jiff then decides).
fn utc_seconds(b: &[u8]) -> Option<i64> {
    let &[
        y0,
        y1,
        y2,
        y3,
        b'-',
        m0,
        m1,
        b'-',
        d0,
        d1,
        b'T',
        h0,
        h1,
        b':',
        i0,
        i1,
        b':',
        s0,
        s1,
        b'Z',
    ] = b
    else {
        return None;
    };
    let digits = |ds: &[u8]| -> Option<i64> {
        ds.iter().try_fold(0i64, |n, &d| {
            d.is_ascii_digit().then(|| n * 10 + i64::from(d - b'0'))
        })
    };
    let year = digits(&[y0, y1, y2, y3])?;
    let month = digits(&[m0, m1])?;
    let day = digits(&[d0, d1])?;
    let (hour, minute, second) = (digits(&[h0, h1])?, digits(&[i0, i1])?, digits(&[s0, s1])?);
    let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
    let days_in_month = match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return None,
    };
    if !(1..=9998).contains(&year)
        || !(1..=days_in_month).contains(&day)
        || hour > 23
        || minute > 59
        || second > 59
    {
        return None;
    }
    Some(days_from_civil(year, month, day) * 86_400 + hour * 3_600 + minute * 60 + second)
}

/// Days from 1970-01-01 to a date of the proleptic Gregorian calendar
/// (Howard Hinnant's `days_from_civil`).
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let year_of_era = y - era * 400;
    let shifted_month = (month + 9) % 12;
    let day_of_year = (153 * shifted_month + 2) / 5 + day - 1;
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    era * 146_097 + day_of_era - 719_468
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What `k8s-openapi`'s `Time` (jiff) makes of a JSON string, in
    /// seconds.
    fn jiff_seconds(text: &str) -> Option<i64> {
        let json = serde_json::to_string(text).unwrap();
        serde_json::from_str::<k8s_openapi::apimachinery::pkg::apis::meta::v1::Time>(&json)
            .ok()
            .map(|t| t.0.as_second())
    }

    fn lean_seconds(text: &str) -> Option<i64> {
        let json = serde_json::to_string(text).unwrap();
        serde_json::from_str::<Seconds>(&json).ok().map(|s| s.0)
    }

    /// Every day of four centuries and more (leap years, 1900, 2000,
    /// 2100), times across each day, the ends of the years read directly,
    /// and forms only jiff reads: the same seconds, or both refuse.
    #[test]
    fn timestamps_read_directly_are_jiffs() {
        let mut checked = 0;
        let mut texts: Vec<String> = Vec::new();
        for year in [
            1, 4, 100, 1600, 1899, 1900, 1969, 1970, 2000, 2023, 2024, 2100, 9998, 9999,
        ] {
            for month in 0..=13 {
                for day in 0..=32 {
                    texts.push(format!("{year:04}-{month:02}-{day:02}T12:34:56Z"));
                }
            }
        }
        for year in 1899..=2401 {
            for (month, day) in [(1, 1), (2, 28), (2, 29), (3, 1), (12, 31)] {
                texts.push(format!("{year:04}-{month:02}-{day:02}T00:00:00Z"));
            }
        }
        for (h, m, sec) in [
            (0, 0, 0),
            (23, 59, 59),
            (24, 0, 0),
            (12, 60, 0),
            (12, 0, 60),
            (9, 5, 7),
        ] {
            texts.push(format!("2024-02-29T{h:02}:{m:02}:{sec:02}Z"));
        }
        texts.extend(
            [
                "2024-09-18T17:32:30.123Z",
                "2024-09-18T17:32:30+02:00",
                "2024-09-18t17:32:30z",
                "2024-09-18 17:32:30Z",
                "2024-09-18T17:32:30",
                "2024-9-18T17:32:30Z",
                "+2024-09-18T17:32:30Z",
                "２024-09-18T17:32:30Z",
                "2024-09-18T17:32:3aZ",
                "",
            ]
            .map(String::from),
        );
        for text in &texts {
            assert_eq!(lean_seconds(text), jiff_seconds(text), "{text:?}");
            checked += usize::from(utc_seconds(text.as_bytes()).is_some());
        }
        assert!(checked > 2_000, "most are read directly ({checked})");
        // Not a string: refused, as jiff refuses it.
        assert!(serde_json::from_str::<Seconds>("1726680750").is_err());
    }
}

/// What the lean parses' tests share: the objects they read, and the check
/// that both forms of an object convert alike.
#[cfg(test)]
pub(super) mod testing {
    use crate::model::intern::Interner;

    /// Every item of `kind` among a file's documents (in Lists too).
    pub fn items_of(docs: Vec<serde_json::Value>, kind: &str) -> Vec<serde_json::Value> {
        let mut out = Vec::new();
        for doc in docs {
            let items = match doc.get("items").and_then(|i| i.as_array()) {
                Some(items) => items.clone(),
                None => vec![doc],
            };
            out.extend(
                items
                    .into_iter()
                    .filter(|item| item.get("kind").and_then(|k| k.as_str()) == Some(kind)),
            );
        }
        out
    }

    /// The documents of each of the corpus case files named `file`, with
    /// the file's path.
    pub fn corpus_docs(file: &str) -> Vec<(String, Vec<serde_json::Value>)> {
        let cases =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/conformance/cases");
        let mut out = Vec::new();
        for case in std::fs::read_dir(&cases).expect("the corpus copy is in the repository") {
            let path = case.unwrap().path().join(file);
            if !path.exists() {
                continue;
            }
            let name = path.display().to_string();
            let bytes = crate::source::file::read_bytes(&path).expect("corpus files read");
            let docs =
                crate::source::file::manifest_docs(&bytes, &name).expect("corpus files parse");
            out.push((name, docs));
        }
        out
    }

    /// The small synthetic cluster's `List`, as one document.
    pub fn synthetic_docs() -> Vec<serde_json::Value> {
        let mut json = Vec::new();
        crate::synth::write_cluster_json(&mut json, &crate::synth::SynthSpec::small())
            .expect("write to memory");
        vec![serde_json::from_slice(&json).expect("synth writes JSON")]
    }

    /// Converts one object's JSON both ways, each with a fresh interner, and
    /// checks they agree: the same model (or the same error), the same
    /// strings interned in the same order. `false` when the lean parse
    /// refused the object (`lean` is `None`; the loader then parses it
    /// whole).
    pub fn converts_alike<L, W: serde::de::DeserializeOwned, M: PartialEq + std::fmt::Debug>(
        json: &str,
        what: &str,
        lean: Option<L>,
        convert_lean: impl Fn(&L, &mut Interner) -> M,
        convert_whole: impl Fn(&W, &mut Interner) -> M,
    ) -> bool {
        let Some(lean) = lean else {
            return false;
        };
        let whole: W = serde_json::from_str(json).unwrap_or_else(|e| {
            panic!("{what}: the lean parse took an object k8s-openapi refuses: {e}")
        });
        let (mut a, mut b) = (Interner::default(), Interner::default());
        let from_lean = convert_lean(&lean, &mut a);
        let from_whole = convert_whole(&whole, &mut b);
        assert_eq!(from_lean, from_whole, "{what}: the two conversions differ");
        assert!(
            a.strings().eq(b.strings()),
            "{what}: strings interned differently"
        );
        true
    }
}
