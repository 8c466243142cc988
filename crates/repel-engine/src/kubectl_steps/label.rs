//! `kubectl label nodes|pods NAME k=v k- [--overwrite]` (upstream `LabelOptions`, kubectl
//! v1.32, `staging/src/k8s.io/kubectl/pkg/cmd/label/label.go`).

use std::collections::BTreeMap;

use repel_core::labels::LabelSelector;
use repel_core::names::{is_qualified_name, is_valid_label_value};

use super::flags::{NAMESPACE, boolean, parse_flags, value};
use super::simple::resource_args;
use super::{KubectlResult, Resource, go_aggregate, not_found, resource, unknown_resource};
use crate::cluster::Cluster;

/// Operation word: labels were added or changed.
pub const MSG_LABELED: &str = "labeled";
/// Operation word: labels were only removed.
pub const MSG_UNLABELED: &str = "unlabeled";
/// Operation word: nothing changed.
pub const MSG_NOT_LABELED: &str = "not labeled";
/// Operation word: labels were both added and removed.
pub const MSG_LABELS_CHANGED: &str = "label(s) changed";

/// Upstream `GetResourcesAndPairs(args, "label")`: resource words until the first pair (`k=v`
/// not starting with `=`, or `k-`); a resource word after a pair is refused.
fn resources_and_pairs(args: &[String]) -> Result<(Vec<String>, Vec<String>), String> {
    let mut resources = Vec::new();
    let mut pairs = Vec::new();
    for s in args {
        let pair = (s.contains('=') && !s.starts_with('=')) || (s.ends_with('-') && s != "-");
        match (pairs.is_empty(), pair) {
            (_, true) => pairs.push(s.clone()),
            (true, false) => resources.push(s.clone()),
            (false, false) => {
                return Err(format!(
                    "all resources must be specified before label changes: {s}"
                ));
            }
        }
    }
    Ok((resources, pairs))
}

/// Upstream `parseLabels`: `k=v` (exactly one `=`, a valid label value) or `k-`; a key both set
/// and removed is refused. Additions keep argument order (a later one for the same key wins).
/// Label additions (in order) and removals.
type LabelChanges = (Vec<(String, String)>, Vec<String>);

fn parse_labels(specs: &[String]) -> Result<LabelChanges, String> {
    let mut add: Vec<(String, String)> = Vec::new();
    let mut remove = Vec::new();
    for spec in specs {
        if spec.contains('=') {
            let parts: Vec<&str> = spec.split('=').collect();
            let [k, v] = parts.as_slice() else {
                return Err(format!("invalid label spec: {spec}"));
            };
            let errs = is_valid_label_value(v);
            if !errs.is_empty() {
                return Err(format!("invalid label value: {spec:?}: {}", errs.join(";")));
            }
            add.retain(|(key, _)| key != k);
            add.push((k.to_string(), v.to_string()));
        } else if let Some(k) = spec.strip_suffix('-') {
            remove.push(k.to_string());
        } else {
            return Err(format!("unknown label spec: {spec}"));
        }
    }
    if remove.iter().any(|r| add.iter().any(|(k, _)| k == r)) {
        return Err("can not both modify and remove a label in the same command".to_string());
    }
    Ok((add, remove))
}

/// Upstream `updateDataChangeMsg`.
fn change_message(old: &BTreeMap<String, String>, new: &BTreeMap<String, String>) -> &'static str {
    let unlabeled = old.keys().any(|k| !new.contains_key(k));
    let labeled = new.iter().any(|(k, v)| old.get(k) != Some(v));
    match (labeled, unlabeled) {
        (true, true) => MSG_LABELS_CHANGED,
        (true, false) => MSG_LABELED,
        (false, true) => MSG_UNLABELED,
        (false, false) => MSG_NOT_LABELED,
    }
}

/// The API server's validation of label keys (`ValidateLabels`), as kubectl prints an Invalid
/// status: `The Node "n" is invalid: metadata.labels: Invalid value: "k": <message>`, several
/// causes as a `*` list.
fn validate_keys(kind: &str, name: &str, labels: &BTreeMap<String, String>) -> Result<(), String> {
    let causes: Vec<String> = labels
        .keys()
        .flat_map(|k| {
            is_qualified_name(k)
                .into_iter()
                .map(move |m| format!("metadata.labels: Invalid value: {k:?}: {m}"))
        })
        .collect();
    let prefix = format!("The {kind} {name:?} is invalid: ");
    match causes.as_slice() {
        [] => Ok(()),
        [one] => Err(format!("{prefix}{one}")),
        many => Err(format!(
            "{prefix}\n{}",
            many.iter()
                .map(|c| format!("* {c}"))
                .collect::<Vec<_>>()
                .join("\n")
        )),
    }
}

/// `kubectl label` (upstream `LabelOptions.Complete`, `Validate`, `RunLabel`, kubectl v1.32):
///
/// 1. Arguments split into resources and pairs; pairs parse as `k=v` / `k-`.
/// 2. No resource: "one or more resources must be specified as <resource> <name> or
///    <resource>/<name>"; no pair: "at least one label update is required".
/// 3. Resources are `nodes NAME…`, `pods NAME… -n NS`, `TYPE/NAME…`, or a type with `--all` /
///    `-l`; other kinds are refused here.
/// 4. Per object: each removal of an absent key prints `label "k" not found.` (stdout);
///    without `--overwrite`, a key with a different value is "'k' already has a value (v), and
///    --overwrite is false" and the object is left alone; the API server validates the keys;
///    then `<kind>/<name> <labeled|unlabeled|not labeled|label(s) changed>`.
/// 5. Errors of several objects print one per line without `error: `, as kubectl's aggregate.
pub(super) fn run(rest: &[String], cluster: &mut Cluster) -> KubectlResult {
    let res = KubectlResult::new();
    let specs = [
        NAMESPACE,
        boolean("overwrite"),
        boolean("all"),
        value("selector", Some('l')),
    ];
    let p = match parse_flags(rest, &specs) {
        Ok(p) => p,
        Err(e) => return res.flag_error("label", &e),
    };
    let (resources, pairs) = match resources_and_pairs(&p.args) {
        Ok(x) => x,
        Err(e) => return res.fail(e),
    };
    let (add, remove) = match parse_labels(&pairs) {
        Ok(x) => x,
        Err(e) => return res.fail(e),
    };
    if resources.is_empty() {
        return res.fail(
            "one or more resources must be specified as <resource> <name> or <resource>/<name>",
        );
    }
    if add.is_empty() && remove.is_empty() {
        return res.fail("at least one label update is required");
    }
    let selector: Option<LabelSelector> = match p.get("selector").filter(|s| !s.is_empty()) {
        None => None,
        Some(s) => match s.parse() {
            Ok(sel) => Some(sel),
            Err(e) => return res.fail(format!("{e}")),
        },
    };
    let ns = p.get("namespace").unwrap_or("default").to_string();
    let targets: Vec<(Resource, String)> = if resources.len() == 1
        && !resources[0].contains('/')
        && (p.on("all") || selector.is_some())
    {
        let Some(kind) = resource(&resources[0]) else {
            return res.fail(unknown_resource(&resources[0]));
        };
        let sel = selector.unwrap_or_default();
        let mut names: Vec<String> = match kind {
            Resource::Node => cluster
                .nodes
                .iter()
                .filter(|n| sel.matches(&n.labels))
                .map(|n| n.name.clone())
                .collect(),
            Resource::Pod => cluster
                .pods
                .iter()
                .filter(|x| !x.deleted && x.namespace == ns && sel.matches(x.labels()))
                .map(|x| x.name.clone())
                .collect(),
            Resource::Other(_) => Vec::new(),
        };
        names.sort();
        names.into_iter().map(|n| (kind, n)).collect()
    } else {
        let pairs = match resource_args(&resources) {
            Ok(t) => t,
            Err(e) => return res.fail(e),
        };
        let mut out = Vec::new();
        for (ty, name) in pairs {
            match resource(&ty) {
                Some(kind) => out.push((kind, name)),
                None => return res.fail(unknown_resource(&ty)),
            }
        }
        out
    };
    label_objects(
        res,
        cluster,
        &targets,
        &ns,
        &add,
        &remove,
        p.on("overwrite"),
    )
}

fn label_objects(
    mut res: KubectlResult,
    cluster: &mut Cluster,
    targets: &[(Resource, String)],
    ns: &str,
    add: &[(String, String)],
    remove: &[String],
    overwrite: bool,
) -> KubectlResult {
    let mut errors: Vec<String> = Vec::new();
    for (kind, name) in targets {
        let (api_kind, prefix, old) = match kind {
            Resource::Node => match cluster.node_id(name) {
                Some(id) => ("Node", "node", cluster.nodes[id].labels.clone()),
                None => {
                    errors.push(not_found("nodes", name));
                    continue;
                }
            },
            Resource::Pod => match cluster.pod_id(ns, name) {
                Some(id) => ("Pod", "pod", cluster.pods[id].labels().clone()),
                None => {
                    errors.push(not_found("pods", name));
                    continue;
                }
            },
            Resource::Other(plural) => {
                return res.fail(format!(
                    "repel: kubectl label acts on nodes and pods in scenario steps, not {plural}"
                ));
            }
        };
        for r in remove {
            if !old.contains_key(r) {
                res.out(format!("label {r:?} not found."));
            }
        }
        if !overwrite {
            let clashes: Vec<String> = add
                .iter()
                .filter_map(|(k, v)| {
                    old.get(k).filter(|cur| *cur != v).map(|cur| {
                        format!("'{k}' already has a value ({cur}), and --overwrite is false")
                    })
                })
                .collect();
            if !clashes.is_empty() {
                errors.push(go_aggregate(&clashes));
                continue;
            }
        }
        let mut new = old.clone();
        for (k, v) in add {
            new.insert(k.clone(), v.clone());
        }
        for r in remove {
            new.remove(r);
        }
        if let Err(e) = validate_keys(api_kind, name, &new) {
            errors.push(e);
            continue;
        }
        let msg = change_message(&old, &new);
        if new != old {
            match kind {
                Resource::Node => {
                    if let Some(id) = cluster.node_id(name) {
                        cluster.set_node_labels(id, new);
                    }
                }
                _ => {
                    if let Some(id) = cluster.pod_id(ns, name)
                        && let Some(p) = cluster.pods.get_mut(id)
                    {
                        p.set_labels((!new.is_empty()).then_some(new));
                        cluster.touch_pod(id);
                    }
                }
            }
        }
        res.out(format!("{prefix}/{name} {msg}"));
    }
    match errors.as_slice() {
        [] => res,
        [one] => res.fail(one),
        many => {
            res.stderr
                .extend(many.iter().flat_map(|e| e.lines().map(str::to_string)));
            res.ok = false;
            res
        }
    }
}
