//! TEMPORARY stand-ins for repel-api's `selector`, `strict` and `table` until that crate has
//! them (same signatures); removed once they land.

#![allow(missing_docs)]

use k8s_openapi::jiff::Timestamp;
use serde_json::{Value, json};

#[derive(Debug)]
pub struct SelectorError(pub String);
impl std::fmt::Display for SelectorError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

fn field_value<'a>(obj: &'a Value, path: &str) -> &'a str {
    let mut v = obj;
    for p in path.split('.') {
        v = &v[p];
    }
    v.as_str().unwrap_or("")
}

pub struct FieldSelector(Vec<(String, bool, String)>);
impl FieldSelector {
    pub fn matches(&self, obj: &Value) -> bool {
        self.0
            .iter()
            .all(|(k, eq, v)| (field_value(obj, k) == v) == *eq)
    }
}
pub fn parse_field_selector(_kind: &str, s: &str) -> Result<FieldSelector, SelectorError> {
    let mut out = Vec::new();
    for t in s.split(',').filter(|t| !t.is_empty()) {
        if let Some((k, v)) = t.split_once("!=") {
            out.push((k.to_string(), false, v.to_string()));
        } else if let Some((k, v)) = t.split_once("==").or_else(|| t.split_once('=')) {
            out.push((k.to_string(), true, v.to_string()));
        } else {
            return Err(SelectorError(format!("invalid selector: '{s}'")));
        }
    }
    Ok(FieldSelector(out))
}

pub struct LabelSelector(Vec<(String, bool, String)>);
impl LabelSelector {
    pub fn parse(s: &str) -> Result<LabelSelector, SelectorError> {
        let f = parse_field_selector("", s)?;
        Ok(LabelSelector(f.0))
    }
    pub fn matches(&self, obj: &Value) -> bool {
        self.0
            .iter()
            .all(|(k, eq, v)| (obj["metadata"]["labels"][k].as_str().unwrap_or("") == v) == *eq)
    }
}

pub fn unknown_fields(_kind: &str, _obj: &Value) -> Vec<String> {
    Vec::new()
}

fn age(obj: &Value, now: Timestamp) -> String {
    let Some(t) = obj["metadata"]["creationTimestamp"]
        .as_str()
        .and_then(|s| s.parse::<Timestamp>().ok())
    else {
        return "<unknown>".into();
    };
    let s = now.as_second() - t.as_second();
    if s < 120 {
        format!("{}s", s.max(0))
    } else {
        format!("{}m", s / 60)
    }
}

fn col(name: &str, priority: i32) -> Value {
    json!({"name": name, "type": "string", "format": if name == "Name" { "name" } else { "" }, "description": name, "priority": priority})
}

fn row(obj: &Value, cells: Vec<Value>) -> Value {
    json!({"cells": cells, "object": {"kind": "PartialObjectMetadata", "apiVersion": "meta.k8s.io/v1", "metadata": obj["metadata"]}})
}

pub fn table_for(kind: &str, objs: &[&Value], now: Timestamp, rv: &str) -> Value {
    let (cols, rows): (Vec<Value>, Vec<Value>) = match kind {
        "Node" => (
            vec![
                col("Name", 0),
                col("Status", 0),
                col("Roles", 0),
                col("Age", 0),
                col("Version", 0),
            ],
            objs.iter()
                .map(|o| {
                    let ready = o["status"]["conditions"].as_array().is_some_and(|cs| {
                        cs.iter()
                            .any(|c| c["type"] == "Ready" && c["status"] == "True")
                    });
                    let mut st = if ready {
                        "Ready".to_string()
                    } else {
                        "NotReady".to_string()
                    };
                    if o["spec"]["unschedulable"] == true {
                        st.push_str(",SchedulingDisabled");
                    }
                    row(
                        o,
                        vec![
                            o["metadata"]["name"].clone(),
                            json!(st),
                            json!("<none>"),
                            json!(age(o, now)),
                            o["status"]["nodeInfo"]["kubeletVersion"].clone(),
                        ],
                    )
                })
                .collect(),
        ),
        "Pod" => (
            vec![
                col("Name", 0),
                col("Ready", 0),
                col("Status", 0),
                col("Restarts", 0),
                col("Age", 0),
                col("IP", 1),
                col("Node", 1),
                col("Nominated Node", 1),
                col("Readiness Gates", 1),
            ],
            objs.iter()
                .map(|o| {
                    let n = o["spec"]["containers"].as_array().map_or(0, |c| c.len());
                    let r = o["status"]["containerStatuses"]
                        .as_array()
                        .map_or(0, |c| c.iter().filter(|s| s["ready"] == true).count());
                    let s = |v: &Value| v.as_str().map_or("<none>".to_string(), str::to_string);
                    row(
                        o,
                        vec![
                            o["metadata"]["name"].clone(),
                            json!(format!("{r}/{n}")),
                            o["status"]["phase"].clone(),
                            json!(0),
                            json!(age(o, now)),
                            json!(s(&o["status"]["podIP"])),
                            json!(s(&o["spec"]["nodeName"])),
                            json!("<none>"),
                            json!("<none>"),
                        ],
                    )
                })
                .collect(),
        ),
        _ => (
            vec![col("Name", 0), col("Age", 0)],
            objs.iter()
                .map(|o| row(o, vec![o["metadata"]["name"].clone(), json!(age(o, now))]))
                .collect(),
        ),
    };
    json!({"kind": "Table", "apiVersion": "meta.k8s.io/v1", "metadata": {"resourceVersion": rv}, "columnDefinitions": cols, "rows": rows})
}
