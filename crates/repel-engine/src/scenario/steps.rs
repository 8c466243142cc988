//! `steps:` and `expect:`.

use serde_json::Value;

use super::read::{Reader, join};
use super::top::read_objects;
use super::{
    ACTIONS, Expectation, ExpectedPhase, ObjectRef, ScenarioErrorKind, Step, StepAction,
    after_until, check_kubectl,
};
use crate::clock::Millis;

const CONDITION_STATUSES: [&str; 3] = ["True", "False", "Unknown"];

/// `steps:` (see [`super::parse_scenario`]).
pub(super) fn read_steps(r: &mut Reader, v: &Value, until: Option<Millis>) -> Vec<Step> {
    let Some(items) = v.as_array() else {
        r.push(
            "steps",
            ScenarioErrorKind::WrongType {
                expected: "a list",
                got: super::read::type_name(v),
            },
        );
        return Vec::new();
    };
    let mut allowed = vec!["at"];
    allowed.extend(ACTIONS);
    let mut cursor: Millis = 0;
    let mut steps = Vec::new();
    for (index, item) in items.iter().enumerate() {
        let path = format!("steps[{index}]");
        let Some(m) = r.object(item, &path, &allowed) else {
            continue;
        };
        let given: Vec<&str> = ACTIONS
            .iter()
            .copied()
            .filter(|a| m.contains_key(*a))
            .collect();
        let at = m.get("at").and_then(|a| r.time(a, &join(&path, "at")));
        let action = match given.as_slice() {
            [] => {
                r.push(
                    path.clone(),
                    ScenarioErrorKind::Invalid(format!(
                        "a step needs one of: {}",
                        ACTIONS.join(", ")
                    )),
                );
                None
            }
            [one] => {
                let field = join(&path, one);
                read_action(r, one, &m[*one], &field)
            }
            many => {
                r.push(
                    path.clone(),
                    ScenarioErrorKind::Invalid(format!(
                        "a step takes one action, got {}",
                        many.join(", ")
                    )),
                );
                None
            }
        };
        let time = match &action {
            Some(StepAction::Advance(d)) => {
                if m.contains_key("at") {
                    r.push(
                        join(&path, "advance"),
                        ScenarioErrorKind::Invalid(
                            "may not be combined with at: advance counts from the previous step"
                                .to_string(),
                        ),
                    );
                }
                cursor.saturating_add(*d)
            }
            _ => at.unwrap_or(cursor),
        };
        cursor = time;
        if let Some(u) = until
            && time > u
        {
            r.push(join(&path, "at"), after_until(time, u));
        }
        if let Some(action) = action {
            steps.push(Step {
                index,
                at: time,
                action,
            });
        }
    }
    steps.sort_by_key(|s| s.at);
    steps
}

fn read_action(r: &mut Reader, name: &str, v: &Value, field: &str) -> Option<StepAction> {
    match name {
        "kubectl" => {
            let line = r.string(v, field)?;
            check_kubectl(r, &line, field);
            Some(StepAction::Kubectl(line))
        }
        "node" => read_node(r, v, field),
        "az" | "aws" => {
            let line = r.string(v, field)?;
            check_kubectl(r, &line, field);
            Some(if name == "az" {
                StepAction::Az(line)
            } else {
                StepAction::Aws(line)
            })
        }
        "apply" => Some(StepAction::Apply(read_objects(r, v, field))),
        "delete" => {
            let mut refs = Vec::new();
            for (path, item) in r.list(v, field) {
                if let Some(s) = r.string(item, &path) {
                    match s.parse::<ObjectRef>() {
                        Ok(o) => refs.push(o),
                        Err(e) => r.push(path, ScenarioErrorKind::Invalid(e)),
                    }
                }
            }
            Some(StepAction::Delete(refs))
        }
        _ => r.time(v, field).map(StepAction::Advance),
    }
}

fn read_node(r: &mut Reader, v: &Value, field: &str) -> Option<StepAction> {
    let m = r.object(v, field, &["name", "condition", "heartbeats"])?;
    let name = match m.get("name") {
        Some(n) => r.string(n, &join(field, "name")),
        None => {
            r.push(join(field, "name"), ScenarioErrorKind::Required);
            None
        }
    };
    let mut condition = None;
    if let Some(c) = m.get("condition") {
        let cf = join(field, "condition");
        if let Some(cm) = r.object(c, &cf, &["type", "status"]) {
            let ty = match cm.get("type") {
                Some(t) => r.string(t, &join(&cf, "type")),
                None => {
                    r.push(join(&cf, "type"), ScenarioErrorKind::Required);
                    None
                }
            };
            let status = match cm.get("status") {
                Some(s) => r.string(s, &join(&cf, "status")).and_then(|s| {
                    if CONDITION_STATUSES.contains(&s.as_str()) {
                        Some(s)
                    } else {
                        r.push(
                            join(&cf, "status"),
                            ScenarioErrorKind::Unsupported {
                                value: s,
                                supported: CONDITION_STATUSES.to_vec(),
                            },
                        );
                        None
                    }
                }),
                None => {
                    r.push(join(&cf, "status"), ScenarioErrorKind::Required);
                    None
                }
            };
            condition = ty.zip(status);
        }
    }
    let heartbeats = m
        .get("heartbeats")
        .and_then(|h| r.boolean(h, &join(field, "heartbeats")));
    if !m.contains_key("condition") && !m.contains_key("heartbeats") {
        r.push(
            field,
            ScenarioErrorKind::Invalid("a node step needs condition or heartbeats".to_string()),
        );
    }
    Some(StepAction::Node {
        name: name?,
        condition,
        heartbeats,
    })
}

/// `ns/name`, or `default/name` for a bare name.
fn pod_key(r: &mut Reader, v: &Value, field: &str) -> Option<String> {
    let s = r.string(v, field)?;
    let parts: Vec<&str> = s.split('/').collect();
    match parts.as_slice() {
        [name] => Some(format!("default/{name}")),
        [ns, name] if !ns.is_empty() && !name.is_empty() => Some(s.clone()),
        _ => {
            r.push(
                field,
                ScenarioErrorKind::Invalid(format!(
                    "invalid pod {s:?}: expected namespace/name or name"
                )),
            );
            None
        }
    }
}

fn read_phase(r: &mut Reader, v: &Value, field: &str) -> Option<ExpectedPhase> {
    let s = r.string(v, field)?;
    let phase = ExpectedPhase::ALL.into_iter().find(|p| p.as_str() == s);
    if phase.is_none() {
        r.push(
            field,
            ScenarioErrorKind::Unsupported {
                value: s,
                supported: ExpectedPhase::ALL.iter().map(|p| p.as_str()).collect(),
            },
        );
    }
    phase
}

/// `expect:` (see [`super::parse_scenario`]).
pub(super) fn read_expect(r: &mut Reader, v: &Value, until: Option<Millis>) -> Vec<Expectation> {
    let Some(items) = v.as_array() else {
        r.push(
            "expect",
            ScenarioErrorKind::WrongType {
                expected: "a list",
                got: super::read::type_name(v),
            },
        );
        return Vec::new();
    };
    let mut out = Vec::new();
    for (index, item) in items.iter().enumerate() {
        let path = format!("expect[{index}]");
        let is_pod = item.get("pod").is_some();
        let is_event = item.get("event").is_some();
        if item.get("drainable").is_some() && !is_pod && !is_event {
            out.extend(read_drainable_expectation(r, item, &path, index, until));
            continue;
        }
        if item.get("pool").is_some() && !is_pod && !is_event {
            out.extend(read_pool_expectation(r, item, &path, index, until));
            continue;
        }
        let exp = match (is_pod, is_event) {
            (true, true) => {
                r.push(
                    path.clone(),
                    ScenarioErrorKind::Invalid(
                        "an expectation is on a pod or on an event, not both".to_string(),
                    ),
                );
                None
            }
            (true, false) => read_pod_expectation(r, item, &path, index, until),
            (false, true) => read_event_expectation(r, item, &path, index, until),
            (false, false) => {
                r.object(
                    item,
                    &path,
                    &[
                        "at",
                        "pod",
                        "phase",
                        "node",
                        "event",
                        "object",
                        "by",
                        "count",
                        "drainable",
                        "as",
                        "value",
                        "pool",
                        "nodes",
                        "taints",
                        "terminating",
                    ],
                );
                if item.is_object() {
                    r.push(
                        path.clone(),
                        ScenarioErrorKind::Invalid(
                            "an expectation needs pod (with phase, node and/or pool), event, drainable or pool"
                                .to_string(),
                        ),
                    );
                }
                None
            }
        };
        out.extend(exp);
    }
    out
}

/// A timed check's `at`: given, or the scenario's `until`; never after `until`.
fn read_check_time(
    r: &mut Reader,
    at: Option<&Value>,
    path: &str,
    until: Option<Millis>,
) -> Option<Millis> {
    let at_field = join(path, "at");
    let at = match (at, until) {
        (Some(a), _) => r.time(a, &at_field),
        (None, Some(u)) => Some(u),
        (None, None) => {
            r.push(
                at_field.clone(),
                ScenarioErrorKind::Invalid(
                    "required value (or give the scenario an until)".to_string(),
                ),
            );
            None
        }
    };
    if let (Some(a), Some(u)) = (at, until)
        && a > u
    {
        r.push(at_field, after_until(a, u));
    }
    at
}

fn read_pod_expectation(
    r: &mut Reader,
    item: &Value,
    path: &str,
    index: usize,
    until: Option<Millis>,
) -> Option<Expectation> {
    let m = r.object(
        item,
        path,
        &["at", "pod", "phase", "node", "pool", "terminating"],
    )?;
    let at = read_check_time(r, m.get("at"), path, until);
    let pod = pod_key(r, &m["pod"], &join(path, "pod"));
    let phase = m
        .get("phase")
        .and_then(|p| read_phase(r, p, &join(path, "phase")));
    let node = m.get("node").and_then(|n| r.string(n, &join(path, "node")));
    let pool = m.get("pool").and_then(|n| r.string(n, &join(path, "pool")));
    let terminating = m
        .get("terminating")
        .and_then(|t| r.boolean(t, &join(path, "terminating")));
    if !["phase", "node", "pool", "terminating"]
        .iter()
        .any(|k| m.contains_key(*k))
    {
        r.push(
            path,
            ScenarioErrorKind::Invalid(
                "a pod expectation needs phase, node, pool and/or terminating".to_string(),
            ),
        );
    }
    if phase == Some(ExpectedPhase::Gone) && (node.is_some() || pool.is_some()) {
        r.push(
            join(path, "node"),
            ScenarioErrorKind::Invalid("a Gone pod is on no node".to_string()),
        );
    }
    Some(Expectation::Pod {
        index,
        at: at?,
        pod: pod?,
        phase,
        node,
        pool,
        terminating,
    })
}

/// `{at, pool: NAME, nodes: N}` and/or `{at, pool: NAME, taints: ["key=value:Effect", …]}`.
fn read_pool_expectation(
    r: &mut Reader,
    item: &Value,
    path: &str,
    index: usize,
    until: Option<Millis>,
) -> Option<Expectation> {
    let m = r.object(item, path, &["at", "pool", "nodes", "taints"])?;
    let at = read_check_time(r, m.get("at"), path, until);
    let pool = r.string(&m["pool"], &join(path, "pool"));
    let nodes = match m.get("nodes") {
        None => None,
        Some(n) => match n.as_u64().and_then(|n| usize::try_from(n).ok()) {
            Some(n) => Some(n),
            None => {
                r.push(
                    join(path, "nodes"),
                    ScenarioErrorKind::Invalid("must be a whole number, 0 or more".to_string()),
                );
                return None;
            }
        },
    };
    let taints = match m.get("taints") {
        None => None,
        Some(v) => {
            let mut out = Vec::new();
            for (p, item) in r.list(v, &join(path, "taints")) {
                if let Some(s) = r.string(item, &p) {
                    match repel_core::kubectl::parse_taint(&s) {
                        Ok(_) => out.push(s),
                        Err(e) => r.push(p, ScenarioErrorKind::Invalid(e.to_string())),
                    }
                }
            }
            Some(out)
        }
    };
    if nodes.is_none() && taints.is_none() {
        r.push(
            path,
            ScenarioErrorKind::Invalid("a pool expectation needs nodes and/or taints".to_string()),
        );
    }
    Some(Expectation::Pool {
        index,
        at: at?,
        pool: pool?,
        nodes,
        taints,
    })
}

fn read_drainable_expectation(
    r: &mut Reader,
    item: &Value,
    path: &str,
    index: usize,
    until: Option<Millis>,
) -> Option<Expectation> {
    let m = r.object(item, path, &["at", "drainable", "as", "value"])?;
    let at = read_check_time(r, m.get("at"), path, until);
    let node = r.string(&m["drainable"], &join(path, "drainable"));
    let decider = match m.get("as") {
        None => Some(super::ExpectedDecider::Kubectl),
        Some(v) => {
            let field = join(path, "as");
            match r.string(v, &field).as_deref() {
                Some("kubectl") => Some(super::ExpectedDecider::Kubectl),
                Some("cluster-autoscaler") => Some(super::ExpectedDecider::ClusterAutoscaler),
                Some("karpenter") => Some(super::ExpectedDecider::Karpenter),
                Some(other) => {
                    r.push(
                        field,
                        ScenarioErrorKind::Invalid(format!(
                            "{other:?}: kubectl, cluster-autoscaler or karpenter"
                        )),
                    );
                    None
                }
                None => None,
            }
        }
    };
    let value = match m.get("value") {
        Some(v) => r.boolean(v, &join(path, "value")),
        None => {
            r.push(
                join(path, "value"),
                ScenarioErrorKind::Invalid("required value (true or false)".to_string()),
            );
            None
        }
    };
    Some(Expectation::Drainable {
        index,
        at: at?,
        node: node?,
        decider: decider?,
        value: value?,
    })
}

fn read_event_expectation(
    r: &mut Reader,
    item: &Value,
    path: &str,
    index: usize,
    until: Option<Millis>,
) -> Option<Expectation> {
    let m = r.object(item, path, &["event", "object", "at", "by", "count"])?;
    let reason = r.string(&m["event"], &join(path, "event"));
    let object = m.get("object").and_then(|o| {
        let field = join(path, "object");
        let s = r.string(o, &field)?;
        Some(normalize_object(&s))
    });
    let mut time = |key: &str| {
        let field = join(path, key);
        let t = m.get(key).and_then(|a| r.time(a, &field))?;
        if let Some(u) = until
            && t > u
        {
            r.push(field, after_until(t, u));
        }
        Some(t)
    };
    let at = time("at");
    let by = time("by");
    if m.contains_key("at") && m.contains_key("by") {
        r.push(
            join(path, "by"),
            ScenarioErrorKind::Invalid(
                "give at (exactly then) or by (at or before), not both".to_string(),
            ),
        );
    }
    let count = m
        .get("count")
        .and_then(|c| r.count(c, &join(path, "count")))
        .map(|c| c as usize);
    Some(Expectation::Event {
        index,
        reason: reason?,
        object,
        at,
        by,
        count,
    })
}

/// An event object with its kind spelt as events spell it (`pod/ns/x` → `Pod/ns/x`); other
/// text is kept as written.
fn normalize_object(s: &str) -> String {
    match s.split_once('/') {
        Some((kind, rest)) => match super::canonical_kind(kind) {
            Some((k, _)) => format!("{k}/{rest}"),
            None => s.to_string(),
        },
        None => s.to_string(),
    }
}
