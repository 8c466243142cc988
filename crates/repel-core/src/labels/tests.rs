#![allow(clippy::unwrap_used, clippy::expect_used)] // tests may unwrap (CONVENTIONS)
//! Ported from upstream `labels/selector_test.go` and `meta/v1/helpers_test.go`, plus parse
//! error messages pinned byte for byte.

use super::field::{go_json_list, go_json_string};
use super::parse::{Lexer, Parser, Token};
use super::*;

fn set(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

fn req(key: &str, op: Operator, vals: &[&str]) -> Requirement {
    let vals: Vec<String> = vals.iter().map(|v| v.to_string()).collect();
    Requirement::new(key, op, &vals).unwrap()
}

fn parse(s: &str) -> Result<LabelSelector, LabelSelectorError> {
    s.parse::<LabelSelector>()
}

mod add;
mod label_selector_as_selector;
mod lexer;
mod requirements;
mod selector_parse;
mod set_selector_parser;
