//! Field and label selectors.
