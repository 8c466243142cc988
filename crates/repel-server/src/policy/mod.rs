//! ValidatingAdmissionPolicies (admissionregistration.k8s.io/v1) as kube-apiserver enforces
//! them: the `ValidatingAdmissionPolicy` admission plugin of k8s.io/apiserver v1.35
//! (`plugin/policy/validating`), run after mutating admission and object validation, with the
//! other validating admission — so what a write meets here is what it meets in a cluster.
//!
//! Start with [`Gate::load`] (the policies bound to something, compiled once per change of
//! the stored policies) and [`Gate::admit`] (one request: matching, CEL, the binding's
//! `validationActions`; a denial is upstream's `Status`, a warning upstream's header text).
//!
//! # Layout
//! - `mod.rs`: the dispatcher: which policies and bindings apply, their decisions, the
//!   denial and the warnings.
//! - `cel`: compiling and evaluating CEL (the `cel` crate), upstream's error texts.
//! - `matching`: `matchConstraints` / `matchResources`.
//! - `validation`: the strategy's validation and defaulting of both objects.

pub mod cel;
pub mod matching;
pub mod validation;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use k8s_openapi::api::admissionregistration::v1::{
    ValidatingAdmissionPolicy, ValidatingAdmissionPolicyBinding,
};
use repel_api::status;
use serde_json::{Value, json};

use crate::registry::ApiResource;
use crate::request::ApiError;
use crate::store::Store;

use self::cel::{Activation, Compiled};

/// Where policies are stored.
pub const POLICIES: &str = "validatingadmissionpolicies";
/// Where bindings are stored.
pub const BINDINGS: &str = "validatingadmissionpolicybindings";

/// `dispatcher.go`: the denial of a request by a binding's `Deny` action.
pub fn denied_message(policy: &str, binding: &str, message: &str) -> String {
    format!(
        "ValidatingAdmissionPolicy '{policy}' with binding '{binding}' denied request: {message}"
    )
}

/// `dispatcher.go`: the warning a binding's `Warn` action adds to the response (kubectl prints
/// it as `Warning: …`).
pub fn warning_message(policy: &str, binding: &str, message: &str) -> String {
    format!(
        "Validation failed for ValidatingAdmissionPolicy '{policy}' with binding '{binding}': {message}"
    )
}

/// `validator.go`: a failed validation's message when it has neither a `message` nor a usable
/// `messageExpression`.
pub fn failed_expression(expression: &str) -> String {
    format!("failed expression: {}", expression.trim())
}

/// `celconfig.MaxEvaluatedMessageExpressionSizeBytes`: a longer evaluated message is dropped.
pub const MAX_EVALUATED_MESSAGE_EXPRESSION_SIZE_BYTES: usize = 5 * 1024;

/// What one request is, as admission sees it (`admission.Attributes`).
#[derive(Debug, Clone, Copy)]
pub struct Attributes<'a> {
    /// `CREATE`, `UPDATE` or `DELETE`.
    pub operation: &'a str,
    /// The resource written.
    pub resource: &'a ApiResource,
    /// The subresource (`status`), or empty.
    pub subresource: &'a str,
    /// The request's namespace (empty for cluster-scoped resources).
    pub namespace: &'a str,
    /// The object's name.
    pub name: &'a str,
    /// The new object (none on DELETE).
    pub object: Option<&'a Value>,
    /// The stored object (none on CREATE).
    pub old: Option<&'a Value>,
    /// The namespace object of a namespaced request (`null` otherwise).
    pub namespace_object: &'a Value,
    /// Whether the request is a dry run.
    pub dry_run: bool,
}

/// `rules.IsExemptAdmissionConfigurationResource`: admission configuration itself is never
/// subject to policies.
pub fn exempt(r: &ApiResource) -> bool {
    r.group == "admissionregistration.k8s.io"
        && matches!(
            r.kind.as_str(),
            "ValidatingWebhookConfiguration"
                | "MutatingWebhookConfiguration"
                | "ValidatingAdmissionPolicy"
                | "ValidatingAdmissionPolicyBinding"
        )
}

/// One validation, compiled.
#[derive(Debug)]
struct Validation {
    expression: String,
    compiled: Result<Compiled, String>,
    message: String,
    message_expression: Option<Result<Compiled, String>>,
    reason: Option<String>,
}

/// One stored policy, compiled.
#[derive(Debug)]
struct Policy {
    name: String,
    spec: Value,
    fail: bool,
    has_params: bool,
    match_conditions: Vec<Result<Compiled, String>>,
    variables: Vec<(String, Result<Compiled, String>)>,
    validations: Vec<Validation>,
}

fn compile_policy(p: &ValidatingAdmissionPolicy, raw: &Value) -> Policy {
    let spec = p.spec.clone().unwrap_or_default();
    let compile = |e: &str| cel::compile(e, cel::VARIABLES);
    Policy {
        name: p.metadata.name.clone().unwrap_or_default(),
        spec: raw.get("spec").cloned().unwrap_or(Value::Null),
        fail: spec.failure_policy.as_deref() != Some("Ignore"),
        has_params: spec.param_kind.is_some(),
        match_conditions: spec
            .match_conditions
            .iter()
            .flatten()
            .map(|m| compile(&m.expression))
            .collect(),
        variables: spec
            .variables
            .iter()
            .flatten()
            .map(|v| (v.name.clone(), compile(&v.expression)))
            .collect(),
        validations: spec
            .validations
            .iter()
            .flatten()
            .map(|v| Validation {
                expression: v.expression.clone(),
                compiled: compile(&v.expression),
                message: v.message.clone().unwrap_or_default(),
                message_expression: v
                    .message_expression
                    .as_deref()
                    .filter(|m| !m.trim().is_empty())
                    .map(compile),
                reason: v.reason.clone(),
            })
            .collect(),
    }
}

/// The compiled policies, kept until a policy changes (keyed by the policies' names and
/// specs, so servers in one process may share it).
#[derive(Debug, Default)]
struct Cache {
    compiled: Mutex<Option<(Vec<String>, CompiledPolicies)>>,
}

/// The stored policies, compiled.
type CompiledPolicies = Arc<Vec<Arc<Policy>>>;

/// The cache every request reads.
static CACHE: std::sync::LazyLock<Cache> = std::sync::LazyLock::new(Cache::default);

impl Cache {
    fn policies(&self, stored: &[Value]) -> CompiledPolicies {
        let key: Vec<String> = stored
            .iter()
            .map(|p| format!("{}\n{}", p["metadata"]["name"], p["spec"]))
            .collect();
        let mut g = self.compiled.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((k, v)) = g.as_ref()
            && *k == key
        {
            return v.clone();
        }
        let compiled: Vec<Arc<Policy>> = stored
            .iter()
            .filter_map(|raw| {
                let p: ValidatingAdmissionPolicy = serde_json::from_value(raw.clone()).ok()?;
                Some(Arc::new(compile_policy(&p, raw)))
            })
            .collect();
        let compiled = Arc::new(compiled);
        *g = Some((key, compiled.clone()));
        compiled
    }
}

/// The policies that have bindings, each with its bindings (by name), read before a write
/// takes the store's lock.
#[derive(Debug)]
pub struct Gate {
    bound: Vec<(Arc<Policy>, Vec<ValidatingAdmissionPolicyBinding>)>,
    /// The namespace object of the request (`null` when none).
    pub namespace: Value,
}

/// One decision of one validation (`PolicyDecision`): `None` admits.
struct Denial {
    message: String,
    reason: Option<String>,
}

impl Gate {
    /// The bound policies and the request namespace's object; `None` when no binding exists
    /// (nothing to enforce).
    pub fn load(store: &Store, namespace: &str) -> Option<Gate> {
        let (mut bindings, _) = store.list(BINDINGS, None);
        if bindings.is_empty() {
            return None;
        }
        let (mut policies, _) = store.list(POLICIES, None);
        policies.sort_by(|a, b| {
            a["metadata"]["name"]
                .as_str()
                .cmp(&b["metadata"]["name"].as_str())
        });
        bindings.sort_by(|a, b| {
            a["metadata"]["name"]
                .as_str()
                .cmp(&b["metadata"]["name"].as_str())
        });
        let compiled = CACHE.policies(&policies);
        let typed: Vec<ValidatingAdmissionPolicyBinding> = bindings
            .into_iter()
            .filter_map(|b| serde_json::from_value(b).ok())
            .collect();
        let bound: Vec<(Arc<Policy>, Vec<ValidatingAdmissionPolicyBinding>)> = compiled
            .iter()
            .map(|p| {
                let mine: Vec<ValidatingAdmissionPolicyBinding> = typed
                    .iter()
                    .filter(|b| b.spec.policy_name == p.name)
                    .cloned()
                    .collect();
                (p.clone(), mine)
            })
            .filter(|(_, b)| !b.is_empty())
            .collect();
        if bound.is_empty() {
            return None;
        }
        let namespace = if namespace.is_empty() {
            Value::Null
        } else {
            store
                .get("namespaces", "", namespace)
                .map_or(Value::Null, namespace_object)
        };
        Some(Gate { bound, namespace })
    }

    /// Upstream's `dispatcher.Dispatch` for one request: every matching policy's matching
    /// bindings, their decisions, and each denied decision through the binding's
    /// `validationActions` (`Deny`: the request is refused with the first denial; `Warn`: a
    /// warning; `Audit`: nothing, there is no audit log). Returns the warnings, which go out
    /// with a denial too.
    pub fn admit(&self, a: &Attributes) -> Result<Vec<String>, ApiError> {
        let mut warnings = Vec::new();
        self.admit_into(a, &mut warnings).map(|()| warnings)
    }

    /// [`Gate::admit`], the warnings added to `warnings` whether or not the request is denied
    /// (upstream's warning recorder sends them with the failure).
    pub fn admit_into(&self, a: &Attributes, warnings: &mut Vec<String>) -> Result<(), ApiError> {
        if exempt(a.resource) {
            return Ok(());
        }
        let mut denied: Option<(String, String, Denial)> = None;
        let mut activation: Option<Activation> = None;
        for (policy, bindings) in &self.bound {
            let constraints = policy
                .spec
                .get("matchConstraints")
                .and_then(|m| serde_json::from_value(m.clone()).ok())
                .unwrap_or_default();
            if !matching::matches(&constraints, a) {
                continue;
            }
            for binding in bindings {
                let spec = &binding.spec;
                if policy.has_params && spec.param_ref.is_some() {
                    // Param objects are not looked up: see the README. (Without a
                    // `paramRef`, `params` is null, as upstream evaluates it.)
                    continue;
                }
                if let Some(m) = &spec.match_resources
                    && !matching::matches(m, a)
                {
                    continue;
                }
                let act = activation.get_or_insert_with(|| self.activation(a));
                for d in validate(policy, act) {
                    let binding_name = binding.metadata.name.clone().unwrap_or_default();
                    for action in &spec.validation_actions {
                        match action.as_str() {
                            "Deny" if denied.is_none() => {
                                denied = Some((
                                    policy.name.clone(),
                                    binding_name.clone(),
                                    Denial {
                                        message: d.message.clone(),
                                        reason: d.reason.clone(),
                                    },
                                ));
                            }
                            "Warn" => warnings.push(warning_message(
                                &policy.name,
                                &binding_name,
                                &d.message,
                            )),
                            _ => {}
                        }
                    }
                }
            }
        }
        match denied {
            Some((p, b, d)) => Err(deny(a, &p, &b, &d)),
            None => Ok(()),
        }
    }

    fn activation(&self, a: &Attributes) -> Activation {
        let gvk = json!({"group": a.resource.group, "version": a.resource.version, "kind": a.resource.kind});
        let gvr = json!({"group": a.resource.group, "version": a.resource.version, "resource": a.resource.name});
        let mut request = json!({
            "uid": "",
            "kind": gvk,
            "resource": gvr,
            "requestKind": gvk,
            "requestResource": gvr,
            "name": a.name,
            "namespace": a.namespace,
            "operation": a.operation,
            "userInfo": {},
            "dryRun": a.dry_run,
        });
        if !a.subresource.is_empty() {
            request["subResource"] = json!(a.subresource);
            request["requestSubResource"] = json!(a.subresource);
        }
        if a.namespace.is_empty()
            && let Some(m) = request.as_object_mut()
        {
            m.remove("namespace");
        }
        Activation::new(
            a.object.unwrap_or(&Value::Null),
            a.old.unwrap_or(&Value::Null),
            &request,
            &self.namespace,
        )
    }
}

/// The validating admission of a CREATE the control plane makes (a ReplicaSet's pod, a
/// Deployment's ReplicaSet): upstream's controllers write through the API, so the policies
/// bound to what they create apply to them too. Warnings are dropped, as a controller drops
/// them.
pub fn admit_create(store: &Store, r: &ApiResource, ns: &str, obj: &Value) -> Result<(), ApiError> {
    if exempt(r) {
        return Ok(());
    }
    let ns = if r.namespaced { ns } else { "" };
    let Some(gate) = Gate::load(store, ns) else {
        return Ok(());
    };
    let a = Attributes {
        operation: "CREATE",
        resource: r,
        subresource: "",
        namespace: ns,
        name: obj["metadata"]["name"].as_str().unwrap_or(""),
        object: Some(obj),
        old: None,
        namespace_object: &gate.namespace,
        dry_run: false,
    };
    gate.admit(&a).map(|_| ())
}

/// `cel.CreateNamespaceObject`: the namespace's metadata (without managedFields and owner
/// references), spec and status.
fn namespace_object(ns: Value) -> Value {
    let mut out = json!({"apiVersion": "v1", "kind": "Namespace"});
    let mut meta = ns.get("metadata").cloned().unwrap_or(json!({}));
    if let Some(m) = meta.as_object_mut() {
        for f in ["managedFields", "ownerReferences", "selfLink"] {
            m.remove(f);
        }
    }
    out["metadata"] = meta;
    for f in ["spec", "status"] {
        if let Some(v) = ns.get(f) {
            out[f] = v.clone();
        }
    }
    out
}

/// Upstream's `validator.Validate` of one policy: `matchConditions` (any false: no decision;
/// errors: the failure policy), then each validation. Returns the denying decisions (an
/// evaluation error denies under `failurePolicy: Fail` and admits under `Ignore`).
fn validate(policy: &Policy, act: &Activation) -> Vec<Denial> {
    let fail = |message: String| {
        if policy.fail {
            vec![Denial {
                message,
                reason: None,
            }]
        } else {
            Vec::new()
        }
    };
    let mut errors = Vec::new();
    for mc in &policy.match_conditions {
        match run(mc, act) {
            Err(e) => errors.push(e),
            Ok(::cel::Value::Bool(false)) => return Vec::new(),
            Ok(_) => {}
        }
    }
    if !errors.is_empty() {
        // utilerrors.NewAggregate: one error's text, or `[a, b]`.
        let msg = if errors.len() == 1 {
            errors.remove(0)
        } else {
            format!("[{}]", errors.join(", "))
        };
        return fail(msg);
    }
    let mut act = act.clone();
    if !policy.variables.is_empty() {
        let mut vars: HashMap<String, ::cel::Value> = HashMap::new();
        for (name, v) in &policy.variables {
            let with = act.clone().with_variables(vars.clone());
            if let Ok(value) = run(v, &with) {
                vars.insert(name.clone(), value);
            }
        }
        act = act.with_variables(vars);
    }
    let mut out = Vec::new();
    for v in &policy.validations {
        match run(&v.compiled, &act) {
            Err(e) => out.extend(fail(e)),
            Ok(::cel::Value::Bool(true)) => {}
            Ok(_) => out.push(Denial {
                message: message_of(v, &act),
                reason: Some(v.reason.clone().unwrap_or_else(|| "Invalid".to_string())),
            }),
        }
    }
    out
}

/// An expression's value, or upstream's error text (`compilation error: …` for one that did
/// not compile, `expression '…' resulted in error: …` for one that failed).
fn run(c: &Result<Compiled, String>, act: &Activation) -> Result<::cel::Value, String> {
    match c {
        Err(e) => Err(format!("compilation error: {e}")),
        Ok(p) => p.eval(act),
    }
}

/// `validator.go`: the `messageExpression`'s value (a string, trimmed, without line breaks,
/// at most 5 KiB), else the trimmed `message`, else `failed expression: EXPR`.
fn message_of(v: &Validation, act: &Activation) -> String {
    let mut message = String::new();
    if let Some(Ok(::cel::Value::String(s))) = v.message_expression.as_ref().map(|m| run(m, act)) {
        let trimmed = s.trim();
        if trimmed.len() <= MAX_EVALUATED_MESSAGE_EXPRESSION_SIZE_BYTES && !trimmed.contains('\n') {
            message = trimmed.to_string();
        }
    }
    if message.is_empty() && !v.message.is_empty() {
        message = v.message.trim().to_string();
    }
    if message.is_empty() {
        message = failed_expression(&v.expression);
    }
    message
}

/// `reasonToCode`: Forbidden 403, Unauthorized 401, RequestEntityTooLarge 413, anything else
/// (Invalid) 422.
pub fn reason_to_code(reason: &str) -> u16 {
    match reason {
        "Forbidden" => 403,
        "Unauthorized" => 401,
        "RequestEntityTooLarge" => 413,
        _ => 422,
    }
}

/// The `Status` of a denial (`dispatcher.go`): `admission.NewForbidden` of the denied
/// message — `<resource> "<name>" is forbidden: ValidatingAdmissionPolicy 'P' with binding
/// 'B' denied request: MESSAGE` — with the validation's reason (`Invalid` by default), its
/// code, and the message again as the one cause.
fn deny(a: &Attributes, policy: &str, binding: &str, d: &Denial) -> ApiError {
    let message = denied_message(policy, binding, &d.message);
    // extractResourceName: the request's name, else the object's name or generateName, else
    // "Unknown".
    let from_object = |f: &str| {
        a.object
            .and_then(|o| o["metadata"][f].as_str())
            .filter(|n| !n.is_empty())
    };
    let name = Some(a.name)
        .filter(|n| !n.is_empty())
        .or_else(|| from_object("name"))
        .or_else(|| from_object("generateName"))
        .unwrap_or("Unknown");
    let (_, mut st) = status::forbidden(&a.resource.qualified(), name, &message);
    let reason = d.reason.clone().unwrap_or_else(|| "Invalid".to_string());
    let code = reason_to_code(&reason);
    st["reason"] = json!(reason);
    st["code"] = json!(code);
    st["details"]["causes"] = json!([{"message": message}]);
    ApiError(code, st)
}

#[cfg(test)]
mod tests;
