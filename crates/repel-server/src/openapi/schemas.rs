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
use repel_core::kinds::{self, ResourceKind};
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

/// A built-in resource's kind, named by [`kinds`].
const fn k(names: &'static ResourceKind, generate: Generate) -> Kind {
    sub(names.group, names.version, names.kind, generate)
}

/// The kind of a subresource (`Binding`, `Eviction`), which [`kinds`] does not list.
const fn sub(
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
    sub("", "v1", "Binding", add::<core::v1::Binding>),
    k(&kinds::CONFIG_MAP, add::<core::v1::ConfigMap>),
    k(&kinds::EVENT, add::<core::v1::Event>),
    k(&kinds::NAMESPACE, add::<core::v1::Namespace>),
    k(&kinds::NODE, add::<core::v1::Node>),
    k(
        &kinds::PERSISTENT_VOLUME_CLAIM,
        add::<core::v1::PersistentVolumeClaim>,
    ),
    k(&kinds::LIMIT_RANGE, add::<core::v1::LimitRange>),
    k(&kinds::POD, add::<core::v1::Pod>),
    k(
        &kinds::REPLICATION_CONTROLLER,
        add::<core::v1::ReplicationController>,
    ),
    k(&kinds::RESOURCE_QUOTA, add::<core::v1::ResourceQuota>),
    k(&kinds::SECRET, add::<core::v1::Secret>),
    k(&kinds::SERVICE, add::<core::v1::Service>),
    k(&kinds::SERVICE_ACCOUNT, add::<core::v1::ServiceAccount>),
    k(
        &kinds::MUTATING_WEBHOOK_CONFIGURATION,
        add::<admissionregistration::v1::MutatingWebhookConfiguration>,
    ),
    k(
        &kinds::VALIDATING_WEBHOOK_CONFIGURATION,
        add::<admissionregistration::v1::ValidatingWebhookConfiguration>,
    ),
    k(
        &kinds::VALIDATING_ADMISSION_POLICY,
        add::<admissionregistration::v1::ValidatingAdmissionPolicy>,
    ),
    k(
        &kinds::VALIDATING_ADMISSION_POLICY_BINDING,
        add::<admissionregistration::v1::ValidatingAdmissionPolicyBinding>,
    ),
    k(
        &kinds::CUSTOM_RESOURCE_DEFINITION,
        add::<apiextensions::v1::CustomResourceDefinition>,
    ),
    k(
        &kinds::CONTROLLER_REVISION,
        add::<apps::v1::ControllerRevision>,
    ),
    k(&kinds::DAEMON_SET, add::<apps::v1::DaemonSet>),
    k(&kinds::DEPLOYMENT, add::<apps::v1::Deployment>),
    k(&kinds::REPLICA_SET, add::<apps::v1::ReplicaSet>),
    k(&kinds::STATEFUL_SET, add::<apps::v1::StatefulSet>),
    k(
        &kinds::HORIZONTAL_POD_AUTOSCALER,
        add::<autoscaling::v2::HorizontalPodAutoscaler>,
    ),
    k(&kinds::CRON_JOB, add::<batch::v1::CronJob>),
    k(&kinds::JOB, add::<batch::v1::Job>),
    k(&kinds::LEASE, add::<coordination::v1::Lease>),
    k(&kinds::INGRESS, add::<networking::v1::Ingress>),
    k(&kinds::INGRESS_CLASS, add::<networking::v1::IngressClass>),
    sub("policy", "v1", "Eviction", add::<policy::v1::Eviction>),
    k(
        &kinds::POD_DISRUPTION_BUDGET,
        add::<policy::v1::PodDisruptionBudget>,
    ),
    k(&kinds::CLUSTER_ROLE, add::<rbac::v1::ClusterRole>),
    k(
        &kinds::CLUSTER_ROLE_BINDING,
        add::<rbac::v1::ClusterRoleBinding>,
    ),
    k(&kinds::ROLE, add::<rbac::v1::Role>),
    k(&kinds::ROLE_BINDING, add::<rbac::v1::RoleBinding>),
    k(&kinds::PRIORITY_CLASS, add::<scheduling::v1::PriorityClass>),
    k(&kinds::STORAGE_CLASS, add::<storage::v1::StorageClass>),
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
