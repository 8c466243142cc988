//! The fourth stage: an object typed. Each kind repel keeps is decoded into its k8s-openapi
//! type with the fields the type does not declare listed (the API server's strict decoding,
//! `k8s.io/apimachinery/pkg/runtime/serializer/json`), its failing field named in a manifest's
//! words; a big file's objects are decoded on every core, some on the thread that read their
//! YAML.

use k8s_openapi::api::core::v1::{Namespace, Node, Pod};
use k8s_openapi::api::policy::v1::PodDisruptionBudget;
use k8s_openapi::api::scheduling::v1::PriorityClass;
use repel_core::workload::Workload;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::documents::RawDoc;
use crate::objects::{LEGACY_API_VERSIONS, check_object, describe_value};
use crate::yaml::template::{Scanned, SpecText};
use crate::{InputError, Source};

/// Deserialises a typed object, naming the failing field, and lists the fields the type does
/// not declare (upstream's unknown fields
/// under strict field validation), by path, in document order.
///
/// Most objects decode: they are decoded once without following the path (which copies every
/// field name the decoder meets), and only an object that fails is decoded again following it,
/// for the message (decoding is deterministic: it fails again, at the same field).
pub fn typed_strict<T: DeserializeOwned>(
    source: &Source,
    v: &Value,
) -> Result<(T, Vec<String>), InputError> {
    if let (Ok(obj), unknown) = repel_api::strict::decode::<T, _>(v) {
        return Ok((obj, unknown));
    }
    let mut track = serde_path_to_error::Track::new();
    let (result, unknown) =
        repel_api::strict::decode::<T, _>(serde_path_to_error::Deserializer::new(v, &mut track));
    match result {
        Ok(obj) => Ok((obj, unknown)),
        Err(inner) => {
            let path = track.path().to_string();
            let inner = plain_type_error(&inner.to_string());
            Err(InputError::Object {
                at: source.clone(),
                what: describe_value(v),
                message: if path == "." {
                    inner
                } else {
                    format!("{path}: {inner}")
                },
            })
        }
    }
}

/// A decoding error in a manifest's words, not Rust's: `invalid type: string "30", expected
/// i64` becomes `invalid type: got a string ("30"), expected an integer (write the number
/// without quotes)`; serde's type names (`i64`, `u32`, `f64`, `a sequence`, `a map`, `struct
/// Toleration`) become the manifest's (an integer, a number, a list, a mapping).
pub fn plain_type_error(msg: &str) -> String {
    let Some(rest) = msg.strip_prefix("invalid type: ") else {
        return msg.to_string();
    };
    let Some((got, expected)) = rest.split_once(", expected ") else {
        return msg.to_string();
    };
    let expected_words = match expected {
        "i8" | "i16" | "i32" | "i64" | "i128" | "u8" | "u16" | "u32" | "u64" | "u128" | "isize"
        | "usize" => "an integer",
        "f32" | "f64" => "a number",
        "a sequence" => "a list",
        "a map" => "a mapping",
        "a boolean" => "a boolean (true or false)",
        e if e.starts_with("struct ") || e.starts_with("a map ") => "a mapping",
        e => e,
    };
    let (kind, value) = match got.split_once(' ') {
        Some((k, v)) => (k, Some(v.trim_matches('`'))),
        None => (got, None),
    };
    let kind_words = match kind {
        "string" => "a string",
        "integer" => "an integer",
        "floating" => "a number",
        "boolean" => "a boolean",
        "sequence" => "a list",
        "map" => "a mapping",
        "null" | "unit" => "null",
        other => other,
    };
    let got_words = match value {
        Some(v) if kind == "floating" => format!("a number ({})", v.trim_start_matches("point ")),
        Some(v) => format!("{kind_words} ({v})"),
        None => kind_words.to_string(),
    };
    let hint = if kind == "string" && matches!(expected_words, "an integer" | "a number") {
        " (write the number without quotes)"
    } else {
        ""
    };
    format!("invalid type: got {got_words}, expected {expected_words}{hint}")
}

/// An object of a kind repel reads, typed (boxed: they are kilobytes, and move from thread to
/// thread).
pub(crate) enum Typed {
    Node(Box<Node>),
    Pod(Box<Pod>),
    Namespace(Box<Namespace>),
    Pdb(Box<PodDisruptionBudget>),
    PriorityClass(Box<PriorityClass>),
    /// (Each workload object is boxed within.)
    Workload(Workload),
}

/// The part of reading one object that depends on the object alone: its checks
/// ([`check_object`]) — the outer result — and, when they pass, its typed form with the fields
/// its type does not declare — the inner one (reported later than the checks', after the
/// object's name is found not to repeat another's). [`predecode`] computes it for a file's
/// documents on every core.
pub(crate) type Decoded = Result<Result<(Typed, Vec<String>), InputError>, InputError>;

/// Checks and decodes `v` as `kind` (one of the kinds [`Inventory::add`] keeps).
pub(crate) fn decode(source: &Source, kind: &str, v: &Value) -> Decoded {
    check_object(source, kind, v)?;
    Ok(typed_as(source, kind, v))
}

/// `v` typed as `kind`.
fn typed_as(source: &Source, kind: &str, v: &Value) -> Result<(Typed, Vec<String>), InputError> {
    Ok(match kind {
        "Node" => typed_strict(source, v).map(|(o, u)| (Typed::Node(Box::new(o)), u))?,
        "Pod" => typed_strict(source, v).map(|(o, u)| (Typed::Pod(Box::new(o)), u))?,
        "Namespace" => typed_strict(source, v).map(|(o, u)| (Typed::Namespace(Box::new(o)), u))?,
        "PodDisruptionBudget" => {
            typed_strict(source, v).map(|(o, u)| (Typed::Pdb(Box::new(o)), u))?
        }
        "PriorityClass" => {
            typed_strict(source, v).map(|(o, u)| (Typed::PriorityClass(Box::new(o)), u))?
        }
        _ => {
            let (workload, unknown) = match kind {
                "Deployment" => {
                    typed_strict(source, v).map(|(o, u)| (Workload::Deployment(o), u))?
                }
                "ReplicaSet" => {
                    typed_strict(source, v).map(|(o, u)| (Workload::ReplicaSet(o), u))?
                }
                "StatefulSet" => {
                    typed_strict(source, v).map(|(o, u)| (Workload::StatefulSet(o), u))?
                }
                "DaemonSet" => typed_strict(source, v).map(|(o, u)| (Workload::DaemonSet(o), u))?,
                "Job" => typed_strict(source, v).map(|(o, u)| (Workload::Job(o), u))?,
                "ReplicationController" => {
                    let (mut rc, u) = typed_strict(source, v)?;
                    repel_core::workload::set_defaults_replication_controller(&mut rc);
                    (Workload::from(rc), u)
                }
                _ => typed_strict(source, v).map(|(o, u)| (Workload::CronJob(o), u))?,
            };
            (Typed::Workload(workload), unknown)
        }
    })
}

/// The kinds [`Inventory::add`] keeps (anything else is skipped with a warning).
pub(crate) const KNOWN_KINDS: [&str; 12] = [
    "Node",
    "Pod",
    "Namespace",
    "Deployment",
    "ReplicaSet",
    "StatefulSet",
    "DaemonSet",
    "Job",
    "CronJob",
    "ReplicationController",
    "PodDisruptionBudget",
    "PriorityClass",
];

/// Below this many documents a file is decoded on one core (threads cost more than they save).
const PREDECODE_MIN_DOCS: usize = 512;

/// [`decode`] for each document of a file that is one object of a kept kind, on every core:
/// the typed decoding and checks are most of reading a big file after its YAML. `None` for a
/// document that is not (a `List`, an unknown kind), which is read as before, in order.
pub(crate) fn predecode(
    file: &str,
    docs: &[RawDoc],
    have: Vec<Option<Decoded>>,
) -> Vec<Option<Decoded>> {
    let one = |doc: &RawDoc| -> Option<Decoded> {
        let kind = doc.value.get("kind")?.as_str()?;
        if !KNOWN_KINDS.contains(&kind) {
            return None;
        }
        let source = Source {
            file: file.into(),
            doc: doc.doc,
            item: None,
        };
        Some(decode(&source, kind, &doc.value))
    };
    let threads = std::thread::available_parallelism()
        .map_or(1, usize::from)
        .clamp(1, 8);
    let missing = have.iter().filter(|d| d.is_none()).count();
    if threads < 2 || missing < PREDECODE_MIN_DOCS || have.len() != docs.len() {
        return have;
    }
    let chunk = docs.len().div_ceil(threads);
    let mut have = have;
    std::thread::scope(|s| {
        let handles: Vec<_> = docs
            .chunks(chunk)
            .zip(have.chunks_mut(chunk))
            .map(|(part, done)| {
                s.spawn(move || {
                    for (doc, d) in part.iter().zip(done) {
                        if d.is_none() {
                            *d = one(doc);
                        }
                    }
                })
            })
            .collect();
        // A thread that failed leaves its documents to be read in order.
        for h in handles {
            let _ = h.join();
        }
    });
    have
}

/// The [`Hook`](yaml::Hook) of [`Inventory::load_seeded`]: a document that is one object of a
/// kept kind, with its name, a current apiVersion, and a typed form without unknown fields, is
/// decoded on the thread that read it ([`decode`]) and kept only as the fields reading goes on
/// to look at (apiVersion, kind, metadata's name and namespace): a file of 150,000 pods' worth
/// of workloads is then never held whole as values beside its typed objects. Anything else
/// (an error, unknown fields, a generated name, a legacy apiVersion, a list) is left whole,
/// for the reading in order to answer as before.
///
/// A pod's spec is decoded once per template: a spec the scanner read as a stub
/// ([`Scanned::Known`]) is the remembered one with its own `nodeName`, and a pod that
/// decodes cleanly has its spec's text remembered ([`crate::yaml::template`]); a spec read
/// whole is looked for among the specs decoded lately ([`decode_pod_shared`]).
pub(crate) fn decode_early(v: &mut Value) -> Option<Decoded> {
    match crate::yaml::template::take() {
        Some(Scanned::Known {
            template,
            node_name,
        }) => {
            if let Some(decoded) = decode_known(v, &template, &node_name) {
                return Some(decoded);
            }
            crate::yaml::template::restore(v, &template, node_name);
            decode_read(v, None)
        }
        Some(Scanned::Read(block)) => decode_read(v, Some(block)),
        None => decode_read(v, None),
    }
}

/// [`decode_early`] of a bound pod of a remembered template read straight into its typed form
/// ([`crate::yaml::DirectPod`]): what [`decode_known`] makes of the same document read into a
/// value — the remembered spec with the pod's own `nodeName`, and the document thinned
/// ([`thin`]; the direct read takes only a pod whose apiVersion, kind, name and namespace are
/// strings).
pub(crate) fn decode_direct(direct: crate::yaml::DirectPod) -> (Value, Decoded) {
    let crate::yaml::DirectPod {
        mut pod,
        template,
        node_name,
    } = direct;
    let mut kept_meta = serde_json::Map::new();
    kept_meta.insert(
        "name".into(),
        Value::String(pod.metadata.name.clone().unwrap_or_default()),
    );
    if let Some(ns) = &pod.metadata.namespace {
        kept_meta.insert("namespace".into(), Value::String(ns.clone()));
    }
    let mut kept = serde_json::Map::new();
    kept.insert("apiVersion".into(), Value::String("v1".into()));
    kept.insert("kind".into(), Value::String("Pod".into()));
    kept.insert("metadata".into(), Value::Object(kept_meta));
    let mut spec = (*template.typed).clone();
    spec.node_name = Some(node_name);
    pod.spec = Some(spec);
    (Value::Object(kept), Ok(Ok((Typed::Pod(pod), Vec::new()))))
}

/// Where an object decoded early is said to come from: nowhere (only a clean result is kept,
/// and the file's reading names the source).
fn nowhere() -> Source {
    Source {
        file: "".into(),
        doc: 0,
        item: None,
    }
}

/// The name of an object [`decode_early`] may decode: of a kept kind, a current apiVersion,
/// named; its kind and apiVersion too.
fn early_name(v: &Value) -> Option<(&str, &str, &str)> {
    let kind = v.get("kind")?.as_str()?;
    let api = v.get("apiVersion")?.as_str()?;
    if !KNOWN_KINDS.contains(&kind)
        || LEGACY_API_VERSIONS
            .iter()
            .any(|(k, old, _)| *k == kind && *old == api)
    {
        return None;
    }
    let name = v
        .get("metadata")?
        .get("name")?
        .as_str()
        .filter(|n| !n.is_empty())?;
    Some((kind, api, name))
}

/// [`decode_early`] of a document read whole (`block`: its `spec:` block's text, when it is a
/// pod's, to remember if it decodes cleanly).
fn decode_read(v: &mut Value, block: Option<crate::yaml::template::Block>) -> Option<Decoded> {
    let kind = early_name(v)?.0;
    let decoded = if kind == "Pod" {
        decode_pod_shared(&nowhere(), v)
    } else {
        decode(&nowhere(), kind, v)
    };
    if !matches!(&decoded, Ok(Ok((_, unknown))) if unknown.is_empty()) {
        return None;
    }
    if let (Some(block), Ok(Ok((Typed::Pod(pod), _)))) = (block, &decoded)
        && let (Some(value), Some(spec)) = (v.get("spec").and_then(Value::as_object), &pod.spec)
    {
        crate::yaml::template::remember(block, value, spec);
    }
    thin(v);
    Some(decoded)
}

/// [`decode_early`] of a pod whose spec was read as a stub ([`Scanned::Known`]): the pod
/// without its spec decoded, given the remembered spec with its own `nodeName`. `None` (the
/// stub left in place) when the document is no pod decoded cleanly so.
fn decode_known(v: &mut Value, template: &SpecText, node_name: &str) -> Option<Decoded> {
    if early_name(v)?.0 != "Pod" {
        return None;
    }
    let stub = std::mem::take(v.get_mut("spec")?);
    match typed_as(&nowhere(), "Pod", v) {
        Ok((Typed::Pod(mut pod), unknown)) if unknown.is_empty() => {
            let mut spec = (*template.typed).clone();
            spec.node_name = Some(node_name.to_string());
            pod.spec = Some(spec);
            thin(v);
            Some(Ok(Ok((Typed::Pod(pod), unknown))))
        }
        _ => {
            if let Some(slot) = v.get_mut("spec") {
                *slot = stub;
            }
            None
        }
    }
}

/// `v`, decoded early, cut to what reading goes on to look at: apiVersion, kind, metadata's
/// name and namespace.
fn thin(v: &mut Value) {
    let Some((kind, api, name)) = early_name(v) else {
        return;
    };
    let namespace = v.get("metadata").and_then(|m| m.get("namespace"));
    let mut kept_meta = serde_json::Map::new();
    kept_meta.insert("name".into(), Value::String(name.to_string()));
    if let Some(ns) = namespace {
        kept_meta.insert("namespace".into(), ns.clone());
    }
    let mut kept = serde_json::Map::new();
    kept.insert("apiVersion".into(), Value::String(api.to_string()));
    kept.insert("kind".into(), Value::String(kind.to_string()));
    kept.insert("metadata".into(), Value::Object(kept_meta));
    *v = Value::Object(kept);
}

/// How many pod templates each reading thread remembers ([`decode_pod_shared`]): the pods of
/// one ReplicaSet come one after another in a cluster's listing (sorted by name), a few
/// ReplicaSets' pods interleave in a file written by hand.
const RECENT_TEMPLATES: usize = 8;

/// A pod spec decoded before on this thread: its value without `nodeName`, and its typed form
/// without `nodeName`.
struct Template {
    value: serde_json::Map<String, Value>,
    spec: std::sync::Arc<k8s_openapi::api::core::v1::PodSpec>,
}

thread_local! {
    /// The pod templates this thread decoded lately, the latest first.
    static TEMPLATES: std::cell::RefCell<Vec<Template>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Whether `spec` is `template` with at most a `nodeName` (a string) added: the pods of one
/// template, each bound to its node.
fn same_template(
    template: &serde_json::Map<String, Value>,
    spec: &serde_json::Map<String, Value>,
) -> bool {
    let bound = match spec.get("nodeName") {
        None => 0,
        Some(Value::String(_)) => 1,
        Some(_) => return false,
    };
    spec.len() == template.len() + bound && template.iter().all(|(k, v)| spec.get(k) == Some(v))
}

/// [`decode`] of a Pod whose spec may be one decoded before on this thread: the bound pods of
/// a ReplicaSet differ in their metadata, status and `nodeName`, and their spec is decoded
/// once per template. A spec that is a remembered template with only its `nodeName` added is
/// not decoded again: it passed [`check_object`] (a Pod's checks read only its spec) and
/// decoded without unknown fields, so the pod is decoded without it and given the template's
/// typed spec and its own `nodeName` — what decoding it whole gives, field for field. Other
/// pods are decoded whole, and a clean one's spec is remembered.
pub(crate) fn decode_pod_shared(source: &Source, v: &mut Value) -> Decoded {
    let hit = v.get("spec").and_then(Value::as_object).and_then(|spec| {
        TEMPLATES.with_borrow_mut(|recent| {
            let at = recent.iter().position(|t| same_template(&t.value, spec))?;
            // The latest first: the next pod is most likely of the same template.
            recent[..=at].rotate_right(1);
            Some(std::sync::Arc::clone(&recent[0].spec))
        })
    });
    if let Some(template) = hit
        && let Some(slot) = v.get_mut("spec")
    {
        let spec = std::mem::take(slot);
        let node_name = spec
            .get("nodeName")
            .and_then(Value::as_str)
            .map(str::to_string);
        let decoded = typed_as(source, "Pod", v);
        *v.get_mut("spec").unwrap_or(&mut Value::Null) = spec;
        let (typed, unknown) = match decoded {
            Ok((Typed::Pod(mut pod), unknown)) => {
                let mut spec = (*template).clone();
                spec.node_name = node_name;
                pod.spec = Some(spec);
                (Typed::Pod(pod), unknown)
            }
            // The rest failed: the whole pod, decoded again, names the field.
            _ => return decode(source, "Pod", v),
        };
        return Ok(Ok((typed, unknown)));
    }
    let decoded = decode(source, "Pod", v);
    if let Ok(Ok((Typed::Pod(pod), unknown))) = &decoded
        && unknown.is_empty()
        && let (Some(value), Some(spec)) = (v.get("spec").and_then(Value::as_object), &pod.spec)
    {
        let mut value = value.clone();
        value.shift_remove("nodeName");
        let mut spec = spec.clone();
        spec.node_name = None;
        TEMPLATES.with_borrow_mut(|recent| {
            recent.truncate(RECENT_TEMPLATES - 1);
            recent.insert(
                0,
                Template {
                    value,
                    spec: std::sync::Arc::new(spec),
                },
            );
        });
    }
    decoded
}

/// The pod templates this thread remembers, the latest first (for the tests).
#[cfg(test)]
pub(crate) fn remembered_templates() -> Vec<std::sync::Arc<k8s_openapi::api::core::v1::PodSpec>> {
    TEMPLATES.with_borrow(|recent| {
        recent
            .iter()
            .map(|t| std::sync::Arc::clone(&t.spec))
            .collect()
    })
}

#[cfg(test)]
mod tests;
