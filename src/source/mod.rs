pub mod build;
pub mod file;
pub mod live;
pub mod record;
pub mod scheduler_config;
pub mod timeline;
pub mod version;
pub mod workload;
