//! The Placement view's "How to make it fit": the engine's verified
//! remedies for the pod shown, in the shared wording, with the edits kept
//! so that enter opens one in What-if.

use crate::engine::remedies::{Edit, Remedies, RemedyKind};

/// One remedy as the view lists it.
#[derive(Clone, Debug)]
pub struct RemedyItem {
    pub kind: RemedyKind,
    /// "change → answer", as `place`'s table says it.
    pub text: String,
    /// The change alone, for What-if's title.
    pub change: String,
    pub edit: Edit,
}

/// What the view shows for one pod: the search's progress, then its result.
#[derive(Clone, Debug, Default)]
pub struct RemedyPanel {
    pub items: Vec<RemedyItem>,
    pub notes: Vec<String>,
    /// "looking… (3/9: relax-spread)" while the search runs.
    pub progress: Option<String>,
}

impl RemedyPanel {
    pub fn searching(step: usize, steps: usize, kind: RemedyKind) -> Self {
        RemedyPanel {
            progress: Some(format!(
                "looking for changes that make it fit… ({step}/{steps}: {})",
                kind.as_str()
            )),
            ..Default::default()
        }
    }

    pub fn from(found: &Remedies) -> Self {
        RemedyPanel {
            items: found
                .remedies
                .iter()
                .map(|r| RemedyItem {
                    kind: r.kind,
                    text: crate::report::remedies::line(r),
                    change: r.change.clone(),
                    edit: r.edit.clone(),
                })
                .collect(),
            notes: found.notes.clone(),
            progress: None,
        }
    }
}
