//! The fuzz targets' replay, one binary: every target over its committed corpus.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod replay;
