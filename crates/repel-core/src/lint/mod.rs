//! `repel lint`: the mistakes people make with taints and tolerations, found in the objects of
//! an input (workloads, pods, nodes, pools) before they ship, each with the fix.
//!
//! Every rule is a pure function of a [`LintInput`] that pushes [`Finding`]s; one rule, one file
//! under `rules/`, holding its [`Rule`] (id, severity, the text `--explain` prints) and a table
//! test cut from real manifests. What the rules share — the well-known taints — is data in
//! [`catalogue`]. The matching is [`crate::tolerates`], the scheduler's own.
//!
//! # Layout
//! - this module: the input, findings, options and [`lint`].
//! - [`catalogue`]: the well-known taints (key, value, effect, who sets them, the source).
//! - [`rules`]: one module per rule, and [`rules::RULES`] in the order they run.
//! - [`vap`]: the single-object rules as a ValidatingAdmissionPolicy (CEL).

pub mod catalogue;
pub mod rules;
pub mod vap;

use std::collections::{BTreeMap, HashSet};

use k8s_openapi::api::core::v1::{Node, PodSpec, Taint, Toleration};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

use crate::affinity::RequiredNodeAffinity;
use crate::gates::FeatureGates;
use crate::pools::Pool;
use crate::taint::{NO_EXECUTE, NO_SCHEDULE};
use crate::toleration::tolerates;

/// How serious a finding is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    /// Worth knowing; not wrong by itself.
    Info,
    /// Probably a mistake.
    Warning,
    /// Certainly a mistake: refused by the API server, or pods that never run.
    Error,
}

impl Severity {
    /// `error`, `warning` or `info`, as the JSON contract writes it.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Info => "info",
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }

    /// Parses [`Severity::as_str`]'s words.
    pub fn parse(s: &str) -> Option<Severity> {
        match s {
            "info" => Some(Severity::Info),
            "warning" => Some(Severity::Warning),
            "error" => Some(Severity::Error),
            _ => None,
        }
    }
}

/// A rule's identity and documentation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rule {
    /// The id (a contract: configuration and ignore annotations name it).
    pub id: &'static str,
    /// Its default severity.
    pub severity: Severity,
    /// One line: what it finds.
    pub summary: &'static str,
    /// The explanation `--explain` prints: why it matters, with upstream references.
    pub explain: &'static str,
    /// A bad and a good example, as YAML.
    pub example: &'static str,
    /// Whether it judges one object alone (and can be an admission policy).
    pub single_object: bool,
}

/// Which object a finding is about (an index into the [`LintInput`]'s lists).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Subject {
    /// [`LintInput::objects`]`[i]`.
    Object(usize),
    /// [`LintInput::nodes`]`[i]`.
    Node(usize),
    /// [`LintInput::pools`]`[i]`.
    Pool(usize),
}

/// One mistake found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// The rule's id.
    pub rule: &'static str,
    /// Its severity (the rule's, or the configuration's override).
    pub severity: Severity,
    /// The object.
    pub subject: Subject,
    /// The offending field in the object, e.g. `spec.template.spec.tolerations[1]`.
    pub path: String,
    /// What is wrong.
    pub message: String,
    /// The fix, as YAML to paste (or a sentence when no YAML fits).
    pub fix: String,
}

/// A pod or a workload: one pod spec with where it sits in its object.
#[derive(Debug, Clone, Copy)]
pub struct LintObject<'a> {
    /// `Pod`, `Deployment`, `DaemonSet`, `CronJob`, …
    pub kind: &'a str,
    /// The object's metadata.
    pub meta: &'a ObjectMeta,
    /// The pod template's metadata (`None` for a Pod).
    pub template_meta: Option<&'a ObjectMeta>,
    /// The pod spec.
    pub spec: &'a PodSpec,
    /// The pod spec's path: `spec`, `spec.template.spec`, `spec.jobTemplate.spec.template.spec`.
    pub spec_path: &'static str,
}

impl LintObject<'_> {
    /// The namespace, `default` when unset.
    pub fn namespace(&self) -> &str {
        crate::workload::namespace_of(self.meta)
    }

    /// The name.
    pub fn name(&self) -> &str {
        self.meta.name.as_deref().unwrap_or_default()
    }

    /// `Kind/namespace/name`.
    pub fn id(&self) -> String {
        format!("{}/{}/{}", self.kind, self.namespace(), self.name())
    }

    /// The kind of its controller (`ownerReferences[].controller`), if any.
    pub fn owner_kind(&self) -> Option<&str> {
        self.meta
            .owner_references
            .as_deref()?
            .iter()
            .find(|o| o.controller == Some(true))
            .map(|o| o.kind.as_str())
    }

    /// A node agent: a DaemonSet, a pod a DaemonSet owns, or a static pod (its mirror: the
    /// `kubernetes.io/config.mirror` annotation, or owned by its Node).
    pub fn is_daemon(&self) -> bool {
        self.kind == "DaemonSet"
            || matches!(self.owner_kind(), Some("DaemonSet" | "Node"))
            || self
                .meta
                .annotations
                .as_ref()
                .is_some_and(|a| a.contains_key("kubernetes.io/config.mirror"))
    }

    /// A pod template its controller recreates pods from (not a bare Pod).
    pub fn is_controller_template(&self) -> bool {
        self.kind != "Pod"
    }

    /// The tolerations, as written.
    pub fn tolerations(&self) -> &[Toleration] {
        self.spec.tolerations.as_deref().unwrap_or_default()
    }

    /// The path of toleration `i`.
    pub fn toleration_path(&self, i: usize) -> String {
        format!("{}.tolerations[{i}]", self.spec_path)
    }

    /// The tolerations its pods run with: a DaemonSet's get the DaemonSet controller's
    /// (`AddOrUpdateDaemonPodTolerations`).
    pub fn effective_tolerations(&self) -> Vec<Toleration> {
        if self.kind == "DaemonSet" {
            let mut spec = PodSpec {
                tolerations: self.spec.tolerations.clone(),
                host_network: self.spec.host_network,
                ..Default::default()
            };
            crate::defaults::add_daemonset_tolerations(&mut spec);
            spec.tolerations.unwrap_or_default()
        } else {
            self.tolerations().to_vec()
        }
    }

    /// The path of its placement: `nodeSelector` when it has one, else the required node
    /// affinity, else the pod spec.
    pub fn selector_path(&self) -> String {
        if self
            .spec
            .node_selector
            .as_ref()
            .is_some_and(|m| !m.is_empty())
        {
            format!("{}.nodeSelector", self.spec_path)
        } else if self
            .spec
            .affinity
            .as_ref()
            .and_then(|a| a.node_affinity.as_ref())
            .and_then(|n| {
                n.required_during_scheduling_ignored_during_execution
                    .as_ref()
            })
            .is_some()
        {
            format!(
                "{}.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution",
                self.spec_path
            )
        } else {
            self.spec_path.to_string()
        }
    }
}

/// A Karpenter NodePool's `nodeClassRef`, and the node classes of the input.
#[derive(Debug, Clone, Default)]
pub struct NodeClasses {
    /// `(pool index, kind, name)` of each NodePool's `spec.template.spec.nodeClassRef`.
    pub refs: Vec<(usize, String, String)>,
    /// `(kind, name)` of each node class (EC2NodeClass, AKSNodeClass, …) in the input.
    pub classes: Vec<(String, String)>,
}

/// Everything a lint run reads.
#[derive(Debug, Clone, Default)]
pub struct LintInput<'a> {
    /// Pods and workloads, in input order.
    pub objects: Vec<LintObject<'a>>,
    /// Nodes.
    pub nodes: Vec<&'a Node>,
    /// Node pools.
    pub pools: Vec<&'a Pool>,
    /// NodePools' node class references, and the node classes given.
    pub node_classes: NodeClasses,
    /// Feature gates for matching.
    pub gates: FeatureGates,
}

/// Where a workload's pods may go: a node of the input, or the node a pool would create.
#[derive(Debug, Clone)]
pub struct Target {
    /// What it is: `node/NAME` or `pool/NAME`.
    pub name: String,
    /// The node (for a pool, its template node without startup taints).
    pub node: Node,
    /// Where it came from.
    pub subject: Subject,
}

impl Target {
    /// Its taints.
    pub fn taints(&self) -> &[Taint] {
        self.node
            .spec
            .as_ref()
            .and_then(|s| s.taints.as_deref())
            .unwrap_or_default()
    }
}

/// A taint the control plane sets and removes by itself (`node.kubernetes.io/…` conditions,
/// the cloud provider's and the autoscalers' transient taints): never a node's own.
pub fn is_transient(taint: &Taint) -> bool {
    catalogue::lookup(&taint.key).is_some_and(|e| e.transient)
}

/// The run's shared view: the input, and the nodes and pool templates pods can meet.
pub struct Context<'a> {
    /// The input.
    pub input: &'a LintInput<'a>,
    /// Nodes and pool templates.
    pub targets: Vec<Target>,
    /// `Kind/namespace/name` of every object, to know an owner is in the input.
    ids: HashSet<String>,
    /// The targets each placement picks (indexes into `targets`), by the placement's JSON:
    /// workloads of a large cluster share a few selectors, and each is matched once.
    picked: std::cell::RefCell<std::collections::HashMap<String, std::rc::Rc<Vec<usize>>>>,
    /// The distinct taints of the targets, by key (a large cluster's thousands of nodes carry
    /// a handful).
    taints_by_key: BTreeMap<String, Vec<Taint>>,
}

impl<'a> Context<'a> {
    /// Builds the view.
    pub fn new(input: &'a LintInput<'a>) -> Self {
        let mut targets: Vec<Target> = input
            .nodes
            .iter()
            .enumerate()
            .map(|(i, n)| Target {
                name: format!("node/{}", n.metadata.name.as_deref().unwrap_or_default()),
                node: (*n).clone(),
                subject: Subject::Node(i),
            })
            .collect();
        for (i, p) in input.pools.iter().enumerate() {
            let mut node = crate::pool_nodes::pool_node(p, &p.name, 0, None);
            if let Some(spec) = node.spec.as_mut() {
                spec.taints = Some(p.taints.clone());
            }
            targets.push(Target {
                name: format!("pool/{}", p.name),
                node,
                subject: Subject::Pool(i),
            });
        }
        let ids = input.objects.iter().map(|o| o.id()).collect();
        let mut taints_by_key: BTreeMap<String, Vec<Taint>> = BTreeMap::new();
        for t in &targets {
            for x in t.taints() {
                let list = taints_by_key.entry(x.key.clone()).or_default();
                if !list
                    .iter()
                    .any(|y| y.value == x.value && y.effect == x.effect)
                {
                    list.push(Taint {
                        time_added: None,
                        ..x.clone()
                    });
                }
            }
        }
        Context {
            input,
            targets,
            ids,
            picked: Default::default(),
            taints_by_key,
        }
    }

    /// The distinct taints the targets carry with `key`.
    pub fn taints_with_key(&self, key: &str) -> &[Taint] {
        self.taints_by_key
            .get(key)
            .map(Vec::as_slice)
            .unwrap_or_default()
    }

    /// Every distinct taint the targets carry.
    pub fn distinct_taints(&self) -> impl Iterator<Item = &Taint> {
        self.taints_by_key.values().flatten()
    }

    /// Whether the object's controller is in the input too (its template is linted there).
    pub fn owner_in_input(&self, o: &LintObject<'_>) -> bool {
        let Some(owner) = o
            .meta
            .owner_references
            .as_deref()
            .and_then(|r| r.iter().find(|x| x.controller == Some(true)))
        else {
            return false;
        };
        self.ids
            .contains(&format!("{}/{}/{}", owner.kind, o.namespace(), owner.name))
    }

    /// The targets the object's nodeSelector and required node affinity pick.
    pub fn targets_of(&self, o: &LintObject<'_>) -> Vec<&Target> {
        let required = o
            .spec
            .affinity
            .as_ref()
            .and_then(|a| a.node_affinity.as_ref())
            .and_then(|n| {
                n.required_during_scheduling_ignored_during_execution
                    .as_ref()
            });
        let key = serde_json::to_string(&(&o.spec.node_selector, required)).unwrap_or_default();
        let cached = self.picked.borrow().get(&key).cloned();
        let picked = match cached {
            Some(p) => p,
            None => {
                let aff = RequiredNodeAffinity::from_pod_spec(o.spec);
                let p: std::rc::Rc<Vec<usize>> = std::rc::Rc::new(
                    (0..self.targets.len())
                        .filter(|i| aff.matches_ignoring_errors(&self.targets[*i].node))
                        .collect(),
                );
                self.picked.borrow_mut().insert(key, p.clone());
                p
            }
        };
        picked.iter().map(|i| &self.targets[*i]).collect()
    }

    /// The node's NoSchedule/NoExecute taints, other than transient ones, that `tols` do not
    /// tolerate.
    pub fn untolerated<'t>(&self, t: &'t Target, tols: &[Toleration]) -> Vec<&'t Taint> {
        t.taints()
            .iter()
            .filter(|x| x.effect == NO_SCHEDULE || x.effect == NO_EXECUTE)
            .filter(|x| !is_transient(x))
            .filter(|x| !tols.iter().any(|tol| tolerates(tol, x, &self.input.gates)))
            .collect()
    }
}

impl RequiredNodeAffinity {
    /// [`RequiredNodeAffinity::matches`], a malformed selector matching nothing.
    pub fn matches_ignoring_errors(&self, node: &Node) -> bool {
        self.matches(node).unwrap_or(false)
    }
}

/// What a run checks: rules off or on, severities, allowlists.
#[derive(Debug, Clone, Default)]
pub struct LintOptions {
    /// Rules turned off.
    pub disabled: HashSet<String>,
    /// Rules turned on again (over `disabled`).
    pub enabled: HashSet<String>,
    /// Severity overrides.
    pub severity: BTreeMap<String, Severity>,
    /// Per rule, objects it never reports: `Kind/namespace/name`, `namespace/name` or
    /// `namespace/*` patterns (`*` matches any run of characters).
    pub allow: BTreeMap<String, Vec<String>>,
}

/// The annotation that turns rules off for one object: `repel.dev/lint-ignore: rule-a,rule-b`
/// (`all` for every rule).
pub const IGNORE_ANNOTATION: &str = "repel.dev/lint-ignore";

/// Whether `pattern` (with `*` wildcards) matches `text`.
pub fn glob(pattern: &str, text: &str) -> bool {
    match pattern.split_once('*') {
        None => pattern == text,
        Some((head, rest)) => {
            let Some(after) = text.strip_prefix(head) else {
                return false;
            };
            (0..=after.len())
                .filter(|i| after.is_char_boundary(*i))
                .any(|i| glob(rest, &after[i..]))
        }
    }
}

impl LintOptions {
    /// Whether the rule runs.
    pub fn runs(&self, id: &str) -> bool {
        self.enabled.contains(id) || !self.disabled.contains(id)
    }

    /// Whether the object is allowlisted for the rule.
    fn allowed(&self, rule: &str, o: &LintObject<'_>) -> bool {
        let Some(patterns) = self.allow.get(rule) else {
            return false;
        };
        let (full, short) = (o.id(), format!("{}/{}", o.namespace(), o.name()));
        patterns.iter().any(|p| glob(p, &full) || glob(p, &short))
    }
}

/// The rules an object's `repel.dev/lint-ignore` annotation turns off.
fn ignored(meta: &ObjectMeta) -> Vec<&str> {
    meta.annotations
        .as_ref()
        .and_then(|a| a.get(IGNORE_ANNOTATION))
        .map(|v| v.split(',').map(str::trim).collect())
        .unwrap_or_default()
}

/// Runs every rule the options leave on over the input: findings in the order of the input's
/// objects (objects, then nodes, then pools), then of the rules.
pub fn lint(input: &LintInput<'_>, opts: &LintOptions) -> Vec<Finding> {
    let cx = Context::new(input);
    let mut out = Vec::new();
    for rule in rules::RULES {
        if !opts.runs(rule.info.id) {
            continue;
        }
        let before = out.len();
        (rule.check)(&cx, &mut out);
        let sev = opts.severity.get(rule.info.id).copied();
        for f in &mut out[before..] {
            f.severity = sev.unwrap_or(f.severity);
        }
    }
    out.retain(|f| {
        let meta = match f.subject {
            Subject::Object(i) => {
                let o = &input.objects[i];
                if opts.allowed(f.rule, o) {
                    return false;
                }
                o.meta
            }
            Subject::Node(i) => &input.nodes[i].metadata,
            Subject::Pool(_) => return true,
        };
        let ig = ignored(meta);
        !ig.iter().any(|r| *r == f.rule || *r == "all")
    });
    out.sort_by_key(|f| f.subject);
    out
}

/// A toleration as YAML on one line (flow style), for messages and fixes.
pub fn toleration_yaml(t: &Toleration) -> String {
    let mut parts = Vec::new();
    if let Some(k) = t.key.as_deref().filter(|k| !k.is_empty()) {
        parts.push(format!("key: {}", yaml_str(k)));
    }
    if let Some(o) = t.operator.as_deref().filter(|k| !k.is_empty()) {
        parts.push(format!("operator: {o}"));
    }
    if let Some(v) = t.value.as_deref()
        && (!v.is_empty() || t.operator.as_deref() != Some("Exists"))
    {
        parts.push(format!("value: {}", yaml_str(v)));
    }
    if let Some(e) = t.effect.as_deref().filter(|k| !k.is_empty()) {
        parts.push(format!("effect: {e}"));
    }
    if let Some(s) = t.toleration_seconds {
        parts.push(format!("tolerationSeconds: {s}"));
    }
    format!("{{{}}}", parts.join(", "))
}

/// A string as a YAML scalar: plain when that reads back as the same string, else quoted.
pub fn yaml_str(s: &str) -> String {
    let plain = !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '/' | '-' | '_'))
        && !matches!(
            s.to_ascii_lowercase().as_str(),
            "true" | "false" | "yes" | "no" | "on" | "off" | "null" | "y" | "n" | "~"
        )
        && s.parse::<f64>().is_err();
    if plain {
        s.to_string()
    } else {
        format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""))
    }
}

/// A `- {…}` list item of a fix.
pub fn fix_item(t: &Toleration) -> String {
    format!("- {}", toleration_yaml(t))
}

#[cfg(test)]
pub(crate) mod testing;

impl<'a> LintObject<'a> {
    /// A workload's pod template (`None` when it has no pod spec).
    pub fn from_workload(w: &'a crate::workload::Workload) -> Option<Self> {
        let (t, path) = w.template()?;
        Some(LintObject {
            kind: w.kind(),
            meta: w.metadata(),
            template_meta: t.metadata.as_ref(),
            spec: t.spec.as_ref()?,
            spec_path: path,
        })
    }

    /// A pod (`None` without a spec).
    pub fn from_pod(p: &'a k8s_openapi::api::core::v1::Pod) -> Option<Self> {
        Some(LintObject {
            kind: "Pod",
            meta: &p.metadata,
            template_meta: None,
            spec: p.spec.as_ref()?,
            spec_path: "spec",
        })
    }
}
