//! The last stage: every object read, sorted by kind in input order. An object defined twice is
//! read as `kubectl apply -f` leaves it (created by the first definition, updated by the
//! second); node pools are kept as written for their providers' readers; the inventory becomes
//! the objects a cluster is built from ([`ClusterInput`]).

use std::path::PathBuf;

use k8s_openapi::api::core::v1::{Namespace, Node, Pod};
use k8s_openapi::api::policy::v1::PodDisruptionBudget;
use k8s_openapi::api::scheduling::v1::PriorityClass;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use repel_core::workload::Workload;
use repel_engine::load::ClusterInput;
use serde_json::Value;

use crate::decode::{Decoded, KNOWN_KINDS, Typed, decode, decode_direct, decode_early, predecode};
use crate::documents::{RawDoc, parse_documents_hooked};
use crate::objects::{
    LEGACY_API_VERSIONS, MAX_GENERATED_BASE, convert_legacy, describe_value, for_each_object,
    require_name,
};
use crate::read::{expand_paths, read_text};
use crate::strict::{StrictReport, item_duplicates, strict_report};
use crate::{At, InputError, Source};

/// One object read from a manifest.
#[derive(Debug, Clone)]
pub struct Loaded<T> {
    /// Where it came from.
    pub source: Source,
    /// Position among all objects read, in input order.
    pub seq: usize,
    /// The object.
    pub obj: T,
}

/// Everything read from the `-f` arguments, by kind, in input order.
#[derive(Debug, Default)]
pub struct Inventory {
    /// Nodes.
    pub nodes: Vec<Loaded<Node>>,
    /// Pods.
    pub pods: Vec<Loaded<Pod>>,
    /// Workloads.
    pub workloads: Vec<Loaded<Workload>>,
    /// Namespaces.
    pub namespaces: Vec<Loaded<Namespace>>,
    /// PodDisruptionBudgets.
    pub pdbs: Vec<Loaded<PodDisruptionBudget>>,
    /// PriorityClasses.
    pub priority_classes: Vec<Loaded<PriorityClass>>,
    /// Node pools: Karpenter NodePools (`karpenter.sh/v1`, `v1beta1`), eksctl ClusterConfigs
    /// (`eksctl.io/v1alpha5`), AKS agent pools (`az aks nodepool show`/`list` output) and EKS
    /// managed node groups (`aws eks describe-nodegroup` output), as written.
    pub node_pools: Vec<Loaded<Value>>,
    /// Karpenter NodeClaims (`karpenter.sh/v1`, `v1beta1`), as written.
    pub node_claims: Vec<Loaded<Value>>,
    /// Karpenter node classes (`EC2NodeClass`, `AKSNodeClass`, any kind named `*NodeClass`):
    /// where each was read, its kind and its name. Otherwise skipped as kinds repel does not
    /// use; `repel lint` checks NodePools' `nodeClassRef` against them.
    pub node_classes: Vec<(Source, String, String)>,
    /// Where each `Kind/namespace/name` was read, to refuse duplicates.
    seen: std::collections::HashMap<String, Source>,
    /// Notes for the user (legacy apiVersions read, and after [`Inventory::finish`] the
    /// skipped kinds).
    pub warnings: Vec<String>,
    /// Objects with unknown or duplicate fields, in input order (see [`Validate`]).
    pub strict: Vec<StrictReport>,
    /// Objects skipped (kinds repel does not use), one line each, in input order.
    pub skipped: Vec<String>,
    /// How many objects of each skipped kind.
    skipped_kinds: std::collections::BTreeMap<String, usize>,
    /// `--strict-nodes`, handed to the cluster built from it ([`ClusterInput::strict_nodes`]).
    pub strict_nodes: bool,
    /// Seed for names generated from `metadata.generateName`.
    seed: u64,
    /// One name generator per `generateName` stream (kind, namespace, base).
    name_streams: std::collections::HashMap<String, repel_core::workload::NameRng>,
}

/// Whether objects of `kind` (one of the kinds [`Inventory::add`] keeps) live outside
/// namespaces, as [`repel_core::kinds`] says.
fn cluster_scoped(kind: &str) -> bool {
    repel_core::kinds::by_kind(kind).is_some_and(|k| !k.namespaced)
}

/// Adds `item` to `list`, or, when it was `again` defined, puts it in the place of the object
/// `same` finds there (keeping that one's position in input order).
fn put<T>(list: &mut Vec<Loaded<T>>, item: Loaded<T>, again: bool, same: impl Fn(&T) -> bool) {
    if again && let Some(slot) = list.iter_mut().find(|l| same(&l.obj)) {
        let seq = slot.seq;
        *slot = item;
        slot.seq = seq;
        return;
    }
    list.push(item);
}

impl Inventory {
    /// An empty inventory whose generated names come from `seed`.
    pub fn with_seed(seed: u64) -> Inventory {
        Inventory {
            seed,
            ..Inventory::default()
        }
    }

    /// Reads every `-f` argument (generated names from seed 0).
    pub fn load(paths: &[PathBuf], recursive: bool) -> Result<Inventory, InputError> {
        Inventory::load_seeded(paths, recursive, 0)
    }

    /// Reads every `-f` argument; names generated from `metadata.generateName` come from `seed`.
    pub fn load_seeded(
        paths: &[PathBuf],
        recursive: bool,
        seed: u64,
    ) -> Result<Inventory, InputError> {
        let paths = expand_paths(paths, recursive)?;
        // The next files are read on another thread while this one is parsed: two ahead at
        // most (one waiting in the channel, one read and waiting to be sent), so that a small
        // file between two large ones does not stop the reading. The reader stops when the
        // reading here ends early (an error), as its next send then fails.
        std::thread::scope(|scope| {
            let (tx, rx) = std::sync::mpsc::sync_channel(1);
            scope.spawn(move || {
                for p in paths {
                    let text = read_text(&p);
                    if tx.send((p, text)).is_err() {
                        break;
                    }
                }
            });
            Inventory::load_texts(rx, seed)
        })
    }

    /// Reads the files' texts in the order they arrive (each with its path).
    fn load_texts(
        texts: std::sync::mpsc::Receiver<(PathBuf, Result<String, InputError>)>,
        seed: u64,
    ) -> Result<Inventory, InputError> {
        let mut inv = Inventory::with_seed(seed);
        // Every file is read: a file that cannot be used is reported (its first problem) and
        // the others are still read, so that one run names every broken file of a directory.
        let mut errors = Vec::new();
        for (path, text) in texts {
            let file = path.display().to_string();
            if let Err(e) = text.and_then(|text| inv.load_text(&file, &text)) {
                errors.push(e);
            }
        }
        InputError::gather(errors)?;
        Ok(inv)
    }

    /// Reads one file's text into the inventory.
    fn load_text(&mut self, file: &str, text: &str) -> Result<(), InputError> {
        let (docs, early): (Vec<RawDoc>, Vec<Option<Decoded>>) =
            parse_documents_hooked(file, text, &decode_early, Some(&decode_direct))?
                .into_iter()
                .unzip();
        self.reserve_for(&docs);
        let mut decoded = predecode(file, &docs, early).into_iter();
        for doc in docs {
            let mut pre = decoded.next().flatten();
            for_each_object(file, &doc, |source, v| {
                let duplicates = item_duplicates(&doc, source.item);
                // Decoded ahead only when the document is this one object.
                let pre = if source.item.is_none() {
                    pre.take()
                } else {
                    None
                };
                self.add_decoded(source, v, duplicates, pre)
            })?;
        }
        Ok(())
    }

    /// Makes room for the objects of `docs` by kind, so that a file of tens of thousands of
    /// workloads (kilobytes each) is not copied each time its list doubles.
    fn reserve_for(&mut self, docs: &[RawDoc]) {
        let (mut nodes, mut pods, mut workloads) = (0, 0, 0);
        for doc in docs {
            match doc.value.get("kind").and_then(Value::as_str) {
                Some("Node") => nodes += 1,
                Some("Pod") => pods += 1,
                Some(
                    "Deployment"
                    | "ReplicaSet"
                    | "StatefulSet"
                    | "DaemonSet"
                    | "Job"
                    | "CronJob"
                    | "ReplicationController",
                ) => workloads += 1,
                _ => {}
            }
        }
        self.nodes.reserve(nodes);
        self.pods.reserve(pods);
        self.workloads.reserve(workloads);
        self.seen.reserve(nodes + pods + workloads);
    }

    /// Adds one object by its kind; unknown kinds become warnings.
    pub fn add(&mut self, source: Source, v: &Value) -> Result<(), InputError> {
        self.add_with_duplicates(source, v, Vec::new())
    }

    /// [`Inventory::add`] for an object whose document repeated the keys `duplicates` (paths
    /// from the object's root); they and its unknown fields go to [`Inventory::strict`].
    pub fn add_with_duplicates(
        &mut self,
        source: Source,
        v: &Value,
        duplicates: Vec<String>,
    ) -> Result<(), InputError> {
        self.add_decoded(source, v, duplicates, None)
    }

    /// [`Inventory::add_with_duplicates`] with the object's [`Decoded`] checks and typed form
    /// when they were computed ahead (on another core) from this same value.
    pub(crate) fn add_decoded(
        &mut self,
        source: Source,
        v: &Value,
        duplicates: Vec<String>,
        pre: Option<Decoded>,
    ) -> Result<(), InputError> {
        if repel_core::pools::is_aks_pool(v) || repel_core::pools::is_eks_nodegroup(v) {
            return self.add_agent_pool(source, v);
        }
        let Some(kind) = v.get("kind").and_then(Value::as_str) else {
            return Err(InputError::Object {
                at: source,
                what: None,
                message: "kind: Required value: every object needs a kind".into(),
            });
        };
        let api = v
            .get("apiVersion")
            .and_then(Value::as_str)
            .unwrap_or_default();
        if kind == "NodePool" && (api == "karpenter.sh/v1" || api == "karpenter.sh/v1beta1")
            || kind == "ClusterConfig" && api == "eksctl.io/v1alpha5"
        {
            return self.add_node_pool(source, v, kind, api);
        }
        if kind == "NodeClaim" && (api == "karpenter.sh/v1" || api == "karpenter.sh/v1beta1") {
            let before = self.node_pools.len();
            self.add_node_pool(source, v, kind, api)?;
            // Read like a NodePool (named, once), kept apart.
            if self.node_pools.len() > before
                && let Some(c) = self.node_pools.pop()
            {
                self.node_claims.push(c);
            }
            return Ok(());
        }
        if !KNOWN_KINDS.contains(&kind) {
            if kind.ends_with("NodeClass")
                && let Some(name) = v.pointer("/metadata/name").and_then(Value::as_str)
            {
                self.node_classes
                    .push((source.clone(), kind.to_string(), name.to_string()));
            }
            self.skipped.push(format!(
                "{source}: skipping {}: kind {kind} is not used by repel",
                describe_value(v).unwrap_or_else(|| kind.to_string())
            ));
            *self.skipped_kinds.entry(kind.to_string()).or_default() += 1;
            return Ok(());
        }
        let generate = require_name(&source, v)?;
        // A legacy apiVersion or a generated name: work on a copy.
        let mut owned: Option<Value> = None;
        let api = v
            .get("apiVersion")
            .and_then(Value::as_str)
            .unwrap_or_default();
        if LEGACY_API_VERSIONS
            .iter()
            .any(|(k, old, _)| *k == kind && *old == api)
        {
            let mut edited = v.clone();
            if let Some(current) = convert_legacy(kind, &mut edited) {
                self.warnings.push(format!(
                    "{source} ({kind} {}): apiVersion {api} is no longer served; read as {current}",
                    v.at(&["metadata", "name"])
                        .and_then(Value::as_str)
                        .or(generate.as_deref())
                        .unwrap_or_default(),
                ));
            }
            owned = Some(edited);
        }
        if let Some(base) = generate {
            let mut obj = owned.take().unwrap_or_else(|| v.clone());
            let name = self.generate_name(kind, &obj, &base);
            if let Some(meta) = obj.get_mut("metadata").and_then(Value::as_object_mut) {
                meta.insert("name".to_string(), Value::String(name));
            }
            owned = Some(obj);
        }
        // Decoded ahead from the value as given: valid only when nothing above edited it.
        let decoded = match (pre, &owned) {
            (Some(d), None) => d,
            _ => decode(&source, kind, owned.as_ref().unwrap_or(v)),
        };
        let v = owned.as_ref().unwrap_or(v);
        let typed = decoded?;
        let ns = (!cluster_scoped(kind)).then(|| {
            v.at(&["metadata", "namespace"])
                .and_then(Value::as_str)
                .filter(|n| !n.is_empty())
                .unwrap_or("default")
        });
        let name = v
            .at(&["metadata", "name"])
            .and_then(Value::as_str)
            .unwrap_or_default();
        // `Kind ns/name` (`Kind name` for cluster-scoped kinds); the report's is `Kind/…`.
        let named = |sep: char| match ns {
            Some(ns) => format!("{kind}{sep}{ns}/{name}"),
            None => format!("{kind}{sep}{name}"),
        };
        let id = named(' ');
        let again = self.defined_again(&id, &source);
        let seq = self.nodes.len()
            + self.pods.len()
            + self.workloads.len()
            + self.namespaces.len()
            + self.pdbs.len()
            + self.priority_classes.len();
        fn w<T>(obj: T, source: &Source, seq: usize) -> Loaded<T> {
            Loaded {
                source: source.clone(),
                seq,
                obj,
            }
        }
        let strict =
            |unknown: Vec<String>| strict_report(&source, kind, api, v, unknown, duplicates);
        let (typed, unknown) = typed?;
        let ns = ns.unwrap_or_default();
        let same = |m: &ObjectMeta| {
            m.name.as_deref() == Some(name)
                && m.namespace
                    .as_deref()
                    .filter(|n| !n.is_empty())
                    .unwrap_or("default")
                    == ns
        };
        let named_so = |m: &ObjectMeta| m.name.as_deref() == Some(name);
        match typed {
            Typed::Node(obj) => put(&mut self.nodes, w(*obj, &source, seq), again, |o| {
                named_so(&o.metadata)
            }),
            Typed::Pod(obj) => put(&mut self.pods, w(*obj, &source, seq), again, |o| {
                same(&o.metadata)
            }),
            Typed::Namespace(obj) => put(&mut self.namespaces, w(*obj, &source, seq), again, |o| {
                named_so(&o.metadata)
            }),
            Typed::Pdb(obj) => put(&mut self.pdbs, w(*obj, &source, seq), again, |o| {
                same(&o.metadata)
            }),
            Typed::PriorityClass(obj) => put(
                &mut self.priority_classes,
                w(*obj, &source, seq),
                again,
                |o| named_so(&o.metadata),
            ),
            Typed::Workload(obj) => put(&mut self.workloads, w(obj, &source, seq), again, |o| {
                o.kind() == kind && same(o.metadata())
            }),
        }
        let report = strict(unknown);
        if let Some(mut report) = report {
            report.object = named('/');
            self.strict.push(report);
        }
        Ok(())
    }

    /// An AKS agent pool (`az aks nodepool show` output, named at its root) or an EKS managed
    /// node group (`aws eks describe-nodegroup` output), once.
    fn add_agent_pool(&mut self, source: Source, v: &Value) -> Result<(), InputError> {
        let id = match v["name"].as_str() {
            Some(name) => format!("agent pool {name}"),
            None => format!(
                "nodegroup {}",
                v["nodegroup"]["nodegroupName"].as_str().unwrap_or_default()
            ),
        };
        let again = self.defined_again(&id, &source);
        let seq = self.nodes.len() + self.pods.len() + self.workloads.len() + self.node_pools.len();
        let name = v["name"].as_str().map(str::to_string);
        let group = v["nodegroup"]["nodegroupName"].clone();
        put(
            &mut self.node_pools,
            Loaded {
                source,
                seq,
                obj: v.clone(),
            },
            again,
            |o| match &name {
                Some(n) => o["name"].as_str() == Some(n),
                None => o["nodegroup"]["nodegroupName"] == group,
            },
        );
        Ok(())
    }

    /// Whether `id` was read before; if so, warns that the later definition is the one read.
    /// `kubectl apply -f DIR` applies every file in turn, so an object defined in two files (a
    /// repository of alternatives) is created by the first and updated by the second: the
    /// second is what the cluster holds.
    fn defined_again(&mut self, id: &str, source: &Source) -> bool {
        match self.seen.insert(id.to_string(), source.clone()) {
            Some(first) => {
                self.warnings.push(format!(
                    "{source}: {id} is defined again (first at {first}); the later definition is read, as kubectl apply would update the object with it"
                ));
                true
            }
            None => false,
        }
    }

    /// A Karpenter NodePool, or an eksctl ClusterConfig (its node groups): named, once;
    /// `v1beta1` NodePools read as `v1` with a warning (the template's taints, startup taints
    /// and labels are where they were).
    fn add_node_pool(
        &mut self,
        source: Source,
        v: &Value,
        kind: &str,
        api: &str,
    ) -> Result<(), InputError> {
        if require_name(&source, v)?.is_some() {
            return Err(InputError::Object {
                at: source,
                what: describe_value(v),
                message: format!(
                    "metadata.name: Required value: a {kind} needs a name (generateName is not read)"
                ),
            });
        }
        let name = v
            .at(&["metadata", "name"])
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string();
        let id = format!("{kind} {name}");
        let again = self.defined_again(&id, &source);
        if api == "karpenter.sh/v1beta1" {
            self.warnings.push(format!(
                "{source} ({kind} {name}): apiVersion karpenter.sh/v1beta1 is no longer served by Karpenter v1; read as karpenter.sh/v1"
            ));
        }
        let seq = self.nodes.len() + self.pods.len() + self.workloads.len() + self.node_pools.len();
        put(
            &mut self.node_pools,
            Loaded {
                source,
                seq,
                obj: v.clone(),
            },
            again,
            |o| {
                o.at(&["kind"]).and_then(Value::as_str) == Some(kind)
                    && o.at(&["metadata", "name"]).and_then(Value::as_str) == Some(&name)
            },
        );
        Ok(())
    }

    /// A name for an object with `metadata.generateName` `base`, as the API server makes it
    /// (upstream `SimpleNameGenerator.GenerateName`: the base cut to
    /// [`MAX_GENERATED_BASE`] characters, then 5 characters of upstream's alphabet), drawn from
    /// the inventory's seed; a name already taken is drawn again, as the API server retries a
    /// generated name that already exists.
    fn generate_name(&mut self, kind: &str, v: &Value, base: &str) -> String {
        let ns = if cluster_scoped(kind) {
            String::new()
        } else {
            v.at(&["metadata", "namespace"])
                .and_then(Value::as_str)
                .filter(|n| !n.is_empty())
                .unwrap_or("default")
                .to_string()
        };
        let base: String = base.chars().take(MAX_GENERATED_BASE).collect();
        let stream = format!("generateName/{kind}/{ns}/{base}");
        let seed = self.seed;
        let rng = self
            .name_streams
            .entry(stream)
            .or_insert_with_key(|k| repel_core::workload::NameRng::new(seed, k));
        let prefix = if ns.is_empty() {
            format!("{kind} ")
        } else {
            format!("{kind} {ns}/")
        };
        // 27^5 names per base: far more tries than objects, so this ends.
        loop {
            let name = format!("{base}{}", rng.suffix(5));
            if !self.seen.contains_key(&format!("{prefix}{name}")) {
                return name;
            }
        }
    }

    /// Ends reading: the skipped objects become one summary warning (`skipped 31 objects of
    /// kinds repel does not use: 23 CustomResourceDefinition, 3 ServiceAccount, …`), or with
    /// `verbose` one warning per object.
    pub fn finish(&mut self, verbose: bool) {
        if self.skipped.is_empty() {
            return;
        }
        if verbose {
            self.warnings.append(&mut self.skipped);
            return;
        }
        let total = self.skipped.len();
        let mut kinds: Vec<(&String, &usize)> = self.skipped_kinds.iter().collect();
        kinds.sort_by(|a, b| b.1.cmp(a.1).then_with(|| a.0.cmp(b.0)));
        let list: Vec<String> = kinds.iter().map(|(k, n)| format!("{n} {k}")).collect();
        self.warnings.push(format!(
            "skipped {total} object{} of kinds repel does not use: {} (-v lists them)",
            if total == 1 { "" } else { "s" },
            list.join(", ")
        ));
    }

    /// Whether nothing usable was read.
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
            && self.pods.is_empty()
            && self.workloads.is_empty()
            && self.namespaces.is_empty()
            && self.pdbs.is_empty()
            && self.priority_classes.is_empty()
            && self.node_pools.is_empty()
            && self.node_claims.is_empty()
    }

    /// The pod template specs of the input's DaemonSets (Karpenter's DaemonSet overhead).
    pub fn daemon_set_specs(&self) -> Vec<k8s_openapi::api::core::v1::PodSpec> {
        self.workloads
            .iter()
            .filter(|w| matches!(w.obj, repel_core::workload::Workload::DaemonSet(_)))
            .filter_map(|w| w.obj.template().and_then(|(t, _)| t.spec.clone()))
            .collect()
    }

    /// The node pools of the input, read by their providers' rules (`Err`: the pool, its
    /// source and the field that could not be read).
    pub fn pools(&self) -> Result<Vec<repel_core::pools::Pool>, InputError> {
        Ok(self
            .pools_with_sources()?
            .into_iter()
            .map(|(p, _)| p)
            .collect())
    }

    /// [`Inventory::pools`], each with where it was read.
    pub fn pools_with_sources(&self) -> Result<Vec<(repel_core::pools::Pool, String)>, InputError> {
        use repel_core::pools::{
            Pool, aks_pool, eks_nodegroup, eksctl_pools, is_aks_pool, is_eks_nodegroup,
            karpenter_pool,
        };
        let mut pools: Vec<(Pool, String)> = Vec::new();
        for p in &self.node_pools {
            let (kind, name) = if is_aks_pool(&p.obj) {
                ("agent pool", p.obj["name"].as_str())
            } else if is_eks_nodegroup(&p.obj) {
                ("nodegroup", p.obj["nodegroup"]["nodegroupName"].as_str())
            } else {
                (
                    p.obj["kind"].as_str().unwrap_or_default(),
                    p.obj["metadata"]["name"].as_str(),
                )
            };
            let read = if is_aks_pool(&p.obj) {
                aks_pool(&p.obj).map(|pool| vec![pool])
            } else if is_eks_nodegroup(&p.obj) {
                eks_nodegroup(&p.obj).map(|pool| vec![pool])
            } else if kind == "ClusterConfig" {
                eksctl_pools(&p.obj)
            } else {
                karpenter_pool(&p.obj).map(|pool| vec![pool])
            };
            let read = read.map_err(|message| InputError::Object {
                at: p.source.clone(),
                what: Some(format!("{kind} {}", name.unwrap_or_default())),
                message,
            })?;
            pools.extend(read.into_iter().map(|x| (x, p.source.to_string())));
        }
        Ok(pools)
    }

    /// The objects a cluster is built from.
    pub fn cluster_input(&self) -> ClusterInput {
        ClusterInput {
            nodes: self.nodes.iter().map(|n| n.obj.clone()).collect(),
            pods: self.pods.iter().map(|p| p.obj.clone()).collect(),
            workloads: self.workloads.iter().map(|w| w.obj.clone()).collect(),
            namespaces: self.namespaces.iter().map(|n| n.obj.clone()).collect(),
            pdbs: self.pdbs.iter().map(|p| p.obj.clone()).collect(),
            priority_classes: self
                .priority_classes
                .iter()
                .map(|p| p.obj.clone())
                .collect(),
            // Read by [`Inventory::pools`], which can refuse them, by the commands that run
            // the pools' controllers.
            pools: Vec::new(),
            node_claims: self.node_claims.iter().map(|c| c.obj.clone()).collect(),
            instance_types: Default::default(),
            strict_nodes: self.strict_nodes,
        }
    }

    /// The objects a cluster is built from, moved out of the inventory (no copy of 150,000
    /// pods' worth of objects).
    pub fn into_cluster_input(self) -> ClusterInput {
        ClusterInput {
            nodes: self.nodes.into_iter().map(|n| n.obj).collect(),
            pods: self.pods.into_iter().map(|p| p.obj).collect(),
            workloads: self.workloads.into_iter().map(|w| w.obj).collect(),
            namespaces: self.namespaces.into_iter().map(|n| n.obj).collect(),
            pdbs: self.pdbs.into_iter().map(|p| p.obj).collect(),
            priority_classes: self.priority_classes.into_iter().map(|p| p.obj).collect(),
            pools: Vec::new(),
            node_claims: self.node_claims.into_iter().map(|c| c.obj).collect(),
            instance_types: Default::default(),
            strict_nodes: self.strict_nodes,
        }
    }

    /// The namespace object named `name`, if one was given.
    pub fn namespace(&self, name: &str) -> Option<&Namespace> {
        self.namespaces
            .iter()
            .map(|n| &n.obj)
            .find(|n| n.metadata.name.as_deref() == Some(name))
    }
}

#[cfg(test)]
mod tests;
