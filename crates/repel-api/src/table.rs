//! Table conversion.
