//! Workloads: pod templates per pool (tolerations, node selection, spread, requests,
//! priority), and the Deployments, StatefulSets, DaemonSets and Jobs around them.

use std::collections::BTreeMap;

use k8s_openapi::api::apps::v1::{
    DaemonSet, DaemonSetSpec, Deployment, DeploymentSpec, StatefulSet, StatefulSetSpec,
};
use k8s_openapi::api::batch::v1::{Job, JobSpec};
use k8s_openapi::api::core::v1::{
    Affinity, Container, NodeAffinity, NodeSelector, NodeSelectorRequirement, NodeSelectorTerm,
    Pod, PodSpec, PodTemplateSpec, ResourceRequirements, Toleration, TopologySpreadConstraint,
};
use k8s_openapi::api::scheduling::v1::PriorityClass;
use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{LabelSelector, ObjectMeta};
use repel_core::workload::Workload;

use super::nodes::{
    BENCH_TAINT_PREFIX, CRITICAL_ADDONS_ONLY, GPU_LABEL, GPU_RESOURCE, HOSTNAME_LABEL, Pool,
    SPOT_KEY, ZONE_LABEL, bench_effect, cpu, mem,
};

/// Business-critical services (value 100000).
pub const PC_CRITICAL: &str = "business-critical";
/// High priority services (value 10000).
pub const PC_HIGH: &str = "high-priority";
/// Ordinary services (value 1000).
pub const PC_STANDARD: &str = "standard";
/// Batch work (value 100, `preemptionPolicy: Never`).
pub const PC_BATCH: &str = "batch-low";

/// The generated PriorityClasses (the built-in `system-*` ones are used too).
pub fn priority_classes() -> Vec<PriorityClass> {
    [
        (PC_CRITICAL, 100_000, None, "revenue-bearing services"),
        (PC_HIGH, 10_000, None, "user-facing services"),
        (PC_STANDARD, 1_000, None, "ordinary services"),
        (PC_BATCH, 100, Some("Never"), "batch work; never preempts"),
    ]
    .into_iter()
    .map(|(name, value, policy, description)| PriorityClass {
        metadata: ObjectMeta {
            name: Some(name.to_string()),
            ..Default::default()
        },
        value: Some(value),
        preemption_policy: policy.map(str::to_string),
        description: Some(description.to_string()),
        global_default: Some(false),
    })
    .collect()
}

/// How a workload's pods spread over zones.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Spread {
    /// No constraint.
    None,
    /// Zone, `maxSkew: 1`, `ScheduleAnyway` (plus hostname, `ScheduleAnyway`).
    Soft,
    /// Zone, `maxSkew: 1`, `DoNotSchedule`.
    Hard,
}

/// What one pod template asks for.
#[derive(Debug, Clone)]
pub struct PodShape {
    /// The app label's value (the workload's name).
    pub app: String,
    /// Where its pods go.
    pub pool: Pool,
    /// CPU request, millicores.
    pub cpu_m: u64,
    /// Memory request, MiB.
    pub mem_mi: u64,
    /// Whether each pod takes one GPU.
    pub gpu: bool,
    /// `priorityClassName`.
    pub priority_class: Option<&'static str>,
    /// Topology spread.
    pub spread: Spread,
    /// How many synthetic taints nodes carry.
    pub bench_taints: usize,
    /// Whether it tolerates the synthetic `PreferNoSchedule` taints (all pods tolerate the
    /// synthetic `NoSchedule` ones).
    pub tolerate_prefer: bool,
    /// `restartPolicy` (`Never` for Jobs).
    pub restart_never: bool,
}

pub(super) fn toleration(
    key: &str,
    op: &str,
    value: Option<&str>,
    effect: Option<&str>,
) -> Toleration {
    Toleration {
        key: Some(key.to_string()),
        operator: Some(op.to_string()),
        value: value.map(str::to_string),
        effect: effect.map(str::to_string),
        toleration_seconds: None,
    }
}

pub(super) fn requirement(key: &str, op: &str, values: &[String]) -> NodeSelectorRequirement {
    NodeSelectorRequirement {
        key: key.to_string(),
        operator: op.to_string(),
        values: Some(values.to_vec()),
    }
}

pub(super) fn required_affinity(req: NodeSelectorRequirement) -> Affinity {
    Affinity {
        node_affinity: Some(NodeAffinity {
            required_during_scheduling_ignored_during_execution: Some(NodeSelector {
                node_selector_terms: vec![NodeSelectorTerm {
                    match_expressions: Some(vec![req]),
                    match_fields: None,
                }],
            }),
            preferred_during_scheduling_ignored_during_execution: None,
        }),
        ..Default::default()
    }
}

pub(super) fn app_labels(app: &str) -> BTreeMap<String, String> {
    BTreeMap::from([
        ("app".to_string(), app.to_string()),
        ("app.kubernetes.io/name".to_string(), app.to_string()),
    ])
}

pub(super) fn selector(app: &str) -> LabelSelector {
    LabelSelector {
        match_labels: Some(BTreeMap::from([("app".to_string(), app.to_string())])),
        match_expressions: None,
    }
}

pub(super) fn spread(key: &str, when: &str, app: &str) -> TopologySpreadConstraint {
    TopologySpreadConstraint {
        label_selector: Some(selector(app)),
        max_skew: 1,
        topology_key: key.to_string(),
        when_unsatisfiable: when.to_string(),
        ..Default::default()
    }
}

/// The synthetic taints' tolerations: every `NoSchedule` one, and the `PreferNoSchedule` ones
/// when `prefer`.
pub fn bench_tolerations(count: usize, prefer: bool) -> Vec<Toleration> {
    (0..count)
        .filter(|i| prefer || bench_effect(*i) == "NoSchedule")
        .map(|i| {
            let key = format!("{BENCH_TAINT_PREFIX}{i}");
            toleration(&key, "Equal", Some("v"), Some(bench_effect(i)))
        })
        .collect()
}

/// The pod template for `shape`: the pool's toleration and node selection (nodeSelector for
/// system, GPU and team pools; required node affinity for spot and SLA tiers, `Gt` on the
/// agreed service level), requests (and the GPU as request and limit), spread and priority.
pub fn template(s: &PodShape) -> PodTemplateSpec {
    let mut tolerations = Vec::new();
    let mut node_selector = BTreeMap::new();
    let mut affinity = None;
    let (label_key, label_value) = s.pool.label();
    match s.pool {
        Pool::General => {}
        Pool::System => {
            tolerations.push(toleration(CRITICAL_ADDONS_ONLY, "Exists", None, None));
            node_selector.insert(label_key.to_string(), label_value);
        }
        Pool::Gpu => {
            tolerations.push(toleration(GPU_RESOURCE, "Exists", None, Some("NoSchedule")));
            node_selector.insert(GPU_LABEL.to_string(), label_value);
        }
        Pool::Team(_) => {
            tolerations.push(toleration(
                label_key,
                "Equal",
                Some(&label_value),
                Some("NoSchedule"),
            ));
            node_selector.insert(label_key.to_string(), label_value);
        }
        Pool::Spot => {
            tolerations.push(toleration(
                SPOT_KEY,
                "Equal",
                Some("spot"),
                Some("NoSchedule"),
            ));
            affinity = Some(required_affinity(requirement(
                SPOT_KEY,
                "In",
                &[label_value],
            )));
        }
        Pool::Sla(tier) => {
            tolerations.push(toleration(
                label_key,
                "Equal",
                Some(&label_value),
                Some("NoSchedule"),
            ));
            let floor = tier.saturating_sub(1).to_string();
            affinity = Some(required_affinity(requirement(label_key, "Gt", &[floor])));
        }
    }
    let pods = Pods {
        app: &s.app,
        image_tag: "1.0",
        cpu_m: s.cpu_m,
        mem_mi: s.mem_mi,
        gpu: s.gpu,
        spread: s.spread,
        bench_taints: s.bench_taints,
        tolerate_prefer: s.tolerate_prefer,
        priority_class: s.priority_class,
        restart_never: s.restart_never,
    };
    pod_template(&pods, tolerations, node_selector, affinity)
}

/// What a generated pod template holds besides its placement (both generators' templates).
pub(super) struct Pods<'a> {
    /// The app label's value.
    pub(super) app: &'a str,
    /// The image's tag: `registry.example/APP:TAG`.
    pub(super) image_tag: &'a str,
    /// CPU request, millicores.
    pub(super) cpu_m: u64,
    /// Memory request and limit, MiB.
    pub(super) mem_mi: u64,
    /// Whether each pod takes one GPU (request and limit).
    pub(super) gpu: bool,
    /// Topology spread.
    pub(super) spread: Spread,
    /// How many synthetic taints nodes carry.
    pub(super) bench_taints: usize,
    /// Whether it tolerates the synthetic `PreferNoSchedule` taints.
    pub(super) tolerate_prefer: bool,
    /// `priorityClassName`.
    pub(super) priority_class: Option<&'static str>,
    /// `restartPolicy: Never`.
    pub(super) restart_never: bool,
}

/// The pod template of `p` placed by its pool's `tolerations`, `node_selector` and
/// `affinity`: the synthetic taints' tolerations added, one container with its requests and
/// limits, spread, priority and restart policy.
pub(super) fn pod_template(
    p: &Pods<'_>,
    mut tolerations: Vec<Toleration>,
    node_selector: BTreeMap<String, String>,
    affinity: Option<Affinity>,
) -> PodTemplateSpec {
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
    if p.gpu {
        requests.insert(GPU_RESOURCE.to_string(), Quantity("1".to_string()));
        limits.insert(GPU_RESOURCE.to_string(), Quantity("1".to_string()));
    }
    PodTemplateSpec {
        metadata: Some(ObjectMeta {
            labels: Some(app_labels(p.app)),
            ..Default::default()
        }),
        spec: Some(PodSpec {
            containers: vec![Container {
                name: "app".to_string(),
                image: Some(format!("registry.example/{}:{}", p.app, p.image_tag)),
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
            priority_class_name: p.priority_class.map(str::to_string),
            restart_policy: p.restart_never.then(|| "Never".to_string()),
            ..Default::default()
        }),
    }
}

pub(super) fn meta(name: &str, namespace: &str, app: &str) -> ObjectMeta {
    ObjectMeta {
        name: Some(name.to_string()),
        namespace: Some(namespace.to_string()),
        labels: Some(app_labels(app)),
        ..Default::default()
    }
}

/// A workload's kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Deployment.
    Deployment,
    /// StatefulSet.
    StatefulSet,
    /// Job (`parallelism` pods, `completions` twice that).
    Job,
}

/// A bare pod named `name` from `s`'s template.
pub fn bare_pod(name: &str, namespace: &str, s: &PodShape) -> Pod {
    Pod {
        metadata: meta(name, namespace, &s.app),
        spec: template(s).spec,
        status: None,
    }
}

/// A workload of `kind` named `name` with `replicas` pods from `s`'s template.
pub fn workload(
    kind: Kind,
    name: &str,
    namespace: &str,
    replicas: usize,
    s: &PodShape,
) -> Workload {
    let replicas = i32::try_from(replicas).unwrap_or(i32::MAX);
    let metadata = meta(name, namespace, &s.app);
    let template = template(s);
    match kind {
        Kind::Deployment => Workload::from(Deployment {
            metadata,
            spec: DeploymentSpec {
                replicas: Some(replicas),
                selector: selector(&s.app),
                template,
                ..Default::default()
            },
            status: None,
        }),
        Kind::StatefulSet => Workload::from(StatefulSet {
            metadata,
            spec: StatefulSetSpec {
                replicas: Some(replicas),
                selector: selector(&s.app),
                service_name: Some(name.to_string()),
                template,
                ..Default::default()
            },
            status: None,
        }),
        Kind::Job => Workload::from(Job {
            metadata,
            spec: Some(JobSpec {
                parallelism: Some(replicas),
                completions: Some(replicas.saturating_mul(2)),
                backoff_limit: Some(3),
                template,
                ..Default::default()
            }),
            status: None,
        }),
    }
}

/// A node agent: the DaemonSet tolerating what `tolerations` say, optionally only on nodes
/// labelled `node_selector`, requesting `cpu_m`/`mem_mi`, `system-node-critical`.
pub fn daemon_set(
    name: &str,
    tolerations: Vec<Toleration>,
    node_selector: Option<(&str, &str)>,
    cpu_m: u64,
    mem_mi: u64,
) -> Workload {
    let mut requests = BTreeMap::new();
    requests.insert("cpu".to_string(), cpu(cpu_m));
    requests.insert("memory".to_string(), mem(mem_mi));
    Workload::from(DaemonSet {
        metadata: meta(name, "kube-system", name),
        spec: DaemonSetSpec {
            selector: selector(name),
            template: PodTemplateSpec {
                metadata: Some(ObjectMeta {
                    labels: Some(app_labels(name)),
                    ..Default::default()
                }),
                spec: Some(PodSpec {
                    containers: vec![Container {
                        name: name.to_string(),
                        image: Some(format!("registry.example/{name}:1.0")),
                        resources: Some(ResourceRequirements {
                            requests: Some(requests),
                            ..Default::default()
                        }),
                        ..Default::default()
                    }],
                    tolerations: Some(tolerations),
                    node_selector: node_selector
                        .map(|(k, v)| BTreeMap::from([(k.to_string(), v.to_string())])),
                    priority_class_name: Some("system-node-critical".to_string()),
                    ..Default::default()
                }),
            },
            ..Default::default()
        },
        status: None,
    })
}

/// The node agents, most general first: `kube-proxy` (tolerates everything), `log-agent`
/// (system, spot and synthetic taints: runs on general, system and spot nodes) and
/// `nvidia-device-plugin` (GPU nodes only); each with its pods' CPU request in millicores.
pub fn node_agents(bench_taints: usize) -> Vec<(Workload, u64)> {
    let everything = vec![Toleration {
        operator: Some("Exists".to_string()),
        ..Default::default()
    }];
    let mut logs = vec![
        toleration(CRITICAL_ADDONS_ONLY, "Exists", None, None),
        toleration(SPOT_KEY, "Equal", Some("spot"), Some("NoSchedule")),
    ];
    logs.extend(bench_tolerations(bench_taints, true));
    let mut gpu = vec![toleration(GPU_RESOURCE, "Exists", None, Some("NoSchedule"))];
    gpu.extend(bench_tolerations(bench_taints, true));
    let gpu_nodes = Some((GPU_LABEL, "nvidia"));
    [
        ("kube-proxy", everything, None, 100, 128),
        ("log-agent", logs, None, 50, 200),
        ("nvidia-device-plugin", gpu, gpu_nodes, 50, 64),
    ]
    .into_iter()
    .map(|(name, tol, sel, cpu_m, mem_mi)| (daemon_set(name, tol, sel, cpu_m, mem_mi), cpu_m))
    .collect()
}
