//! Errors raised while turning Kubernetes objects into the engine model.

use thiserror::Error;

/// An object that the API server would have refused, or that kplace cannot read.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
#[error("{object}: {field}: {message}")]
pub struct InvalidObject {
    /// `Kind namespace/name`, e.g. `Pod default/web-1`.
    pub object: String,
    /// The field path, e.g. `spec.topologySpreadConstraints[0].maxSkew`.
    pub field: String,
    pub message: String,
}

impl InvalidObject {
    pub fn new(object: &str, field: impl Into<String>, message: impl Into<String>) -> Self {
        InvalidObject {
            object: object.to_string(),
            field: field.into(),
            message: message.into(),
        }
    }
}
