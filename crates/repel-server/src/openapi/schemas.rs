//! The schemas of the built-in kinds, generated once per group version from k8s-openapi's
//! `schemars` impls (whose descriptions are upstream's field documentation), named as
//! kube-apiserver names them (`io.k8s.api.core.v1.Pod`) and shaped as its OpenAPI v3 is:
//! `$ref: "#/components/schemas/…"`, a reference with a description wrapped in `allOf`.

use std::sync::OnceLock;

use k8s_openapi::api::{
    admissionregistration, apps, autoscaling, batch, coordination, core, networking, policy, rbac,
    scheduling, storage,
};
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use k8s_openapi::schemars::JsonSchema;
use k8s_openapi::schemars::generate::{SchemaGenerator, SchemaSettings};
use serde_json::{Map, Value, json};

use super::extensions;

/// Adds a type's schema (and every schema it refers to) to the generator's definitions and
/// returns its name there.
type Generate = fn(&mut SchemaGenerator) -> String;

fn add<T: JsonSchema>(g: &mut SchemaGenerator) -> String {
    g.subschema_for::<T>();
    T::schema_name().into_owned()
}

/// A kind whose schema is served: group, version, kind, and how to generate it. Besides the
/// built-in resources, the kinds of their subresources in a served group version (`Binding`,
/// `Eviction`), as upstream's documents carry them.
pub struct Kind {
    /// API group ("" for core).
    pub group: &'static str,
    /// Version.
    pub version: &'static str,
    /// Kind.
    pub kind: &'static str,
    generate: Generate,
}

const fn k(
    group: &'static str,
    version: &'static str,
    kind: &'static str,
    generate: Generate,
) -> Kind {
    Kind {
        group,
        version,
        kind,
        generate,
    }
}

/// Every kind with a schema, by group version.
pub static KINDS: &[Kind] = &[
    k("", "v1", "Binding", add::<core::v1::Binding>),
    k("", "v1", "ConfigMap", add::<core::v1::ConfigMap>),
    k("", "v1", "Event", add::<core::v1::Event>),
    k("", "v1", "Namespace", add::<core::v1::Namespace>),
    k("", "v1", "Node", add::<core::v1::Node>),
    k(
        "",
        "v1",
        "PersistentVolumeClaim",
        add::<core::v1::PersistentVolumeClaim>,
    ),
    k("", "v1", "LimitRange", add::<core::v1::LimitRange>),
    k("", "v1", "Pod", add::<core::v1::Pod>),
    k(
        "",
        "v1",
        "ReplicationController",
        add::<core::v1::ReplicationController>,
    ),
    k("", "v1", "ResourceQuota", add::<core::v1::ResourceQuota>),
    k("", "v1", "Secret", add::<core::v1::Secret>),
    k("", "v1", "Service", add::<core::v1::Service>),
    k("", "v1", "ServiceAccount", add::<core::v1::ServiceAccount>),
    k(
        "admissionregistration.k8s.io",
        "v1",
        "MutatingWebhookConfiguration",
        add::<admissionregistration::v1::MutatingWebhookConfiguration>,
    ),
    k(
        "admissionregistration.k8s.io",
        "v1",
        "ValidatingWebhookConfiguration",
        add::<admissionregistration::v1::ValidatingWebhookConfiguration>,
    ),
    k(
        "admissionregistration.k8s.io",
        "v1",
        "ValidatingAdmissionPolicy",
        add::<admissionregistration::v1::ValidatingAdmissionPolicy>,
    ),
    k(
        "admissionregistration.k8s.io",
        "v1",
        "ValidatingAdmissionPolicyBinding",
        add::<admissionregistration::v1::ValidatingAdmissionPolicyBinding>,
    ),
    k(
        "apiextensions.k8s.io",
        "v1",
        "CustomResourceDefinition",
        add::<apiextensions::v1::CustomResourceDefinition>,
    ),
    k(
        "apps",
        "v1",
        "ControllerRevision",
        add::<apps::v1::ControllerRevision>,
    ),
    k("apps", "v1", "DaemonSet", add::<apps::v1::DaemonSet>),
    k("apps", "v1", "Deployment", add::<apps::v1::Deployment>),
    k("apps", "v1", "ReplicaSet", add::<apps::v1::ReplicaSet>),
    k("apps", "v1", "StatefulSet", add::<apps::v1::StatefulSet>),
    k(
        "autoscaling",
        "v2",
        "HorizontalPodAutoscaler",
        add::<autoscaling::v2::HorizontalPodAutoscaler>,
    ),
    k("batch", "v1", "CronJob", add::<batch::v1::CronJob>),
    k("batch", "v1", "Job", add::<batch::v1::Job>),
    k(
        "coordination.k8s.io",
        "v1",
        "Lease",
        add::<coordination::v1::Lease>,
    ),
    k(
        "networking.k8s.io",
        "v1",
        "Ingress",
        add::<networking::v1::Ingress>,
    ),
    k(
        "networking.k8s.io",
        "v1",
        "IngressClass",
        add::<networking::v1::IngressClass>,
    ),
    k("policy", "v1", "Eviction", add::<policy::v1::Eviction>),
    k(
        "policy",
        "v1",
        "PodDisruptionBudget",
        add::<policy::v1::PodDisruptionBudget>,
    ),
    k(
        "rbac.authorization.k8s.io",
        "v1",
        "ClusterRole",
        add::<rbac::v1::ClusterRole>,
    ),
    k(
        "rbac.authorization.k8s.io",
        "v1",
        "ClusterRoleBinding",
        add::<rbac::v1::ClusterRoleBinding>,
    ),
    k(
        "rbac.authorization.k8s.io",
        "v1",
        "Role",
        add::<rbac::v1::Role>,
    ),
    k(
        "rbac.authorization.k8s.io",
        "v1",
        "RoleBinding",
        add::<rbac::v1::RoleBinding>,
    ),
    k(
        "scheduling.k8s.io",
        "v1",
        "PriorityClass",
        add::<scheduling::v1::PriorityClass>,
    ),
    k(
        "storage.k8s.io",
        "v1",
        "StorageClass",
        add::<storage::v1::StorageClass>,
    ),
];

/// ObjectMeta's schema's name.
pub const OBJECT_META: &str = "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta";

/// The `apiVersion`, `kind` and `metadata` properties every object has, with upstream's
/// descriptions (Pod's), generated once.
pub fn object_properties() -> &'static [(&'static str, Value)] {
    static PROPERTIES: OnceLock<Vec<(&'static str, Value)>> = OnceLock::new();
    PROPERTIES.get_or_init(|| {
        let mut g = generator();
        let pod = add::<core::v1::Pod>(&mut g);
        let props = g
            .take_definitions(true)
            .get(&pod)
            .and_then(|p| p.get("properties"))
            .cloned()
            .unwrap_or_default();
        ["apiVersion", "kind", "metadata"]
            .into_iter()
            .filter_map(|name| Some((name, props.get(name)?.clone())))
            .collect()
    })
}

fn generator() -> SchemaGenerator {
    SchemaSettings::openapi3()
        .with(|s| s.meta_schema = None)
        .into_generator()
}

/// ObjectMeta's schema and those it refers to: what a custom resource's `metadata` names.
pub fn object_meta() -> &'static Map<String, Value> {
    static META: OnceLock<Map<String, Value>> = OnceLock::new();
    META.get_or_init(|| {
        let mut g = generator();
        let _ = add::<ObjectMeta>(&mut g);
        finish(g, &[])
    })
}

/// `components.schemas` of a group version's built-in kinds, sorted by name; empty for a group
/// version without any. Generated anew on each call (the caller keeps what it serves): the
/// documents served are kept serialized, not as values, which take several times the memory.
pub fn builtin(group: &str, version: &str) -> Map<String, Value> {
    let mut g = generator();
    let tops: Vec<(String, &Kind)> = KINDS
        .iter()
        .filter(|k| k.group == group && k.version == version)
        .map(|k| ((k.generate)(&mut g), k))
        .collect();
    finish(g, &tops)
}

fn finish(mut g: SchemaGenerator, tops: &[(String, &Kind)]) -> Map<String, Value> {
    let mut defs = g.take_definitions(true);
    for (name, kind) in tops {
        if let Some(Value::Object(s)) = defs.get_mut(name) {
            // k8s-openapi requires a resource's metadata; upstream's schemas do not.
            if let Some(Value::Array(required)) = s.get_mut("required") {
                required.retain(|r| r != "metadata");
                if required.is_empty() {
                    s.remove("required");
                }
            }
            s.insert(
                "x-kubernetes-group-version-kind".into(),
                json!([{"group": kind.group, "kind": kind.kind, "version": kind.version}]),
            );
        }
    }
    extensions::apply(&mut defs);
    defs.sort_keys();
    defs
}
