//! What kube-apiserver does to an object between decoding and storage, for the kinds served:
//! strict field checks, decoding into the typed object (unknown fields dropped, as with
//! `fieldValidation=Ignore`), defaulting and admission (repel-core: DefaultTolerationSeconds,
//! PodTolerationRestriction with namespace annotations, Priority, TaintNodesByCondition, and
//! ExtendedResourceToleration when enabled) and validation (422 with repel-core's field errors).

use std::collections::HashMap;

use k8s_openapi::api::core::v1::{Namespace, Node, Pod, Taint};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use k8s_openapi::serde::Serialize;
use k8s_openapi::serde::de::DeserializeOwned;
use repel_api::status;
use repel_core::FeatureGates;
use repel_core::admission::{AdmissionConfig, CreatePodError, create_pod};
use repel_core::defaults::taint_nodes_by_condition;
use repel_core::validation::{
    FieldError, ValidationOptions, meta, validate_node, validate_only_added_tolerations,
};
use serde_json::{Value, json};

use crate::registry::ApiResource;
use crate::request::ApiError;
use crate::store::Store;

/// The admission chain's configuration.
#[derive(Debug, Clone, Default)]
pub struct Admission {
    /// The pod admission plugins.
    pub config: AdmissionConfig,
    /// Feature gates validation evaluates with.
    pub gates: FeatureGates,
}

/// Whether the request asked for strict field validation (kubectl's default).
pub fn strict(query: &HashMap<String, String>) -> bool {
    query
        .get("fieldValidation")
        .is_some_and(|v| v.eq_ignore_ascii_case("Strict"))
}

fn roundtrip_as<T: DeserializeOwned + Serialize>(
    r: &ApiResource,
    v: &Value,
) -> Result<Value, ApiError> {
    let typed: T = serde_json::from_value(v.clone()).map_err(|e| {
        ApiError::from(status::bad_request(&format!(
            "{} in version \"{}\" cannot be handled as a {}: {e}",
            r.kind, r.version, r.kind
        )))
    })?;
    serde_json::to_value(typed).map_err(|e| ApiError::from(status::internal_error(&e.to_string())))
}

/// Decodes `v` as the typed object of `r`'s kind and encodes it again: type errors become a
/// 400, unknown fields are dropped.
pub fn roundtrip(r: &ApiResource, v: &Value) -> Result<Value, ApiError> {
    use k8s_openapi::api::{
        admissionregistration, apps, autoscaling, batch, coordination, core, networking, policy,
        rbac, scheduling, storage,
    };
    if r.is_custom() {
        return Ok(v.clone());
    }
    match r.kind.as_str() {
        "Node" => roundtrip_as::<core::v1::Node>(r, v),
        "Pod" => roundtrip_as::<core::v1::Pod>(r, v),
        "Namespace" => roundtrip_as::<core::v1::Namespace>(r, v),
        "Event" => roundtrip_as::<core::v1::Event>(r, v),
        "Deployment" => roundtrip_as::<apps::v1::Deployment>(r, v),
        "ReplicaSet" => roundtrip_as::<apps::v1::ReplicaSet>(r, v),
        "ReplicationController" => roundtrip_as::<core::v1::ReplicationController>(r, v),
        "StatefulSet" => roundtrip_as::<apps::v1::StatefulSet>(r, v),
        "DaemonSet" => roundtrip_as::<apps::v1::DaemonSet>(r, v),
        "Job" => roundtrip_as::<batch::v1::Job>(r, v),
        "PodDisruptionBudget" => roundtrip_as::<policy::v1::PodDisruptionBudget>(r, v),
        "Lease" => roundtrip_as::<coordination::v1::Lease>(r, v),
        "PriorityClass" => roundtrip_as::<scheduling::v1::PriorityClass>(r, v),
        "CronJob" => roundtrip_as::<batch::v1::CronJob>(r, v),
        "Service" => roundtrip_as::<core::v1::Service>(r, v),
        "ConfigMap" => roundtrip_as::<core::v1::ConfigMap>(r, v),
        "Secret" => roundtrip_as::<core::v1::Secret>(r, v),
        "ServiceAccount" => roundtrip_as::<core::v1::ServiceAccount>(r, v),
        "PersistentVolumeClaim" => roundtrip_as::<core::v1::PersistentVolumeClaim>(r, v),
        "StorageClass" => roundtrip_as::<storage::v1::StorageClass>(r, v),
        "Ingress" => roundtrip_as::<networking::v1::Ingress>(r, v),
        "IngressClass" => roundtrip_as::<networking::v1::IngressClass>(r, v),
        "ValidatingWebhookConfiguration" => {
            roundtrip_as::<admissionregistration::v1::ValidatingWebhookConfiguration>(r, v)
        }
        "MutatingWebhookConfiguration" => {
            roundtrip_as::<admissionregistration::v1::MutatingWebhookConfiguration>(r, v)
        }
        "ValidatingAdmissionPolicy" => {
            roundtrip_as::<admissionregistration::v1::ValidatingAdmissionPolicy>(r, v)
        }
        "ValidatingAdmissionPolicyBinding" => {
            roundtrip_as::<admissionregistration::v1::ValidatingAdmissionPolicyBinding>(r, v)
        }
        "HorizontalPodAutoscaler" => roundtrip_as::<autoscaling::v2::HorizontalPodAutoscaler>(r, v),
        "Role" => roundtrip_as::<rbac::v1::Role>(r, v),
        "RoleBinding" => roundtrip_as::<rbac::v1::RoleBinding>(r, v),
        "ClusterRole" => roundtrip_as::<rbac::v1::ClusterRole>(r, v),
        "ClusterRoleBinding" => roundtrip_as::<rbac::v1::ClusterRoleBinding>(r, v),
        "ResourceQuota" => roundtrip_as::<core::v1::ResourceQuota>(r, v),
        "LimitRange" => roundtrip_as::<core::v1::LimitRange>(r, v),
        "ControllerRevision" => roundtrip_as::<apps::v1::ControllerRevision>(r, v),
        _ => Ok(v.clone()),
    }
}

fn invalid(r: &ApiResource, name: &str, errors: &[FieldError]) -> ApiError {
    status::invalid(&r.qualified_kind(), name, errors).into()
}

fn check_strict(
    r: &ApiResource,
    obj: &Value,
    query: &HashMap<String, String>,
) -> Result<(), ApiError> {
    if strict(query) && !r.is_custom() {
        let unknown = repel_api::strict::unknown_fields(&r.kind, obj);
        if !unknown.is_empty() {
            return Err(status::strict_unknown_fields(&r.kind, &unknown).into());
        }
    }
    Ok(())
}

fn generate_suffix() -> String {
    // Upstream's alphabet for generateName suffixes (no vowels, no confusable digits).
    const ALPHABET: &[u8] = b"bcdfghjklmnpqrstvwxz2456789";
    let uid = crate::store::new_uid();
    uid.bytes()
        .filter(|b| b.is_ascii_hexdigit())
        .take(5)
        .map(|b| ALPHABET[(b as usize * 7) % ALPHABET.len()] as char)
        .collect()
}

impl Admission {
    /// Admits a new object for `POST` to `r` (in `namespace`, for namespaced resources).
    pub fn create(
        &self,
        store: &Store,
        r: &ApiResource,
        namespace: Option<&str>,
        obj: Value,
        query: &HashMap<String, String>,
    ) -> Result<Value, ApiError> {
        self.create_restored(store, r, namespace, obj, query, None)
    }

    /// [`Admission::create`] of an object restored from a starting cluster, which keeps `uid`
    /// (a client's uid is dropped, as upstream drops it; a restored one is the object's
    /// identity, which its dependents' `ownerReferences` and a Job's selector name).
    pub fn create_restored(
        &self,
        store: &Store,
        r: &ApiResource,
        namespace: Option<&str>,
        mut obj: Value,
        query: &HashMap<String, String>,
        uid: Option<&str>,
    ) -> Result<Value, ApiError> {
        if !obj.is_object() {
            return Err(
                status::bad_request("the body of the request was not a JSON object").into(),
            );
        }
        check_kind(r, &mut obj)?;
        if !obj["metadata"].is_object() {
            obj["metadata"] = json!({});
        }
        if r.namespaced {
            let ns = namespace.unwrap_or("default");
            match obj["metadata"]["namespace"].as_str() {
                Some(given) if !given.is_empty() && given != ns => {
                    return Err(status::bad_request(
                        "the namespace of the provided object does not match the namespace sent on the request",
                    )
                    .into());
                }
                _ => obj["metadata"]["namespace"] = json!(ns),
            }
            if store.get("namespaces", "", ns).is_none() {
                return Err(status::not_found("namespaces", ns).into());
            }
        } else if let Some(m) = obj["metadata"].as_object_mut() {
            m.remove("namespace");
        }
        let name = obj["metadata"]["name"].as_str().unwrap_or("").to_string();
        if name.is_empty() {
            match obj["metadata"]["generateName"].as_str() {
                Some(g) if !g.is_empty() => {
                    obj["metadata"]["name"] = json!(meta::generated_name(g, &generate_suffix()));
                }
                _ => {
                    return Err(invalid(
                        r,
                        "",
                        &[FieldError::required(
                            "metadata.name",
                            "name or generateName is required",
                        )],
                    ));
                }
            }
        }
        check_strict(r, &obj, query)?;
        for f in ["uid", "resourceVersion", "deletionTimestamp", "selfLink"] {
            if let Some(m) = obj["metadata"].as_object_mut() {
                m.remove(f);
            }
        }
        if let Some(u) = uid.filter(|u| !u.is_empty()) {
            obj["metadata"]["uid"] = json!(u);
        }
        let mut obj = roundtrip(r, &obj)?;
        if tracks_generation(r) {
            obj["metadata"]["generation"] = json!(1);
        }
        if r.is_custom() {
            return custom_create(r, obj);
        }
        let name = obj["metadata"]["name"].as_str().unwrap_or("").to_string();
        let object_meta: ObjectMeta = typed_meta(r, &obj)?;
        let class = (r.kind == "PriorityClass" && !r.is_custom()).then(|| {
            (
                obj["value"]
                    .as_i64()
                    .and_then(|v| i32::try_from(v).ok())
                    .unwrap_or(0),
                obj["globalDefault"].as_bool().unwrap_or(false),
            )
        });
        // The strategy's metadata errors come first in the kind's own validation.
        let mut errors = meta::strategy_errors(&r.kind, &object_meta, r.namespaced, class);
        match r.kind.as_str() {
            "Pod" => {
                let mut pod: Pod = typed(r, &obj)?;
                let config = self.pod_config(store);
                self.admit_pod(store, r, &config, &mut pod, &mut errors)?;
                obj = to_value(&pod)?;
                crate::defaults::pod_spec(&mut obj["spec"], true);
                if obj["status"]["phase"].is_null() {
                    obj["status"]["phase"] = json!("Pending");
                }
            }
            "Node" => {
                let mut node: Node = typed(r, &obj)?;
                taint_nodes_by_condition(&mut node);
                errors.extend(validate_node(&node));
                if !errors.is_empty() {
                    return Err(invalid(r, &name, &errors));
                }
                // No `timeAdded` is set here: kube-apiserver stores taints as sent (a taint
                // `kubectl taint` adds has none, kubernetes#98482); only the node-lifecycle
                // controller stamps the taints it adds.
                obj = to_value(&node)?;
            }
            "Namespace" => {
                obj["status"] = json!({"phase": "Active"});
                crate::defaults::namespace(&mut obj);
            }
            "Service" if errors.is_empty() => crate::defaults::service(store, &mut obj)?,
            "Secret" => crate::defaults::secret(&mut obj),
            "PersistentVolumeClaim" => crate::defaults::pvc(&mut obj),
            "StorageClass" => crate::defaults::storage_class(&mut obj),
            "HorizontalPodAutoscaler" => crate::defaults::hpa(&mut obj),
            "Deployment"
            | "ReplicaSet"
            | "ReplicationController"
            | "StatefulSet"
            | "DaemonSet"
            | "Job"
            | "CronJob" => {
                crate::defaults::workload(&r.kind, &mut obj);
                if r.kind == "Job" {
                    // The handler fills the uid before the strategy's PrepareForCreate, whose
                    // generated selector names it.
                    if obj["metadata"]["uid"].as_str().is_none_or(str::is_empty) {
                        obj["metadata"]["uid"] = json!(crate::store::new_uid());
                    }
                    crate::defaults::job_selector(&mut obj);
                }
                errors.extend(crate::workloads::validate(&r.kind, &obj, None));
            }
            "PriorityClass" => crate::defaults::priority_class(&mut obj),
            "LimitRange" => crate::defaults::limit_range(&mut obj),
            "CustomResourceDefinition" => {
                crate::crd::set_defaults(&mut obj);
                errors = crate::crd::validate_create(&obj);
                crate::crd::prepare(&mut obj, true);
            }
            "ValidatingAdmissionPolicy" => {
                crate::policy::validation::set_policy_defaults(&mut obj);
                errors.extend(crate::policy::validation::validate_policy(&obj));
            }
            "ValidatingAdmissionPolicyBinding" => {
                crate::policy::validation::set_binding_defaults(&mut obj);
                errors.extend(crate::policy::validation::validate_binding(&obj));
            }
            _ => {}
        }
        if errors.is_empty() {
            // The generic registry's pass, once the kind's own validation passed.
            errors = meta::generic_errors(&object_meta, r.namespaced);
        }
        if !errors.is_empty() {
            return Err(invalid(r, &name, &errors));
        }
        Ok(obj)
    }

    /// The pod admission plugins' configuration with the stored PriorityClasses (read once
    /// for a batch of creates: see [`Admission::create_pod`]).
    pub fn pod_config(&self, store: &Store) -> AdmissionConfig {
        let mut config = self.config.clone();
        let (classes, _) = store.list("priorityclasses", None);
        config.priority_classes.extend(
            classes
                .into_iter()
                .filter_map(|c| serde_json::from_value(c).ok()),
        );
        config
    }

    /// A pod's admission on create once decoded: defaulting and the admission plugins
    /// (repel-core's `create_pod`, with its namespace's annotations), then validation, whose
    /// errors join the metadata's `errors`.
    fn admit_pod(
        &self,
        store: &Store,
        r: &ApiResource,
        config: &AdmissionConfig,
        pod: &mut Pod,
        errors: &mut Vec<FieldError>,
    ) -> Result<(), ApiError> {
        let ns_obj: Option<Namespace> = pod
            .metadata
            .namespace
            .as_deref()
            .and_then(|ns| store.get("namespaces", "", ns))
            .and_then(|v| serde_json::from_value(v).ok());
        create_pod(pod, ns_obj.as_ref(), config, &self.gates).map_err(|e| match e {
            CreatePodError::Invalid { name, errors: spec } => {
                errors.extend(spec);
                invalid(r, &name, errors)
            }
            CreatePodError::Priority { name, message } => {
                ApiError::from(status::forbidden("pods", &name, &message))
            }
            CreatePodError::Admission(a) => ApiError::from(status::internal_error(&a.to_string())),
        })
    }

    /// Admits a pod the control plane creates — already typed, so not decoded from JSON —
    /// through what [`Admission::create`] does to a `POST`ed Pod: its namespace (`default`
    /// when unset) must exist, server-set metadata is dropped, then the Pod strategy's
    /// metadata checks, [`Admission::admit_pod`] and the generic metadata checks, with the
    /// same errors. `config` is [`Admission::pod_config`]'s. Returns the object to store.
    pub fn create_pod(
        &self,
        store: &Store,
        config: &AdmissionConfig,
        mut pod: Pod,
    ) -> Result<Value, ApiError> {
        let r = crate::registry::find("", "pods")
            .ok_or_else(|| ApiError::from(status::internal_error("pods are not served")))?;
        let ns = pod
            .metadata
            .namespace
            .get_or_insert_with(|| "default".to_string())
            .clone();
        if store.read("namespaces", "", &ns, |_| ()).is_none() {
            return Err(status::not_found("namespaces", &ns).into());
        }
        let name = pod.metadata.name.clone().unwrap_or_default();
        if name.is_empty() {
            return Err(invalid(
                &r,
                "",
                &[FieldError::required(
                    "metadata.name",
                    "name or generateName is required",
                )],
            ));
        }
        pod.metadata.uid = None;
        pod.metadata.resource_version = None;
        pod.metadata.deletion_timestamp = None;
        pod.metadata.self_link = None;
        let mut errors = meta::strategy_errors(&r.kind, &pod.metadata, true, None);
        self.admit_pod(store, &r, config, &mut pod, &mut errors)?;
        if errors.is_empty() {
            errors = meta::generic_errors(&pod.metadata, true);
        }
        if !errors.is_empty() {
            return Err(invalid(&r, &name, &errors));
        }
        let mut obj = to_value(&pod)?;
        crate::defaults::pod_spec(&mut obj["spec"], true);
        if obj["status"]["phase"].is_null() {
            obj["status"]["phase"] = json!("Pending");
        }
        Ok(obj)
    }

    /// Admits the new state of an object for `PUT`/`PATCH` (`sub` = `Some("status")` for the
    /// status subresource: only `status` changes; otherwise `status` is kept from `old`).
    pub fn update(
        &self,
        r: &ApiResource,
        old: &Value,
        mut new: Value,
        sub: Option<&str>,
        query: &HashMap<String, String>,
    ) -> Result<Value, ApiError> {
        if !new.is_object() {
            return Err(
                status::bad_request("the body of the request was not a JSON object").into(),
            );
        }
        check_kind(r, &mut new)?;
        check_strict(r, &new, query)?;
        let mut new = roundtrip(r, &new)?;
        if r.kind == "Secret" && !r.is_custom() {
            crate::defaults::secret(&mut new);
        }
        if !r.is_custom() {
            crate::defaults::workload(&r.kind, &mut new);
            match r.kind.as_str() {
                "Pod" if new["spec"].is_object() => {
                    crate::defaults::pod_spec(&mut new["spec"], true)
                }
                "PriorityClass" => crate::defaults::priority_class(&mut new),
                "Namespace" => crate::defaults::namespace(&mut new),
                "LimitRange" => crate::defaults::limit_range(&mut new),
                "ValidatingAdmissionPolicy" => {
                    crate::policy::validation::set_policy_defaults(&mut new)
                }
                "ValidatingAdmissionPolicyBinding" => {
                    crate::policy::validation::set_binding_defaults(&mut new)
                }
                _ => {}
            }
        }
        let has_status = r.has_sub("status");
        if sub == Some("status") {
            let mut merged = old.clone();
            merged["status"] = new["status"].clone();
            merged["metadata"]["resourceVersion"] = new["metadata"]["resourceVersion"].clone();
            new = merged;
        } else if has_status {
            match old.get("status") {
                Some(s) => new["status"] = s.clone(),
                None => {
                    if let Some(m) = new.as_object_mut() {
                        m.remove("status");
                    }
                }
            }
        }
        // metadata.generation counts spec changes (what `kubectl rollout status` compares).
        if tracks_generation(r) {
            let generation = old["metadata"]["generation"].as_i64().unwrap_or(1);
            let changed = if r.is_custom() {
                // Upstream's custom resource strategy: any change but metadata (and status,
                // when it is a subresource) is a new generation.
                let content = |o: &Value| {
                    let mut o = o.clone();
                    if let Some(m) = o.as_object_mut() {
                        m.remove("metadata");
                        if has_status {
                            m.remove("status");
                        }
                    }
                    o
                };
                content(&new) != content(old)
            } else {
                new.get("spec") != old.get("spec")
            };
            new["metadata"]["generation"] = json!(generation + i64::from(changed));
        }
        let name = new["metadata"]["name"].as_str().unwrap_or("").to_string();
        if r.is_custom() {
            let meta_errors = meta::update_errors(&typed_meta(r, &new)?);
            if !meta_errors.is_empty() {
                return Err(invalid(r, &name, &meta_errors));
            }
            return Ok(new);
        }
        if r.kind == "CustomResourceDefinition" {
            crate::crd::set_defaults(&mut new);
            let errors = crate::crd::validate_update(&new, old);
            if !errors.is_empty() {
                return Err(invalid(r, &name, &errors));
            }
            crate::crd::prepare(&mut new, false);
            return Ok(new);
        }
        let meta_errors = meta::update_errors(&typed_meta(r, &new)?);
        if !meta_errors.is_empty() {
            return Err(invalid(r, &name, &meta_errors));
        }
        // The workload strategies' ValidateUpdate, on the object and its scale (not on a
        // status write, which validates the status only).
        if sub != Some("status") {
            let errors = crate::workloads::validate(&r.kind, &new, Some(old));
            if !errors.is_empty() {
                return Err(invalid(r, &name, &errors));
            }
        }
        match r.kind.as_str() {
            "Node" => {
                let node: Node = typed(r, &new)?;
                let errors = validate_node(&node);
                if !errors.is_empty() {
                    return Err(invalid(r, &name, &errors));
                }
            }
            "Pod" => {
                let old_pod: Pod = typed(r, old)?;
                let new_pod: Pod = typed(r, &new)?;
                let olds = old_pod
                    .spec
                    .as_ref()
                    .and_then(|s| s.tolerations.clone())
                    .unwrap_or_default();
                let news = new_pod
                    .spec
                    .as_ref()
                    .and_then(|s| s.tolerations.clone())
                    .unwrap_or_default();
                let opts = ValidationOptions::for_update(&self.gates, &olds);
                let errors =
                    validate_only_added_tolerations(&olds, &news, "spec.tolerations", &opts);
                if !errors.is_empty() {
                    return Err(invalid(r, &name, &errors));
                }
            }
            "ValidatingAdmissionPolicy" if sub != Some("status") => {
                let errors = crate::policy::validation::validate_policy(&new);
                if !errors.is_empty() {
                    return Err(invalid(r, &name, &errors));
                }
            }
            "ValidatingAdmissionPolicyBinding" => {
                let errors = crate::policy::validation::validate_binding(&new);
                if !errors.is_empty() {
                    return Err(invalid(r, &name, &errors));
                }
            }
            _ => {}
        }
        Ok(new)
    }
}

/// Whether upstream's strategy for the kind counts spec changes in `metadata.generation`.
pub fn tracks_generation(r: &ApiResource) -> bool {
    r.is_custom()
        || matches!(
            r.kind.as_str(),
            "Deployment"
                | "ReplicaSet"
                | "ReplicationController"
                | "StatefulSet"
                | "DaemonSet"
                | "Job"
                | "PodDisruptionBudget"
                | "CustomResourceDefinition"
                | "ValidatingAdmissionPolicy"
                | "ValidatingAdmissionPolicyBinding"
        )
}

/// The custom resource strategy on a create (upstream `customResourceStrategy`, v1.32): the
/// status is dropped when it is a subresource, and the metadata is validated with the
/// DNS-1123 subdomain name rule. The object is not checked against the CRD's schema.
fn custom_create(r: &ApiResource, mut obj: Value) -> Result<Value, ApiError> {
    if r.has_sub("status")
        && let Some(m) = obj.as_object_mut()
    {
        m.remove("status");
    }
    let name = obj["metadata"]["name"].as_str().unwrap_or("").to_string();
    let object_meta = typed_meta(r, &obj)?;
    // Any kind without a rule of its own gets the DNS-1123 subdomain rule.
    let mut errors = meta::strategy_errors("", &object_meta, r.namespaced, None);
    if errors.is_empty() {
        errors = meta::generic_errors(&object_meta, r.namespaced);
    }
    if !errors.is_empty() {
        return Err(invalid(r, &name, &errors));
    }
    Ok(obj)
}

fn check_kind(r: &ApiResource, obj: &mut Value) -> Result<(), ApiError> {
    let want_av = r.api_version();
    match obj["kind"].as_str() {
        None | Some("") => obj["kind"] = json!(r.kind),
        Some(k) if k == r.kind.as_str() => {}
        Some(k) => {
            return Err(status::bad_request(&format!(
                "the kind in the data ({k}) does not match the expected kind ({})",
                r.kind
            ))
            .into());
        }
    }
    match obj["apiVersion"].as_str() {
        None | Some("") => obj["apiVersion"] = json!(want_av),
        Some(av) if av == want_av => {}
        Some(av) => {
            return Err(status::bad_request(&format!(
                "the API version in the data ({av}) does not match the expected API version ({want_av})"
            ))
            .into());
        }
    }
    // apiVersion and kind first, as the API server writes every object (a body may leave them
    // out, or send them last).
    if let Some(m) = obj.as_object_mut() {
        let mut out = serde_json::Map::new();
        for k in ["apiVersion", "kind"] {
            if let Some(v) = m.remove(k) {
                out.insert(k.to_string(), v);
            }
        }
        out.append(m);
        *m = out;
    }
    Ok(())
}

/// The object's metadata, typed (it was decoded as the typed object already, so this fails
/// only on a bug).
fn typed_meta(r: &ApiResource, v: &Value) -> Result<ObjectMeta, ApiError> {
    let m = v.get("metadata").cloned().unwrap_or_else(|| json!({}));
    serde_json::from_value(m).map_err(|e| {
        ApiError::from(status::bad_request(&format!(
            "{} in version \"{}\" cannot be handled as a {}: {e}",
            r.kind, r.version, r.kind
        )))
    })
}

fn typed<T: DeserializeOwned>(r: &ApiResource, v: &Value) -> Result<T, ApiError> {
    serde_json::from_value(v.clone()).map_err(|e| {
        ApiError::from(status::bad_request(&format!(
            "{} in version \"{}\" cannot be handled as a {}: {e}",
            r.kind, r.version, r.kind
        )))
    })
}

fn to_value<T: Serialize>(t: &T) -> Result<Value, ApiError> {
    serde_json::to_value(t).map_err(|e| ApiError::from(status::internal_error(&e.to_string())))
}

/// Whether two taints are the same taint (key, value, effect).
pub fn same_taint(a: &Taint, b: &Taint) -> bool {
    a.key == b.key && a.value == b.value && a.effect == b.effect
}

#[cfg(test)]
mod tests;
