//! Events, as the controllers record them (upstream `corev1.Event`: type, reason, message, the
//! object it is about), at a simulated time.

use serde::Serialize;

use crate::clock::{Millis, seconds};

/// `Normal` or `Warning`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum EventType {
    /// Normal.
    Normal,
    /// Warning.
    Warning,
}

/// One event.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Event {
    /// When, in milliseconds since the start.
    #[serde(skip)]
    pub at_ms: Millis,
    /// When, in seconds since the start (the JSON contract's `at`).
    pub at: f64,
    /// `Normal` or `Warning`.
    #[serde(rename = "type")]
    pub kind: EventType,
    /// Upstream's reason, e.g. `TaintManagerEviction`, `Scheduled`, `FailedScheduling`.
    pub reason: String,
    /// `Pod/ns/name` or `Node/name`.
    pub object: String,
    /// The node involved, when there is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub node: Option<String>,
    /// Upstream's message.
    pub message: String,
    /// Why, in repel's words (beyond upstream), e.g. "node1 has key1=value1:NoExecute,
    /// tolerated for 3600s".
    #[serde(skip_serializing_if = "Option::is_none")]
    pub why: Option<String>,
}

impl Event {
    /// A Normal event.
    pub fn normal(
        at_ms: Millis,
        reason: &str,
        object: String,
        node: Option<String>,
        message: String,
    ) -> Self {
        Event {
            at_ms,
            at: seconds(at_ms),
            kind: EventType::Normal,
            reason: reason.to_string(),
            object,
            node,
            message,
            why: None,
        }
    }

    /// A Warning event.
    pub fn warning(
        at_ms: Millis,
        reason: &str,
        object: String,
        node: Option<String>,
        message: String,
    ) -> Self {
        Event {
            kind: EventType::Warning,
            ..Event::normal(at_ms, reason, object, node, message)
        }
    }
}

/// `Pod/namespace/name`.
pub fn pod_object(namespace: &str, name: &str) -> String {
    format!("Pod/{namespace}/{name}")
}
