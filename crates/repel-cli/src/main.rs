//! The `repel` command.
fn main() {}
