pub mod build;
pub mod file;
pub mod live;
pub mod record;
pub mod timeline;
pub mod version;
