//! ImageLocality (upstream `pkg/scheduler/framework/plugins/imagelocality/image_locality.go`,
//! v1.35): favours nodes that already hold the images of the pod's containers (init containers
//! included), each image counted by its size scaled by how many of the cluster's nodes hold it.
//!
//! The nodes' images are their `status.images` as the kubelet reports them. How many nodes
//! hold an image name is counted as upstream's snapshot counts it
//! (`pkg/scheduler/backend/cache/snapshot.go`, `createImageExistenceMap` and
//! `getNodeImageStates`): the distinct nodes that list the name, over every node of the cluster.
//! [`ImageIndex`] keeps that count per name, built once per cluster
//! ([`Cluster::image_index`]); a cluster whose nodes report no images has an empty index, and
//! every node scores 0.

use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap};

use k8s_openapi::api::core::v1::PodSpec;

use crate::cluster::{Cluster, NodeId, NodeInfo, PodInfo};
use crate::scheduler::framework::{CycleState, MAX_NODE_SCORE, Plugin, Status};

/// The plugin's name.
pub const NAME: &str = "ImageLocality";
/// Its weight in the default profile.
pub const WEIGHT: i64 = 1;

/// Upstream `mb`.
const MB: i64 = 1024 * 1024;
/// Upstream `minThreshold`: below it an image sum scores 0.
pub const MIN_THRESHOLD: i64 = 23 * MB;
/// Upstream `maxContainerThreshold`: per container, the sum at which the score reaches 100.
pub const MAX_CONTAINER_THRESHOLD: i64 = 1000 * MB;

/// Upstream `normalizedImageName` (v1.35): a name without a tag (no `:` after the last `/`)
/// gets `:latest`; a tag or a digest stays as it is.
pub fn normalized_image_name(name: &str) -> Cow<'_, str> {
    let colon = name.rfind(':').map_or(-1, |i| i as i64);
    let slash = name.rfind('/').map_or(-1, |i| i as i64);
    if colon <= slash {
        Cow::Owned(format!("{name}:latest"))
    } else {
        Cow::Borrowed(name)
    }
}

/// Upstream `scaledImageScore` (v1.35): the image's size times its spread, `numNodes /
/// totalNumNodes`, in floating point, truncated toward zero (Go's `int64(float64)`).
pub fn scaled_image_score(size: i64, num_nodes: usize, total_num_nodes: usize) -> i64 {
    let spread = num_nodes as f64 / total_num_nodes as f64;
    (size as f64 * spread) as i64
}

/// Upstream `calculatePriority` (v1.35):
///
/// 1. The maximum is `maxContainerThreshold` times the number of containers (init
///    containers included).
/// 2. The sum is clamped between `minThreshold` and that maximum.
/// 3. The score is `MaxNodeScore * (sum - minThreshold) / (maximum - minThreshold)`, in
///    integers.
pub fn calculate_priority(sum_scores: i64, num_containers: usize) -> i64 {
    let max_threshold = MAX_CONTAINER_THRESHOLD.saturating_mul(num_containers as i64);
    let sum = if sum_scores < MIN_THRESHOLD {
        MIN_THRESHOLD
    } else if sum_scores > max_threshold {
        max_threshold
    } else {
        sum_scores
    };
    let range = max_threshold - MIN_THRESHOLD;
    if range == 0 {
        return 0;
    }
    MAX_NODE_SCORE * (sum - MIN_THRESHOLD) / range
}

/// The images the score counts, in upstream's order: init containers, then containers.
pub fn pod_images(spec: &PodSpec) -> impl Iterator<Item = &str> {
    spec.init_containers
        .iter()
        .flatten()
        .chain(&spec.containers)
        .map(|c| c.image.as_deref().unwrap_or(""))
}

/// The containers the maximum is counted from (init containers and containers).
pub fn num_containers(spec: &PodSpec) -> usize {
    spec.init_containers.as_ref().map_or(0, Vec::len) + spec.containers.len()
}

/// Every image name the cluster's nodes report, with the nodes that list it and the size each
/// gives it (upstream's per-node `ImageStates`, with `NumNodes` as the number of those nodes).
#[derive(Debug, Clone, Default)]
pub struct ImageIndex {
    /// By name: the nodes listing it, ascending, each with its size (a node listing the name
    /// in two images keeps the later one's, as `getNodeImageStates` overwrites).
    by_name: HashMap<String, Vec<(NodeId, i64)>>,
    /// How many nodes the cluster has.
    nodes: usize,
}

impl ImageIndex {
    /// The index of `nodes` (upstream `createImageExistenceMap` + `getNodeImageStates`).
    pub fn of(nodes: &[NodeInfo]) -> Self {
        let mut by_name: HashMap<String, Vec<(NodeId, i64)>> = HashMap::new();
        for (id, n) in nodes.iter().enumerate() {
            let Some(images) = n.node.status.as_ref().and_then(|s| s.images.as_ref()) else {
                continue;
            };
            for image in images {
                let size = image.size_bytes.unwrap_or(0);
                for name in image.names.iter().flatten() {
                    let list = by_name.entry(name.clone()).or_default();
                    match list.last_mut() {
                        Some((last, s)) if *last == id => *s = size,
                        _ => list.push((id, size)),
                    }
                }
            }
        }
        ImageIndex {
            by_name,
            nodes: nodes.len(),
        }
    }

    /// Whether no node reports an image: every node scores 0.
    pub fn is_empty(&self) -> bool {
        self.by_name.is_empty()
    }

    /// Upstream `sumImageScores` (v1.35) of every node at once: per node holding one of the
    /// pod's images, the sum over the pod's containers (init containers first) of
    /// [`scaled_image_score`] of the image it holds; the nodes in ascending order. A node not
    /// listed sums 0.
    pub fn sums(&self, spec: &PodSpec) -> Vec<(NodeId, i64)> {
        if self.is_empty() {
            return Vec::new();
        }
        let mut sums: BTreeMap<NodeId, i64> = BTreeMap::new();
        for image in pod_images(spec) {
            let Some(list) = self.by_name.get(normalized_image_name(image).as_ref()) else {
                continue;
            };
            for &(node, size) in list {
                *sums.entry(node).or_insert(0) += scaled_image_score(size, list.len(), self.nodes);
            }
        }
        sums.into_iter().collect()
    }

    /// The plugin's score per node for `spec` ([`calculate_priority`] of [`ImageIndex::sums`]),
    /// only the nodes scoring more than 0, ascending.
    pub fn scores(&self, spec: &PodSpec) -> Vec<(NodeId, i64)> {
        let n = num_containers(spec);
        self.sums(spec)
            .into_iter()
            .map(|(node, sum)| (node, calculate_priority(sum, n)))
            .filter(|(_, s)| *s > 0)
            .collect()
    }
}

/// PreScore state: the nodes scoring more than 0, by name.
#[derive(Debug, Clone, Default)]
struct PreScoreState(HashMap<String, i64>);

/// The ImageLocality plugin.
#[derive(Debug, Default)]
pub struct ImageLocality;

impl ImageLocality {
    /// The scores of the pod's nodes, by node name.
    fn by_name(pod: &PodInfo, cluster: &Cluster) -> HashMap<String, i64> {
        cluster
            .image_index()
            .scores(pod.spec())
            .into_iter()
            .filter_map(|(id, s)| cluster.nodes.get(id).map(|n| (n.name.clone(), s)))
            .collect()
    }
}

impl Plugin for ImageLocality {
    fn name(&self) -> &'static str {
        NAME
    }

    /// Upstream has no PreScore: its Score reads the snapshot's image states of the node. Here
    /// PreScore computes every node's score at once from the cluster's [`ImageIndex`] (the
    /// nodes holding the pod's images), so that Score is a lookup.
    fn pre_score(
        &self,
        state: &mut CycleState,
        pod: &PodInfo,
        _: &[&NodeInfo],
        cluster: &Cluster,
    ) -> Status {
        state.write(NAME, PreScoreState(Self::by_name(pod, cluster)));
        Status::success()
    }

    /// Upstream `ImageLocality.Score` (v1.35, no NormalizeScore): [`calculate_priority`] of the
    /// sum of the node's images the pod uses, each scaled by its spread over the cluster's
    /// nodes.
    fn score(
        &self,
        state: &CycleState,
        pod: &PodInfo,
        node: &NodeInfo,
        cluster: &Cluster,
    ) -> Result<i64, Status> {
        let score = match state.read::<PreScoreState>(NAME) {
            Some(s) => s.0.get(&node.name).copied(),
            None => Self::by_name(pod, cluster).get(&node.name).copied(),
        };
        Ok(score.unwrap_or(0))
    }
}

#[cfg(test)]
mod tests;
