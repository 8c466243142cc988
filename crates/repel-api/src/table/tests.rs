//! Cases modelled on upstream `printers_test.go` (TestPrintNodeStatus, TestPrintNodeRole,
//! TestPrintPod, …) and `duration_test.go`, on JSON objects.

use k8s_openapi::jiff::Timestamp;
use serde_json::{Value, json};

use super::*;

fn now() -> Timestamp {
    "2026-11-30T12:00:00Z".parse().expect("time")
}

/// `now` minus `secs` seconds, RFC 3339.
fn ago(secs: i64) -> String {
    Timestamp::from_second(now().as_second() - secs)
        .expect("time")
        .to_string()
}

mod human_duration;
mod other_kinds;
mod print_node;
mod print_pod;
mod upstream_print_pod;
