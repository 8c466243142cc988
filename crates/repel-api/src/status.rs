//! Upstream's `Status` error objects (`k8s.io/apimachinery/pkg/api/errors`, v1.32), as
//! `(HTTP code, body)` pairs the server writes as JSON.
//!
//! Messages are upstream's, byte for byte; kubectl prints them as
//! `Error from server (<reason>): <message>`. The body's keys come in the order Go marshals
//! `metav1.Status` (`kind`, `apiVersion`, `metadata`, `status`, `message`, `reason`, `details`,
//! `code`) and `StatusDetails` (`name`, `group`, `kind`, `uid`, `causes`, `retryAfterSeconds`),
//! empty fields omitted.
//!
//! A `resource` argument is upstream's `GroupResource.String()`: the plural resource, then
//! `.group` for a non-core group (`pods`, `deployments.apps`, `leases.coordination.k8s.io`).
//! A `kind` argument of [`invalid`] is `GroupKind.String()` (`Pod`, `Deployment.apps`).

use repel_core::validation::FieldError;

use crate::strict::StrictError;
use serde_json::{Map, Value, json};

/// The text of a storage conflict (`storage.OptimisticLockErrorMsg`), the `err` of [`conflict`].
pub const OPTIMISTIC_LOCK_ERROR_MSG: &str =
    "the object has been modified; please apply your changes to the latest version and try again";
/// The eviction subresource's message when a PodDisruptionBudget forbids the eviction.
pub const PDB_VIOLATION_MSG: &str =
    "Cannot evict pod as it would violate the pod's disruption budget.";
/// `policyv1.DisruptionBudgetCause`, the cause type of a PDB-blocked eviction.
pub const DISRUPTION_BUDGET_CAUSE: &str = "DisruptionBudget";
/// The eviction subresource's message when more than one PDB selects the pod (a 500).
pub const MULTIPLE_PDBS_MSG: &str = "This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.";
/// The media types a create or update body may have (what upstream lists in its 415 for them).
pub const BODY_MEDIA_TYPES: [&str; 3] = [
    "application/json",
    "application/yaml",
    "application/vnd.kubernetes.protobuf",
];

/// A `Status` with `status: Failure`. `reason` and `details` are omitted when empty/`None`.
pub fn failure(code: u16, reason: &str, message: &str, details: Option<Value>) -> (u16, Value) {
    let mut m = Map::new();
    m.insert("kind".into(), json!("Status"));
    m.insert("apiVersion".into(), json!("v1"));
    m.insert("metadata".into(), json!({}));
    m.insert("status".into(), json!("Failure"));
    if !message.is_empty() {
        m.insert("message".into(), json!(message));
    }
    if !reason.is_empty() {
        m.insert("reason".into(), json!(reason));
    }
    if let Some(d) = details {
        m.insert("details".into(), d);
    }
    m.insert("code".into(), json!(code));
    (code, Value::Object(m))
}

/// A `Status` with `status: Success` and the given code (e.g. 201 for an eviction, 200).
pub fn success(code: u16) -> (u16, Value) {
    (
        code,
        json!({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success", "code": code}),
    )
}

/// `StatusDetails` with `name`, `group`, `kind`, `uid` (each omitted when empty).
fn details(name: &str, group: &str, kind: &str, uid: &str) -> Map<String, Value> {
    let mut d = Map::new();
    for (k, v) in [
        ("name", name),
        ("group", group),
        ("kind", kind),
        ("uid", uid),
    ] {
        if !v.is_empty() {
            d.insert(k.into(), json!(v));
        }
    }
    d
}

/// Split `GroupResource.String()` into (resource, group).
fn split_resource(resource: &str) -> (&str, &str) {
    resource.split_once('.').unwrap_or((resource, ""))
}

fn resource_details(resource: &str, name: &str) -> Value {
    let (res, group) = split_resource(resource);
    Value::Object(details(name, group, res, ""))
}

/// Go's `%q` of a string.
fn q(s: &str) -> String {
    repel_core::validation::go_quote(s)
}

/// `errors.NewNotFound`: 404 `pods "x" not found`.
pub fn not_found(resource: &str, name: &str) -> (u16, Value) {
    failure(
        404,
        "NotFound",
        &format!("{resource} {} not found", q(name)),
        Some(resource_details(resource, name)),
    )
}

/// `errors.NewAlreadyExists`: 409 `nodes "node3" already exists`.
pub fn already_exists(resource: &str, name: &str) -> (u16, Value) {
    failure(
        409,
        "AlreadyExists",
        &format!("{resource} {} already exists", q(name)),
        Some(resource_details(resource, name)),
    )
}

/// `errors.NewConflict` with the storage layer's optimistic-lock error: 409
/// `Operation cannot be fulfilled on nodes "node1": the object has been modified; please apply
/// your changes to the latest version and try again`.
pub fn conflict(resource: &str, name: &str) -> (u16, Value) {
    conflict_with(resource, name, OPTIMISTIC_LOCK_ERROR_MSG)
}

/// `errors.NewConflict(resource, name, err)`: 409 `Operation cannot be fulfilled on <resource>
/// "<name>": <err>`.
pub fn conflict_with(resource: &str, name: &str, err: &str) -> (u16, Value) {
    failure(
        409,
        "Conflict",
        &format!(
            "Operation cannot be fulfilled on {resource} {}: {err}",
            q(name)
        ),
        Some(resource_details(resource, name)),
    )
}

/// `errors.NewInvalid(groupKind, name, errs)`: 422 `Pod "x" is invalid: <errors>` with one
/// `details.causes` entry per error (`reason` = the error type, e.g. `FieldValueInvalid`;
/// `message` = `ErrorBody()`; `field` = the path).
///
/// The message aggregates the errors as `ErrorList.ToAggregate` does:
/// 1. duplicate messages are dropped;
/// 2. one error prints alone, several print as `[e1, e2]`;
/// 3. no errors: just `Pod "x" is invalid`.
pub fn invalid(kind: &str, name: &str, errors: &[FieldError]) -> (u16, Value) {
    let (k, group) = kind.split_once('.').unwrap_or((kind, ""));
    let mut d = details(name, group, k, "");
    let causes: Vec<Value> = errors
        .iter()
        .map(|e| {
            let mut c = Map::new();
            c.insert("reason".into(), json!(e.error_type.reason()));
            c.insert("message".into(), json!(e.error_body()));
            if !e.field.is_empty() {
                c.insert("field".into(), json!(e.field));
            }
            Value::Object(c)
        })
        .collect();
    if !causes.is_empty() {
        d.insert("causes".into(), Value::Array(causes));
    }
    let mut msgs: Vec<String> = Vec::new();
    for e in errors {
        let m = e.to_string();
        if !msgs.contains(&m) {
            msgs.push(m);
        }
    }
    let message = match msgs.as_slice() {
        [] => format!("{kind} {} is invalid", q(name)),
        [one] => format!("{kind} {} is invalid: {one}", q(name)),
        many => format!("{kind} {} is invalid: [{}]", q(name), many.join(", ")),
    };
    failure(422, "Invalid", &message, Some(Value::Object(d)))
}

/// `errors.NewBadRequest(msg)`: 400 with the message as given.
pub fn bad_request(msg: &str) -> (u16, Value) {
    failure(400, "BadRequest", msg, None)
}

/// What the authentication filter answers a request without valid credentials
/// (`errors.NewUnauthorized("Unauthorized")`); kubectl prints
/// `error: You must be logged in to the server (Unauthorized)`.
pub fn unauthorized() -> (u16, Value) {
    failure(401, "Unauthorized", "Unauthorized", None)
}

/// `errors.NewForbidden(resource, name, err)`: 403 `<resource> "<name>" is forbidden: <err>`
/// (`<resource> is forbidden: …` without a name).
pub fn forbidden(resource: &str, name: &str, err: &str) -> (u16, Value) {
    let message = if resource.is_empty() {
        format!("forbidden: {err}")
    } else if name.is_empty() {
        format!("{resource} is forbidden: {err}")
    } else {
        format!("{resource} {} is forbidden: {err}", q(name))
    };
    failure(
        403,
        "Forbidden",
        &message,
        Some(resource_details(resource, name)),
    )
}

/// `errors.NewMethodNotSupported(resource, action)`: 405
/// `<action> is not supported on resources of kind "<resource>"`.
pub fn method_not_supported(resource: &str, action: &str) -> (u16, Value) {
    let (res, group) = split_resource(resource);
    failure(
        405,
        "MethodNotAllowed",
        &format!(
            "{action} is not supported on resources of kind {}",
            q(resource)
        ),
        Some(Value::Object(details("", group, res, ""))),
    )
}

/// A 405 for a verb no route serves (`NewGenericServerResponse(405, …)`'s text).
pub fn method_not_allowed() -> (u16, Value) {
    failure(
        405,
        "MethodNotAllowed",
        "the server does not allow this method on the requested resource",
        Some(json!({})),
    )
}

/// `negotiation.NewUnsupportedMediaTypeError(accepted)`: 415 `the body of the request was in an
/// unknown format - accepted media types include: a, b`. Pass
/// [`crate::patch::PATCH_MEDIA_TYPES`] for a `PATCH`, [`BODY_MEDIA_TYPES`] for a create/update.
pub fn unsupported_media_type(accepted: &[&str]) -> (u16, Value) {
    failure(
        415,
        "UnsupportedMediaType",
        &format!(
            "the body of the request was in an unknown format - accepted media types include: {}",
            accepted.join(", ")
        ),
        None,
    )
}

/// The eviction subresource's 429 when the pod's PDB allows no disruption
/// (`checkAndDecrement`): message [`PDB_VIOLATION_MSG`], one `DisruptionBudget` cause
/// `The disruption budget <pdb> needs <desired> healthy pods and has <current> currently`.
pub fn too_many_requests_pdb(
    pdb: &str,
    desired_healthy: i32,
    current_healthy: i32,
) -> (u16, Value) {
    failure(
        429,
        "TooManyRequests",
        PDB_VIOLATION_MSG,
        Some(json!({"causes": [{
            "reason": DISRUPTION_BUDGET_CAUSE,
            "message": format!(
                "The disruption budget {pdb} needs {desired_healthy} healthy pods and has {current_healthy} currently"
            ),
        }]})),
    )
}

/// The eviction subresource's 429 while the PDB controller has not yet observed the PDB's
/// generation (`createTooManyRequestsError`): retry after 10 s.
pub fn too_many_requests_pdb_processing(pdb: &str) -> (u16, Value) {
    failure(
        429,
        "TooManyRequests",
        PDB_VIOLATION_MSG,
        Some(json!({"causes": [{
            "reason": DISRUPTION_BUDGET_CAUSE,
            "message": format!("The disruption budget {pdb} is still being processed by the server."),
        }], "retryAfterSeconds": 10})),
    )
}

/// The eviction subresource's answer when several PDBs select the pod: a `Status` with code 500
/// and no reason, [`MULTIPLE_PDBS_MSG`].
pub fn multiple_pdbs() -> (u16, Value) {
    failure(500, "", MULTIPLE_PDBS_MSG, None)
}

/// `errors.NewRequestEntityTooLargeError("limit is N")`: what `limitedReadBody` answers a
/// body over the server's `MaxRequestBodyBytes` — 413 `Request entity too large: limit is N`.
pub fn request_entity_too_large(limit: usize) -> (u16, Value) {
    failure(
        413,
        "RequestEntityTooLarge",
        &format!("Request entity too large: limit is {limit}"),
        None,
    )
}

/// What the timeout filter (`WithTimeoutForNonLongRunningRequests`) answers a request that
/// ran past `--request-timeout`: `errors.NewTimeoutError("request did not complete within the
/// allotted timeout", 0)`, 504 with reason `Timeout`. The filter encodes `ErrStatus` itself, so
/// the body has no `kind` or `apiVersion` (and `details` is the empty object).
pub fn request_timeout() -> (u16, Value) {
    (
        504,
        json!({
            "metadata": {},
            "status": "Failure",
            "message": "Timeout: request did not complete within the allotted timeout",
            "reason": "Timeout",
            "details": {},
            "code": 504
        }),
    )
}

/// `errors.NewResourceExpired(msg)`: 410 with reason `Expired`.
pub fn gone(msg: &str) -> (u16, Value) {
    failure(410, "Expired", msg, None)
}

/// The watch cache's answer to a watch from a compacted resourceVersion:
/// 410 `too old resource version: <requested> (<oldest available - 1>)`.
pub fn too_old_resource_version(requested: u64, oldest_available_minus_one: u64) -> (u16, Value) {
    gone(&format!(
        "too old resource version: {requested} ({oldest_available_minus_one})"
    ))
}

/// `runtime.NewStrictDecodingError(errs).Error()` for unknown fields:
/// `strict decoding error: unknown field "spec.foo", unknown field "bar"`.
pub fn strict_decoding_message(paths: &[String]) -> String {
    let errs: Vec<StrictError> = paths.iter().cloned().map(StrictError::Unknown).collect();
    strict_errors_message(&errs)
}

/// `runtime.NewStrictDecodingError(errs).Error()`: `strict decoding error: ` and the errors
/// joined by `, ` (`duplicate field "metadata.name", unknown field "spec.foo"`).
pub fn strict_errors_message(errors: &[StrictError]) -> String {
    let errs: Vec<String> = errors.iter().map(ToString::to_string).collect();
    format!("strict decoding error: {}", errs.join(", "))
}

/// A create or update body with unknown fields under `fieldValidation=Strict`
/// (`transformDecodeError`): 400 `Pod in version "v1" cannot be handled as a Pod: strict
/// decoding error: unknown field "spec.foo"`. Every served kind is version `v1`.
pub fn strict_unknown_fields(kind: &str, paths: &[String]) -> (u16, Value) {
    let errs: Vec<StrictError> = paths.iter().cloned().map(StrictError::Unknown).collect();
    strict_body_errors(kind, &errs)
}

/// [`strict_unknown_fields`] for the errors [`crate::strict::check_body`] finds (unknown and
/// duplicate fields, in document order).
pub fn strict_body_errors(kind: &str, errors: &[StrictError]) -> (u16, Value) {
    bad_request(&format!(
        "{kind} in version \"v1\" cannot be handled as a {kind}: {}",
        strict_errors_message(errors)
    ))
}

/// A patch whose result has unknown fields under `fieldValidation=Strict`
/// (`applyPatchToObject` / the JSON patcher): 422 `NewInvalid` with an empty kind and name and
/// one `patch: Invalid value` error. `bad_value` is what upstream prints: Go's `%+v` of the
/// patch map for a strategic merge patch ([`crate::gofmt::go_value`] of the patch), the patched
/// object's JSON for a merge or JSON patch.
pub fn strict_patch_invalid(bad_value: &str, paths: &[String]) -> (u16, Value) {
    let err = FieldError::invalid(
        "patch",
        repel_core::validation::BadValue::Str(bad_value.to_string()),
        strict_decoding_message(paths),
    );
    invalid("", "", &[err])
}

/// `errors.NewInternalError(err)`: 500 `Internal error occurred: <err>`, with the error as the
/// one cause.
pub fn internal_error(err: &str) -> (u16, Value) {
    failure(
        500,
        "InternalError",
        &format!("Internal error occurred: {err}"),
        Some(json!({"causes": [{"message": err}]})),
    )
}

/// What upstream answers for an error that is not a `Status` (`ErrorToAPIStatus`' fallback):
/// 500, no reason, the error's text.
pub fn internal_unknown(err: &str) -> (u16, Value) {
    failure(500, "", err, None)
}

/// `NewGenericServerResponse(422, …)` without a resource: the JSON patcher's answer to a failed
/// operation.
pub fn generic_unprocessable() -> (u16, Value) {
    failure(
        422,
        "Invalid",
        "the server rejected our request due to an error in our request",
        Some(json!({})),
    )
}

/// The `Status` a `DELETE` may answer instead of the object:
/// `{"status":"Success","details":{"name":…,"group":…,"kind":<resource>,"uid":…}}`.
pub fn deleted(resource: &str, name: &str, uid: &str) -> (u16, Value) {
    let (res, group) = split_resource(resource);
    (
        200,
        json!({
            "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success",
            "details": Value::Object(details(name, group, res, uid)),
        }),
    )
}

#[cfg(test)]
mod tests;
