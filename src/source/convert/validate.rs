//! The API server's validation of the fields kplace reads, in its words
//! (`k8s.io/apimachinery/pkg/util/validation`, `pkg/apis/core/validation`):
//! an object a cluster could not hold is refused, not answered for.

use k8s_openapi::api::core::v1 as core;

use super::node_fields::TaintFields;
use crate::model::error::InvalidObject;
use crate::model::intern::{Interner, Sym};
use crate::model::labels::Labels;

const QUALIFIED_NAME_MSG: &str = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const LABEL_VALUE_MSG: &str = "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";
const DNS_SUBDOMAIN_MSG: &str = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";

/// `field.Invalid(path, value, detail)` as the API server prints it.
pub fn invalid(object: &str, field: impl Into<String>, value: &str, detail: &str) -> InvalidObject {
    InvalidObject::new(object, field, format!("Invalid value: {value:?}: {detail}"))
}

/// `field.NotSupported`.
fn not_supported(
    object: &str,
    field: impl Into<String>,
    value: &str,
    supported: &[&str],
) -> InvalidObject {
    let list: Vec<String> = supported.iter().map(|s| format!("{s:?}")).collect();
    InvalidObject::new(
        object,
        field,
        format!(
            "Unsupported value: {value:?}: supported values: {}",
            list.join(", ")
        ),
    )
}

fn is_qualified_part(s: &str) -> bool {
    is_qualified_part_bytes(s.as_bytes())
}

/// Whether `IsQualifiedName` finds nothing wrong with a label key, in one
/// pass over its bytes: every label of every pod loaded is checked, and
/// [`qualified_name_errors`] (string searches, a split per DNS label) is
/// needed only to say what is wrong.
fn is_qualified_name(value: &str) -> bool {
    let b = value.as_bytes();
    let (prefix, name) = match b.iter().position(|&c| c == b'/') {
        None => (None, b),
        Some(at) => (Some(&b[..at]), &b[at + 1..]),
    };
    if name.len() > 63 || !is_qualified_part_bytes(name) {
        return false;
    }
    let Some(prefix) = prefix else {
        return true;
    };
    // A DNS subdomain: dot-separated labels of lowercase letters, digits
    // and '-', each starting and ending with a letter or digit.
    let lower_or_digit = |c: u8| CLASS[c as usize] & LOWER_OR_DIGIT != 0;
    !prefix.is_empty()
        && prefix.len() <= 253
        && prefix.split(|&c| c == b'.').all(|label| {
            !label.is_empty()
                && lower_or_digit(label[0])
                && lower_or_digit(label[label.len() - 1])
                && label.iter().all(|&c| CLASS[c as usize] & DNS != 0)
        })
}

const DNS_LABEL_MSG: &str = "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";

/// Whether `s` matches the lowercase RFC 1123 subdomain pattern, at any
/// length: one branch-free pass (every byte a lowercase letter, digit, '-'
/// or '.'), then a look at each '.', which pod names rarely have (each
/// label starts and ends with a letter or digit). Every pod's name is
/// checked on the serial conversion: about 200 instructions a name.
fn is_dns_subdomain(s: &str) -> bool {
    let b = s.as_bytes();
    if b.is_empty() {
        return false;
    }
    let refused = b.iter().fold(0u8, |acc, &c| {
        let fine =
            (c.wrapping_sub(b'a') < 26) | (c.wrapping_sub(b'0') < 10) | (c == b'-') | (c == b'.');
        acc | u8::from(!fine)
    });
    let alnum = |c: u8| c.is_ascii_lowercase() || c.is_ascii_digit();
    // With both ends alphanumeric, every '.' has a byte on either side.
    refused == 0
        && alnum(b[0])
        && alnum(b[b.len() - 1])
        && memchr::memchr_iter(b'.', b).all(|i| alnum(b[i - 1]) && alnum(b[i + 1]))
}

/// `ValidateObjectMeta`'s check of a name that must be a DNS subdomain
/// (Pods, Nodes: `NameIsDNSSubdomain`).
pub fn dns_subdomain_name(name: &str, object: &str) -> Result<(), InvalidObject> {
    dns_subdomain(name, object, "metadata.name")
}

/// `IsDNS1123Subdomain` of a field (a pod's `schedulerName`).
pub fn dns_subdomain(value: &str, object: &str, field: &str) -> Result<(), InvalidObject> {
    if value.len() <= 253 && is_dns_subdomain(value) {
        return Ok(());
    }
    let detail = if value.len() > 253 {
        "must be no more than 253 characters"
    } else {
        DNS_SUBDOMAIN_MSG
    };
    Err(invalid(object, field, value, detail))
}

/// `ValidateNamespaceName` (a DNS label) of an object's namespace.
pub fn namespace_name(namespace: &str, object: &str) -> Result<(), InvalidObject> {
    let b = namespace.as_bytes();
    let lower_or_digit = |c: u8| CLASS[c as usize] & LOWER_OR_DIGIT != 0;
    let fine = !b.is_empty()
        && b.len() <= 63
        && lower_or_digit(b[0])
        && lower_or_digit(b[b.len() - 1])
        && b.iter().all(|&c| CLASS[c as usize] & DNS != 0);
    if fine {
        return Ok(());
    }
    let detail = if b.len() > 63 {
        "must be no more than 63 characters"
    } else {
        DNS_LABEL_MSG
    };
    Err(invalid(object, "metadata.namespace", namespace, detail))
}

/// Byte classes for the label checks, one table lookup per byte.
const ALNUM: u8 = 1;
const LOWER_OR_DIGIT: u8 = 2;
/// Alphanumeric, '-', '_' or '.': a qualified name's or a label value's.
const QUALIFIED: u8 = 4;
/// Lowercase, digit or '-': a DNS label's.
const DNS: u8 = 8;
const CLASS: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut c = 0;
    while c < 256 {
        let b = c as u8;
        let lower = b.is_ascii_lowercase();
        let digit = b.is_ascii_digit();
        let alnum = b.is_ascii_alphanumeric();
        let mut class = 0;
        if alnum {
            class |= ALNUM | QUALIFIED;
        }
        if lower || digit {
            class |= LOWER_OR_DIGIT | DNS;
        }
        if b == b'-' {
            class |= QUALIFIED | DNS;
        }
        if b == b'_' || b == b'.' {
            class |= QUALIFIED;
        }
        t[c] = class;
        c += 1;
    }
    t
};

/// [`is_qualified_part`] on bytes, by table.
fn is_qualified_part_bytes(b: &[u8]) -> bool {
    !b.is_empty()
        && CLASS[b[0] as usize] & ALNUM != 0
        && CLASS[b[b.len() - 1] as usize] & ALNUM != 0
        && b.iter().all(|&c| CLASS[c as usize] & QUALIFIED != 0)
}

/// `IsQualifiedName`: what is wrong with a label key, if anything.
pub fn qualified_name_errors(value: &str) -> Vec<String> {
    let mut errs = Vec::new();
    let name = match value.split_once('/') {
        None => value,
        Some((prefix, name)) if !name.contains('/') => {
            if prefix.is_empty() {
                errs.push("prefix part must be non-empty".to_string());
            } else {
                if prefix.len() > 253 {
                    errs.push("prefix part must be no more than 253 characters".to_string());
                }
                if !is_dns_subdomain(prefix) {
                    errs.push(format!("prefix part {DNS_SUBDOMAIN_MSG}"));
                }
            }
            name
        }
        Some(_) => {
            return vec![format!(
                "a qualified name {QUALIFIED_NAME_MSG} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"
            )];
        }
    };
    if name.is_empty() {
        errs.push("name part must be non-empty".to_string());
    } else if name.len() > 63 {
        errs.push("name part must be no more than 63 characters".to_string());
    }
    if !is_qualified_part(name) {
        errs.push(format!("name part {QUALIFIED_NAME_MSG}"));
    }
    errs
}

/// `IsValidLabelValue`.
pub fn label_value_errors(value: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if value.len() > 63 {
        errs.push("must be no more than 63 characters".to_string());
    }
    if !value.is_empty() && !is_qualified_part(value) {
        errs.push(LABEL_VALUE_MSG.to_string());
    }
    errs
}

/// A list element's path, `name[i]`, written out only for an error:
/// converting 150,000 pods builds no path string per element (#15).
#[derive(Clone, Copy)]
pub struct Indexed<'a>(pub &'a str, pub usize);

impl std::fmt::Display for Indexed<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}[{}]", self.0, self.1)
    }
}

/// `ValidateLabelName`.
pub fn label_name(
    key: &str,
    object: &str,
    field: impl std::fmt::Display,
) -> Result<(), InvalidObject> {
    if is_qualified_name(key) {
        return Ok(());
    }
    match qualified_name_errors(key).first() {
        Some(msg) => Err(invalid(object, field.to_string(), key, msg)),
        None => Ok(()),
    }
}

/// `IsValidLabelValue` as a field error.
pub fn label_value(
    value: &str,
    object: &str,
    field: impl std::fmt::Display,
) -> Result<(), InvalidObject> {
    match label_value_errors(value).first() {
        Some(msg) => Err(invalid(object, field.to_string(), value, msg)),
        None => Ok(()),
    }
}

/// `ValidateLabels`: keys and values of a label map (labels, nodeSelector,
/// matchLabels), given as pairs in order; errors name the map's path, as
/// upstream's do.
pub fn label_pairs<'a>(
    pairs: impl Iterator<Item = (&'a str, &'a str)>,
    object: &str,
    field: impl std::fmt::Display,
) -> Result<(), InvalidObject> {
    for (k, v) in pairs {
        label_name(k, object, &field)?;
        label_value(v, object, &field)?;
    }
    Ok(())
}

/// `ValidateNodeSelector` (required node affinity).
pub fn node_selector(
    ns: &core::NodeSelector,
    object: &str,
    field: &str,
) -> Result<(), InvalidObject> {
    let terms = format!("{field}.nodeSelectorTerms");
    if ns.node_selector_terms.is_empty() {
        return Err(InvalidObject::new(
            object,
            terms,
            "Required value: must have at least one node selector term",
        ));
    }
    for (i, t) in ns.node_selector_terms.iter().enumerate() {
        node_selector_term(t, object, &format!("{terms}[{i}]"))?;
    }
    Ok(())
}

/// `ValidateNodeSelectorTerm`.
pub fn node_selector_term(
    t: &core::NodeSelectorTerm,
    object: &str,
    field: &str,
) -> Result<(), InvalidObject> {
    for (j, r) in t.match_expressions.iter().flatten().enumerate() {
        node_selector_requirement(r, object, &format!("{field}.matchExpressions[{j}]"))?;
    }
    for (j, r) in t.match_fields.iter().flatten().enumerate() {
        let path = format!("{field}.matchFields[{j}]");
        let values = r.values.as_deref().unwrap_or(&[]);
        match r.operator.as_str() {
            "In" | "NotIn" if values.len() != 1 => {
                return Err(InvalidObject::new(
                    object,
                    format!("{path}.values"),
                    "Required value: must be only one value when `operator` is 'In' or 'NotIn' for node field selector",
                ));
            }
            "In" | "NotIn" => {}
            other => {
                return Err(invalid(
                    object,
                    format!("{path}.operator"),
                    other,
                    "not a valid selector operator",
                ));
            }
        }
        if r.key != "metadata.name" {
            return Err(invalid(
                object,
                format!("{path}.key"),
                &r.key,
                "not a valid field selector key",
            ));
        }
    }
    Ok(())
}

/// `ValidateNodeSelectorRequirement`.
fn node_selector_requirement(
    r: &core::NodeSelectorRequirement,
    object: &str,
    path: &str,
) -> Result<(), InvalidObject> {
    let values = r.values.as_deref().unwrap_or(&[]);
    let required = |detail: &str| {
        Err(InvalidObject::new(
            object,
            format!("{path}.values"),
            format!("Required value: {detail}"),
        ))
    };
    match r.operator.as_str() {
        "In" | "NotIn" if values.is_empty() => {
            return required("must be specified when `operator` is 'In' or 'NotIn'");
        }
        "Exists" | "DoesNotExist" if !values.is_empty() => {
            return Err(InvalidObject::new(
                object,
                format!("{path}.values"),
                "Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
            ));
        }
        "Gt" | "Lt" if values.len() != 1 => {
            return required("must be specified single value when `operator` is 'Lt' or 'Gt'");
        }
        "In" | "NotIn" | "Exists" | "DoesNotExist" | "Gt" | "Lt" => {}
        other => {
            return Err(invalid(
                object,
                format!("{path}.operator"),
                other,
                "not a valid selector operator",
            ));
        }
    }
    label_name(&r.key, object, format_args!("{path}.key"))?;
    for (i, v) in values.iter().enumerate() {
        label_value(v, object, format_args!("{path}.values[{i}]"))?;
    }
    Ok(())
}

const TAINT_EFFECTS: [&str; 3] = ["NoSchedule", "PreferNoSchedule", "NoExecute"];

/// `validateTaintEffect`.
pub fn taint_effect(
    effect: &str,
    allow_empty: bool,
    object: &str,
    field: &str,
) -> Result<(), InvalidObject> {
    if effect.is_empty() {
        return if allow_empty {
            Ok(())
        } else {
            Err(InvalidObject::new(object, field, "Required value"))
        };
    }
    if TAINT_EFFECTS.contains(&effect) {
        Ok(())
    } else {
        Err(not_supported(object, field, effect, &TAINT_EFFECTS))
    }
}

/// `validateNodeTaints`.
pub fn node_taints<'a>(
    taints: impl Iterator<Item = TaintFields<'a>>,
    object: &str,
) -> Result<(), InvalidObject> {
    let mut seen = std::collections::HashSet::new();
    for (i, t) in taints.enumerate() {
        let path = format!("spec.taints[{i}]");
        label_name(t.key, object, format_args!("{path}.key"))?;
        let value = t.value.unwrap_or("");
        let errs = label_value_errors(value);
        if !errs.is_empty() {
            return Err(invalid(
                object,
                format!("{path}.value"),
                value,
                &errs.join(";"),
            ));
        }
        taint_effect(t.effect, false, object, &format!("{path}.effect"))?;
        if !seen.insert((t.effect, t.key)) {
            return Err(InvalidObject::new(
                object,
                path,
                format!(
                    "Duplicate value: {{key: {:?}, value: {value:?}, effect: {:?}}}: taints must be unique by key and effect pair",
                    t.key, t.effect
                ),
            ));
        }
    }
    Ok(())
}

/// The label keys and values found valid so far, by symbol: replicas
/// repeat a handful of keys and values, so each distinct one is checked
/// once instead of once per pod (checking every pod's labels was about 4%
/// of the instructions of a `place` on the synthetic cluster, all of it on
/// the serial conversion). Keys and values are kept apart: a valid value
/// can be an invalid key and the other way round.
#[derive(Default)]
pub struct CheckedLabels {
    keys: Vec<u64>,
    values: Vec<u64>,
}

impl CheckedLabels {
    /// Whether `sym` was marked in `bits`; marks it.
    fn seen(bits: &mut Vec<u64>, sym: Sym) -> bool {
        let (word, bit) = (sym.index() / 64, 1u64 << (sym.index() % 64));
        if word >= bits.len() {
            bits.resize(word + 1, 0);
        }
        let seen = bits[word] & bit != 0;
        bits[word] |= bit;
        seen
    }

    /// `metadata.labels` interned, each pair checked as `ValidateLabels`
    /// does unless found valid before; errors in the order of the pairs.
    pub fn labels<'a>(
        &mut self,
        pairs: impl Iterator<Item = (&'a str, &'a str)>,
        interner: &mut Interner,
        object: &str,
    ) -> Result<Labels, InvalidObject> {
        let mut out = Vec::with_capacity(pairs.size_hint().0);
        for (k, v) in pairs {
            let (ks, vs) = (interner.intern(k), interner.intern(v));
            if !Self::seen(&mut self.keys, ks) {
                label_name(k, object, "metadata.labels").inspect_err(|_| {
                    Self::forget(&mut self.keys, ks);
                })?;
            }
            if !Self::seen(&mut self.values, vs) {
                label_value(v, object, "metadata.labels").inspect_err(|_| {
                    Self::forget(&mut self.values, vs);
                })?;
            }
            out.push((ks, vs));
        }
        Ok(Labels::new(out))
    }

    /// Whether `sym` is marked in `bits`.
    fn marked(bits: &[u64], sym: Sym) -> bool {
        bits.get(sym.index() / 64)
            .is_some_and(|w| w & (1u64 << (sym.index() % 64)) != 0)
    }

    /// `ValidateLabels` of a map the conversion interns later (a node
    /// selector, a node's labels), skipped for pairs whose key and value
    /// were found valid before; nothing is interned here, so symbols keep
    /// their numbers.
    pub fn pairs<'a>(
        &mut self,
        pairs: impl Iterator<Item = (&'a str, &'a str)>,
        interner: &Interner,
        object: &str,
        field: &str,
    ) -> Result<(), InvalidObject> {
        for (k, v) in pairs {
            let (ks, vs) = (interner.lookup(k), interner.lookup(v));
            if !ks.is_some_and(|s| Self::marked(&self.keys, s)) {
                label_name(k, object, field)?;
                if let Some(s) = ks {
                    Self::seen(&mut self.keys, s);
                }
            }
            if !vs.is_some_and(|s| Self::marked(&self.values, s)) {
                label_value(v, object, field)?;
                if let Some(s) = vs {
                    Self::seen(&mut self.values, s);
                }
            }
        }
        Ok(())
    }

    fn forget(bits: &mut [u64], sym: Sym) {
        bits[sym.index() / 64] &= !(1u64 << (sym.index() % 64));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Keys and values found valid are remembered apart: a string valid as
    /// a key (`example.com/a`) is still refused as a value, a refused pair
    /// is refused again, and a selector's pairs are checked even before
    /// their strings are interned.
    #[test]
    fn checked_labels_remember_keys_and_values_apart() {
        let mut interner = Interner::default();
        let mut checked = CheckedLabels::default();
        let one = |k: &'static str, v: &'static str| std::iter::once((k, v));
        assert!(
            checked
                .labels(one("example.com/a", "x"), &mut interner, "Pod d/p")
                .is_ok()
        );
        let err = checked
            .labels(one("b", "example.com/a"), &mut interner, "Pod d/q")
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("metadata.labels: Invalid value: \"example.com/a\""),
            "{err}"
        );
        for _ in 0..2 {
            assert!(
                checked
                    .labels(one("Bad Key", "x"), &mut interner, "Pod d/r")
                    .is_err()
            );
            assert!(
                checked
                    .pairs(
                        one("c", "no spaces allowed"),
                        &interner,
                        "Pod d/s",
                        "spec.nodeSelector"
                    )
                    .is_err()
            );
        }
        assert!(
            checked
                .pairs(
                    one("example.com/a", "x"),
                    &interner,
                    "Pod d/t",
                    "spec.nodeSelector"
                )
                .is_ok()
        );
    }

    /// The one-pass check accepts exactly the keys `IsQualifiedName`'s port
    /// finds nothing wrong with: every string of up to six characters over
    /// the characters that matter, and the length limits.
    #[test]
    fn is_qualified_name_agrees_with_qualified_name_errors() {
        let alphabet = ['a', 'Z', '0', '-', '_', '.', '/', 'é'];
        let mut keys = vec![String::new()];
        let mut layer = vec![String::new()];
        for _ in 0..6 {
            layer = layer
                .iter()
                .flat_map(|k| alphabet.iter().map(move |c| format!("{k}{c}")))
                .collect();
            keys.extend(layer.iter().cloned());
        }
        for n in [62, 63, 64] {
            keys.push("a".repeat(n));
            keys.push(format!("example.com/{}", "b".repeat(n)));
        }
        for n in [252, 253, 254] {
            keys.push(format!("{}/name", "c".repeat(n)));
        }
        keys.push(format!(
            "{}.io/name",
            ["d".repeat(63), "e".repeat(63), "f".repeat(63)].join(".")
        ));
        for key in &keys {
            assert_eq!(
                is_qualified_name(key),
                qualified_name_errors(key).is_empty(),
                "{key:?}"
            );
        }
        assert!(keys.iter().filter(|k| is_qualified_name(k)).count() > 1000);
    }

    #[test]
    fn qualified_names() {
        for ok in [
            "app",
            "example.com/app",
            "a.b_c-d",
            "A1",
            "kubernetes.io/hostname",
        ] {
            assert!(qualified_name_errors(ok).is_empty(), "{ok}");
        }
        for bad in [
            "",
            "-a",
            "a-",
            "a/b/c",
            "/a",
            "Example.com/a",
            "a b",
            &"x".repeat(64),
        ] {
            assert!(!qualified_name_errors(bad).is_empty(), "{bad}");
        }
        assert!(qualified_name_errors("bad key")[0].starts_with("name part must consist"));
    }

    #[test]
    fn label_values() {
        for ok in ["", "a", "a.b-c_d", "123"] {
            assert!(label_value_errors(ok).is_empty(), "{ok}");
        }
        for bad in ["-a", "a b", "\u{1b}[31m", &"x".repeat(64)] {
            assert!(!label_value_errors(bad).is_empty(), "{bad}");
        }
    }
}
