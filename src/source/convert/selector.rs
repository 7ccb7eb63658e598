//! `metav1.LabelSelector` and `v1.NodeSelector` conversion with upstream's validation.

use k8s_openapi::api::core::v1 as core;

use super::pod_fields::{ExpressionFields, SelectorFields};
use crate::model::error::InvalidObject;
use crate::model::intern::Interner;
use crate::model::labels::{LabelSelector, Requirement, SetOperator};
use crate::model::pod::{
    FieldRequirement, NodeSelectorOperator, NodeSelectorRequirement, NodeSelectorTerm,
};

/// `LabelSelectorAsSelector`: nil → Nothing, `{}` → Everything.
pub fn label_selector<S: SelectorFields>(
    sel: Option<&S>,
    interner: &mut Interner,
    object: &str,
    field: impl std::fmt::Display,
) -> Result<LabelSelector, InvalidObject> {
    let Some(sel) = sel else {
        return Ok(LabelSelector::Nothing);
    };
    let mut reqs = Vec::new();
    super::validate::label_pairs(
        sel.match_labels().into_iter().flatten(),
        object,
        format_args!("{field}.matchLabels"),
    )?;
    if let Some(ml) = sel.match_labels() {
        for (k, v) in ml {
            reqs.push(Requirement::equals(interner.intern(k), interner.intern(v)));
        }
    }
    for (i, expr) in sel.match_expressions().iter().enumerate() {
        let path = format!("{field}.matchExpressions[{i}]");
        let op = match expr.operator() {
            "In" => SetOperator::In,
            "NotIn" => SetOperator::NotIn,
            "Exists" => SetOperator::Exists,
            "DoesNotExist" => SetOperator::DoesNotExist,
            other => {
                return Err(InvalidObject::new(
                    object,
                    format!("{path}.operator"),
                    format!("{other:?} is not a valid label selector operator"),
                ));
            }
        };
        let values = expr.values();
        check_values(op_needs_values(op), values.len(), object, &path)?;
        super::validate::label_name(expr.key(), object, format_args!("{path}.key"))?;
        for (j, v) in values.clone().enumerate() {
            super::validate::label_value(v, object, format_args!("{path}.values[{j}]"))?;
        }
        let mut syms: Vec<_> = values.map(|v| interner.intern(v)).collect();
        syms.sort_unstable();
        syms.dedup();
        reqs.push(Requirement {
            key: interner.intern(expr.key()),
            op,
            values: syms.into_boxed_slice(),
        });
    }
    Ok(LabelSelector::Requirements(reqs.into_boxed_slice()))
}

/// A map selector (Services, ReplicationControllers): every pair must match.
pub fn map_selector(
    map: &std::collections::BTreeMap<String, String>,
    interner: &mut Interner,
) -> LabelSelector {
    LabelSelector::Requirements(
        map.iter()
            .map(|(k, v)| Requirement::equals(interner.intern(k), interner.intern(v)))
            .collect(),
    )
}

fn op_needs_values(op: SetOperator) -> bool {
    matches!(op, SetOperator::In | SetOperator::NotIn)
}

fn check_values(needs: bool, n: usize, object: &str, path: &str) -> Result<(), InvalidObject> {
    if needs && n == 0 {
        return Err(InvalidObject::new(
            object,
            format!("{path}.values"),
            "for 'in', 'notin' operators, values set can't be empty",
        ));
    }
    if !needs && n > 0 {
        return Err(InvalidObject::new(
            object,
            format!("{path}.values"),
            "values set must be empty for exists and does not exist",
        ));
    }
    Ok(())
}

/// One `NodeSelectorTerm`. Upstream skips terms that fail to parse (and
/// empty ones) instead of failing, so a bad term becomes unusable, not an error.
pub fn node_selector_term(
    term: &core::NodeSelectorTerm,
    interner: &mut Interner,
) -> NodeSelectorTerm {
    let name_in = prefilter_names(term);
    let mut parsed = parse_term(term, interner);
    parsed.name_in = name_in;
    parsed
}

/// NodeAffinity PreFilter reads the raw terms: it intersects the value sets
/// of every `metadata.name In` field, whether or not the term parses.
fn prefilter_names(term: &core::NodeSelectorTerm) -> Option<Box<[Box<str>]>> {
    let mut names: Option<Vec<Box<str>>> = None;
    for f in term.match_fields.iter().flatten() {
        if f.key != "metadata.name" || f.operator != "In" {
            continue;
        }
        let values: Vec<Box<str>> = f
            .values
            .iter()
            .flatten()
            .map(|v| v.as_str().into())
            .collect();
        names = Some(match names {
            None => values,
            Some(prev) => prev.into_iter().filter(|n| values.contains(n)).collect(),
        });
    }
    names.map(|mut n| {
        n.sort();
        n.dedup();
        n.into_boxed_slice()
    })
}

fn parse_term(term: &core::NodeSelectorTerm, interner: &mut Interner) -> NodeSelectorTerm {
    let exprs = term.match_expressions.as_deref().unwrap_or(&[]);
    let fields = term.match_fields.as_deref().unwrap_or(&[]);
    if exprs.is_empty() && fields.is_empty() {
        return NodeSelectorTerm::default();
    }
    let mut out = NodeSelectorTerm {
        usable: true,
        ..Default::default()
    };
    let mut parsed = Vec::with_capacity(exprs.len());
    for e in exprs {
        match node_requirement(e, interner) {
            Some(r) => parsed.push(r),
            None => return NodeSelectorTerm::default(),
        }
    }
    let mut parsed_fields = Vec::with_capacity(fields.len());
    for f in fields {
        let values = f.values.as_deref().unwrap_or(&[]);
        let not_in = match f.operator.as_str() {
            "In" => false,
            "NotIn" => true,
            _ => return NodeSelectorTerm::default(),
        };
        if f.key != "metadata.name" || values.len() != 1 {
            return NodeSelectorTerm::default();
        }
        parsed_fields.push(FieldRequirement {
            not_in,
            name: values[0].as_str().into(),
        });
    }
    out.expressions = parsed.into_boxed_slice();
    out.fields = parsed_fields.into_boxed_slice();
    out
}

fn node_requirement(
    e: &core::NodeSelectorRequirement,
    interner: &mut Interner,
) -> Option<NodeSelectorRequirement> {
    let values = e.values.as_deref().unwrap_or(&[]);
    let op = match e.operator.as_str() {
        "In" => NodeSelectorOperator::In,
        "NotIn" => NodeSelectorOperator::NotIn,
        "Exists" => NodeSelectorOperator::Exists,
        "DoesNotExist" => NodeSelectorOperator::DoesNotExist,
        "Gt" => NodeSelectorOperator::Gt,
        "Lt" => NodeSelectorOperator::Lt,
        _ => return None,
    };
    let valid_key = !e.key.is_empty();
    let ok = valid_key
        && match op {
            NodeSelectorOperator::In | NodeSelectorOperator::NotIn => !values.is_empty(),
            NodeSelectorOperator::Exists | NodeSelectorOperator::DoesNotExist => values.is_empty(),
            NodeSelectorOperator::Gt | NodeSelectorOperator::Lt => {
                values.len() == 1 && values[0].parse::<i64>().is_ok()
            }
        };
    if !ok {
        return None;
    }
    let number = match op {
        NodeSelectorOperator::Gt | NodeSelectorOperator::Lt => values[0].parse().ok(),
        _ => None,
    };
    let mut syms: Vec<_> = values.iter().map(|v| interner.intern(v)).collect();
    syms.sort_unstable();
    syms.dedup();
    Some(NodeSelectorRequirement {
        key: interner.intern(&e.key),
        op,
        values: syms.into_boxed_slice(),
        number,
    })
}
