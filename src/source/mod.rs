pub mod budget;
pub mod build;
pub(crate) mod convert;
/// For the `lean_json` fuzz target and its regression replay.
#[doc(hidden)]
pub use convert::lean_json;
pub(crate) mod field_line;
pub mod file;
pub mod live;
pub mod mapped;
pub mod record;
pub mod scheduler_config;
pub mod timeline;
pub mod version;
pub mod workload;
