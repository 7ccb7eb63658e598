//! UI state and actions (no drawing).
