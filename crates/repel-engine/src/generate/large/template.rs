//! The `large-workloads` shape's Deployments: a pool's toleration and node selection,
//! requests, spread and priority.

use std::collections::BTreeMap;

use k8s_openapi::api::apps::v1::{Deployment, DeploymentSpec};
use k8s_openapi::api::core::v1::{
    Affinity, Container, NodeAffinity, NodeSelectorTerm, PodSpec, PodTemplateSpec,
    PreferredSchedulingTerm, ResourceRequirements,
};
use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use repel_core::workload::Workload;

use super::pools::{ACCELERATOR_LABEL, LIFECYCLE_KEY, NODEGROUP_LABEL, Pool};
use crate::generate::nodes::{
    CRITICAL_ADDONS_ONLY, GPU_RESOURCE, HOSTNAME_LABEL, ZONE_LABEL, cpu, mem,
};
use crate::generate::workloads::{
    Spread, app_labels, bench_tolerations, meta, required_affinity, requirement, selector, spread,
    toleration,
};

/// What one Deployment's pods ask for.
pub(super) struct PodTemplate<'a> {
    pub(super) app: &'a str,
    pub(super) pool: Pool,
    pub(super) cpu_m: u64,
    pub(super) mem_mi: u64,
    pub(super) spread: Spread,
    pub(super) priority: Option<&'static str>,
    /// Spot pool: required node affinity (else only preferred).
    pub(super) required_spot: bool,
    pub(super) bench_taints: usize,
    pub(super) tolerate_prefer: bool,
}

/// A Deployment of `replicas` pods from `p`.
pub(super) fn deployment(
    name: &str,
    namespace: &str,
    replicas: usize,
    p: &PodTemplate<'_>,
) -> Workload {
    let mut tolerations = Vec::new();
    let mut node_selector = BTreeMap::new();
    let mut affinity = None;
    match p.pool {
        Pool::General => {}
        Pool::System => {
            tolerations.push(toleration(CRITICAL_ADDONS_ONLY, "Exists", None, None));
            node_selector.insert(NODEGROUP_LABEL.to_string(), Pool::System.name().into());
        }
        Pool::Gpu => {
            tolerations.push(toleration(GPU_RESOURCE, "Exists", None, Some("NoSchedule")));
            node_selector.insert(ACCELERATOR_LABEL.to_string(), "nvidia-tesla-v100".into());
        }
        Pool::Spot => {
            tolerations.push(toleration(
                LIFECYCLE_KEY,
                "Equal",
                Some("spot"),
                Some("NoSchedule"),
            ));
            let req = requirement(LIFECYCLE_KEY, "In", &["spot".to_string()]);
            affinity = Some(if p.required_spot {
                required_affinity(req)
            } else {
                Affinity {
                    node_affinity: Some(NodeAffinity {
                        preferred_during_scheduling_ignored_during_execution: Some(vec![
                            PreferredSchedulingTerm {
                                weight: 100,
                                preference: NodeSelectorTerm {
                                    match_expressions: Some(vec![req]),
                                    match_fields: None,
                                },
                            },
                        ]),
                        required_during_scheduling_ignored_during_execution: None,
                    }),
                    ..Default::default()
                }
            });
        }
    }
    tolerations.extend(bench_tolerations(p.bench_taints, p.tolerate_prefer));
    let constraints = match p.spread {
        Spread::None => None,
        Spread::Soft => Some(vec![
            spread(ZONE_LABEL, "ScheduleAnyway", p.app),
            spread(HOSTNAME_LABEL, "ScheduleAnyway", p.app),
        ]),
        Spread::Hard => Some(vec![spread(ZONE_LABEL, "DoNotSchedule", p.app)]),
    };
    let mut requests = BTreeMap::from([
        ("cpu".to_string(), cpu(p.cpu_m)),
        ("memory".to_string(), mem(p.mem_mi)),
    ]);
    let mut limits = BTreeMap::from([("memory".to_string(), mem(p.mem_mi))]);
    if p.pool == Pool::Gpu {
        requests.insert(GPU_RESOURCE.to_string(), Quantity("1".to_string()));
        limits.insert(GPU_RESOURCE.to_string(), Quantity("1".to_string()));
    }
    let template = PodTemplateSpec {
        metadata: Some(ObjectMeta {
            labels: Some(app_labels(p.app)),
            ..Default::default()
        }),
        spec: Some(PodSpec {
            containers: vec![Container {
                name: "app".to_string(),
                image: Some(format!("registry.example/{}:2.3", p.app)),
                resources: Some(ResourceRequirements {
                    requests: Some(requests),
                    limits: Some(limits),
                    ..Default::default()
                }),
                ..Default::default()
            }],
            tolerations: (!tolerations.is_empty()).then_some(tolerations),
            node_selector: (!node_selector.is_empty()).then_some(node_selector),
            affinity,
            topology_spread_constraints: constraints,
            priority_class_name: p.priority.map(str::to_string),
            ..Default::default()
        }),
    };
    Workload::from(Deployment {
        metadata: meta(name, namespace, p.app),
        spec: DeploymentSpec {
            replicas: Some(i32::try_from(replicas).unwrap_or(i32::MAX)),
            selector: selector(p.app),
            template,
            ..Default::default()
        },
        status: None,
    })
}
