//! `kubectl taint` as pure functions: the argument syntax (`key=value:Effect`, `key:Effect-`,
//! `key-`), the command line's classification and checks, and the rules that apply the change to
//! one node's taints — upstream kubectl v1.32+ (`staging/src/k8s.io/kubectl/pkg/cmd/taint/`
//! `taint.go` and `utils.go`), every message byte for byte as the real v1.32/v1.33 binaries print
//! it. Also the one place upstream stamps `timeAdded` on node taints ([`stamp_time_added`]).

use std::fmt;
use std::str::FromStr;

use k8s_openapi::api::core::v1::Taint;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::Time;
use k8s_openapi::jiff::Timestamp;

use crate::names::{is_qualified_name, is_valid_label_value};
use crate::taint::{EFFECTS, match_taint, new_taint, taint_to_string};

/// Operation word for a node whose taint list grew (upstream `TAINTED`).
pub const TAINTED: &str = "tainted";
/// Operation word for a pure removal or a no-op (upstream `UNTAINTED`).
pub const UNTAINTED: &str = "untainted";
/// Operation word with `--overwrite`, or for an addition plus a removal (upstream `MODIFIED`).
pub const MODIFIED: &str = "modified";
/// The second stderr line kubectl prints after a usage error.
pub const USAGE_HINT: &str = "See 'kubectl taint -h' for help and examples";
/// No resource token before the taint arguments.
pub const NO_RESOURCES: &str = "one or more resources must be specified as <resource> <name>";
/// No taint argument at all.
pub const NO_TAINT_UPDATE: &str = "at least one taint update is required";
/// `--all` together with a non-empty `--selector`.
pub const ALL_WITH_SELECTOR: &str =
    "setting 'all' parameter with a non empty selector is prohibited";
/// Neither `--all` nor a selector, and no node name.
pub const NO_RESOURCE_NAME: &str =
    "at least one resource name must be specified since 'all' parameter is not set";

/// Resource types (after lower-casing and dropping a `.group/version` suffix) that the API
/// server's REST mapper resolves to `Node`: plural, singular and short name.
pub const NODE_RESOURCE_NAMES: [&str; 3] = ["nodes", "node", "no"];

/// Built-in resource names a kube-apiserver's discovery serves besides nodes. kubectl maps these
/// to a kind other than `Node` ("invalid resource type …"); any other name is unknown to the
/// server ("the server doesn't have a resource type …"). This list stands in for discovery.
#[rustfmt::skip]
const OTHER_RESOURCE_NAMES: &[&str] = &[
    "pods", "pod", "po", "namespaces", "namespace", "ns", "events", "event", "ev",
    "services", "service", "svc", "endpoints", "ep", "configmaps", "configmap", "cm",
    "secrets", "secret", "serviceaccounts", "serviceaccount", "sa",
    "persistentvolumes", "persistentvolume", "pv",
    "persistentvolumeclaims", "persistentvolumeclaim", "pvc",
    "replicationcontrollers", "replicationcontroller", "rc",
    "resourcequotas", "resourcequota", "quota", "limitranges", "limitrange", "limits",
    "podtemplates", "podtemplate", "bindings", "binding",
    "componentstatuses", "componentstatus", "cs",
    "daemonsets", "daemonset", "ds", "deployments", "deployment", "deploy",
    "replicasets", "replicaset", "rs", "statefulsets", "statefulset", "sts",
    "jobs", "job", "cronjobs", "cronjob", "cj",
    "poddisruptionbudgets", "poddisruptionbudget", "pdb", "leases", "lease",
];

/// A spec, or a pair of specs, that `kubectl taint` rejects. The messages are upstream's.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ParseTaintError {
    /// More than one `:`, more than one `=` before the `:`, or an addition without an effect.
    #[error("invalid taint spec: {spec}")]
    InvalidSpec {
        /// The spec as parsed (without a removal's trailing `-`).
        spec: String,
    },
    /// The key is not a qualified name, or the value is not a label value.
    #[error("invalid taint spec: {spec}, {details}")]
    InvalidKeyOrValue {
        /// The spec as parsed (without a removal's trailing `-`).
        spec: String,
        /// Upstream's validation messages joined by `"; "`.
        details: String,
    },
    /// The part after the `:` is not `NoSchedule`, `PreferNoSchedule` or `NoExecute`.
    #[error("invalid taint effect: {effect}, unsupported taint effect")]
    InvalidEffect {
        /// The rejected effect, possibly empty (`key:`).
        effect: String,
    },
    /// Two additions with the same key and effect; Go's `%v` of the second taint.
    #[error("duplicated taints with the same key and effect: {{{key} {value} {effect} <nil>}}")]
    Duplicated {
        /// Key of the second addition.
        key: String,
        /// Value of the second addition (empty when none).
        value: String,
        /// Effect of the second addition.
        effect: String,
    },
    /// Additions that are also removed in the same command; one `key=removalEffect` per pair.
    #[error("can not both modify and remove the following taint(s) in the same command: {}", .conflicts.join(", "))]
    Conflict {
        /// `key=effect` of the removal (`key=` for a removal by key), per conflicting pair.
        conflicts: Vec<String>,
    },
}

/// One taint argument of `kubectl taint`.
#[derive(Debug, Clone, PartialEq)]
pub enum TaintSpec {
    /// `key=value:Effect`, `key:Effect` or `key=:Effect`: add (or with `--overwrite` replace) it.
    Add(Taint),
    /// `key-` (every effect), `key:Effect-` or `key=value:Effect-` (the value is ignored).
    Remove {
        /// The key to remove.
        key: String,
        /// The effect to remove; `None` removes the key under every effect.
        effect: Option<String>,
    },
}

/// Upstream `parseTaint` (kubectl `utils.go`, v1.32+): one spec without the removal `-`.
///
/// 1. Split on `:`. One part is a bare key; two parts are `left:effect`; more is
///    "invalid taint spec: <spec>".
/// 2. With an effect, it must be one of the three effects, else "invalid taint effect: …".
/// 3. `left` is split on `=`: more than two pieces is "invalid taint spec: <spec>"; a value, if
///    present (it may be empty), must be a valid label value.
/// 4. The key must be a qualified name. Validation messages are joined by `"; "`.
///
/// An empty value is returned as `None`; a missing effect as `""`.
pub fn parse_taint(spec: &str) -> Result<Taint, ParseTaintError> {
    let invalid = || ParseTaintError::InvalidSpec {
        spec: spec.to_string(),
    };
    let with_details = |errs: Vec<String>| ParseTaintError::InvalidKeyOrValue {
        spec: spec.to_string(),
        details: errs.join("; "),
    };
    let parts: Vec<&str> = spec.split(':').collect();
    let (key, value, effect) = match parts.as_slice() {
        [key] => (*key, "", ""),
        [left, effect] => {
            validate_taint_effect(effect)?;
            let kv: Vec<&str> = left.split('=').collect();
            match kv.as_slice() {
                [key] => (*key, "", *effect),
                [key, value] => {
                    let errs = is_valid_label_value(value);
                    if !errs.is_empty() {
                        return Err(with_details(errs));
                    }
                    (*key, *value, *effect)
                }
                _ => return Err(invalid()),
            }
        }
        _ => return Err(invalid()),
    };
    let errs = is_qualified_name(key);
    if !errs.is_empty() {
        return Err(with_details(errs));
    }
    Ok(new_taint(key, value, effect))
}

/// Upstream `validateTaintEffect`: exactly `NoSchedule`, `PreferNoSchedule` or `NoExecute`.
pub fn validate_taint_effect(effect: &str) -> Result<(), ParseTaintError> {
    if EFFECTS.contains(&effect) {
        Ok(())
    } else {
        Err(ParseTaintError::InvalidEffect {
            effect: effect.to_string(),
        })
    }
}

impl FromStr for TaintSpec {
    type Err = ParseTaintError;

    /// Upstream `parseTaints` for one argument: a trailing `-` makes a removal of the rest
    /// (parsed and validated by [`parse_taint`], value dropped); otherwise an addition, which
    /// needs an effect ("invalid taint spec: <spec>").
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        if let Some(rest) = s.strip_suffix('-') {
            let t = parse_taint(rest)?;
            return Ok(TaintSpec::Remove {
                key: t.key,
                effect: (!t.effect.is_empty()).then_some(t.effect),
            });
        }
        let t = parse_taint(s)?;
        if t.effect.is_empty() {
            return Err(ParseTaintError::InvalidSpec {
                spec: s.to_string(),
            });
        }
        Ok(TaintSpec::Add(t))
    }
}

impl fmt::Display for TaintSpec {
    /// `key=value:Effect` / `key:Effect` for an addition, `key:Effect-` / `key-` for a removal.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TaintSpec::Add(t) => f.write_str(&taint_to_string(t)),
            TaintSpec::Remove { key, effect: None } => write!(f, "{key}-"),
            TaintSpec::Remove {
                key,
                effect: Some(e),
            } => write!(f, "{key}:{e}-"),
        }
    }
}

/// Upstream `parseTaints` (kubectl `utils.go`, v1.32+): the taint arguments, in order, into
/// additions and removals.
///
/// 1. Each argument parses as a [`TaintSpec`]; the first error stops the parse.
/// 2. A removal becomes a taint with only key and effect (empty effect: every effect).
/// 3. A second addition with the same key and effect is "duplicated taints with the same key and
///    effect: {k v E <nil>}".
pub fn parse_taints<S: AsRef<str>>(
    specs: &[S],
) -> Result<(Vec<Taint>, Vec<Taint>), ParseTaintError> {
    let mut to_add: Vec<Taint> = Vec::new();
    let mut to_remove = Vec::new();
    for spec in specs {
        match spec.as_ref().parse::<TaintSpec>()? {
            TaintSpec::Remove { key, effect } => {
                to_remove.push(new_taint(&key, "", effect.as_deref().unwrap_or_default()));
            }
            TaintSpec::Add(t) => {
                if to_add.iter().any(|a| match_taint(a, &t)) {
                    return Err(ParseTaintError::Duplicated {
                        value: t.value.unwrap_or_default(),
                        key: t.key,
                        effect: t.effect,
                    });
                }
                to_add.push(t);
            }
        }
    }
    Ok((to_add, to_remove))
}

/// The conflict check of upstream `TaintOptions.Validate` (kubectl `taint.go`, v1.32+).
///
/// 1. For each addition, then each removal with the same key whose effect is empty or equal,
///    record `key=<removal effect>` (so `key=` for a removal by key).
/// 2. Any record is "can not both modify and remove the following taint(s) in the same command:
///    …", records joined by `", "`.
pub fn check_conflicts(to_add: &[Taint], to_remove: &[Taint]) -> Result<(), ParseTaintError> {
    let conflicts: Vec<String> = to_add
        .iter()
        .flat_map(|a| {
            to_remove
                .iter()
                .filter(move |r| a.key == r.key && (r.effect.is_empty() || a.effect == r.effect))
        })
        .map(|r| format!("{}={}", r.key, r.effect))
        .collect();
    if conflicts.is_empty() {
        Ok(())
    } else {
        Err(ParseTaintError::Conflict { conflicts })
    }
}

/// A `kubectl taint` command line that kubectl rejects before it fetches any node.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TaintCommandError {
    /// A resource token after the first taint argument.
    #[error("all resources must be specified before taint changes: {0}")]
    ResourceAfterTaint(String),
    /// No resource token at all.
    #[error("{}", NO_RESOURCES)]
    NoResources,
    /// No taint argument.
    #[error("{}", NO_TAINT_UPDATE)]
    NoTaintUpdate,
    /// A taint argument is malformed, duplicated, or conflicts with a removal.
    #[error(transparent)]
    Taint(#[from] ParseTaintError),
    /// The REST mapper does not know the resource type (e.g. `node/n1`: kubectl has no
    /// `TYPE/NAME` form for taint). kubectl prints this one without the `error: ` prefix.
    #[error("the server doesn't have a resource type {0:?}")]
    UnknownResourceType(String),
    /// The resource type is known but is not Node (lower-cased as kubectl prints it).
    #[error("invalid resource type {0}, only node types are supported")]
    InvalidResourceType(String),
    /// `--all` with a non-empty selector.
    #[error("{}", ALL_WITH_SELECTOR)]
    AllWithSelector,
    /// No node name, no `--all`, no selector.
    #[error("{}", NO_RESOURCE_NAME)]
    NoResourceName,
}

impl TaintCommandError {
    /// Whether kubectl reports this as a usage error, printing [`USAGE_HINT`] after it: only
    /// the errors of `parseTaints` (spec, effect, key, value, duplicate). The conflict check
    /// and every other check are plain errors.
    pub fn is_usage_error(&self) -> bool {
        matches!(self, Self::Taint(e) if !matches!(e, ParseTaintError::Conflict { .. }))
    }

    /// Exactly what kubectl v1.32 writes to stderr (exit status 1), newline-terminated.
    pub fn kubectl_stderr(&self) -> String {
        match self {
            Self::UnknownResourceType(_) => format!("{self}\n"),
            _ if self.is_usage_error() => format!("error: {self}\n{USAGE_HINT}\n"),
            _ => format!("error: {self}\n"),
        }
    }
}

/// A parsed, checked `kubectl taint` command.
#[derive(Debug, Clone, PartialEq)]
pub struct TaintCommand {
    /// The names after the resource type, in order. kubectl ignores them when `all` is set or
    /// the selector is non-empty (see [`TaintCommand::selection`]).
    pub node_names: Vec<String>,
    /// Additions in argument order (value `None` when empty, no `timeAdded`).
    pub to_add: Vec<Taint>,
    /// Removals in argument order: key and effect only (effect `""` = every effect).
    pub to_remove: Vec<Taint>,
    /// `--all`.
    pub all: bool,
    /// `-l/--selector`, `None` when absent or empty.
    pub selector: Option<String>,
    /// `--overwrite`.
    pub overwrite: bool,
}

/// Which nodes a [`TaintCommand`] visits, as kubectl's resource builder decides.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NodeSelection<'a> {
    /// The named nodes, in order (a missing one is a `NotFound` for that name only).
    Names(&'a [String]),
    /// Every node (`--all`), names ignored.
    All,
    /// Nodes matching the label selector, names ignored.
    Selector(&'a str),
}

impl TaintCommand {
    /// The nodes kubectl visits: `--all` first, then a selector, else the names.
    pub fn selection(&self) -> NodeSelection<'_> {
        match (&self.selector, self.all) {
            (_, true) => NodeSelection::All,
            (Some(s), false) => NodeSelection::Selector(s),
            (None, false) => NodeSelection::Names(&self.node_names),
        }
    }
}

/// Whether kubectl classifies an argument as a taint change: it contains `=` or `:`, or ends
/// in `-`.
pub fn is_taint_arg(arg: &str) -> bool {
    arg.contains('=') || arg.contains(':') || arg.ends_with('-')
}

/// Upstream `TaintOptions.Complete` + `Validate` + `validateFlags` (kubectl `taint.go`,
/// v1.32+), in upstream's order:
///
/// 1. Arguments are resource tokens until the first taint argument ([`is_taint_arg`]); a
///    resource token after it is "all resources must be specified before taint changes: <arg>".
/// 2. No resource token: [`NO_RESOURCES`]. No taint argument: [`NO_TAINT_UPDATE`].
/// 3. [`parse_taints`] (usage errors).
/// 4. The first token, lower-cased, minus any `.`-suffix, must resolve to Node (`nodes`,
///    `node`, `no`); `nodes/n1` and `node/n1` do not resolve (real kubectl prints "the server
///    doesn't have a resource type \"node/n1\"").
/// 5. [`check_conflicts`].
/// 6. `--all` with a non-empty selector: [`ALL_WITH_SELECTOR`]; neither and no name:
///    [`NO_RESOURCE_NAME`].
pub fn parse_taint_command<S: AsRef<str>>(
    args: &[S],
    all: bool,
    selector: Option<&str>,
    overwrite: bool,
) -> Result<TaintCommand, TaintCommandError> {
    let mut resources = Vec::new();
    let mut taint_args = Vec::new();
    for arg in args.iter().map(AsRef::as_ref) {
        match (taint_args.is_empty(), is_taint_arg(arg)) {
            (_, true) => taint_args.push(arg),
            (true, false) => resources.push(arg.to_string()),
            (false, false) => return Err(TaintCommandError::ResourceAfterTaint(arg.to_string())),
        }
    }
    let Some((resource_type, names)) = resources.split_first() else {
        return Err(TaintCommandError::NoResources);
    };
    if taint_args.is_empty() {
        return Err(TaintCommandError::NoTaintUpdate);
    }
    let (to_add, to_remove) = parse_taints(&taint_args)?;
    check_resource_type(resource_type)?;
    check_conflicts(&to_add, &to_remove)?;
    let selector = selector.filter(|s| !s.is_empty()).map(str::to_string);
    match (all, &selector) {
        (true, Some(_)) => return Err(TaintCommandError::AllWithSelector),
        (false, None) if names.is_empty() => return Err(TaintCommandError::NoResourceName),
        _ => {}
    }
    Ok(TaintCommand {
        node_names: names.to_vec(),
        to_add,
        to_remove,
        all,
        selector,
        overwrite,
    })
}

/// The resource-type check of `Validate`: `explain.SplitAndParseResourceRequest` then
/// `KindFor`, against a kube-apiserver's built-in resources.
fn check_resource_type(resource: &str) -> Result<(), TaintCommandError> {
    let lower = resource.to_lowercase();
    let trimmed = lower.strip_suffix('.').unwrap_or(&lower);
    let name = trimmed.split('.').next().unwrap_or_default();
    if NODE_RESOURCE_NAMES.contains(&name) {
        Ok(())
    } else if OTHER_RESOURCE_NAMES.contains(&name) {
        Err(TaintCommandError::InvalidResourceType(lower))
    } else {
        Err(TaintCommandError::UnknownResourceType(name.to_string()))
    }
}

/// What `kubectl taint` did to one node, printed as `node/<name> <operation>`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TaintOperation {
    /// The list grew (and nothing was removed, and no `--overwrite`).
    Tainted,
    /// Nothing was added: a removal, or a no-op.
    Untainted,
    /// `--overwrite` was given, or taints were both added and removed.
    Modified,
}

impl TaintOperation {
    /// The word kubectl prints: [`TAINTED`], [`UNTAINTED`] or [`MODIFIED`].
    pub fn as_str(self) -> &'static str {
        match self {
            TaintOperation::Tainted => TAINTED,
            TaintOperation::Untainted => UNTAINTED,
            TaintOperation::Modified => MODIFIED,
        }
    }
}

impl fmt::Display for TaintOperation {
    /// The operation word.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// kubectl's success line for one node: `node/<name> <operation>`.
pub fn success_line(node_name: &str, operation: TaintOperation) -> String {
    format!("node/{node_name} {operation}")
}

/// Why `kubectl taint` left one node unchanged (nothing is patched).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ApplyTaintError {
    /// Without `--overwrite`, an addition's key and effect already exist on the node.
    #[error("node {node} already has {} taint(s) with same effect(s) and --overwrite is false", .keys.join(","))]
    AlreadyExists {
        /// The node's name.
        node: String,
        /// Keys of the additions that already exist, in argument order.
        keys: Vec<String>,
    },
    /// Removals that removed nothing. Displays as Go's aggregate error (`[a, b]` when several).
    #[error("{}", go_aggregate(&.taints.iter().map(|t| not_found_message(t)).collect::<Vec<_>>()))]
    NotFound {
        /// Upstream `ToString` of each such removal (`key` or `key:Effect`), in argument order.
        taints: Vec<String>,
    },
}

/// `taint "<removal>" not found`.
fn not_found_message(removal: &str) -> String {
    format!("taint {removal:?} not found")
}

/// Go's `utilerrors.Aggregate.Error()` (`k8s.io/apimachinery/pkg/util/errors/errors.go`,
/// `aggregate.Error`): one message as is; several de-duplicated, joined by `", "` in
/// brackets.
pub fn go_aggregate(msgs: &[String]) -> String {
    let mut seen: Vec<&str> = Vec::new();
    for m in msgs {
        if !seen.contains(&m.as_str()) {
            seen.push(m);
        }
    }
    match seen.as_slice() {
        [one] => (*one).to_string(),
        _ => format!("[{}]", seen.join(", ")),
    }
}

impl ApplyTaintError {
    /// The messages kubectl prints for this node, one per line, without the `error: ` prefix
    /// (one line per removal that found nothing, duplicates kept).
    pub fn lines(&self) -> Vec<String> {
        match self {
            Self::AlreadyExists { .. } => vec![self.to_string()],
            Self::NotFound { taints } => taints.iter().map(|t| not_found_message(t)).collect(),
        }
    }

    /// Exactly what kubectl v1.32 writes to stderr when this is the command's only error: a
    /// single message gets `error: `; several come one per line without it.
    pub fn kubectl_stderr(&self) -> String {
        match self.lines().as_slice() {
            [one] => format!("error: {one}\n"),
            lines => lines.iter().map(|l| format!("{l}\n")).collect(),
        }
    }
}

/// What kubectl writes to stderr for the node errors of one command (several nodes): one
/// error is [`ApplyTaintError::kubectl_stderr`]; several are one line each, no `error: `, a
/// node's several not-found errors bracketed (`[taint "x" not found, taint "y" not found]`).
pub fn kubectl_stderr_for_nodes(errors: &[ApplyTaintError]) -> String {
    match errors {
        [one] => one.kubectl_stderr(),
        many => many.iter().map(|e| format!("{e}\n")).collect(),
    }
}

/// Upstream `updateTaints` + `checkIfTaintsAlreadyExists` + `reorganizeTaints` (kubectl
/// `taint.go`/`utils.go`, v1.32+) on one node's taints:
///
/// 1. Without `overwrite`, every addition whose key and effect exist on the node is an
///    [`ApplyTaintError::AlreadyExists`] listing the keys (value differences do not matter).
/// 2. The new list starts as the additions, then each old taint whose key and effect are not
///    yet in the list, in old order. `added` = the length differs from the old length.
/// 3. Each removal drops every taint with its key and effect (empty effect: every effect of the
///    key); one that drops nothing is `taint "<key[:Effect]>" not found`. Any such error is an
///    [`ApplyTaintError::NotFound`] and nothing changes. `removed` = the last removal dropped
///    something.
/// 4. Operation: `overwrite` or (`added` and `removed`) → modified; else `added` → tainted;
///    else untainted.
///
/// Old taints keep their `timeAdded`; an addition replacing one carries none (kubectl never
/// sets it). [`plan_taints`] gives the same result as an edit to apply in place.
pub fn apply_taints(
    node_name: &str,
    old: &[Taint],
    to_add: &[Taint],
    to_remove: &[Taint],
    overwrite: bool,
) -> Result<(Vec<Taint>, TaintOperation), ApplyTaintError> {
    let edit = plan_taints(node_name, old, to_add, to_remove, overwrite)?;
    Ok((edit.applied_to(old), edit.operation))
}

/// Stamps `timeAdded = now` on each taint, whatever its effect, overwriting any earlier time —
/// the first step of upstream `SwapNodeControllerTaint` (`pkg/controller/util/node/`
/// `controller_utils.go`, v1.35), the **only** place upstream sets `timeAdded` on node taints.
///
/// Where upstream stamps and where it does not (kubernetes/kubernetes, v1.32–v1.35):
/// 1. The node lifecycle controller stamps every taint it adds: its `NoSchedule` condition
///    taints (`doNoScheduleTaintingPass`) and `not-ready`/`unreachable:NoExecute`
///    (`doNoExecuteTaintingPass`, `processTaintBaseEviction`); see [`add_controller_taints`].
/// 2. The API server does not: `pkg/registry/core/node/strategy.go` (`PrepareForCreate`,
///    `PrepareForUpdate`, `Canonicalize`), defaulting and validation never touch `timeAdded`,
///    on create or on update. A NoExecute taint written through the API (kubectl, PATCH, PUT)
///    has none unless the client sent one, and a kept taint keeps whatever it had (issues
///    #42394, #98482, #112409: "the only place I see it getting set is by the node controller").
/// 3. kubectl does not either (see [`apply_taints`]).
pub fn stamp_time_added(taints: &mut [Taint], now: Timestamp) {
    for t in taints {
        t.time_added = Some(Time(now));
    }
}

/// Upstream `AddOrUpdateTaint` (`pkg/util/taints/taints.go`, v1.35) on a node's taints:
///
/// 1. An existing taint with the same key and effect that is semantically equal (value and
///    `timeAdded` too) means no change: `None`.
/// 2. One that differs is replaced in place by `taint`.
/// 3. Otherwise `taint` is appended.
pub fn add_or_update_taint(taints: &[Taint], taint: &Taint) -> Option<Vec<Taint>> {
    let mut out = Vec::with_capacity(taints.len() + 1);
    let mut updated = false;
    for t in taints {
        if match_taint(taint, t) {
            if semantically_equal(taint, t) {
                return None;
            }
            out.push(taint.clone());
            updated = true;
        } else {
            out.push(t.clone());
        }
    }
    if !updated {
        out.push(taint.clone());
    }
    Some(out)
}

/// Go's `Semantic.DeepEqual` on two taints: an unset value equals an empty one.
fn semantically_equal(a: &Taint, b: &Taint) -> bool {
    a.key == b.key
        && a.effect == b.effect
        && a.value.as_deref().unwrap_or_default() == b.value.as_deref().unwrap_or_default()
        && a.time_added == b.time_added
}

/// The adding half of upstream `SwapNodeControllerTaint` + `AddOrUpdateTaintOnNode`
/// (`pkg/controller/util/node/controller_utils.go`, `pkg/controller/controller_utils.go`, v1.35):
///
/// 1. Every taint to add gets `timeAdded = now` ([`stamp_time_added`]).
/// 2. They are applied in order with [`add_or_update_taint`].
/// 3. `None` when none of them changed anything (upstream sends no update).
///
/// The controller only asks for taints it found missing, so a taint already on the node keeps
/// its original `timeAdded`.
pub fn add_controller_taints(
    taints: &[Taint],
    to_add: &[Taint],
    now: Timestamp,
) -> Option<Vec<Taint>> {
    let mut stamped = to_add.to_vec();
    stamp_time_added(&mut stamped, now);
    let mut current = taints.to_vec();
    let mut updated = false;
    for t in &stamped {
        if let Some(next) = add_or_update_taint(&current, t) {
            current = next;
            updated = true;
        }
    }
    updated.then_some(current)
}

mod edit;
pub use edit::{TaintEdit, plan_taints};

#[cfg(test)]
mod tests;
