//! kplace's core: the compact cluster model ([`model`]) and the
//! kube-scheduler v1.30–v1.34 re-implementation over it ([`engine`]).
//!
//! Pure computation: no I/O, no clock, no async runtime, no terminal. The
//! sources (files, live clusters, recordings) convert API objects into the
//! model on the application's side; the application asks the engine and
//! draws its answers.

pub mod engine;
pub mod model;
