//! ratatui widgets that draw the app state.
