//! The ExtendedResourceToleration admission plugin
//! (`plugin/pkg/admission/extendedresourcetoleration`) and upstream's extended-resource name
//! helpers (`pkg/apis/core/helper`).
//!
//! A node pool of GPUs is commonly tainted with the GPU's resource name (`nvidia.com/gpu:NoSchedule`)
//! so that only pods asking for a GPU land there. With this plugin on, kube-apiserver gives
//! every pod that requests an extended resource the matching toleration, so the pod owner does
//! not have to write it (kubernetes#55080). Upstream registers it but leaves it off by default.

use std::collections::BTreeSet;

use k8s_openapi::api::core::v1::{Container, PodSpec, Toleration};

use super::{add_or_update_toleration, exists_toleration};
use crate::names::is_qualified_name;
use crate::taint::NO_SCHEDULE;

/// The plugin's name, as `--enable-admission-plugins` spells it.
pub const EXTENDED_RESOURCE_TOLERATION: &str = "ExtendedResourceToleration";
/// Upstream `core.ResourceDefaultNamespacePrefix`: the namespace of native resources.
pub const RESOURCE_DEFAULT_NAMESPACE_PREFIX: &str = "kubernetes.io/";
/// Upstream `core.DefaultResourceRequestsPrefix`: the prefix quota gives request names.
pub const DEFAULT_RESOURCE_REQUESTS_PREFIX: &str = "requests.";

/// Upstream `helper.IsNativeResource` (`pkg/apis/core/helper/helpers.go`, v1.35): a name without
/// a `/` (implicitly in `kubernetes.io/`), or one containing `kubernetes.io/` anywhere (so
/// `example.kubernetes.io/x` is native too).
pub fn is_native_resource(name: &str) -> bool {
    !name.contains('/') || name.contains(RESOURCE_DEFAULT_NAMESPACE_PREFIX)
}

/// Upstream `helper.IsExtendedResourceName` (`pkg/apis/core/helper/helpers.go`, v1.35). A name is
/// extended when all of:
///
/// 1. it is not native ([`is_native_resource`]): it has a `/` and no `kubernetes.io/`;
/// 2. it does not start with `requests.` (quota's convention);
/// 3. `requests.` + the name is a qualified name (`IsQualifiedName`): at most one `/`, a DNS
///    subdomain prefix, a name part of at most 63 characters.
pub fn is_extended_resource_name(name: &str) -> bool {
    if is_native_resource(name) || name.starts_with(DEFAULT_RESOURCE_REQUESTS_PREFIX) {
        return false;
    }
    is_qualified_name(&format!("{DEFAULT_RESOURCE_REQUESTS_PREFIX}{name}")).is_empty()
}

/// The toleration the plugin adds for `resource`: `{key: resource, operator: Exists, effect:
/// NoSchedule}`, without value or `tolerationSeconds`.
pub fn extended_resource_toleration_for(resource: &str) -> Toleration {
    exists_toleration(resource, NO_SCHEDULE, None)
}

/// The extended resources `spec` requests, sorted and without duplicates: the request names of
/// every container and init container that pass [`is_extended_resource_name`]. Limits are not
/// read (defaulting has already copied a limit without a request into the requests).
pub fn requested_extended_resources(spec: &PodSpec) -> Vec<String> {
    let containers: Vec<&Container> = spec
        .containers
        .iter()
        .chain(spec.init_containers.iter().flatten())
        .collect();
    let names: BTreeSet<&str> = containers
        .iter()
        .filter_map(|c| c.resources.as_ref()?.requests.as_ref())
        .flat_map(|requests| requests.keys())
        .map(String::as_str)
        .filter(|name| is_extended_resource_name(name))
        .collect();
    names.into_iter().map(str::to_string).collect()
}

/// The ExtendedResourceToleration admission plugin's `Admit`
/// (`plugin/pkg/admission/extendedresourcetoleration/admission.go`, v1.35), run on pod Create and
/// Update:
///
/// 1. Collect the names in `spec.containers[*].resources.requests` and
///    `spec.initContainers[*].resources.requests` that are extended resources
///    ([`is_extended_resource_name`]) into a set; ephemeral containers, limits and pod-level
///    resources are not read.
/// 2. For each name in sorted order (Go's `sets.String.List()`, byte order), call
///    `helper.AddOrUpdateTolerationInPod` with `{key: name, operator: Exists, effect:
///    NoSchedule}` ([`add_or_update_toleration`]): a toleration with the same key, operator,
///    value and effect is replaced in place (dropping any `tolerationSeconds`); otherwise the new
///    one is appended.
/// 3. So only an exact match stops the append: a wildcard toleration, or one for the same key
///    with another operator, value or effect, does not.
pub fn extended_resource_toleration(spec: &mut PodSpec) {
    for resource in requested_extended_resources(spec) {
        add_or_update_toleration(spec, &extended_resource_toleration_for(&resource));
    }
}

#[cfg(test)]
mod tests;
