//! `repel check`: validate node taints, pod tolerations and the objects' metadata as the API
//! server does.

use clap::Args;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use repel_core::validation::meta::strategy_errors;
use repel_core::validation::{
    FieldError, ValidationOptions, invalid_message, validate_node, validate_pod_spec_tolerations,
};
use repel_core::workload::namespace_of;
use serde::Serialize;

use crate::output::{print_machine, warn_all};
use crate::{CliError, Format, Inputs};
use repel_api::strict::StrictError;
use repel_manifest::{Inventory, Validate, answer_strict};

/// Arguments of `repel check`.
#[derive(Debug, Args)]
#[command(after_help = "Examples:
  repel check -f examples/demo/cluster.yaml
  repel check -f examples/demo/cluster.yaml -o json
  repel check -f examples/demo/ -R --validate strict")]
pub struct CheckArgs {
    #[command(flatten)]
    inputs: Inputs,
    /// Output format (default: kubectl's "is invalid" messages).
    #[arg(short = 'o', long = "output")]
    output: Option<Format>,
}

/// One invalid field, as the JSON contract names it.
#[derive(Debug, Serialize)]
pub struct ErrorRow {
    /// `Kind/namespace/name` (`Kind/name` for cluster-scoped objects).
    pub object: String,
    /// The field path, e.g. `spec.tolerations[0].operator`.
    pub field: String,
    /// Upstream's error type text, e.g. `Invalid value`.
    #[serde(rename = "type")]
    pub error_type: String,
    /// Upstream's error body, as in an API Status cause: `Invalid value: "x": detail`.
    pub message: String,
    /// Where the object was read: `FILE: document N[, items[i]]`.
    pub source: String,
}

/// `repel check -o json` output.
#[derive(Debug, Serialize)]
pub struct CheckReport {
    /// Whether every object is valid.
    pub valid: bool,
    /// Every field error of every object.
    pub errors: Vec<ErrorRow>,
}

/// One object's result.
pub struct Checked {
    /// Kind.
    pub kind: &'static str,
    /// Name (no namespace).
    pub name: String,
    /// `Kind/ns/name` or `Kind/name`.
    pub id: String,
    /// Its errors.
    pub errors: Vec<FieldError>,
    /// Where it was read.
    pub source: String,
}

/// An object's metadata errors (upstream `ValidateObjectMeta` with the kind's name rule: the
/// name, the namespace, labels and annotations, as the kind's strategy checks them on a
/// create), before the errors of its spec, in the order the API server lists them.
fn with_meta(
    kind: &str,
    meta: &ObjectMeta,
    namespaced: bool,
    spec: Vec<FieldError>,
) -> Vec<FieldError> {
    // A namespaced object written without a namespace is created in the one kubectl's context
    // names; repel reads it as `default`, as every other command does.
    let defaulted;
    let meta = if namespaced && meta.namespace.as_deref().is_none_or(str::is_empty) {
        defaulted = ObjectMeta {
            namespace: Some("default".to_string()),
            ..meta.clone()
        };
        &defaulted
    } else {
        meta
    };
    let mut errors = strategy_errors(kind, meta, namespaced, None);
    errors.extend(spec);
    errors
}

/// Validates every object of the inventory, in input order: the metadata of nodes, pods and
/// workloads (names, namespaces, labels, annotations), nodes' taints, and the tolerations of
/// pods and of workloads' pod templates.
pub fn check_inventory(inv: &Inventory, opts: &ValidationOptions) -> Vec<Checked> {
    let mut out: Vec<(usize, Checked)> = Vec::new();
    for n in &inv.nodes {
        let name = n.obj.metadata.name.clone().unwrap_or_default();
        out.push((
            n.seq,
            Checked {
                kind: "Node",
                id: format!("Node/{name}"),
                name,
                errors: with_meta("Node", &n.obj.metadata, false, validate_node(&n.obj)),
                source: n.source.to_string(),
            },
        ));
    }
    for p in &inv.pods {
        let name = p.obj.metadata.name.clone().unwrap_or_default();
        let errors = p
            .obj
            .spec
            .as_ref()
            .map(|s| validate_pod_spec_tolerations(s, "spec", opts))
            .unwrap_or_default();
        let errors = with_meta("Pod", &p.obj.metadata, true, errors);
        out.push((
            p.seq,
            Checked {
                kind: "Pod",
                id: format!("Pod/{}/{name}", namespace_of(&p.obj.metadata)),
                name,
                errors,
                source: p.source.to_string(),
            },
        ));
    }
    for loaded in &inv.workloads {
        let w = &loaded.obj;
        let errors = w
            .template()
            .and_then(|(t, path)| t.spec.as_ref().map(|s| (s, path)))
            .map(|(s, path)| validate_pod_spec_tolerations(s, path, opts))
            .unwrap_or_default();
        let errors = with_meta(w.kind(), w.metadata(), true, errors);
        out.push((
            loaded.seq,
            Checked {
                kind: w.kind(),
                id: format!("{}/{}/{}", w.kind(), w.namespace(), w.name()),
                name: w.name().to_string(),
                errors,
                source: loaded.source.to_string(),
            },
        ));
    }
    out.sort_by_key(|(seq, _)| *seq);
    out.into_iter().map(|(_, c)| c).collect()
}

/// Runs `repel check`.
///
/// Unknown and duplicate fields are errors beside the validation errors (`--validate=strict`,
/// the default here, as kubectl's), or warnings (`warn`), or not looked at (`ignore`).
pub fn run(args: CheckArgs) -> Result<u8, CliError> {
    let mut inv = args.inputs.read("check", 0)?;
    warn_all(&inv.warnings);
    let strict = std::mem::take(&mut inv.strict);
    let strict = match args.inputs.validate.unwrap_or(Validate::Strict) {
        Validate::Strict => strict,
        mode => {
            answer_strict(&strict, mode).map_err(CliError::Usage)?;
            Vec::new()
        }
    };
    let opts = ValidationOptions::from_gates(&args.inputs.feature_gates);
    let checked = check_inventory(&inv, &opts);
    // Node pools, each with its provider's rules and texts (`repel pools` prints the same).
    let mut pools = inv.pools_with_sources()?;
    // A NodeClaim's taints and startup taints are validated as its NodePool's are (Karpenter's
    // `validateTaintsField` runs on both).
    let claims_from = pools.len();
    for c in &inv.node_claims {
        let as_pool = serde_json::json!({
            "apiVersion": c.obj["apiVersion"], "metadata": c.obj["metadata"],
            "spec": {"template": {"spec": c.obj["spec"]}}
        });
        let pool = repel_core::pools::karpenter_pool(&as_pool).map_err(|message| {
            CliError::Input(repel_manifest::InputError::Object {
                at: c.source.clone(),
                what: Some(format!(
                    "NodeClaim {}",
                    c.obj["metadata"]["name"].as_str().unwrap_or_default()
                )),
                message: message.replace("spec.template.spec.", "spec."),
            })
        })?;
        pools.push((pool, c.source.to_string()));
    }
    let pool_errors: Vec<(String, String, &'static str, String, String)> = pools
        .iter()
        .enumerate()
        .flat_map(|(i, (p, source))| {
            let claim = i >= claims_from;
            let (id, field) = match p.provider {
                "karpenter" if claim => (format!("NodeClaim/{}", p.name), "spec.taints"),
                "karpenter" => (format!("NodePool/{}", p.name), "spec.template.spec.taints"),
                "aks" => (format!("AgentPool/{}", p.name), "nodeTaints"),
                _ => (format!("Nodegroup/{}", p.name), "taints"),
            };
            let label = match p.provider {
                "karpenter" if claim => format!("NodeClaim {}", p.name),
                "karpenter" => format!("NodePool {}", p.name),
                "aks" => format!("agent pool {}", p.name),
                _ => format!("nodegroup {}", p.name),
            };
            repel_core::pools::validate_taints(p)
                .into_iter()
                .map(move |e| (id.clone(), label.clone(), field, e, source.clone()))
        })
        .collect();
    let valid =
        checked.iter().all(|c| c.errors.is_empty()) && strict.is_empty() && pool_errors.is_empty();
    match args.output {
        Some(format) => {
            let report = CheckReport {
                valid,
                errors: checked
                    .iter()
                    .flat_map(|c| {
                        c.errors.iter().map(|e| ErrorRow {
                            object: c.id.clone(),
                            field: e.field.clone(),
                            error_type: e.error_type.to_string(),
                            message: e.error_body(),
                            source: c.source.clone(),
                        })
                    })
                    .chain(strict.iter().flat_map(|r| {
                        r.errors.iter().map(|e| {
                            let (error_type, field) = match e {
                                StrictError::Unknown(p) => ("Unknown field", p),
                                StrictError::Duplicate(p) => ("Duplicate field", p),
                            };
                            ErrorRow {
                                object: r.object.clone(),
                                field: field.clone(),
                                error_type: error_type.to_string(),
                                message: e.to_string(),
                                source: r.source.to_string(),
                            }
                        })
                    }))
                    .chain(
                        pool_errors
                            .iter()
                            .map(|(id, _, field, e, source)| ErrorRow {
                                object: id.clone(),
                                field: field.to_string(),
                                error_type: "Invalid value".to_string(),
                                message: e.clone(),
                                source: source.clone(),
                            }),
                    )
                    .collect(),
            };
            print_machine(&report, format)?;
        }
        None => {
            for c in checked.iter().filter(|c| !c.errors.is_empty()) {
                out!("{}", invalid_message(c.kind, &c.name, &c.errors));
            }
            for r in &strict {
                outln!("{}", r.kubectl_error());
            }
            for (_, label, _, e, _) in &pool_errors {
                outln!("{label}: {e}");
            }
            let strict_only = strict
                .iter()
                .filter(|r| {
                    !checked
                        .iter()
                        .any(|c| c.id == r.object && !c.errors.is_empty())
                })
                .count();
            let bad_pools = {
                let mut ids: Vec<&String> = pool_errors.iter().map(|(id, ..)| id).collect();
                ids.dedup();
                ids.len()
            };
            let bad =
                checked.iter().filter(|c| !c.errors.is_empty()).count() + strict_only + bad_pools;
            // Kinds validation does not look at (Namespace, PodDisruptionBudget,
            // PriorityClass) count as checked when their fields were refused.
            let total = checked.len()
                + pools.len()
                + strict
                    .iter()
                    .filter(|r| !checked.iter().any(|c| c.id == r.object))
                    .count();
            if bad == 0 {
                outln!("{total} object(s) checked: all valid");
            } else {
                outln!("{total} object(s) checked: {bad} invalid");
            }
        }
    }
    Ok(if valid { 0 } else { 1 })
}
