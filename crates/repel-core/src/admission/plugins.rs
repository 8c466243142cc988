//! Admission plugins by name: kube-apiserver's `--enable-admission-plugins` and
//! `--disable-admission-plugins` applied to an [`AdmissionConfig`].

use std::collections::BTreeSet;
use std::fmt;

use super::AdmissionConfig;
use crate::defaults::{DefaultTolerationSecondsConfig, PodTolerationRestrictionConfig};

pub use crate::defaults::EXTENDED_RESOURCE_TOLERATION;
/// The DefaultTolerationSeconds plugin's name.
pub const DEFAULT_TOLERATION_SECONDS: &str = "DefaultTolerationSeconds";
/// The PodTolerationRestriction plugin's name.
pub const POD_TOLERATION_RESTRICTION: &str = "PodTolerationRestriction";
/// The Priority plugin's name.
pub const PRIORITY: &str = "Priority";
/// The TaintNodesByCondition plugin's name.
pub const TAINT_NODES_BY_CONDITION: &str = "TaintNodesByCondition";

/// Upstream `AllOrderedPlugins` (`pkg/kubeapiserver/options/plugins.go`, master after v1.35):
/// every plugin kube-apiserver registers, in the order it runs them. These are the names the two
/// flags accept.
pub const ALL_ORDERED_PLUGINS: [&str; 41] = [
    "AlwaysAdmit",
    "NamespaceAutoProvision",
    "NamespaceLifecycle",
    "NamespaceExists",
    "LimitPodHardAntiAffinityTopology",
    "LimitRanger",
    "ServiceAccount",
    "NodeRestriction",
    TAINT_NODES_BY_CONDITION,
    "AlwaysPullImages",
    "ImagePolicyWebhook",
    "PodSecurity",
    "PodNodeSelector",
    PRIORITY,
    DEFAULT_TOLERATION_SECONDS,
    POD_TOLERATION_RESTRICTION,
    "EventRateLimit",
    EXTENDED_RESOURCE_TOLERATION,
    "DefaultStorageClass",
    "StorageObjectInUseProtection",
    "PodGroupProtection",
    "OwnerReferencesPermissionEnforcement",
    "PersistentVolumeClaimResize",
    "RuntimeClass",
    "CertificateApproval",
    "CertificateSigning",
    "ClusterTrustBundleAttest",
    "CertificateSubjectRestriction",
    "DefaultIngressClass",
    "DenyServiceExternalIPs",
    "PodTopologyLabels",
    "PodGroupWorkloadExists",
    "NodeDeclaredFeatureValidator",
    "JobValidation",
    "PodResizeValidator",
    "MutatingAdmissionPolicy",
    "MutatingAdmissionWebhook",
    "ValidatingAdmissionPolicy",
    "ValidatingAdmissionWebhook",
    "ResourceQuota",
    "AlwaysDeny",
];

/// One problem with the two flags.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PluginFlagError {
    /// A name `--enable-admission-plugins` does not know (upstream's message).
    #[error("enable-admission-plugins plugin {0:?} is unknown")]
    UnknownEnabled(String),
    /// A name `--disable-admission-plugins` does not know (upstream's message).
    #[error("disable-admission-plugins plugin {0:?} is unknown")]
    UnknownDisabled(String),
    /// Names in both flags, sorted (upstream's message, Go's `%v` of a string slice).
    #[error("[{}] in enable-admission-plugins and disable-admission-plugins overlapped", .0.join(" "))]
    Overlapped(Vec<String>),
    /// A plugin repel always runs (Priority, TaintNodesByCondition).
    #[error("disable-admission-plugins plugin {0:?} cannot be disabled in repel: it always runs")]
    AlwaysOn(String),
}

/// Every problem found, displayed as Go's `utilerrors.NewAggregate`: one message alone, several
/// as `[a, b]`, duplicates once.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PluginFlagErrors(pub Vec<PluginFlagError>);

impl fmt::Display for PluginFlagErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut seen: Vec<String> = Vec::new();
        for e in &self.0 {
            let m = e.to_string();
            if !seen.contains(&m) {
                seen.push(m);
            }
        }
        match seen.as_slice() {
            [one] => f.write_str(one),
            many => write!(f, "[{}]", many.join(", ")),
        }
    }
}

impl std::error::Error for PluginFlagErrors {}

fn names(list: &[String]) -> impl Iterator<Item = &str> {
    list.iter().map(|n| n.trim()).filter(|n| !n.is_empty())
}

impl AdmissionConfig {
    /// kube-apiserver's `--enable-admission-plugins` and `--disable-admission-plugins` applied to
    /// this configuration, checked as upstream's `AdmissionOptions.Validate`:
    ///
    /// 1. Every name must be in [`ALL_ORDERED_PLUGINS`] ("enable-admission-plugins plugin "X" is
    ///    unknown"); blanks around names are trimmed and empty names skipped.
    /// 2. No name may be in both lists ("[X] in enable-admission-plugins and
    ///    disable-admission-plugins overlapped").
    /// 3. Priority and TaintNodesByCondition, which repel always runs, cannot be disabled.
    ///
    /// Then DefaultTolerationSeconds, PodTolerationRestriction and ExtendedResourceToleration are
    /// turned on or off (one turned on keeps its configuration if it was on already). Returns the
    /// names of upstream plugins repel does not model: accepted, with no effect.
    pub fn apply_plugin_flags(
        &mut self,
        enable: &[String],
        disable: &[String],
    ) -> Result<Vec<String>, PluginFlagErrors> {
        let known = |n: &str| ALL_ORDERED_PLUGINS.contains(&n);
        let mut errors = Vec::new();
        errors.extend(
            names(enable)
                .filter(|n| !known(n))
                .map(|n| PluginFlagError::UnknownEnabled(n.to_string())),
        );
        errors.extend(
            names(disable)
                .filter(|n| !known(n))
                .map(|n| PluginFlagError::UnknownDisabled(n.to_string())),
        );
        let on: BTreeSet<&str> = names(enable).collect();
        let off: BTreeSet<&str> = names(disable).collect();
        let both: Vec<String> = on.intersection(&off).map(|n| n.to_string()).collect();
        if !both.is_empty() {
            errors.push(PluginFlagError::Overlapped(both));
        }
        errors.extend(
            off.iter()
                .filter(|n| [PRIORITY, TAINT_NODES_BY_CONDITION].contains(n))
                .map(|n| PluginFlagError::AlwaysOn(n.to_string())),
        );
        if !errors.is_empty() {
            return Err(PluginFlagErrors(errors));
        }
        let mut unmodelled = Vec::new();
        for name in on {
            match name {
                DEFAULT_TOLERATION_SECONDS => {
                    self.default_toleration_seconds
                        .get_or_insert_with(DefaultTolerationSecondsConfig::default);
                }
                POD_TOLERATION_RESTRICTION => {
                    self.pod_toleration_restriction
                        .get_or_insert_with(PodTolerationRestrictionConfig::default);
                }
                EXTENDED_RESOURCE_TOLERATION => self.extended_resource_toleration = true,
                PRIORITY | TAINT_NODES_BY_CONDITION => {}
                other => unmodelled.push(other.to_string()),
            }
        }
        for name in off {
            match name {
                DEFAULT_TOLERATION_SECONDS => self.default_toleration_seconds = None,
                POD_TOLERATION_RESTRICTION => self.pod_toleration_restriction = None,
                EXTENDED_RESOURCE_TOLERATION => self.extended_resource_toleration = false,
                other => unmodelled.push(other.to_string()),
            }
        }
        Ok(unmodelled)
    }
}

/// What a provider's kube-apiserver enables beyond stock, as far as the plugins repel models
/// go (`--admission-preset`). Each entry names its source.
///
/// - `stock`, `kubeadm`: kube-apiserver's defaults (kubeadm passes only `NodeRestriction`,
///   which repel does not model): DefaultTolerationSeconds on, PodTolerationRestriction and
///   ExtendedResourceToleration off.
/// - `eks`: ExtendedResourceToleration on since EKS 1.19 (the EKS team on
///   aws/containers-roadmap#739: "We will be enabling the ExtendedResourceToleration admission
///   controller with the upcoming 1.19 launch").
/// - `gke`: ExtendedResourceToleration on (GKE's GPU page: "GKE will automatically apply
///   corresponding tolerations to Pods requesting GPUs by running the
///   ExtendedResourceToleration admission controller"), with its GPU pools tainted
///   `nvidia.com/gpu`.
/// - `aks`: stock (AKS's GPU pools need the toleration written in the pod).
pub const ADMISSION_PRESETS: [&str; 5] = ["stock", "kubeadm", "eks", "gke", "aks"];

impl AdmissionConfig {
    /// The configuration of a provider's kube-apiserver ([`ADMISSION_PRESETS`]); `None` for a
    /// name that is not one.
    pub fn preset(name: &str) -> Option<AdmissionConfig> {
        let stock = AdmissionConfig::default();
        Some(match name {
            "stock" | "kubeadm" | "aks" => stock,
            "eks" | "gke" => AdmissionConfig {
                extended_resource_toleration: true,
                ..stock
            },
            _ => return None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    #[allow(clippy::type_complexity)]
    fn plugin_flags_table() {
        let ert_on = AdmissionConfig {
            extended_resource_toleration: true,
            ..Default::default()
        };
        let ptr_off = AdmissionConfig {
            pod_toleration_restriction: None,
            ..Default::default()
        };
        #[rustfmt::skip]
        let cases: Vec<(&str, &[&str], &[&str], Result<(AdmissionConfig, Vec<&str>), &str>)> = vec![
            ("no flags: repel's defaults", &[], &[], Ok((AdmissionConfig::default(), vec![]))),
            ("ExtendedResourceToleration turned on", &["ExtendedResourceToleration"], &[], Ok((ert_on.clone(), vec![]))),
            ("blanks and empty names are ignored", &[" ExtendedResourceToleration", ""], &[], Ok((ert_on, vec![]))),
            ("PodTolerationRestriction turned off", &[], &["PodTolerationRestriction"], Ok((ptr_off, vec![]))),
            ("plugins on already stay as they are", &["DefaultTolerationSeconds", "Priority", "TaintNodesByCondition"], &[], Ok((AdmissionConfig::default(), vec![]))),
            ("an upstream plugin repel does not model is accepted and reported", &["NodeRestriction"], &["LimitRanger"], Ok((AdmissionConfig::default(), vec!["NodeRestriction", "LimitRanger"]))),
            ("an unknown name is refused with upstream's message", &["ExtendedResourceTolerations"], &[], Err("enable-admission-plugins plugin \"ExtendedResourceTolerations\" is unknown")),
            ("an unknown disabled name too", &[], &["Foo"], Err("disable-admission-plugins plugin \"Foo\" is unknown")),
            ("several errors are listed as Go aggregates them", &["Foo", "Priority"], &["Priority", "Bar"],
                Err("[enable-admission-plugins plugin \"Foo\" is unknown, disable-admission-plugins plugin \"Bar\" is unknown, [Priority] in enable-admission-plugins and disable-admission-plugins overlapped, disable-admission-plugins plugin \"Priority\" cannot be disabled in repel: it always runs]")),
            ("overlaps are sorted", &["PodTolerationRestriction", "DefaultTolerationSeconds"], &["PodTolerationRestriction", "DefaultTolerationSeconds"],
                Err("[DefaultTolerationSeconds PodTolerationRestriction] in enable-admission-plugins and disable-admission-plugins overlapped")),
        ];
        for (name, enable, disable, want) in cases {
            let mut cfg = AdmissionConfig::default();
            let got = cfg
                .apply_plugin_flags(&strings(enable), &strings(disable))
                .map(|unmodelled| (cfg, unmodelled))
                .map_err(|e| e.to_string());
            let want = want.map(|(c, u)| (c, strings(&u))).map_err(str::to_string);
            assert_eq!(got, want, "{name}");
        }
    }

    #[test]
    fn the_order_is_upstreams() {
        let at = |n: &str| ALL_ORDERED_PLUGINS.iter().position(|p| *p == n);
        assert!(
            at(PRIORITY) < at(DEFAULT_TOLERATION_SECONDS),
            "Priority first"
        );
        assert!(
            at(DEFAULT_TOLERATION_SECONDS) < at(POD_TOLERATION_RESTRICTION),
            "then DefaultTolerationSeconds"
        );
        assert!(
            at(POD_TOLERATION_RESTRICTION) < at(EXTENDED_RESOURCE_TOLERATION),
            "ExtendedResourceToleration after PodTolerationRestriction"
        );
    }
}
