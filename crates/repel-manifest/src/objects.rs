//! The third stage: a document's objects. A `kind: List` is flattened into its items (kubectl's
//! `FlattenListVisitor` in `k8s.io/cli-runtime/pkg/resource/visitor.go`), a name is required
//! or generated from `generateName` (the API server's `names.SimpleNameGenerator`), removed
//! workload apiVersions are read as the current one, and what typed decoding lets through but
//! the API server refuses is checked (quantities, apps/v1 selectors, replica counts).

use serde_json::Value;

use crate::documents::RawDoc;
use crate::{At, InputError, Source};

/// Calls `f` for each object of a document, flattening `kind: List`.
pub fn for_each_object(
    file: &str,
    doc: &RawDoc,
    mut f: impl FnMut(Source, &Value) -> Result<(), InputError>,
) -> Result<(), InputError> {
    let top = Source {
        file: file.into(),
        doc: doc.doc,
        item: None,
    };
    // `az aks nodepool list` prints a list of agent pools.
    if let Some(items) = doc.value.as_array()
        && !items.is_empty()
        && items.iter().all(repel_core::pools::is_aks_pool)
    {
        for (i, item) in items.iter().enumerate() {
            f(
                Source {
                    item: Some(i),
                    ..top.clone()
                },
                item,
            )?;
        }
        return Ok(());
    }
    if !doc.value.is_object() {
        return Err(InputError::Object {
            at: top,
            what: None,
            message: "expected a Kubernetes object (a mapping with apiVersion and kind)".into(),
        });
    }
    let kind = doc.value.get("kind").and_then(Value::as_str);
    if kind.is_some_and(|k| k == "List" || k.ends_with("List")) {
        let Some(items) = doc.value.get("items").and_then(Value::as_array) else {
            return Err(InputError::Object {
                at: top,
                what: Some("List".into()),
                message: "items: missing field `items`".into(),
            });
        };
        for (i, item) in items.iter().enumerate() {
            f(
                Source {
                    item: Some(i),
                    ..top.clone()
                },
                item,
            )?;
        }
        Ok(())
    } else {
        f(top, &doc.value)
    }
}

/// Upstream `names.SimpleNameGenerator`: a generated name is the base (cut to 58 characters)
/// and 5 random characters.
pub const MAX_GENERATED_BASE: usize = 58;

/// The object's name: `metadata.name`, or one generated from `metadata.generateName` (`None`),
/// or the API server's error when neither is usable.
pub(crate) fn require_name(source: &Source, v: &Value) -> Result<Option<String>, InputError> {
    let generate = v
        .at(&["metadata", "generateName"])
        .and_then(Value::as_str)
        .filter(|g| !g.is_empty());
    let message = match v.at(&["metadata", "name"]) {
        Some(Value::String(n)) if !n.is_empty() => return Ok(None),
        None | Some(Value::Null) | Some(Value::String(_)) if generate.is_some() => {
            return Ok(generate.map(str::to_string));
        }
        None | Some(Value::Null) | Some(Value::String(_)) => {
            "metadata.name: Required value: name or generateName is required".to_string()
        }
        Some(other) => format!(
            "metadata.name: invalid type: {other}, expected a string (YAML reads unquoted y, n, yes, no, on, off, true, false and numbers as such: quote the name)"
        ),
    };
    Err(InputError::Object {
        at: source.clone(),
        what: v.get("kind").and_then(Value::as_str).map(str::to_string),
        message,
    })
}

/// Workload apiVersions upstream removed (v1.16 and v1.25) that old repositories still hold,
/// with the current apiVersion of the kind. Their pod templates are the same; repel reads them
/// as the current version with one warning, as a user converting them would.
pub const LEGACY_API_VERSIONS: &[(&str, &str, &str)] = &[
    ("Deployment", "extensions/v1beta1", "apps/v1"),
    ("Deployment", "apps/v1beta1", "apps/v1"),
    ("Deployment", "apps/v1beta2", "apps/v1"),
    ("DaemonSet", "extensions/v1beta1", "apps/v1"),
    ("DaemonSet", "apps/v1beta2", "apps/v1"),
    ("ReplicaSet", "extensions/v1beta1", "apps/v1"),
    ("ReplicaSet", "apps/v1beta2", "apps/v1"),
    ("StatefulSet", "apps/v1beta1", "apps/v1"),
    ("StatefulSet", "apps/v1beta2", "apps/v1"),
    ("CronJob", "batch/v1beta1", "batch/v1"),
    ("CronJob", "batch/v2alpha1", "batch/v1"),
    ("PodDisruptionBudget", "policy/v1beta1", "policy/v1"),
];

/// Converts a legacy workload to its current apiVersion (see [`LEGACY_API_VERSIONS`]): the
/// apiVersion is replaced, and a missing `spec.selector` becomes the template's labels where the
/// old version's defaulting did that: `extensions/v1beta1` and `apps/v1beta1`
/// (`SetDefaults_Deployment` and the others in their `defaults.go`). `apps/v1beta2` made the
/// selector required and never defaulted it: such a workload without one stays invalid, as
/// the API server refused it (`spec.selector: Required value`). Returns the current apiVersion
/// when it converted.
pub(crate) fn convert_legacy(kind: &str, v: &mut Value) -> Option<&'static str> {
    let api = v.get("apiVersion").and_then(Value::as_str)?;
    let (_, old, current) = LEGACY_API_VERSIONS
        .iter()
        .find(|(k, old, _)| *k == kind && *old == api)?;
    v["apiVersion"] = Value::String((*current).to_string());
    if matches!(*old, "extensions/v1beta1" | "apps/v1beta1")
        && matches!(
            kind,
            "Deployment" | "DaemonSet" | "ReplicaSet" | "StatefulSet"
        )
        && v.at(&["spec", "selector"]).is_none_or(Value::is_null)
        && let Some(labels) = v.at(&["spec", "template", "metadata", "labels"]).cloned()
        && let Some(spec) = v.get_mut("spec").and_then(Value::as_object_mut)
    {
        spec.insert(
            "selector".to_string(),
            serde_json::json!({ "matchLabels": labels }),
        );
    }
    Some(current)
}

/// Upstream's message for a quantity that does not parse.
pub const QUANTITY_ERR: &str =
    "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";

/// The most pods one workload may ask for: repel simulates upstream's largest clusters (150,000
/// pods), not a typo's billions. A workload at the cap fits in 4 GB: `admit` makes, admits and
/// prints its pods one at a time (30 MB measured), and the commands that hold the cluster
/// (`schedule`) keep its pods sharing one admitted spec (2.1–2.8 GB measured; README, "CLI
/// input").
pub const MAX_REPLICAS: i64 = 1_000_000;

/// Checks what typed decoding lets through but the API server would not: every resource
/// quantity parses (requests, limits, overhead, pod-level resources, node capacity and
/// allocatable), and replica counts are between 0 and [`MAX_REPLICAS`].
pub(crate) fn check_object(source: &Source, kind: &str, v: &Value) -> Result<(), InputError> {
    let err = |field: String, message: String| InputError::Object {
        at: source.clone(),
        what: describe_value(v),
        message: format!("{field}: {message}"),
    };
    // Paths are made only for an error: most objects have none, and a big cluster's
    // containers are hundreds of thousands.
    let check_list = |path: &dyn Fn() -> String, list: Option<&Value>| -> Result<(), InputError> {
        let Some(map) = list.and_then(Value::as_object) else {
            return Ok(());
        };
        for (name, q) in map {
            let text: std::borrow::Cow<'_, str> = match q {
                Value::String(s) => s.as_str().into(),
                Value::Number(n) => n.to_string().into(),
                other => other.to_string().into(),
            };
            if repel_core::quantity::parse_quantity_nanos(&text).is_none() {
                return Err(err(
                    format!("{}.{name}", path()),
                    format!("Invalid value: {text:?}: {QUANTITY_ERR}"),
                ));
            }
        }
        Ok(())
    };
    let check_spec = |path: &str, spec: Option<&Value>| -> Result<(), InputError> {
        let Some(spec) = spec else { return Ok(()) };
        for list in ["containers", "initContainers"] {
            for (i, c) in spec
                .get(list)
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .enumerate()
            {
                for part in ["requests", "limits"] {
                    check_list(
                        &|| format!("{path}.{list}[{i}].resources.{part}"),
                        c.at(&["resources", part]),
                    )?;
                }
            }
        }
        check_list(&|| format!("{path}.overhead"), spec.get("overhead"))?;
        for part in ["requests", "limits"] {
            check_list(
                &|| format!("{path}.resources.{part}"),
                spec.at(&["resources", part]),
            )?;
        }
        Ok(())
    };
    match kind {
        "Node" => {
            check_list(
                &|| "status.allocatable".into(),
                v.at(&["status", "allocatable"]),
            )?;
            check_list(&|| "status.capacity".into(), v.at(&["status", "capacity"]))?;
        }
        "Pod" => check_spec("spec", v.get("spec"))?,
        "CronJob" => check_spec(
            "spec.jobTemplate.spec.template.spec",
            v.at(&["spec", "jobTemplate", "spec", "template", "spec"]),
        )?,
        _ => check_spec("spec.template.spec", v.at(&["spec", "template", "spec"]))?,
    }
    // apps/v1 requires a workload's selector (`ValidateDeploymentSpec` and the others:
    // `field.Required(fldPath.Child("selector"), "")`); the typed decoding would take a missing
    // one for an empty selector, which selects every pod.
    if matches!(
        kind,
        "Deployment" | "ReplicaSet" | "StatefulSet" | "DaemonSet"
    ) && v.at(&["spec", "selector"]).is_none_or(Value::is_null)
    {
        return Err(err("spec.selector".into(), "Required value".into()));
    }
    for field in ["replicas", "parallelism", "completions"] {
        if let Some(n) = v.at(&["spec", field]).and_then(Value::as_i64) {
            if n < 0 {
                return Err(err(
                    format!("spec.{field}"),
                    format!("Invalid value: {n}: must be greater than or equal to 0"),
                ));
            }
            if n > MAX_REPLICAS {
                return Err(err(
                    format!("spec.{field}"),
                    format!(
                        "{n} pods are more than repel simulates (at most {MAX_REPLICAS} per workload)"
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// `Kind name` of a raw object, for messages.
pub fn describe_value(v: &Value) -> Option<String> {
    let kind = v.get("kind")?.as_str()?;
    let name = v
        .at(&["metadata", "name"])
        .and_then(Value::as_str)
        .unwrap_or("<no name>");
    Some(format!("{kind} {name}"))
}
