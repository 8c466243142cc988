//! `repel-core`'s integration tests, one binary: the documentation pages' claims.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod seeds;
