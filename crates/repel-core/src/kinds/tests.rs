//! The table's own consistency; its values are held against the server's discovery in
//! repel-server's tests.

use super::*;

#[test]
fn api_versions_are_group_and_version() {
    for k in KINDS {
        let want = if k.group.is_empty() {
            k.version.to_string()
        } else {
            format!("{}/{}", k.group, k.version)
        };
        assert_eq!(k.api_version, want, "{}", k.kind);
    }
}

#[test]
fn kinds_plurals_singulars_and_short_names_are_each_unique() {
    let mut seen = std::collections::HashSet::new();
    for k in KINDS {
        assert!(seen.insert(format!("kind {}", k.kind)), "{}", k.kind);
        assert!(seen.insert(format!("plural {}", k.plural)), "{}", k.kind);
        assert!(
            seen.insert(format!("singular {}", k.singular)),
            "{}",
            k.kind
        );
        for s in k.short_names {
            assert!(seen.insert(format!("short {s}")), "{}: {s}", k.kind);
        }
    }
}

#[test]
fn names_and_paths_as_upstream_writes_them() {
    let cases: &[(&str, &str, &str, &str)] = &[
        ("Pod", "pods", "pods", "/api/v1/pods"),
        (
            "ReplicaSet",
            "replicasets",
            "replicasets.apps",
            "/apis/apps/v1/replicasets",
        ),
        (
            "CronJob",
            "cronjobs",
            "cronjobs.batch",
            "/apis/batch/v1/cronjobs",
        ),
        (
            "PodDisruptionBudget",
            "poddisruptionbudgets",
            "poddisruptionbudgets.policy",
            "/apis/policy/v1/poddisruptionbudgets",
        ),
        (
            "HorizontalPodAutoscaler",
            "horizontalpodautoscalers",
            "horizontalpodautoscalers.autoscaling",
            "/apis/autoscaling/v2/horizontalpodautoscalers",
        ),
    ];
    for (kind, plural, qualified, path) in cases {
        let k = by_kind(kind).unwrap_or_else(|| panic!("{kind}"));
        assert_eq!(k.plural, *plural);
        assert_eq!(k.qualified(), *qualified);
        assert_eq!(k.list_path(), *path);
        assert_eq!(by_plural(plural), Some(k));
        assert_eq!(by_singular(&kind.to_lowercase()), Some(k));
        assert_eq!(by_name(&kind.to_lowercase()), Some(k));
        assert_eq!(by_name(plural), Some(k));
    }
    assert_eq!(by_kind("NodePool"), None);
    assert_eq!(by_name("rs").map(|k| k.kind), Some("ReplicaSet"));
    assert_eq!(by_name("cj").map(|k| k.kind), Some("CronJob"));
    assert_eq!(by_name("Pods"), None);
}

/// `kubectl api-resources` of a real cluster (see the file's header for its source).
const API_RESOURCES: &str = include_str!("testdata/api-resources-gke.txt");

#[test]
fn every_row_is_what_a_real_clusters_api_resources_lists() {
    // (name, short names, apiVersion, namespaced, kind) of each line after the header.
    let listed: Vec<(&str, Vec<&str>, &str, bool, &str)> = API_RESOURCES
        .lines()
        .filter(|l| !l.starts_with('#') && !l.starts_with("NAME "))
        .map(|l| {
            let w: Vec<&str> = l.split_whitespace().collect();
            let (shorts, rest) = match w.len() {
                5 => (w[1].split(',').collect(), &w[2..]),
                _ => (Vec::new(), &w[1..]),
            };
            (w[0], shorts, rest[0], rest[1] == "true", rest[2])
        })
        .collect();
    // ValidatingAdmissionPolicies are GA from v1.30, after the cluster the file lists.
    let newer = [
        "ValidatingAdmissionPolicy",
        "ValidatingAdmissionPolicyBinding",
    ];
    for k in KINDS {
        let Some((_, shorts, _, namespaced, kind)) = listed
            .iter()
            .find(|(name, _, api, _, _)| *name == k.plural && *api == k.api_version)
        else {
            assert!(newer.contains(&k.kind), "{} is not in the listing", k.kind);
            continue;
        };
        assert_eq!(*kind, k.kind, "{}", k.plural);
        assert_eq!(*namespaced, k.namespaced, "{}", k.kind);
        assert_eq!(shorts.as_slice(), k.short_names, "{}", k.kind);
    }
}
