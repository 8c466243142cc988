//! Table tests for `validation`, ported from upstream's `validation_test.go` cases.
// Tests may unwrap (project rule); the workspace lint is for library code.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::*;
use crate::testing::{node_with_taints, pod_with_tolerations, taint, tol, tol_secs};
use k8s_openapi::jiff::Timestamp;

fn strings(errs: &[FieldError]) -> Vec<String> {
    errs.iter().map(ToString::to_string).collect()
}

/// Upstream's regex messages, as `names` builds them (asserted byte for byte in `names`).
const NAME_REGEX_MSG: &str = "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const LABEL_VALUE_REGEX_MSG: &str = "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";

fn with_time(mut t: Taint, rfc3339: &str) -> Taint {
    t.time_added = Some(Time(rfc3339.parse::<Timestamp>().unwrap()));
    t
}

const GATE_ON: ValidationOptions = ValidationOptions {
    allow_comparison_operators: true,
};
const GATE_OFF: ValidationOptions = ValidationOptions {
    allow_comparison_operators: false,
};

mod messages;
mod node_taints;
mod pod_tolerations;
mod tolerations;
