//! Saving a draft to a file and loading one (`w`, `:save`, `:save!`,
//! `:load`): never overwriting silently, and never replacing the draft
//! with a file that does not give a valid pod.

use std::path::PathBuf;
use std::sync::Arc;

use crate::model::Cluster;

use super::draft::Draft;
use super::{KeyResult, WhatIf};

impl WhatIf {
    /// Writes the draft's YAML to `path`, or `<name>.yaml` here (the name
    /// made safe: no `/`, `..` or control characters). An existing file is
    /// not overwritten: the status says so and how (`:save! PATH`).
    pub fn save(&self, path: Option<String>) -> KeyResult {
        self.save_to(path, false)
    }

    /// `:save! PATH`: writes the draft over `PATH` if it exists.
    pub fn save_over(&self, path: String) -> KeyResult {
        self.save_to(Some(path), true)
    }

    fn save_to(&self, path: Option<String>, overwrite: bool) -> KeyResult {
        let Some(d) = &self.draft else {
            return KeyResult::Error("no draft to save (e on a pod, or :draft new)".into());
        };
        let path =
            PathBuf::from(path.unwrap_or_else(|| crate::app::files::draft_file_name(&d.name())));
        let written = if overwrite {
            crate::app::files::replace(&path, d.yaml.as_bytes())
        } else {
            crate::app::files::write_new(&path, d.yaml.as_bytes(), "save!")
        };
        match written {
            Ok(()) => KeyResult::Info(format!("draft saved to {}", path.display())),
            Err(e) => KeyResult::Error(e),
        }
    }

    /// Reads a draft from a file: a Pod or a workload (its controller's
    /// pod), alone or among other objects (`:load PATH KIND/NAME` picks one
    /// of several). A file that does not give a valid pod leaves the
    /// current draft as it was.
    pub fn load(&mut self, cluster: &Arc<Cluster>, arg: &str) -> KeyResult {
        let (path, select) = match arg.rsplit_once(' ') {
            Some((p, sel)) if !std::path::Path::new(arg).exists() && sel.contains('/') => {
                (p.trim_end(), Some(sel))
            }
            _ => (arg, None),
        };
        let text = match std::fs::read_to_string(path) {
            Ok(t) => t,
            Err(e) => return KeyResult::Error(format!("{path}: {e}")),
        };
        self.interner(cluster);
        let mut i = self.interner.take().unwrap_or_default();
        let mut d = Draft::new(serde_json::json!({}));
        let parsed = d.set_yaml_choosing(&text, select, &mut i);
        self.interner = Some(i);
        if let Err(e) = parsed {
            return KeyResult::Error(format!("{path}: {e}; the draft is unchanged"));
        }
        if !d.valid {
            let why = d.error.clone().unwrap_or_default();
            return KeyResult::Error(format!("{path}: {why}; the draft is unchanged"));
        }
        let loaded = match &d.workload {
            Some(w) => {
                if let crate::source::workload::Replicas::Count(n) = w.replicas
                    && n > 0
                {
                    self.replicas_n = n as usize;
                }
                let count = match w.replicas {
                    crate::source::workload::Replicas::Count(n) => {
                        format!("{n} replica(s), r places them")
                    }
                    crate::source::workload::Replicas::PerNode => {
                        "one pod per eligible node, r places them".to_string()
                    }
                };
                format!("{}'s pod ({count})", w.key())
            }
            None => "draft".to_string(),
        };
        self.start_draft(cluster, d, None);
        KeyResult::Info(format!("{loaded} loaded from {path}"))
    }
}
