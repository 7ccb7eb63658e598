//! Renders engine answers for people and scripts: the JSON contract (also
//! used for YAML) and the human table.

pub mod devices;
pub mod groups;
pub mod json;
pub mod table;
