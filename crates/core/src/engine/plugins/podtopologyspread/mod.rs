//! `podtopologyspread`: DoNotSchedule constraints filter, ScheduleAnyway
//! constraints (or the system defaults) score.

pub mod common;
pub mod domains;
pub mod filtering;
pub mod scoring;

pub use common::Constraint;
