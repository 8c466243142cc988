//! Unit tests of `crate::controllers::karpenter::requirements`.

use super::*;

fn req(key: &str, op: &str, values: &[&str]) -> Requirement {
    Requirement::new(
        key,
        op,
        &values.iter().map(|s| s.to_string()).collect::<Vec<_>>(),
    )
}

fn reqs(list: &[Requirement]) -> Requirements {
    let mut r = Requirements::default();
    for x in list {
        r.add(x.clone());
    }
    r
}

// Cases from Karpenter's requirements_test.go (Compatible, Intersects, String).
#[test]
fn compatibility_as_karpenter_decides_it() {
    let pool = reqs(&[
        req("kubernetes.io/arch", "In", &["amd64"]),
        req("team", "In", &["ml"]),
    ]);
    assert_eq!(
        pool.compatible(&reqs(&[req("kubernetes.io/arch", "In", &["arm64"])])),
        Err("key kubernetes.io/arch, kubernetes.io/arch In [arm64] not in kubernetes.io/arch In [amd64]".into())
    );
    assert_eq!(
        pool.compatible(&reqs(&[req(
            "kubernetes.io/arch",
            "In",
            &["amd64", "arm64"]
        )])),
        Ok(())
    );
    // An undefined custom label is refused, a well-known one allowed.
    assert_eq!(
        pool.compatible(&reqs(&[req("zone", "In", &["a"])])),
        Err(
            "label \"zone\" does not have known values (typo of \"topology.kubernetes.io/zone\"?)"
                .into()
        )
    );
    assert_eq!(
        pool.compatible(&reqs(&[req("instance-type", "In", &["a"])])),
        Err("label \"instance-type\" does not have known values (typo of \"node.kubernetes.io/instance-type\"?)".into())
    );
    assert_eq!(
        pool.compatible(&reqs(&[req("topology.kubernetes.io/zone", "In", &["a"])])),
        Ok(())
    );
    assert_eq!(
        pool.compatible(&reqs(&[req("other", "NotIn", &["a"])])),
        Ok(())
    );
    assert_eq!(
        pool.compatible(&reqs(&[req("other", "Exists", &[])])),
        Err("label \"other\" does not have known values".into())
    );
    // NotIn against NotIn never conflicts; In against NotIn of the same values does.
    let not_in = reqs(&[req("team", "NotIn", &["ml"])]);
    assert!(
        not_in
            .compatible(&reqs(&[req("team", "NotIn", &["ml"])]))
            .is_ok()
    );
    assert_eq!(
        pool.compatible(&reqs(&[req("team", "NotIn", &["ml"])])),
        Err("key team, team NotIn [ml] not in team In [ml]".into())
    );
}

#[test]
fn bounds_and_strings() {
    let gt = req("karpenter.k8s.aws/instance-cpu", "Gt", &["4"]);
    assert_eq!(gt.to_string(), "karpenter.k8s.aws/instance-cpu Exists >=5");
    assert!(!gt.intersects(&req("karpenter.k8s.aws/instance-cpu", "In", &["4"])));
    assert!(gt.intersects(&req("karpenter.k8s.aws/instance-cpu", "In", &["8"])));
    let many = req("k", "In", &["a", "b", "c", "d", "e", "f", "g"]);
    assert_eq!(many.to_string(), "k In [a b c d e and 2 others]");
    let r = reqs(&[
        req("kubernetes.io/hostname", "In", &["x"]),
        req("b", "Exists", &[]),
        req("a", "In", &["1"]),
    ]);
    assert_eq!(r.to_karpenter_string(), "a In [1], b Exists");
}

#[test]
fn labels_against_requirements() {
    let r = reqs(&[
        req("kubernetes.io/arch", "In", &["amd64"]),
        req("gpu", "DoesNotExist", &[]),
    ]);
    let mut l = BTreeMap::new();
    l.insert("kubernetes.io/arch".to_string(), "amd64".to_string());
    assert!(r.allow_labels(&l));
    l.insert("gpu".to_string(), "true".to_string());
    assert!(!r.allow_labels(&l));
}
