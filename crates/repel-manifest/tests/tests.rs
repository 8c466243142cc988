//! repel-manifest's integration tests, one binary: the reader driven through its public API.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod input_parallel;
