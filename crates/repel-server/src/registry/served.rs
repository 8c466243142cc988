//! The served resources, built in and defined by CRDs, and upstream's version priority.

use std::sync::{Arc, Mutex, MutexGuard, RwLock};

use serde_json::Value;

use super::{ApiResource, BUILTIN, GROUPS};

/// Upstream's version priority (`version.CompareKubeAwareVersionStrings`): `v2` before `v1`,
/// GA before beta before alpha, then higher numbers first; anything else after, by name.
pub fn compare_versions(a: &str, b: &str) -> std::cmp::Ordering {
    fn rank(v: &str) -> (u8, u64, u64, String) {
        let parsed = v.strip_prefix('v').and_then(|rest| {
            let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
            let major: u64 = digits.parse().ok()?;
            let after = &rest[digits.len()..];
            if after.is_empty() {
                return Some((0, major, 0));
            }
            let (level, num) = if let Some(n) = after.strip_prefix("beta") {
                (1, n)
            } else if let Some(n) = after.strip_prefix("alpha") {
                (2, n)
            } else {
                return None;
            };
            let minor: u64 = num.parse().ok()?;
            Some((level, major, minor))
        });
        match parsed {
            Some((level, major, minor)) => {
                (level, u64::MAX - major, u64::MAX - minor, String::new())
            }
            None => (3, 0, 0, v.to_string()),
        }
    }
    rank(a).cmp(&rank(b))
}

/// The custom resources served, rebuilt from the stored CRDs after every CRD write.
#[derive(Debug, Default)]
pub struct Registry {
    custom: RwLock<Vec<Arc<ApiResource>>>,
    syncing: Mutex<()>,
}

impl Registry {
    /// Held while the CRDs are read and the registry replaced, so that two syncs after two
    /// concurrent CRD writes cannot leave the older list in place.
    pub fn syncing(&self) -> MutexGuard<'_, ()> {
        self.syncing.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn custom(&self) -> Vec<Arc<ApiResource>> {
        self.custom
            .read()
            .map(|c| c.clone())
            .unwrap_or_else(|e| e.into_inner().clone())
    }

    /// Replaces the custom resources with those `crds` (stored CustomResourceDefinitions)
    /// serve: one entry per served version, in the CRDs' order.
    pub fn set_crds(&self, crds: &[Value]) {
        let list: Vec<Arc<ApiResource>> = crds
            .iter()
            .flat_map(crate::crd::served_resources)
            .map(Arc::new)
            .collect();
        match self.custom.write() {
            Ok(mut c) => *c = list,
            Err(e) => *e.into_inner() = list,
        }
    }

    /// Finds a served resource by group, version and plural name.
    pub fn find(&self, group: &str, version: &str, name: &str) -> Option<Arc<ApiResource>> {
        if let Some(r) = BUILTIN
            .iter()
            .find(|r| r.group == group && r.version == version && r.name == name)
        {
            return Some(r.clone());
        }
        self.custom()
            .into_iter()
            .find(|r| r.group == group && r.version == version && r.name == name)
    }

    /// Finds a resource by kind (for seeding from manifests): its group and version.
    pub fn by_kind(&self, api_version: &str, kind: &str) -> Option<Arc<ApiResource>> {
        let (group, version) = api_version.rsplit_once('/').unwrap_or(("", api_version));
        self.served()
            .into_iter()
            .find(|r| r.kind == kind && r.group == group && r.version == version)
    }

    /// Every resource at every served version: the built-in ones, then the custom ones.
    pub fn served(&self) -> Vec<Arc<ApiResource>> {
        BUILTIN.iter().cloned().chain(self.custom()).collect()
    }

    /// One entry per stored key (a custom resource at its storage version): what a namespace
    /// deletion or the garbage collector walks.
    pub fn stored(&self) -> Vec<Arc<ApiResource>> {
        let mut out: Vec<Arc<ApiResource>> = BUILTIN.to_vec();
        for r in self.custom() {
            if r.custom
                .as_ref()
                .is_some_and(|c| c.storage_version == r.version)
            {
                out.push(r);
            }
        }
        out
    }

    /// The resources of one group version.
    pub fn in_group_version(&self, group: &str, version: &str) -> Vec<Arc<ApiResource>> {
        self.served()
            .into_iter()
            .filter(|r| r.group == group && r.version == version)
            .collect()
    }

    /// The groups served besides core with their versions, preferred first: the built-in
    /// groups in discovery order, then the custom ones by name.
    pub fn groups(&self) -> Vec<(String, Vec<String>)> {
        let mut out: Vec<(String, Vec<String>)> = GROUPS
            .iter()
            .map(|(g, v)| (g.to_string(), vec![v.to_string()]))
            .collect();
        let mut custom: Vec<(String, Vec<String>)> = Vec::new();
        for r in self.custom() {
            // A CRD may add versions to a built-in group (`*.k8s.io`, with approval).
            if let Some((_, versions)) = out.iter_mut().find(|(g, _)| *g == r.group) {
                if !versions.contains(&r.version) {
                    versions.push(r.version.clone());
                    versions.sort_by(|a, b| compare_versions(a, b));
                }
                continue;
            }
            match custom.iter_mut().find(|(g, _)| *g == r.group) {
                Some((_, versions)) => {
                    if !versions.contains(&r.version) {
                        versions.push(r.version.clone());
                    }
                }
                None => custom.push((r.group.clone(), vec![r.version.clone()])),
            }
        }
        custom.sort_by(|a, b| a.0.cmp(&b.0));
        for (_, versions) in &mut custom {
            versions.sort_by(|a, b| compare_versions(a, b));
        }
        out.extend(custom);
        out
    }

    /// The versions `group` is served at, preferred first (empty: not served).
    pub fn versions(&self, group: &str) -> Vec<String> {
        if group.is_empty() {
            return vec!["v1".to_string()];
        }
        self.groups()
            .into_iter()
            .find(|(g, _)| g == group)
            .map(|(_, v)| v)
            .unwrap_or_default()
    }

    /// Whether `group` is served at `version`.
    pub fn serves(&self, group: &str, version: &str) -> bool {
        self.versions(group).iter().any(|v| v == version)
    }
}
