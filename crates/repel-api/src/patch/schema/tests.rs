//! Unit tests of `crate::patch::schema`.

use super::*;

#[test]
fn lookup_cases() {
    let cases = [
        (
            "containers merge by name",
            root("Pod"),
            &["spec", "containers"][..],
            Strategy::Merge,
            "name",
        ),
        (
            "tolerations are atomic",
            root("Pod"),
            &["spec", "tolerations"][..],
            Strategy::Default,
            "",
        ),
        (
            "taints are atomic",
            root("Node"),
            &["spec", "taints"][..],
            Strategy::Default,
            "",
        ),
        (
            "node conditions merge by type",
            root("Node"),
            &["status", "conditions"][..],
            Strategy::Merge,
            "type",
        ),
        (
            "ports merge by containerPort",
            root("Pod"),
            &["spec", "containers", "ports"][..],
            Strategy::Merge,
            "containerPort",
        ),
        (
            "a deployment's pod template containers merge by name",
            root("Deployment"),
            &["spec", "template", "spec", "containers"][..],
            Strategy::Merge,
            "name",
        ),
        (
            "owner references merge by uid",
            root("ReplicaSet"),
            &["metadata", "ownerReferences"][..],
            Strategy::Merge,
            "uid",
        ),
        (
            "finalizers merge as a set",
            root("Pod"),
            &["metadata", "finalizers"][..],
            Strategy::Merge,
            "",
        ),
        (
            "a PDB selector is replaced",
            root("PodDisruptionBudget"),
            &["spec", "selector"][..],
            Strategy::Replace,
            "",
        ),
        (
            "an unknown kind has no metadata",
            root("Lease"),
            &["spec", "holderIdentity"][..],
            Strategy::Default,
            "",
        ),
    ];
    for (name, ty, path, strategy, key) in cases {
        let mut t = ty;
        let mut meta = OTHER;
        for f in path {
            meta = lookup(t, f);
            t = meta.ty;
        }
        assert_eq!((meta.strategy, meta.merge_key), (strategy, key), "{name}");
    }
}
