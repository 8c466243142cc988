//! The REST verbs over the served resources, one file per verb as kube-apiserver's
//! `endpoints/handlers/{get,create,update,patch,delete}.go`: [`handle`] reads the request
//! into a [`Call`] and dispatches on method, name and subresource. Each verb runs the write
//! through admission under the store's lock and answers with the stored object or an
//! upstream `Status`.
//!
//! # Layout
//! - [`get`]: get one object, list, and watch (handed to [`crate::watch`]).
//! - [`create`], [`update`], [`patch`], [`apply`] (server-side apply), [`delete`] (one object
//!   or a collection).
//! - [`scale`]: the scale subresource; [`binding`]: the pod binding and eviction
//!   subresources.
//! - [`body`]: request bodies and media types, and replies.

pub mod apply;
pub mod binding;
pub mod body;
pub mod create;
pub mod delete;
pub mod get;
pub mod patch;
pub mod scale;
pub mod update;

pub use binding::bind;
pub use delete::delete;
pub use scale::{scale_for, scale_of};

use std::collections::HashMap;
use std::sync::Arc;

use axum::body::Bytes;
use axum::http::{HeaderMap, Method, header};
use axum::response::Response;
use repel_api::selector::{FieldSelector, LabelQuery};
use repel_api::status;
use serde_json::{Value, json};

use crate::App;
use crate::registry::ApiResource;
use crate::request::{ApiError, Target};
use crate::store::StoreError;
use crate::time;
use repel_api::table::IncludeObject;

/// The error a write closure returns: the store's, or an API error already built.
#[derive(Debug)]
pub enum WriteError {
    /// From the store (needs the resource and name to become a Status).
    Store(StoreError),
    /// A Status already.
    Api(ApiError),
}

impl From<StoreError> for WriteError {
    fn from(e: StoreError) -> Self {
        WriteError::Store(e)
    }
}

impl From<ApiError> for WriteError {
    fn from(e: ApiError) -> Self {
        WriteError::Api(e)
    }
}

/// The Status of a store error on `r`'s object `name`.
pub fn store_error(r: &ApiResource, name: &str, e: StoreError) -> ApiError {
    match e {
        StoreError::NotFound => status::not_found(&r.qualified(), name).into(),
        StoreError::AlreadyExists => status::already_exists(&r.qualified(), name).into(),
        StoreError::Conflict => status::conflict(&r.qualified(), name).into(),
        StoreError::Storage(m) => status::internal_error(&m).into(),
    }
}

pub(crate) fn write_error(r: &ApiResource, name: &str, e: WriteError) -> ApiError {
    match e {
        WriteError::Store(s) => store_error(r, name, s),
        WriteError::Api(a) => a,
    }
}

/// The selectors of a list or watch request.
pub struct Selectors {
    field: Option<FieldSelector>,
    label: Option<LabelQuery>,
}

impl Selectors {
    /// Parses `fieldSelector` and `labelSelector` (400 with upstream's text when malformed).
    pub fn parse(r: &ApiResource, query: &HashMap<String, String>) -> Result<Selectors, ApiError> {
        let field = match query.get("fieldSelector").filter(|s| !s.is_empty()) {
            None => None,
            Some(s) => Some(
                field_selector(r, s)
                    .map_err(|e| ApiError::from(status::bad_request(&e.to_string())))?,
            ),
        };
        let label = match query.get("labelSelector").filter(|s| !s.is_empty()) {
            None => None,
            Some(s) => Some(
                LabelQuery::parse(s)
                    .map_err(|e| ApiError::from(status::bad_request(&e.to_string())))?,
            ),
        };
        Ok(Selectors { field, label })
    }

    /// Whether no selector was given (upstream's `pred.Empty()`).
    pub fn is_empty(&self) -> bool {
        self.field.is_none() && self.label.is_none()
    }

    /// Whether `obj` passes both selectors.
    pub fn matches(&self, obj: &Value) -> bool {
        self.field.as_ref().is_none_or(|f| f.matches(obj))
            && self.label.as_ref().is_none_or(|l| l.matches(obj))
    }
}

/// A field selector on `r`: a custom resource selects by `metadata.name`,
/// `metadata.namespace` and its version's `selectableFields`; a built-in one by its kind's
/// fields.
fn field_selector(
    r: &ApiResource,
    s: &str,
) -> Result<repel_api::selector::FieldSelector, repel_api::selector::SelectorError> {
    use repel_api::selector::{FieldSelector, SelectorError};
    let Some(c) = &r.custom else {
        return repel_api::selector::parse_field_selector(&r.kind, s);
    };
    let parsed = FieldSelector::parse(s)?;
    for f in parsed.fields() {
        let known = ["metadata.name", "metadata.namespace"].contains(&f)
            || c.selectable.iter().any(|x| x == f);
        if !known {
            return Err(SelectorError::UnsupportedField(f.to_string()));
        }
    }
    Ok(parsed)
}

/// A Table of `objs` for `r`, as the list's or watch event's body (a custom resource's with
/// its CRD's printer columns), each row's `object` as `include` asks (kubectl's `--sort-by`
/// asks for whole objects).
pub fn table(r: &ApiResource, objs: &[&Value], rv: &str, include: IncludeObject) -> Value {
    match &r.custom {
        Some(c) => repel_api::table::custom_table(&c.columns, objs, time::now(), rv, include),
        None => repel_api::table::table(&r.kind, objs, time::now(), rv, include),
    }
}

/// The request's `includeObject` (upstream `asTable`: 400 for a value it does not know).
pub fn include_object(query: &HashMap<String, String>) -> Result<IncludeObject, ApiError> {
    IncludeObject::parse(query.get("includeObject").map_or("", String::as_str))
        .map_err(|m| ApiError::from(status::bad_request(&m)))
}

/// A custom object as `r`'s version shows it: the CRD's conversion is `None`, which changes
/// only the `apiVersion` (a built-in object is returned as it is).
pub fn at_version(r: &ApiResource, mut obj: Value) -> Value {
    if r.is_custom() && obj.is_object() {
        obj["apiVersion"] = json!(r.api_version());
    }
    obj
}

/// A custom object as it is stored: at the CRD's storage version.
pub(crate) fn for_storage(r: &ApiResource, mut obj: Value) -> Value {
    if let Some(c) = &r.custom
        && obj.is_object()
    {
        obj["apiVersion"] = json!(format!("{}/{}", r.group, c.storage_version));
    }
    obj
}

/// Who a write is recorded under in `managedFields`: `fieldManager`, else the user agent's
/// product (upstream `prefixFromUserAgent`).
pub(crate) fn manager_of(query: &HashMap<String, String>, headers: &HeaderMap) -> String {
    match query.get("fieldManager").filter(|m| !m.is_empty()) {
        Some(m) => m.clone(),
        None => repel_api::managed::manager_from_user_agent(
            headers
                .get(header::USER_AGENT)
                .and_then(|v| v.to_str().ok())
                .unwrap_or(""),
        ),
    }
}

/// Sets `obj`'s managedFields after a non-apply write from `old` (none: a create).
pub(crate) fn track_update(
    r: &ApiResource,
    old: Option<&Value>,
    obj: &mut Value,
    manager: &str,
    sub: Option<&str>,
) {
    let api_version = r.api_version();
    let time = time::now_rfc3339();
    let w = repel_api::managed::Writer {
        manager,
        apply: false,
        api_version: &api_version,
        subresource: sub.unwrap_or(""),
        time: &time,
    };
    let mf = repel_api::managed::after_update(&r.kind, r.is_custom(), old, obj, &w);
    if obj.is_object() {
        if mf.is_empty() {
            if let Some(m) = obj["metadata"].as_object_mut() {
                m.shift_remove("managedFields");
            }
        } else {
            obj["metadata"]["managedFields"] = Value::Array(mf);
        }
    }
}

/// Dispatches a request on a resource path. A write to CustomResourceDefinitions changes
/// what is served at once.
pub async fn handle(
    app: Arc<App>,
    method: Method,
    t: Target,
    query: (HashMap<String, String>, Vec<(String, String)>),
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response, ApiError> {
    let crds = t.resource.key() == "customresourcedefinitions" && method != Method::GET;
    let mut warnings = Vec::new();
    let reply = handle_resource(app.clone(), method, t, query, headers, body, &mut warnings).await;
    if crds {
        app.sync_crds();
    }
    // Warnings go with the reply, a success or a failure, as upstream's warning recorder sends
    // them.
    let mut reply = match reply {
        Ok(r) => r,
        Err(e) => axum::response::IntoResponse::into_response(e),
    };
    for w in &warnings {
        if let Ok(v) = header::HeaderValue::from_str(&warning_header(w)) {
            reply.headers_mut().append(header::WARNING, v);
        }
    }
    Ok(reply)
}

/// A `Warning` header's value as kube-apiserver writes one: code 299, agent `-`, the text
/// quoted with `"` and `\` escaped.
pub fn warning_header(text: &str) -> String {
    let escaped = text.replace('\\', "\\\\").replace('"', "\\\"");
    format!("299 - \"{escaped}\"")
}

/// Runs the ValidatingAdmissionPolicies bound to something on one write ([`crate::policy`]):
/// `Err` is the denial; the warnings of `Warn` bindings join `warnings`.
#[allow(clippy::too_many_arguments)]
pub(crate) fn validating_admission(
    gate: Option<&crate::policy::Gate>,
    r: &ApiResource,
    operation: &str,
    sub: Option<&str>,
    ns: &str,
    object: Option<&Value>,
    old: Option<&Value>,
    dry_run: bool,
    warnings: &mut Vec<String>,
) -> Result<(), ApiError> {
    let Some(gate) = gate else {
        return Ok(());
    };
    let name = object
        .or(old)
        .and_then(|o| o["metadata"]["name"].as_str())
        .unwrap_or("");
    let a = crate::policy::Attributes {
        operation,
        resource: r,
        subresource: sub.unwrap_or(""),
        namespace: if r.namespaced { ns } else { "" },
        name,
        object,
        old,
        namespace_object: &gate.namespace,
        dry_run,
    };
    gate.admit_into(&a, warnings)
}

/// An update's way into storage, shared by `PUT` and `PATCH` (upstream's update and patch
/// handlers both end in `rest.Update`'s admission chain): mutating admission of `new` over
/// `cur`, managed fields, then the ValidatingAdmissionPolicies of `gate`; returns the object to
/// store.
#[allow(clippy::too_many_arguments)]
pub(crate) fn admit_update(
    c: &Call,
    gate: Option<&crate::policy::Gate>,
    cur: &Value,
    new: Value,
    query: &HashMap<String, String>,
    manager: &str,
    dry_run: bool,
    warnings: &mut Vec<String>,
) -> Result<Value, WriteError> {
    let (r, sub) = (c.r, c.t.sub.as_deref());
    let ns = c.ns().unwrap_or("");
    let mut admitted = c.app.admission.update(r, cur, new, sub, query)?;
    track_update(r, Some(cur), &mut admitted, manager, sub);
    validating_admission(
        gate,
        r,
        "UPDATE",
        sub,
        ns,
        Some(&admitted),
        Some(cur),
        dry_run,
        warnings,
    )?;
    Ok(for_storage(r, admitted))
}

/// The policies a write to `r` in `ns` meets (none for admission configuration itself).
pub(crate) fn policy_gate(app: &App, r: &ApiResource, ns: &str) -> Option<crate::policy::Gate> {
    if crate::policy::exempt(r) {
        return None;
    }
    crate::policy::Gate::load(&app.store, if r.namespaced { ns } else { "" })
}

/// One request on a resource path, as each verb reads it.
pub struct Call<'a> {
    /// The server.
    pub app: &'a Arc<App>,
    /// The path: resource, namespace, name, subresource.
    pub t: &'a Target,
    /// The resource.
    pub r: &'a ApiResource,
    /// The query, by name.
    pub query: &'a HashMap<String, String>,
    /// The query as sent (repeated parameters kept).
    pub raw: &'a [(String, String)],
    /// The request's headers.
    pub headers: &'a HeaderMap,
    /// The request's body.
    pub body: &'a Bytes,
    /// Whether the reply is protobuf (the client prefers it and the kind has a message).
    pub pb: bool,
}

impl Call<'_> {
    /// The namespace in the path, if any.
    pub fn ns(&self) -> Option<&str> {
        self.t.namespace.as_deref()
    }

    /// An object in reply, JSON or protobuf as the client asks.
    pub fn reply(&self, code: u16, v: &Value) -> Response {
        body::object_reply(self.pb, code, v)
    }

    /// The write options of the query (`dryRun`, `fieldManager`, …).
    pub fn write_opts(
        &self,
        kind: &str,
        apply: Option<bool>,
    ) -> Result<crate::query::WriteOptions, ApiError> {
        crate::query::write_options(kind, self.raw, self.query, apply)
    }
}

async fn handle_resource(
    app: Arc<App>,
    method: Method,
    t: Target,
    (query, raw): (HashMap<String, String>, Vec<(String, String)>),
    headers: HeaderMap,
    body: Bytes,
    warnings: &mut Vec<String>,
) -> Result<Response, ApiError> {
    let r = t.resource.clone();
    let c = Call {
        app: &app,
        t: &t,
        r: &r,
        query: &query,
        raw: &raw,
        headers: &headers,
        body: &body,
        pb: crate::proto::preferred(body::accept(&headers)) && !r.is_custom(),
    };
    match (&method, t.name.as_deref(), t.sub.as_deref()) {
        (&Method::GET, None, None) => get::list_or_watch(&c),
        (&Method::GET, Some(name), None | Some("status")) => get::get(&c, name),
        (&Method::POST, None, None) => create::create(&c, warnings),
        (&Method::PUT, Some(name), None | Some("status")) => update::update(&c, name, warnings),
        (&Method::PATCH, Some(name), None | Some("status")) => patch::patch(&c, name, warnings),
        (&Method::GET, Some(name), Some("scale")) => scale::get(&c, name),
        (&Method::PATCH | &Method::PUT, Some(name), Some("scale")) => {
            scale::write(&c, name, method == Method::PUT)
        }
        (&Method::DELETE, Some(name), None) => delete::delete_one(&c, name, warnings),
        (&Method::DELETE, None, None) => delete::delete_collection(&c),
        (&Method::POST, Some(name), Some("eviction")) => binding::evict(&c, name),
        (&Method::POST, Some(name), Some("binding")) => binding::binding(&c, name),
        _ => Err(status::method_not_allowed().into()),
    }
}

/// Upstream `checkName` on an update or a patch: the object is not renamed or moved by it —
/// 400 `the name of the object (a) does not match the name on the URL (b)`.
pub(crate) fn check_name(obj: &Value, name: &str, ns: &str) -> Result<(), ApiError> {
    let obj_name = obj["metadata"]["name"].as_str().unwrap_or("");
    if obj_name != name {
        return Err(status::bad_request(&format!(
            "the name of the object ({obj_name}) does not match the name on the URL ({name})"
        ))
        .into());
    }
    let obj_ns = obj["metadata"]["namespace"].as_str().unwrap_or("");
    if !ns.is_empty() && !obj_ns.is_empty() && obj_ns != ns {
        return Err(status::bad_request(&format!(
            "the namespace of the object ({obj_ns}) does not match the namespace on the URL ({ns})"
        ))
        .into());
    }
    Ok(())
}
