//! The `large-workloads` shape's Deployments: a pool's toleration and node selection,
//! requests, spread and priority.

use std::collections::BTreeMap;

use k8s_openapi::api::apps::v1::{Deployment, DeploymentSpec};
use k8s_openapi::api::core::v1::{
    Affinity, NodeAffinity, NodeSelectorTerm, PreferredSchedulingTerm,
};
use repel_core::workload::Workload;

use super::pools::{ACCELERATOR_LABEL, LIFECYCLE_KEY, NODEGROUP_LABEL, Pool};
use crate::generate::nodes::{CRITICAL_ADDONS_ONLY, GPU_RESOURCE};
use crate::generate::workloads::{
    Pods, Spread, meta, pod_template, required_affinity, requirement, selector, toleration,
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
    let pods = Pods {
        app: p.app,
        image_tag: "2.3",
        cpu_m: p.cpu_m,
        mem_mi: p.mem_mi,
        gpu: p.pool == Pool::Gpu,
        spread: p.spread,
        bench_taints: p.bench_taints,
        tolerate_prefer: p.tolerate_prefer,
        priority_class: p.priority,
        restart_never: false,
    };
    let template = pod_template(&pods, tolerations, node_selector, affinity);
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
