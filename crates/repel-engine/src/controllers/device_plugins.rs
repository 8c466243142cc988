//! Device plugins: a node advertises an extended resource such as `nvidia.com/gpu`
//! only while a device-plugin pod for it runs there — the kubelet's device manager adds the
//! resource to `status.capacity` and `status.allocatable` when a plugin registers, and reports
//! it as 0 once the plugin is gone.
//!
//! Which nodes hold devices: those whose [`DEVICES_ANNOTATION`] says so (repel writes it on
//! every node a pool creates from a GPU instance type; a Node of the input may carry it).
//! Which pods are device plugins: a pod with the [`repel_core::pool_nodes::PROVIDES_ANNOTATION`],
//! or one running a recognised device-plugin image
//! ([`repel_core::pool_nodes::DEVICE_PLUGIN_IMAGES`]). A node without the annotation keeps the
//! resources its manifest gives it, as before.
//!
//! So a GPU pool whose taint the plugin's DaemonSet does not tolerate shows the trap the guide
//! describes: no plugin pod on the GPU nodes, no `nvidia.com/gpu` there, GPU pods Pending with
//! "Insufficient nvidia.com/gpu" — and once the DaemonSet tolerates the taint, they run.

use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
use repel_core::pool_nodes::{DEVICES_ANNOTATION, node_devices, provided_resources};

use crate::cluster::{Cluster, PodPhase};

/// The device-plugin side of every node's kubelet.
#[derive(Debug, Clone, Default)]
pub struct DevicePlugins {
    /// Nodes whose devices annotation could not be read, already warned about.
    warned: Vec<String>,
    /// Notes for the user.
    pub warnings: Vec<String>,
}

impl DevicePlugins {
    /// One pass: every node holding devices advertises those a running plugin provides and
    /// none of the others. Returns whether a node changed.
    pub fn reconcile(&mut self, cluster: &mut Cluster) -> bool {
        let mut changed = false;
        for id in 0..cluster.nodes.len() {
            let node = &cluster.nodes[id].node;
            if node
                .metadata
                .annotations
                .as_ref()
                .is_none_or(|a| !a.contains_key(DEVICES_ANNOTATION))
            {
                continue;
            }
            let devices = match node_devices(node) {
                Ok(d) => d,
                Err(e) => {
                    let name = cluster.nodes[id].name.clone();
                    if !self.warned.contains(&name) {
                        self.warnings.push(format!("node {name}: {e}"));
                        self.warned.push(name);
                    }
                    continue;
                }
            };
            let mut provided: Vec<String> = Vec::new();
            for &p in &cluster.nodes[id].pods {
                let pod = &cluster.pods[p];
                if pod.deleted || pod.phase != PodPhase::Running {
                    continue;
                }
                let images: Vec<&str> = pod
                    .spec()
                    .containers
                    .iter()
                    .filter_map(|c| c.image.as_deref())
                    .collect();
                provided.extend(provided_resources(pod.meta.annotations.as_ref(), &images));
            }
            let status = node.status.clone().unwrap_or_default();
            let mut capacity = status.capacity.clone().unwrap_or_default();
            let mut allocatable = status.allocatable.clone().unwrap_or_default();
            let mut differs = false;
            for (resource, count) in &devices {
                let want = provided
                    .iter()
                    .any(|r| r == resource)
                    .then(|| count.to_string());
                let have = allocatable.get(resource).map(|q| q.0.clone());
                if want.as_deref().unwrap_or("0") != have.as_deref().unwrap_or("0") {
                    differs = true;
                    let q = Quantity(want.unwrap_or_else(|| "0".to_string()));
                    capacity.insert(resource.clone(), q.clone());
                    allocatable.insert(resource.clone(), q);
                }
            }
            if differs {
                let mut new = (**node).clone();
                let st = new.status.get_or_insert_with(Default::default);
                st.capacity = Some(capacity);
                st.allocatable = Some(allocatable);
                cluster.replace_node(id, new);
                changed = true;
            }
        }
        changed
    }
}
